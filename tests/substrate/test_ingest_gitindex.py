"""Files git tracks are walked though an ignore rule matches them, as git keeps them."""

from __future__ import annotations

import hashlib
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from substrate.ingest import ingest_path
from substrate.ingest.gitindex import _read, tracked_in
from substrate.store import Substrate


def _varint(value: int) -> bytes:
    """git's offset varint, as the index's version 4 writes a path's cut."""
    out = [value & 0x7F]
    value >>= 7
    while value:
        value -= 1
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def _index(paths: list[str], version: int = 2, hash_bytes: int = 20) -> bytes:
    """An index of ``paths`` as git writes one (stat data zeroed)."""
    data = struct.pack(">4sII", b"DIRC", version, len(paths))
    previous = b""
    for n, path in enumerate(paths):
        name = path.encode()
        extended = version == 3 and n % 2 == 1  # (as `git add -N` marks an entry)
        flags = min(len(name), 0xFFF) | (0x4000 if extended else 0)
        entry = bytes(40) + hashlib.sha256(name).digest()[:hash_bytes] + struct.pack(">H", flags)
        entry += b"\x20\x00" if extended else b""
        if version == 4:
            common = 0
            while common < min(len(previous), len(name)) and previous[common] == name[common]:
                common += 1
            entry += _varint(len(previous) - common) + name[common:] + b"\0"
        else:
            entry += name + b"\0"
            entry += b"\0" * (-len(entry) % 8)
        data += entry
        previous = name
    return data + (hashlib.sha1 if hash_bytes == 20 else hashlib.sha256)(data).digest()


PATHS = ["build/keep.txt", "build/sub/deep.txt", "docs/a.txt", "docs/b.txt", "é x/ü.md"]


@pytest.mark.parametrize(("version", "hash_bytes"), [(2, 20), (3, 20), (4, 20), (2, 32)])
def test_the_index_s_paths_are_read_in_each_format(
    tmp_path: Path, version: int, hash_bytes: int
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "index").write_bytes(_index(PATHS, version, hash_bytes))
    # (its configuration is not read: a remote named sha256-tools misled a first version)
    (tmp_path / ".git" / "config").write_text('[remote "o"]\n\turl = x/sha256-tools.git\n')
    _read.cache_clear()
    tracked = tracked_in(tmp_path)
    assert tracked is not None and tracked.files == frozenset(PATHS)
    assert tracked.holds("build/sub", True) and tracked.holds("build", True)
    assert not tracked.holds("build/sub", False) and not tracked.holds("nothing", True)


@pytest.mark.parametrize(
    "damage",
    [
        lambda index: b"DIRC" + struct.pack(">II", 9, 1) + bytes(80),  # another format
        lambda index: index[:-1] + bytes([index[-1] ^ 1]),  # its checksum wrong
        lambda index: index[:-20] + bytes(20),  # no checksum (index.skipHash)
        lambda index: index[:30],  # cut short
    ],
)
def test_an_index_not_read_here_tracks_nothing(tmp_path: Path, damage: Any) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "index").write_bytes(damage(_index(PATHS)))
    _read.cache_clear()
    assert tracked_in(tmp_path) is None


def _repo(root: Path) -> Path:
    (root / "build" / "sub").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build" / ".gitignore").write_text("!junk.txt\n")  # no file of a left-out folder
    (root / ".mixleignore").write_text("docs/b.txt\n")  # comes back (as in git)
    for path in [*PATHS[:4], "build/junk.txt", "build/sub/other.txt", "docs/kept.log"]:
        (root / path).write_text(f"the note {path}\n")
    return root


def _walked(root: Path) -> set[str]:
    store = Substrate(root.parent / "shard")
    ingest_path(store, root)
    return {str(item.provenance["source"]) for item in store.iter_items()}


def test_a_tracked_file_an_ignore_rule_matches_is_ingested_as_git_keeps_it(
    tmp_path: Path,
) -> None:
    """`git add -f` of a file an ignore rule matches, or a rule added after a folder was
    committed: the walk left such files out, and removed the items they had given."""
    root = _repo(tmp_path / "repo")
    (root / ".git").mkdir()
    (root / ".git" / "index").write_bytes(_index([*PATHS[:4], "docs/kept.log"]))
    _read.cache_clear()
    assert _walked(root) == {"build/keep.txt", "build/sub/deep.txt", "docs/a.txt", "docs/kept.log"}


def test_a_repository_inside_the_folder_named_keeps_its_tracked_files_too(
    tmp_path: Path,
) -> None:
    """Named from above (`mixle ingest ~/src`), the repository's tracked files were left out
    again, and the items an ingest of the repository itself had stored were removed."""
    root = _repo(tmp_path / "src" / "repo")
    (root / ".git").mkdir()
    (root / ".git" / "index").write_bytes(_index(["build/keep.txt", "docs/kept.log"]))
    _read.cache_clear()
    assert {"repo/build/keep.txt", "repo/docs/kept.log"} <= _walked(tmp_path / "src")


def test_without_an_index_the_rules_alone_decide(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / ".git").mkdir()
    assert _walked(root) == {"docs/a.txt"}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("version", ["2", "4"])
def test_what_git_lists_is_what_the_index_reader_reads(tmp_path: Path, version: str) -> None:
    root = _repo(tmp_path / "repo")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", ".gitignore", "docs/a.txt"], check=True)
    subprocess.run([*git, "add", "-f", "build/keep.txt", "docs/kept.log"], check=True)
    subprocess.run([*git, "update-index", "--index-version", version], check=True)
    listed = subprocess.run([*git, "ls-files", "-z"], capture_output=True, check=True).stdout
    _read.cache_clear()
    tracked = tracked_in(root)
    assert tracked is not None
    assert tracked.files == {p.decode() for p in listed.split(b"\0") if p}
