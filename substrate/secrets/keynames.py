"""Decide whether a key name (``db_password``, ``stripeApiKey``, ``X-Auth-Token``) holds a secret.

A key is split into lower-case words (``AWS_SECRET_ACCESS_KEY`` -> aws, secret, access, key;
``clientSecret`` -> client, secret). The last word that carries a secret stem decides:

* ``"password"``: human-chosen secrets (password, passwd, pwd, pass, secret, credentials):
  short or weak literal values still count.
* ``"token"``: machine-made secrets (token, api key, access key, private key, auth): the value
  must look random.

Words after the stem that make the key *about* the secret rather than the secret itself
(``password_url``, ``token_type``, ``secret_name``) disqualify it, and so do qualifiers that make
a key public or structural (``public_key``, ``primary_key``, ``sort_key``).
"""

from __future__ import annotations

import re
from functools import lru_cache

_SPLIT = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

_PASSWORD_WORDS: frozenset[str] = frozenset(
    {
        "pass",
        "passwd",
        "password",
        "passwrd",
        "passphrase",
        "passcode",
        "pw",
        "pwd",
        "pswd",
        "pswrd",
        "pwrd",
        "credential",
        "credentials",
        "creds",
    }
)
# Password names glued to what they guard, as tools spell their options and settings:
# keytool's -storepass, redis's requirepass and masterauth
GLUED_NAMES: frozenset[str] = frozenset(
    """storepass keypass srcstorepass deststorepass srckeypass destkeypass keystorepass
    truststorepass requirepass masterauth""".split()
)
# The names web frameworks give a session's cookie (Django's sessionid, PHP's PHPSESSID,
# Java's JSESSIONID)
_SESSION_COOKIES = frozenset({"sessionid", "sessid", "phpsessid", "jsessionid"})
_KEY_QUALIFIERS: frozenset[str] = frozenset(
    """api access secret private priv app application auth master license licence encryption
    encrypt enc signing sign client consumer service account sensitive shared storage
    subscription webhook admin deploy developer dev merchant partner integration server
    aes hmac jwt crypto cipher session root management mgmt sas""".split()
)
# Qualifiers before ``key`` that make the key public or structural, not secret.
_KEY_NOT_SECRET: frozenset[str] = frozenset(
    """public pub publishable primary foreign sort partition hash range cache lookup dict map
    group row column unique composite natural surrogate idempotency i18n translation message
    label field state registry redis object bucket file local ssh gpg pgp host hotkey short
    cut shortcut keyboard press hot entry index item node attr attribute name type meta config
    dedup dedupe s3 blob event query param search""".split()
)
# Words after the stem that describe the secret instead of holding it.
_AFTER_NOT_SECRET: frozenset[str] = frozenset(
    """url uri urls path paths file files filename dir directory folder name names type types
    field fields label length len size count max min policy policies pattern regex prompt hint
    message msg error errors text title placeholder description desc enabled enable disabled
    required header headers env var vars variable variables location endpoint expiry expires
    expiration expire ttl timeout hash hashed hasher digest format version mode method provider
    scheme
    store manager service class module handler factory reset change changed confirm
    confirmation validation validator validators rule rules strength reuse history prefix
    suffix kind template input form box button btn icon link page view widget dialog modal
    screen route id ids index idx limit column col param params parameter arg args option
    options flag flags prop props attr attribute attributes help visible visibility toggle
    show hide mask masked hint hints regexp check checker required_ length_ lifetime age
    count_ counter generator gen encoder decoder parser serializer refresh_url uri_ reader
    writer loader id_ ref reference file_ path_ list set map dict keys list_ utils util
    helper helpers test tests spec mock stub fixture fixtures example sample schema
    store_ storage_ expiry_ created updated at on by source chars charset alphabet""".split()
)
# Words after the stem that say what kind of secret it is (``password_encoding: Latin-1``,
# ``password_encryption = scram-sha-256``): a value that looks random under such a name is
# still one (``SECRET_ENCRYPTION=q8Vz...``), a word or a name is not
_AFTER_DESCRIBES_IT: frozenset[str] = frozenset(
    """encoding algorithm algo cipher encryption complexity level rounds iterations mechanism
    kdf""".split()
)
_PLURAL_NOT_SECRET: frozenset[str] = frozenset({"tokens", "keys", "secrets", "passwords"})
# Words after a leading "pass" that make it a verb or an adjective, as filters, tests and
# pipelines use it (SciPy's pass_zero, a band's pass_color), not a password (PASS_ROOT,
# db_pass_prod keep theirs)
_PASS_AS_A_VERB: frozenset[str] = frozenset("zero color colour band filter".split())
# Qualifiers before any stem that make the value public or a per-request nonce.
_PUBLIC_OR_NONCE: frozenset[str] = frozenset(
    {"public", "pub", "publishable", "csrf", "xsrf", "authenticity", "nonce", "anti", "forgery"}
)

# Words right before ``token`` that make it a marker a service hands out to page through a
# listing or to make a request once, not a credential: AWS's NextToken, IdempotencyToken,
# Azure's continuation token, Google's pageToken and nextSyncToken, a CancelToken. Not a
# Facebook page's token (``fb_page_token``; its values, EAA..., are found by their own rule
# under any name), nor "request" (OAuth 1.0's request token is a credential) but after
# "client" (AWS's ClientRequestToken), nor "change" but alone (AWS WAF's ChangeToken, not an
# account's email_change_token)
_MARKER_TOKENS: frozenset[str] = frozenset(
    "next continuation pagination page starting idempotency cancellation cancel resume sync".split()
)
_NOT_MARKED_BY: dict[str, frozenset[str]] = {"page": frozenset({"fb", "facebook"})}
# (word before, word right before ``token``)
_MARKER_PAIRS: frozenset[tuple[str, str]] = frozenset({("client", "request")})


def _marks_a_request(before: list[str]) -> bool:
    """Whether the words before ``token`` in a key name a marker a service hands out to page
    through a listing or to make a request once (``_MARKER_TOKENS``)."""
    if not before:
        return False
    prev, earlier = before[-1], before[:-1]
    if prev in _MARKER_TOKENS:
        return not (earlier and earlier[-1] in _NOT_MARKED_BY.get(prev, ()))
    return bool(earlier and (earlier[-1], prev) in _MARKER_PAIRS) or before == ["change"]


def split_words(key: str) -> list[str]:
    """Lower-case words of an identifier, splitting separators, camel humps and digits."""
    return [w.lower() for w in _SPLIT.findall(key)]


def _stem_strength(word: str, prev: str | None) -> str | None:
    if word in _PLURAL_NOT_SECRET:
        return None
    if _is_password_word(word):
        return "password"
    if word.startswith("secret") or word.endswith("secret"):
        # (not AWS's service "secretsmanager", whose actions an IAM policy names)
        return None if word == "secretsmanager" else "password"
    # not "jwt" (jwt_issuer), nor "cookie": a cookie header's pairs ("Cookie: theme=dark;
    # sessionid=...") are each under its own name
    if word in ("auth", "oauth", "bearer"):
        return "token"
    if word in _SESSION_COOKIES:  # a session's cookie: who holds it is logged in
        return "token"
    if word == "seed" and prev in ("totp", "otp", "hotp", "mfa"):  # makes every code
        return "token"
    if "token" in word and "tokeniz" not in word:
        return "token"
    if word.endswith("apikey") or word in (
        "accesskey",
        "secretkey",
        "privatekey",
        "authkey",
        "appkey",
    ):
        return "token"
    if word == "key":
        if prev is None or prev in _KEY_NOT_SECRET:
            return None
        return "token"
    if word.endswith("key") and word[:-3] in _KEY_QUALIFIERS:
        return "token"
    return None


def names_a_password(key: str) -> bool:
    """Whether ``key`` names a password itself (``DB_PASSWORD``, ``smtpPass``): its last word
    is one, unlike a secret or where one is kept (``existingSecret``, ``password_storage``)."""
    words = _merge_camel_password(split_words(key))
    return bool(words) and _is_password_word(words[-1]) and words[-1] not in _CREDENTIALS


_CREDENTIALS = frozenset({"credential", "credentials", "creds"})  # a set of them, or a ref


def _is_password_word(word: str) -> bool:
    return word in _PASSWORD_WORDS or "password" in word or "passwd" in word or word in GLUED_NAMES


def is_glued_name(key: str) -> bool:
    """Whether ``key`` is a password's name glued to what it guards (``requirepass``)."""
    return key.lower() in GLUED_NAMES


def _merge_camel_password(words: list[str]) -> list[str]:
    """``PassWord`` splits into pass + word (``pass_phrase`` into pass + phrase); put it
    back together."""
    out: list[str] = []
    for w in words:
        if out and out[-1] == "pass" and w in ("word", "phrase", "code"):
            out[-1] = "pass" + w
        else:
            out.append(w)
    return out


# Where a password is kept, as its maker spells it: a key so named says where, not what ("see
# 1Password \"Prod DB\""); as a value, only so spelled ("1password" may be a weak password).
PASSWORD_MANAGERS = frozenset(["1Password", "LastPass", "Bitwarden", "KeePass", "KeePassXC"])
_MANAGER_KEYS = frozenset(name.lower() for name in PASSWORD_MANAGERS)


# Item fields repeat the same few keys (``path``, ``section``...) over and over.
@lru_cache(maxsize=4096)
def classify_key(key: str) -> str | None:
    """Return ``"password"``, ``"token"`` or ``None`` for a key name.

    Args:
        key: the key as written (``aws_secret_access_key``, ``X-Api-Key``, ``dbPass``).
    """
    raw = key.strip(" \t\"'`$@:-")
    if raw.lower() in _MANAGER_KEYS:  # "see 1Password \"Prod DB\"": where it is kept
        return None
    if raw.lower() in ("_auth", "auth"):
        return "password"
    if raw.lower().startswith("_authtoken"):
        # npm registry tokens are recognised by their own rule, which knows .npmrc syntax
        return None
    words = _merge_camel_password(split_words(raw))
    if not words:
        return None
    if words[0] in (
        "no",
        "not",
        "non",
        "is",
        "has",
        "use",
        "show",
        "hide",
        "allow",
        "require",
        "min",
        "max",
        "num",
        "get",
        "check",
        "validate",
        "verify",
        "hash",
    ):
        return None
    for i in range(len(words) - 1, -1, -1):
        prev = words[i - 1] if i > 0 else None
        strength = _stem_strength(words[i], prev)
        if strength is None:
            continue
        after = words[i + 1 :]
        # ``secret_id`` is a Vault AppRole credential, the one ``id`` that is secret
        vault_secret_id = after == ["id"] and words[i].startswith("secret")
        if not vault_secret_id and any(
            w in _AFTER_NOT_SECRET or w in _PLURAL_NOT_SECRET for w in after
        ):
            return None
        if words[i] == "pass" and after and after[0] in ("through", "thru"):
            return None
        if any(w in _AFTER_DESCRIBES_IT for w in after):
            return "token"
        if i == 0 and words[0] == "pass" and after and after[0] in _PASS_AS_A_VERB:
            # "pass" leading a name is a verb or an adjective there (pass_zero, pass_color),
            # not a password: only a value that looks random is one
            return "token"
        if any(w in _PUBLIC_OR_NONCE for w in words[:i]):
            return None
        if words[i] == "token" and _marks_a_request(words[:i]):
            return None
        # a password-like word anywhere (``aws_secret_access_key``) means weak values count
        if any(_stem_strength(w, None) == "password" for w in words[: i + 1]):
            return "password"
        return strength
    return None
