"""Whether a value has the shape of a real secret of a known form: a provider token, a URL's
password, a private key's body, a JSON web token. Placeholders, fillers and test values of
the same form are told apart here."""

from __future__ import annotations

import base64
import binascii
import json
import re

from substrate.secrets.entropy import is_repetitive, is_sequential, shannon
from substrate.secrets.placeholders import (
    is_name_like,
    is_placeholder,
    is_reference,
    plain_word,
    x_filler,
)
from substrate.secrets.rules import MAX_KEY_BLOCK, PEM_END

_HARD_MARKERS = ("example", "****", "dummy", "placeholder", "your_", "your-", "<", ">")
_URL_PLACEHOLDERS = ("<", "your_", "your-")
_URL_DEFAULTS = frozenset({"password", "passwd", "pass", "pwd", "secret", "token", "guest"})


def valid_token(body: str, floor: float) -> bool:
    low = body.lower()
    if any(marker in low for marker in _HARD_MARKERS) or x_filler(body):
        return False
    if is_repetitive(body) or is_sequential(body):
        return False
    if ("test" in low or "fake" in low) and shannon(low.replace("test", "")) < 3.0:
        return False
    return shannon(body) >= floor


def valid_url_password(password: str, whole: str) -> bool:
    user = whole.split("://", 1)[-1].split(":", 1)[0]
    if user.endswith("[") and password.endswith("]"):  # user[:password]@host: usage's notation
        password = password[:-1]  # of an optional part, judged without its bracket
    if is_reference(password) or password.lower() in _URL_DEFAULTS:
        return False
    if len(set(password.lower())) == 1:  # "xxx", "***": a filler of any length
        return False
    # a <slot> marks documentation; "your" only as a template's "your_" (a password may
    # well begin "Your...")
    low = whole.lower()
    if is_placeholder(password) or any(m in low for m in _URL_PLACEHOLDERS):
        return False
    host = low.rpartition("@")[2].split(".")
    if "example" in host and _shown_to_a_reader(password):  # not my-example.io
        return False
    return user.lower().rstrip("[") != password.lower()


def _shown_to_a_reader(password: str) -> bool:
    """Whether a password at an example host (example.com, db.example) is documentation's:
    a word, perhaps in leetspeak and with digits or signs after it (``secret``, ``hunter2``,
    ``P@ssw0rd``, ``Tr0ub4dor&3``). The host alone does not make a random one
    (``Hu8kLp3Qz9w``) a stand-in: a real host may sit under a company's example domain, and
    a real password is pasted with a host changed for the page."""
    word = password.rstrip(_DIGITS_AND_SIGNS).translate(_LEET)
    return plain_word(word) or is_name_like(word)


_DIGITS_AND_SIGNS = "0123456789!@#$%^&*?.,;:+=~_-"
# the digits and signs that stand for letters in a password made of a word
_LEET = str.maketrans("013457@$", "oieastas")


def valid_pem(body: str, m: re.Match[str], text: str) -> bool:
    if _placeholder_key(body):
        return False
    if "-----END" in m.group(0):
        return sum(ch.isalnum() for ch in body) >= 32
    # header without its END line: report it unless a private key's END line follows within
    # the reach of the complete-block rule (which has then decided); a longer key, an END
    # line cut short or another block's END line ("-----END PGP PUBLIC KEY BLOCK-----": an
    # exported pair whose private half lost its end) fail closed
    reach = m.start() + _PEM_HEADER_MAX + MAX_KEY_BLOCK
    return _PRIVATE_KEY_END.search(text, m.end(), reach) is None


_PEM_HEADER_MAX = 80  # the longest BEGIN line the key rules take
_PRIVATE_KEY_END = re.compile(PEM_END)


def _placeholder_key(body: str) -> bool:
    """Whether a key block's ``body`` stands in for a key: "<your key here>", "....", "XXXX".

    "EXAMPLE" written into a key marks a documentation sample, as AWS's are (seven letters in
    one case are never there by chance). "your" or "xxxx", in some case, turns up in a real
    key's random base64 by chance (about one RSA key in 300): such a word marks a stand-in
    only in a body written to be read: shorter than any key, holding characters base64 has
    not (YOUR_KEY_HERE), or of little randomness (XXXXXXXX).
    """
    low = body.lower()
    if "...." in low or "\u2026" in low or "<" in low:  # never in base64
        return True
    if any(word in body for word in ("EXAMPLE", "example", "Example")):
        return True
    if "xxxx" not in low and "your" not in low:
        return False
    letters = _KEY_LAYOUT.sub("", body)
    if len(letters) < _SHORTEST_KEY or _NOT_BASE64.search(letters):
        return True
    return shannon(letters) < RANDOM_BASE64


# armor headers, a quote's or a comment's marks opening each line, line breaks and escapes
_KEY_LAYOUT = re.compile(
    r"(?m:^[ \t]*[A-Za-z][\w-]{0,30}: [^\r\n]*$)|(?m:^[ \t]*(?:>|#|//|;|\*|--)+)|\\[nr]|\s"
)
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=]")
# bits per character: random base64 of a key's length gives close to 6, a filler word far less
RANDOM_BASE64 = 4.5
# base64 characters in the smallest private key written out (an EC key, about 160)
_SHORTEST_KEY = 120


def _b64decode(part: str) -> bytes | None:
    padded = part + "=" * (-len(part) % 4)
    try:
        return base64.urlsafe_b64decode(padded.encode("ascii"))
    except (binascii.Error, ValueError):
        return None


def _json_object(part: str) -> bool:
    raw = _b64decode(part)
    if raw is None:
        return False
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError):
        return False


def valid_jwt(token: str) -> bool:
    parts = token.split(".")
    if len(parts) < 2 or not _json_object(parts[0].rstrip("=")):
        return False
    return not parts[1].startswith("eyJ") or _json_object(parts[1].rstrip("="))


# A token inside a decoded blob, from the start of a run (see the jwt rule)
_INNER_JWT = re.compile(r"(?<![\w\-])eyJ[\w\-]{10,}\.[\w\-]{10,}")


def valid_jwt_b64(blob: str) -> bool:
    raw = _b64decode(blob.replace("+", "-").replace("/", "_").rstrip("="))
    if raw is None:
        return False
    inner = raw.decode("ascii", "replace")
    match = _INNER_JWT.search(inner)
    return match is not None and valid_jwt(match.group(0))
