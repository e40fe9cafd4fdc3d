"""Scopes given as one string are refused, not read as the set of its letters.

``"sales" in "salesandresearch"`` holds for a string: a reader's scopes given as one string
would have let the reader see every scope whose name is part of it, or (taken as letters)
nothing at all, silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import substrate as api
from substrate.errors import InvalidInputError
from substrate.item import SubstrateItem
from substrate.store import Substrate

WORDS = "the launch plan for the northern region"
AS_ONE_STRING = "salesandresearch"  # holds the name of the hidden scope


@pytest.fixture
def shard() -> tuple[Substrate, str]:
    store = Substrate(None)
    hidden = SubstrateItem("text", WORDS, scope="sales")
    store.put(hidden)
    store.put(SubstrateItem("text", WORDS + " (a copy)", id="own", scope="research"))
    return store, hidden.id


CALLS: dict[str, Callable[[Substrate, str, Any], object]] = {
    "iter_items": lambda s, i, sc: list(s.iter_items(scopes=sc)),
    "visible_item": lambda s, i, sc: api.visible_item(s, i, sc),
    "reader_view": lambda s, i, sc: api.reader_view(s, s.get(i), sc),
    "retrieve": lambda s, i, sc: api.retrieve(s, WORDS, scopes=sc),
    "multihop": lambda s, i, sc: api.multihop(s, WORDS, scopes=sc),
    "assemble_context": lambda s, i, sc: api.assemble_context(s, WORDS, scopes=sc),
    "answer_from_substrate": lambda s, i, sc: api.answer_from_substrate(
        s, WORDS, lambda q, c: q, scopes=sc
    ),
    "retrieve_action": lambda s, i, sc: api.retrieve_action(s, scopes=sc)("launch"),
    "check_factuality": lambda s, i, sc: api.check_factuality(s, WORDS, scopes=sc),
    "verify_lineage": lambda s, i, sc: api.verify_lineage(s, i, scopes=sc),
    "audit_substrate": lambda s, i, sc: api.audit_substrate(s, scopes=sc),
    "audit_shard": lambda s, i, sc: api.audit_shard(s, scopes=sc),
    "check_freshness": lambda s, i, sc: api.check_freshness(s, i, scopes=sc),
    "freshness_report": lambda s, i, sc: api.freshness_report(s, scopes=sc),
    "pending": lambda s, i, sc: api.pending(s, scopes=sc),
    "history": lambda s, i, sc: api.history(s, i, scopes=sc),
    "shard_status": lambda s, i, sc: api.shard_status(s, scopes=sc),
    "publish": lambda s, i, sc: api.publish(s, [i], to="public", scopes=sc),
    "propose": lambda s, i, sc: api.propose(s, [i], to="public", by="ana", scopes=sc),
    "approve": lambda s, i, sc: api.approve(s, i, by="ana", scopes=sc),
    "merge_versions": lambda s, i, sc: api.merge_versions(s, "own", i, scopes=sc),
    "Reasoner": lambda s, i, sc: api.Reasoner(None, substrate=s, scopes=sc),
    "assemble_for_receivers": lambda s, i, sc: api.assemble_for_receivers(s, WORDS, [], scopes=sc),
    "Space shared": lambda s, i, sc: api.Space(s, "research", shared=sc),
    "visible_scopes shared": lambda s, i, sc: api.visible_scopes("research", shared=sc),
}


@pytest.mark.parametrize("call", CALLS)
def test_scopes_given_as_one_string_are_refused(call: str, shard: tuple[Substrate, str]) -> None:
    store, hidden_id = shard
    with pytest.raises(InvalidInputError, match="not one string"):
        CALLS[call](store, hidden_id, AS_ONE_STRING)


@pytest.mark.parametrize("call", ["iter_items", "retrieve", "assemble_context"])
def test_scopes_as_any_collection_read_only_those_scopes(
    call: str, shard: tuple[Substrate, str]
) -> None:
    store, hidden_id = shard
    for scopes in (["research"], ("research",), {"research"}, frozenset({"research"})):
        shown = repr(CALLS[call](store, hidden_id, scopes))
        assert "'own'" in shown and hidden_id not in shown and "sales" not in shown


def test_shared_scopes_may_come_from_a_generator() -> None:
    space = api.Space(Substrate(None), "sales", shared=(s for s in ["public", "research"]))
    assert space.shared == ("public", "research")
    assert space.scopes == {"sales", "public", "research"}
    assert api.visible_scopes("sales", shared=(s for s in ["public"])) == {"sales", "public"}


def test_an_empty_string_for_the_shared_scopes_is_refused_too() -> None:
    with pytest.raises(InvalidInputError, match="not one string"):
        api.visible_scopes("research", shared="")
    assert api.visible_scopes("research", shared=None) == {"research"}
