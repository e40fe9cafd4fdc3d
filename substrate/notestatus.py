"""The status a note gives itself: a decision record "Proposed", a page "Draft", a runbook
"Deprecated".

Such a note may say what is not (or no longer) done: an answer quoting it says so beside the
citation. Front matter gives it (``status: draft``), or a status line that ingestion reads as
front matter (``substrate.ingest.formats.statuslines``). Only a known word counts: a status
field holds many things ("status: 200" in an API note's front matter is no note's status),
and only a note's: a record's ``status`` column tells of what its row is about.
"""

from __future__ import annotations

import re

from substrate.item import SubstrateItem, place_value
from substrate.notedates import NOTE_FORMATS

# What a note may call itself, by its first word, when what it says is not (or not yet) in
# force ...
NOT_IN_FORCE = frozenset(
    "proposed draft wip rejected declined deprecated superseded withdrawn obsolete abandoned "
    "retired archived".split()
)
# ... of which those of a note never in force: a proposal, a draft, one turned down
NOT_YET_IN_FORCE = frozenset("proposed draft wip rejected declined withdrawn abandoned".split())
# ... and every status word it may give
STATES = NOT_IN_FORCE | frozenset(
    "accepted approved active adopted final current implemented".split()
)


def status_word(value: str) -> str | None:
    """The status ``value`` gives, as written ("Proposed" of "Proposed (2024-03)", "Accepted"
    of "Proposed -> Accepted"), or None when it is no status: a known status word, alone or
    followed by what tells of it (a date, a bracket, a reason after ":", "by ...", "in favour
    of ..."), not the first word of a phrase ("draft runbook, reviewed by Ana")."""
    for part in reversed(_LATEST.split(value)):  # the status now is the last one given
        said = " ".join(part.replace("*", " ").replace("_", " ").replace("`", " ").split())
        found = _STATUS_THEN.match(said.lstrip(">+- "))  # (a list or quote mark before it)
        if found is not None and found["word"].lower() in STATES:
            return found["word"]
    return None


# "Proposed -> Accepted", "Draft → Proposed"
_LATEST = re.compile(r"\u2192|->|=>")
# The status word, then the end, or what may follow a status without making it a phrase
_STATUS_THEN = re.compile(
    r"[(\[]?(?P<word>[A-Za-z]+)[)\]]?"
    r"(?:[ .,;!)\]]*$|[ ]*[(\[.,;:/\u2013\u2014-]|[ ]+v?\d|[ ]+[^\w\s]"
    r"|[ ]+(?i:in|by|on|since|as|until|pending|for|at|from|after|and|with|per|via|because)\b)"
)


def not_in_force(item: SubstrateItem) -> str | None:
    """The status of ``item``'s note when it says the note is not in force ("Proposed"),
    else None."""
    if place_value(item.provenance.get("format")) not in NOTE_FORMATS:
        return None
    value = item.payload.get("status")
    if not isinstance(value, str):
        return None
    word = status_word(value)
    return word if word is not None and word.lower() in NOT_IN_FORCE else None


def never_in_force(item: SubstrateItem) -> bool:
    """Whether ``item``'s note says it is a proposal, a draft or one turned down: not in force
    yet, so what it says it replaces still is."""
    status = not_in_force(item)
    return status is not None and status.lower() in NOT_YET_IN_FORCE


# A claim telling of a proposal, a draft or one turned down as such ("ADR-12 proposes moving
# secrets to Vault", "The gateway was turned down"), and not as come into force since ("was
# accepted"; "proposed to adopt" tells of the proposal)
_TOLD_AS_NOT_YET = re.compile(
    r"(?i)\b(?:propos|draft|suggest|consider|reject|declin|refus|withdr[ae]w|abandon|plan"
    r"|postpon|defer|scrap|shelve|cancel"
    r"|turn(?:ed|s)?\s+down|not\s+(?:approved|accepted|adopted|chosen)|(?:wip|might|could|would)\b)"
)
_TOLD_AS_IN_FORCE = re.compile(
    r"(?i)(?<!\bto\s)\b(?:accept(?:ed|s)?|approv(?:ed|es|al)|adopt(?:ed|s|ion)?|implemented)\b"
)
# ... but not so told: "not (yet) approved", "has not been adopted"
_NOT_DONE = re.compile(r"(?i)\bnot\s+(?:yet\s+|been\s+)*(?:accept|approv|adopt|implement)\w*")
# The sections of a proposal that tell of what is, not of what it proposes
_CONTEXT_HEADING = re.compile(
    r"(?i)\b(?:context|background|problem|motivation|current|today|status quo|as[- ]is"
    r"|situation|existing)\b"
)


def may_back(item: SubstrateItem, claim: str) -> bool:
    """Whether ``item`` may back ``claim``: a note never in force (a proposal, a draft, one
    turned down) backs only a claim that tells of it as such, not one stating what it
    proposes as done ("We moved secrets to Vault" of a proposal to move them); its sections
    telling of what is ("## Context") back any claim."""
    if not never_in_force(item) or _tells_what_is(item):
        return True
    told = _NOT_DONE.sub(" ", claim)
    return bool(_TOLD_AS_NOT_YET.search(claim)) and not _TOLD_AS_IN_FORCE.search(told)


def _tells_what_is(item: SubstrateItem) -> bool:
    section = item.provenance.get("section")
    heading = section.rsplit(" > ", 1)[-1] if isinstance(section, str) else ""
    return _CONTEXT_HEADING.search(heading) is not None
