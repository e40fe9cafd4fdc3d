"""Questions that name the kind of value they ask for: "What city ...", "Which port ...",
"What is Jonas's email address?".

The noun names the answer's type, not its topic: a note answers "What city is the office in?"
with "Our office is in Lisbon", never saying "city". Each such noun is a frame
(``questions.frame_of``): it is not looked up, not counted as a word the shard never mentions,
and a sentence says it when it states a value of that kind (an address with an @ for
"email", a number that may be a port or a harbour's name for "port", a capitalised name after
"in" or "from" for "city", a clock or a time of day for "time"). Kinds often answered in any
words ("What is the fee?" "Waived.") are said by every sentence: the noun is only not asked of
the evidence.

Only a noun right after "what" or "which" (with "is the", "'s", a possessive between) frames
a question: "Which database does the city team use?" is about the city team.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Statement = Callable[[str], object]

# The months by name, in their order
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")
_DAY = re.compile(
    rf"\b{_WEEKDAY}s?\b|\b(?:today|tomorrow|yesterday)\b|\b{_MONTH}\s+\d"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|\b\d{{4}}-\d\d-\d\d\b"
    r"|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\b",
    re.IGNORECASE,
)
# (looked for from the start of a local part only: the first one found is the same, and
# whether there is one is all that is asked; tried from each character of a long word, the
# search read the rest of the word each time)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_WEB = re.compile(r"\bhttps?://|\bwww\.")
_DIGIT = re.compile(r"\d")


def _anything(_sentence: str) -> bool:
    return True


# A place named after a word that places ("in Lisbon", "in the Netherlands", "from Dublin",
# "at [Kestrel Ridge](sites/kr.md)", "the city is Lisbon"; not "cleaned by Facilities", nor a
# title, "Office practicalities")
_PLACE_WORDS = r"location|city|country|town|place|office|site|region|base|based|hq|headquarters"
_PLACE = re.compile(
    r"(?i:\b(?:in|at|from|near|to)\s+(?:the\s+)?"
    rf"|\b(?:{_PLACE_WORDS})\s+is\s+(?:(?:in|at)\s+)?(?:the\s+)?)[\[*_]*([^\W\d_][\w'’-]*)"
)
# A place's label, whatever its value ("Location: server room SR-2", "Office: Berlin")
_PLACE_LABEL = re.compile(rf"(?i:\b(?:{_PLACE_WORDS}))[ \t]*:[ \t]*[\[*_`]*[^\W_]")
# A time said in words too ("after lunch", "in the morning") or on a clock
_TIME = re.compile(
    r"\b\d{1,2}[:.h]\d\d\b|\b\d{1,2}\s*[ap]\.?m\b|\b(?:noon|midday|midnight|morning|afternoon|"
    r"evening|night|lunch|breakfast|dinner|eod|end of (?:the )?day|sunrise|sunset)\b",
    re.IGNORECASE,
)
# A version named in words ("the latest release") or by its number
_VERSION = re.compile(r"\d|\b(?:latest|newest|current|oldest|previous|stable|lts)\b", re.I)


def states_place(sentence: str) -> bool:
    """Whether ``sentence`` names a place after a word that places it (``_PLACE``), or under
    a label (``_PLACE_LABEL``)."""
    if _PLACE_LABEL.search(sentence):
        return True
    return any(_a_place_name(m.group(1)) for m in _PLACE.finditer(sentence))


# A path to a file or folder: "~/.aws/credentials", "/etc/hosts", "./config", "C:\\Users"
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.-]+/?[\w./-]*|\b[A-Za-z]:\\\w")


def _place_or_path(sentence: str) -> bool:
    """Whether ``sentence`` names a place, or a file's path: a location asked of a file or a
    setting is one ("the default location of the credentials file")."""
    return states_place(sentence) or _PATH.search(sentence) is not None


# Initials that name places; others name systems ("back-filled from the RTUs", "to the API")
_PLACE_INITIALS = frozenset({"UK", "US", "USA", "EU", "UAE", "NYC", "DC"})
_INITIALS = re.compile(r"[A-Z]{2,}s?")


def _a_place_name(word: str) -> bool:
    """Whether ``word`` (after a word that places) may name a place: capitalised, not
    initials other than a place's, nor a month or a day ("joined in March")."""
    if word in _PLACE_INITIALS:
        return True
    if not word[:1].isupper() or _TIME_NAME.fullmatch(word):
        return False
    return _INITIALS.fullmatch(word) is None


def _names_a_harbour(sentence: str) -> bool:
    """Whether ``sentence`` names a harbour: "Home port: Skelby" (``_HARBOUR``), or a place
    not spelt as a product ("based in Skelby", not "upgraded to PostgreSQL 15", which says
    where as much as "stored in S3" does, but is no port)."""
    if _HARBOUR.search(sentence):
        return True
    placed = (found.group(1) for found in _PLACE.finditer(sentence))
    return any(_a_place_name(word) and not _PRODUCT.match(word) for word in placed)


# A capital or a digit after a word's first letter ("MySQL", "GitLab", "K8s"): no place is
# spelt so but after the prefixes of names ("McAllen", "DeKalb", "LaGrange")
_PRODUCT = re.compile(r"(?!(?:Mc|Mac|De|Di|Da|Du|La|Le|Van|St)[A-Z]).[^\W\d_]*[A-Z0-9]")
# A month or a day by its name, whole or shortened ("March", "Aug.", "Mondays"), not a place
# that begins like one ("Marseille", "Augsburg")
_TIME_NAME = re.compile(
    rf"(?:{'|'.join(MONTHS)}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?"
    rf"|{_WEEKDAY}s?",
    re.IGNORECASE,
)


def _port(sentence: str) -> bool:
    """A network port, or a harbour, which is a place: "which port" asks for either ("In which
    port is the head of Marine Engineering based?"). A port is said by the word ("port 8443",
    "SERVER_PORT=8080"), or by a number that may be one ("listens at 8443", "db-01:5432",
    "TCP 9102"), not by any digit: "PostgreSQL 12", "Elasticsearch 8", "eu-west-1", "04:00"
    and "every 30 minutes" answered "which port"."""
    if _NAMED_PORT.search(sentence) or _names_a_harbour(sentence):
        return True
    return any(_may_be_a_port(sentence, found) for found in _PORT_NUMBER.finditer(sentence))


# The word and a number within a few words: "port 8443", "Ports: 80, 443", "DB_PORT: 5432"
_NAMED_PORT = re.compile(r"(?<![^\W_])ports?\b\D{0,20}\d", re.IGNORECASE)
# A harbour named as one: "Home port: Skelby", "the port of Lunde", "its port is Orran Isle"
_HARBOUR = re.compile(r"(?i:\bport(?:[ \t]*:|[ \t]+(?:is|of)))[ \t]+[A-Z][a-z]")
# Two to five digits on their own, or after a host and a colon: not part of a word, a decimal,
# a grouped number, a range or a share ("v2", "1.25", "4,200", "10-20", "50%")
_PORT_NUMBER = re.compile(r"(?:(?<=:)|(?<![\w.,:-]))\d{2,5}(?![\w%-]|[.,:]\d)")
# "04:00" is a time ("10.0.0.1:8080", "db-01:5432" and ":8080" are not)
_HOUR_BEFORE = re.compile(r"(?<![\w.-])\d{1,2}:$")
# A product's name before its version ("PostgreSQL 12", "uses Postgres 15"): capitalised, not
# initials ("TCP 9102", "EXPOSE 8443"), and not a sentence's first word ("Use 5173 for ...")
_PRODUCT_BEFORE = re.compile(r"(?<=[^\s.!?:]\s)[A-Z][a-z][\w-]*\s+$")
_UNIT_AFTER = re.compile(
    r"\s*(?:[kmgtp]i?b|bytes?|ms|s|secs?|seconds?|mins?|minutes?|hours?|hrs?|days?|weeks?|"
    r"months?|years?|percent|times|x|items?|users?|requests?|rows|lines|files|nodes|"
    r"replicas|cores|cpus?|gpus?)\b",
    re.IGNORECASE,
)


def _may_be_a_port(sentence: str, found: re.Match[str]) -> bool:
    """Whether the number ``found`` may be a port: within the range, not a year after a word
    that dates, a time, a product's version or an amount of a unit."""
    start, end = found.span()
    if not 1 <= int(found.group()) <= 65535:
        return False
    before = sentence[max(0, start - 40) : start]
    if _YEAR.fullmatch(found.group()) and _DATE_BEFORE.search(before):
        return False  # "formed in 2021", "since March 2023"; not "NFS on 2049"
    if _HOUR_BEFORE.search(before) or _PRODUCT_BEFORE.search(sentence, max(0, start - 40), start):
        return False
    return _UNIT_AFTER.match(sentence, end) is None


# What comes before a year: a word that dates, or a month
_DATE_BEFORE = re.compile(
    rf"\b(?:in|since|by|until|till|from|of|during|before|after|circa|year|{_MONTH})\s+$",
    re.IGNORECASE,
)


def _email(sentence: str) -> bool:
    return _EMAIL.search(sentence) is not None


def _address(sentence: str) -> bool:
    """An e-mail or web address, or a street or network address (which holds a digit)."""
    return any(found.search(sentence) for found in (_DIGIT, _WEB, _EMAIL))


def _phone(sentence: str) -> bool:
    """A run of seven digits or more, perhaps spaced, dashed or bracketed: "+49 30 1234567",
    "(555) 010-4477" (not a year, a port or a count)."""
    return any(len(_DIGIT.findall(m.group())) >= 7 for m in _PHONE.finditer(sentence))


_PHONE = re.compile(r"\+?\(?\d[\d ().\-]{5,}\d")


# Currency codes (ISO 4217) prices are most often written in; not every three capitals
# ("17:00 UTC", "2 CPU cores", "3 AWS regions")
_CURRENCY_CODES = (
    "USD EUR GBP JPY CHF CAD AUD NZD SEK NOK DKK ISK PLN CZK HUF RON BGN INR CNY HKD SGD KRW "
    "TWD BRL MXN ARS CLP ZAR TRY RUB UAH ILS AED SAR QAR THB IDR MYR VND NGN KES EGP"
).split()
_CODE = "|".join(_CURRENCY_CODES)
_CURRENCY_SIGNS = "$€£¥₹₽₩₺₪฿₫₦₱"
_CURRENCY_NAMES = r"dollars?|euros?|pounds?|quid|yen|yuan|rupees?|francs?|kron(?:a|or|er|e)|pesos?"
# A sum with no sign before it: in thousands or millions ("40k", "2.4 million"), or with a
# currency's code ("300 USD", "CHF 1200", "Rs. 500")
_SUM = (
    rf"\d\s*(?:k|m|bn|million|thousand|billion|kr)\b"
    rf"|(?-i:\b(?:{_CODE})\s*\d|\d\s*(?:{_CODE})\b)|\brs\.?\s*\d"
)
# What states a charge: money ("€12,000", "40k", "300 USD", "CHF 1200", "450 dollars"), a share
# or a rate ("2.9%", "per seat", "a year", "billed monthly"), or words for one ("waived", "free
# for members", "included in the plan"). Not a number alone: a record's "tier: 2" or a clock's
# "14:00" says nothing of what a thing costs.
_CHARGE = re.compile(
    rf"[{_CURRENCY_SIGNS}¢%]|{_SUM}"
    rf"|\b(?:{_CURRENCY_NAMES}|"
    r"cents?|pence|free|waived|included|gratis|no\s+charge|costs?|pric(?:e|es|ed|ing)|"
    r"fees?|charged?|charges|pays?|paid|billed|rates?|commissions?|surcharges?|"
    r"budget(?:ed)?|subscriptions?|licen[cs]e[ds]?|annually|monthly|quarterly|"
    r"per\s+(?!(?:the|se)\b)[a-z]+"
    r"|(?:a|an|each)\s+(?:month|year|quarter|week|day|hour|night|seat|user|head))\b",
    re.IGNORECASE,
)


def _charge(sentence: str) -> bool:
    return _CHARGE.search(sentence) is not None


# What states a sum of money: the sums of a charge, with a number ("€12,000", "150,000 EUR",
# "2.4 million", "450 dollars"). A budget is said by its amount: a sentence that only uses the
# word ("discussed the budget review") says none.
_MONEY = re.compile(rf"[{_CURRENCY_SIGNS}]\s*\d|{_SUM}|\d\s*(?:{_CURRENCY_NAMES})\b", re.IGNORECASE)


def states_money(sentence: str) -> bool:
    """Whether ``sentence`` states a sum of money (``_MONEY``)."""
    return _MONEY.search(sentence) is not None


def states_day(sentence: str) -> bool:
    """Whether ``sentence`` gives a day or a year (``_DAY``, ``_YEAR``)."""
    return _DAY.search(sentence) is not None or _YEAR.search(sentence) is not None


def states_time(sentence: str) -> bool:
    """Whether ``sentence`` gives a time of day, on a clock or in words (``_TIME``)."""
    return _TIME.search(sentence) is not None


# "It is written in Go.", "language: Kotlin", "The worker uses Rust.": which language, rarely
# the word itself. What code is written in is a name ("written in 2019", "in the wiki" are
# not); a language's name counts after "uses", "in" or "with" and not as a person's first name
# ("Ruby Chen") nor anywhere else ("click Go", "uses PagerDuty")
_LANGUAGE_NAMES = (
    "Go|Golang|Rust|Kotlin|Java|Python|TypeScript|JavaScript|Ruby|Scala|Swift|Elixir|Erlang|"
    "PHP|Haskell|Clojure|Perl|Lua|Dart|Julia|Zig|OCaml|Groovy|Objective-C|C\\+\\+|C#|F#|"
    "Node\\.js|Bash|PowerShell|COBOL|Fortran|Crystal|Nim"
)
_LANGUAGE = re.compile(
    r"\b(?:written|implemented|coded)\s+in\s+(?-i:[A-Z])"
    r"|\blanguages?(?:\s*[:=]\s*\w|\s+(?:is|was)\s+(?-i:[A-Z]))"
    rf"|\b(?:uses?|using|with|in)\s+(?-i:{_LANGUAGE_NAMES})(?![\w-]|\.\w|\s+(?-i:[A-Z]))",
    re.IGNORECASE,
)


# "Which university has the largest wind tunnel?": an organisation is named, by a word of its
# kind ("the University of Michigan", "Acme Inc.") or by a name written with a capital past a
# sentence's first word ("built by Boeing"); a sentence of wind tunnels naming none answers not
_ORGANISATION_WORD = re.compile(
    r"\b(?:universit(?:y|ies)|college|institute|academy|laborator(?:y|ies)|agency|company|"
    r"corporation|inc|ltd|llc|gmbh|plc|foundation|consortium)\b",
    re.IGNORECASE,
)


def _organisation(sentence: str) -> bool:
    if _ORGANISATION_WORD.search(sentence):
        return True
    return any(word[:1].isupper() for word in sentence.split()[1:])


# Each kind of value, as questions name it, and the test of a sentence that states one
# (longer names first: "email address" before "address").
_KINDS: tuple[tuple[str, Statement], ...] = (
    (r"e-?mail(?:\s+address)?", _email),
    (r"(?:ip|street|postal|mailing)\s+address|address", _address),
    (r"(?:phone|telephone|mobile)(?:\s+number)?", _phone),
    (r"number", _DIGIT.search),
    (r"port", _port),
    (r"years?", _YEAR.search),
    (r"date|day|weekday", states_day),
    (r"city|town|country|place", states_place),
    (r"location", _place_or_path),
    (r"time", states_time),
    (r"version", _VERSION.search),
    (r"price|cost|fee", _charge),
    (r"budget", states_money),
    # often answered in words ("orders_stg", "see the wiki"): said by every sentence, the noun
    # is only not asked of the evidence
    (r"name|value|handle|username|user\s+name|url|link|website", _anything),
    (r"(?:programming\s+)?language", _LANGUAGE.search),
    (r"university|college|institute|company|organi[sz]ation|vendor|supplier|agency", _organisation),
)
# "what", "which", "in what", "what is the", "what's our", "what is Jonas Weber's"
_ASKS = (
    r"\b(?:what|which)(?:['’]s|\s+(?:is|was|are|were))?(?:\s+(?:the|our|your|their|its|his|her))?"
    r"|\bwhat(?:['’]s|\s+(?:is|was|are|were))\s+(?:[\w.-]+\s+){0,3}?[\w.-]+['’]s?"
    r"(?:\s+[\w-]+(?=\s+(?:handle|username|user\s+name)\b))?"  # "Lena's Slack handle"
)


# What follows the noun when it ends its phrase: "what time is", "what time?", but not "what
# time zone" (a question about a zone)
_NOUN_ENDS = (
    r"(?=\s*(?:[?.!,;:)]|$)|\s+(?:is|are|was|were|does|do|did|will|would|should|can|could|has|"
    r"have|had|of|for|in|on|at|to|from|with|by|we|i|you|they|he|she|it|our|the|an?|this|that|"
    r"these|those|his|her|their|its|my|your)\b)"
)


# Up to two words that say which one before the noun: "the on-call phone number", "the main
# office address", "the Falcon budget" (after "the": "What is Lena's ..." is the possessive of
# _ASKS), none of them a kind's own ("email" of "email address" frames no address)
_KIND_WORDS = "|".join(kinds for kinds, _ in _KINDS)
_WHICH_ONE = (
    rf"(?:(?!(?:{_KIND_WORDS})\b)(?-i:[a-z][a-z-]*)\s+){{0,2}}?"
    rf"|(?<=the\s)(?:(?!(?:{_KIND_WORDS})\b)(?-i:[A-Za-z][a-z-]*)\s+){{1,2}}?"
)


def _frame(kinds: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{_ASKS})\s+(?:{_WHICH_ONE})(?P<a>{kinds}){_NOUN_ENDS}", re.IGNORECASE)


TYPE_FRAMES: tuple[tuple[re.Pattern[str], Statement], ...] = tuple(
    (_frame(kinds), stated) for kinds, stated in _KINDS
)
