"""Run the rule table over a text and return the secret spans that survive every check.

Cost model: clean text must cost almost nothing. Each rule names keywords; for short texts
the keywords are looked up in the lower-cased text first (one search for all of them, see
``KeywordRules``), so a clean item never reaches a regular expression. For long texts the
provider patterns, which all begin with a literal prefix, are run directly: the regex engine's
literal search is as fast as a keyword test. The context rules (generic ``key = value``, URL
credentials, headers) only run on the lines (windows) around a keyword hit, in texts of any
length, so a text with few candidate lines costs little more than one pass of ``str.find`` per
keyword; and not at all when the text lacks every character a match needs (an operator, a
bracket).

On long texts most rules are first tried on a much smaller reduced text (see
``substrate.secrets.prefilter``) and run on the full text only when that finds something.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import itertools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from substrate.errors import InvalidInputError
from substrate.secrets.codetext import in_text
from substrate.secrets.entropy import char_classes, is_repetitive, is_sequential, shannon
from substrate.secrets.joined import joined_hits, may_join
from substrate.secrets.keynames import classify_key, is_glued_name
from substrate.secrets.kubejson import json_secret_spans
from substrate.secrets.kubernetes import kubernetes_secret_spans
from substrate.secrets.pipetables import table_column_secrets
from substrate.secrets.placeholders import (
    credential_ok,
    is_name_like,
    is_path_or_url,
    is_placeholder,
    is_reference,
    plain_word,
    says_something,
    worth_reporting,
    x_filler,
)
from substrate.secrets.prefilter import (
    MIN_WORD,
    reduce_text,
    run_pattern,
    word_filter,
    word_filters,
)
from substrate.secrets.rules import (
    CSV_COLUMNS_RULE,
    KUBERNETES_SECRET_RULE,
    MAX_KEY_BLOCK,
    RULES,
    TABLE_CELLS_RULE,
    Rule,
)
from substrate.secrets.slashes import escapes_slashes, hits_with_plain_slashes

# Texts shorter than this are checked keyword-first; longer ones rule-first (see module doc).
KEYWORD_GATE = 4096
_VALUE_GROUPS = ("secret", "sq", "se", "ss", "sb", "sx", "sc", "su")
_HARD_MARKERS = ("example", "****", "dummy", "placeholder", "your_", "your-", "<", ">")
# How every mask begins, and the mask itself ({rule} is the rule's name)
MASK_LEAD = "[REDACTED:"
DEFAULT_MASK = MASK_LEAD + "{rule}]"
MASK_PATTERN = re.escape(MASK_LEAD) + r"[\w.\-]*\]"  # a default mask in a text
_URL_PLACEHOLDERS = ("<", "your_", "your-")
_URL_DEFAULTS = frozenset({"password", "passwd", "pass", "pwd", "secret", "token", "guest"})


@dataclass(frozen=True, slots=True)
class Hit:
    """One accepted detection: which rule, and where the secret itself lies."""

    rule: str
    start: int
    end: int
    prefix: int
    match_start: int
    match_end: int


def _has(low: str, keywords: Sequence[str], cache: dict[str, bool]) -> bool:
    for k in keywords:
        hit = cache.get(k)
        if hit is None:
            hit = cache[k] = k in low
        if hit:
            return True
    return False


def _is_token_rule(rule: Rule) -> bool:
    return rule.kind == "token" and not rule.lines


def _keyword_index(tokens: bool) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """keyword -> indexes of the rules it enables (provider-token rules or the others)."""
    index: dict[str, list[int]] = {}
    for i, rule in enumerate(RULES):
        if _is_token_rule(rule) == tokens:
            for k in rule.keywords:
                index.setdefault(k, []).append(i)
    return tuple((k, tuple(v)) for k, v in sorted(index.items()))


def _any_of(words: Sequence[str]) -> re.Pattern[str]:
    """A pattern that finds whether any of ``words`` occurs.

    Each word is looked for from its least common character (its anchor, ``_anchor``): the
    anchor, then a look-behind for the characters before it and the characters after it. The
    engine skips in C to the next place holding one of the few anchors, where a search from
    each word's first character would stop at nearly every letter of a text. A word that
    holds another is left out: the other already answers yes.
    """
    distinct = set(words)
    kept = sorted(w for w in distinct if not any(o != w and o in w for o in distinct))
    return re.compile(_anchored(kept, capture=False)[0])


def _anchored(words: Sequence[str], *, capture: bool) -> tuple[str, list[str]]:
    """An alternative per word, each from the word's anchor, grouped by anchor; and the words
    in the order of their alternatives. With ``capture``, the rest of each word after its
    anchor is a group, numbered in that order (a match's ``lastindex`` names its word)."""
    by_anchor: dict[str, list[tuple[str, str]]] = {}
    for word in words:
        at = _anchor(word)
        before, anchor, after = word[:at], word[at], word[at + 1 :]
        behind = f"(?<={re.escape(before + anchor)})" if before else ""
        rest = f"({re.escape(after)})" if capture else re.escape(after)
        by_anchor.setdefault(anchor, []).append((word, behind + rest))
    alts, order = [], []
    for anchor, rests in sorted(by_anchor.items()):
        order += [word for word, _ in rests]
        either = "|".join(rest for _, rest in rests)
        alts.append(re.escape(anchor) + (either if len(rests) == 1 else f"(?:{either})"))
    return ("|".join(alts) if alts else "(?!)"), order


@lru_cache(maxsize=1024)
def _anchor(word: str) -> int:
    """Where the least common character of ``word`` is (its first such place)."""
    return max(range(len(word)), key=lambda i: _rarity(word[i]))


# Characters from the most to the least common in notes, command-line pages and their file
# paths (lower-cased); any other character is rarer than all of them.
_COMMON_FIRST = " eatrnios\ndml/cpu-g{}`.hfbk:vxywz_|#j[]"


def _rarity(ch: str) -> int:
    """How uncommon ``ch`` is in text (higher: rarer)."""
    at = _COMMON_FIRST.find(ch)
    return len(_COMMON_FIRST) if at == -1 else at


_V = TypeVar("_V")


class _Memo(dict[str, _V]):
    """A dict that works out a missing key's value on first use, and keeps it."""

    def __init__(self, work_out: Callable[[str], _V]) -> None:
        super().__init__()
        self._work_out = work_out

    def __missing__(self, key: str) -> _V:
        value = self[key] = self._work_out(key)
        return value


class KeywordRules:
    """The rules whose keywords occur in a lower-cased text, found in one pass.

    One search runs over the text for all keywords at once, each from its anchor (see
    ``_any_of``), and goes on after the keyword it found. What that skips is still known: a
    keyword inside one found (``auth`` in ``authorization``) is counted with it
    (``_within``), and one whose anchor falls on or inside one found but that reaches past it
    (``secret`` in ``passecret``, ``asia`` in ``akiasia``) is looked up on its own
    (``hidden``). Every keyword that occurs is thus counted, as one ``in`` per keyword would
    count it.
    """

    def __init__(self, index: Sequence[tuple[str, tuple[int, ...]]]) -> None:
        words = [k for k, _ in index]
        own = dict(index)
        # a yes/no screen for every keyword: the exact rule set is only worked out when it
        # says yes
        self.any = _any_of(words)
        pattern, self._words = _anchored(words, capture=True)
        self._pattern = re.compile(pattern)
        # Worked out for a keyword when a search first finds it: all at once would cost every
        # process that imports this module a quarter of a second (pairs of keywords).
        # keyword -> the rules of every keyword it holds, itself included
        self._within = _Memo(lambda k: frozenset(i for w in words if w in k for i in own[w]))
        # keyword -> the keywords it holds, itself included
        self.inside = _Memo(lambda k: frozenset(w for w in words if w in k))
        # keyword -> the keywords a search may pass over where it finds this one
        self.hidden = _Memo(lambda k: tuple(w for w in words if _may_hide(k, w)))

    def rules_in(self, low: str) -> set[int]:
        """The indexes of the rules one of whose keywords occurs in ``low``."""
        return self.search(low)[0]

    def search(self, low: str) -> tuple[set[int], list[tuple[str, int]]]:
        """``rules_in``, and each keyword the search found with where it found it (its
        anchor). Every keyword that occurs overlaps one of those, and is one it holds
        (``inside``) or one it may hide (``hidden``)."""
        if not self.any.search(low):  # most texts: one search that stops at the first
            return set(), []
        words = self._words
        found = []
        for m in self._pattern.finditer(low):
            group = m.lastindex  # each word's alternative is a group: it names the word
            assert group is not None
            found.append((words[group - 1], m.start()))
        rules: set[int] = set()
        for k in {k for k, _ in found}:
            rules.update(self._within[k])
        for k in {k for k, _ in found}:
            for other in self.hidden[k]:
                # (a keyword whose rules are all counted already need not be looked up)
                if not self._within[other] <= rules and other in low:
                    rules.update(self._within[other])
        return rules, found


def _may_hide(found: str, other: str) -> bool:
    """Whether a search that finds ``found`` may pass over ``other``: placed so that both
    agree where they overlap, the anchor of ``other`` falls from the anchor of ``found`` to its
    end (where the search tries another word first, or does not look), and ``other`` is no
    part of ``found``."""
    if other in found:
        return False  # counted with it
    first, second = _anchor(found), _anchor(other)
    for shift in range(first - second, len(found) - second):  # other starts at ``shift``
        lo, hi = max(0, shift), min(len(found), shift + len(other))
        if found[lo:hi] == other[lo - shift : hi - shift]:
            return True
    return False


_BY_KEYWORD_TOKEN = _keyword_index(tokens=True)
_BY_KEYWORD_CONTEXT = _keyword_index(tokens=False)
TOKEN_KEYWORDS = KeywordRules(_BY_KEYWORD_TOKEN)
CONTEXT_KEYWORDS = KeywordRules(_BY_KEYWORD_CONTEXT)
ANY_TOKEN_KEYWORD = TOKEN_KEYWORDS.any
ANY_CONTEXT_KEYWORD = CONTEXT_KEYWORDS.any
# The longest keyword of either index.
LONGEST_KEYWORD = max(len(k) for k, _ in (*_BY_KEYWORD_TOKEN, *_BY_KEYWORD_CONTEXT))
# Shortest text any provider-token pattern can match (slack_token's xoxb- + 8 characters).
MIN_TOKEN_LEN = MIN_WORD
KEYWORDLESS: tuple[int, ...] = tuple(i for i, r in enumerate(RULES) if not r.keywords)


@lru_cache(maxsize=1)
def any_keyword() -> re.Pattern[str]:
    """A yes/no screen for a keyword of either index, compiled on first use (only ingestion
    needs it; compiling it costs every process a few milliseconds)."""
    return _any_of([k for k, _ in (*_BY_KEYWORD_TOKEN, *_BY_KEYWORD_CONTEXT)])


@lru_cache(maxsize=1)
def keywords_by_need() -> tuple[re.Pattern[str], tuple[tuple[str, str], ...]]:
    """The context keywords split by what their rules need to be tried: a yes/no search for
    those one of whose rules a scan tries whenever the keyword occurs; and each other keyword,
    all of whose rules are rules of lines that need a character (``Rule.needs``), with the
    characters one of which a text must hold for one of them to be tried."""
    needs = {i: rule.needs for i, rule in enumerate(RULES) if rule.lines and rule.needs}
    always: list[str] = []
    restricted: list[tuple[str, str]] = []
    for keyword, rules in _BY_KEYWORD_CONTEXT:
        if all(i in needs for i in rules):
            restricted.append((keyword, "".join(sorted({ch for i in rules for ch in needs[i]}))))
        else:
            always.append(keyword)
    return _any_of(always), tuple(restricted)


def long_words(text: str) -> list[str]:
    """The whitespace-free runs of ``text`` long enough to be a provider token.

    Provider tokens are unbroken, and their keywords lie inside them: prose has few such runs.
    """
    return [w for w in text.split() if len(w) >= MIN_TOKEN_LEN]


_WIDTHS: list[tuple[int, int]] = []


def keywordless_widths() -> list[tuple[int, int]]:
    """(rule index, shortest match) of each rule without keywords; 0 for a rule whose matches
    may span white space. Such a rule cannot match in a text whose longest whitespace-free run
    is shorter than its shortest match. Worked out once per process, from these rules' patterns
    alone (parsing all of them would cost an unchanged re-ingest a fifth of its time)."""
    if not _WIDTHS:
        widths = []
        for i in KEYWORDLESS:
            tier, _ = word_filter(RULES[i])
            shortest = max(tier, _shortest_match(RULES[i])) if tier else 0
            widths.append((i, shortest))
        _WIDTHS[:] = widths
    return _WIDTHS


_RUNS: list[re.Pattern[str] | None] = []


def keywordless_runs() -> list[re.Pattern[str] | None]:
    """For each rule without keywords, a pattern that finds a run of the characters its
    matches are made of, as long as its shortest match (``prefilter.run_pattern``): where it
    finds none the rule matches nothing. None for a rule that may match anywhere (its
    matches may span white space, or its characters are not known)."""
    if not _RUNS:
        runs = []
        for i, shortest in keywordless_widths():
            run = run_pattern(RULES[i], shortest) if shortest else None
            if shortest and run is None:  # a match is at least as long as some word
                run = re.compile(rf"\S{{{shortest}}}")
            runs.append(run)
        _RUNS[:] = runs
    return _RUNS


def _shortest_match(rule: Rule) -> int:
    try:
        from re import _parser  # type: ignore[attr-defined]

        return int(_parser.parse(rule.pattern, rule.flags).getwidth()[0])
    except Exception:  # noqa: BLE001 - the private parser changed: fall back to the tier
        return 0


SYNTAXES = ("text", "code", "c")


def find_secrets(text: str, *, syntax: str = "text") -> list[Hit]:
    """Return accepted secret spans in ``text``, sorted by start.

    Args:
        text: the text to scan.
        syntax: how to read ``key = value`` right-hand sides. ``"text"`` (default; .env,
            YAML, INI, prose): unquoted values are literals. ``"code"`` (Python, Java, JS...):
            unquoted values are expressions and only string literals count. ``"c"`` (C, C++,
            C#, Objective-C): like code, and single quotes delimit characters, not strings.
    """
    if syntax not in SYNTAXES:
        from substrate.secrets.scan import safe_repr  # scan imports this module

        raise InvalidInputError(f"unknown syntax {safe_repr(syntax)}; expected one of {SYNTAXES}")
    if len(text) < 4:  # shorter than any credential this package reports
        return []
    hits = _find(text, syntax)
    if escapes_slashes(text):  # read with them plain first: the text as written may show
        # only a part of a secret
        hits = _with_others(hits_with_plain_slashes(text, syntax, _find), hits)
    return hits


def _find(text: str, syntax: str) -> list[Hit]:
    """``find_secrets`` of ``text`` as written."""
    scan = _by_segments if len(text) > SEGMENT_CHARS + 2 * SEGMENT_OVERLAP else _scan
    hits = scan(text, syntax)
    if may_join(text):
        hits = _with_others(hits, joined_hits(text, syntax, scan))
    return hits


def _with_others(hits: list[Hit], others: list[Hit]) -> list[Hit]:
    """``hits`` and those of ``others``, found another way (joined literals, escaped
    slashes), that overlap none of them, sorted by start."""
    accepted = _Accepted()
    for hit in hits:
        accepted.add(hit)
    for hit in others:
        if not accepted.overlaps(hit.start, hit.end):
            accepted.add(hit)
    return accepted.hits()


def _scan(text: str, syntax: str) -> list[Hit]:
    """``find_secrets`` of ``text`` in one piece."""
    low = text.lower()
    accepted = _Accepted()
    gated = len(text) < KEYWORD_GATE
    if gated:
        # keyword-first: one search for every keyword picks the rules worth trying, so a
        # clean text never compiles or runs a regular expression
        active, keywords = CONTEXT_KEYWORDS.search(low)
        unbroken = long_words(low)
        if unbroken:
            active.update(TOKEN_KEYWORDS.rules_in(" ".join(unbroken)))
            # lower-casing never shortens a word, so the longest one bounds the original's
            longest = max(map(len, unbroken))
            active.update(i for i, shortest in keywordless_widths() if longest >= shortest)
        selected: Sequence[int] = sorted(active)
    else:
        # rule-first: literal-led patterns are their own fast filter on long texts
        selected = range(len(RULES))
        filters = word_filters(RULES)
        reduced = reduce_text(text)
        keywords = None
    if _KUBERNETES_RULE in selected:
        # first: a Secret's value is read whole, past escaped quotes, where a rule of its key
        # ("password: ...") would stop at the first quote inside it
        for start, end in [*kubernetes_secret_spans(text), *json_secret_spans(text)]:
            accepted.add(Hit(KUBERNETES_SECRET_RULE.name, start, end, 0, start, end))
    present: dict[str, bool] = {}
    lines = _KeywordLines(text, low, keywords)
    held: frozenset[str] | None = None  # the characters some rule needs that the text holds
    for i in selected:
        rule = RULES[i]
        if rule.kind == "document":  # read above, by the document's structure
            continue
        if rule.lines:
            if rule.needs:
                if held is None:
                    held = frozenset(ch for ch in _NEEDED if ch in text)
                if held.isdisjoint(rule.needs):
                    continue  # every match holds one of these characters; the text has none
            # (the lower-cased text shows what a match holds where it has the text's length
            # and no letter a case-blind pattern reads otherwise)
            safe = lines.case_safe()
            guarded, led = bool(rule.holds) and safe, bool(rule.starts) and safe
            for start, end in lines.windows(rule.keywords, rule.window):
                if guarded and not _holds_one(low, rule.holds, start, end):
                    continue  # every match holds one of these strings; the window has none
                if led:
                    found: Iterator[re.Match[str]] = _led_matches(rule, text, low, start, end)
                else:
                    found = rule.regex.finditer(text, start, end)
                for m in found:
                    _consider(rule, m, text, accepted, syntax)
            continue
        if not gated:
            # the cheapest test first: the witness, looked for in the long words alone
            floor, witness = filters[i]
            if floor:
                words, words_low = reduced[floor]
                if witness and witness not in words_low:
                    continue
            # a match holds one of its rule's keywords (a short text's rules are picked by
            # them): where none is, the pattern is not tried, even a literal-led one, whose
            # lead may be common and start a long try each time (npm_token's ``//`` in
            # ``//a//a…``, tried to the end of the run from every one)
            if rule.keywords and not _has(low, rule.keywords, present):
                continue
            if floor and rule.regex.search(words) is None:
                continue
        for m in rule.regex.finditer(text):
            _consider(rule, m, text, accepted, syntax)
    if _TABLE_RULE in selected and "|" in text:  # a column of them: "| user | password |"
        headers = lines.holding(TABLE_CELLS_RULE.keywords)
        for start, end in table_column_secrets(text, headers):
            if not accepted.overlaps(start, end):
                accepted.add(Hit(TABLE_CELLS_RULE.name, start, end, 0, start, end))
    if _CSV_RULE in selected and ("," in text or ";" in text):  # "id,user,password" then rows
        from substrate.secrets.tables import embedded_table_hits  # (the module imports this one)

        for hit in embedded_table_hits(text, lines.holding(CSV_COLUMNS_RULE.keywords)):
            if not accepted.overlaps(hit.start, hit.end):
                accepted.add(hit)
    return accepted.hits()


_TABLE_RULE = RULES.index(TABLE_CELLS_RULE)
_CSV_RULE = RULES.index(CSV_COLUMNS_RULE)
# Every character some rule needs (``Rule.needs``): a scan looks each up once
_NEEDED = "".join(sorted({ch for rule in RULES for ch in rule.needs}))
_KUBERNETES_RULE = RULES.index(KUBERNETES_SECRET_RULE)


class _KeywordLines:
    """The lines of a text that hold some keywords, and the windows they open (those lines
    and a number of lines after each), worked out once per scan for each set of keywords and
    each window: the generic rules share theirs."""

    def __init__(self, text: str, low: str, found: list[tuple[str, int]] | None = None) -> None:
        self._text = text
        self._low = low
        # the context keywords a search found in ``low`` (``KeywordRules.search``), if known
        self._found = found
        self._lines: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        self._windows: dict[tuple[tuple[str, ...], int], list[tuple[int, int]]] = {}
        self._breaks: list[int] | None = None  # the text's line breaks, once a window needs them
        self._case_safe: bool | None = None

    def holding(self, keywords: tuple[str, ...]) -> list[tuple[int, int]]:
        """The lines holding one of ``keywords``. Lower-casing a few characters (İ)
        lengthens the text: then offsets in the lower-cased text are not offsets in the
        text, and the whole text is one line."""
        lines = self._lines.get(keywords)
        if lines is None:
            text, low = self._text, self._low
            if len(low) != len(text):
                lines = [(0, len(text))]
            elif self._found is None:
                lines = _keyword_lines(low, keywords)
            else:
                lines = _found_lines(low, keywords, self._found)
            self._lines[keywords] = lines
        return lines

    def case_safe(self) -> bool:
        """Whether the lower-cased text has the text's length, and the text holds none of the
        characters a case-blind pattern takes for an ASCII letter that lower-casing leaves
        as they are (``_CASE_FOLDS``): then where a case-blind pattern matches a word, the
        lower-cased text holds that word, at the same offsets."""
        if self._case_safe is None:
            text = self._text
            self._case_safe = len(self._low) == len(text) and (
                text.isascii() or not any(ch in text for ch in _CASE_FOLDS)
            )
        return self._case_safe

    def windows(self, keywords: tuple[str, ...], extra: int) -> list[tuple[int, int]]:
        """The lines holding one of ``keywords``, each with ``extra`` lines after it, merged
        where they meet."""
        spans = self._windows.get((keywords, extra))
        if spans is None:
            if extra and self._breaks is None:
                self._breaks = _line_breaks(self._text)
            spans = _widen(self._text, self.holding(keywords), extra, self._breaks)
            self._windows[(keywords, extra)] = spans
        return spans


# A long text is scanned a segment at a time, each with this much of the text on either side:
# the scan's working copies (lower-cased text, word lists) then take a few times a segment,
# not a few times the text (a 200 MB log took 3 GB). The margin holds any match the rules
# make (the longest, a key block, is at most MAX_KEY_BLOCK): one starting in a segment is
# found there whole, with what precedes it.
SEGMENT_CHARS = 4 << 20
SEGMENT_OVERLAP = 2 * MAX_KEY_BLOCK


def _by_segments(text: str, syntax: str) -> list[Hit]:
    """``find_secrets`` of a long text, segment by segment: the hits that start in each
    segment, found in it with ``SEGMENT_OVERLAP`` characters of text on either side."""
    hits: list[Hit] = []
    start = 0
    while start < len(text):
        end = _segment_end(text, start + SEGMENT_CHARS)
        lo, hi = max(0, start - SEGMENT_OVERLAP), min(len(text), end + SEGMENT_OVERLAP)
        for hit in _scan(text[lo:hi], syntax):
            begin = lo + hit.start
            if start <= begin < end and not (hits and begin < hits[-1].end):
                hits.append(shifted_hit(hit, lo))
        start = end
    return hits


def _segment_end(text: str, near: int) -> int:
    """A cut at the line break at or after ``near`` (else at white space), so that lines and
    words stay whole within a segment where they can."""
    if near >= len(text):
        return len(text)
    for mark in ("\n", " "):
        found = text.find(mark, near, near + SEGMENT_OVERLAP // 2)
        if found != -1:
            return found + 1
    return near


def shifted_hit(hit: Hit, by: int) -> Hit:
    """``hit`` moved ``by`` characters on (found in a slice that starts there)."""
    return Hit(
        hit.rule, hit.start + by, hit.end + by, hit.prefix, hit.match_start + by, hit.match_end + by
    )


# The characters other than ASCII letters that a case-blind pattern takes for one: the Kelvin
# sign and the long s (for k and s), the dotted and dotless I (for i). Lower-casing keeps all
# but the Kelvin sign, and makes two characters of the dotted I.
_CASE_FOLDS = "\u212a\u017f\u0130\u0131"


def _led_matches(rule: Rule, text: str, low: str, start: int, end: int) -> Iterator[re.Match[str]]:
    """The matches ``rule.regex.finditer(text, start, end)`` gives, found by trying the
    pattern only where a match may start (``Rule.starts``), in order, past the end of the
    last match, as the search would come to each. ``start`` begins a line; ``low`` shows
    what the pattern's case-blind letters match (``_KeywordLines.case_safe``). No match of
    such a rule is empty, so the search goes on at a match's end."""
    pos = start
    for at in _lead_places(rule, text, low, start, end):
        if at >= pos:
            m = rule.regex.match(text, at, end)
            if m is not None:
                yield m
                pos = m.end()


def _lead_places(rule: Rule, text: str, low: str, start: int, end: int) -> list[int]:
    """Where in ``start``..``end`` a match of ``rule`` may start, in order: every place one
    of its ``starts`` begins; or, for a rule whose matches begin a word, the beginning of each
    word that holds one of them at most ``reach`` characters in. There, the first in each
    word is enough, and one search finds it: a later one inside an earlier is in the same
    word, further in."""
    places: set[int] = set()
    if rule.word is None:
        for lead in rule.starts:
            at = low.find(lead, start, end)
            while at != -1:
                places.add(at)
                at = low.find(lead, at + 1, end)
        return sorted(places)
    for found in _any_literal(rule.starts).finditer(low, start, end):
        begin = _word_start(text, found.start(), start, rule.word, rule.reach)
        if begin is not None:
            places.add(begin)
    return sorted(places)


@lru_cache(maxsize=16)
def _any_literal(strings: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(s) for s in strings))


def _word_start(text: str, at: int, floor: int, extra: str, reach: int) -> int | None:
    """Where the word holding ``at`` begins: a run of letters, digits, ``_`` and the
    characters of ``extra`` (what a pattern's ``\\w`` with them takes), not before ``floor``
    (a line's start); None when that is more than ``reach`` characters before ``at``."""
    begin = at
    while begin > floor:
        ch = text[begin - 1]
        if not (ch.isalnum() or ch == "_" or ch in extra):
            break
        begin -= 1
        if at - begin > reach:
            return None
    return begin


def _holds_one(low: str, strings: tuple[str, ...], start: int, end: int) -> bool:
    """Whether ``low[start:end]`` holds one of ``strings``."""
    return any(low.find(s, start, end) != -1 for s in strings)


def _found_lines(
    low: str, keywords: tuple[str, ...], found: list[tuple[str, int]]
) -> list[tuple[int, int]]:
    """``_keyword_lines`` of context ``keywords``, from what the search for all of them found
    (``KeywordRules.search``): every keyword that occurs overlaps a keyword found, so lies
    on its line, and is one that holds it or one it may hide; a line holds one of
    ``keywords`` when the keyword found there holds one, or when one of those it may hide
    is on the line (looked up there)."""
    wanted = frozenset(keywords)
    inside, hidden = CONTEXT_KEYWORDS.inside, CONTEXT_KEYWORDS.hidden
    lines: dict[int, tuple[int, int]] = {}
    for word, at in found:
        begin = low.rfind("\n", 0, at) + 1
        if begin in lines:
            continue
        end = low.find("\n", at)
        end = len(low) if end == -1 else end
        if inside[word] & wanted or any(
            low.find(k, begin, end) != -1 for k in hidden[word] if k in wanted
        ):
            lines[begin] = (begin, end)
    return [lines[begin] for begin in sorted(lines)]


def _keyword_lines(low: str, keywords: tuple[str, ...]) -> list[tuple[int, int]]:
    """Start and end offsets of every line holding one of ``keywords``, in order: each
    keyword is looked for with ``str.find`` (a scan in C, several times quicker than a
    pattern of all of them), from the line after each one found (a keyword holds no line
    break, so it lies on the line where it is found)."""
    starts: set[int] = set()
    for k in keywords:
        at = low.find(k)
        while at != -1:
            starts.add(low.rfind("\n", 0, at) + 1)
            end = low.find("\n", at)
            at = low.find(k, end) if end != -1 else -1
    out: list[tuple[int, int]] = []
    for start in sorted(starts):
        end = low.find("\n", start)
        out.append((start, len(low) if end == -1 else end))
    return out


def _widen(
    text: str, lines: list[tuple[int, int]], extra: int, breaks: list[int] | None = None
) -> list[tuple[int, int]]:
    """Extend each line window by ``extra`` following lines and merge overlaps; ``breaks``
    are the text's line breaks, when known."""
    if extra and lines:
        breaks = _line_breaks(text) if breaks is None else breaks
        lines = [(start, _end_after(breaks, end, extra, len(text))) for start, end in lines]
    out: list[tuple[int, int]] = []
    for start, end in lines:
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _line_breaks(text: str) -> list[int]:
    """Where ``text``'s line breaks are, in order."""
    return [m.start() for m in _LINE_BREAK.finditer(text)]


_LINE_BREAK = re.compile("\n")


def _end_after(breaks: list[int], end: int, extra: int, size: int) -> int:
    """The end of the line ``extra`` lines after the one that ends at ``end`` (a line
    break, or the text's ``size``), or the text's end when there are not so many."""
    at = bisect.bisect_left(breaks, end)
    if at == len(breaks) or breaks[at] != end:
        return end  # the last line
    return breaks[at + extra] if at + extra < len(breaks) else size


def _secret_span(m: re.Match[str]) -> tuple[int, int, str]:
    """The span and group name of the secret part of a match (whole match if unnamed)."""
    names = m.re.groupindex
    for name in _VALUE_GROUPS:
        if name in names and m.group(name) is not None:
            return m.start(name), m.end(name), name
    return m.start(), m.end(), ""


class _Accepted:
    """The hits accepted so far, which never overlap: kept ordered by start, so that whether a
    new span overlaps one of them is two comparisons, not one per hit (a long file of
    ``key = value`` lines holds a hundred thousand)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._hits: list[Hit] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start)
        if i and self._hits[i - 1].end > start:
            return True
        return i < len(self._starts) and self._starts[i] < end

    def add(self, hit: Hit) -> None:
        i = bisect.bisect_right(self._starts, hit.start)
        self._starts.insert(i, hit.start)
        self._hits.insert(i, hit)

    def hits(self) -> list[Hit]:
        """The hits, sorted by start."""
        return self._hits


def _consider(rule: Rule, m: re.Match[str], text: str, accepted: _Accepted, syntax: str) -> None:
    start, end, group = _secret_span(m)
    if (
        rule.boundary
        and m.start() > 0
        and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_+/")
        and text[m.start() - 1] not in rule.joins
        and not _marked(m, rule)
        and not _path_component(m, text)
    ):
        return
    if (
        rule.prefix
        and text.startswith("_", m.end())
        and not _generated(text[start:end][rule.prefix :])
    ):
        return  # an identifier ("sk_test_configuration_value"), not a token named "…_old"
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
    if syntax != "text" and _written_as_text(rule, m, text, start):
        syntax = "text"
    if not _valid(rule, m, text[start:end], group, text, syntax):
        return
    accepted.add(Hit(rule.name, start, end, rule.prefix, m.start(), m.end()))


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


def _marked(m: re.Match[str], rule: Rule) -> bool:
    """A type marker with punctuation (``ghp_``, ``glpat-``, ``xoxb-``) cannot occur inside a
    base64 or hex run, so such a token needs no word boundary before it: it is found in
    ``https://ghp_…@host``, ``token_ghp_…`` or after an escaped ``\\n`` too."""
    marker = m.group(0)[: rule.prefix]
    return "_" in marker or "-" in marker


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
    kind = rule.kind
    if kind == "token":
        return _valid_token(secret[rule.prefix :], rule.entropy)
    if kind == "assignment":
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
        if group == "su" and secret.isalpha() and _a_note(secret, text, m.start(group)):
            return False  # "password: stored in Vault under kv/prod": where it is, not what
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
        return worth_reporting(
            secret, strength=strength, quoted=group != "su", key=key, assigned=assigned
        )
    if kind == "stated":  # a password's value, or a random one for a key or a token
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
    if kind == "fallback":  # a literal, wherever it stands: judged as a quoted value
        strength = classify_key(m.group("key"))
        return strength is not None and worth_reporting(
            secret, strength=strength, quoted=True, key=m.group("key")
        )
    if kind == "stated_bare":  # strong as a generated password is, or it is a word
        strong = char_classes(secret) == 4 or _generated_password(secret)
        return strong and credential_ok(secret) and not is_path_or_url(secret)
    if kind == "credential":
        return credential_ok(secret)
    if kind == "user_option":  # -u USER:PASSWORD, as curl takes it
        return credential_ok(secret) and not _not_a_password_option(m, text, secret)
    if kind == "argument":  # a password after its user: a quoted password, not the user again
        user = m.group("user") or m.group("us") or "password"
        return worth_reporting(secret, strength="password", quoted=True, key=user)
    if kind == "directive":  # "requirepass ...", "ENV DB_PASSWORD ...": a setting's line
        key = m.group("key")
        strength = classify_key(key)
        if strength is None or syntax != "text":
            return False
        if not (m.group("env") or (strength == "password" and _setting_name(key))):
            return False  # "Password reset": a sentence; "default-key 0x…": a key's id
        if group == "su" and not _a_setting_s_value(secret, m.group("su")):
            return False
        return worth_reporting(secret, strength=strength, quoted=group != "su", key=key)
    if kind == "pre_shared_key":  # a passphrase, judged as a password's value
        if group == "su" and syntax != "text":
            return False
        return worth_reporting(secret, strength="password", quoted=group != "su", key="psk")
    if kind == "named_element":  # <property name="...password">...</property>
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
    if kind == "header_token":  # random, not "client_credentials" or a path after a scheme
        ok = _valid_token(secret, rule.entropy)
        return ok and not (is_name_like(secret) or is_path_or_url(secret) or secret[:1] == "-")
    if kind == "line_value":  # only what the next rule would cut short
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
        words = secret.split()
        if len(words) > 1 and not _passphrase(words, operator):
            return False  # a sentence ("ask Bob"), or a value and a note about it
        return worth_reporting(
            secret, strength=strength, quoted=len(words) > 1, key=key, assigned=True
        )
    if kind == "label":  # "API key for staging: ...": a value judged as one given to the key
        key = m.group("key")
        if group == "su" and (
            syntax != "text" or secret[:1] in _NOT_A_LABELS_VALUE or _code_in_text(secret)
        ):
            return False
        strength = classify_key(key) or "password"
        if not worth_reporting(secret, strength=strength, quoted=group != "su", key=key):
            return False
        word = secret.strip(_PROSE_MARKS)
        return not (plain_word(word) or _DESCRIBED.fullmatch(word))
    if kind == "netrc":
        return credential_ok(secret) and _netrc_entry(text, m.start())
    if kind == "yaml_block":  # judged by its first line; the whole block is masked
        key = _key_before_colon(text, m.start())
        strength = classify_key(key) if key else None
        first = secret.split("\n", 1)[0].strip()
        if says_something(first.split()):
            return False  # "password: >" over "  stored in Vault under kv/prod"
        return strength is not None and worth_reporting(
            first, strength=strength, quoted=" " in first, key=key, assigned=True
        )
    if kind == "yaml_next_line":  # a YAML key's value, the line under it
        key = _bare_key_above(text, m.start(), len(m.group("indent")))
        strength = classify_key(key) if key else None
        if strength is None or (group == "su" and (syntax != "text" or secret.endswith(":"))):
            return False
        return worth_reporting(secret, strength=strength, quoted=group != "su", key=key)
    if kind == "url":
        return _valid_url_password(secret, m.group(0))
    if kind == "key_body":  # random past the key's first bytes, not a placeholder's filler
        body = "".join(secret[len(m.group("lead")) :].split())  # (OpenSSH's runs of A too)
        return len(body) >= 40 and shannon(body) >= _RANDOM_BASE64
    if kind == "pem":
        return _valid_pem(secret, m, text)
    if kind == "jwt":
        return _valid_jwt(secret) and not is_placeholder(secret.split(".")[-1] or "x")
    if kind == "jwt_b64":
        return _valid_jwt_b64(secret)
    return False


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
    return plain_word(secret) or _ARGUMENT.fullmatch(secret) is not None


# An argument or keyword argument as prose names it ("isinstance", "spec=True")
_ARGUMENT = re.compile(r"[a-z_]+(?:=[\w.]+)?")


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
    version, an address, or a type ("DBPassword *string")."""
    if raw.rstrip()[-1:] in ".;," or value[:1] in "(*&[":
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
    line = _line_after(text, at)
    if says_something(_phrase(line)):
        return True
    return plain_word(word) and bool(line[len(word) :].strip())


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
    r"|(?:Optional|Union|Annotated|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|Iterable"
    r"|Iterator|Callable|Literal|Type|list|dict|set|frozenset|tuple|type)\[[A-Za-z_][\w.]*"
    r"(?:[,\]].*)?"
)
_LONG_OPTION = re.compile(r"--[a-z][a-z\d]*(?:-[a-z\d]+)*")
_PATTERN_PART = re.compile(
    r"\[\^?[^\]\s]{0,20}?(?:[a-z]-[a-z]|[A-Z]-[A-Z]|\d-\d)[^\]\s]{0,20}\]"
    r"|\\[dws]|[\])]\{\d+(?:,\d*)?\}"
)


def _code_in_text(value: str) -> bool:
    return bool(_CODE_IN_TEXT.fullmatch(value) or _PATTERN_PART.search(value))


# A Go struct tag: space-separated key:"value" pairs
_STRUCT_TAG = re.compile(r'[A-Za-z_][\w.-]*:"[^"]*"(?:[ \t]+[A-Za-z_][\w.-]*:"[^"]*")*')
_NUMBER = re.compile(r"(?:0[xob][\da-f_]+|[\d_]+(?:\.[\d_]*)?(?:e[+-]?\d+)?)[a-z]{0,3}\b", re.I)
_AT_INSIDE = re.compile(r"\w@\S")
# What ends an unquoted value of ``key = value`` in running text (``rules._BARE``).
_CUT_SHORT = re.compile(r"[\s\"'`,;&<\\]")
_CODE_MARKS = re.compile(r"\$\{|\$\(|\w\(|\{\{|\$[A-Z_][A-Z0-9_]*\b")
_USER_THEN_PASSWORD = re.compile(r"[ \t]*/[ \t]*[^\s/]")
# A compound word describing a password rather than being one: "2FA-protected",
# "bcrypt-hashed", "case-sensitive", "time-based", "never-expiring", "brute-force-proof".
_DESCRIBED = re.compile(r"[A-Za-z0-9]+(?:-[a-z]+)*-[a-z]*(?:ed|ing|ive|able|ible|less|proof)")


# How far the checks below look along a line: a match on a 200 KB line must not read the
# whole line again (that made a scan of such a line quadratic).
_LOOK = 200


def _line_before(text: str, at: int) -> str:
    """The part of ``at``'s line that comes before it (at most ``_LOOK`` characters)."""
    return text[max(text.rfind("\n", max(0, at - _LOOK), at) + 1, at - _LOOK) : at]


def _line_after(text: str, at: int) -> str:
    """The part of ``at``'s line from ``at`` on (at most ``_LOOK`` characters)."""
    end = text.find("\n", at, at + _LOOK)
    return text[at : end if end != -1 else at + _LOOK]


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
    before = _line_before(text, at)
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
    found = _KEY_BEFORE.search(_line_before(text, at))
    return found.group(1) if found else ""


def _bare_key_above(text: str, colon: int, indent: int) -> str:
    """The key a YAML line holds alone before its ``colon`` ("" when the line holds more, as
    prose does), provided the value's ``indent`` goes deeper than the key's."""
    line = _line_before(text, colon)
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


def _valid_token(body: str, floor: float) -> bool:
    low = body.lower()
    if any(marker in low for marker in _HARD_MARKERS) or x_filler(body):
        return False
    if is_repetitive(body) or is_sequential(body):
        return False
    if ("test" in low or "fake" in low) and shannon(low.replace("test", "")) < 3.0:
        return False
    return shannon(body) >= floor


def _valid_url_password(password: str, whole: str) -> bool:
    if is_reference(password) or password.lower() in _URL_DEFAULTS:
        return False
    # an example host or a <slot> marks documentation; "your" only as a template's "your_"
    # (a password may well begin "Your...")
    low = whole.lower()
    if is_placeholder(password) or any(m in low for m in _URL_PLACEHOLDERS):
        return False
    if "example" in low.rpartition("@")[2].split("."):  # example.com, db.example: not my-example.io
        return False
    user = whole.split("://", 1)[-1].split(":", 1)[0]
    return user.lower() != password.lower()


def _valid_pem(body: str, m: re.Match[str], text: str) -> bool:
    if _placeholder_key(body):
        return False
    if "-----END" in m.group(0):
        return sum(ch.isalnum() for ch in body) >= 32
    # header without its END line: report it unless the END line follows within the reach
    # of the complete-block rule (which has then decided); a longer key fails closed
    reach = m.start() + _PEM_HEADER_MAX + MAX_KEY_BLOCK
    return "-----END" not in text[m.end() : reach]


_PEM_HEADER_MAX = 80  # the longest BEGIN line the key rules take


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
    return shannon(letters) < _RANDOM_BASE64


# armor headers, a quote's or a comment's marks opening each line, line breaks and escapes
_KEY_LAYOUT = re.compile(
    r"(?m:^[ \t]*[A-Za-z][\w-]{0,30}: [^\r\n]*$)|(?m:^[ \t]*(?:>|#|//|;|\*|--)+)|\\[nr]|\s"
)
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=]")
# bits per character: random base64 of a key's length gives close to 6, a filler word far less
_RANDOM_BASE64 = 4.5
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


def _valid_jwt(token: str) -> bool:
    parts = token.split(".")
    if len(parts) < 2 or not _json_object(parts[0].rstrip("=")):
        return False
    return not parts[1].startswith("eyJ") or _json_object(parts[1].rstrip("="))


# A token inside a decoded blob, from the start of a run (see the jwt rule)
_INNER_JWT = re.compile(r"(?<![\w\-])eyJ[\w\-]{10,}\.[\w\-]{10,}")


def _valid_jwt_b64(blob: str) -> bool:
    raw = _b64decode(blob.replace("+", "-").replace("/", "_").rstrip("="))
    if raw is None:
        return False
    inner = raw.decode("ascii", "replace")
    match = _INNER_JWT.search(inner)
    return match is not None and _valid_jwt(match.group(0))
