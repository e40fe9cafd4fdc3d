"""The seed API for secrets in text: detect, redact, and make text safe to store.

Differences from the reference implementation, on purpose:

* findings span the *secret*, not the key name or URL around it, so redaction keeps
  ``password = "[REDACTED:sensitive_assignment]"`` and ``postgres://admin:[REDACTED:...]@db``
  readable while removing exactly the credential;
* previews never show secret characters: only the public type prefix of a token (``ghp_``);
* ``keep_prefix`` reveals at most the public prefix, or a quarter of the secret when the
  format has none, so a short password is never half shown.
"""

from __future__ import annotations

import re
import shlex
import string
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from substrate.errors import InvalidInputError
from substrate.secrets.copies import MIN_COPY, copies_of_hits, copies_outside
from substrate.secrets.engine import find_secrets
from substrate.secrets.hits import DEFAULT_MASK, MASK_PATTERN, Hit


@dataclass
class SecretFinding:
    """One detected secret: which rule matched, where, and a safe preview (value masked).

    ``start``/``end`` delimit the secret itself within the scanned string. ``field`` names
    the item field it was found in (``text``, ``payload.db.password``, ``tags[2]``) when the
    finding comes from an item scan.
    """

    rule: str
    start: int
    end: int
    preview: str
    field: str = "text"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; it never contains secret characters."""
        return {
            "rule": self.rule,
            "start": self.start,
            "end": self.end,
            "preview": self.preview,
            "field": self.field,
        }


@dataclass
class SecretScan:
    """The result of scanning a text: whether anything leaked and every finding."""

    findings: list[SecretFinding] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """True when nothing was found."""
        return not self.findings

    def rules(self) -> list[str]:
        """Sorted names of the rules that matched."""
        return sorted({f.rule for f in self.findings})

    def as_dict(self) -> dict[str, Any]:
        """``{clean, n_findings, rules, findings}`` as plain JSON-ready values."""
        return {
            "clean": self.clean,
            "n_findings": len(self.findings),
            "rules": self.rules(),
            "findings": [f.as_dict() for f in self.findings],
        }


def preview(rule: str, secret: str, prefix: int) -> str:
    """``"rule:<public prefix>…"``: which credential it was, with no secret character shown."""
    return f"{rule}:{secret[:prefix]}\u2026" if prefix else f"{rule}:\u2026"


def _finding(text: str, hit: Hit, field_name: str = "text") -> SecretFinding:
    secret = text[hit.start : hit.end]
    return SecretFinding(
        hit.rule, hit.start, hit.end, preview(hit.rule, secret, hit.prefix), field_name
    )


def detect_secrets(text: str) -> SecretScan:
    """Scan text for well-known secret shapes; return a SecretScan naming each finding.

    Args:
        text: any text. Empty or clean text gives a clean scan.

    Returns:
        A ``SecretScan`` whose findings are sorted by position and never overlap.
    """
    if not text:
        return SecretScan()
    _check_text(text, "detect_secrets")
    return SecretScan([_finding(text, h) for h in find_secrets(text)])


def _check_text(text: object, function: str) -> None:
    if not isinstance(text, str):  # bytes would fail deep in a pattern, naming none of this
        raise InvalidInputError(f"{function}() takes a str, not {type(text).__name__}")


def visible_prefix(secret: str, prefix: int, keep_prefix: int) -> int:
    """How many leading characters of ``secret`` may stay visible for ``keep_prefix``.

    Never more than the format's public prefix plus a quarter of the remaining characters, so
    a reader can tell which credential it was without being able to recover it.
    """
    if keep_prefix <= 0:
        return 0
    budget = prefix + (len(secret) - prefix) // 4
    return min(keep_prefix, budget, max(len(secret) - 1, 0))


def redact_hits(
    text: str,
    hits: list[Hit],
    *,
    mask: str = DEFAULT_MASK,
    keep_prefix: int = 0,
    copies: Sequence[tuple[int, int, str]] = (),
    keep_lines: bool = False,
) -> str:
    """Replace each hit's secret span in ``text`` (hits sorted by start, not overlapping), and
    each ``(start, end, rule)`` span of ``copies`` (outside the hits), masked whole: a copy's
    public prefix is not known. With ``keep_lines``, a secret of several lines (a key block)
    leaves its line breaks, so that the lines after it keep their numbers."""
    spans = [(h.start, h.end, h.rule, h.prefix) for h in hits]
    if copies:
        spans = sorted([*spans, *((start, end, rule, -1) for start, end, rule in copies)])
    out: list[str] = []
    pos = 0
    for start, end, rule, prefix in spans:
        secret = text[start:end]
        keep = 0 if prefix < 0 else visible_prefix(secret, prefix, keep_prefix)
        out.append(text[pos:start])
        shown = secret[:keep] + mask.format(rule=rule)
        out.append(_with_line_breaks(secret, shown) if keep_lines else shown)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _with_line_breaks(secret: str, shown: str) -> str:
    """``shown`` (the masked ``secret``) with the line breaks ``secret`` had: those it began
    with before it, the others after it."""
    breaks = secret.count("\n")
    if not breaks:
        return shown
    eol = "\r\n" if "\r\n" in secret else "\n"
    lead = secret[: len(secret) - len(secret.lstrip("\r\n"))]
    if shown.startswith(lead):  # the part kept visible already begins with them
        lead = ""
    return lead + shown + eol * (breaks - lead.count("\n") - shown.count("\n"))


def redact_secrets(
    text: str, *, mask: str = DEFAULT_MASK, keep_prefix: int = 0, keep_lines: bool = False
) -> str:
    """Return text with every detected secret replaced by a rule-labelled mask.

    Args:
        text: the text to clean.
        mask: replacement; ``{rule}`` is filled with the rule name.
        keep_prefix: leave up to this many leading characters of each secret visible
            (0 = fully masked); capped so the secret cannot be recovered (see
            ``visible_prefix``).
        keep_lines: leave the line breaks of a secret of several lines (a key block), so that
            the text keeps its line numbers.

    Returns:
        The text with secrets masked, and their copies elsewhere in it, standing alone
        (``copies_outside``); clean text is returned unchanged.
    """
    check_mask(mask)
    if not text:
        return text
    _check_text(text, "redact_secrets")
    return _redacted(text, find_secrets(text), mask, keep_prefix, keep_lines)


def check_mask(mask: str) -> None:
    """Refuse a mask that names a field other than ``{rule}`` (it would fail mid-text, or
    show an attribute of the rule's name)."""
    if mask == DEFAULT_MASK:  # nearly every call (``safe_text``): known good
        return
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(mask) if name is not None]
        mask.format(rule="rule")
    except (KeyError, IndexError, ValueError, AttributeError):
        fields = ["?"]
    if any(name != "rule" for name in fields):
        raise InvalidInputError(
            f"a mask may hold {{rule}} and no other {{...}} field: {safe_repr(mask)}"
        )


def detect_and_redact(
    text: str,
    *,
    mask: str = DEFAULT_MASK,
    keep_prefix: int = 0,
    keep_lines: bool = False,
    path: str = "",
) -> tuple[SecretScan, str]:
    """``detect_secrets`` and ``redact_secrets`` of ``text`` with one scan (a long log is
    scanned once, not twice); a ``path`` naming a CSV or TSV file has its cells judged by
    their columns' names too (``secrets.tables``)."""
    check_mask(mask)
    if not text:
        return SecretScan(), text
    hits = find_secrets(text)
    if path:
        from substrate.secrets.tables import with_table_hits

        hits = with_table_hits(hits, text, path)
    scan = SecretScan([_finding(text, h) for h in hits])
    return scan, _redacted(text, hits, mask, keep_prefix, keep_lines)


def _redacted(text: str, hits: list[Hit], mask: str, keep_prefix: int, keep_lines: bool) -> str:
    if not hits:
        return text
    copies = copies_outside(text, copies_of_hits(text, hits), hits)
    return redact_hits(
        text, hits, mask=mask, keep_prefix=keep_prefix, copies=copies, keep_lines=keep_lines
    )


def safe_text(text: str) -> str:
    """Redact-before-store guard: mask any secrets so they are never indexed or served."""
    return redact_secrets(text)


def without_secrets(text: str) -> str:
    """``text`` with each secret, each mask of one and each key's armor line replaced by a
    space: a query or a question pasted with a credential in it is looked up by its other
    words (a mask's "redacted github token", or "begin rsa private key", would dilute it)."""
    return _LEFT_OVER.sub(" ", redact_secrets(text, mask=" "))


_LEFT_OVER = re.compile(MASK_PATTERN + r"|-----(?:BEGIN|END)[ A-Z0-9]*-----")


def safe_repr(value: object) -> str:
    """``repr(value)`` for an error message, with the secrets in a string masked first: once
    quoted, a tab or a line break reads as a backslash and a letter, which the rules would no
    longer take for the space around a password."""
    return repr(safe_text(value) if isinstance(value, str) else value)


def safe_echo(message: str, typed: Sequence[str]) -> str:
    """``message``, which may repeat what was ``typed`` (a command's arguments), with what it
    repeats of an argument holding a secret masked whole.

    An argument parser's message writes an argument's control characters as escapes (a line
    break as ``\\x0a``, or ``\\n`` inside a quoted value), which glue a key's lines together so
    that no rule finds the key in them; it quotes an unknown option up to its first ``=``,
    which cuts a key's base64 short of the lines that show it is one, and the value of
    ``--option=VALUE`` alone; a hint may quote an argument for the shell. So each argument
    holding a secret, and its part before or after the first ``=`` that holds some of it, is
    masked in each of those forms, and the rules run over the rest (``safe_text``).
    """
    for arg in sorted(typed, key=len, reverse=True):
        hits = find_secrets(arg)
        parts = _parts_holding(arg, hits)
        if not hits:  # a value on the line after its key reads as one once the break is "\x0a"
            hits, parts = find_secrets(_CONTROL.sub(_escaped, arg)), [arg]
        if not hits:
            continue
        mask = DEFAULT_MASK.format(rule=hits[0].rule)
        for quoted in parts:
            forms = {quoted, repr(quoted)[1:-1], _CONTROL.sub(_escaped, quoted)}
            forms.add(shlex.quote(quoted))
            for form in sorted(forms, key=len, reverse=True):  # a longer form may hold another
                if len(form) >= MIN_COPY:
                    message = message.replace(form, mask)
    return safe_text(message)


def _parts_holding(arg: str, hits: Sequence[Hit]) -> list[str]:
    """``arg``, and its part before and after its first ``=`` (an option's name, its value)
    when a secret found in ``arg`` lies in it."""
    name, equals, value = arg.partition("=")
    parts = [arg]
    if equals and any(hit.start < len(name) for hit in hits):
        parts.append(name)
    if equals and any(hit.end > len(name) + 1 for hit in hits):
        parts.append(value)
    return parts


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escaped(m: re.Match[str]) -> str:
    """A control character as an argument parser escapes it (``\\x0a``)."""
    return f"\\x{ord(m[0]):02x}"


def masked_repr(result: Any) -> str:
    """A result dataclass's repr with the secrets in its text fields masked (and in the texts
    of a list or tuple field): a question or task typed with a credential in it, kept as
    given, is not shown back by ``print``. Each field is shown short (``_REPR_CHARS``, the
    first ``_REPR_ENTRIES`` of a list): an answer printed in a notebook showed its whole
    packet and evidence, 70,000 characters."""
    shown = (f"{f.name}={_masked(getattr(result, f.name))}" for f in fields(result) if f.repr)
    return f"{type(result).__name__}({', '.join(shown)})"


_REPR_CHARS = 200
_REPR_ENTRIES = 3


def _masked(value: object, depth: int = 0) -> str:
    if isinstance(value, str):
        # masked before quoting (escapes would hide a secret's shape) and before cutting (a
        # secret cut in two would be found in neither half)
        return _short(safe_repr(value))
    if isinstance(value, list | tuple) and depth < 4:  # (a list holding itself ends here)
        parts = [_masked(part, depth + 1) for part in value[:_REPR_ENTRIES]]
        if len(value) > _REPR_ENTRIES:
            parts.append(f"... {len(value) - _REPR_ENTRIES} more")
        inner = ", ".join(parts)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner}{',' if len(value) == 1 else ''})"
    return _short(safe_text(repr(value)))


def _short(shown: str) -> str:
    return shown if len(shown) <= _REPR_CHARS else f"{shown[: _REPR_CHARS - 1]}…"
