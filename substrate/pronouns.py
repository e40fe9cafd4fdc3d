"""Sentences that speak of their heading's thing by a pronoun: "It listens on port 8443." under
"## billing-worker" says that the billing-worker listens on port 8443. The answerer quotes such
a sentence with the thing it stands for, and the claim checks read it so.
"""

from __future__ import annotations

import re

from substrate.context.compress import terms
from substrate.identifiers import identifiers
from substrate.questions import named_terms

# A sentence opening with a pronoun for a thing; one for a person is left to
# ``compress.entry_of`` ("She approves ...")
THING_PRONOUN = re.compile(r"(?:it|its|they|their|this|these)\b", re.IGNORECASE)


def pronoun_for(heading: str, title: str, sentence: str, before: str = "") -> str:
    """What a sentence opening with a pronoun for a thing stands for, when the sentence does
    not name it: its heading ``title`` when that is a name ("Payments team", "billing-worker"),
    else the last identifier of its heading path (the "billing-worker" of "billing-worker >
    Regions"); "" when there is none, or when the sentence ``before`` it has another for its
    subject ("This week the ledger-api moved to Kubernetes. It now runs in eu-west-1.")."""
    if not THING_PRONOUN.match(sentence):
        return ""
    if title and (identifiers(title) or named_terms(title, proper=True)):
        thing = title
    else:
        thing = next(reversed(identifiers(heading)), "")
    named = terms(thing)
    if named <= terms(sentence):
        return ""
    subject = _subject_named(before)
    return "" if subject and not terms(subject) <= named else thing


# A sentence's subject is an identifier it opens with, or one after a determiner among its
# first words ("The ledger-api writes ...", "This week the ledger-api moved ..."); not one
# after a preposition or a verb ("Reads from the events-topic.", "Depends on payments-api.",
# "Calls auth-svc."), which is what the sentence's own subject does something with.
_DETERMINERS = frozenset("the this that our its their".split())
_PREPOSITIONS = frozenset(
    "from to on in into onto with for via of at by through over under about between against "
    "behind across after before".split()
)
_SUBJECT_WORDS = 4  # "This week the ledger-api"


def _subject_named(sentence: str) -> str:
    """The identifier ``sentence`` has for its subject, or ""."""
    words = [word.strip(".,;:!?()[]*_`") for word in sentence.split()[: _SUBJECT_WORDS + 1]]
    places = [0] + [
        at + 1
        for at, word in enumerate(words[:_SUBJECT_WORDS])
        if word.lower() in _DETERMINERS and (at == 0 or words[at - 1].lower() not in _PREPOSITIONS)
    ]
    for at in places:
        if at < len(words) and identifiers(words[at]):
            return words[at]
    return ""
