"""One parser per format: ``parse(text, ctx) -> Parsed`` (raising ``FileRejected``)."""

from __future__ import annotations

from collections.abc import Callable

from substrate.ingest.formats.artifacts import parse_artifact
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.jsonfile import parse_json_data
from substrate.ingest.formats.jsonl import parse_jsonl
from substrate.ingest.formats.markdown import parse_markdown
from substrate.ingest.formats.rst import parse_rst
from substrate.ingest.formats.tabular import parse_csv, parse_tsv
from substrate.ingest.formats.text import parse_text
from substrate.ingest.formats.traces import parse_traces
from substrate.ingest.segment import Parsed

Parser = Callable[[str, ParseContext], Parsed]

PARSERS: dict[str, Parser] = {
    "markdown": parse_markdown,
    "text": parse_text,
    "rst": parse_rst,
    "jsonl": parse_jsonl,
    "json": parse_json_data,
    "csv": parse_csv,
    "tsv": parse_tsv,
    "artifact": parse_artifact,
    "traces": parse_traces,
}

__all__ = ["PARSERS", "ParseContext", "Parser"]
