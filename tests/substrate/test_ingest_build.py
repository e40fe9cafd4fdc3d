"""Building items from segments: what a builder keeps while it works through a file."""

from __future__ import annotations

import gc
import tracemalloc

from substrate.ingest.build import ItemBuilder, is_blank
from substrate.ingest.report import IngestReport
from substrate.ingest.segment import Segment


def test_a_builder_keeps_little_per_record_it_has_seen() -> None:
    """A builder remembers each record it built (to number identical ones) for the whole file.

    orjson leaves about 4 KB allocated behind each small result, so remembering the payload's
    JSON as orjson returned it held ~4 KB per row: a 6 MB CSV of 100,000 rows peaked at 668 MB.
    """
    rows = 2000
    builder = ItemBuilder("/data/table.csv", scope="local")
    segments = [
        Segment(kind="record", text=f"id: {i}", payload={"id": i, "name": f"name {i}"})
        for i in range(rows)
    ]
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for seg in segments:
            item = builder.build(seg, {"source": "table.csv"})
            assert item is not None
        del item
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len({key[3] for key in builder._seen}) == rows  # every payload is remembered
    assert (kept - before) / rows < 1000  # bytes per row; ~4,200 with orjson's buffers


def test_a_text_that_shows_nothing_is_blank() -> None:
    for text in ("", " \n\t", "\u200b\u200b", " \ufeff ", "\u00ad", "\u200d\n\u2060"):
        assert is_blank(text), repr(text)
    for text in ("a", " \u200bx", "\ufeff# Title", "\u200d\u0915"):
        assert not is_blank(text), repr(text)


def test_an_empty_document_is_dropped_but_one_of_fields_alone_is_kept() -> None:
    """As ingest-docs does: a document with neither text nor payload is dropped and counted;
    one with a payload and no text holds what it came for."""
    report = IngestReport()
    builder = ItemBuilder("/data/docs.jsonl", scope="local", report=report)
    kept = [
        builder.build(Segment(text=text, payload=payload), {"source": "docs.jsonl"})
        for text, payload in (("", {"x": 1}), ("\u200b", {}), ("  ", {}), ("", {}))
    ]
    assert [item.payload if item else None for item in kept] == [{"x": 1}, None, None, None]
    assert report.items_dropped == 3
