"""Items with many links or edges, chains of many steps, notes of many passages replacing
others, an answer's long quotes: what each costs grows with their count, not with its square
(or cube). A guard runs each at a count the old code took from 10 s to minutes over; the
behaviour itself is tested with each feature."""

from __future__ import annotations

import subprocess
import sys

from substrate import Substrate, SubstrateItem
from substrate.freshness import SupersessionIndex
from substrate.hops import HopChain, HopStep
from substrate.spaces import merge_versions


def test_a_merge_repoints_links_in_order_once_each_and_never_to_the_item_itself() -> None:
    s = Substrate()
    keep = s.add("text", "keep")
    other = s.add("text", "other", links=[keep])
    linker = s.add("text", "linker", links=["x", other, keep, "y", other])
    merge_versions(s, keep, other)
    linked = s.get(linker)
    assert linked is not None and linked.links == ["x", keep, "y"]
    merged = s.get(keep)
    assert merged is not None and keep not in merged.links and s.get(other) is None


def test_a_note_that_replaces_what_it_also_supersedes_is_told_once() -> None:
    index = SupersessionIndex()
    newer = SubstrateItem(
        kind="text",
        text="v2",
        links=["b"],
        provenance={"supersedes": ["a"], "replaces": ["a", "b", "c"]},
    )
    index.add(newer)
    assert [edge[0] for edge in index.edges["a"]] == ["supersedes"]
    assert index.edges["b"][0][0] == "replaces" and index.edges["b"][0][4] is True
    assert index.edges["c"][0][4] is False  # replaced, but not linked to


def test_each_step_of_a_chain_gives_its_path_from_its_seed() -> None:
    items = [SubstrateItem(kind="text", text=f"step {i}") for i in range(4)]
    steps = [HopStep(items[0], 0, "seed", None)]
    steps += [HopStep(items[i], i, "link", items[i - 1].id) for i in range(1, 4)]
    out = HopChain("q", steps).as_dict()
    assert [len(step["path"]) for step in out["steps"]] == [1, 2, 3, 4]
    assert out["steps"][3]["path"] == [item.id for item in items]


_MANY = """
from substrate import Substrate, SubstrateItem
from substrate.freshness import SupersessionIndex
from substrate.hops import HopChain, HopStep
from substrate.spaces import merge_versions

n = 40000
index = SupersessionIndex()
ids = [f"id{i}" for i in range(n)]
index.add(SubstrateItem(kind="text", text="v2", links=ids, provenance={
    "supersedes": ids[: n // 2], "replaces": ids[n // 2 :]}))

hub = SubstrateItem(kind="text", text="hub")
leaves = [SubstrateItem(kind="text", text=f"leaf {i}") for i in range(n // 2)]
steps = [HopStep(hub, 0, "seed", None)] + [HopStep(leaf, 1, "link", hub.id) for leaf in leaves]
HopChain("q", steps).as_dict()

s = Substrate()
keep = s.add("text", "keep")
other = s.add("text", "other")
s.add("text", "linker", links=[*ids, other])
merge_versions(s, keep, other)

from substrate.supersession import replaced_notes

def passages(source, n, **front):
    where = {"source": source, "path": f"/n/{source}", "format": "markdown"}
    return [SubstrateItem(kind="text", text=f"{source} {i}", payload=front, provenance=where)
            for i in range(n)]

# notes of 3,000 passages each, one superseding another, a third superseded by the first
notes = passages("a.md", 3000, supersedes="b") + passages("b.md", 3000)
assert len(replaced_notes(notes + passages("c.md", 3000, superseded_by="a"))) == 6000

from substrate.quotelines import lines_quoted

# a section of 3,000 words quoted whole, then cited: each lead walked to the end from each
# place of its word, it cost the cube of its length
words = [f"w{i % 37}" for i in range(3000)]
text = "\\n".join(" ".join(words[i : i + 12]) for i in range(0, 3000, 12))
section = SubstrateItem(kind="text", text=text, provenance={"line_start": 1, "line_end": 250})
assert lines_quoted(" ".join(words), section) == (1, 250)

from substrate.factuality import content_overlap

# a sentence passing over 20,000 things: each read with the rest of the sentence, it cost the
# square of its length
assert not content_overlap("replacing a " * 20000, "We use a for events.")

from substrate.ingest.sources import SourceCache

# the ingest's cache of a file of 150,000 sections, rebuilt (its index/ deleted): each item
# was looked for in the list of the file's items before it
s = Substrate()
where = {"path": "/n/big.md", "source": "big.md", "ingest_options": "o", "content_hash": "h"}
for i in range(150_000):
    s.put(SubstrateItem(kind="text", text=f"section {i}", provenance=dict(where, index=i)))
assert len(SourceCache.open(s, "local").get("/n/big.md").ids) == 150_000
"""


def test_many_links_edges_and_steps_cost_in_proportion_to_their_count() -> None:
    # a hang guard, not a speed test: this takes a few seconds, and took minutes
    subprocess.run([sys.executable, "-c", _MANY], check=True, timeout=60)
