"""Walk a directory tree for ingestion: ignore rules, hidden and VCS folders, symlinks.

Only ``stat`` information is gathered here (no file is opened), so a re-ingest of an unchanged
tree costs one ``lstat`` per file. Files are handed out folder by folder as the walk goes
(``files_by_folder``), so that reading them can start before the walk ends. Symbolic links are
followed only when they lead to a place inside the root; they are resolved after the real tree
has been walked, so a file reachable both directly and through a link is ingested once, under
its real path, and a link back to an ancestor (a loop) is reported instead of walked.

A mixle shard met in the tree (a folder holding ``mixle.toml`` and ``items.jsonl``) is skipped
with a note, as the shard being written to is left out: its log and index files are items
already, and read as data they would come back as copies (their secrets masked, found again).
"""

from __future__ import annotations

import errno
import logging
import operator
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from substrate.ingest.gitindex import Tracked, tracked_in
from substrate.ingest.ignore import (
    IGNORE_FILES,
    IgnoreStack,
    Rule,
    RuleSet,
    Unread,
    directory_rules,
    exclude_rules,
    work_tree_top,
)
from substrate.secrets.sources import shown_path
from substrate.settings import SETTINGS_FILE

log = logging.getLogger(__name__)

_by_name = operator.attrgetter("name")

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj", ".pijul"})
# the files every shard holds (``mixle init`` and a first write make both)
SHARD_FILES = frozenset({SETTINGS_FILE, "items.jsonl"})
SHARD_SKIPPED = "a mixle shard"
# the names in a folder that change the ignore rules below it
_RULE_NAMES = frozenset({*IGNORE_FILES, ".git"})
_IGNORED_FILE = "to an ignored file"
_IGNORED_DIR = "into an ignored folder"


@dataclass(slots=True)
class FileEntry:
    """A candidate file: where it is and what ``stat`` said about it."""

    path: str  # absolute; a file reached through a link keeps the link's path
    rel: str  # relative to the walk root, with "/" separators
    size: int
    mtime_ns: int
    ident: tuple[int, int]  # (device, inode): the file found, wherever its path leads
    stamp: int  # its change time (``file_stamp``)

    @classmethod
    def of(cls, path: str, rel: str, info: os.stat_result) -> FileEntry:
        """The entry of a file ``stat`` described as ``info``."""
        ident = (info.st_dev, info.st_ino)
        return cls(path, rel, info.st_size, info.st_mtime_ns, ident, file_stamp(info))


def file_stamp(info: os.stat_result) -> int:
    """What tells a file changed where its size and modification time do not: its change
    time (as git's index keeps it), which a rename, or a write that put the old time back
    (``cp -p`` of a backup), sets. Its low 32 bits, never 0: ten digits in every row of the
    source cache, and a change by a multiple of 4.3 s to the nanosecond is not met."""
    return info.st_ctime_ns & 0xFFFF_FFFF or 1


@dataclass(slots=True)
class WalkResult:
    """The candidate files in a stable order (``walk`` fills ``files``; an ingest takes them
    folder by folder from ``files_by_folder`` instead), and the entries passed over with a reason:
    ``skipped`` on purpose (a link out of the root, a socket, a ``.gitignore`` that is a link,
    whose rules git does not read either), or ``failed``, whose content could not be read (an
    unreadable folder, a name that is not UTF-8, an ignore file: its rules are unknown)."""

    files: list[FileEntry] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (rel, reason)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (rel, reason)
    # absolute paths that could not be read: what lies there is unknown, not gone
    unreadable: list[str] = field(default_factory=list)
    # entries (files and folders) left out by name, counted so a run can say why a file it
    # was expected to take is missing: hidden ones, and those the ignore rules name
    hidden: int = 0
    ignored: int = 0


@dataclass(slots=True)
class _Link:
    path: str
    rel: str
    ignores: IgnoreStack


@dataclass(frozen=True, slots=True)
class _Place:
    """A folder where it lies: its path from the root, and the ignore rules in force in it."""

    rel: str
    rules: IgnoreStack

    def child(self, name: str) -> str:
        return f"{self.rel}/{name}" if self.rel else name

    def leaves_out(self, name: str, is_dir: bool) -> bool:
        """Whether the walk leaves out the entry ``name`` of this folder: a VCS folder's name,
        or one the rules ignore."""
        return name in VCS_DIRS or self.rules.ignored(self.child(name), name, is_dir)


class _Walker:
    def __init__(
        self,
        root: Path,
        hidden: bool,
        exclude: Iterable[Path],
        result: WalkResult,
        settings_rules: RuleSet,
    ) -> None:
        self.root = os.path.realpath(root)
        # where a nested repository starts, only these still apply (git reads it on its own)
        self.settings_rules = settings_rules
        self.hidden = hidden
        self.exclude = {os.path.realpath(p) for p in exclude}
        self.result = result  # receives what is passed over; the files are handed out
        self.dirs_seen: set[tuple[int, int]] = set()
        self.files_seen: dict[tuple[int, int], str] = {}
        self.links: list[_Link] = []
        self.via_link = False  # walking below a followed link: paths are not real paths
        # folders the ignore rules left out (and VCS folders): a link must not lead into them
        # (a hidden folder is only not walked by default: a visible link to it is followed)
        self.pruned: list[str] = []
        # files the ignore rules left out, by (device, inode): a link must not lead to them
        self.ignored_files: set[tuple[int, int]] = set()
        # the rules the root's folder is given (from above it and the settings); the folders
        # a walk through a link entered, where they lie (``place_of``), by real path; and the
        # files taken through links, by their path from the root, where they lie
        self.root_rules = IgnoreStack()
        self.places: dict[str, _Place | None] = {}
        self.taken_through_links: dict[str, str] = {}
        # the real path of each folder a walk through a link is to enter, by its path there
        self.real_dirs: dict[str, str] = {}
        # the ignore files not read, told already (by real path: a folder walked through a
        # link has its rules read where it lies too)
        self.told_unread: set[str] = set()
        # the git repositories met, by the path of their top from the root ("": the one the
        # root lies in): where the top is, and what it tracks, read when a rule first leaves
        # something of it out (git ignores no tracked file)
        self.repos: dict[str, Path | None] = {"": None}
        self.tracked: dict[str, tuple[Tracked | None, str]] = {}
        # folders git's rules leave out, entered for the tracked files they hold alone
        self.only_tracked: set[str] = set()

    def inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)

    def excluded(self, real: str) -> bool:
        return any(real == ex or real.startswith(ex + os.sep) for ex in self.exclude)

    def prune(self, path: str) -> None:
        self.pruned.append(os.path.realpath(path) if self.via_link else path)

    def in_pruned(self, real: str) -> bool:
        return any(real == p or real.startswith(p + os.sep) for p in self.pruned)

    def walk_tree(self, top: str, top_rel: str, ignores: IgnoreStack) -> Iterator[list[FileEntry]]:
        stack = [(top, top_rel, ignores)]
        while stack:
            dirpath, rel, rules = stack.pop()
            files, subdirs = self.scan_dir(dirpath, rel, rules)
            stack.extend(reversed(subdirs))
            if files:
                yield files

    def scan_dir(
        self, dirpath: str, rel: str, rules: IgnoreStack
    ) -> tuple[list[FileEntry], list[tuple[str, str, IgnoreStack]]]:
        """The candidate files of one folder, and the sub-folders to walk."""
        try:
            st = os.stat(dirpath)
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=_by_name)
        except OSError as exc:
            gone = isinstance(exc, FileNotFoundError) and not os.path.lexists(dirpath)
            if rel and gone:  # removed since its folder was listed: gone, as a file removed
                return [], []  # so is, and its items with it (not a link to nowhere)
            self.result.failed.append((rel or ".", f"unreadable directory: {exc.strerror}"))
            self.result.unreadable.append(dirpath)
            return [], []
        if _holds_shard(entries):  # not seen as walked: a link to it is said to be one too
            self.result.skipped.append((rel or ".", SHARD_SKIPPED))
            return [], []
        lies: _Place | None = None
        if self.via_link:  # (in a hidden folder: no other place is walked through a link)
            if (st.st_dev, st.st_ino) in self.dirs_seen:  # two links into one hidden folder
                self.result.skipped.append((rel, "folder already walked through another link"))
                return [], []
            lies = self.place_of(self.real_dirs.pop(dirpath, "") or os.path.realpath(dirpath))
            if lies is None:
                return [], []
        self.dirs_seen.add((st.st_dev, st.st_ino))
        rules = self.rules_below(dirpath, rel, rules, {e.name for e in entries})
        subdirs: list[tuple[str, str, IgnoreStack]] = []
        files: list[FileEntry] = []
        seen = self.files_seen
        device = st.st_dev
        hidden = self.hidden
        only_tracked = rel in self.only_tracked
        check = bool(rules.sets) or only_tracked
        for entry in entries:
            name = entry.name
            child = f"{rel}/{name}" if rel else name
            if name[0] == ".":
                if not hidden:
                    # not walked; a visible link to it is followed, unless it is left out anyway
                    if name in VCS_DIRS:
                        self.leave_out(entry)
                    elif check and self.ignored(entry, child, rules):
                        self.leave_out(entry)
                        self.result.ignored += 1
                    elif name not in IGNORE_FILES and not self.excluded(entry.path):
                        self.result.hidden += 1  # (the shard's own folder is no news)
                    continue
                if name in IGNORE_FILES and entry.is_file(follow_symlinks=False):
                    continue  # the walk's own rules (read above), no note to ingest or skip
            if not (name.isascii() or utf8_name(name)):
                # the rules match its bytes: one they leave out is no failure
                if check and self.ignored(entry, child, rules):
                    self.leave_out(entry)
                    self.result.ignored += 1
                else:
                    self.not_utf8(entry.path, child)
                continue
            try:
                # the common case first: a regular file (known from the directory listing)
                if entry.is_file(follow_symlinks=False):
                    if (
                        check
                        and (only_tracked or rules.ignored(child, name, False))
                        and not self.kept_by_git(child, name, False, rules)
                    ):
                        self.leave_out(entry)
                        self.result.ignored += 1
                        continue
                    if lies is not None and self.met_before(lies, name, child):
                        continue
                    info = entry.stat(follow_symlinks=False)
                    ident = (info.st_dev, info.st_ino)  # (FileEntry.of, spelt out: once a file)
                    stamp = file_stamp(info)
                    size, mtime_ns = info.st_size, info.st_mtime_ns
                    files.append(FileEntry(entry.path, child, size, mtime_ns, ident, stamp))
                    seen[(device, info.st_ino)] = child
                elif entry.is_dir(follow_symlinks=False):
                    ignored = only_tracked or (check and rules.ignored(child, name, True))
                    if name in VCS_DIRS or (
                        ignored and not self.kept_by_git(child, name, True, rules)
                    ):
                        self.prune(entry.path)
                        self.result.ignored += name not in VCS_DIRS
                        continue
                    if ignored:  # entered for the tracked files it holds: git's rules leave
                        self.only_tracked.add(child)  # out the rest of it
                    real = entry.path
                    if lies is not None:  # where it lies: a folder in the one that lies there
                        if lies.leaves_out(name, True):
                            continue
                        real = os.path.join(self.root, lies.child(name))
                    if self.exclude and self.excluded(real):
                        continue
                    if lies is not None:
                        self.real_dirs[entry.path] = real
                    subdirs.append((entry.path, child, rules))
                elif entry.is_symlink():
                    if check and rules.ignored(child, name, _leads_to_folder(entry)):
                        self.result.ignored += 1
                    else:
                        self.links.append(_Link(entry.path, child, rules))
                else:
                    self.result.skipped.append((child, "not a regular file"))
            except FileNotFoundError:
                continue  # removed since the folder was listed: gone, as if never listed
            except OSError as exc:
                self.result.failed.append((child, f"cannot stat: {exc.strerror}"))
                self.result.unreadable.append(entry.path)
        return files, subdirs

    def kept_by_git(self, child: str, name: str, is_dir: bool, rules: IgnoreStack) -> bool:
        """Whether the entry at ``child``, which the rules leave out (or which lies in a
        folder they leave out), is walked all the same: git tracks it (a folder, a file in
        it), so its rules do not apply, and mixle's own (``.mixleignore``, the settings) do
        not leave it out."""
        tracked, path = self.git_tracked(child)
        if tracked is None or not tracked.holds(path, is_dir):
            return False
        own = (s for s in rules.sets if s.mixle or s is self.settings_rules)
        return not IgnoreStack(tuple(own)).ignored(child, name, is_dir)

    def git_tracked(self, child: str) -> tuple[Tracked | None, str]:
        """What the innermost repository holding ``child`` tracks, and ``child``'s path from
        its top."""
        top = max((r for r in self.repos if not r or child.startswith(r + "/")), key=len)
        if top not in self.tracked:
            where = self.repos[top]
            if top:  # a nested repository: its top is met by the walk
                self.tracked[top] = (tracked_in(where) if where else None, "")
            else:  # the one the root lies in, at or above it
                above = work_tree_top(Path(self.root))
                inner = Path(self.root).relative_to(above).as_posix() if above else "."
                known = tracked_in(above) if above else None
                self.tracked[top] = (known, "" if inner == "." else inner + "/")
        tracked, prefix = self.tracked[top]
        return tracked, prefix + (child[len(top) + 1 :] if top else child)

    def rules_below(
        self, dirpath: str, rel: str, rules: IgnoreStack, names: set[str]
    ) -> IgnoreStack:
        """The rules in force in the folder ``dirpath`` (at ``rel``), whose entries are named
        ``names``, given ``rules``, those of the folder holding it."""
        names = names & _RULE_NAMES
        if ".git" in names and rel:  # a nested repository: not the outer one's git rules
            self.repos[rel] = Path(dirpath)  # nor does the outer one's index track its files
            own = IgnoreStack()
            own = self.with_file(own, exclude_rules(Path(dirpath), base=rel), dirpath, rel)
            own = own.push(self.settings_rules)  # in the order the root has them
            for ruleset in rules.sets:
                if ruleset.mixle:
                    own = own.push(ruleset)
            rules = own
        names.discard(".git")
        for ruleset in directory_rules(Path(dirpath), rel, names):
            rules = self.with_file(rules, ruleset, dirpath, rel)
        return rules

    def with_file(
        self, rules: IgnoreStack, ruleset: RuleSet, dirpath: str, rel: str
    ) -> IgnoreStack:
        """``rules`` with those of an ignore file of the folder ``dirpath`` (at ``rel``); one
        not read is told."""
        if ruleset.unread is not None:
            self.tell_unread(ruleset.unread, dirpath, rel)
        return rules.push(ruleset)

    def tell_unread(self, unread: Unread, dirpath: str, rel: str) -> None:
        """Tell, once, an ignore file whose rules are not in force in the folder ``dirpath``
        (at ``rel``): passed over; or failed, when they are unknown, and then what the folder
        holds is unknown too (a file they let in, left out now, is not gone)."""
        folder, name = os.path.split(unread.path)
        real = os.path.join(os.path.realpath(folder), name)
        if real in self.told_unread:
            return
        self.told_unread.add(real)
        inner = os.path.relpath(unread.path, dirpath).replace(os.sep, "/")
        shown = f"{rel}/{inner}" if rel else inner
        if not unread.failed:
            self.result.skipped.append((shown, unread.reason))
            return
        self.result.failed.append((shown, unread.reason))
        self.result.unreadable.append(dirpath)

    def unwalked(self, real: str) -> bool:
        """Whether ``real``, a real path inside the root, lies in a hidden folder, or is a
        hidden file, that the walk did not enter or take."""
        rel = os.path.relpath(real, self.root).replace(os.sep, "/")
        return not self.hidden and rel != "." and "/." in "/" + rel

    def place_of(self, real: str) -> _Place | None:
        """The folder at ``real`` (a real path inside the root) with the ignore rules in force
        there, read along its own path; None when they leave it out, or a folder above it.

        Asked of the hidden folders a walk through a link enters, which the walk itself did
        not: the rules of the folders above the link's target, and the root's rules matched
        against its own path (``secret.md`` leaves out ``.private/secret.md``), hold there
        too. Each folder's answer is remembered."""
        if not self.inside(real):  # (asked only of places inside: no walk up past the root)
            return None
        unknown = []  # the folders from ``real`` up to the first one known (or the root)
        at = real
        while at not in self.places and at != self.root:
            unknown.append(at)
            at = os.path.dirname(at)
        if at not in self.places:
            self.places[at] = _Place("", self.rules_in_unlisted(at, "", self.root_rules))
        for path in reversed(unknown):  # down again, each folder from the one holding it
            above = self.places[os.path.dirname(path)]
            name = os.path.basename(path)
            if above is None or above.leaves_out(name, True):
                self.places[path] = None
            else:
                rel = above.child(name)
                self.places[path] = _Place(rel, self.rules_in_unlisted(path, rel, above.rules))
        return self.places[real]

    def rules_in_unlisted(self, dirpath: str, rel: str, rules: IgnoreStack) -> IgnoreStack:
        """``rules_below`` for a folder not listed: its rule files looked for by name."""
        names = {n for n in _RULE_NAMES if os.path.lexists(os.path.join(dirpath, n))}
        return self.rules_below(dirpath, rel, rules, names)

    def left_out_where_it_lies(self, real: str, is_dir: bool) -> bool:
        """Whether the rules where ``real`` lies (``place_of`` its folder) leave it out."""
        place = self.place_of(os.path.dirname(real))
        return place is None or place.leaves_out(os.path.basename(real), is_dir)

    def not_utf8(self, path: str, child: str) -> None:
        """Report a name Python could not read as UTF-8. Under a locale whose file-system
        encoding is not UTF-8 (``C`` with ``PYTHONUTF8=0``) a valid UTF-8 name reads so too:
        the file is there, and what was stored from it under another locale is kept."""
        try:
            as_utf8 = os.fsencode(path).decode("utf-8")
        except UnicodeDecodeError:
            reason = (
                "name is not valid UTF-8; rename it, or name it in a .mixleignore to leave it out"
            )
            self.result.failed.append((shown_path(child), reason))
            return
        encoding = sys.getfilesystemencoding()
        reason = f"name cannot be read in the locale's file-system encoding ({encoding})"
        self.result.failed.append((shown_path(child), f"{reason}; use a UTF-8 locale"))
        self.result.unreadable.append(as_utf8)

    def met_before(self, lies: _Place, name: str, child: str) -> bool:
        """Whether the file ``name`` of a folder walked through a link, which ``lies`` there,
        is left out where it lies, or was taken already (through another link: said so)."""
        if lies.leaves_out(name, False):
            return True
        real = lies.child(name)
        taken = self.taken_through_links.setdefault(real, child)
        if taken != child:
            self.result.skipped.append((child, f"same file as {taken}"))
        return taken != child

    @staticmethod
    def ignored(entry: os.DirEntry[str], child: str, rules: IgnoreStack) -> bool:
        try:
            return rules.ignored(child, entry.name, entry.is_dir(follow_symlinks=False))
        except OSError:  # gone, or not to be looked at: nothing a link could lead to
            return False

    def leave_out(self, entry: os.DirEntry[str]) -> None:
        """Note an entry the walk leaves out (ignored, or a VCS folder), so that no link leads
        to it or into it."""
        try:
            if entry.is_dir(follow_symlinks=False):
                self.prune(entry.path)
            elif entry.is_file(follow_symlinks=False):
                # stat, not the listing's inode number: overlay file systems may list one
                # that stat does not give
                info = entry.stat(follow_symlinks=False)
                self.ignored_files.add((info.st_dev, info.st_ino))
        except OSError:  # gone already (an editor's swap file): nothing to lead to
            pass

    def follow_links(self) -> Iterator[list[FileEntry]]:
        while self.links:
            link = self.links.pop(0)
            yield from self.follow(link)

    def follow(self, link: _Link) -> Iterator[list[FileEntry]]:
        skipped = self.result.skipped
        try:
            real = os.path.realpath(link.path)
            info = os.stat(link.path)
        except OSError:  # a link to itself, or a ring of links, never resolves
            skipped.append((link.rel, link_trouble(link.path)))
            return
        if not self.inside(real):
            skipped.append((link.rel, "symlink leads outside the ingest root"))
            return
        if self.exclude and self.excluded(real):
            skipped.append((link.rel, "symlink leads into the shard"))
            return
        if self.in_pruned(real):
            skipped.append((link.rel, f"symlink leads {_IGNORED_DIR}"))
            return
        is_dir = stat.S_ISDIR(info.st_mode)
        if self.unwalked(real) and self.left_out_where_it_lies(real, is_dir):
            skipped.append((link.rel, f"symlink leads {_IGNORED_DIR if is_dir else _IGNORED_FILE}"))
            return
        key = (info.st_dev, info.st_ino)
        if is_dir:
            if key in self.dirs_seen:
                here = os.path.realpath(os.path.dirname(link.path))
                loop = here == real or here.startswith(real + os.sep)
                reason = "symlink loop" if loop else "symlink to a directory already walked"
                skipped.append((link.rel, reason))
                return
            self.via_link = True
            yield from self.walk_tree(link.path, link.rel, link.ignores)
        elif stat.S_ISREG(info.st_mode):
            if key in self.files_seen:
                skipped.append((link.rel, f"same file as {self.files_seen[key]}"))
                return
            if key in self.ignored_files:
                skipped.append((link.rel, f"symlink leads {_IGNORED_FILE}"))
                return
            self.files_seen[key] = link.rel
            self.taken_through_links[os.path.relpath(real, self.root)] = link.rel
            yield [FileEntry.of(link.path, link.rel, info)]
        else:
            skipped.append((link.rel, "not a regular file"))


def _holds_shard(entries: list[os.DirEntry[str]]) -> bool:
    """Whether a folder's entries are a shard's: ``SHARD_FILES`` among them, as files."""
    found = [e for e in entries if e.name in SHARD_FILES]
    return len(found) == len(SHARD_FILES) and all(e.is_file() for e in found)


def shard_file(path: Path) -> bool:
    """Whether ``path`` is a shard's own file (one of ``SHARD_FILES``, beside the other): its
    lines are items already, and read as records they would come back as copies."""
    if path.name not in SHARD_FILES and not path.is_symlink():
        return False
    path = Path(os.path.realpath(path))  # (a link to one, by any name, is one too)
    return path.name in SHARD_FILES and all((path.parent / n).is_file() for n in SHARD_FILES)


def utf8_name(name: str) -> bool:
    """Whether a name from the file system is valid UTF-8 (Python keeps the bytes of one that
    is not as lone surrogates, which nothing can store or print)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def walk(
    root: Path,
    *,
    hidden: bool = False,
    exclude: Iterable[Path] = (),
    rules: IgnoreStack | None = None,
    extra_rules: Iterable[Rule] = (),
) -> WalkResult:
    """List the files under ``root`` that an ingest should consider (``files_by_folder``, all
    at once)."""
    result = WalkResult()
    folders = files_by_folder(
        root, result, hidden=hidden, exclude=exclude, rules=rules, extra_rules=extra_rules
    )
    result.files = [entry for files in folders for entry in files]
    return result


def files_by_folder(
    root: Path,
    into: WalkResult,
    *,
    hidden: bool = False,
    exclude: Iterable[Path] = (),
    rules: IgnoreStack | None = None,
    extra_rules: Iterable[Rule] = (),
) -> Iterator[list[FileEntry]]:
    """The files under ``root`` that an ingest should consider, a folder's at a time, as the
    walk finds them.

    Args:
        root: the directory to walk (an absolute, resolved path).
        into: receives the entries passed over with a reason (links out of the root, loops,
            unreadable folders) and the unreadable paths, as the walk meets them; complete once
            the iterator is exhausted.
        hidden: also enter hidden directories and take hidden files (names starting with
            ``.``); VCS directories are skipped regardless.
        exclude: directories never entered (the shard itself, when it lives in the tree).
        rules: rules already in force at ``root`` (from ignore files above it); those of its
            ignore files that could not be read fail as those in the tree do.
        extra_rules: patterns from the shard settings, overridden by the tree's ignore files.

    Yields:
        Non-empty lists of candidate files, in a stable order: by directory, files before
        sub-directories, then the files reached through links inside the root.
    """
    settings = RuleSet(tuple(extra_rules))
    walker = _Walker(root, hidden, exclude, into, settings)
    for unread in rules.unread if rules is not None else ():  # those above the root:
        # one passed over as git passes it over (a dotfile manager's linked ~/.gitignore)
        # would be told on every ingest below it
        if unread.failed or unread.untrusted:
            walker.tell_unread(unread, str(root), "")
    stack = walker.root_rules = (rules or IgnoreStack()).push(settings)
    yield from walker.walk_tree(str(root), "", stack)
    yield from walker.follow_links()


def link_trouble(path: str) -> str:
    """Why the symbolic link ``path`` leads nowhere: a loop, or nothing at its end."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop"
    return "broken symlink"


def _leads_to_folder(link: os.DirEntry[str]) -> bool:
    """Whether the symbolic link ``link`` leads to a folder; a loop or a broken link leads
    nowhere (and is told as such when followed, not as a file that failed)."""
    try:
        return link.is_dir()
    except OSError:
        return False
