"""Text analysis shared by the lexical and the semantic channel.

One analyzer turns any text into index terms: Unicode normalisation (NFKC), word split (an
Indic word keeps its vowel signs; "C++" and "C#" are words), case folding, accents dropped
from Latin words, English stopwords, Snowball English stemming, and overlapping character
bigrams for Chinese, Japanese, Korean, Thai, Lao, Myanmar and Khmer runs (those scripts do not
separate words with spaces, so bigrams are the standard way to make them searchable without a
dictionary).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import Stemmer  # type: ignore[import-not-found,unused-ignore]

from substrate.folding import without_marks
from substrate.search.stopwords import ENGLISH_STOPWORDS

# Scripts written without spaces between words, cut into bigrams: Han, Hiragana, Katakana,
# Hangul (syllables and jamo), CJK compatibility ideographs; Thai, Lao, Myanmar and Khmer
# (split at their marks, a Thai phrase gave fragments a query's fragments seldom matched).
_CJK_RANGES = (
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1100, 0x11FF),
    (0x1780, 0x17FF),
    (0x3040, 0x30FF),
    (0x3130, 0x318F),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
)
_CJK = "".join(f"{chr(a)}-{chr(b)}" for a, b in _CJK_RANGES)
# A number written with thousands separators is one word as well as its parts: "4,200" is the
# 4200 a reader would type, and "80,443" may list two ports ("10,100,1000" stays apart).
#
# None is tried from a group of three digits that follows another after a comma ("1,234,567"):
# the one tried from the group before either matched, and took this group in, or failed, as
# this one would (the same groups follow). Tried from every group of a long run, the search
# read the rest of the run each time. Fewer groups than all never match (a group follows).
_GROUPED = r"(?!(?<=,[0-9]{3},)[0-9]{3}(?![0-9]))[0-9]{1,3}(?:,[0-9]{3})++(?!\w|,[0-9])"
GROUPED_NUMBER = re.compile(rf"(?<![\w,]){_GROUPED}")
# Names of languages and compilers a single letter and its marks spell: "C++", "C#", "F#", "g++"
# ("C" alone, like any single letter, is no term: it would match every "c" of "vitamin C")
# ("C++17" is "c++" and "17": a version after the name is a word of its own)
# (its letter first, the look back after it: a pattern opening with a look back is tried at
# every character, one opening with a letter only where a letter is)
_LANGUAGE = r"(?:[CcGg](?<![\w+#].)\+\+|[CcFfJjQq](?<![\w+#].)#)(?![^\W\d]|[_+#])"
# On ASCII text the full pattern below reduces to this one, which compiles 50x faster: a
# process that only ever sees ASCII (most queries) never pays for the CJK character classes.
# The repeats are possessive (``*+``): they never give back, which changes no match (nothing
# follows them) but keeps a long ``a_b_c_…`` run from growing the matcher's backtracking stack.
_ASCII_TOKEN_RE = re.compile(rf"()({_GROUPED}|[^\W_]+(?:_[^\W_]+)*+)")
_ASCII_MARKED_RE = re.compile(rf"()({_GROUPED}|{_LANGUAGE}|[^\W_]+(?:_[^\W_]+)*+)")


def _words_of(text: str) -> re.Pattern[str]:
    """The pattern that splits ``text`` into words. The one that knows "C++" and "C#" splits
    words a fifth slower: only a text holding a "+" or a "#" needs it."""
    marked = "+" in text or "#" in text
    if text.isascii():
        return _ASCII_MARKED_RE if marked else _ASCII_TOKEN_RE
    return _token_re(marked)


@functools.cache
def _token_re(marked: bool) -> re.Pattern[str]:
    # one character class for the letters and marks of the Basic Multilingual Plane, which a
    # word is run through at the speed of a single class; letters beyond it (rare) one by one
    letter = rf"(?:[{_word_characters()}]++|[^\W_\x00-\uffff])"
    language = f"{_LANGUAGE}|" if marked else ""
    return re.compile(rf"([{_CJK}]+)|({_GROUPED}|{language}{letter}++(?:_{letter}++)*+)")


def _word_characters() -> str:
    """The characters of the Basic Multilingual Plane words are made of, as the body of a
    character class: letters and digits (``re``'s word characters but ``_`` and the CJK runs,
    which are cut into bigrams), and the combining marks of the Indic scripts. ``re`` counts
    no mark as a word character, and their vowel signs and viramas are marks: without them
    "हिन्दी" fell apart into single letters, and no term was left. Marks elsewhere still end a
    word, as before: an emoji's variation selector, Arabic and Hebrew vowel points (typed or
    not, the word is the same), and Thai and Lao, whose words run on without spaces."""
    cjk = set().union(*(range(a, b + 1) for a, b in _CJK_RANGES))
    category = unicodedata.category
    ranges: list[tuple[int, int]] = []
    for code in range(0x30, 0x10000):
        char = chr(code)
        indic_mark = _INDIC[0] <= code <= _INDIC[1] and category(char)[0] == "M"
        if code in cjk or not (char.isalnum() or indic_mark):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "".join(_class_range(a, b) for a, b in ranges)


_INDIC = (0x0900, 0x0DFF)  # Devanagari to Sinhala


def _class_range(first: int, last: int) -> str:
    a, b = re.escape(chr(first)), re.escape(chr(last))
    return a if first == last else f"{a}-{b}"


# The plurals of acronyms whose s Snowball keeps (no vowel before it, or one alone: "vms",
# "cpus", "kpis"), each with its singular, so that "How many CPUs" finds the note of a cpu
# column whatever the case. A list, not a rule: a rule that took the s from every such stem
# merged the acronyms that end in S with others ("tls" with the "tl" of "TL;DR", "gcs" with
# "gc", "gbps" with "gbp").
_ACRONYM_PLURALS = {
    plural: plural[:-1]
    for plural in (
        "cpus gpus tpus npus vcpus vms pdfs csvs ssds hdds pcs dbs dbas sres kpis slas slis slos "
        "okrs mvps skus rfcs prs dms qas cves sdks vpns vpcs cdns rpcs llms ttls jwts acls "
        "mfas crds pvcs crms rpms gbs mbs tbs kbs kms lbs hrs"
    ).split()
}

# Characters that print nothing, pasted from web pages and chat apps inside words ("Zü\u200brich"
# split into "zü" and "rich" and matched nothing): soft hyphen, zero-width spaces and joiners,
# direction marks and invisible operators, byte order mark: most of Unicode's default ignorable
# characters, which search engines drop the same way (variation selectors still end a word).
_INVISIBLE = dict.fromkeys(
    [0x00AD, 0x034F, 0x061C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F)]
    + [*range(0x2060, 0x2070), 0xFEFF]
    # Arabic and Hebrew vowel points and cantillation, which most texts leave unwritten
    # ("محمد" finds "محمّد"); kept, they cut a word in two
    + [*range(0x064B, 0x0660), 0x0670, *range(0x0591, 0x05BE), 0x05BF, 0x05C1, 0x05C2]
    + [0x05C4, 0x05C5, 0x05C7]
)

# (same length: spans keep their place) and the accents of a word written decomposed (NFD, as
# macOS names files: "re\u0301sume\u0301"), which ``terms`` composes first: a word whole, as
# its terms are, so that a match in it is shown
_INVISIBLE_AS_LETTER = dict.fromkeys([*_INVISIBLE, *range(0x0300, 0x0370), 0x0640], "x")

# Spellings of one letter that writers use for each other, folded to one: Russian "ё" (most
# texts write "е"), Arabic's alef with a hamza, a madda or a wasla, its taa marbuta and alef
# maksura (written as haa and yaa as often), and its tatweel, a stretch of the line that is
# no letter ("احمد" finds "أحمد", "المكتبه" "المكتبة"); and the digits of Arabic and
# Devanagari writing, found by the digits typed ("30" finds "٣٠")
_FOLDED: dict[int, str | None] = {
    ord("ё"): "е",
    ord("Ё"): "Е",
    **dict.fromkeys(map(ord, "أإآٱ"), "ا"),
    ord("ة"): "ه",
    ord("ى"): "ي",
    0x0640: None,
    **{
        code: str(code - base)
        for base in (0x0660, 0x06F0, 0x0966)
        for code in range(base, base + 10)
    },
}
_UNIFORM = {**_INVISIBLE, **_FOLDED}

# Bounds the memo so that a long-lived process indexing an unbounded stream stays bounded.
_MAX_MEMO = 400_000


class Analyzer:
    """Turns text into a list of index terms (stemmed, folded, stopwords dropped).

    Analysis is memoised per distinct raw word, so the stemmer runs once per vocabulary
    entry rather than once per token.
    """

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("english")
        self._memo: dict[str, tuple[str, ...]] = {}

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text``, in order, with repeats."""
        out: list[str] = []
        memo = self._memo
        if not text.isascii():
            # one spelling per text: composed accents (NFD from macOS file names splits a word
            # at each mark), full-width letters and ligatures are folded to what users type,
            # characters that show nothing (a zero-width space, a soft hyphen) dropped, and
            # letters written for each other made one (``_FOLDED``)
            text = unicodedata.normalize("NFKC", text).translate(_UNIFORM)
        pattern = _words_of(text)
        for cjk, word in pattern.findall(text):
            if cjk:
                out.extend(_bigrams(cjk))
                continue
            hit = memo.get(word)
            if hit is None:
                hit = self._analyse_word(word)
                if len(memo) >= _MAX_MEMO:
                    memo.clear()
                memo[word] = hit
            out.extend(hit)
        return out

    def _analyse_word(self, word: str) -> tuple[str, ...]:
        folded = word.casefold()
        if "," in folded:  # a grouped number (_GROUPED), and its parts: "80,443" lists ports
            return (folded.replace(",", ""), *folded.split(","))
        if not folded.isascii():
            folded = _without_article(_without_accents(folded))
        if "_" in folded:
            # snake_case identifiers: the whole identifier and each part are all terms.
            parts = [p for p in folded.split("_") if p]
            return (folded, *self._stem_all(parts))
        return self._stem_all([folded])

    def _stem_all(self, words: list[str]) -> tuple[str, ...]:
        kept = [w for w in words if _keep(w)]
        if not kept:
            return ()
        stems = self._stemmer.stemWords(kept)
        return tuple(_ACRONYM_PLURALS.get(stem, stem) for stem in stems)


def _without_article(word: str) -> str:
    """An Arabic ``word`` without the article its writer joined to it ("الفريق" is "فريق",
    with "and", "by", "as", "so" or "for" before it too: "والفريق", "للفريق"), where three
    letters at least are left ("الله" stays whole): one search finds the word with it or
    without."""
    if not "\u0621" <= word[:1] <= "\u064a":
        return word
    for article in _ARTICLES:
        if word.startswith(article) and len(word) - len(article) >= 3:
            return word[len(article) :]
    return word


_ARTICLES = ("وال", "بال", "كال", "فال", "ال", "لل")


def _without_accents(word: str) -> str:
    """``word`` without its accents when it is a Latin or Greek word written with them
    ("munchen" for "münchen", "lodzi" for "łodzi", "αθηνα" for "αθήνα"), as users type it on a
    keyboard without them; a word of another script is left whole (its marks are letters: a
    Devanagari vowel sign is one, and Cyrillic "й" is no "и")."""
    bare = without_marks(word)
    return bare if bare.isascii() or all(_greek_or_ascii(c) for c in bare) else word


def _greek_or_ascii(c: str) -> bool:
    return c.isascii() or "\u0370" <= c <= "\u03ff"


def _keep(word: str) -> bool:
    # Single letters are noise for ranking; single digits are kept (versions, counts).
    if len(word) < 2:
        return word.isdigit()
    return word not in ENGLISH_STOPWORDS


def _bigrams(run: str) -> Iterator[str]:
    if len(run) == 1:
        yield run
        return
    for i in range(len(run) - 1):
        yield run[i : i + 2]


def word_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each stretch of ``text`` the analyzer turns into terms: each word,
    and each character bigram of a CJK run (so a match can be shown where it is)."""
    pattern = _words_of(text)
    if not text.isascii():  # a character that prints nothing is inside its word, as terms()
        text = text.translate(_INVISIBLE_AS_LETTER)  # drops it
    for match in pattern.finditer(text):
        if match.group(1):
            start, end = match.span(1)
            if end - start == 1:
                yield start, end
            for i in range(start, end - 1):
                yield i, i + 2
        else:
            yield match.span(2)


def item_surface(
    text: str, payload: Mapping[str, Any], tags: Iterable[str], section: object = ""
) -> str:
    """The searchable text surface of an item: text, flattened payload strings, tags, and
    the headings its section lies under (``Postgres failover > Steps``: a note's subject is
    often said by its title alone).

    Payload keys are included as well as string values so that a record such as
    ``{"owner": "alice"}`` is found by either word; nested containers are walked.
    """
    parts = [text]
    _flatten(payload, parts, depth=0)
    parts.extend(str(t) for t in tags)
    if isinstance(section, str):
        parts.append(section)
    return "\n".join(p for p in parts if p)


def surface_of(item: Any) -> str:
    """``item_surface`` of a stored item; a record's table (its file's name, "latency" of
    ``data/latency.csv``) stands for its section: "What is the p99 latency of search-api?"
    asks of the row whose cells say only "p99_ms"."""
    prov = item.provenance if isinstance(item.provenance, Mapping) else {}
    section = prov.get("section")
    if item.kind == "record" and not section:
        section = table_name(prov.get("source"))
    return item_surface(str(item.text or ""), item.payload, item.tags, section)


def table_name(source: object) -> str:
    """The name of the table a record's ``source`` holds: its file's name without folders and
    extension ("" for none)."""
    if not isinstance(source, str):
        return ""
    name = source.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


def _flatten(value: Any, out: list[str], depth: int) -> None:
    if depth > 8:  # bounds pathological nesting; deeper content is rarely worth a term
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for key, sub in value.items():
            out.append(str(key))
            _flatten(sub, out, depth + 1)
    elif isinstance(value, list | tuple):
        for sub in value:
            _flatten(sub, out, depth + 1)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        out.append(str(value))
