"""Ignore rules in gitignore syntax (``.gitignore`` and ``.mixleignore``).

Supported, as git documents them: blank lines and ``#`` comments, ``\\`` escapes, trailing
spaces, ``!`` negation, a trailing ``/`` for directories only, anchoring by a ``/`` at the start
or in the middle, ``*``, ``?``, ``[...]`` classes and ``**`` (leading, trailing and in the middle).
The last matching rule of a file wins, and a file deeper in the tree overrides its parents.
A file inside an ignored directory cannot be re-included, because the walk never enters an
ignored directory (git behaves the same way).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from substrate.ingest.textio import read_regular

log = logging.getLogger(__name__)

IGNORE_FILES = (".gitignore", ".mixleignore")  # later files in a directory take precedence


@dataclass(frozen=True, slots=True)
class Rule:
    """One compiled pattern line."""

    pattern: str
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool  # matched against the whole path below the rules' base, not the name alone

    def matches(self, rel: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.regex.match(rel if self.anchored else name) is not None


def _glob_segment(seg: str) -> str:
    """Translate one path segment of a glob (no ``/`` inside) to a regex."""
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(seg[i + 1]))
            i += 2
            continue
        if c == "*":
            while i < n and seg[i] == "*":
                i += 1  # consecutive stars inside a segment are one star
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            end = _class_end(seg, i)
            if end < 0:
                out.append(re.escape(c))
            else:
                out.append(_class(seg[i + 1 : end]))
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class_end(seg: str, start: int) -> int:
    j = start + 1
    if j < len(seg) and seg[j] in "!^":
        j += 1
    if j < len(seg) and seg[j] == "]":
        j += 1  # a ']' right after the opening bracket is a literal
    while j < len(seg) and seg[j] != "]":
        j += 2 if seg[j] == "\\" else 1
    return j if j < len(seg) else -1


def _class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    parts: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            parts.append(re.escape(body[i + 1]))
            i += 2
            continue
        parts.append(c if c == "-" and 0 < i < len(body) - 1 else re.escape(c))
        i += 1
    return ("[^/" if negate else "[") + "".join(parts) + "]"


def _strip_trailing_spaces(line: str) -> str:
    end = len(line)
    while end > 0 and line[end - 1] == " ":
        if end >= 2 and line[end - 2] == "\\":
            break  # "\ " keeps the escaped space
        end -= 1
    return line[:end]


def compile_rule(line: str) -> Rule | None:
    """Compile one line of an ignore file; None for blank lines and comments."""
    line = _strip_trailing_spaces(line.rstrip("\r\n"))
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    body = line.rstrip("/") if dir_only else line
    if not body:
        return None
    anchored = "/" in body
    body = body.lstrip("/")
    if not body:
        return None
    segs = body.split("/")
    out: list[str] = []
    for i, seg in enumerate(segs):
        last = i == len(segs) - 1
        if seg == "**":
            if last:
                out.append(".+" if i else ".*")
            else:
                out.append("(?:[^/]*/)*")  # zero or more directories
            continue
        out.append(_glob_segment(seg))
        if not last:
            out.append("/")
    regex = re.compile("".join(out) + r"\Z", re.DOTALL)
    return Rule(line, regex, negate, dir_only, anchored)


def parse_rules(text: str) -> list[Rule]:
    """Compile every pattern line of an ignore file, in order."""
    rules = []
    for line in text.splitlines():
        rule = compile_rule(line)
        if rule is not None:
            rules.append(rule)
    return rules


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one ignore file (or of the settings), with the directory they apply below.

    ``base`` is the rules' directory relative to the ingest root ("" for the root itself), or,
    for a file above the root, the negative form: ``prefix`` is prepended to root-relative paths.
    """

    rules: tuple[Rule, ...]
    base: str = ""
    prefix: str = ""

    def decide(self, rel: str, name: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no rule matched)."""
        if self.prefix:
            local = self.prefix + rel
        elif self.base:
            local = rel[len(self.base) + 1 :]
        else:
            local = rel
        for rule in reversed(self.rules):
            if rule.matches(local, name, is_dir):
                return not rule.negate
        return None


class IgnoreStack:
    """The rule sets in force in one directory, innermost last."""

    def __init__(self, sets: tuple[RuleSet, ...] = ()) -> None:
        self.sets = sets

    def push(self, ruleset: RuleSet) -> IgnoreStack:
        return IgnoreStack((*self.sets, ruleset)) if ruleset.rules else self

    def ignored(self, rel: str, name: str, is_dir: bool) -> bool:
        """Whether the entry at root-relative ``rel`` (basename ``name``) is ignored."""
        for ruleset in reversed(self.sets):
            verdict = ruleset.decide(rel, name, is_dir)
            if verdict is not None:
                return verdict
        return False


def read_rules(path: Path) -> list[Rule]:
    """The rules of one ignore file; an unreadable file counts as empty (and is logged)."""
    try:
        text = read_regular(str(path)).decode("utf-8", errors="replace")
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc.strerror)
        return []
    return parse_rules(text)


def directory_rules(directory: Path, base: str, names: set[str] | None = None) -> RuleSet:
    """The combined rules of the ignore files in ``directory`` (``.mixleignore`` wins)."""
    rules: list[Rule] = []
    for fname in IGNORE_FILES:
        if names is not None and fname not in names:
            continue
        candidate = directory / fname
        if names is None and not candidate.is_file():
            continue
        rules.extend(read_rules(candidate))
    return RuleSet(tuple(rules), base=base)


def enclosing_rules(root: Path) -> IgnoreStack:
    """``.gitignore`` files of the git work tree above ``root`` (when ``root`` is inside one).

    Ingesting a sub-folder of a repository should ignore what the repository ignores.
    """
    if (root / ".git").exists():
        return IgnoreStack()  # root is itself the top of a work tree
    chain: list[Path] = []
    for parent in root.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            break
    else:
        return IgnoreStack()
    stack = IgnoreStack()
    for parent in reversed(chain):
        gitignore = parent / ".gitignore"
        if gitignore.is_file():
            prefix = root.relative_to(parent).as_posix() + "/"
            stack = stack.push(RuleSet(tuple(read_rules(gitignore)), prefix=prefix))
    return stack
