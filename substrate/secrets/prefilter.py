"""A cheap first pass for long texts: try each rule on the text's long words before the text.

A long text is reduced once to its distinct whitespace-free words of at least ``MIN_WORD``
characters (and, for rules with longer matches, of at least 20), one per line. Source code has
few long words, so the reduced text is a small fraction of the original. A rule qualifies when
every match it can make lies inside one such word: it matches no whitespace character, each
lookaround checks a single character (whitespace, or not, in both texts alike), and its
shortest match is at least the tier's word length. Such a rule is tried on the reduced text
first, and on the full text only when that finds something; a rule whose every match contains
a literal (its *witness*) is skipped when the lower-cased reduced text lacks it, without even
compiling the pattern. Both tests can only say "no match possible", so results are unchanged.

The analysis reads the parsed form of each pattern (``re._parser``). Should that private module
change shape, every rule is treated as not qualifying: slower, never wrong. So does the one
that finds a context rule's anchor (``anchors``): the strings one of which every match holds
near its start, where a long line is searched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from substrate.secrets.rule import Rule

MIN_WORD = 12
# Reduced texts: distinct words at least this long.
TIERS = (MIN_WORD, 20)
# The characters ``str.split()`` splits on (``str.isspace``).
_SPACES = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WORD_SAFE_CATEGORIES = frozenset(
    {
        "CATEGORY_DIGIT",
        "CATEGORY_WORD",
        "CATEGORY_NOT_SPACE",
        "CATEGORY_UNI_DIGIT",
        "CATEGORY_UNI_WORD",
        "CATEGORY_UNI_NOT_SPACE",
    }
)
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
# id(rules) -> (rules, per rule (tier, witness)); worked out once per process and rule table
_CACHE: dict[int, tuple[Sequence[Rule], list[tuple[int, str]]]] = {}


def _class_ok(items: Sequence[tuple[Any, Any]]) -> bool:
    """Whether a character class (``[...]``) excludes every whitespace character."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            if chr(av) in _SPACES:
                return False
        elif name == "RANGE":
            if any(av[0] <= ord(c) <= av[1] for c in _SPACES):
                return False
        elif name != "CATEGORY" or str(av) not in _WORD_SAFE_CATEGORIES:
            return False  # NEGATE, a whitespace-matching category, anything unexpected
    return True


def _inside_words(items: Sequence[tuple[Any, Any]]) -> bool:
    """Whether a parsed pattern matches no whitespace and looks around by one character."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            ok = chr(av) not in _SPACES
        elif name == "IN":
            ok = _class_ok(av)
        elif name in _REPEATS:
            ok = _inside_words(av[2])
        elif name == "SUBPATTERN":
            ok = _inside_words(av[-1])
        elif name == "ATOMIC_GROUP":
            ok = _inside_words(av)
        elif name == "BRANCH":
            ok = all(_inside_words(branch) for branch in av[1])
        elif name in ("ASSERT", "ASSERT_NOT"):
            ok = av[1].getwidth() == (1, 1) and _inside_words(av[1])
        elif name == "GROUPREF_EXISTS":
            ok = all(_inside_words(b) for b in av[1:] if b is not None)
        elif name == "AT":
            ok = str(av) in ("AT_BOUNDARY", "AT_NON_BOUNDARY")
        else:
            ok = name == "GROUPREF"  # ANY, NOT_LITERAL and anything unexpected fail
        if not ok:
            return False
    return True


def _longest_literal(items: Sequence[tuple[Any, Any]]) -> str:
    """The longest run of literal characters every match contains (runs inside plain groups
    count; optional, repeated, alternative and case-folded parts do not)."""
    best, run = "", []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            run.append(chr(av))
            continue
        best = max(best, "".join(run), key=len)
        run = []
        if name == "SUBPATTERN" and not av[1] & re.IGNORECASE:
            best = max(best, _longest_literal(av[-1]), key=len)
    return max(best, "".join(run), key=len)


def _analyse(rule: Rule, parser: Any) -> tuple[int, str]:
    if rule.lines:
        return 0, ""
    parsed = parser.parse(rule.pattern, rule.flags)
    tier = 0
    if _inside_words(parsed.data):
        shortest = parsed.getwidth()[0]
        tier = max((t for t in TIERS if t <= shortest), default=0)
    folded = (rule.flags | parsed.state.flags) & re.IGNORECASE  # re.I or a leading (?i)
    witness = "" if folded else _longest_literal(parsed.data).lower()
    return tier, witness


def word_filters(rules: Sequence[Rule]) -> list[tuple[int, str]]:
    """Per rule: the tier whose reduced text may stand in for the full text (0: none) and its
    witness ("" when there is none).

    Worked out on the first long text of a process: parsing every pattern costs a few
    milliseconds that short-text callers such as the write gate never pay.
    """
    cached = _CACHE.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    filters = [word_filter(rule) for rule in rules]
    _CACHE[id(rules)] = (rules, filters)
    return filters


def word_filter(rule: Rule) -> tuple[int, str]:
    """``word_filters`` of one rule, worked out afresh."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        return _analyse(rule, _parser)
    except Exception:  # noqa: BLE001 - the private parser changed: scan everything, still right
        return 0, ""


def reduce_text(text: str) -> dict[int, tuple[str, str]]:
    """Tier -> the distinct whitespace-free words of ``text`` at least that long, one per line,
    as they are and lower-cased."""
    words = {w for w in text.split() if len(w) >= TIERS[0]}
    out = {}
    for tier in TIERS:
        kept = words if tier == TIERS[0] else [w for w in words if len(w) >= tier]
        joined = "\n".join(kept)
        out[tier] = (joined, joined.lower())
    return out


# How a category of a parsed pattern is written in a character class
_CATEGORY_ESCAPES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
}


def run_pattern(rule: Rule, length: int) -> re.Pattern[str] | None:
    """A pattern that finds ``length`` characters in a row of those a match of ``rule`` is
    made of, or None when the rule's pattern reads something this cannot follow.

    Every match of the rule lies in a run of these characters as long as the match: where
    the run pattern finds nothing, the rule matches nothing, in the text or in any slice of
    it. A path has few such runs: its ``/`` ends the runs of a rule that reads none.
    """
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(rule.pattern, rule.flags)
        parts: list[str] = []
        if not _alphabet(parsed.data, parts):
            return None
        flags = (rule.flags | parsed.state.flags) & (re.IGNORECASE | re.ASCII)
        chars = f"[{''.join(dict.fromkeys(parts))}]"
        # tried only where a run starts: from within one, the same run would be counted again
        return re.compile(f"(?<!{chars}){chars}{{{length}}}", flags)
    except Exception:  # noqa: BLE001 - the private parser changed: no run pattern, still right
        return None


def _alphabet(items: Sequence[tuple[Any, Any]], parts: list[str]) -> bool:
    """Add to ``parts`` (the inside of a character class) every character the parsed
    ``items`` may match; False when they hold something else (any character, a negated
    class, flags changed inside the pattern)."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            parts.append(_escaped(av))
        elif name == "IN":
            if not _class_alphabet(av, parts):
                return False
        elif name in _REPEATS:
            if not _alphabet(av[2], parts):
                return False
        elif name == "SUBPATTERN":
            if av[1] or av[2] or not _alphabet(av[-1], parts):
                return False  # (?i:...) and the like would change what the characters match
        elif name == "ATOMIC_GROUP":
            if not _alphabet(av, parts):
                return False
        elif name == "BRANCH":
            if not all(_alphabet(branch, parts) for branch in av[1]):
                return False
        elif name not in ("AT", "ASSERT", "ASSERT_NOT"):
            # (a look-around matches no character of the match; a back-reference may repeat
            # one a look-around captured, so the pattern is not followed)
            return False
    return True


def _class_alphabet(items: Sequence[tuple[Any, Any]], parts: list[str]) -> bool:
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            parts.append(_escaped(av))
        elif name == "RANGE":
            parts.append(f"{_escaped(av[0])}-{_escaped(av[1])}")
        elif name == "CATEGORY" and str(av) in _CATEGORY_ESCAPES:
            parts.append(_CATEGORY_ESCAPES[str(av)])
        else:
            return False  # NEGATE, or anything unexpected
    return True


def _escaped(code: int) -> str:
    return f"\\U{code:08x}"


# The most characters a match may hold before its anchor (``anchors``): further, a long line
# would have too many places to try, and a pattern this far is rarely anchored.
MAX_BEFORE = 256
# The most strings an anchor may be one of: a run's parts multiply them.
_MAX_STRINGS = 64
# An anchor's strings this long are rare enough in a text: a nearer one is then the better.
_RARE = 4


def anchors(rule: Rule) -> tuple[tuple[str, int], ...] | None:
    """Strings one of which every match of ``rule`` holds, lower-cased, each with the most
    characters the match may hold before it; None when the pattern shows none within
    ``MAX_BEFORE`` characters of its start, may match the empty string, or reads something
    this does not follow.

    Such a string is that of a run of parts each of which matches one of a few ASCII
    characters (a literal, ``["']``, ``(?i:pass|pw)``): lower-cased, the text shows it where
    the match holds it wherever lower-casing keeps each character's place and no character a
    case-blind ASCII letter matches is another (``engine._KeywordLines.case_safe``). Of a
    pattern's runs, the one with the fewest places to try is taken: the rarer strings (the
    longer shortest one, up to ``_RARE``), then the nearer. Alternatives give the strings
    of each."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(rule.pattern, rule.flags)
        if parsed.getwidth()[0] == 0:
            return None  # (a search goes on past an empty match otherwise than past others)
        found = _anchors(parsed, _parser)
    except Exception:  # noqa: BLE001 - the private parser changed: no anchor, still right
        return None
    if not found or max(found.values()) > MAX_BEFORE:
        return None
    return tuple(sorted(found.items()))


def _anchors(items: Any, parser: Any) -> dict[str, int] | None:
    """``anchors`` of a parsed sequence, as string -> the most characters before it: its runs
    of few-string parts, each with the most characters before it; inside a part, what every
    match of the part holds."""
    best: dict[str, int] | None = None
    before = 0  # the most characters of a match before the current part
    run, run_before = {""}, 0
    for op, av in items:
        strings = _strings(op, av)
        if strings is not None and "" not in strings:
            joined = {a + b for a in run for b in strings}
            if len(joined) <= _MAX_STRINGS:
                run = joined
                before += max(map(len, strings))
                continue
        if run != {""}:
            best = _better(best, dict.fromkeys(run, run_before))
        inner = _anchors_in(op, av, parser)
        if inner is not None:
            best = _better(best, {k: before + n for k, n in inner.items()})
        before += parser.SubPattern(items.state, [(op, av)]).getwidth()[1]
        if before > MAX_BEFORE:
            return best  # (what follows may start anywhere)
        run, run_before = {""}, before
    return _better(best, dict.fromkeys(run, run_before)) if run != {""} else best


def _anchors_in(op: Any, av: Any, parser: Any) -> dict[str, int] | None:
    """What every match of one part holds (``_anchors``), the part not a run of few strings:
    a group, alternatives that each hold one, a repeat's first time, a look-ahead."""
    name = str(op)
    if name == "SUBPATTERN":
        return _anchors(av[-1], parser)
    if name == "ATOMIC_GROUP":
        return _anchors(av, parser)
    if name in _REPEATS and av[0] >= 1:
        return _anchors(av[2], parser)
    if name == "ASSERT" and av[0] == 1:  # (a look-ahead's text is there, though not taken)
        return _anchors(av[1], parser)
    if name == "BRANCH" or (name == "GROUPREF_EXISTS" and av[2] is not None):
        out: dict[str, int] = {}
        for branch in av[1] if name == "BRANCH" else av[1:]:
            found = _anchors(branch, parser)
            if found is None:
                return None
            for string, before in found.items():
                out[string] = max(before, out.get(string, 0))
        return out
    return None


def _better(best: dict[str, int] | None, other: dict[str, int]) -> dict[str, int]:
    """Of two anchors, the one with the rarer strings (the longer shortest one, up to
    ``_RARE``), else the nearer."""
    if best is None:
        return other

    def cost(found: dict[str, int]) -> tuple[int, int]:
        return -min(_RARE, *map(len, found)), max(found.values())

    return other if cost(other) < cost(best) else best


def _strings(op: Any, av: Any) -> set[str] | None:
    """The lower-cased strings one part of a parsed pattern matches, if it matches one of a
    few made of ASCII literals (case-blind or not); else None."""
    name = str(op)
    if name == "LITERAL":
        return {chr(av).lower()} if av < 128 else None
    if name == "IN":
        if not all(str(o) == "LITERAL" and a < 128 for o, a in av):
            return None  # (a range, a category, a negated class)
        return {chr(a).lower() for _, a in av}
    if name == "SUBPATTERN":
        return _sequence_strings(av[-1])
    if name == "BRANCH":
        out: set[str] = set()
        for branch in av[1]:
            strings = _sequence_strings(branch)
            if strings is None:
                return None
            out |= strings
        return out if len(out) <= _MAX_STRINGS else None
    return None


def _sequence_strings(items: Any) -> set[str] | None:
    out = {""}
    for op, av in items:
        strings = _strings(op, av)
        if strings is None:
            return None
        out = {a + b for a in out for b in strings}
        if len(out) > _MAX_STRINGS:
            return None
    return out
