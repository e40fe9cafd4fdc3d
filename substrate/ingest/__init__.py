"""Ingestion: files, folders, streams and Python objects into a shard.

The reference adapters (``ingest_documents``, ``ingest_records``, ``ingest_file``,
``ingest_traces``, ``ingest_artifacts``) keep their signatures and return the new ids.
``ingest_path`` ingests a file or a folder incrementally and returns an ``IngestReport``;
``ingest_text`` does the same for text from a stream.
"""

from __future__ import annotations

from substrate.ingest.adapters import (
    ingest_artifacts,
    ingest_documents,
    ingest_file,
    ingest_records,
    ingest_traces,
)
from substrate.ingest.detect import FORMATS
from substrate.ingest.pipeline import ingest_path, ingest_text
from substrate.ingest.prepare import IngestOptions
from substrate.ingest.report import FileOutcome, IngestIssue, IngestReport
from substrate.ingest.session import ProgressFn
from substrate.limits import DEFAULT_CHUNK_CHARS, DEFAULT_MAX_FILE_SIZE

__all__ = [
    "DEFAULT_CHUNK_CHARS",
    "DEFAULT_MAX_FILE_SIZE",
    "FORMATS",
    "FileOutcome",
    "IngestIssue",
    "IngestOptions",
    "IngestReport",
    "ProgressFn",
    "ingest_artifacts",
    "ingest_documents",
    "ingest_file",
    "ingest_records",
    "ingest_path",
    "ingest_text",
    "ingest_traces",
]
