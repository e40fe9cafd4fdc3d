"""Defaults shared by the library and the command line's help texts (a module with no imports,
so that showing them costs nothing)."""

DEFAULT_CHUNK_CHARS = 1500
DEFAULT_MAX_FILE_SIZE = 32 * 1024 * 1024
INGEST_FORMATS = ("markdown", "text", "rst", "jsonl", "json", "csv", "tsv", "artifact", "traces")
