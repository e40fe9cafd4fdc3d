"""Which files a secret scan reads: folders walked, the git index, every tracked file.

Paths are reported relative to the repository root for git sources (so a baseline made from
staged changes matches one made with ``--all``), and as given for arguments. A name that is not
UTF-8 keeps its bytes (as Python's surrogate escapes, ``os.fsdecode``): the scan fingerprints
the real name and reports it printable (``substrate.secrets.names``).
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, NamedTuple

from substrate.errors import InvalidInputError, SubstrateError
from substrate.limits import BINARY_PROBE_BYTES
from substrate.secrets.textscan import binary_by_its_head, reported_path

# Folders a walk never enters: version control data, mixle's own shard, bytecode caches.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".mixle", "__pycache__"})
_SUBMODULE = "160000"  # a gitlink: another repository's commit


@dataclass(frozen=True)
class ScanSource:
    """A file to read (``real``) and the path to report and fingerprint (``shown``)."""

    real: str
    shown: str


def scan_path(path: str) -> str:
    """The path a scan reports and fingerprints: POSIX separators, no ``./``, and the bytes of
    a name that is not UTF-8 kept (two such names must not become one)."""
    return os.path.normpath(path).replace(os.sep, "/")


def shown_path(path: str) -> str:
    """``scan_path`` with its secrets masked and the bytes that are not UTF-8 written
    ``\\xNN``, as scan reports show them (ingest's reports): as U+FFFD, two names that differ
    in them read alike. Masked first: once escaped, ``\\xff`` would end in a letter glued to
    what follows, and a token after it would no longer start a word."""
    return reported_path(scan_path(path))


def walk_sources(
    folder: str, on_error: Callable[[OSError], None] | None = None
) -> Iterator[ScanSource]:
    """Regular files under ``folder`` in name order, not entering SKIP_DIRS or following links.

    Args:
        folder: the folder to walk.
        on_error: called with the error for a folder that cannot be listed, which is then
            skipped; without it the error is raised.

    Raises:
        OSError: a folder cannot be listed and there is no ``on_error``.
    """
    # a stack of folders being listed, not recursion: a tree may be deeper than Python's stack
    stack = [iter(_listed(folder, on_error))]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
        elif entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIP_DIRS:
                stack.append(iter(_listed(entry.path, on_error)))
        elif entry.is_file(follow_symlinks=False):
            yield ScanSource(entry.path, scan_path(entry.path))


def _listed(folder: str, on_error: Callable[[OSError], None] | None) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` in name order ([] when it cannot be listed and ``on_error``
    took the error)."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError as exc:
        if on_error is None:
            raise
        on_error(exc)
        return []


# The repository as a commit records it, whatever the user's settings: a replace ref
# (``git replace``) shows other content than the blob committed, and ``diff.relative`` limits a
# diff run from a subfolder to that folder, with paths relative to it.
_AS_COMMITTED = ("--no-replace-objects", "-c", "diff.relative=false")


def _git(args: list[str], *, stdin: bytes | None = None, cwd: str | None = None) -> bytes:
    try:
        proc = subprocess.run(
            ["git", *_AS_COMMITTED, *args], input=stdin, capture_output=True, check=False, cwd=cwd
        )
    except OSError as exc:
        raise SubstrateError(f"cannot run git: {exc.strerror or exc}") from exc
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SubstrateError(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
    return proc.stdout


def git_toplevel(cwd: str | None = None) -> str:
    """The root of the git work tree holding ``cwd`` (default: the working directory).

    Raises:
        InvalidInputError: not inside a git work tree.
        SubstrateError: git cannot be run (not installed): the scan cannot be made, which a
            hook must not take for a wrong command line.
    """
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, check=False, cwd=cwd
        )
    except OSError as exc:
        raise SubstrateError(f"cannot run git: {exc.strerror or exc}") from exc
    if proc.returncode != 0 or not proc.stdout.strip():
        raise InvalidInputError("not inside a git work tree")
    return os.fsdecode(proc.stdout.rstrip(b"\n"))


@dataclass(frozen=True)
class StagedChanges:
    """What the next commit changes: the content of every file it adds, copies, modifies,
    renames or changes in type (``blobs``, as ``staged_blobs`` gives them), and the paths it
    removes (``removed``: files deleted, and the old path of each rename). Asked for with a
    size cap, the files larger than it are in ``oversized`` instead, each with its first
    ``BINARY_PROBE_BYTES`` bytes: their content is not read (a file staged by mistake may be
    gigabytes)."""

    blobs: list[tuple[str, bytes | None]]
    removed: list[str]
    oversized: list[tuple[str, bytes]] = field(default_factory=list)
    # paths with an unresolved conflict: no one content is staged (git commits none of them)
    unmerged: list[str] = field(default_factory=list)


def staged_blobs(cwd: str | None = None) -> list[tuple[str, bytes | None]]:
    """The staged content of every file added, copied, modified, renamed or changed in type
    in the index.

    This is exactly what the next commit will contain, whatever the work tree holds, but for
    a binary file, given as its first bytes only (``textscan.binary_by_its_head``: enough
    for a scan to pass it over, where a commit of large images was held whole). A link is
    given as git stores it: its name, and its target as content (either may hold a pasted
    secret). A submodule is given by its name, with no content: it is another repository's
    commit. Content is ``None`` for an entry git could not produce.

    Returns:
        ``(path relative to the repository root, content)`` pairs in git's order.

    Raises:
        InvalidInputError: not inside a git work tree.
        SubstrateError: git failed.
    """
    return staged_changes(cwd).blobs


def staged_changes(cwd: str | None = None, *, max_bytes: int | None = None) -> StagedChanges:
    """``staged_blobs``, and the paths the next commit removes: what a scan of the staged
    change covers (a baseline updated from it drops the entries of those paths). Files over
    ``max_bytes`` are given apart, their content unread (``StagedChanges.oversized``).

    Raises:
        InvalidInputError: not inside a git work tree.
        SubstrateError: git failed.
    """
    git_toplevel(cwd)
    raw = _git(
        [
            "diff",
            "--cached",
            "--raw",
            "-z",
            "--no-abbrev",
            "--diff-filter=ACDMRTU",  # T: a file that became a link, or the reverse
        ],
        cwd=cwd,
    )
    diff = _parse_raw_diff(raw)
    blobs, oversized = _index_contents(diff.staged, max_bytes, cwd)
    # a submodule is another repository's commit: only its name is committed here
    blobs += [(os.fsdecode(path), b"") for path in diff.gitlinks]
    return StagedChanges(
        blobs,
        [os.fsdecode(path) for path in diff.removed],
        oversized,
        [os.fsdecode(path) for path in diff.unmerged],
    )


class _RawDiff(NamedTuple):
    staged: list[tuple[str, bytes]]  # (object id, path) of each file with staged content
    removed: list[bytes]  # the paths the commit removes
    unmerged: list[bytes]  # paths with an unresolved conflict: no one content staged
    gitlinks: list[bytes]  # submodules staged: a name, with no object of this repository


def _parse_raw_diff(raw: bytes) -> _RawDiff:
    """What ``git diff --raw -z`` says the commit changes:
    ":old_mode new_mode old_oid new_oid STATUS\0path\0" (renames and copies carry the
    source path, then the destination)."""
    fields = raw.split(b"\0")
    diff = _RawDiff([], [], [], [])
    i = 0
    while i < len(fields) - 1:
        meta = fields[i].decode("ascii", "replace").lstrip(":").split()
        status = meta[4][:1] if len(meta) > 4 else ""
        two_paths = status in ("R", "C")
        path = fields[i + 2] if two_paths else fields[i + 1]
        if status in ("D", "R"):  # a rename removes its source as surely as a deletion
            diff.removed.append(fields[i + 1])
        if status == "U":
            diff.unmerged.append(path)
        elif status and status != "D" and meta[1] == _SUBMODULE:
            diff.gitlinks.append(path)
        elif status and status != "D":
            diff.staged.append((meta[3], path))
        i += 3 if two_paths else 2
    return diff


def _index_contents(
    entries: list[tuple[str, bytes]], max_bytes: int | None, cwd: str | None
) -> tuple[list[tuple[str, bytes | None]], list[tuple[str, bytes]]]:
    """The content of each ``(object id, path)``, as ``_read_blobs`` gives it, but for the
    blobs over ``max_bytes``: given apart, with their first ``BINARY_PROBE_BYTES`` bytes only
    (``StagedChanges.oversized``)."""
    large: list[tuple[str, bytes]] = []
    if max_bytes is not None:
        sizes = _blob_sizes(entries, cwd)
        large = [entry for entry in entries if sizes.get(entry[0], 0) > max_bytes]
    unread = set(large)
    small = [entry for entry in entries if entry not in unread]
    heads = [(os.fsdecode(path), _blob_head(oid, cwd)) for oid, path in large]
    return _read_blobs(small, cwd), heads


def _read_blobs(staged: list[tuple[str, bytes]], cwd: str | None) -> list[tuple[str, bytes | None]]:
    """The content of each ``(object id, path)``, read in one ``git cat-file`` run, one blob
    at a time: a binary blob (``binary_by_its_head``) is kept as its first bytes only, which
    tell the scan to pass it over, so a commit of large images is not held in memory."""
    if not staged:
        return []
    command = ["git", *_AS_COMMITTED, "cat-file", "--batch"]
    asked = "".join(f"{oid}\n" for oid, _ in staged).encode()
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
    except OSError as exc:
        raise SubstrateError(f"cannot run git: {exc.strerror or exc}") from exc
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    # asked from a thread: git answers as it reads, and a pipe full both ways would hang
    writer = threading.Thread(target=_write_and_close, args=(proc.stdin, asked), daemon=True)
    writer.start()
    out: list[tuple[str, bytes | None]] = []
    try:
        out = [(os.fsdecode(path), _next_blob(proc.stdout)) for _, path in staged]
    except SubstrateError:
        if proc.wait() == 0:
            raise  # (git ended well, its answers did not: said as they were found)
    finally:
        proc.stdout.close()
        said = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
        proc.stderr.close()
        proc.wait()
        writer.join()
    if proc.returncode != 0:
        raise SubstrateError(f"git cat-file failed: {said[-1] if said else proc.returncode}")
    return out


def _write_and_close(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
    except OSError:  # git stopped reading (it failed): its exit status and message tell
        pass
    finally:
        with contextlib.suppress(OSError):
            stream.close()


def _next_blob(answers: IO[bytes]) -> bytes | None:
    """The next blob of ``git cat-file --batch``'s answers ("<oid> blob <size>\n<content>\n",
    or "<oid> missing\n"): None for one git does not have; a binary blob's head only."""
    header = answers.readline().split()
    if not header:
        raise SubstrateError("git cat-file stopped before giving every staged file")
    if len(header) < 3 or header[1] != b"blob":
        return None
    size = int(header[2])
    head = answers.read(min(size, BINARY_PROBE_BYTES))
    if size > len(head) and binary_by_its_head(head):
        content, rest = head, _skipped(answers, size - len(head))
    else:
        content = head + answers.read(size - len(head))
        rest = size - len(content)
    if rest or answers.read(1) != b"\n":  # (the newline after each blob)
        raise SubstrateError("git cat-file stopped inside a staged file")
    return content


def _skipped(stream: IO[bytes], size: int) -> int:
    """Read past ``size`` bytes of ``stream``; how many of them it did not have."""
    while size > 0 and (chunk := stream.read(min(size, 1 << 20))):
        size -= len(chunk)
    return size


def _blob_sizes(staged: list[tuple[str, bytes]], cwd: str | None) -> dict[str, int]:
    """The size of each object of ``staged`` that git has, read in one ``git cat-file`` run
    that reads none of their content."""
    if not staged:
        return {}
    listed = _git(
        ["cat-file", "--batch-check"],
        stdin="".join(f"{oid}\n" for oid, _ in staged).encode(),
        cwd=cwd,
    )
    sizes = {}
    for line in listed.splitlines():  # "<oid> blob <size>", or "<oid> missing"
        fields = line.split()
        if len(fields) == 3 and fields[1] == b"blob":
            sizes[fields[0].decode("ascii")] = int(fields[2])
    return sizes


def _blob_head(oid: str, cwd: str | None) -> bytes:
    """The first ``BINARY_PROBE_BYTES`` bytes of a blob, the rest left unread: enough to
    tell a binary file from text."""
    command = ["git", *_AS_COMMITTED, "cat-file", "blob", oid]
    try:
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd
        ) as proc:
            assert proc.stdout is not None
            head = proc.stdout.read(BINARY_PROBE_BYTES)
            proc.kill()  # (it would go on writing the rest into the pipe)
    except OSError as exc:
        raise SubstrateError(f"cannot run git: {exc.strerror or exc}") from exc
    return head


def unstaged(path: str, cwd: str | None = None) -> bool:
    """Whether the file at ``path`` differs from what the index holds for it (changed since
    it was staged, or not tracked at all): a commit would not hold it as it is. False outside
    a repository, for an ignored file, or when git cannot tell."""
    try:
        # the name as it is, not a pattern ("base[12].json" would match base1.json too)
        status = _git(["--literal-pathspecs", "status", "--porcelain", "-z", "--", path], cwd=cwd)
    except SubstrateError:
        return False
    # "XY path": X the index against HEAD, Y the work tree against the index; "??" untracked
    return status[:2] == b"??" or status[1:2] not in (b"", b" ")


@dataclass(frozen=True)
class TrackedPaths:
    """Every path git tracks, as ``tracked_paths`` sorts them: the regular files of the work
    tree, to read (``files``); what is scanned as the index stores it (``stored``, path and
    content as ``staged_blobs`` gives them); the blobs of those over the size cap, by their
    first bytes (``oversized``, as ``StagedChanges.oversized``); and the paths missing from
    the work tree, which nothing is read for (``missing``)."""

    files: list[ScanSource]
    stored: list[tuple[str, bytes | None]]
    oversized: list[tuple[str, bytes]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def tracked_files(cwd: str | None = None) -> list[ScanSource]:
    """Every file git tracks, as it is in the work tree, reported relative to the root: the
    regular files there (a link checked out as a file holding its target, as git does
    without ``core.symlinks``, is read as one). The rest is ``tracked_paths``'.

    Raises:
        InvalidInputError: not inside a git work tree.
        SubstrateError: git failed.
    """
    return tracked_paths(cwd).files


def tracked_paths(cwd: str | None = None, *, max_bytes: int | None = None) -> TrackedPaths:
    """Every path git tracks, as the work tree holds it: the regular files, to read
    (``tracked_files``); and what is scanned as a commit stores it, with no file read: each
    link's target text (never the file it leads to, in the repository or out), each
    submodule's name, with no content (it is another repository's commit), and the index
    blob of each path git keeps out of the work tree (skip-worktree, as a sparse checkout
    marks the paths outside it), as ``staged_blobs`` gives them, those over ``max_bytes``
    apart (``TrackedPaths.oversized``). A tracked path gone from the work tree otherwise
    (deleted: a ``commit -a`` removes it) is only named (``TrackedPaths.missing``).

    Raises:
        InvalidInputError: not inside a git work tree.
        SubstrateError: git failed.
    """
    files: list[ScanSource] = []
    stored: list[tuple[str, bytes | None]] = []
    missing: list[str] = []
    in_index: list[tuple[str, bytes]] = []  # (object id, path) of the paths read from the index
    for entry in _tracked(cwd):
        if entry.mode == _SUBMODULE:
            stored.append((entry.shown, b""))
        elif entry.skip_worktree:
            # git neither writes nor reads the work tree for it (status, diff and commit -a
            # pass it by): its blob is what the repository holds. A copy found there anyway
            # (put back by hand, or a file kept out of commits with `git update-index
            # --skip-worktree`) is not, and read instead it would hide a secret the blob has.
            in_index.append((entry.oid, entry.name))
        else:
            kind = _kind(entry.real) if entry.in_place else ""
            target = _link_target(entry.real) if kind == "link" else None
            if kind == "file":
                files.append(ScanSource(entry.real, entry.shown))
            elif target is not None:
                stored.append((entry.shown, target))
            else:
                missing.append(entry.shown)
    blobs, oversized = _index_contents(in_index, max_bytes, cwd)
    return TrackedPaths(files, stored + blobs, oversized, missing)


def _link_target(path: str) -> bytes | None:
    """The target of the link at ``path`` (None when it is gone)."""
    try:
        return os.fsencode(os.readlink(path))
    except OSError:
        return None


def _comparable(path: str) -> str:
    """``path`` spelled as another spelling of it is (git's ``/`` and the system's separator,
    letter case where the file system ignores it)."""
    return os.path.normcase(os.path.normpath(path))


def _kind(path: str) -> str:
    """What the work tree holds at ``path``: "file", "link", or "" (nothing, or another
    kind)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return ""
    return "link" if stat.S_ISLNK(mode) else "file" if stat.S_ISREG(mode) else ""


class _Tracked(NamedTuple):
    name: bytes  # the path from the root, as git lists it
    shown: str  # the same, decoded
    real: str  # the path in the work tree
    mode: str
    oid: str
    skip_worktree: bool  # git keeps it out of the work tree: a sparse checkout's path outside
    in_place: bool  # False below a folder the work tree holds as a link (git takes it as deleted)


def _tracked(cwd: str | None) -> Iterator[_Tracked]:
    """Each path git tracks, once. Read through a folder the work tree holds as a link, a
    path's file would be another tree's: ``in_place`` says so."""
    top = git_toplevel(cwd)
    real_top = _comparable(os.path.realpath(top))
    in_place: dict[str, bool] = {}  # folder -> whether it is where the tree has it
    seen: set[bytes] = set()
    for entry in _git(["-C", top, "ls-files", "-z", "-s", "-t"]).split(b"\0"):
        # "<tag> <mode> <oid> <stage>\t<path>": tag S for skip-worktree (M for a conflicted
        # path, listed once per stage)
        meta, _, name = entry.partition(b"\t")
        if not name or name in seen:
            continue
        seen.add(name)
        tag, mode, oid = meta.decode().split(" ")[:3]
        shown = os.fsdecode(name)
        folder = os.path.dirname(shown)
        if folder and folder not in in_place:
            real = _comparable(os.path.realpath(os.path.join(top, folder)))
            in_place[folder] = real == _comparable(os.path.join(real_top, folder))
        yield _Tracked(
            name,
            shown,
            os.path.join(top, shown),
            mode,
            oid,
            tag == "S",
            not folder or in_place[folder],
        )
