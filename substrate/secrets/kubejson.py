"""The values of a Kubernetes Secret written as JSON (``kubectl get secret -o json``).

As in a YAML manifest (``kubernetes``), every value of a ``"kind": "Secret"`` object's
``"data"`` map (base64) and ``"stringData"`` map (plain text) is a secret by the object's kind
alone, which may come before or after the map (kubectl sorts the keys: ``data`` comes first).
Each object is read for itself: a List's ConfigMap beside a Secret holds no secret.

The text is read as a stream of JSON tokens (strings and punctuation) in one pass, so a text
that is not whole JSON (a chunk of a file, a manifest pasted into a note) is read as far as it
goes; an object left open at the end of the text is judged by what it has shown so far. A
Secret written as JSON in a JSON string (kubectl's ``last-applied-configuration`` annotation
keeps the Secret as it was applied, older values and all) is read in the string's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from substrate.secrets.kubernetes import MAP_NAMES, secret_value

# quoted here: "kind": "Secret" in any case, as the YAML rule reads it; or in a JSON string,
# its quotes escaped (\" or \u0022, once or more: a Secret in a string of a Secret's string).
# (the backslashes are matched after a word or a colon only: tried at each of a long run of
# them, each try would run to its end)
_QUOTE = r'(?:"|\\u0022)'
_JSON_KIND = re.compile(rf"(?i){_QUOTE}kind\\*{_QUOTE}\s*:\s*\\*{_QUOTE}secret\\*{_QUOTE}")
# a JSON string or punctuation; a string left open ends with its line (a JSON string holds
# no line break), so that no start is tried again and again to the line's end
_TOKEN = re.compile(r'"((?:[^"\\\n]|\\.?)*)(?:"|$)|[{}\[\]:,]', re.MULTILINE)


@dataclass(slots=True)
class _Frame:
    """An open object or array: the key whose value comes next, whether it is a Secret, and
    the values of its data maps, judged once its kind is known."""

    how: str | None = None  # this object is a data map: how its values are encoded
    key: str | None = None
    secret: bool = False
    held: list[tuple[int, int]] = field(default_factory=list)


def json_secret_spans(text: str) -> list[tuple[int, int]]:
    """Start and end offsets of the secret values of every JSON ``"kind": "Secret"`` object
    in ``text``, in order. Cheap when ``text`` names no such kind."""
    if not _JSON_KIND.search(text):
        return []
    spans: list[tuple[int, int]] = []
    frames: list[_Frame] = []
    pending: tuple[str, int, int] | None = None  # a string that may be a key
    after_colon = False
    for m in _TOKEN.finditer(text):
        token = m.group()
        top = frames[-1] if frames else None
        if token == ":":
            if top is not None and pending is not None:
                top.key = pending[0]
            pending, after_colon = None, True
            continue
        if token[0] == '"':
            if after_colon and top is not None:
                _value(top, m)
            pending = (m.group(1), m.start(1), m.end(1))
            if "\\" in m.group(1):  # a Secret written as JSON in a JSON string
                spans += _in_string(m.group(1), m.start(1))
        elif token in "{[":
            how = None
            if after_colon and top is not None and token == "{" and top.key is not None:
                how = MAP_NAMES.get(top.key.lower())
            if how is not None and top is not None:
                # a data map's values are its object's, held in its object's list (handed up
                # at its end instead, they would be copied once per data map they nest in)
                frames.append(_Frame(how, held=top.held))
            else:
                frames.append(_Frame(how))
            pending = None
        elif token in "}]":
            if frames:
                _close(frames, spans)
            pending = None
        else:  # a comma
            pending = None
        after_colon = False
    while frames:  # left open by the end of the text: judged by what it showed
        _close(frames, spans)
    return sorted(spans)


def _value(frame: _Frame, m: re.Match[str]) -> None:
    """Note the string value ``m`` of ``frame``'s current key."""
    raw = m.group(1)
    if frame.how is not None:
        value = _unescaped(raw)[0] if "\\" in raw else raw  # ("\/" in base64)
        if secret_value(value, frame.how, quoted=True):
            frame.held.append((m.start(1), m.end(1)))
    elif frame.key is not None and frame.key.lower() == "kind" and raw.lower() == "secret":
        frame.secret = True  # (in any case, as ``_JSON_KIND`` finds it)


def _close(frames: list[_Frame], spans: list[tuple[int, int]]) -> None:
    """Close the innermost frame: a Secret gives out the secret values of its data maps
    (held in its own list), any other object or array drops them."""
    frame = frames.pop()
    if frame.how is None and frame.secret:
        spans.extend(frame.held)


_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))", re.DOTALL)
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _in_string(raw: str, at: int) -> list[tuple[int, int]]:
    """The secret values of the Secrets written as JSON in the JSON string ``raw`` (its text
    between the quotes, at offset ``at``), as offsets of the text: a Secret's last applied
    configuration, which kubectl keeps in an annotation of the Secret, or one in a log line."""
    if not _JSON_KIND.search(raw):
        return []
    text, offsets = _unescaped(raw)  # shorter than raw: the recursion ends
    return [(at + offsets[s], at + offsets[e]) for s, e in json_secret_spans(text)]


def _unescaped(raw: str) -> tuple[str, list[int]]:
    """The text of a JSON string's ``raw`` content, with the offset in ``raw`` of each of its
    characters (and of its end)."""
    parts: list[str] = []
    offsets: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(raw):
        parts.append(raw[pos : m.start()])
        offsets.extend(range(pos, m.start()))
        code, char = m.groups()
        parts.append(chr(int(code, 16)) if code else _ESCAPED.get(char, char))
        offsets.append(m.start())
        pos = m.end()
    parts.append(raw[pos:])
    offsets.extend(range(pos, len(raw) + 1))
    return "".join(parts), offsets
