"""Run the rule table over a text and return the secret spans that survive every check.

Cost model: clean text must cost almost nothing. Each rule names keywords; for short texts
the keywords are looked up in the lower-cased text first (one search for all of them, see
``substrate.secrets.keywords``), so a clean item never reaches a regular expression. For
long texts the provider patterns, which all begin with a literal prefix, are run directly:
the regex engine's literal search is as fast as a keyword test. The context rules (generic
``key = value``, URL credentials, headers) only run on the lines (windows) around a keyword
hit, in texts of any length, so a text with few candidate lines costs little more than one
pass of ``str.find`` per keyword; and not at all when the text lacks every character a match
needs (an operator, a bracket). A long window (a minified file is one line) is not searched
from each of its characters: a context rule is tried only near the places where a string
every match holds occurs (``prefilter.anchors``), and finds what a search of it all finds.

On long texts most rules are first tried on a much smaller reduced text (see
``substrate.secrets.prefilter``) and run on the full text only when that finds something.
Each match then passes the checks of ``substrate.secrets.verdict`` or is dropped.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from substrate.errors import InvalidInputError
from substrate.secrets.asread import hits_as_read, reads_otherwise
from substrate.secrets.assignments import (
    CSV_COLUMNS_RULE,
    KUBERNETES_SECRET_RULE,
    TABLE_CELLS_RULE,
)
from substrate.secrets.hits import Accepted, Hit, shifted_hit
from substrate.secrets.joined import joined_hits, may_join
from substrate.secrets.keywords import (
    CONTEXT_KEYWORDS,
    TOKEN_KEYWORDS,
)
from substrate.secrets.kubejson import json_secret_spans
from substrate.secrets.kubernetes import kubernetes_secret_spans
from substrate.secrets.pipetables import table_column_secrets
from substrate.secrets.prefilter import (
    MIN_WORD,
    anchors,
    reduce_text,
    run_pattern,
    word_filter,
    word_filters,
)
from substrate.secrets.rule import Rule
from substrate.secrets.rules import MAX_KEY_BLOCK, RULES
from substrate.secrets.verdict import consider

# Texts shorter than this are checked keyword-first; longer ones rule-first (see module doc).
KEYWORD_GATE = 4096


def _has(low: str, keywords: Sequence[str], cache: dict[str, bool]) -> bool:
    for k in keywords:
        hit = cache.get(k)
        if hit is None:
            hit = cache[k] = k in low
        if hit:
            return True
    return False


# Shortest text any provider-token pattern can match (slack_token's xoxb- + 8 characters).
MIN_TOKEN_LEN = MIN_WORD
KEYWORDLESS: tuple[int, ...] = tuple(i for i, r in enumerate(RULES) if not r.keywords)


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
    if reads_otherwise(text):  # read as its readers read it too (escaped slashes plain, a
        # no-break space a space): either reading may show only a part of a secret
        hits = _joined_spans(hits, hits_as_read(text, syntax, _find))
    return hits


def _joined_spans(hits: list[Hit], others: list[Hit]) -> list[Hit]:
    """``hits`` and ``others`` sorted by start, those that overlap made one over both spans,
    under the rule of the longer: masked, the union leaves nothing of either in clear."""
    joined: list[Hit] = []
    for hit in sorted([*hits, *others], key=lambda h: h.start):
        if not joined or hit.start >= joined[-1].end:
            joined.append(hit)
            continue
        last = joined[-1]
        longer = hit if hit.end - hit.start > last.end - last.start else last
        start = last.start  # (sorted: the earlier start)
        joined[-1] = Hit(
            longer.rule,
            start,
            max(last.end, hit.end),
            longer.prefix if longer.start == start else 0,  # a prefix shown is the span's own
            min(last.match_start, hit.match_start),
            max(last.match_end, hit.match_end),
        )
    return joined


def _find(text: str, syntax: str) -> list[Hit]:
    """``find_secrets`` of ``text`` as written."""
    scan = _by_segments if len(text) > SEGMENT_CHARS + 2 * SEGMENT_OVERLAP else _scan
    hits = scan(text, syntax)
    if may_join(text):
        hits = _with_others(hits, joined_hits(text, syntax, scan))
    return hits


def _with_others(hits: list[Hit], others: list[Hit]) -> list[Hit]:
    """``hits`` and those of ``others``, found another way (joined literals), that overlap
    none of them, sorted by start."""
    accepted = Accepted()
    for hit in hits:
        accepted.add(hit)
    for hit in others:
        if not accepted.overlaps(hit.start, hit.end):
            accepted.add(hit)
    return accepted.hits()


def _scan(text: str, syntax: str) -> list[Hit]:
    """``find_secrets`` of ``text`` in one piece."""
    low = text.lower()
    accepted = Accepted()
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
                elif safe and end - start > LONG_WINDOW and (anchored := _anchors_of(i)):
                    found = _anchored_matches(rule, anchored, text, lines, start, end)
                else:
                    found = rule.regex.finditer(text, start, end)
                for m in found:
                    consider(rule, m, text, accepted, syntax)
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
            consider(rule, m, text, accepted, syntax)
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
        self._places: dict[tuple[str, int, int], list[int]] = {}

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

    def places(self, string: str, start: int, end: int) -> list[int]:
        """Where ``string`` begins in the lower-cased text's ``start``..``end``, overlaps too:
        the rules whose anchors hold it share them (``_anchored_matches``)."""
        found = self._places.get((string, start, end))
        if found is None:
            found = self._places[(string, start, end)] = []
            at = self._low.find(string, start, end)
            while at != -1:
                found.append(at)
                at = self._low.find(string, at + 1, end)
        return found

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


# A window longer than this (a minified file's one line) is searched from the places its
# rule's anchor shows, not from each of its characters (``_anchored_matches``)
LONG_WINDOW = 2048
_ANCHORS: dict[int, tuple[tuple[str, int], ...] | None] = {}


def _anchors_of(i: int) -> tuple[tuple[str, int], ...] | None:
    """``prefilter.anchors`` of rule ``i``, worked out on the first long window it meets."""
    if i not in _ANCHORS:
        _ANCHORS[i] = anchors(RULES[i])
    return _ANCHORS[i]


def _anchored_matches(
    rule: Rule,
    anchored: tuple[tuple[str, int], ...],
    text: str,
    lines: _KeywordLines,
    start: int,
    end: int,
) -> Iterator[re.Match[str]]:
    """The matches ``rule.regex.finditer(text, start, end)`` gives, found by trying the
    pattern only where a match may start: every match holds one of the anchor's strings, at
    most so many characters in (``prefilter.anchors``), where the lower-cased text shows it
    (``_KeywordLines.case_safe``). The places are tried in order, each once, past the end of
    the last match, as the search would come to them; each try reads the text to ``end``,
    as the search does. No such rule's match is empty, so the search goes on at its end."""
    spans = sorted(
        (at - before, at) for string, before in anchored for at in lines.places(string, start, end)
    )
    if sum(at - first for first, at in spans) + len(spans) > (end - start) // 4:
        # (a try from Python costs a few steps of the search's own: here, search it all)
        yield from rule.regex.finditer(text, start, end)
        return
    pos = start
    for first, at in spans:
        pos = max(pos, first)
        while pos <= at:
            m = rule.regex.match(text, pos, end)
            if m is None:
                pos += 1
            else:
                yield m
                pos = m.end()


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
