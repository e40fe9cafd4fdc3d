"""Ignore rules in gitignore syntax, alone and as the walk applies them."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from substrate.ingest.ignore import IgnoreStack, Rule, RuleSet, compile_rule, parse_rules
from substrate.ingest.walk import WalkResult, walk


def _ignored(patterns: str, rel: str, is_dir: bool = False) -> bool:
    stack = IgnoreStack().push(RuleSet(tuple(parse_rules(patterns))))
    return stack.ignored(rel, rel.rsplit("/", 1)[-1], is_dir)


@pytest.mark.parametrize(
    ("patterns", "rel", "is_dir", "expected"),
    [
        ("*.log", "a/b/debug.log", False, True),  # no slash: matches the name at any depth
        ("*.log", "a/b/debug.txt", False, False),
        ("debug?.txt", "debug1.txt", False, True),
        ("debug?.txt", "debug10.txt", False, False),
        ("file[0-9].md", "file7.md", False, True),
        ("file[!0-9].md", "file7.md", False, False),
        ("file[!0-9].md", "filex.md", False, True),
        ("/top.md", "top.md", False, True),  # anchored to the ignore file's folder
        ("/top.md", "sub/top.md", False, False),
        ("doc/frotz", "doc/frotz", True, True),  # a middle slash anchors too
        ("doc/frotz", "a/doc/frotz", True, False),
        ("build/", "build", True, True),  # directory only
        ("build/", "build", False, False),
        ("**/cache", "x/y/cache", True, True),
        ("**/cache", "cache", True, True),
        ("a/**/b", "a/b", False, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("logs/**", "logs/x/y.txt", False, True),
        ("logs/**", "logs", True, False),
        ("\\#hash.md", "#hash.md", False, True),
        ("\\!bang.md", "!bang.md", False, True),
        ("trailing.md   ", "trailing.md", False, True),
        ("# a comment\n\n", "# a comment", False, False),
    ],
)
def test_gitignore_patterns(patterns: str, rel: str, is_dir: bool, expected: bool) -> None:
    assert _ignored(patterns, rel, is_dir) is expected


@pytest.mark.parametrize(
    ("patterns", "rel", "is_dir", "expected"),
    [
        # git matches bytes: "é" is two of them
        ("?", "é", False, False),
        ("??", "é", False, True),
        ("[é]", "é", False, False),
        ("[!a]a", "éa", False, False),
        ("é*", "éa/b.md", False, False),
        ("é*", "éa", True, True),
        ("日本/", "x/日本", True, True),
        # classes
        ("[[:alpha:]]", "a", False, True),
        ("[[:digit:]]x", "7x", False, True),
        ("[[:digit:]]x", "ax", False, False),
        ("[[:nope:]]", "a", False, False),  # an unknown class: the pattern matches nothing
        ("a[[:space:]]b", "a b", False, True),
        ("a[[:space:]]b", "a\vb", False, False),  # git's space is " \t\n\r" only
        ("a[![:space:]]b", "a\fb", False, True),
        # "[:" names a class only when the first "]" after it follows a ":"; else "[" is itself
        ("[[:]x:].md", "[x:].md", False, True),
        ("[[:]x:].md", ":x:].md", False, True),
        ("[[:a]b:]]", "[b:]]", False, True),
        ("[z-a]", "z", False, True),  # a reversed range: its first character only
        ("[z-a]", "m", False, False),
        ("n[/-3]", "n1", False, True),  # a slash in a class does not cut the pattern
        ("[ab", "[ab", False, False),  # unclosed: matches nothing
        ("[]a]", "]", False, True),
        # stars
        ("d/***/f.txt", "d/f.txt", False, True),
        ("d/***/f.txt", "d/x/y/f.txt", False, True),
        ("a**b", "a/b", False, False),
        # a "**" glued to the text before the first wildcard spans folders, as git's own
        # matcher reads it (it compares that text first, then matches the rest alone)
        ("b**/x", "bx", False, True),
        ("b**/x", "bq/c/x", False, True),
        ("b**/*", "b", False, True),
        ("a/b**", "a/bc/d", False, True),
        ("b*/x", "b/c/x", False, False),  # one star: a single folder
        ("b**x/y", "b/q/x/y", False, False),  # not before a slash: a star
        ("b**x/y", "bqx/y", False, True),
        ("a\\**/x", "a*/q/x", False, False),  # the escape ends the text compared first
        ("!b**/x", "bq/x", False, False),
        # escapes, spaces and slashes
        ("foo\\", "foo\\", False, False),  # a trailing backslash: matches nothing
        ("foo\\\\ ", "foo\\", False, True),  # an escaped backslash, then a trailing space
        ("foo\\ ", "foo ", False, True),
        ("d//", "d", True, False),  # one slash is stripped, and "d/" names no path
        ("//a", "a", False, False),
        # lines
        ("\ufeffa\n", "a", False, True),  # a byte-order mark is skipped
        ("a\r\nb\r\n", "b", False, True),
        ("a\rb\n", "a", False, False),  # only a line feed ends a line
        ("foo\x00bar\n", "foo", False, True),  # a NUL ends the pattern, as git reads it
    ],
)
def test_patterns_match_as_git_matches_them(
    patterns: str, rel: str, is_dir: bool, expected: bool
) -> None:
    assert _ignored(patterns, rel, is_dir) is expected


def test_non_ascii_folders_of_nested_ignore_files(tmp_path: Path) -> None:
    _touch(tmp_path, "café/a.md", "café/b.tmp", "café/sub/c.tmp")
    (tmp_path / "café" / ".gitignore").write_text("/b.tmp\nsub/?.tmp\n")
    assert _walked(tmp_path) == ["café/a.md"]


_LINKED = "ignore file not read: a symbolic link, which git does not follow"


def test_a_gitignore_that_is_a_link_is_not_read_and_said_so(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "b.md", "elsewhere/rules")
    (tmp_path / "elsewhere" / "rules").write_text("a.md\n")
    (tmp_path / ".mixleignore").write_text("elsewhere/\n")
    (tmp_path / ".gitignore").symlink_to(tmp_path / "elsewhere" / "rules")
    walked = walk(tmp_path)
    assert [f.rel for f in walked.files] == ["a.md", "b.md"]
    assert walked.skipped == [(".gitignore", _LINKED)] and walked.failed == []


def test_a_mixleignore_that_is_a_link_is_followed(tmp_path: Path) -> None:
    _touch(tmp_path, "rules", "t/a.md", "t/b.txt", "t/sub/c.md")
    (tmp_path / "rules").write_text("*.md\n")
    (tmp_path / "t" / ".mixleignore").symlink_to("../rules")
    walked = walk(tmp_path / "t")
    assert [f.rel for f in walked.files] == ["b.txt"] and walked.skipped == []


def test_the_info_exclude_of_a_repository_is_read_through_a_link(tmp_path: Path) -> None:
    from substrate.ingest.ignore import enclosing_rules

    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / "rules").write_text("*.md\n")
    (tmp_path / ".git" / "info" / "exclude").symlink_to(tmp_path / "rules")  # git follows it
    _touch(tmp_path, "a.md", "b.txt")
    assert _walked(tmp_path, rules=enclosing_rules(tmp_path)) == ["b.txt", "rules"]


def test_a_mixleignore_leading_to_a_fifo_is_not_waited_on(
    tmp_path: Path, without_hanging: Any
) -> None:
    import os

    _touch(tmp_path, "t/a.md")
    os.mkfifo(tmp_path / "fifo")  # nobody will ever write to it
    (tmp_path / "t" / ".mixleignore").symlink_to("../fifo")
    walked = without_hanging(lambda: walk(tmp_path / "t"), "reading the ignore file")
    assert [f.rel for f in walked.files] == ["a.md"]
    assert walked.skipped == [(".mixleignore", "ignore file not read: not a regular file")]


def test_a_mixleignore_link_leading_nowhere_is_said_so(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "s/b.md")
    (tmp_path / ".mixleignore").symlink_to(".mixleignore")
    (tmp_path / "s" / ".mixleignore").symlink_to("missing")
    walked = walk(tmp_path)
    assert [f.rel for f in walked.files] == ["a.md", "s/b.md"]
    assert walked.skipped == [
        (".mixleignore", "ignore file not read: symlink loop"),
        ("s/.mixleignore", "ignore file not read: broken symlink"),
    ]


def _unreadable(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    """Have reading the files at ``paths`` fail as a file without read permission does
    (chmod does not stop root)."""
    import errno

    from substrate.ingest import ignore

    real = ignore.read_regular
    denied = {str(path) for path in paths}

    def read(path: str, *, follow: bool = False) -> bytes:
        if path in denied:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(path, follow=follow)

    monkeypatch.setattr(ignore, "read_regular", read)


_DENIED = "ignore file cannot be read (Permission denied): its rules are not applied"


def test_an_ignore_file_that_cannot_be_read_fails_the_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _touch(tmp_path, "a.md", "sub/b.md", "sub/c.log")
    (tmp_path / "sub" / ".gitignore").write_text("*.log\n")
    _unreadable(monkeypatch, tmp_path / "sub" / ".gitignore")
    walked = walk(tmp_path)
    assert [f.rel for f in walked.files] == ["a.md", "sub/b.md", "sub/c.log"]
    assert walked.failed == [("sub/.gitignore", _DENIED)]
    # what it leaves out is not known, so nothing in its folder is taken for gone
    assert walked.unreadable == [str(tmp_path / "sub")]


def _owned_by(monkeypatch: pytest.MonkeyPatch, uid: int, *paths: Path) -> None:
    """Have ``os.lstat`` say ``paths`` belong to ``uid`` (giving them away takes root)."""
    real, theirs = os.lstat, {str(path) for path in paths}

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = real(path, *args, **kwargs)
        if str(path) not in theirs:
            return found
        fields = list(found)[:10]
        fields[4] = uid  # st_uid
        return os.stat_result(fields)

    monkeypatch.setattr(os, "lstat", lstat)


def test_another_users_ignore_file_in_a_folder_anyone_writes_to_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder anyone may write to (/tmp) may hold another user's .mixleignore, .gitignore
    or .git: read, they would take files out of this user's shard (and prune their items).
    The user's own and root's are read there; elsewhere, anyone's (a checkout someone else
    owns, ingested as root in a container; a group's share, its members' to change)."""
    from substrate.ingest.ignore import enclosing_rules
    from substrate.ingest.walk import files_by_folder

    def walked_below(folder: Path) -> tuple[list[str], list[tuple[str, str]]]:
        walked = WalkResult()
        found = files_by_folder(folder, walked, rules=enclosing_rules(folder))
        return sorted(f.rel for files in found for f in files), walked.skipped

    _touch(tmp_path, "shared/mine/a.md", "shared/mine/b.txt", "shared/.git/info/exclude")
    shared, mine = tmp_path / "shared", tmp_path / "shared" / "mine"
    for name in (".mixleignore", ".gitignore", ".git/info/exclude"):
        (shared / name).write_text("*.md\n")
    shared.chmod(0o1777)  # as /tmp, the user's own files: read
    assert walked_below(mine) == (["b.txt"], [])
    planted = (shared / ".mixleignore", shared / ".gitignore", shared / ".git")
    with monkeypatch.context() as roots:
        _owned_by(roots, 0, *planted)  # root's: read
        assert walked_below(mine) == (["b.txt"], [])
    _owned_by(monkeypatch, 4243, *planted)  # another user's
    for mode in (0o755, 0o2775):  # only its owner writes to it; a group's share: read
        shared.chmod(mode)
        assert walked_below(mine) == (["b.txt"], [])
    shared.chmod(0o1777)
    said = "ignore file not read: another user's, in a folder anyone may write to"
    assert walked_below(mine) == (
        ["a.md", "b.txt"],
        [("../.gitignore", said), ("../.mixleignore", said)],  # and .git is no work tree
    )
    (mine / ".git" / "info").mkdir(parents=True)  # the folder named is the user's choice:
    (mine / ".git" / "info" / "exclude").write_text("b.txt\n")  # its .git counts
    assert walked_below(mine) == (["a.md"], [("../.mixleignore", said)])  # as in a walk


def test_ignore_files_above_the_folder_not_read_are_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest.ignore import enclosing_rules
    from substrate.ingest.walk import files_by_folder

    _touch(tmp_path, "rules", "top/sub/a.md")
    (tmp_path / "top" / ".gitignore").symlink_to("../rules")  # in no repository: applies
    (tmp_path / "top" / ".mixleignore").write_text("*.md\n")
    _unreadable(monkeypatch, tmp_path / "top" / ".mixleignore")
    sub = tmp_path / "top" / "sub"
    walked = WalkResult()
    files = [
        f.rel for found in files_by_folder(sub, walked, rules=enclosing_rules(sub)) for f in found
    ]
    assert files == ["a.md"]
    assert walked.skipped == []  # passed over as git does, and above: not told every time
    assert walked.failed == [("../.mixleignore", _DENIED)]
    assert walked.unreadable == [str(sub)]


def test_a_pattern_git_cannot_use_does_not_stop_the_walk(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "z.md", "[x.md")
    (tmp_path / ".gitignore").write_text("[z-a].md\n[x.md\n[[:nope:]]\nfoo\\\n")
    assert _walked(tmp_path) == ["[x.md", "a.md"]


def test_negation_and_last_match_wins() -> None:
    patterns = "*.md\n!keep.md\n"
    assert _ignored(patterns, "drop.md")
    assert not _ignored(patterns, "keep.md")
    assert _ignored("!keep.md\n*.md\n", "keep.md")


def test_blank_and_comment_lines_compile_to_nothing() -> None:
    assert compile_rule("") is None
    assert compile_rule("# note") is None
    assert compile_rule("/") is None


def _as_git_reads(pattern: str, rel: str) -> bool:
    """Whether ``pattern`` (letters, ``?``, ``*``, ``[ab]``, folders apart by ``/``, no ``/``
    first or last) matches ``rel``, worked out folder by folder: a segment of two stars or
    more alone matches any number of folders, and a ``/`` in the pattern anchors it to the
    whole path, else it matches the name. A pattern whose first wildcard is a ``**`` glued
    to the text before it is read as git reads it."""
    if "/" not in pattern:
        rel = rel.rsplit("/", 1)[-1]
    # git compares the text before the first wildcard first; a "**" then starts the rest
    cut = min((pattern.find(c) for c in "*?[" if c in pattern), default=len(pattern))
    after = pattern[cut:].lstrip("*")
    stars = len(pattern) - len(after) - cut  # at the first wildcard
    glued = cut > 0 and pattern[cut - 1] != "/" and stars >= 2
    if "/" in pattern and glued and after[:1] in ("", "/"):
        if not rel.startswith(pattern[:cut]):
            return False
        if not after:
            return True
        pattern, rel = "**" + after, rel[cut:]
    segments, parts = pattern.split("/"), rel.split("/")

    @cache
    def rest(i: int, j: int) -> bool:  # segments[i:] match parts[j:]
        if i == len(segments):
            return j == len(parts)
        segment = segments[i]
        if len(segment) >= 2 and not segment.strip("*"):
            if i == len(segments) - 1:  # "a/**": whatever is inside a; "**": anything
                return i == 0 or j < len(parts)
            return any(rest(i + 1, k) for k in range(j, len(parts) + 1))
        return j < len(parts) and fnmatchcase(parts[j], segment) and rest(i + 1, j + 1)

    return rest(0, 0)


def test_patterns_match_as_told_folder_by_folder() -> None:
    rng = random.Random(11)
    pieces = ["a", "b", "?", "*", "[ab]", "**", "a*", "*b"]
    matched = 0
    for _ in range(1500):
        segments = [
            "".join(rng.choices(pieces, k=rng.randint(1, 4))) for _ in range(rng.randint(1, 5))
        ]
        pattern = "/".join(segments)
        rule = compile_rule(pattern)
        assert rule is not None
        for _ in range(12):
            parts = [
                "".join(rng.choices("ab", k=rng.randint(1, 6))) for _ in range(rng.randint(1, 6))
            ]
            rel = "/".join(parts)
            expected = _as_git_reads(pattern, rel)
            assert rule.matches(rel, parts[-1], False) is expected, (pattern, rel)
            matched += expected
    assert matched > 1500  # the patterns are not all too narrow to match anything


# Patterns whose every split of a long name or a deep path was tried, one after another: each
# ran for over ten minutes, and a file holding one stalled every ingest of its tree.
_MANY_STARS = """
from substrate.ingest.ignore import IgnoreStack, RuleSet, parse_rules
rules = parse_rules(
    "*a*a*a*a*a*a*a*a*a*a*a*a*b\\n"
    "**/a/**/a/**/a/**/a/**/a/**/a/**/b\\n"
    "x/**/*a*a*a*a*a*a*c/**/a*a*a*a*a*a*b\\n"
    "[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*0\\n"
)
stack = IgnoreStack().push(RuleSet(tuple(rules)))
for rel in ["a" * 250, "a/" * 120 + "c", "x/" + ("a" * 200 + "/") * 40 + "d"]:
    assert not stack.ignored(rel, rel.rsplit("/", 1)[-1], False)
"""


def test_patterns_with_many_stars_take_time_in_proportion_to_the_path() -> None:
    # a hang guard, not a speed test: this takes well under a second, and took over ten minutes
    subprocess.run([sys.executable, "-c", _MANY_STARS], check=True, timeout=60)


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")


def _walked(root: Path, **kw: object) -> list[str]:
    return [f.rel for f in walk(root, **kw).files]  # type: ignore[arg-type]


def test_walk_honours_nested_ignore_files(tmp_path: Path) -> None:
    _touch(
        tmp_path,
        "a.md",
        "a.log",
        "keep.log",
        "build/out.md",
        "sub/b.md",
        "sub/c.tmp",
        "sub/deep/d.tmp",
        "sub/deep/e.md",
    )
    (tmp_path / ".gitignore").write_text("*.log\n!keep.log\nbuild/\n")
    (tmp_path / "sub" / ".gitignore").write_text("*.tmp\n!/deep/d.tmp\n")
    assert sorted(_walked(tmp_path)) == [
        "a.md",
        "keep.log",
        "sub/b.md",
        "sub/deep/d.tmp",
        "sub/deep/e.md",
    ]


def test_mixleignore_overrides_gitignore_in_the_same_folder(tmp_path: Path) -> None:
    _touch(tmp_path, "notes.md", "draft.md", "gen.txt")
    (tmp_path / ".gitignore").write_text("gen.txt\n")
    (tmp_path / ".mixleignore").write_text("draft.md\n!gen.txt\n")
    assert _walked(tmp_path) == ["gen.txt", "notes.md"]


def test_file_in_ignored_folder_cannot_be_re_included(tmp_path: Path) -> None:
    _touch(tmp_path, "vendor/lib.md", "top.md")
    (tmp_path / ".gitignore").write_text("vendor/\n!vendor/lib.md\n")
    assert _walked(tmp_path) == ["top.md"]


def test_gitignore_of_the_enclosing_repository_applies(tmp_path: Path) -> None:
    from substrate.ingest.ignore import enclosing_rules

    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.tmp\n/docs/private/\n")
    docs = tmp_path / "docs"
    _touch(docs, "a.md", "b.tmp", "private/secret.md")
    assert _walked(docs, rules=enclosing_rules(docs)) == ["a.md"]
    # a folder that is itself the top of a work tree ignores what is above it
    (docs / ".git").mkdir()
    assert _walked(docs, rules=enclosing_rules(docs)) == ["a.md", "b.tmp", "private/secret.md"]


def test_the_repositorys_info_exclude_applies_below_its_gitignore(tmp_path: Path) -> None:
    from substrate.ingest.ignore import enclosing_rules

    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.md\n*.tmp\n")
    (tmp_path / ".gitignore").write_text("!keep.tmp\n")  # a .gitignore overrides it
    _touch(tmp_path, "a.md", "secret.md", "keep.tmp", "b.tmp", "docs/secret.md", "docs/c.md")
    assert _walked(tmp_path, rules=enclosing_rules(tmp_path)) == ["a.md", "keep.tmp", "docs/c.md"]
    docs = tmp_path / "docs"  # a sub-folder of the repository: its exclude still applies
    assert _walked(docs, rules=enclosing_rules(docs)) == ["c.md"]


def test_a_nested_repository_does_not_take_the_outer_ones_rules(tmp_path: Path) -> None:
    from substrate.ingest.ignore import enclosing_rules

    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("*.md\n")
    (tmp_path / ".gitignore").write_text("*.txt\n")
    (tmp_path / "nested" / ".git" / "info").mkdir(parents=True)
    (tmp_path / "nested" / ".git" / "info" / "exclude").write_text("own.log\n")
    _touch(tmp_path, "a.txt", "b.log", "nested/n.txt", "nested/n.md", "nested/own.log")
    walked = _walked(tmp_path, rules=enclosing_rules(tmp_path))
    assert walked == ["b.log", "nested/n.md", "nested/n.txt"]  # as ingesting nested/ alone
    nested = tmp_path / "nested"
    assert _walked(nested, rules=enclosing_rules(nested)) == ["n.md", "n.txt"]


def test_a_nested_repository_keeps_the_mixleignore_rules_above_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mixleignore").write_text("*.log\n")  # mixle's own, not git's: they hold
    (tmp_path / ".gitignore").write_text("*.tmp\n")
    (tmp_path / "vendor" / "lib" / ".git").mkdir(parents=True)
    _touch(tmp_path, "a.log", "vendor/lib/x.log", "vendor/lib/y.tmp", "vendor/lib/z.md")
    assert _walked(tmp_path) == ["vendor/lib/y.tmp", "vendor/lib/z.md"]


def test_extra_rules_from_settings_are_overridden_by_the_tree(tmp_path: Path) -> None:
    _touch(tmp_path, "a.md", "b.md", "c.md")
    (tmp_path / ".mixleignore").write_text("!b.md\n")
    extra = parse_rules("a.md\nb.md\n")
    assert _walked(tmp_path, extra_rules=extra) == ["b.md", "c.md"]


@pytest.mark.parametrize("name", [".gitignore", ".mixleignore"])
def test_an_ignore_file_that_is_a_fifo_is_skipped_not_waited_on(
    tmp_path: Path, name: str, without_hanging: Any
) -> None:
    import os

    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    (tmp_path / "a.md").write_text("# A\n\nWords.\n")
    os.mkfifo(tmp_path / name)  # nobody will ever write to it
    report = without_hanging(lambda: ingest_path(Substrate(), tmp_path), "reading the ignore file")
    assert report.files_added == 1


def _enclosed(folder: Path) -> list[str]:
    from substrate.ingest.ignore import enclosing_rules

    return _walked(folder, rules=enclosing_rules(folder))


def test_a_subfolder_leaves_out_what_the_walk_of_its_parent_does(tmp_path: Path) -> None:
    top = tmp_path / "notes"
    (top / ".git").mkdir(parents=True)
    (top / ".mixleignore").write_text("*.secret.md\n")
    _touch(top, "sub/a.secret.md", "sub/ok.md")
    assert _enclosed(top) == ["sub/ok.md"]
    assert _enclosed(top / "sub") == ["ok.md"]
    (top / ".git").rmdir()  # outside any repository, a .gitignore above applies too
    (top / ".mixleignore").unlink()
    (top / ".gitignore").write_text("*.secret.md\n")
    assert _enclosed(top / "sub") == ["ok.md"]


def test_mixleignore_files_above_a_repository_apply_in_it(tmp_path: Path) -> None:
    (tmp_path / ".mixleignore").write_text("*.log\n")  # mixle's own: no repository stops it
    (tmp_path / ".gitignore").write_text("*.tmp\n")  # git's: stops at the repository's top
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    _touch(repo, "a.log", "b.tmp", "docs/c.log", "docs/d.tmp")
    assert _enclosed(repo) == ["b.tmp", "docs/d.tmp"]
    assert _enclosed(repo / "docs") == ["d.tmp"]


# a tree whose every folder (not left out itself) is walked below as in the walk of the top
_TREE_RULES = {
    ".gitignore": "*.tmp\n!keep.tmp\n",
    ".mixleignore": "*.secret.md\na/b/only.md\n",
    "a/.gitignore": "!b.tmp\nlocal.md\n",
    "a/.mixleignore": "!x.secret.md\n/anchored.md\nb.tmp\n",
    "a/b/.gitignore": "!local.md\n*.log\n",
}
_TREE_FILES = [
    f"{folder}{name}"
    for folder in ("", "a/", "a/b/", "a/b/n/", "a/b/n/m/")
    for name in ("b.tmp", "c.tmp", "keep.tmp", "x.secret.md", "y.secret.md", "local.md")
    + ("anchored.md", "only.md", "z.log", "plain.md")
]


@pytest.mark.parametrize("repository", [None, "", "a", "a/b/n"])
def test_each_subfolder_decides_as_the_walk_of_the_top(
    tmp_path: Path, repository: str | None
) -> None:
    top = tmp_path / "top"
    _touch(top, *_TREE_FILES)
    for rel, rules in _TREE_RULES.items():
        (top / rel).write_text(rules)
    if repository is not None:
        (top / repository / ".git").mkdir()
    whole = _enclosed(top)
    for folder in ("a", "a/b", "a/b/n", "a/b/n/m"):
        below = [rel.removeprefix(folder + "/") for rel in whole if rel.startswith(folder + "/")]
        assert _enclosed(top / folder) == below, folder


def test_an_unreadable_ignore_file_fails_the_run_and_keeps_what_it_let_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    root = tmp_path / "notes"
    _touch(root, "a.txt", "keep.md", "drop.md")
    (root / ".gitignore").write_text("*.md\n")
    (root / ".mixleignore").write_text("!keep.md\n")
    store = Substrate(tmp_path / ".shard")
    assert ingest_path(store, root).files_added == 2
    _unreadable(monkeypatch, root / ".mixleignore")
    report = ingest_path(store, root)
    assert [(f.source, f.status) for f in report.files] == [(".mixleignore", "failed")]
    assert not report.ok and report.items_removed == 0  # keep.md: left out, but not gone
    # one above the folder named is told where it is
    (root / "sub").mkdir()
    below = ingest_path(store, root / "sub")
    assert [(f.source, f.path) for f in below.files] == [
        ("../.mixleignore", str(root / ".mixleignore"))
    ]


def test_a_rule_set_decides_as_its_last_matching_rule_does() -> None:
    # rules that are a name, a name's ending, a path's first folder or a folder at any depth
    # are looked up, not tried (``_RuleIndex``): the verdict must be the one of trying every
    # rule, last to first
    pool = ["*.log", "!keep.log", "build/", "/docs/*.md", "!docs/a.md", "**/cache/**", "a?c",
            "doc*/", "!/top", "x/**/y", "[ab]*", "!b*", "*.md", "/a/b/", "tmp", "**/y",
            "!**/cache/keep", "docs/**/z", "/build", "*.c", "c", "\\!c", "**/x/**/y"]  # fmt: skip
    names = ["keep.log", "x.log", "build", "docs", "a.md", "cache", "abc", "top", "y", "b",
             "tmp", "z", "x", "keep", "c", "a", "!c"]  # fmt: skip
    rng = random.Random(11)
    for _ in range(400):
        rules = tuple(rule for rule in map(compile_rule, rng.sample(pool, 8)) if rule)
        plain, below, above = RuleSet(rules), RuleSet(rules, base="w"), RuleSet(rules, prefix="b/")
        for _ in range(25):
            parts = [rng.choice(names) for _ in range(rng.randint(1, 4))]
            rel, is_dir = "/".join(parts), rng.random() < 0.3
            shown = ([r.pattern for r in rules], rel, is_dir)
            want = _last_match(rules, rel, parts[-1], is_dir)
            assert plain.decide(rel, parts[-1], is_dir) is want, shown
            assert below.decide(f"w/{rel}", parts[-1], is_dir) is want, shown
            want = _last_match(rules, f"b/{rel}", parts[-1], is_dir)
            assert above.decide(rel, parts[-1], is_dir) is want, shown


def _last_match(rules: tuple[Rule, ...], local: str, name: str, is_dir: bool) -> bool | None:
    for rule in reversed(rules):
        if rule.matches(local, name, is_dir):
            return not rule.negate
    return None


def test_a_rule_typed_with_composed_accents_leaves_out_a_name_written_decomposed(
    tmp_path: Path,
) -> None:
    import unicodedata

    from substrate.ingest.walk import walk

    for name in ("Café.md", "Übersicht/a.md", "keep.md"):
        path = tmp_path / unicodedata.normalize("NFD", name)  # as macOS writes them
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    (tmp_path / ".mixleignore").write_text("Café.md\nÜbersicht/\n")  # typed composed
    assert [f.rel for f in walk(tmp_path).files] == ["keep.md"]
