"""What a question asks beyond its content words.

"How long does a refund take?" is about refunds: "long" and "take" only frame it, and the
sentence that answers it says "within five business days", not "long". Looking the frame words
up would find other durations and make a covered question look uncovered; the answer is a
sentence about refunds that states a duration. Likewise "how many" and "how much" are said by
a sentence giving a number, as are "how big" and "how large", and "how often" by one giving a
frequency ("every weekday").

Words that make a request ("explain", "tell me", "how does it work") are no topic either: a
shard need not contain them to answer, so they never count as something it fails to mention.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

from substrate.abbreviations import ends_in_abbreviation
from substrate.answer_types import (
    MONTHS,
    TYPE_FRAMES,
    states_day,
    states_money,
    states_place,
    states_time,
)
from substrate.context.compress import plain_label, terms
from substrate.identifiers import IDENTIFIER
from substrate.linktext import as_shown
from substrate.phrasal import spelt_otherwise

# Numbers written as words are values too ("five minutes").
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion"
)
# What each of them up to ninety stands for ("five": 5, "twenty": 20, "thirty": 30)
NUMBER_VALUES = {
    word: at if at <= 20 else 20 + 10 * (at - 20)
    for at, word in enumerate(NUMBER_WORDS.split()[:28])
}
# A frame's words are the named groups "a" and "b" (the text between them is kept)
_DURATION_FRAME = re.compile(
    r"\b(?P<a>how\s+(?:long|much\s+time))\b(.{0,200}?)"
    r"\b(?P<b>take|takes|took|taking|last|lasts|lasted)\b",
    re.IGNORECASE | re.DOTALL,
)
# "how long is the trial" asks for a length of time, or a number ("3 metres")
_LENGTH_FRAME = re.compile(r"\b(?P<a>how\s+long)\b", re.IGNORECASE)
_QUANTITY_FRAME = re.compile(r"\b(?P<a>how\s+(?:many|much))\b", re.IGNORECASE)
# "How much does a wind tunnel cost?" asks for a price: "a choked wind tunnel at Mach 1"
# gives a number, and no price
_PRICE_FRAME = re.compile(
    r"\b(?P<a>how\s+much)\b(?=[^?]{0,80}?\b(?:cost|costs|charge|charges)\b)", re.IGNORECASE
)
# "how big is the canary" asks for a size: a number ("5%", "2 GB"), not the word "big"
# (not "how fast" or "how high": "immediately" and "low" answer them as often as numbers)
_SIZE_FRAME = re.compile(r"\b(?P<a>how\s+(?:big|large))\b", re.IGNORECASE)
_FREQUENCY_FRAME = re.compile(r"\b(?P<a>how\s+often)\b", re.IGNORECASE)
# "What is the default timeout?", "What is cjpeg's default quality?" ask for the value a
# sentence gives as the default ("defaults to 120", "the default is 75"), not any sentence
# naming a default ("Returns the default watermark"); not "the default behaviour", a way
_DEFAULT_FRAME = re.compile(
    r"\b(?:what|which)(?:['’]s|\s+(?:is|are|was|were))?\s+(?:[\w.'’-]+\s+){0,3}?"
    r"(?P<a>default)\b(?!\s+(?:behaviou?r|action|way|mode\s+of))",
    re.IGNORECASE,
)
# "Where is Tomasz based?" asks for a place: the verb is said by a sentence naming one
# ("Location: Kraków", "an office in Lisbon"), not by any sentence about Tomasz ("Role: ...").
# Not "where ... located", "live" or "stored": a path or "rack 4" answers them as often. Not
# where the question describes whom it asks of ("the custodian of BW-12"): a sentence naming
# both may place the other ("custodian: Oskar; location: MV Kestrel"), and the chain from the
# description to the person finds the verb as written ("base: Brackwater").
_WHERE_FRAME = re.compile(
    r"\b(?P<a>where)\b((?:(?!\b(?:of|who|whom|whose|that|which)\b)[^?]){0,200}?)"
    r"\b(?P<b>based|headquartered)\b",
    re.IGNORECASE,
)
_NUMBER_WORD = rf"(?:{'|'.join(NUMBER_WORDS.split())})"
_UNITS = r"(?:second|sec|minute|min|hour|hr|day|business day|working day|week|month|year)s?"
# "a day", "an hour", but not "a second factor": after "a" or "an", a whole unit of its own;
# and halves, as people say them ("two and a half minutes", "half an hour", "half a day")
_DURATION = re.compile(
    rf"\b(?:(?:\d+(?:[.,]\d+)?|few|several|{_NUMBER_WORD})"
    rf"(?:[\s-]+\w+|\s+and\s+a\s+half)?[\s-]+{_UNITS}"
    r"|(?:an?|half\s+an?)\s+(?:minute|hour|day|week|month|year))\b",
    re.IGNORECASE,
)
# A number under a label that says it is a length of time, as a record's fields name one:
# "duration_min: 47", "timeout_seconds: 30", "Downtime (hours): 3", "elapsed: 12"
_DURATION_LABEL = re.compile(
    # (found from the unit, after a word and a separator: a search from each word's start
    # took the square of a run of hyphened words' length)
    r"(?:(?<=\w)[_\s-]\(?(?:seconds|secs|minutes|mins|hours|hrs|days|weeks|ms)\)?"
    r"|\b(?:duration|timeout|elapsed|uptime|downtime|ttl|delay|latency)"
    r"(?:[_\s-]{0,3}\(?(?:s|secs?|min|h|hrs?|d|ms)\)?)?)\s*[:=]\s*\d",
    re.IGNORECASE,
)
_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORD}|dozens?|half|few|several)\b", re.IGNORECASE)
# Dates and years, which count nothing ("moved in 2023", "on 2023-05-01", "since March 2021")
_DATE = re.compile(
    r"\b\d{4}-\d\d(?:-\d\d)?\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?"
    r"(?:19|20)\d\d\b"
    r"|\b(?:in|since|during|until|till|by|from|before|after|the)\s+(?:19|20)\d\d\b"
    # a year alone as a label's value ("Commissioned: 2009", "Built: 1962")
    r"|(?<=:)\s*(?:19|20)\d\d\b(?!\s*[\w%])",
    re.IGNORECASE,
)
_COUNT = rf"(?:\d+|{_NUMBER_WORD}|few|couple\s+of)"
# "every fourth week", "every 2nd sprint", "every other day": which one of a run recurs
_ORDINAL = (
    r"(?:other|alternate|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"eleventh|twelfth|\d+(?:st|nd|rd|th))"
)
_FREQUENCY = re.compile(
    r"\b(?:daily|weekly|biweekly|fortnightly|monthly|quarterly|yearly|annually|hourly|nightly|"
    r"weekdays)\b"
    rf"|\b(?:once|twice|thrice|{_COUNT}\s+times)\s+(?:a|an|per|every|each)\b"
    rf"|\b(?:every|each|per)\s+(?:{_ORDINAL}\s+)?(?:{_COUNT}\s+)?(?:{_UNITS}|(?:weekday|night|"
    r"morning|evening|weekend|quarter|sprint|release|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)s?)\b",
    re.IGNORECASE,
)


def _states_number(sentence: str) -> bool:
    """Whether ``sentence`` gives a number other than a date or a year."""
    return _NUMBER.search(_DATE.sub(" ", sentence)) is not None


# A price: a sum of money (``states_money``: "$4.2 million", "SEK 40,000", "4.2 million
# dollars"), none to pay, or a number a word of price goes with ("costs 12 per seat")
_NO_CHARGE = re.compile(r"\b(?:free of charge|at no cost|for free|no charge)\b", re.IGNORECASE)
_PRICE_WORD = re.compile(
    r"\b(?:cost|costs|price|prices|priced|pricing|fee|fees|charge[sd]?)\b", re.IGNORECASE
)


def _states_price(sentence: str) -> bool:
    if states_money(sentence) or _NO_CHARGE.search(sentence):
        return True
    return _PRICE_WORD.search(sentence) is not None and _states_number(sentence)


# A moment beyond a day's or a clock's (``states_day``, ``states_time``): one counted from now
# or from another ("last week", "three days ago", "after the migration"), or a version ("since
# v2", "added in Kestrel 1.4")
# What follows a number said as an hour: "am", "o'clock", the clause's end, or a word of when
_AN_HOUR_SAID = (
    r"(?=\s*(?:[ap]\.?m\b|o['’]clock\b|[.,;!?)]|$)|\s+(?:every|each|daily|sharp|on|in|until|till|"
    r"and|to|weekdays)\b)"
)
_MOMENT = re.compile(
    r"\b(?:ago|recently|formerly|originally|initially|first|before|after|during|until|since|"
    r"when|once|then)\b"
    r"|\b(?:last|next|this|that|the\s+(?:same|following|previous))\s+"
    r"(?:week|month|year|night|quarter|sprint|release|spring|summer|autumn|fall|winter)\b"
    r"|\b(?:version|release|v)\s?\d|\b\d+\.\d+(?:\.\d+)*\b"
    # a month, an hour ("at 9", "at nine o'clock", "9 to 5"), a part of the day: an hour's
    # number ends its clause or is said to be one ("at 10 requests per second" is none)
    rf"|\b(?:in|from|by|until)\s+(?:early\s+|late\s+|mid-?)?(?:{'|'.join(MONTHS)})\b"
    r"|\bat\s+(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    rf"{_AN_HOUR_SAID}|\bat\s+(?:noon|midnight|dawn|dusk)\b"
    r"|\b(?:in\s+the\s+)?(?:morning|afternoon|evening)s?\b"
    rf"|\b\d{{1,2}}(?::\d\d)?\s*(?:to|until|till|-|–)\s*\d{{1,2}}(?::\d\d)?{_AN_HOUR_SAID}",
    re.IGNORECASE,
)


def states_moment(sentence: str) -> bool:
    """Whether ``sentence`` says when: a day, a time, how often, or another moment."""
    return (
        states_day(sentence)
        or states_time(sentence)
        or _FREQUENCY.search(sentence) is not None
        or _MOMENT.search(sentence) is not None
    )


def _states_duration(sentence: str) -> bool:
    return _DURATION.search(sentence) is not None or _DURATION_LABEL.search(sentence) is not None


def _states_amount(sentence: str) -> bool:
    return _states_duration(sentence) or _states_number(sentence)


# How a default is said, and a value it may be: a number, a literal ("`65536`", "'utf-8'"),
# or a word that is one ("disabled", "none")
_DEFAULT_SAID = re.compile(
    r"\bdefault(?:s|ed)?\b|\bunless\b|\botherwise\b|\bif\s+(?:not|none|unset|omitted)\b",
    re.IGNORECASE,
)
_VALUE = re.compile(
    r"\d|`[^`\n]+`|\"[^\"\n]+\"|'[^'\s]+'"
    r"|\b(?:true|false|yes|no|on|off|none|null|empty|enabled|disabled|unlimited)\b",
    re.IGNORECASE,
)


# A default said with its value in words: "The default branch is main.", "defaults to thirty
# seconds", "By default the theme is dark." (not "logging is suppressed by default", which says
# what happens, not what the default is)
_DEFAULT_IS = re.compile(
    r"\bdefault\s+(?:[\w-]+\s+){0,3}?(?:is|are|was)\s+\w"
    r"|\bdefault(?:s|ed)?\s+to\s+\w"
    r"|\bby\s+default\b,?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:is|are)\s+\w",
    re.IGNORECASE,
)


def _states_default(sentence: str) -> bool:
    """Whether ``sentence`` gives a default's value ("Defaults to `65536`", "The default
    branch is main.")."""
    if _DEFAULT_IS.search(sentence):
        return True
    return _DEFAULT_SAID.search(sentence) is not None and _VALUE.search(sentence) is not None


# The tests of a frame a number the question gives would pass
_COUNTS: frozenset[Statement] = frozenset({_states_number, _states_amount, _states_price})

# Each frame, and the test of a sentence that answers it
Statement = Callable[[str], object]
_FRAMES: tuple[tuple[re.Pattern[str], Statement], ...] = (
    (_DURATION_FRAME, _states_duration),
    (_LENGTH_FRAME, _states_amount),
    (_PRICE_FRAME, _states_price),  # before "how much": a frame term's first test holds
    (_QUANTITY_FRAME, _states_number),
    (_SIZE_FRAME, _states_number),
    (_FREQUENCY_FRAME, _FREQUENCY.search),
    (_DEFAULT_FRAME, _states_default),
    (_WHERE_FRAME, states_place),
    *TYPE_FRAMES,  # "what city", "which port": the kind of value asked for
)
Frame = dict[str, Statement]  # a frame term -> the test of a sentence that says it


# Words that make a request, compared by index term, so "Explaining" and "works" count too.
# Not "mean" ("the mean latency") nor "use" ("which engine do we use"): they are topics as often.
REQUEST_WORDS = (
    "explain describe tell summarize summarise summary give get show list find know want need "
    "please meant happen work example detail define acronym abbreviation instructions"
)
_WORD = re.compile(r"[^\W_]+(?:['’./-][^\W_]+)*")  # "on-call", "notes.md" whole
# What an abstention may name: plain words, never one with digits or of token length (a
# credential the secret rules miss is such a word), at most MAX_NAMED of them.
_NAMEABLE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
MAX_NAME_CHARS = 32
MAX_NAMED = 5


@functools.cache
def _request_terms() -> frozenset[str]:
    return terms(REQUEST_WORDS)


# Verbs a question leans on that an answer need not say, nor a shard mention: "What port does
# Postgres use?" is answered by "... the Postgres cluster on port 5433", "How many eggs go
# into shakshuka?" by "- 4 eggs"; and words asking for the value in force, which is the one a
# shard states ("the current session lifetime": "Sessions last 14 days")
LIGHT_VERBS = "use uses used using have has had go goes went going gone current currently latest"


@functools.cache
def light_verb_terms() -> frozenset[str]:
    return terms(LIGHT_VERBS)


# The most words of a question asked as a person asks one ("Who is the manager of the person
# who approves production hotfixes?": 11); a longer text (a paper's abstract) asked as a
# question is read for its topic
_ASKED_WORDS = 16


def asked_as_a_person(question: str) -> bool:
    """Whether ``question`` is short as one a person asks (``_ASKED_WORDS`` words at most)."""
    return len(question.split()) <= _ASKED_WORDS


# Verbs that add nothing to the kind of value a question frames: a port is what a service
# "listens on", "runs on" or "serves on" alike, a place where one is "based" or "works"
_FRAME_VERBS = (
    ("port", "listen run serve bind expose"),
    ("city location", "base live work sit"),
    ("language", "write written implement code build built use"),
)


@functools.cache
def _frame_verbs() -> dict[str, frozenset[str]]:
    return {kind: terms(verbs) for kinds, verbs in _FRAME_VERBS for kind in terms(kinds)}


def frame_verb_terms(frame: Frame) -> frozenset[str]:
    """The terms of the verbs ``_FRAME_VERBS`` gives the kinds ``frame`` asks for."""
    verbs = _frame_verbs()
    return frozenset().union(*(verbs[term] for term in frame if term in verbs))


def without_light_verbs(text: str) -> str:
    """``text`` less its light verbs (``LIGHT_VERBS``)."""
    return _WORD.sub(lambda m: " " if _light_only(m[0]) else m[0], text)


def _light_only(word: str) -> bool:
    said = terms(word)
    return bool(said) and said <= light_verb_terms()


def _requests_only(word: str) -> bool:
    said = terms(word)
    return bool(said) and said <= _request_terms()


# "What does PITR mean?", "What does SLA stand for?", "What do we mean by PITR?": a request
# for a definition, whose answer need not say "mean" (a topic elsewhere: "the mean latency").
_MEAN_BY = r"(\bwhat\s+(?:does|do|did)\s+\w+\s+)mean(\s+by\b)"
_DEFINITION = re.compile(
    r"(\bwhat\s+(?:does|do|did)\s.+?)\b(?:mean|stand\s+for)(\W*)$|" + _MEAN_BY,
    re.IGNORECASE | re.DOTALL,
)


_MEANING_AT_END = re.compile(r"\b(?:mean|stand\s+for)\W*$", re.IGNORECASE)
_DEFINITION_BY = re.compile(_MEAN_BY, re.IGNORECASE)


# "What are the steps to restore a backup?": the answer is the procedure, which need not say
# "steps" ("How many steps does the onboarding have?" is about steps).
_PROCEDURE = re.compile(r"\b(?:steps?|procedure|process)\s+(?=(?:to|for|of)\b)", re.IGNORECASE)


def defined_term(question: str) -> str | None:
    """The term a question asks the meaning of ("POD" of "What does POD mean?", "What does
    POD stand for?", "What is an SLO?"), or None. "What is X?" counts only for an acronym:
    of a common word it asks for more than a definition."""
    found = _MEANING.match(question) or _ACRONYM.match(question)
    return found.group("term") if found else None


_MEANING = re.compile(
    r"\s*what\s+(?:does|do|did)\s+(?:the\s+(?:term|word|acronym|abbreviation)\s+)?[\"'`*]*"
    r"(?P<term>[^\W_][\w./+-]*(?:\s+[^\W_][\w./+-]*){0,3}?)[\"'`*]*\s+(?:mean|stand\s+for)\W*$",
    re.IGNORECASE,
)
_ACRONYM = re.compile(
    r"\s*(?i:what)\s+(?i:is|are)\s+(?:(?i:an?)\s+)?(?P<term>[A-Z][A-Z0-9]{1,9})s?\W*$"
)


def _undefined(question: str) -> str:
    """``question`` less the words that ask for a definition (``_DEFINITION``) or for a
    procedure (``_PROCEDURE``)."""
    question = question.rstrip()
    # its first form ends the question: looked for from each "what does" of a question that
    # does not end so, it read the rest of the question every time
    definition = _DEFINITION if _MEANING_AT_END.search(question) else _DEFINITION_BY
    question = definition.sub(lambda m: "".join(g for g in m.groups() if g), question)
    return _PROCEDURE.sub("", question)


def asked_terms(question: str) -> frozenset[str]:
    """The terms an answer to ``question`` must say: its own, less the words of a request
    ("Explain how refunds work" asks about refunds; "What does PITR mean?" about PITR). The
    frame of "how long ... take" stays: a sentence giving a duration says it
    (``terms_said``)."""
    asked = terms(_undefined(question))
    return asked - _request_terms() or asked


def topic_text(question: str) -> str:
    """``question`` without the words that frame it or make a request: what it is about."""
    question = _FOREIGN_ASKING.sub(" ", _undefined(question), count=1)
    for asked, _ in _FRAMES:
        question = asked.sub(_unframed, question)
    return _WORD.sub(lambda m: " " if _requests_only(m[0]) else m[0], question)


# The word opening a question in the languages notes are often written in besides English
# ("Wer ist ...?", "¿Dónde ...?", "Когда ...?"): it asks, as "who" does, and no note says it
_FOREIGN_ASKING = re.compile(
    r"^\s*¿?\s*(?:wer|wen|wem|wessen|wann|wo|wohin|woher|wie|welche[rsmn]?|warum|wieso"
    r"|weshalb|qui|quoi|quand|où|pourquoi|quel(?:le)?s?|qué|quién(?:es)?|cuándo"
    r"|dónde|cómo|cuál(?:es)?|cuánt[oa]s?|quem|onde|quando|quanto|кто|что|где|когда|как"
    r"|какой|какая|какое|какие|почему|сколько|куда|ποιος|ποια|ποιο|τι|πού|πότε|πώς|γιατί"
    r"|kto|gdzie|kiedy|jaki|jaka|jakie|dlaczego|dove|dov'è|chi|cosa|cos'è|quale|quali|perché"
    r"|waar|wanneer|hoe|welke|waarom)(?=\s|[?,]|$)",
    re.IGNORECASE,
)


def _unframed(found: re.Match[str]) -> str:
    """The text a frame matched, less its words but "how" ("how long X take": "how X")."""
    start, end = found.span()
    text = found.string
    how = found.group("a")[:3].lower() == "how"
    kept = [text[start : found.start("a")], "how" if how else ""]
    if found.re.groupindex.get("b"):
        kept += [text[found.end("a") : found.start("b")], text[found.end("b") : end]]
    else:
        kept.append(text[found.end("a") : end])
    return "".join(kept)


_OWNER = re.compile(r"['’]s$")


def words_for(question: str, wanted: frozenset[str]) -> list[str]:
    """The plain words of ``question`` (``_NAMEABLE``) whose index terms are in ``wanted``,
    each once (whatever its case or ending), in order; at most ``MAX_NAMED``."""
    named: dict[frozenset[str], str] = {}
    for word in _WORD.findall(unicodedata.normalize("NFC", question)):
        said = terms(word) & wanted
        plain = len(word) <= MAX_NAME_CHARS and _NAMEABLE.fullmatch(word)
        if said and plain and said not in named:
            named[said] = _OWNER.sub("", word)  # "CEO" of "the CEO's name"
    return list(named.values())[:MAX_NAMED]


# The capitals of the alphabets that have them (Latin, Greek, Cyrillic, Armenian, Georgian
# and their extensions): "Zoë Müller" and "Zürich" are names as "Zoe Muller" is. (``re`` has
# no class of capitals; scripts without them, as Chinese, spell no name this way.)
_CAPITAL = "[" + re.escape("".join(c for c in map(chr, range(0x2000)) if c.isupper())) + "]"
# A capitalised word that does not start a line (nor a sentence: see ``_starts_sentence``):
# a name, a place, a product ("Oréal" of "l'Oréal")
_NAME = re.compile(r"(?<=[\s(\"'])(?<!\n)" + _CAPITAL + r"[\w'\-]*[^\W\d_]")


def named_terms(text: str, *, proper: bool = False) -> frozenset[str]:
    """The terms of the names in ``text`` ("Smith", "Enterprise"): a sentence that states
    a claim, or a value asked for, about one of them must carry it.

    Words in brackets explain the ones before them ("MEDLARS (Medical Literature Analysis
    ...)"), and a text in title case ("Performance Testing of a Book") names nothing. With
    ``proper``, only names spelt as those of people, places and things are ("Tokyo": a
    capital, then small letters): acronyms and symbols ("DNA", "IL-18", "N-oxide") name a
    topic rather than what a question is asked of.
    """
    text = _BRACKETED.sub(" ", text.strip())
    words = [w for w in _TITLE_WORD.findall(text)[1:] if len(w) > 3]
    if len(words) >= _TITLE_WORDS and all(w[0].isupper() for w in words):
        return frozenset()
    names = [m.group() for m in _NAME.finditer(text) if not _starts_sentence(text, m.start())]
    first = _FIRST_OF_TWO.match(text)  # "Lena Park owns...": a name, though it starts
    if first and _capitalised(first.group(2)):
        names.append(first.group(1))
    if proper:  # a day is when, not what is asked of ("the Dublin office on Saturdays")
        names = [w for w in names if _proper(w) and w.lower().rstrip("s") not in _DAYS]
    return terms(" ".join(names))


_DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


def identifier_terms(text: str) -> frozenset[str]:
    """The terms of the hyphenated identifiers in ``text``: a sentence stating something of
    one must name it, as one stating something of a person must name them."""
    return terms(" ".join(m.group() for m in IDENTIFIER.finditer(text)))


def identifiers_in_place(text: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Each hyphenated identifier of ``text`` with where it stands: ``(its terms, the terms of
    the words either side)``; "the billing-worker service" stands where "the search-api
    service" does (``service``), and names another service."""
    found = []
    for m in IDENTIFIER.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()].split()[-1:]
        after = text[m.end() : m.end() + 40].split()[:1]
        found.append((terms(m.group()), terms(" ".join(before + after))))
    return found


_TITLE_WORDS = 5  # fewer words do not tell a title from a question about two names


def _starts_sentence(text: str, at: int) -> bool:
    """Whether the word at ``at`` opens a sentence ("Coding" of "Of matching. Coding
    methods."), not one after an abbreviation ("Smith" of "Dr. Smith")."""
    before = text[max(0, at - 40) : at].rstrip()  # the word before is all that tells
    return before.endswith((".", "!", "?", ":", ";")) and not ends_in_abbreviation(before)


_FIRST_OF_TWO = re.compile("(" + _CAPITAL + r"[\w'\-]*[^\W\d_])\s+(?=([^\W\d_]{2}))")
_PROPER_SHAPE = re.compile(r"[^\W\d_]{3,}(?:['’][^\W\d_]+)?")


def _capitalised(word: str) -> bool:
    """A capital, then a small letter ("Park", "Øst")."""
    return word[:1].isupper() and word[1:2].islower()


def _proper(word: str) -> bool:
    """Spelt as a name of a person, place or thing: a capital, then small letters ("Tokyo",
    "Müller", "Rossi's"), not an acronym ("DNA") nor a symbol ("IL-18")."""
    rest = word[1:].replace("’", "").replace("'", "")
    return _PROPER_SHAPE.fullmatch(word) is not None and word[0].isupper() and rest.islower()


# A product's name in humps ("PostgreSQL", "GitHub", "NumPy"), not a symbol ("RhoA", "PrP",
# "HeLa")
_HUMPED = re.compile(r"(?<![\w-])[A-Z][a-z]{2,}(?:[A-Z][A-Za-z]+)+(?![\w-])")


def product_terms(text: str) -> frozenset[str]:
    """The terms of the products ``text`` names in humps: asked of, as a proper name is (a
    sentence about another program's port says nothing of PostgreSQL's)."""
    return terms(" ".join(_HUMPED.findall(text)))


_BRACKETED = re.compile(r"\([^()]*\)")
_TITLE_WORD = re.compile(r"[^\W\d_][\w'\-]*")


def frame_of(question: str, wanted: frozenset[str] | None = None) -> Frame:
    """The terms of ``question`` that frame it ("long", "take"; "many"), each with what a
    sentence must state to say it; empty for most questions. Only terms in ``wanted`` when
    given."""
    frame: Frame = {}
    given = frozenset(_NUMBER_IN_TEXT.findall(question))
    for asked, stated in _FRAMES:
        for found in asked.finditer(question):
            words = " ".join(found.group(g) for g in asked.groupindex)
            if given and stated in _COUNTS:
                stated = _not_counting(stated, given)
            for term in terms(words):
                if wanted is None or term in wanted:  # "how long ... take" before "how long"
                    frame.setdefault(term, stated)
    return frame


# A number written in figures ("2.0", "1,500")
_NUMBER_IN_TEXT = re.compile(r"\d+(?:[.,]\d+)*")


def _not_counting(stated: Statement, given: frozenset[str]) -> Statement:
    """``stated``, blind to the numbers the question gives: "How many contributors worked on
    Kestrel 2.0?" is not answered by "Kestrel 2.0 is out", whose only number it asked of."""
    pattern = re.compile(r"(?<![\d.,])(?:" + "|".join(map(re.escape, given)) + r")(?![\d]|[.,]\d)")
    return lambda sentence: stated(pattern.sub(" ", sentence))


def frame_phrases(question: str) -> list[str]:
    """How ``question`` frames what it asks, as it says it ("how many"), each once."""
    found = (m.group("a") for asked, _ in _FRAMES for m in asked.finditer(question))
    phrases = (" ".join(phrase.lower().split()) for phrase in found)
    # "how many", "where" as asked; a kind of value as "which port"; "the default"
    asked = (
        p if p.startswith(("how", "where")) else "the default" if p == "default" else f"which {p}"
        for p in phrases
    )
    return list(dict.fromkeys(asked))


def states_frame(sentence: str, frame: Frame) -> bool:
    """Whether ``sentence`` states what some part of ``frame`` asks (a duration, a number)."""
    sentence = plain_label(sentence)
    return any(stated(sentence) for stated in set(frame.values()))


def terms_said(sentence: str, wanted: frozenset[str], frame: Frame) -> frozenset[str]:
    """The ``wanted`` terms ``sentence`` says: a sentence giving a duration says the question's
    frame terms "long" and "take" too, one giving a number says "many"; one naming the
    owner says who owns (``_AGENT_NOUNS``), one saying "written" says "wrote" (``_IRREGULAR``)."""
    shown = as_shown(sentence)
    found, alike = terms(shown) | compounds_split(shown) | spelt_otherwise(shown), said_alike()
    too = says_too()
    said = wanted & found.union(
        *(alike[term] for term in found & alike.keys()), *(too[t] for t in found & too.keys())
    )
    # where a link leads says its own words ("the [runbook](db-failover.md)": failover, for
    # "Where is the failover runbook?"), not what they stand for ("db" is no "database")
    if shown != sentence:
        said |= wanted & terms(sentence)
    if not frame:
        return said
    # a frame's term is said by what it asks for, not by its word ("the budget review")
    plain = plain_label(sentence)
    return said - frame.keys() | {term for term, stated in frame.items() if stated(plain)}


# A verb and its particle written as one word, where the word is also said as the verb
# ("fail over", "roll out"); not "checkout", "setup" or "timeout", which name things
_COMPOUND = re.compile(
    r"\b(fail)overs?\b|\b(roll)(?:outs?|backs?)\b|\b(back)ups?\b|\b(shut)downs?\b"
    r"|\b(clean)ups?\b|\b(sign)ups?\b",
    re.IGNORECASE,
)


def compounds_split(text: str) -> frozenset[str]:
    """The terms of the verbs ``text`` writes joined to their particle: "fail" of "failover",
    "roll" of "rollout", so that "How do I fail over ...?" is said by "Announce the failover"
    (the particles are stopwords, and the joined word a term of its own)."""
    return terms(" ".join(next(filter(None, m.groups())) for m in _COMPOUND.finditer(text)))


# Nouns of the one who does a thing that the stemmer leaves whole ("owner" is no "own"), with
# the verb: a sentence naming the owner says who owns, and one saying who owns names the owner
_AGENT_NOUNS = (
    ("owner", "owns"),
    ("leader", "leads"),
    ("writer", "writes"),
    ("builder", "builds"),
    ("holder", "holds"),
    ("keeper", "keeps"),
    ("speaker", "speaks"),
    ("teacher", "teaches"),
    ("seller", "sells"),
    ("buyer", "buys"),
)


@functools.cache
def _agents() -> dict[str, frozenset[str]]:
    return paired_terms(_AGENT_NOUNS)


# The forms of verbs the stemmer does not bring together: a sentence saying "written" says
# "wrote" of "Who wrote the runbook?"
_IRREGULAR = (
    "write wrote written",
    "make made",
    "build built",
    "lead led",
    "run ran",
    "begin began begun",
    "choose chose chosen",
    "give gave given",
    "take took taken",
    "sell sold",
    "buy bought",
    "pay paid",
    "hold held",
    "keep kept",
    "find found",
    "send sent",
    "teach taught",
    "bring brought",
    "speak spoke spoken",
    "break broke broken",
    "draw drew drawn",
    "drive drove driven",
    "know knew known",
    "win won",
    "meet met",
    "leave left",
    "get got gotten",
    "see saw seen",
    "freeze froze frozen",
    "throw threw thrown",
    "grow grew grown",
    "fall fell fallen",
    "lose lost",
    "tell told",
    "say said",
    "think thought",
    "catch caught",
    "spend spent",
    "forget forgot forgotten",
    "hide hid hidden",
    "shake shook shaken",
    "understand understood",
)


# Words engineers write cut short, and in full: a note's "max_file_size" says the "maximum"
# a question asks about, and "the repo" the "repository"
_SHORT_FORMS = (
    "max maximum",
    "min minimum",
    "config configuration",
    "repo repository",
    "env environment",
    "db database",
    "docs documentation",
    "app application",
    "info information",
    "stats statistics",
    "prod production",
    "admin administrator",
    "spec specification",
    "dir directory",
)


@functools.cache
def _forms() -> dict[str, frozenset[str]]:
    return {term: terms(forms) for forms in (*_IRREGULAR, *_SHORT_FORMS) for term in terms(forms)}


# What a word says besides itself, one way only: what was bought or paid for a sum cost it
# ("Bought a camera for 1,399 EUR" says what it cost), but a cost says no one bought it; a
# price says what a thing costs (a table's price column)
_SAYS_TOO = (("buy bought pay paid price priced", "cost"), ("buy bought", "pay"))


@functools.cache
def said_alike() -> dict[str, frozenset[str]]:
    """Each term with the terms that say it in other words: its verb's other forms ("led" of
    "leads") and the noun of the one who does it ("leader" of "leads", and back)."""
    agents, forms = _agents(), _forms()
    return {t: agents.get(t, frozenset()) | forms.get(t, frozenset()) for t in {*agents, *forms}}


@functools.cache
def says_too() -> dict[str, frozenset[str]]:
    """Each term with what it says besides itself, one way only (``_SAYS_TOO``)."""
    out: dict[str, frozenset[str]] = {}
    for words, said in _SAYS_TOO:
        for term in terms(words):
            out[term] = out.get(term, frozenset()) | terms(said)
    return out


@functools.cache
def said_by() -> dict[str, frozenset[str]]:
    """Each term with the words that say it one way only (``says_too`` read back)."""
    out: dict[str, frozenset[str]] = {}
    for term, said in says_too().items():
        for other in said:
            out[other] = out.get(other, frozenset()) | {term}
    return out


def verb_forms(verb: str) -> frozenset[str]:
    """The terms of ``verb`` in each of its forms ("write", "wrote", "written" of "wrote")."""
    said = terms(verb)
    forms = _forms()
    return said.union(*(forms[term] for term in said & forms.keys()))


def paired_terms(
    pairs: Iterable[tuple[str, str]],
    spelt: Callable[[str], frozenset[str]] = terms,
) -> dict[str, frozenset[str]]:
    """Each term of either side of ``pairs`` (words, space-separated) with the terms of the
    other side: a table of words that stand for each other, or against each other. ``spelt``
    gives a side's terms (index terms by default; the words as written, for stopwords)."""
    table: dict[str, frozenset[str]] = {}
    for one, other in pairs:
        ones, others = spelt(one), spelt(other)
        for term in ones:
            table[term] = table.get(term, frozenset()) | others
        for term in others:
            table[term] = table.get(term, frozenset()) | ones
    return table
