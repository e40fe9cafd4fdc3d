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
    Regions"); "" when there is none, or when the sentence ``before`` it opens with another
    ("This week the ledger-api moved to Kubernetes. It now runs in eu-west-1.")."""
    if not THING_PRONOUN.match(sentence):
        return ""
    if title and (identifiers(title) or named_terms(title, proper=True)):
        thing = title
    else:
        thing = next(reversed(identifiers(heading)), "")
    named = terms(thing)
    if named <= terms(sentence):
        return ""
    # the subject of the sentence before, when it names another thing, is what "It" may stand
    # for ("This week the ledger-api moved ..."); a word further on is not ("Writes go through
    # a read-only replica.")
    opening = " ".join(before.split()[:_SUBJECT_WORDS])
    if any(not terms(other) <= named for other in identifiers(opening)):
        return ""
    return thing


_SUBJECT_WORDS = 4  # "This week the ledger-api"
