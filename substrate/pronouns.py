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


def pronoun_for(heading: str, title: str, sentence: str) -> str:
    """What a sentence opening with a pronoun for a thing stands for, when the sentence does
    not name it: its heading ``title`` when that is a name ("Payments team", "billing-worker"),
    else the last identifier of its heading path (the "billing-worker" of "billing-worker >
    Regions"); "" when there is none."""
    if not THING_PRONOUN.match(sentence):
        return ""
    if title and (identifiers(title) or named_terms(title, proper=True)):
        thing = title
    else:
        thing = next(reversed(identifiers(heading)), "")
    return "" if terms(thing) <= terms(sentence) else thing
