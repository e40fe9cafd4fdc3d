"""The directory walk: hidden and VCS folders, symbolic links, special files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from substrate.errors import InvalidInputError
from substrate.ingest.report import SHARD_FILE, SHARD_LOG
from substrate.ingest.walk import WalkResult, files_by_folder, walk
from substrate.item import SubstrateItem


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{name}\n")


def test_order_is_stable_files_before_folders(tmp_path: Path) -> None:
    _touch(tmp_path, "b.md", "a.md", "z/c.md", "m/d.md")
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["a.md", "b.md", "m/d.md", "z/c.md"]
    entry = result.files[0]
    assert entry.path == str(tmp_path / "a.md")
    assert entry.size == len("a.md\n")
    assert entry.mtime_ns == os.stat(tmp_path / "a.md").st_mtime_ns


def test_files_are_handed_out_folder_by_folder_as_the_walk_goes(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "b.md", "empty/sub/c.md")
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "dangling").symlink_to(tmp_path / "missing")
    into = WalkResult()
    folders = files_by_folder(tmp_path, into)
    assert [f.rel for f in next(folders)] == ["a.md", "b.md"]
    assert into.skipped == []  # the later folder is not listed yet
    assert [[f.rel for f in files] for files in folders] == [["empty/sub/c.md"]]
    assert into.skipped == [("zz/dangling", "broken symlink")]
    assert into.files == []  # the files are the iterator's alone


def test_hidden_and_vcs_folders_are_skipped(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", ".env", ".hidden/b.md", ".git/c.md", "CVS/d.md", "e/.f.md")
    _touch(tmp_path, "e/.gitignore", ".mixleignore")  # the walk's own rules: read, not walked
    _touch(tmp_path, ".gitignore/g.md")  # (a folder of that name is a folder)
    assert [f.rel for f in walk(tmp_path).files] == ["a.md"]
    with_hidden = walk(tmp_path, hidden=True)
    assert [f.rel for f in with_hidden.files] == [
        ".env", "a.md", ".gitignore/g.md", ".hidden/b.md", "e/.f.md"]  # fmt: skip
    # never .git or CVS, nor the ignore files told of (but one that is no file)
    assert with_hidden.skipped == [(".gitignore", "ignore file not read: not a regular file")]


def test_entries_left_out_by_name_are_counted(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", ".env", ".hidden/b.md", ".git/c.md", "e/.f.md", "build/x.md")
    _touch(tmp_path, "draft.tmp", ".cache.tmp", ".mixle/items.jsonl")
    (tmp_path / ".gitignore").write_text("build/\n*.tmp\n")
    (tmp_path / ".mixleignore").write_text("# none\n")
    result = walk(tmp_path, exclude=[tmp_path / ".mixle"])
    # hidden: .env, .hidden, e/.f.md (not .git, the ignore files or the shard's own folder)
    assert (result.hidden, result.ignored) == (3, 3)  # build/, draft.tmp and .cache.tmp
    everything = walk(tmp_path, hidden=True, exclude=[tmp_path / ".mixle"])
    assert (everything.hidden, everything.ignored) == (0, 3)


def test_excluded_folder_is_not_entered(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "shard/items.md")
    assert [f.rel for f in walk(tmp_path, exclude=[tmp_path / "shard"]).files] == ["a.md"]


def test_symlink_out_of_the_root_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    _touch(outside, "secret.md")
    _touch(root, "a.md")
    (root / "escape").symlink_to(outside)
    (root / "escape.md").symlink_to(outside / "secret.md")
    result = walk(root)
    assert [f.rel for f in result.files] == ["a.md"]
    assert sorted(result.skipped) == [
        ("escape", "symlink leads outside the ingest root"),
        ("escape.md", "symlink leads outside the ingest root"),
    ]


def test_symlink_loop_is_reported_not_walked(tmp_path: Path) -> None:
    _touch(tmp_path, "d/a.md")
    (tmp_path / "d" / "back").symlink_to(tmp_path)
    (tmp_path / "d" / "self").symlink_to(tmp_path / "d")
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["d/a.md"]
    assert sorted(result.skipped) == [("d/back", "symlink loop"), ("d/self", "symlink loop")]


def test_file_reached_twice_is_ingested_once_under_its_real_path(tmp_path: Path) -> None:
    _touch(tmp_path, "real/a.md")
    (tmp_path / "alias").symlink_to(tmp_path / "real")  # sorts before "real"
    (tmp_path / "link.md").symlink_to(tmp_path / "real" / "a.md")
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["real/a.md"]
    assert sorted(result.skipped) == [
        ("alias", "symlink to a directory already walked"),
        ("link.md", "same file as real/a.md"),
    ]


def test_link_to_an_otherwise_unwalked_place_inside_the_root_is_followed(tmp_path: Path) -> None:
    _touch(tmp_path, ".store/doc.md", "top.md")
    (tmp_path / "docs").symlink_to(tmp_path / ".store")
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["top.md", "docs/doc.md"]
    assert result.files[1].path == str(tmp_path / "docs" / "doc.md")


def test_broken_symlink_and_special_files_are_reported(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (tmp_path / "self.md").symlink_to(tmp_path / "self.md")  # a link to itself
    os.mkfifo(tmp_path / "pipe.md")
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["a.md"]
    expected = [
        ("dangling.md", "broken symlink"),
        ("pipe.md", "not a regular file"),
        ("self.md", "symlink loop"),
    ]
    assert sorted(result.skipped) == expected
    # the same with ignore rules in force: the loop was a file that failed (exit 1)
    (tmp_path / ".gitignore").write_text("*.log\n")
    ruled = walk(tmp_path)
    assert sorted(ruled.skipped) == expected and ruled.failed == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_unreadable_folder_is_reported(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "locked/b.md")
    (tmp_path / "locked").chmod(0)
    try:
        result = walk(tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert [f.rel for f in result.files] == ["a.md"]
    assert result.failed[0][0] == "locked"
    assert result.failed[0][1].startswith("unreadable directory")


def test_a_link_leading_to_the_shard_does_not_walk_into_it(tmp_path: Path) -> None:
    store = tmp_path / ".store"
    (store / "shard" / "index").mkdir(parents=True)
    (store / "shard" / "items.jsonl").write_text("{}\n")
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "data").symlink_to(store)  # a visible name for a hidden folder
    files = [f.rel for f in walk(tmp_path, exclude=[store / "shard"]).files]
    assert files == ["a.md"]


_RENAME = "rename it, or name it in a .mixleignore to leave it out"


def test_a_name_that_is_not_utf8_fails_with_a_note(tmp_path: Path) -> None:
    from substrate.errors import InvalidInputError
    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    root = os.fsencode(tmp_path)
    try:
        for name in (b"caf\xe9.md", b"d\xe9j\xe0"):
            target = os.path.join(root, name)
            if name.endswith(b".md"):
                with open(target, "wb") as fh:
                    fh.write(b"# Latin-1 name\n")
            else:
                os.mkdir(target)
                with open(os.path.join(target, b"inside.md"), "wb") as fh:
                    fh.write(b"# in a folder with a Latin-1 name\n")
    except OSError:
        pytest.skip("this file system only takes UTF-8 names")
    (tmp_path / "good.md").write_text("# fine\n\nbody\n")
    walked = walk(tmp_path)
    assert [f.rel for f in walked.files] == ["good.md"]
    assert walked.failed == [  # named as scan reports name them: two such names differ
        ("caf\\xe9.md", f"name is not valid UTF-8; {_RENAME}"),
        ("d\\xe9j\\xe0", f"name is not valid UTF-8; {_RENAME}"),
    ]
    store = Substrate(tmp_path / ".shard")
    report = ingest_path(store, tmp_path)  # the rest is ingested, and the report can be shown
    # failed, not skipped: what they hold is never read, and a cron job must hear of it
    assert report.files_added == 1 and report.files_failed == 2 and not report.ok
    assert {i["source"] for i in report.as_dict()["issues"]} == {"caf\\xe9.md", "d\\xe9j\\xe0"}
    with pytest.raises(InvalidInputError, match="not valid UTF-8"):
        ingest_path(store, os.fsdecode(os.path.join(root, b"d\xe9j\xe0")))
    # masked before the escape: "\xff" then "AKIA..." would read as one word, no key in it
    with open(os.path.join(root, b"p\xffAKIAIOSFODNN7ABCDEFG.md"), "wb") as fh:
        fh.write(b"# key\n")
    shown = ingest_path(store, tmp_path).as_dict()
    assert "p\\xff[REDACTED:aws_access_key].md" in {i["source"] for i in shown["issues"]}
    assert "AKIAIOSFODNN7ABCDEFG" not in str(shown)


def test_a_link_into_an_ignored_folder_is_not_followed(tmp_path: Path) -> None:
    _touch(tmp_path, "build/secret.md", "build/sub/deep.md", "top.md")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "blink").symlink_to(tmp_path / "build")
    (tmp_path / "deeplink").symlink_to(tmp_path / "build" / "sub")
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["top.md"]
    assert sorted(result.skipped) == [
        ("blink", "symlink leads into an ignored folder"),
        ("deeplink", "symlink leads into an ignored folder"),
    ]


def test_a_link_to_an_ignored_file_is_not_followed(tmp_path: Path) -> None:
    _touch(tmp_path, "private.md", "draft.md", "sub/a.md")
    (tmp_path / ".gitignore").write_text("private.md\n")
    (tmp_path / "sub" / ".mixleignore").write_text("a.md\n")
    (tmp_path / "public.md").symlink_to("private.md")
    (tmp_path / "b.md").symlink_to("sub/a.md")
    (tmp_path / "copy.md").symlink_to("draft.md")  # a link to a file walked: one of them
    result = walk(tmp_path)
    assert [f.rel for f in result.files] == ["draft.md"]
    assert sorted(result.skipped) == [
        ("b.md", "symlink leads to an ignored file"),
        ("copy.md", "same file as draft.md"),
        ("public.md", "symlink leads to an ignored file"),
    ]


@pytest.mark.parametrize("hidden", [False, True])
def test_a_link_to_an_ignored_hidden_file_or_folder_is_not_followed(
    tmp_path: Path, hidden: bool
) -> None:
    _touch(tmp_path, ".env", ".private/a.md", ".drafts/b.md")
    (tmp_path / ".gitignore").write_text(".env\n.private/\n")
    (tmp_path / "config.md").symlink_to(".env")
    (tmp_path / "private.md").symlink_to(".private/a.md")
    (tmp_path / "draft.md").symlink_to(".drafts/b.md")  # hidden, not ignored: followed
    result = walk(tmp_path, hidden=hidden)
    expected = [".drafts/b.md"] if hidden else ["draft.md"]
    assert sorted(f.rel for f in result.files) == expected
    assert ("config.md", "symlink leads to an ignored file") in result.skipped
    assert ("private.md", "symlink leads into an ignored folder") in result.skipped


@pytest.mark.parametrize(
    ("rules", "links"),
    [
        # the root's rule matches the file where it lies, not the link's name
        ({".gitignore": "secret.md\n"}, {"s.md": ".private/secret.md"}),
        # the hidden folder's own rules, for a link to a file in it
        ({".private/.gitignore": "secret.md\n"}, {"s.md": ".private/secret.md"}),
        # a folder above the target left out by the hidden folder's rules
        ({".private/.gitignore": "sub/\n"}, {"x": ".private/sub"}),
        # the file reached through its own link, and through a link to its folder
        ({".private/.gitignore": "secret.md\n"}, {"z": ".private", "s.md": ".private/secret.md"}),
        # rules above a linked folder, for the files below it
        ({".private/.gitignore": "sub/secret.md\n"}, {"x": ".private/sub"}),
    ],
)
def test_a_link_into_a_hidden_folder_leaves_out_what_the_rules_leave_out_where_it_lies(
    tmp_path: Path, rules: dict[str, str], links: dict[str, str]
) -> None:
    _touch(tmp_path, ".private/secret.md", ".private/sub/secret.md", "top.md")
    for name, text in rules.items():
        (tmp_path / name).write_text(text)
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    assert [f.rel for f in walk(tmp_path).files] == ["top.md"]


def test_two_links_into_one_hidden_folder_take_each_file_once(tmp_path: Path) -> None:
    _touch(tmp_path, ".a/b/f.md", ".a/g.md")
    (tmp_path / "x").symlink_to(".a/b")
    (tmp_path / "y").symlink_to(".a")
    (tmp_path / "g.md").symlink_to(".a/g.md")
    result = walk(tmp_path)
    assert sorted(f.rel for f in result.files) == ["g.md", "x/f.md"]
    assert ("y/b", "folder already walked through another link") in result.skipped
    assert ("y/g.md", "same file as g.md") in result.skipped


def test_hard_links_in_a_hidden_folder_are_taken_as_in_a_visible_one(tmp_path: Path) -> None:
    _touch(tmp_path, ".a/f.md", "b/f.md")
    os.link(tmp_path / ".a" / "f.md", tmp_path / ".a" / "g.md")
    os.link(tmp_path / "b" / "f.md", tmp_path / "b" / "g.md")
    (tmp_path / "v").symlink_to(".a")
    assert [f.rel for f in walk(tmp_path).files] == ["b/f.md", "b/g.md", "v/f.md", "v/g.md"]


@pytest.mark.parametrize("hidden", [False, True])
def test_a_link_into_a_version_control_folder_is_not_followed(tmp_path: Path, hidden: bool) -> None:
    _touch(tmp_path, ".git/config", ".git/logs/HEAD", "a.md")
    (tmp_path / "gitlink").symlink_to(".git")
    (tmp_path / "cfg.txt").symlink_to(".git/config")
    result = walk(tmp_path, hidden=hidden)
    assert [f.rel for f in result.files] == ["a.md"]
    assert sorted(result.skipped) == [
        ("cfg.txt", "symlink leads into an ignored folder"),
        ("gitlink", "symlink leads into an ignored folder"),
    ]


def test_a_mixle_shard_in_the_tree_is_skipped_with_a_note(tmp_path: Path) -> None:
    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    other = Substrate(tmp_path / "notes" / "old-shard")
    other.put(SubstrateItem(kind="text", text="an item of another shard, password=Tr0ub4dor&3x!"))
    other.save()
    (tmp_path / "notes" / "old-shard" / "mixle.toml").write_text("format = 1\n")
    _touch(tmp_path, "notes/a.md", "notes/data/items.jsonl")
    (tmp_path / "notes" / "data" / "items.jsonl").write_text('{"text": "a log alone is data"}\n')
    (tmp_path / "notes" / "via-link").symlink_to(tmp_path / "notes" / "old-shard")
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path / "notes")
    assert sorted(i.provenance["source"] for i in Substrate(tmp_path / "shard").iter_items()) == [
        "a.md",
        "data/items.jsonl",
    ]
    skipped = [(f.source, f.reason) for f in report.files if f.status == "skipped"]
    assert skipped == [("old-shard", "a mixle shard"), ("via-link", "a mixle shard")]
    assert report.ok and not report.redactions
    # named itself, it is skipped too: its items are not data
    named = ingest_path(Substrate(tmp_path / "s2"), tmp_path / "notes" / "old-shard")
    assert [(f.source, f.reason) for f in named.files] == [("old-shard", "a mixle shard")]
    # its log, named alone, is refused: asked for and not ingested (a log without settings
    # beside it and without a log's first line is data, as above)
    log = ingest_path(Substrate(tmp_path / "s3"), tmp_path / "notes" / "old-shard" / "items.jsonl")
    assert [(f.source, f.status, f.reason) for f in log.files] == [
        ("items.jsonl", "failed", SHARD_FILE)
    ]
    settings = ingest_path(Substrate(tmp_path / "s3"), tmp_path / "notes/old-shard/mixle.toml")
    assert [(f.status, f.reason) for f in settings.files] == [("failed", SHARD_FILE)]
    assert not log.ok and len(Substrate(tmp_path / "s3")) == 0
    data = ingest_path(Substrate(tmp_path / "s3"), tmp_path / "notes" / "data" / "items.jsonl")
    assert data.files_added == 1
    from substrate.ingest import IngestReport, ingest_file

    told = IngestReport()  # the seed's ingest_file refuses it alike
    with pytest.raises(InvalidInputError, match="shard's own files"):
        ingest_file(Substrate(), tmp_path / "notes" / "old-shard" / "items.jsonl", report=told)
    assert [(f.status, f.reason) for f in told.files] == [("failed", SHARD_FILE)]


def test_a_copy_of_a_shard_log_is_refused_wherever_it_lies(tmp_path: Path) -> None:
    """A log copied out of its shard (a backup, a download) holds another shard's items, each
    in its own scope: read as records or documents they would come back in the ingest's
    scope. Its first line gives it away, in a walk, a named file, a stream and the seed's
    functions alike; nothing of it is stored."""
    from substrate.ingest import IngestReport, ingest_file, ingest_path, ingest_text, ingest_traces
    from substrate.store import Substrate

    other = Substrate(tmp_path / "team-shard")
    other.put(SubstrateItem(kind="text", text="merger plan, confidential", scope="board"))
    other.save()
    backup = tmp_path / "notes" / "backup" / "items.jsonl"
    backup.parent.mkdir(parents=True)
    backup.write_bytes((tmp_path / "team-shard" / "items.jsonl").read_bytes())
    (tmp_path / "notes" / "a.md").write_text("# A\n\nkept\n")
    shard = Substrate(tmp_path / "shard")
    walked = ingest_path(shard, tmp_path / "notes")
    assert [(f.source, f.status, f.reason) for f in walked.files if f.status != "added"] == [
        ("backup/items.jsonl", "failed", SHARD_LOG)
    ]
    streamed = ingest_text(shard, backup.read_bytes(), source="piped.jsonl")
    assert streamed.files_failed == 1
    for seed in (ingest_file, ingest_traces):
        told = IngestReport()
        with pytest.raises(InvalidInputError, match="shard's log"):
            seed(shard, backup, report=told)
        assert [(f.status, f.reason) for f in told.files] == [("failed", SHARD_LOG)]
        linked = tmp_path / "settings.jsonl"  # a link to one, by another name
        linked.unlink(missing_ok=True)
        linked.symlink_to(tmp_path / "team-shard" / "mixle.toml")
        for own in ("items.jsonl", "mixle.toml", linked):  # a shard's own files, any format
            told = IngestReport()
            with pytest.raises(InvalidInputError, match="shard's own files"):
                seed(shard, tmp_path / "team-shard" / own, report=told)
            assert [(f.status, f.reason) for f in told.files] == [("failed", SHARD_FILE)]
    assert [item.text for item in shard.iter_items()] == ["# A\n\nkept"]


def _make_latin1(root: Path, *names: bytes) -> None:
    """Files (a folder, for a name ending in ``/``) named in Latin-1, not UTF-8."""
    try:
        for name in names:
            target = os.path.join(os.fsencode(root), name.rstrip(b"/"))
            if name.endswith(b"/"):
                os.mkdir(target)
                with open(os.path.join(target, b"inside.md"), "wb") as fh:
                    fh.write(b"# inside\n")
            else:
                with open(target, "wb") as fh:
                    fh.write(b"JPEG")
    except OSError:
        pytest.skip("this file system only takes UTF-8 names")


def test_a_name_that_is_not_utf8_can_be_left_out_by_the_rules(tmp_path: Path) -> None:
    _make_latin1(tmp_path, b"caf\xe9.jpg", b"d\xe9j\xe0/", b"caf\xe9.md")
    (tmp_path / "ok.md").write_text("# ok\n")
    (tmp_path / ".gitignore").write_text("*.jpg\n")
    (tmp_path / ".mixleignore").write_text("d?j?/\n")  # one "?" for each byte of the view
    (tmp_path / "photo").symlink_to(os.fsdecode(b"caf\xe9.jpg"))  # left out: not led to
    walked = walk(tmp_path)
    assert [f.rel for f in walked.files] == ["ok.md"]
    assert walked.skipped == [("photo", "symlink leads to an ignored file")]
    assert walked.failed == [("caf\\xe9.md", f"name is not valid UTF-8; {_RENAME}")]


def test_a_folder_removed_while_the_walk_goes_is_gone_not_unreadable(tmp_path: Path) -> None:
    # `rm -rf` of a folder during an ingest failed the run (exit 1, "unreadable directory:
    # No such file or directory") and kept the items of what was no longer there
    _touch(tmp_path, "a.md", "later/b.md")
    into = WalkResult()
    folders = files_by_folder(tmp_path, into)
    assert [f.rel for f in next(folders)] == ["a.md"]
    shutil.rmtree(tmp_path / "later")
    assert list(folders) == [] and into.failed == [] and into.unreadable == []
