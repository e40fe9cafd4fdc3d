"""The versions of what mixle writes, which ``mixle --version`` tells: two installs that print
the same release number may still read and write shards otherwise."""

from __future__ import annotations

from substrate.search.params import FORMAT_VERSION as SEARCH_INDEX_FORMAT
from substrate.settings import SHARD_FORMAT

# Bump when parsing changes, so that every source is parsed again once (``ingest.prepare``)
PARSER_VERSION = "22"


def written_formats() -> str:
    """The formats this mixle writes, as one line: "shard format 1, parser 18, ..."."""
    return (
        f"shard format {SHARD_FORMAT}, parser {PARSER_VERSION}, "
        f"search index format {SEARCH_INDEX_FORMAT}"
    )
