"""Which parser a file gets, and whether it is binary.

The format comes from the file name (a forced ``as_format`` wins); a few formats are refined
from the content by their parsers: a ``.jsonl`` file whose rows have ``input`` plus ``answer``,
``label`` or ``call`` is read as traces, and a ``manifest.json`` that describes an artifact is
read as an artifact registry entry.
"""

from __future__ import annotations

import re

from substrate.compressed import compressed_name, inner_name
from substrate.errors import InvalidInputError
from substrate.limits import INGEST_FORMATS, NOTE_FORMATS

FORMATS = INGEST_FORMATS

# File extensions mixle ingests, and their formats.
_EXTENSIONS = {
    **NOTE_FORMATS,
    "log": "text",
    "jsonl": "jsonl",
    "ndjson": "jsonl",
    "json": "json",
    "csv": "csv",
    "tsv": "tsv",
    "tab": "tsv",
}

# Names a user may give a format: the extensions, and a few words.
_ALIASES = {
    **_EXTENSIONS,
    "rest": "rst",
    "artifact": "artifact",
    "artifacts": "artifact",
    "manifest": "artifact",
    "trace": "traces",
    "traces": "traces",
    # the item families of `mixle ingest --as`
    "docs": "markdown",
    "documents": "markdown",
    "records": "records",
}
# What the family ``records`` reads a file as: its own record format, else JSON Lines.
RECORD_FORMATS = frozenset({"csv", "tsv", "json", "jsonl"})

# Files that are plain prose by convention: without an extension, or with one of these, which
# say what they are about rather than their format (README.Debian, LICENSE.BSD, COPYING.LIB);
# another (todo.js, License.rtf, readme.html) is the format's, and read as that.
_PLAIN_NAMES = frozenset(
    """readme license licence copying copyright authors changelog notice todo""".split()
)
# and in capitals, as GNU names a package's documents (a lower-case "install" is a script)
_CAPITAL_NAMES = frozenset(
    """NEWS CHANGES HISTORY INSTALL THANKS CREDITS CONTRIBUTORS BUGS FAQ HACKING""".split()
)
# The formats of logs, which rotation numbers or dates: "app.log.1", "run.jsonl.2.gz",
# "app.log-20261207" or "app.log-2026-12-07" (logrotate's dateext)
_ROTATED = frozenset({"text", "jsonl"})
_DATED = re.compile(r"([A-Za-z]+)-(?:\d{8}(?:\d{2})?|\d{4}-\d{2}-\d{2})")
_ABOUT = frozenset(
    {"debian", "source", "bsd", "mit", "apache", "gpl", "lgpl", "lib", "linux", "old"}
)


def _plain_name(name: str) -> bool:
    """Whether ``name`` (without an extension) names a file of prose by convention."""
    return name.lower() in _PLAIN_NAMES or name in _CAPITAL_NAMES


def normalize_format(name: str) -> str:
    """The canonical format name for ``name`` (an alias such as ``md`` or ``ndjson``).

    Raises:
        InvalidInputError: ``name`` is not a known format.
    """
    key = name.strip().lower().lstrip(".")
    try:
        return _ALIASES[key]
    except KeyError:
        known = ", ".join(FORMATS)
        raise InvalidInputError(
            f"unknown format {name!r}; expected one of {known} "
            "(or the families docs, records, traces, artifacts)"
        ) from None


def file_format(as_format: str | None, filename: str) -> str | None:
    """The parser a file gets: ``as_format`` (normalised) when forced, else the one its name
    implies. The family ``records`` keeps a file's own record format (CSV, TSV, JSON, JSON
    Lines) and reads anything else as JSON Lines."""
    if as_format is None:
        return detect_format(filename)
    if as_format == "records":
        detected = detect_format(filename)
        return detected if detected in RECORD_FORMATS else "jsonl"
    return as_format


def detect_format(filename: str) -> str | None:
    """The format implied by a file name, or None when it is not one mixle ingests. A gzip
    file's is that of the name it holds (``NEWS.gz``, ``run.jsonl.1.gz``)."""
    base = filename.rsplit("/", 1)[-1]
    if compressed_name(base):
        inner = detect_format(inner_name(base))
        return None if inner == "artifact" else inner  # (a manifest names files beside it)
    if base == "manifest.json":
        return "artifact"
    stem, dot, ext = base.rpartition(".")
    if not dot or not stem:
        return "text" if _plain_name(base) else None
    if _plain_name(stem) and ext.lower() in _ABOUT:
        return "text"
    if ext.isdigit():  # a log rotated: "app.log.1", "changelog.1"
        rotated = detect_format(stem)
        return rotated if rotated in _ROTATED else None
    dated = _DATED.fullmatch(ext)  # or rotated by date: "app.log-20261207"
    if dated is not None:
        rotated = _EXTENSIONS.get(dated.group(1).lower())
        return rotated if rotated in _ROTATED else None
    return _EXTENSIONS.get(ext.lower())


# The names sync and merge tools give the copies they leave beside a file: Dropbox's and
# Nextcloud's "x (conflicted copy 2026-12-07).md" (or "(Ann's conflicted copy ...)"),
# Syncthing's "x.sync-conflict-20261207-123456-ABCDEFG.md", ownCloud's
# "x_conflict-20261207-123456.md", git mergetool's "x_BASE_12345.md" (LOCAL, REMOTE, BACKUP),
# and Logseq's backups under logseq/bak/
_TOOL_COPY = re.compile(
    r"\((?:[^()/]*['’]s\s+)?conflicted\s+copy\b[^()/]*\)[^/]*$"
    r"|\.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]+)?[^/]*$"
    r"|_conflict-\d{8}-\d{6}[^/]*$"
    r"|(?-i:_(?:BASE|LOCAL|REMOTE|BACKUP)_)\d+(?:\.[^/]*)?$"
    r"|(?:^|/)logseq/bak/",
    re.IGNORECASE,
)


def tool_copy(rel: str) -> bool:
    """Whether the file at ``rel`` (its path within the folder walked, with ``/``) is a copy a
    sync or merge tool left beside another (``_TOOL_COPY``): a note's other version, which
    would answer beside it, and as often in its place."""
    # (asked of every file a walk meets: most names hold none of the words looked for)
    if not (
        "onflict" in rel
        or "ONFLICT" in rel
        or "_BA" in rel
        or "_LOCAL_" in rel
        or "_REMOTE_" in rel
        or "logseq/bak/" in rel
    ):
        return False
    return _TOOL_COPY.search(rel) is not None


# The files package managers write to pin every dependency, in JSON: megabytes of names and
# versions in one object, which no note asks of and whose one record answered questions slowly
_LOCK_FILES = ("package-lock.json", "npm-shrinkwrap.json", "packages.lock.json")


def lock_file(rel: str) -> bool:
    """Whether the file at ``rel`` (its path within the folder walked) is a package manager's
    lock file (``_LOCK_FILES``)."""
    # (asked of every file a walk meets: the suffix test, in C, settles nearly all of them)
    return rel.endswith(_LOCK_FILES) and rel.rpartition("/")[2] in _LOCK_FILES
