"""The values of a Kubernetes Secret manifest, secrets by the document's kind alone.

Under ``data:`` in a ``kind: Secret`` document, every value is a secret encoded in base64, and
under ``stringData:`` every value is one in plain text; nothing on the value's own line says so
(``tls.key: LS0tLS1CRUdJTi…``, ``.dockercfg: eyJhdXRocyI6…``). Only the document's kind does,
and it may come before or after the map. Other kinds holding a ``data:`` map (a ConfigMap, an
ExternalSecret that names where a secret is kept, a SopsSecret whose values are encrypted)
hold no secret there.

Values judged: a base64 value of at least ``MIN_ENCODED`` characters whose decoded text is no
placeholder, and a plain value that would pass as a password. Templates (``{{ .Values.pw }}``,
``${PW}``), empty values and encrypted ones (``ENC[...]``) are passed over. A quoted value
runs past its escaped quotes; a value going on over the lines below its key (a block, a
wrapped value) is judged whole and masked line by line. Each object is read for itself: a
``---`` document, a fenced block of a note, an item of a List. Manifests written as JSON are
read by ``kubejson``; flow maps (``data: {pw: ...}``) are not read.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from substrate.secrets.assignments import KUBERNETES_SECRET_RULE
from substrate.secrets.placeholders import is_placeholder, worth_reporting

# base64 of fewer than 7 bytes ("admin", "bar\n"): a user name or a flag, more often than not
MIN_ENCODED = 12

# A document ends at "---", and, in a note, at its code fence: the next block may be another
# manifest, and a Secret's kind says nothing of a ConfigMap's data below it
# (a fence as Markdown writes one, indented three spaces at most: one inside a YAML block value
# is part of the value)
_DOCUMENT_BREAK = re.compile(r"(?m)^(?:---[ \t]*(?:#[^\n]*)?\r?| {0,3}(?:```|~~~)[^\n]*)$")
MAP_NAMES = {"data": "encoded", "stringdata": "plain"}
# (the key runs to its colon greedily: a lazy key before optional blanks backtracks over a long
# line of blanks once per character)
_ENTRY = re.compile(r"([ \t]*)([^\s#:][^:\n]*):(?:[ \t]+|$)(.*)")
_BLOCK = re.compile(r"[|>][-+0-9]*[ \t]*(?:#.*)?")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
# quoted scalars, with their escapes: a quote escaped inside (\" or '') ends nothing
_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_SINGLE_QUOTED = re.compile(r"'((?:[^'\n]|'')*)'(?!')")
_TEMPLATE_MARKS = ("{{", "${", "ENC[")
_SKIPPED_LINES = ("#", "{{", "{%")
# what may stand before a value: an anchor (&db-url) or a tag (!!binary, !secret)
_PROPERTIES = re.compile(r"(?:[&!][^\s]*[ \t]+)+")
_COMMENT = re.compile(r"[ \t]#")
_WORD = re.compile(r"[^\s{}\[\]\"',]{1,64}")


def kubernetes_secret_spans(text: str) -> list[tuple[int, int]]:
    """Start and end offsets of the secret values of every ``kind: Secret`` document in
    ``text``, in order. Cheap when ``text`` holds no such document."""
    if not KUBERNETES_SECRET_RULE.regex.search(text):
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for brk in [*_DOCUMENT_BREAK.finditer(text), None]:
        end = brk.start() if brk is not None else len(text)
        spans.extend(_document_spans(text, start, end))
        start = brk.end() if brk is not None else end
    return spans


def _document_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The secret values of each ``kind: Secret`` object of one document: the document
    itself, or an item of its list (``kubectl get secret,configmap -o yaml`` gives a List,
    whose ConfigMap holds no secret)."""
    if KUBERNETES_SECRET_RULE.regex.search(text, start, end) is None:
        return
    lines = _lines(text, start, end)
    read: dict[int, int] = {}  # a kind's indent -> where the last object read at it ended
    for n, (_, line) in enumerate(lines):
        if KUBERNETES_SECRET_RULE.regex.fullmatch(line):
            # the object's own keys are written at its kind's indent ("- kind: Secret" too)
            top = line.lstrip("\ufeff").lower().index("kind:")
            if n < read.get(top, -1):
                continue  # a second kind in an object read already
            first, last = _object_bounds(lines, n, top)
            read[top] = last
            yield from _object_spans(lines, first, last, top)


def _object_bounds(lines: list[tuple[int, str]], n: int, top: int) -> tuple[int, int]:
    """The lines of the object whose ``kind:`` is on line ``n``, its keys at ``top``: those
    around it indented no less (an item's first line, "- apiVersion: v1", is less: it bounds
    the object, as the next item's does)."""
    first, last = n, n + 1
    while first > 0 and _within(lines[first - 1][1], top):
        first -= 1
    while last < len(lines) and _within(lines[last][1], top):
        last += 1
    return first, last


def _object_spans(
    lines: list[tuple[int, str]], first: int, last: int, top: int
) -> Iterator[tuple[int, int]]:
    """The secret values of the data maps among ``lines[first:last]`` (an object's)."""
    for i in range(first, last):
        entry = _ENTRY.fullmatch(lines[i][1])
        if entry is None or len(entry.group(1)) != top or entry.group(3).strip(" \t"):
            continue
        how = MAP_NAMES.get(entry.group(2).rstrip(" \t").lower())
        if how is not None:
            yield from _map_spans(lines, i + 1, last, top, how)


def _within(line: str, top: int) -> bool:
    """Whether ``line`` may belong to an object whose keys are at ``top``: blank, a comment,
    or indented at least as far."""
    content = line.lstrip(" \t")
    return not content or content.startswith("#") or len(line) - len(content) >= top


def _lines(text: str, start: int, end: int) -> list[tuple[int, str]]:
    out = []
    at = start
    for line in text[start:end].split("\n"):
        out.append((at, line.removesuffix("\r")))  # (a file with Windows line ends)
        at += len(line) + 1
    return out


def _map_spans(
    lines: list[tuple[int, str]], first: int, last: int, top: int, how: str
) -> Iterator[tuple[int, int]]:
    """The secret values of a map whose entries are the ``lines`` from ``first`` (before
    ``last``) that are indented past ``top``. A value goes on over the lines indented past its
    key: a block (``key: |``), a value on the line under a bare ``key:``, a plain value
    wrapped."""
    level = None  # the entries' indent, set by the first one
    value: list[tuple[int, str]] | None = None  # the value being read, line by line
    key_indent = 0
    for i in range(first, last):
        offset, line = lines[i]
        content = line.strip(" \t")
        indent = len(line) - len(line.lstrip(" \t"))
        if not content or content.startswith(_SKIPPED_LINES):
            continue  # a comment, or a template's directive ({{- if ... }}) at any indent
        if value is not None and indent > key_indent:
            value.append((offset + indent, content))
            continue
        if value:
            yield from _value_lines_spans(value, how)
        value = None
        if indent <= top:
            return  # the map ended: the next key of the document
        entry = _ENTRY.fullmatch(line)
        if level is None:
            level = indent
        if entry is None or indent != level:
            continue
        key_indent = indent
        rest = entry.group(3).strip(" \t")
        # a block's lines, or those under a bare key, are the value; else it starts here
        value = [] if not rest or _BLOCK.fullmatch(rest) else [(offset + entry.start(3), rest)]
    if value:
        yield from _value_lines_spans(value, how)


def _value_lines_spans(value: list[tuple[int, str]], how: str) -> Iterator[tuple[int, int]]:
    """The span of a value of one line, or each line of a value of several, when the value
    their text makes is a secret."""
    if len(value) == 1:
        yield from _value_spans(*value[0], how)
        return
    joined = ("" if how == "encoded" else "\n").join(line for _, line in value)
    if any(True for _ in _value_spans(0, joined, how)):
        yield from ((at, at + len(line)) for at, line in value)


def _value_spans(at: int, value: str, how: str) -> Iterator[tuple[int, int]]:
    """The span of ``value`` (found at offset ``at``), unless it is no secret."""
    raw = value
    value, lead = _unquoted(value)
    quoted = lead > 0 and raw[lead - 1] in "'\""  # (an anchor or a tag quotes nothing)
    if secret_value(value, how, quoted=quoted):
        yield at + lead, at + lead + len(value)


def secret_value(value: str, how: str, *, quoted: bool) -> bool:
    """Whether ``value`` (unquoted), found in a Secret's ``data`` map (``how`` "encoded") or
    its ``stringData`` map ("plain"), is a secret."""
    if not value or any(mark in value for mark in _TEMPLATE_MARKS):
        return False
    if how == "encoded":
        return _encoded_secret(value)
    # a setting's word ("require", "readonly") is no password
    plain_word = value.isalpha() and value.islower()
    return not plain_word and worth_reporting(value, strength="password", quoted=quoted)


def _unquoted(value: str) -> tuple[str, int]:
    """``value`` without a trailing comment, white space and quotes, and how many characters
    came before it."""
    value = value.rstrip(" \t")
    properties = _PROPERTIES.match(value)
    lead = properties.end() if properties else 0
    value = value[lead:]
    if value[:1] in ("'", '"'):
        quoted = (_DOUBLE_QUOTED if value[0] == '"' else _SINGLE_QUOTED).match(value)
        # a quote left open runs to the line's end: all of it is masked, not none of it
        return (quoted.group(1), lead + 1) if quoted else (value[1:], lead + 1)
    comment = _COMMENT.search(value)
    if comment is not None:
        value = value[: comment.start()].rstrip(" \t")
    return value, lead


def _encoded_secret(value: str) -> bool:
    """Whether a ``data:`` value is base64 of a secret: padded as Kubernetes writes it, long
    enough, and not of a placeholder."""
    if len(value) < MIN_ENCODED or len(value) % 4 or not _BASE64.fullmatch(value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        word = decoded.decode("utf-8").strip()
    except UnicodeDecodeError:
        return True  # a key's bytes: no word, so no placeholder
    # a password is one short word ("changeme" encoded is a placeholder still); a config file
    # (a .dockercfg's JSON) may name example.com beside its credentials
    return not (_WORD.fullmatch(word) and is_placeholder(word))
