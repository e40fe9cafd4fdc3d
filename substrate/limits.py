"""Defaults shared by the library and the command line's help texts (a module with no imports,
so that showing them costs nothing)."""

DEFAULT_CHUNK_CHARS = 1500
# The least chunk size, from --chunk-chars and [ingest] chunk_chars alike. The chunker cuts
# within any bound (a run without white space at the bound itself); below this one a chunk
# would hold a word or two, and a file would give an item per word.
MIN_CHUNK_CHARS = 16
DEFAULT_MAX_FILE_SIZE = 32 * 1024 * 1024
INGEST_FORMATS = ("markdown", "text", "rst", "jsonl", "json", "csv", "tsv", "artifact", "traces")
# The file extensions of notes and their formats: what ingest reads as prose, and what a wiki
# link leaves off (``[[deploys]]`` names ``deploys.md``, else the next that exists, in order).
NOTE_FORMATS = {
    "md": "markdown",
    "markdown": "markdown",
    "mdown": "markdown",
    "mkd": "markdown",
    "mdx": "markdown",
    "txt": "text",
    "text": "text",
    "rst": "rst",
}
# What ``ingest_file`` reads (its ``as_format``, or a file's extension): the seed's formats.
LINE_FORMATS = frozenset({"txt", "md", "text", "markdown"})
FILE_FORMATS = LINE_FORMATS | {"jsonl", "ndjson", "csv", "tsv", "json"}
# A derived index file (the catalog, a search pack) of at most this many bytes has its checksums
# checked whole when it is opened (about a millisecond); larger ones on full reads.
VERIFY_ON_OPEN_BYTES = 4 << 20
# How far into content a NUL byte marks it binary (git's rule), and a byte-order mark of wide
# text must be borne out.
BINARY_PROBE_BYTES = 8192
# The integers a JSON number in the log holds exactly (a signed or unsigned 64-bit one): a
# larger one read from a file is kept as the text it was written as.
STORABLE_INTS = range(-(2**63), 2**64)
# A context packet's budget when none is given, and how a token budget becomes characters.
DEFAULT_PACKET_CHARS = 2000
CHARS_PER_TOKEN = 4
# Front matter (YAML or TOML): its closing fence is looked for this many lines down, and flow
# collections nested deeper than notes need are kept as written (each level rescans its text,
# and the write-time gate refuses values nested past its own limit).
FRONT_MATTER_LINES = 1000
FRONT_MATTER_DEPTH = 8

# Formats of a document per line: a line that is no UTF-8 is rejected alone, and lines added
# at the end change no item of the lines before them (``ingest`` and freshness rely on it)
PER_LINE_FORMATS = frozenset({"jsonl", "traces"})
# A CSV file's delimiter is judged on its first rows within this many characters: a file of
# four times as many bytes at least holds them all, and rows added at its end leave them as
# they were (a shorter one may be read with another delimiter once it has more rows; a TSV's
# quoting is judged on the whole file)
SNIFF_CHARS = 65_536
# A table's rows are passages of their own, as a document per line's lines are
ROW_FORMATS = PER_LINE_FORMATS | {"csv", "tsv"}


def reads_alike_grown(fmt: object, size: object) -> bool:
    """Whether a file of format ``fmt`` that had ``size`` bytes, and has only grown by whole
    lines since, still reads its old lines as it did: a document per line always, a CSV
    file whose delimiter was judged on rows it already held."""
    if fmt in PER_LINE_FORMATS:
        return True
    return fmt == "csv" and type(size) is int and size >= 4 * SNIFF_CHARS
