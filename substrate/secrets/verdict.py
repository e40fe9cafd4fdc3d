"""Whether a rule's match is a secret: the checks a match passes before it is reported.

A rule's pattern finds what looks like a credential; most such matches in real text are not
one (a placeholder, a variable, an option's name, a path, prose). ``consider`` takes the part
of a match that is the secret, and accepts it when no check says otherwise.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from unicodedata import normalize

from substrate.secrets.around import line_after, line_before
from substrate.secrets.codetext import in_text
from substrate.secrets.commands import (
    OPTION_WORDS,
    an_option_s_value,
    command_environment,
    runs_a_command,
    said_again,
)
from substrate.secrets.entropy import char_classes, shannon
from substrate.secrets.hits import MASK_LEAD, Accepted, Hit
from substrate.secrets.keynames import classify_key, is_glued_name, names_a_password
from substrate.secrets.localized import TOKEN_WORDS
from substrate.secrets.placeholders import (
    SHORTEST_UNQUOTED,
    credential_ok,
    is_name_like,
    is_path_or_url,
    is_placeholder,
    looks_random,
    plain_word,
    says_something,
    worth_reporting,
)
from substrate.secrets.rule import Rule
from substrate.secrets.shapes import (
    RANDOM_BASE64,
    valid_jwt,
    valid_jwt_b64,
    valid_pem,
    valid_token,
    valid_url_password,
)

_VALUE_GROUPS = ("secret", "sq", "se", "ss", "sb", "sx", "sc", "su")


def _secret_span(m: re.Match[str]) -> tuple[int, int, str]:
    """The span and group name of the secret part of a match (whole match if unnamed)."""
    names = m.re.groupindex
    for name in _VALUE_GROUPS:
        if name in names and m.group(name) is not None:
            return m.start(name), m.end(name), name
    return m.start(), m.end(), ""


def consider(rule: Rule, m: re.Match[str], text: str, accepted: Accepted, syntax: str) -> None:
    start, end, group = _secret_span(m)
    if (
        rule.boundary
        and m.start() > 0
        and _glued(text[m.start() - 1])
        and text[m.start() - 1] not in rule.joins
        and not _marked(m, rule, text)
        and not _SEPARATOR_AT_END.search(text, max(0, m.start() - 24), m.start())
        and not _path_component(m, text)
    ):
        return
    if (
        rule.prefix
        and text.startswith("_", m.end())
        and not _generated(text[start:end][rule.prefix :])
    ):
        return  # an identifier ("sk_test_configuration_value"), not a token named "…_old"
    next_line = group == "su" and text.startswith(_ESCAPED_BREAKS, start)
    if next_line:
        start, end = _past_escaped_breaks(text, start, end)
    if group == "su":
        end = start + len(_trim_unquoted(text[start:end]))
    if end <= start and rule.kind != "pem":
        return
    if end <= start:  # a private key header with no body: the header stands for the key
        if text.startswith(MASK_LEAD, m.end()):  # ... unless its body was masked already
            return
        start, end = m.start(), m.end()
    if accepted.overlaps(start, end):
        return
    if group and _a_link_alone(text, start):  # "password:: [[Vault Entry]]": a page named
        return
    if group and _a_test_result(m, text):
        return
    if syntax != "text" and _written_as_text(rule, m, text, start):
        syntax = "text"
    valid = _next_line_valid if next_line else _valid
    if not valid(rule, m, text[start:end], group, text, syntax):
        return
    if group == "su":
        through = _through_open_brackets(text, start, end)
        end = through if accepted.take_within(end, through) else end
    accepted.add(Hit(rule.name, start, end, rule.prefix, m.start(), m.end()))


# A value that is a link to a note, as Logseq and Obsidian write one as a property's value: a
# page ("[[Vault Entry]]", "#[[Tokens]]") or a block ("((64f1c2d0-...))")
_NOTE_LINK = re.compile(r"#?\[\[[^\[\]\n]+\]\]|\(\([0-9a-f-]{36}\)\)")


def _a_test_result(m: re.Match[str], text: str) -> bool:
    """Whether the ``PASS:`` that names the value opens a test's result, as a test suite's
    log writes them (DejaGnu's, automake's): a name of several words ("PASS: ar thin
    archive"; a password is one word) on a line next to another result or a run ("Running
    /src/ar.exp ...")."""
    if m.groupdict().get("key") != "PASS" or text[m.end("key") : m.end("key") + 2] != ": ":
        return False
    key_end = m.end("key")
    line_start = text.rfind("\n", 0, m.start("key")) + 1
    after = text.find("\n", key_end)
    name = text[key_end + 2 : after if after != -1 else len(text)].strip()
    if text[line_start : m.start("key")].strip() or " " not in name:
        return False
    above = text.rfind("\n", 0, line_start - 1) + 1 if line_start else -1
    return (above != -1 and _TEST_RESULT.match(text, above) is not None) or (
        after != -1 and _TEST_RESULT.match(text, after + 1) is not None
    )


# How a test suite's log opens a line of a test's result, or of the tests it runs next
_TEST_RESULT = re.compile(
    r"(?:PASS|FAIL|XPASS|XFAIL|KFAIL|KPASS|UNSUPPORTED|UNTESTED|UNRESOLVED): "
    r"|Running (?:target |\S+\.exp )"
)


def _a_link_alone(text: str, start: int) -> bool:
    """Whether the value at ``start`` is a link to a note and nothing else on its line (not
    "[[x]]Tr0ub4dor&3", nor "[[Vault Entry]] or Tr0ub4dor&3")."""
    link = _NOTE_LINK.match(text, start)
    if link is None:
        return False
    line_end = text.find("\n", link.end())
    rest = text[link.end() : len(text) if line_end < 0 else line_end]
    return not rest.strip(" \t\r\"'`,;")


def _glued(before: str) -> bool:
    """Whether the character ``before`` a token's match makes it part of a longer one: an
    ASCII letter or digit, ``_``, ``+`` or ``/`` (base64's). A letter of another script
    ("令牌是ghp_…", "ключAKIA…": Chinese and Japanese leave no space) is none."""
    return (before.isascii() and before.isalnum()) or before in "_+/"


def _written_as_text(rule: Rule, m: re.Match[str], text: str, start: int) -> bool:
    """Whether, in code, an assignment's value stands in a string literal or a comment, where
    ``key=value`` and ``key: value`` are text (``"User ID=sa;Password=Xk92…;"``, ``# prod
    password=…``). Other ways of giving a value there (``pass_zero : bool`` in a docstring,
    ``the --password option``) stay judged as code."""
    if rule.kind != "assignment":
        return False
    operator = text[m.end("key") : start].strip(" \t\"'`")
    if operator not in ("=", ":") or (operator == ":" and text[m.end("key")] != ":"):
        return False
    return in_text(text, start)


def _generated(value: str) -> bool:
    """Whether ``value`` may be a generated token: anything but small letters alone (an AWS
    key id is capitals, and may hold no digit). A provider token may be glued to a name by
    ``_`` (``ghp_…_backup.md``); a word in ``snake_case`` after a type marker
    (``sk_test_configuration_value``) is one of a program's names."""
    return not (value.isalpha() and value.islower())


def _marked(m: re.Match[str], rule: Rule, text: str) -> bool:
    """Whether a token's type marker holds punctuation (``ghp_``, ``glpat-``, ``xoxb-``) and so
    needs no word boundary before it: found in ``https://ghp_…@host``, ``token_ghp_…``, or
    after an escape (``\\nghp_…``, ``%3Dghp_…``). Glued to a letter or digit it does need
    one: URL-safe base64 holds ``_`` and ``-`` (a wheel's RECORD lists
    ``sha256=2KJGwihf_QeZ…``), so there the marker is a piece of a longer run."""
    start = m.group(0).lower()
    if not any(start.startswith(k) and ("_" in k or "-" in k) for k in rule.keywords):
        return False
    before = text[max(0, m.start() - 6) : m.start()]
    return not before[-1].isalnum() or _ESCAPE_AT_END.search(before) is not None


# A line break or tab as a string literal escapes it, a character as JSON, Go or JavaScript
# escape it (\u0022, \x22), or as a URL encodes it
_ESCAPE_AT_END = re.compile(r"(?:\\[nrt]|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|%[0-9A-Fa-f]{2})$")
# What may end in a letter right before any token, and is no part of it: an escaped line
# break or tab ("key:\\tAKIA…", "\\u0009" in a log's JSON), or a terminal's colour code (a CI
# log's "\x1b[1m" before what it prints in bold), raw or escaped as JSON, a shell or Python
# write it ("\\u001b[1m", "\\033[1m", "\\x1b[1m", "\\e[1m")
_SEPARATOR_AT_END = re.compile(
    r"(?:\\[nrt]|\\u000[9aAdD]"
    r"|(?:\x1b|\\(?:u001[bB]|x1[bB]|033|e))\[[0-9;?]*[A-Za-z])$"
)


def _path_component(m: re.Match[str], text: str) -> bool:
    """Whether a match is a file name's stem (``keys/AKIA….txt``, ``keys/AKIA…``) or a
    folder's name in a short path (``s3://backups/AKIA…/dump.sql``): after a ``/``, and
    followed by the end or a character no base64 run holds, or by another ``/`` in a path's
    run. Inside a base64 run a ``/`` is just another character (runs of ``///`` are common in
    encoded binaries)."""
    start, end = m.start(), m.end()
    if text[start - 1] != "/":
        return False
    if end == len(text) or text[end] not in _BASE64:
        return True
    return text[end] == "/" and _names_around(text, start - 1, end)


def _names_around(text: str, start: int, end: int) -> bool:
    """Whether the base64 characters on either side of ``text[start:end]`` (up to the first
    other character) are a path's: a few, and between their ``/`` lower-case names or numbers
    ("//backups/" and "/dump"), as no run of random base64 is."""
    lo = start
    while lo > 0 and text[lo - 1] in _BASE64:
        lo -= 1
        if start - lo > _PATH_REACH:
            return False
    hi = end
    while hi < len(text) and text[hi] in _BASE64:
        hi += 1
        if hi - end > _PATH_REACH:
            return False
    names = [*text[lo:start].split("/"), *text[end:hi].split("/")]
    return all(not name or name.islower() or name.isdigit() for name in names)


_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
# How far a path's run reaches on either side of a token inside it
_PATH_REACH = 64


_OPENER = {")": "(", "]": "[", "}": "{"}
# A line break or tab as a string literal escapes it
_ESCAPED_BREAKS = ("\\n", "\\r", "\\t")
# Where a value that starts a line of a string literal ends: at white space, a quote, or the
# next escape of a break or a quote (a secret may hold a backslash of its own)
_LINE_VALUE_END = re.compile(r"[\s\"'`]|\\[nrt\"']")
# The longest value looked for past the escapes and the indent that open its line
_LINE_VALUE_CHARS = 256
# How far past where an unquoted value was cut the brackets it opened are looked for to close
_BRACKET_REACH = 128
_OPENERS = "([{（［｛"
_ROUND_AND_SQUARE = "([（［"
_CLOSERS = ")]}）］｝"
# What a value is read past its cut for: a bracket, or what ends an unquoted value (a blank,
# a quote, ``assignments._BARE``'s marks)
_BRACKET_OR_CUT = re.compile(r"[()\[\]{}（）［］｛｝\s\"'`,;&<\\]")


def _through_open_brackets(text: str, start: int, end: int) -> int:
    """The end of the unquoted value ``text[start:end]``, past the brackets it opened and the
    comma or blank cut short ("password=mypass(1,Lp7)" ends at its comma): to where they
    close on the same line and the value goes on to, so that no part of it is left showing.
    Unclosed there, it ends at the first blank or mark past the cut that is no comma nor a
    blank after one; or where it was cut, when its one open bracket is a brace (a password's
    mark as often: "#{$ecretV@lu3, user: ...")."""
    value = text[start:end]
    depth = sum(map(value.count, _OPENERS)) - sum(map(value.count, _CLOSERS))
    if depth <= 0:
        return end
    line_end = text.find("\n", end, end + _BRACKET_REACH)
    limit = line_end if line_end != -1 else min(len(text), end + _BRACKET_REACH)
    unclosed_end = limit
    after_comma = -1  # where a comma's blanks would begin
    for mark in _BRACKET_OR_CUT.finditer(text, end, limit):
        ch, at = mark.group(), mark.start()
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
            if depth < 0:  # the closer of a bracket around the assignment
                return at
        elif depth == 0:
            return at
        elif ch == "," or (at == after_comma and ch in " \t"):
            after_comma = at + 1
        elif unclosed_end == limit:
            unclosed_end = at
    if depth == 0:
        return limit
    return unclosed_end if any(map(value.__contains__, _ROUND_AND_SQUARE)) else end


def _past_escaped_breaks(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of an unquoted value, ``text[start:end]``, that starts with escaped line
    breaks (a JSON string's "password:\\nXk9#mQ2!vL"): the first word of the line after
    them, past its indent ("password for a user:\\nsudo passwd" gives "sudo"). The
    pattern's own value may stop short of it (at the indent's space), so it is read on."""
    while text.startswith(_ESCAPED_BREAKS, start) or text.startswith((" ", "\t"), start):
        start += 2 if text.startswith("\\", start) else 1
    limit = max(end, min(len(text), start + _LINE_VALUE_CHARS))
    stop = _LINE_VALUE_END.search(text, start, limit)
    return start, stop.start() if stop is not None else limit


def _next_line_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A value on the line after its key, an escaped line break between them: a secret only
    by its own looks, as a setting's value would be (not a plain word, "sudo" of "the password
    for a user:\\nsudo passwd", nor code, a version or a note in brackets), and not the
    command of a command line ("python3 manage.py ...", "aria2c --ftp-user ...")."""
    key = m.groupdict().get("key")
    strength = classify_key(key) if key else None
    if key is None or strength is None or not _a_setting_s_value(secret, secret):
        return False
    after = _NEXT_WORD.match(text, text.find(secret, m.start(group)) + len(secret))
    if (
        _COMMAND_NAME.fullmatch(secret)
        and after is not None
        and _FIRST_ARGUMENT.match(after.group(1))
    ):
        return False
    return worth_reporting(secret, strength=strength, quoted=False, key=key, assigned=True)


# The word after a value on its line, up to a quote or an escape
_NEXT_WORD = re.compile(r"[ \t]+([^\s\"'`\\]+)")
# What a command is named ("python3", "sha256sum", "aria2c"), and how its first argument
# opens: an option, a template's field, or a path or file name
_COMMAND_NAME = re.compile(r"[a-z][a-z0-9._+-]*")
_FIRST_ARGUMENT = re.compile(r"-|\{\{|[^\s]*[/.]")


def _trim_unquoted(value: str) -> str:
    """Drop closing brackets and punctuation that end the statement, not the value (and the
    white space a whole line's value may end with)."""
    v = value.rstrip().rstrip(",:;")
    if v.endswith(".") and not v.endswith(".."):
        v = v[:-1]
    # counted once, then kept as closers are dropped: counting again for each of a long run
    # of them took time quadratic in its length
    count = {ch: v.count(ch) for ch in "()[]{}"}
    end = len(v)
    while end and v[end - 1] in _OPENER:
        closer = v[end - 1]
        if count[_OPENER[closer]] >= count[closer]:
            break
        count[closer] -= 1
        end -= 1
    return v[:end]


def _valid(rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str) -> bool:
    if group == "su" and _TYPE_ANNOTATION.match(text, m.start(group)):
        return False  # "`passphrase`: {string | Buffer}": a type, as JSDoc and Node.js write one
    judge = _JUDGES.get(rule.kind)
    return judge is not None and judge(rule, m, secret, group, text, syntax)


def _token_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return valid_token(secret[rule.prefix :], rule.entropy)


def _assignment_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    key = m.group("key")
    strength = classify_key(key)
    if strength is None:
        return False
    if (
        m.start("key") > 0
        and text[m.start("key") - 1] == ":"
        # "Smtp:Password": a .NET setting's section and name (not a type's path, "AWS::IAM")
        and not (m.group("kq") and text[m.start("key") - 2 : m.start("key")] != "::")
        and not _POWERSHELL_SCOPE.search(text, max(0, m.start("key") - 9), m.start("key"))
        and not _field_list(m, text)
        and not _symbol_key(m, text, group)
    ):
        return False  # //registry/:_authToken is the npm rule's, arn:...:secret:x no key
    if text[max(0, m.start("key") - 3) : m.start("key")] == "://" and secret[:1] == "$":
        return False  # https://oauth2:$TOKEN@host: a URL's user, its password a variable
    if group == "su" and syntax != "text" and not _not_an_expression(secret):
        return False  # in code, an unquoted value is a variable, a call, a constant
    if group == "ss" and syntax == "c" and _char_constant(secret):
        return False
    # "--token (Possible options: ...)", ":param auth: (optional)": prose, not a password
    # that starts with a bracket ("(xKqZmVbLwTrQ")
    remark = secret[1:].removesuffix(")")
    if (
        group == "su"
        and secret[:1] == "("
        and remark.isalpha()
        and _a_note(remark, text, m.start(group) + 1)
    ):
        return False
    if group == "su" and _code_in_text(secret):
        return False  # "password={password!r}", "key=[a-z0-9]{32}", "password: List[str]"
    spaced = text[m.end("key") : m.start(group)] if group else ""
    if group == "su" and _a_call_cut_short(secret, text, m.end(group), spaced):
        return False  # "password = getpass(prompt, stream)", cut at its comma
    if group == "sb" and _CODE_IN_TEXT.fullmatch(secret):
        return False  # "secret = `rand::thread_rng().gen()`": code quoted in prose
    if group == "sb" and _STRUCT_TAG.fullmatch(secret):
        return False  # Password string `json:"password"`: a Go field's tag
    if (
        syntax != "text"
        and group in ("sq", "ss")
        and "{" in secret
        and _f_string(text, m.start(group) - 1)
    ):
        return False  # f"{kind}Attributes": a template that code fills in
    if group == "su" and secret.isalpha():
        commanded = command_environment(m, text)
        option = not commanded and an_option_s_value(m, text)
        if not (commanded or option) and _a_note(secret, text, m.start(group)):
            return False  # "password: stored in Vault under kv/prod": where it is, not what
        if commanded and said_again(secret, m, text):
            return False  # a name the command uses again: a placeholder's stand-in
        if option and secret.lower() in OPTION_WORDS:
            return False  # "--password=prompt": how the tool gets it
    if group == "su" and _USER_THEN_PASSWORD.match(text, m.end(group)) and _names_both(m):
        return False  # "creds: deploy / ...": the user; the password is the next rule's
    # "key = value", not "pass `value`" in a sentence: only then may joined words count
    between = text[m.end("key") : m.start(group)] if group else ""
    if "," in between and _A_KEY_NEXT.match(text, m.end(group)):
        return False  # {"input": "secret", "answer": ...}: a value, then the next key
    if "," in between and not _opens_a_call(text, m.start("key")) and _a_name(secret):
        return False  # ['username', 'password', 'email']: names listed, not a key's value
    assigned = any(mark in between for mark in "=:,>-|\t")
    if not assigned and _LONG_OPTION.fullmatch(secret):
        return False  # "to rerun pass `--lib`": an option named in prose
    if _named_in_prose(m, text, secret, assigned) or _a_state(key, between, secret):
        return False
    quote = m.groupdict().get("kq")
    if (
        quote
        and "," in between
        and text[m.start("key") - 1 : m.start("key")] != quote
        and any(ch.isspace() for ch in secret)
        and not names_a_password(key)
    ):  # a phrase's last word, then words: log('web auth', 'got response'), where a path's
        return False  # ('secret/api-token', '...') or a password's ('db password') is a key
    if _FETCH_CREDENTIALS.fullmatch(secret) and key.lower().endswith("credentials"):
        return False  # fetch(url, {credentials: 'include'}): whether cookies are sent
    length = 0
    if group == "su" and len(secret) < SHORTEST_UNQUOTED:  # its part before a comma inside
        at = m.start(group)  # its brackets ("abc(1" of "abc(1,Lp7)"): judged by its whole length
        length = _through_open_brackets(text, at, at + len(secret)) - at
    return worth_reporting(
        secret, strength=strength, quoted=group != "su", key=key, assigned=assigned, length=length
    )


def _stated_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A password's value, or a random one for a key or a token."""
    strength = classify_key(m.group("key")) or "password"
    quoted = group != "su"
    if not worth_reporting(secret, strength=strength, quoted=quoted, assigned=False):
        return False
    if strength == "token" and not _generated_in_prose(secret.strip(_PROSE_MARKS)):
        return False  # "the API key is 40-chars hex", "the token is k8s-sa-token-a1"
    # "the password is stored", "Your password is 'incorrect!'", "... is 2FA-protected":
    # prose, not a value (nor "displayed.\n" in a string, "encrypted\&." in troff)
    word = _ESCAPES_AT_END.sub("", secret.strip(_PROSE_MARKS)).rstrip(_PROSE_MARKS)
    return not (word.isalpha() or _DESCRIBED.fullmatch(word) or _A_SIZE.fullmatch(word))


def _fallback_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A literal, wherever it stands: judged as a quoted value."""
    strength = classify_key(m.group("key"))
    return strength is not None and worth_reporting(
        secret, strength=strength, quoted=True, key=m.group("key")
    )


def _stated_bare_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """Strong as a generated password is, or it is a word."""
    strong = char_classes(secret) == 4 or _generated_password(secret)
    return strong and credential_ok(secret) and not is_path_or_url(secret)


def _credential_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return credential_ok(secret)


def _user_option_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """-u USER:PASSWORD, as curl takes it."""
    return credential_ok(secret) and not _not_a_password_option(m, text, secret)


def _argument_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A password after its user: a quoted password, not the user again."""
    user = m.group("user") or m.group("us") or "password"
    return worth_reporting(secret, strength="password", quoted=True, key=user)


def _directive_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A setting's line: "requirepass ...", "ENV DB_PASSWORD ..."."""
    key = m.group("key")
    strength = classify_key(key)
    if strength is None or syntax != "text":
        return False
    if not (m.group("env") or (strength == "password" and _setting_name(key))):
        return False  # "Password reset": a sentence; "default-key 0x…": a key's id
    if group == "su" and not _a_setting_s_value(secret, m.group("su")):
        return False
    return worth_reporting(secret, strength=strength, quoted=group != "su", key=key)


def _pre_shared_key_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A passphrase, judged as a password's value."""
    if group == "su" and syntax != "text":
        return False
    return worth_reporting(secret, strength="password", quoted=group != "su", key="psk")


def _named_element_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """An element named for a secret: <property name="...password">...</property>."""
    key = m.group("key")
    strength = classify_key(key)
    if strength is None or plain_word(secret):
        return False  # "Passwort" under "login.password": a translation
    if m.group("tag").lower() == "string":
        # an Android string resource is text to show, or a preference's key: only a
        # random value (an API key) is a secret there
        if is_name_like(secret) or _SNAKE.fullmatch(secret) or _STEM_WORD.search(secret):
            return False  # "last_sync_ts_ms", "KeyAccount2FA": a preference's key
        strength = "token"
    return worth_reporting(secret, strength=strength, quoted=True, key=key)


def _header_token_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """Random, not "client_credentials" or a path after a scheme."""
    ok = valid_token(secret, rule.entropy)
    return ok and not (is_name_like(secret) or is_path_or_url(secret) or secret[:1] == "-")


def _line_value_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """Only what the next rule would cut short."""
    key = m.group("key")
    strength = classify_key(key)
    if strength is None or syntax != "text" or not _CUT_SHORT.search(secret):
        return False
    if _CODE_MARKS.search(secret):  # a lookup, a call, a template: the rules after judge it
        return False
    if _names_both(m) and _USER_THEN_PASSWORD.search(secret):
        return False  # "creds: deploy / ...": the user is no secret (a rule after says so)
    operator = text[m.end("key") : m.start(group)]
    if ":" in operator and any(ch in secret for ch in "=\"'`"):
        return False  # "password: str = ...", "secret: String \"...\"": the next rule's
    words = [word for word in _WORDS_APART.split(secret) if word]
    if any(_SETTING.match(word) for word in words[1:]):
        return False  # "A=x B=y": two settings on one line, each the next rule's
    if (
        # (what the next rule would cut short, or not report, stays the line's:
        # "abc$def ./run.sh", "Xk9m,Q2 psql", "café ./run.sh", "qwerty ./run.sh")
        not _CUT_SHORT.search(words[0])
        and "$" not in words[0]
        and worth_reporting(words[0], strength=strength, quoted=False, key=key)
        and runs_a_command(words[1:])
        and command_environment(m, text, value_end=m.start(group) + len(words[0]))
    ):
        return False  # "PGPASSWORD=x psql -h db": the command it is set for follows
    if len(words) > 1 and not _passphrase(words, operator):
        return False  # a sentence ("ask Bob"), or a value and a note about it
    if len(words) > 1 and _leads_into_the_next_line(m, group, text, operator, words):
        return False  # "pw-record: Check upstream docs:" above the command it names
    return worth_reporting(secret, strength=strength, quoted=len(words) > 1, key=key, assigned=True)


def _leads_into_the_next_line(
    m: re.Match[str], group: str, text: str, operator: str, words: list[str]
) -> bool:
    """Whether a line's value of plain ``words`` after a ":" ends in ":" before a line that
    goes on: it introduces that line ("See the original command's docs:" then "tldr
    pw-cat"), as no passphrase does. One given by "=", or ending the text, is a value."""
    if "=" in operator or not m.group(group).rstrip().endswith(":"):
        return False
    if not all(plain_word(w.strip(_PROSE_MARKS)) for w in words):
        return False
    start = text.find("\n", m.end(group)) + 1  # the next line's
    if not start:
        return False
    end = text.find("\n", start)
    following = text[start : end if end >= 0 else len(text)]
    # a setting of its own ("user: admin") is the next of a block the value is one of
    return bool(following.strip()) and not _A_SETTING.match(following)


# A line setting something: "user: admin", "DB_USER=admin", "- port: 5432", "[section]"
_A_SETTING = re.compile(r"\s*(?:-\s+)?(?:[\w.\-\"']+\s*[:=](?!//)|\[)")


def _label_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A label's value ("API key for staging: ..."), judged as one given to the key; one
    that words follow on its line below the label only when a generator made it."""
    key = m.group("key")
    if m.re.groupindex.get("more") and m.group("more") and not _generated_password(secret):
        return False  # "Password:" then "Ask Dana for it": an instruction
    if group == "su" and (
        syntax != "text" or secret[:1] in _NOT_A_LABELS_VALUE or _code_in_text(secret)
    ):
        return False
    strength = classify_key(key) or "password"
    if not worth_reporting(secret, strength=strength, quoted=group != "su", key=key):
        return False
    word = secret.strip(_PROSE_MARKS)
    return not (plain_word(word) or _DESCRIBED.fullmatch(word))


def _netrc_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return credential_ok(secret) and _netrc_entry(text, m.start())


def _yaml_block_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """Judged by its first line; the whole block is masked."""
    key = _key_before_colon(text, m.start())
    strength = classify_key(key) if key else None
    first = secret.split("\n", 1)[0].strip()
    if says_something(first.split()):
        return False  # "password: >" over "  stored in Vault under kv/prod"
    return strength is not None and worth_reporting(
        first, strength=strength, quoted=" " in first, key=key, assigned=True
    )


def _yaml_next_line_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A YAML key's value, the line under it."""
    key = _bare_key_above(text, m.start(), len(m.group("indent")))
    strength = classify_key(key) if key else None
    if strength is None or (group == "su" and (syntax != "text" or secret.endswith(":"))):
        return False
    return worth_reporting(secret, strength=strength, quoted=group != "su", key=key)


def _url_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return valid_url_password(secret, m.group(0))


def _key_body_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """Random past the key's first bytes, not a placeholder's filler."""
    body = "".join(secret[len(m.group("lead")) :].split())  # (OpenSSH's runs of A too)
    return len(body) >= 40 and shannon(body) >= RANDOM_BASE64


def _pem_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return valid_pem(secret, m, text)


def _jwt_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return valid_jwt(secret) and not is_placeholder(secret.split(".")[-1] or "x")


def _jwt_b64_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    return valid_jwt_b64(secret)


def _localized_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A value under the word for a password in another language (``localized``), judged as
    one under ``password`` is; after a verb alone ("Das Passwort ist geheim."), a word is
    what the sentence says of it, not the password."""
    if plain_word(secret) or _CONSTANT.fullmatch(secret):
        return False  # what is said of it ("ist geheim", "ungültig"), a constant's name
    if secret[:1] == "(" or not any(ch.isascii() and ch.isalnum() for ch in secret):
        return False  # "(siehe Tresor)", "请联系管理员": a note where it is, in words
    if _CJK.search(secret):
        return False  # "パスワードは8文字以上で…": a rule for it, in a sentence
    opened = text[m.start("key") - 1 : m.start("key")]
    if opened in ("'", '"') and not text.startswith(opened, m.end("key")) and group != "su":
        return False  # input("Senha: "), print(...): a label inside a string, then code
    token = normalize("NFC", m.group("key")).casefold() in _TOKEN_WORDS
    strength = "token" if token else "password"
    return worth_reporting(secret, strength=strength, quoted=group != "su", key=strength)


_TOKEN_WORDS = frozenset(TOKEN_WORDS)
_CONSTANT = re.compile(r"[A-Z_:]+")  # "--flag=PAROLA:ARG:FLAG"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")  # kana, ideographs, hangul


def _phrase_valid(
    rule: Rule, m: re.Match[str], secret: str, group: str, text: str, syntax: str
) -> bool:
    """A recovery phrase: as many words as a wallet gives (12, 15, 18, 21 or 24), mostly
    distinct ("word word word ..." shows the form), of a wallet list's lengths (five letters
    on average: "add sub mul div ..." lists a processor's mnemonics), and no sentence (one of
    12 words holds several of the words a sentence is made with; random words, one at most)."""
    words = secret.split()
    if len(words) not in (12, 15, 18, 21, 24) or len(set(words)) < len(words) * 2 // 3:
        return False
    if sum(map(len, words)) < 4 * len(words):
        return False
    return sum(word in _SENTENCE_WORDS for word in words) <= 1


# Words every sentence of a dozen words uses a few of (few of them in a wallet's word list)
_SENTENCE_WORDS = frozenset(
    "the and you your are this that with from they will these them into when which then "
    "than have has been were was not but for can should would could our its".split()
)


# How a match of each kind of rule is judged (``Rule.kind``)
_JUDGES: dict[str, Callable[[Rule, re.Match[str], str, str, str, str], bool]] = {
    "token": _token_valid,
    "assignment": _assignment_valid,
    "localized": _localized_valid,
    "stated": _stated_valid,
    "fallback": _fallback_valid,
    "stated_bare": _stated_bare_valid,
    "credential": _credential_valid,
    "user_option": _user_option_valid,
    "argument": _argument_valid,
    "directive": _directive_valid,
    "pre_shared_key": _pre_shared_key_valid,
    "named_element": _named_element_valid,
    "header_token": _header_token_valid,
    "line_value": _line_value_valid,
    "label": _label_valid,
    "netrc": _netrc_valid,
    "yaml_block": _yaml_block_valid,
    "yaml_next_line": _yaml_next_line_valid,
    "url": _url_valid,
    "key_body": _key_body_valid,
    "pem": _pem_valid,
    "jwt": _jwt_valid,
    "jwt_b64": _jwt_b64_valid,
    "phrase": _phrase_valid,
}


# A type in braces, or several joined by "|": "{string}", "{string | Buffer | TypedArray}"
# (JSDoc's too: "{?string}", "{string=}", "{Object<string, string>}", "{(string|Buffer)}")
_TYPE_NAME = r"[A-Za-z_$][\w$.]*(?:<[\w$., \t|]*>)?(?:\[\])*"
_TYPE_ANNOTATION = re.compile(rf"\{{[?!]?\(?{_TYPE_NAME}(?:[ \t]*\|[ \t]*{_TYPE_NAME})*\)?=?\}}")

_PROSE_MARKS = "!?.,;:()[]{}'\"`*_"


def _generated_in_prose(value: str) -> bool:
    """Whether a key's or a token's value stated in a sentence is one a machine made: long,
    and no part of it between dashes, dots or underscores a word (which says what it is
    instead: "256-bits", "RSA-2048", "k8s-sa-token-a1b2")."""
    if len(value) < 16:
        return False
    return not any(len(part) >= 3 and part.isalpha() for part in re.split(r"[-_.]", value))


# A length said of a secret: "256-bits", "64-chars", "12-characters"
_A_SIZE = re.compile(r"\d+-?(?i:bits?|bytes?|chars?|characters?|digits?|letters?)")
# Escapes that end a sentence: a line break or tab in a string literal, troff's \&
_ESCAPES_AT_END = re.compile(r"(?:\\[nrt&])+$")
# What follows a key of a mapping: its closing quote, then a colon
_A_KEY_NEXT = re.compile(r"[\"'`]?[ \t]*:(?!:)")
# Keys that name a user and a password together
_CREDS = re.compile(r"(?i:creds?|credentials)$")
# What a label's value does not start with: an operator, a bracket, a template
_NOT_A_LABELS_VALUE = "=:{}()[]|<>"


def _named_in_prose(m: re.Match[str], text: str, secret: str, assigned: bool) -> bool:
    """Whether the verb "pass" names an argument in prose: "pass 'ignore' to", "pass
    `spec=True`" (not "--pass letmein", an option, nor "PASSWORD 'sunshine'" in SQL)."""
    if assigned or m.group("key") not in ("pass", "Pass"):
        return False
    if text[max(0, m.start("key") - 1) : m.start("key")] == "-":
        return False
    return (
        plain_word(secret)
        or _ARGUMENT.fullmatch(secret) is not None
        or (_NAMED_OPTION.fullmatch(secret) is not None and not _STEM_WORD.search(secret))
    )


# An argument or keyword argument as prose names it ("isinstance", "spec=True")
_ARGUMENT = re.compile(r"[a-z_]+(?:=[\w.]+)?")
# An option named by words ("pass `-Dpamconfdir=no` to meson", "--disable-shared"), not one
# glued to a password ("-pXk9mQ2vL7") nor one setting a secret ("-Dpassword=...")
_NAMED_OPTION = re.compile(r"-{1,2}[A-Za-z][a-z]*(?:[-_][a-z]+)*(?:=[\w.\-/]*)?")


# The modes of the Fetch API's ``credentials`` option, which web code names on every request
_FETCH_CREDENTIALS = re.compile(r"include|omit|same-origin")


def _a_state(key: str, between: str, secret: str) -> bool:
    """Whether an "auth" paired with a word in a tuple is a mode or a state ("AUTH",
    "SELECTED"), not a credential (``auth = Sunshine`` is one)."""
    bare = key.strip(" \t\"'`").lower()
    return bare == "auth" and "," in between and "=" not in between and plain_word(secret)


def _a_setting_s_value(value: str, raw: str) -> bool:
    """Whether the unquoted ``value`` after a setting's name on a line of its own (``raw``, as
    written) is what a password looks like, not a word that goes on a sentence ("...
    POSTGRES_PASSWORD changed.", "DB_PASSWORD mandatory", "reset_password deploy"), a
    statement's end (nginx's "fastcgi_pass 127.0.0.1:9000;"), a note ("(required)"), a
    version, an address, a type ("DBPassword *string"), or an option of a command named so
    ("systemd-tty-ask-password-agent --list")."""
    if raw.rstrip()[-1:] in ".;," or value[:1] in "(*&[":
        return False
    if value.startswith("--") and _NAMED_OPTION.fullmatch(value):
        return False
    if plain_word(value) or _code_in_text(value) or _NOT_A_SETTING_S_VALUE.fullmatch(value):
        return False
    return _STEM_WORD.search(value) is None  # "k8s-secret": what kind of value, not one


# A version, a host and port, a socket's path
_NOT_A_SETTING_S_VALUE = re.compile(r"v?\d+(?:\.\d+)+\S*|[\w.\-]+:\d{1,5}|unix:\S+")
_STEM_WORD = re.compile(r"(?i:secret|password|passwd|token|key)")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def _setting_name(key: str) -> bool:
    """Whether ``key`` reads as a setting's name, not a sentence's first word: its words are
    joined (``db.password``, ``DB_PASSWORD``, ``dbPassword``) or glued (``requirepass``)."""
    joined = not key.isalpha()
    camel = not key.isupper() and any(ch.isupper() for ch in key[1:])
    return joined or camel or is_glued_name(key)


# PowerShell's drive or scope before a variable: $env:DB_PASSWORD, $global:token
_POWERSHELL_SCOPE = re.compile(
    r"(?<![\w:$])(?:\$?env|\$(?:global|script|local|private|using)):$", re.IGNORECASE
)


def _opens_a_call(text: str, key_start: int) -> bool:
    """Whether the quoted key starting at ``key_start`` (after its quote) is the first thing
    in brackets: a call's first argument (``env("SECRET_KEY", ...)``) or a pair's."""
    return text[: max(key_start - 1, 0)].rstrip(" \t").endswith("(")


def _a_name(value: str) -> bool:
    """A name as a list of names holds them: a word or an identifier ("email",
    "_defining_class"), a field's name ("password2"), a hash's ("sha256"), an OAuth scope
    ("read:public_key") or a pattern of names ("*.secret")."""
    name = value.lstrip("_")
    named = _SNAKE.fullmatch(name) or _FIELD.fullmatch(name) or _ALGORITHM.fullmatch(name)
    return plain_word(name) or bool(named or _SCOPE.fullmatch(name) or _names_secrets(name))


def _names_secrets(value: str) -> bool:
    """Whether ``value`` is a pattern of names: a redaction path (``*.secret``,
    ``headers.*.apiKey``, ``*.email``), a regular expression (``^key$``, ``.*_token$``). Its
    marks stand where a pattern's do (``^`` first, ``$`` last, ``*`` as a part or at a part's
    end); its parts are names, and one is a wildcard or a secret's word ("monkey$" is a
    password)."""
    body = value.removeprefix("^").removesuffix("$")
    if body == value and "*" not in value:
        return False
    parts = body.replace(".*", ".*.").split(".")
    if not all(_PATH_PART.fullmatch(part) for part in parts if part):
        return False
    return any(part == "*" or _SECRET_PART.fullmatch(part.rstrip("*")) for part in parts)


# A field's name: a secret's word numbered ("password2", "Token2"), after a word fields are
# named with ("confirmPassword", "iOSToken", "APIKey"; not "myPassword"), or before its humps
# ("passwordResetToken2FA")
_FIELD = re.compile(
    r"(?i:secret|password|passwd|token|key)\d{1,2}"
    r"|(?i:confirm|new|old|current|repeat|retype|verify|access|refresh|api|client|ios|android"
    r"|id|auth|session|csrf|reset|user|account|app|device|push|bearer|signing|encryption"
    r"|private|public|hashed|encrypted|plain|temp)"
    r"(?:Password|Passwd|Secret|Token|Key)(?:[A-Z][a-z]+)*(?:\d+[A-Z]*)?"
    r"|(?:password|passwd|secret|token|key)(?:[A-Z][a-z]+)+(?:\d+[A-Z]*)?"
)
# A part of a path or pattern of names: a wildcard, a name in lower or camel case, or one in
# capitals as a setting's ("API_KEY", "DB_*"); not a capitalised word ("Secret*" is a password)
_PATH_PART = re.compile(r"\*|[a-z_][\w\-]*\*?|[A-Z0-9]*_[A-Z0-9_]*\*?")
_SECRET_PART = re.compile(
    r"(?i)_*(?:pass|passwd|password|secret|token|key|auth|authorization|cookie|session|pem"
    r"|credentials?|api[-_]?key|client[-_]secret|access[-_]token)s?_*"
)
# An OAuth scope ("read:public_key", "repo:status")
_SCOPE = re.compile(
    r"(?:read|write|admin|repo|user|delete|manage):(?:org|repo|status|email|packages|public_key"
    r"|gpg_key|ssh_signing_key|repo_hook|org_hook|discussion|enterprise|follow|deployment"
    r"|invite|project|user|hook)"
    # Slack's ("chat:write", "users:read.email")
    r"|(?:channels|chat|files|users|im|groups|mpim|reactions|pins|search|team|usergroups"
    r"|emoji|bookmarks|calls|dnd|reminders|stars|links|commands|bot)"
    r":(?:read|write|history|manage)(?:\.[a-z_]+)?"
)


# Hash and cipher names, as a list of a password's hashers holds them
_ALGORITHM = re.compile(
    r"(?i:sha\d*|sha3_\d+|md[45]|argon2(?:id|i|d)?|pbkdf2(?:_sha\d+)?|blake2[bs]?|scrypt|crc32)"
)


def _generated_password(value: str) -> bool:
    """Letters switching case often, with digits among them, long and varied, as a password
    generator makes them ("Pw8YEIi75qB4sA9Q0"), not a name with a version ("Argon2id")."""
    letters = [ch.isupper() for ch in value if ch.isalpha()]
    switches = sum(a != b for a, b in itertools.pairwise(letters))
    return (
        len(value) >= 12
        and value.isalnum()
        and switches >= 4  # "PBKDF2SHA256Hasher" switches case once
        and max(map(len, _LOWER_RUN.findall(value)), default=0) <= 4  # "Validator", "Signer"
        and len(_DIGITS_AMONG.findall(value)) >= 2
        and shannon(value) >= 3.3
    )


_DIGITS_AMONG = re.compile(r"[A-Za-z]\d+(?=[A-Za-z])")
_LOWER_RUN = re.compile(r"[a-z]+")


def _names_both(m: re.Match[str]) -> bool:
    """Whether the key names a user and a password together (``creds``, ``Username /
    Password``)."""
    before = m.string[max(0, m.start("key") - 20) : m.start("key")]
    return bool(_CREDS.match(m.group("key"))) or _USER_SLASH.search(before) is not None


_USER_SLASH = re.compile(r"(?i:user(?:name)?|login)[ \t]*/[ \t]*$")


def _passphrase(words: list[str], operator: str) -> bool:
    """Whether a line's value of several ``words`` is a passphrase: up to six words, none of
    them one sentences are made of; after a ``:``, two plain words are a note as often ("Auth:
    Basic Auth", "Password: Okta SSO")."""
    if len(words) > 6 or says_something(words):
        return False
    note = all(w.strip(_PROSE_MARKS).isalpha() for w in words[1:])
    if note and looks_random(words[0], min_len=8):
        return False  # a random value, then a note in words of any language: the value alone
    if "=" in operator:
        return True
    if all(plain_word(w.strip(_PROSE_MARKS)) for w in words) and _names_a_credential(words):
        return False  # where it is kept, after ":": "Jenkins credential store"
    return not (len(words) == 2 and all(plain_word(w) or w.isdigit() for w in words))


def _names_a_credential(words: list[str]) -> bool:
    return any(w.strip(_PROSE_MARKS).lower() in ("credential", "credentials") for w in words)


def _not_a_password_option(m: re.Match[str], text: str, secret: str) -> bool:
    """Whether ``-u A:B`` gives no user and password: ``date -u +%H:%M``'s format, a container
    tool's user and group (``docker run -u www-data:www-data``, ``-u 1000:1000``, ``podman run
    -u nobody:nogroup``), a remote path (``rsync -u host:/data``). Where curl or wget is the
    command, it is one (``curl -u admin:admin`` too, a default login)."""
    user = m.group("user")
    if user.startswith("+") or secret.startswith("//"):  # a format; a URL's rest ({{http://…}})
        return True
    # the command the option is given to: what follows the last ; && || or | before it, within
    # _COMMAND_REACH (a line of many options would be read again for each; a command cut
    # there is not told as curl's or docker's, so its -u is taken for a password)
    at = m.start()
    reach = max(0, at - _COMMAND_REACH)
    line = text[max(text.rfind("\n", reach, at) + 1, reach) : at]
    command = _COMMAND_BREAK.split(line)[-1]
    if _HTTP_TOOL.search(command):
        return False
    if secret[:1] in "/~" or secret == user or (user.isdigit() and secret.isdigit()):
        return True
    return bool(_USER_AND_GROUP_TOOL.search(command))


# How far before a -u option its command is looked for
_COMMAND_REACH = 1024
# Where one command of a line ends and the next begins
_COMMAND_BREAK = re.compile(r";|&&|\|\||\|")
# A container tool's run or exec, its options only before the -u (not a script it runs, whose
# own -u may take a password: "docker compose run web ./upload.sh -u ops:…")
_USER_AND_GROUP_TOOL = re.compile(
    r"(?<![\w\-])(?:docker|podman|nerdctl|buildah)(?:[ \t]+(?:container|compose))?[ \t]+"
    r"(?:run|exec|create)(?:[ \t]+-\S*)*[ \t]*$"
)
# (HTTPie's and xh's names only as the command: "-pt http" names a protocol)
_HTTP_TOOL = re.compile(r"(?<![\w\-])(?:curl|wget)\b|^[ \t]*(?:sudo[ \t]+)?(?:https?|xh)[ \t]")


def _a_note(word: str, text: str, at: int) -> bool:
    """Whether a value of letters alone, at ``at``, is a note rather than a password: the
    phrase it starts is a sentence ("stored in Vault under kv/prod"), or it is a plain word with
    more said after it ("changed, see the wiki", "development # not for prod")."""
    line = line_after(text, at)
    if says_something(_phrase(line)):
        return True
    after = line[len(word) :].strip()
    # ("DB_PASSWORD=marmalade SECRET_KEY=...": another setting, not a note, follows it; nor
    # in "-passout pass:marmalade -out key.pem", the command's next option, after a value
    # glued to its key: "PASS: readelf -h" is a test's result)
    glued = text[at - 1 : at] in ("=", ":")
    return (
        plain_word(word)
        and bool(after)
        and not _SETTING.match(after)
        and not (glued and _OPTION.match(after))
    )


def _char_constant(value: str) -> bool:
    """Whether a single-quoted C value reads as a character constant (``'x'``, ``'\\n'``,
    ``'\\x41'``, a multi-character ``'abcd'``), not a string written with the wrong quotes: a
    longer run is no constant any compiler takes, and a password pasted so is still leaked."""
    return len(value) <= 4 or _C_ESCAPE.fullmatch(value) is not None


_C_ESCAPE = re.compile(r"\\(?:[0-7]{1,3}|x[0-9A-Fa-f]+|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")


def _not_an_expression(value: str) -> bool:
    """Whether an unquoted value in code cannot be read as an expression: it begins with a
    digit then letters that make no number (``1abc2EF^&``; ``0x1F``, ``1e5``, ``10L`` are
    numbers), or a ``@`` follows a word character (``P@ssw0rd``, ``P@$$w0rd``; a decorator
    leads, and matrix products are not assigned to a password)."""
    first = value.split(None, 1)[0] if value.strip() else ""
    if first[:1].isdigit() and not _NUMBER.match(first):
        return True
    return bool(_AT_INSIDE.search(first))


# Values that are code written in text: a template's field, a call, or a generic type of a
# typing library (whole); a pattern's character range, class or count (anywhere in it). Only
# forms no generated password takes: "Qw3r[Ty7]Xk92" and "Zq8[a-Xk92" stay values.
_CODE_IN_TEXT = re.compile(
    r"\{[\w.()\[\]!:'\" ]+\}"
    # a call through a path or a method chain: rand::thread_rng().gen_range(1..=100)
    r"|(?:[A-Za-z_]\w*(?:::|\.))+[A-Za-z_]\w*\([^()\s]*\)(?:(?:\.|::)[A-Za-z_]\w*\([^()\s]*\))*"
    # the same call opened, cut where its first argument's literal starts: re.compile(r"...",
    # client.create_token(scope="read")
    r"|(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*\((?:[A-Za-z_]\w*=|[rRbBuUfF]{1,2})?"
    r"|(?:Optional|Union|Annotated|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable"
    r"|Iterator|Callable|Literal|Type|list|dict|set|frozenset|tuple|type)\[[A-Za-z_][\w.]*"
    r"(?:[,\]].*)?"
)
_LONG_OPTION = re.compile(r"--[a-z][a-z\d]*(?:-[a-z\d]+)*")
_PATTERN_PART = re.compile(
    r"\[\^?[^\]\s]{0,20}?(?:[a-z]-[a-z]|[A-Z]-[A-Z]|\d-\d)[^\]\s]{0,20}\]"
    r"|\\[dws]|[\])]\{\d+(?:,\d*)?\}"
)


# A call in code: a function or a method named as code names them (lower case, digits only at
# a name's end: "getpass", "self._next", "load_key"; not "p4ss.w0rd" nor "k7f"), given names,
# quoted strings and keyword arguments ("getpass(prompt, stream)", "load_key(path,
# strict=True)"; not "mypass(1, 2)"), the line ending after it (or Markdown's inline code)
_CALLEE_PART = r"[a-z_]+\d*"
_CALL_ARGUMENT = r"[A-Za-z_]\w*=[\w.'\"]+|[A-Za-z_][\w.]*|'[^'\n]*'|\"[^\"\n]*\""
_SIMPLE_CALL = re.compile(
    rf"(?:{_CALLEE_PART}\.)*{_CALLEE_PART}"
    rf"\((?:{_CALL_ARGUMENT})(?:,[ \t]*(?:{_CALL_ARGUMENT}))+\)"
    r"(?:`.*|[ \t]*;?[ \t]*(?:(?:#|//).*)?)"
)


def _a_call_cut_short(secret: str, text: str, end: int, between: str) -> bool:
    """Whether the unquoted value ``secret``, cut at a comma where it ends (at ``end`` in
    ``text``), opens a call of several arguments (``_SIMPLE_CALL``) that ends its line, on the
    right of an assignment spaced as code spaces it (``password = ``: not an ``.env`` file's
    ``PASSWORD=``, whose values are never calls)."""
    if not between.startswith((" ", "\t")) or text[end : end + 1] != ",":
        return False
    line_end = text.find("\n", end)
    rest = text[end : line_end if line_end != -1 else len(text)]
    return _SIMPLE_CALL.fullmatch(secret + rest) is not None


def _code_in_text(value: str) -> bool:
    return bool(_CODE_IN_TEXT.fullmatch(value) or _PATTERN_PART.search(value))


# A Go struct tag: space-separated key:"value" pairs
_STRUCT_TAG = re.compile(r'[A-Za-z_][\w.-]*:"[^"]*"(?:[ \t]+[A-Za-z_][\w.-]*:"[^"]*")*')
_NUMBER = re.compile(r"(?:0[xob][\da-f_]+|[\d_]+(?:\.[\d_]*)?(?:e[+-]?\d+)?)[a-z]{0,3}\b", re.I)
_AT_INSIDE = re.compile(r"\w@\S")
# What ends an unquoted value of ``key = value`` in running text (``assignments._BARE``).
_WORDS_APART = re.compile(r"[\s，。；、]+")  # (Chinese and Japanese punctuation parts words)
_CUT_SHORT = re.compile(r"[\s\"'`,;&<\\，。；、]")
_CODE_MARKS = re.compile(r"\$\{|\$\(|\w\(|\{\{|\$[A-Z_][A-Z0-9_]*\b")
_SETTING = re.compile(r"[A-Za-z_][\w.\-]*=")
_OPTION = re.compile(r"--?[A-Za-z]")
_USER_THEN_PASSWORD = re.compile(r"[ \t]*/[ \t]*[^\s/]")
# A compound word describing a password rather than being one: "2FA-protected",
# "bcrypt-hashed", "case-sensitive", "time-based", "never-expiring", "brute-force-proof".
_DESCRIBED = re.compile(r"[A-Za-z0-9]+(?:-[a-z]+)*-[a-z]*(?:ed|ing|ive|able|ible|less|proof)")


def _phrase(line: str) -> list[str]:
    """The words of the phrase ``line`` starts with: to its end, a comment (``#``, ``--``,
    ``//``) or a word that ends a clause (``,``)."""
    words = []
    for word in line.split():
        if word.startswith(("#", "--", "//")):
            break
        words.append(word)
        if word.endswith((",", ";", ".")):
            break
    return words


# What precedes "password" on an entry's line: "machine HOST login USER ", or "default
# login USER " ("the default password plugin" is prose).
_NETRC_LEAD = re.compile(
    r"(?:^|[\s`])(?:machine[ \t]+\S+|default(?=[ \t]+(?:login|account)[ \t]))"
    r"(?:[ \t]+(?:login|account|port)[ \t]+\S+)*[ \t]+$"
)
_KEY_BEFORE = re.compile(r"""([\w.\-$@]{1,64})["']?[ \t]*$""")


def _netrc_entry(text: str, at: int) -> bool:
    """Whether the word "password" at ``at`` is a .netrc entry's: "machine HOST" (or
    "default login USER") comes before it on its line, or it opens its line under one of the
    three lines above that opens with "machine", "default" or "login"."""
    before = line_before(text, at)
    if before.strip():
        return _NETRC_LEAD.search(before) is not None
    end = at - len(before) - 1
    for _ in range(3):
        if end < 0:
            return False
        start = text.rfind("\n", 0, end) + 1
        if text[start:end].lstrip().startswith(("machine ", "default", "login ")):
            return True
        end = start - 1
    return False


def _key_before_colon(text: str, at: int) -> str:
    """The key whose value the ``:`` at ``at`` opens ("" when none stands right before it)."""
    found = _KEY_BEFORE.search(line_before(text, at))
    return found.group(1) if found else ""


def _bare_key_above(text: str, colon: int, indent: int) -> str:
    """The key a YAML line holds alone before its ``colon`` ("" when the line holds more, as
    prose does), provided the value's ``indent`` goes deeper than the key's."""
    line = line_before(text, colon)
    found = _BARE_KEY.fullmatch(line)
    if found is None or indent <= len(found.group(1)):
        return ""
    return found.group(2)


# a key alone on its line, perhaps quoted or a list item's: its indent, then the key
_BARE_KEY = re.compile(r"""([ \t]*(?:-[ \t]+)?)["']?([\w.\-$@]{1,64})["']?[ \t]*""")


def _field_list(m: re.Match[str], text: str) -> bool:
    """Whether the key is a reStructuredText field name (``:password: value``): the colon
    before it opens the line, and another closes it."""
    at = m.start("key") - 1
    opens_line = at == 0 or text[at - 1] in " \t\n"
    return opens_line and text.startswith(":", m.end("key"))


def _f_string(text: str, quote: int) -> bool:
    """Whether the literal opened by the quote at ``quote`` is a Python f-string (``f"..."``,
    ``rf'...'``): up to two prefix letters before it, one an f, that no word goes on before."""
    start = quote
    while start > 0 and quote - start < 2 and text[start - 1] in "rRbBuUfF":
        start -= 1
    word_before = start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")
    return "f" in text[start:quote].lower() and not word_before


def _symbol_key(m: re.Match[str], text: str, group: str) -> bool:
    """Whether the key is a Ruby symbol given a value by ``=>`` (``:password => "..."``): the
    colon before it opens a word."""
    at = m.start("key") - 1
    opens_word = at == 0 or text[at - 1] in " \t\n{(,"
    return opens_word and bool(group) and "=>" in text[m.end("key") : m.start(group)]
