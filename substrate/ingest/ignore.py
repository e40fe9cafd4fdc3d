"""Ignore rules in gitignore syntax (``.gitignore`` and ``.mixleignore``).

Supported, as git documents them: blank lines and ``#`` comments, ``\\`` escapes, trailing
spaces, ``!`` negation, a trailing ``/`` for directories only, anchoring by a ``/`` at the start
or in the middle, ``*``, ``?``, ``[...]`` classes (ranges, ``[!...]``, ``[[:alpha:]]`` and the
other named classes) and ``**`` (leading, trailing and in the middle).
The last matching rule of a file wins, and a file deeper in the tree overrides its parents.
A file inside an ignored directory cannot be re-included, because the walk never enters an
ignored directory (git behaves the same way).

Where git's behaviour is only defined by its code, it is followed too: patterns match UTF-8
bytes, not characters (``?`` does not match ``é``); a pattern git cannot use (an unclosed
``[``, an unknown class, a trailing ``\\``) matches nothing, and a reversed range only its
first character; a ``**`` glued to the text before the pattern's first wildcard, before a
``/`` or the end, spans folders (``b**/x`` matches ``bq/c/x``); lines end at a line feed; a
byte-order mark is skipped; a ``.gitignore`` that is a symbolic link is not read (a
``.mixleignore`` is mixle's own, and ``.git/info/exclude`` git follows: both are read through
one). One difference is deliberate: a folder named for ingestion is walked even when the
repository's ignore files leave it out (the rules still apply below it). An ignore file not
read is said so (``Unread``): the walk tells it in its result.

A match takes time that grows with the path, not as its length to the power of the pattern's
number of stars (``_glob_segment``, ``_path_regex``).
"""

from __future__ import annotations

import errno
import heapq
import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from substrate.folding import composed
from substrate.ingest.textio import read_regular
from substrate.locking import planted

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
    # what a name matching the rule must be (``name``) or end with (``suffix``), when that is
    # all the rule asks of it ("node_modules", "*.log"); the folder a path matching an
    # anchored rule must start with ("docs" of "/docs/*.md"), or a part of it at any depth
    # ("cache" of "**/cache/**"): ``RuleSet`` looks them up rather than try each rule
    name: str | None = None
    suffix: str | None = None
    head: str | None = None
    part: str | None = None

    def matches(self, rel: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.regex.match(rel if self.anchored else name) is not None


def byte_view(text: str) -> str:
    """``text`` with one character per UTF-8 byte (latin-1), the unit git's matcher counts:
    ``?`` matches one byte, so not ``é``, and ``??`` does. ASCII text is its own view."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


# Character classes by name ([[:alpha:]]), as in the C locale git matches in
_NAMED_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\r ",  # git's own space: not vertical tab or form feed
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


class _Invalid(ValueError):
    """A pattern git cannot use (an unclosed ``[``, a trailing ``\\``): it matches nothing."""


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """The regex of the bracket expression opening at ``pattern[start]``, and the index after
    its closing ``]``. A class never matches ``/``.

    Raises:
        _Invalid: the bracket is never closed, or names an unknown class.
    """
    i, n = start + 1, len(pattern)
    negate = i < n and pattern[i] in "!^"
    i += negate
    parts: list[str] = []
    first = True
    while i < n and (pattern[i] != "]" or first):
        first = False
        if pattern.startswith("[:", i):
            # a class runs to the first "]", which must follow a ":"; else "[" is itself
            close = pattern.find("]", i + 2)
            if close < 0:
                raise _Invalid("unclosed [")
            if close > i + 2 and pattern[close - 1] == ":":
                name = pattern[i + 2 : close - 1]
                if name not in _NAMED_CLASSES:
                    raise _Invalid(f"unknown character class [:{name}:]")
                parts.append(_NAMED_CLASSES[name])
                i = close + 1
                continue
        low, i = _class_char(pattern, i)
        if pattern.startswith("-", i) and i + 1 < n and pattern[i + 1] != "]":
            high, i = _class_char(pattern, i + 1)
            # git tries the first character on its own before the range: a reversed range
            # ([z-a]) matches that character only
            parts.append(f"{re.escape(low)}-{re.escape(high)}" if low <= high else re.escape(low))
            continue
        parts.append(re.escape(low))
    if i >= n:
        raise _Invalid("unclosed [")
    if negate:
        return "[^/" + "".join(parts) + "]", i + 1
    return "(?!/)[" + "".join(parts) + "]", i + 1  # the loop took one part at least


def _class_char(pattern: str, i: int) -> tuple[str, int]:
    """The (possibly escaped) character at ``pattern[i]`` and the index after it."""
    if pattern[i] == "\\":
        if i + 1 >= len(pattern):
            raise _Invalid("unclosed [")
        return pattern[i + 1], i + 2
    return pattern[i], i + 1


def _segments(body: str) -> list[str]:
    """``body`` cut at each ``/`` that separates folders: not one inside a bracket
    expression; an escaped ``\\/`` is a separator too, as git matches it."""
    segments: list[str] = []
    start = i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if body.startswith("/", i + 1):
                segments.append(body[start:i])
                start = i + 2
            i += 2
            continue
        if c == "[":
            try:
                i = _bracket(body, i)[1]
                continue
            except _Invalid:
                pass  # reported when the segment is translated
        if c == "/":
            segments.append(body[start:i])
            start = i + 1
        i += 1
    segments.append(body[start:])
    return segments


def _glob_segment(seg: str) -> str:
    """Translate one path segment of a glob (no separating ``/`` inside) to a regex.

    Raises:
        _Invalid: see ``_bracket``; or the segment ends in a lone ``\\``.
    """
    # the fixed-width pieces before the first star, then those after each star
    chunks: list[list[str]] = [[]]
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "\\":
            if i + 1 >= n:
                raise _Invalid("a trailing backslash escapes nothing")
            chunks[-1].append(re.escape(seg[i + 1]))
            i += 2
        elif c == "*":
            while i < n and seg[i] == "*":
                i += 1  # consecutive stars inside a segment are one star
            chunks.append([])
        elif c == "[":
            regex, i = _bracket(seg, i)
            chunks[-1].append(regex)
        else:
            chunks[-1].append("[^/]" if c == "?" else re.escape(c))
            i += 1
    head, *after = ["".join(chunk) for chunk in chunks]
    if not after:
        return head
    # Each star but the last takes the shortest run after which its chunk matches, and keeps
    # it (an atomic group): the next star can take whatever a longer run would have, so no
    # match is lost. Tried every way instead, a name costs its length to the power of the
    # number of stars: ten "*a" and a "*b" against a name of 200 a's ran for over ten minutes.
    kept = "".join(f"(?>[^/]*?{chunk})" for chunk in after[:-1])
    return head + kept + "[^/]*" + after[-1]


def _path_regex(segments: list[str]) -> str:
    """The regex of a pattern's path ``segments``: each a glob segment, or ``**`` (two stars
    or more alone), any depth.

    Raises:
        _Invalid: see ``_glob_segment``.
    """
    # the segments' regexes before the first "**" of the middle, then those after each one
    runs: list[list[str]] = [[]]
    tail = ""
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if len(seg) >= 2 and not seg.strip("*"):  # any depth
            if i == last:
                tail = ".+" if i else ".*"  # "dir/**": what is inside; "**" alone: anything
            else:
                runs.append([])
            continue
        runs[-1].append(_glob_segment(seg) + ("" if i == last else "/"))
    head, *after = ["".join(run) for run in runs]
    out = [head]
    for k, run in enumerate(after):
        if k < len(after) - 1 or tail:
            # as for stars in a segment: the fewest folders after which the run matches, kept,
            # since the next "**" can take any more (else "**/a/**/a/**/b" against a deep
            # path tries every way to share its folders out)
            out.append(f"(?>(?:[^/]*/)*?{run})")
        else:
            out.append(f"(?:[^/]*/)*{run}")
    return "".join(out) + tail


def _glued_any_depth(body: str) -> str | None:
    """The regex of an anchored pattern whose first wildcard is a ``**`` glued to the text
    before it and followed by a ``/`` or the end (``b**/x``, ``docs/v**``); None for any
    other pattern.

    git compares the text before a pattern's first wildcard as it is, then matches the rest
    on its own: that ``**`` then starts what is left, and spans folders as a leading one does.
    ``b**/x`` matches ``bx``, ``b/x`` and ``bq/c/x``; ``docs/v**`` whatever lies below the
    names that start with ``docs/v``.

    Raises:
        _Invalid: see ``_path_regex``.
    """
    cut = next((i for i, c in enumerate(body) if c in "*?[\\"), len(body))
    if cut == 0 or body[cut - 1] == "/" or not body.startswith("**", cut):
        return None
    after = body[cut:].lstrip("*")
    if not after:
        return re.escape(body[:cut]) + ".*"
    for slash in ("/", "\\/"):  # an escaped slash is a slash too
        if after.startswith(slash):
            rest = _segments(after.removeprefix(slash))
            return re.escape(body[:cut]) + _path_regex(["**", *rest])
    return None


def _strip_trailing_spaces(line: str) -> str:
    """``line`` without its trailing spaces, but for one escaped with a backslash."""
    end = i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            end = min(i, len(line))
        else:
            i += 1
            if line[i - 1] != " ":
                end = i
    return line[:end]


def compile_rule(line: str) -> Rule | None:
    """Compile one line of an ignore file; None for blank lines, comments and the patterns
    git finds invalid (they match nothing)."""
    line = _strip_trailing_spaces(line.removesuffix("\n").removesuffix("\r"))
    if not line or line.startswith("#"):
        return None
    shown = line
    line = byte_view(composed(line))  # (as git on macOS reads names: precomposeUnicode)
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")  # one slash: "d//" stays a pattern with a slash in it
    body = line[:-1] if dir_only else line
    anchored = "/" in body
    body = body.removeprefix("/")
    if not body:
        return None
    try:
        glued = _glued_any_depth(body) if anchored else None
        translated = glued if glued is not None else _path_regex(_segments(body))
    except _Invalid as exc:
        log.debug("ignoring the pattern %r: %s", shown, exc)
        return None
    regex = re.compile(translated + r"\Z", re.DOTALL)
    if anchored:
        head, _, rest = body.partition("/")
        part = rest.partition("/")[0] if head == "**" else ""
        if glued is None and part and not _WILD.search(part):
            return Rule(shown, regex, negate, dir_only, anchored, part=part)
        if glued is not None or not head or _WILD.search(head):
            return Rule(shown, regex, negate, dir_only, anchored)
        return Rule(shown, regex, negate, dir_only, anchored, head=head)
    if not _WILD.search(body):
        return Rule(shown, regex, negate, dir_only, anchored, name=body)
    if body.startswith("*") and len(body) > 1 and not _WILD.search(body, 1):
        return Rule(shown, regex, negate, dir_only, anchored, suffix=body[1:])
    return Rule(shown, regex, negate, dir_only, anchored)


# What makes a pattern more than a name: a wildcard, a class, an escape
_WILD = re.compile(r"[*?\[\\]")


def parse_rules(text: str) -> list[Rule]:
    """Compile every pattern line of an ignore file, in order. Lines end at a line feed
    only (a carriage return before it is dropped), as git reads them; a NUL byte ends its
    line's pattern, as git's strings end there."""
    rules = []
    for line in text.removeprefix("\ufeff").split("\n"):
        rule = compile_rule(line.partition("\x00")[0])
        if rule is not None:
            rules.append(rule)
    return rules


@dataclass(frozen=True, slots=True)
class Unread:
    """An ignore file whose rules are not in force, and why. ``failed``: they are unknown (it
    could not be read); else it holds none to read (a FIFO, a broken link), or is passed over
    as git passes it over (a ``.gitignore`` that is a symbolic link)."""

    path: str
    reason: str
    failed: bool = False
    untrusted: bool = False  # anyone may have put it there (``planted``): not read, told


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one ignore file (or of the settings), with the directory they apply below.

    ``base`` is the rules' directory relative to the ingest root ("" for the root itself), or,
    for a file above the root, the negative form: ``prefix`` is prepended to root-relative paths.
    """

    rules: tuple[Rule, ...]
    base: str = ""
    prefix: str = ""
    # from a .mixleignore: mixle's own rules hold inside a nested repository, git's do not
    mixle: bool = False
    unread: Unread | None = None  # the file was not read (it gave no rules)
    # the rules by what they ask of a path (``_RuleIndex``), made on first use (a list: the
    # set is frozen)
    index: list[_RuleIndex] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:  # paths are matched in their byte view, as the rules
        object.__setattr__(self, "base", byte_view(self.base))
        object.__setattr__(self, "prefix", byte_view(self.prefix))

    def decide(self, rel: str, name: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no rule matched)."""
        if self.prefix:
            local = self.prefix + rel
        elif self.base:
            local = rel[len(self.base) + 1 :]
        else:
            local = rel
        if not self.index:
            self.index.append(_RuleIndex(self.rules))
        rules = self.rules
        for at in self.index[0].candidates(local, name):
            if rules[at].matches(local, name, is_dir):
                return not rules[at].negate
        return None


class _RuleIndex:
    """A rule set's rules by what they ask of a path: a rule that is a name ("build"), a
    name's ending ("*.log"), a path's first folder ("/docs/...") or a folder at any depth
    ("**/cache/...") is looked up, not tried, so that a file of thousands of such patterns
    costs a path a few look-ups (tried one by one, 5,000 patterns made an unchanged
    re-ingest of 10,000 files take 7.5 s of CPU); only the others are tried each time."""

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.by_name: dict[str, list[int]] = {}
        self.by_suffix: dict[str, list[int]] = {}
        self.by_head: dict[str, list[int]] = {}
        self.by_part: dict[str, list[int]] = {}
        others: list[int] = []
        for at, rule in enumerate(rules):
            if rule.name is not None:
                self.by_name.setdefault(rule.name, []).append(at)
            elif rule.head is not None:
                self.by_head.setdefault(rule.head, []).append(at)
            elif rule.part is not None:
                self.by_part.setdefault(rule.part, []).append(at)
            elif rule.suffix is not None:
                self.by_suffix.setdefault(rule.suffix, []).append(at)
            else:
                others.append(at)
        self.suffix_lengths = sorted({len(suffix) for suffix in self.by_suffix})
        self.others_last_first = others[::-1]  # as they are tried

    def candidates(self, local: str, name: str) -> Iterable[int]:
        """The rules that may match an entry at ``local`` (its path below the rules' base)
        named ``name``, the last first (the last one that matches decides)."""
        parts = local.split("/")
        found = [*self.by_name.get(name, ()), *self.by_head.get(parts[0], ())]
        if self.by_part:
            for part in parts:
                found += self.by_part.get(part, ())
        for length in self.suffix_lengths:
            if length > len(name):
                break
            found += self.by_suffix.get(name[-length:], ())
        if not found:  # (most names: the others alone, in their order)
            return self.others_last_first
        # merged as they are tried: the others are not sorted again for each path
        looked_up = sorted(set(found), reverse=True)  # (a part may recur in a path)
        return heapq.merge(self.others_last_first, looked_up, reverse=True)


class IgnoreStack:
    """The rule sets in force in one directory, innermost last, and the ignore files not read
    on the way (``unread``), whose rules it lacks."""

    def __init__(self, sets: tuple[RuleSet, ...] = (), unread: tuple[Unread, ...] = ()) -> None:
        self.sets = sets
        self.unread = unread

    def push(self, ruleset: RuleSet) -> IgnoreStack:
        if ruleset.unread is not None:
            return IgnoreStack(self.sets, (*self.unread, ruleset.unread))
        return IgnoreStack((*self.sets, ruleset), self.unread) if ruleset.rules else self

    def ignored(self, rel: str, name: str, is_dir: bool) -> bool:
        """Whether the entry at root-relative ``rel`` (basename ``name``) is ignored."""
        if not rel.isascii():
            rel, name = byte_view(composed(rel)), byte_view(composed(name))
        for ruleset in reversed(self.sets):
            verdict = ruleset.decide(rel, name, is_dir)
            if verdict is not None:
                return verdict
        return False


def file_rules(
    path: Path, *, follow: bool, base: str = "", prefix: str = "", mixle: bool = False
) -> RuleSet:
    """The rules of the ignore file ``path``, or why it gave none (``RuleSet.unread``). A
    symbolic link to it is followed when ``follow``; never is a FIFO or a device opened to
    wait on."""
    try:
        # undecodable bytes are kept as they are (surrogates): a pattern matches bytes
        text = read_regular(str(path), follow=follow).decode("utf-8", errors="surrogateescape")
    except OSError as exc:
        unread = _unread(str(path), exc, follow)
        return RuleSet((), base, prefix, mixle, unread)
    return RuleSet(tuple(parse_rules(text)), base, prefix, mixle)


def _unread(path: str, exc: OSError, followed: bool) -> Unread | None:
    """Why the ignore file ``path`` was not read, given the error ``exc``; None when it is
    gone since its folder was listed (it has no rules now)."""
    why = "ignore file not read: "
    if exc.errno == errno.ELOOP:
        told = "symlink loop" if followed else "a symbolic link, which git does not follow"
        return Unread(path, why + told)
    if exc.errno in (errno.EINVAL, errno.ENXIO):  # not a regular file (a socket: ENXIO)
        return Unread(path, why + "not a regular file")
    if exc.errno == errno.ENOENT:
        return Unread(path, why + "broken symlink") if os.path.islink(path) else None
    told = f"ignore file cannot be read ({exc.strerror}): its rules are not applied"
    return Unread(path, told, failed=True)


def directory_rules(directory: Path, base: str, names: set[str]) -> Iterator[RuleSet]:
    """The rules of the ignore files ``names`` in ``directory``, one set per file, in the
    order they are pushed (``.mixleignore`` last: it wins)."""
    for fname in IGNORE_FILES:
        if fname in names:
            yield _ignore_file_rules(directory / fname, base=base)


def _ignore_file_rules(path: Path, base: str = "", prefix: str = "") -> RuleSet:
    """The rules of a ``.gitignore`` or ``.mixleignore`` file (mixle's own: a link to it is
    followed, as git follows none to a ``.gitignore``)."""
    mixle = path.name == ".mixleignore"
    return file_rules(path, follow=mixle, base=base, prefix=prefix, mixle=mixle)


def exclude_rules(top: Path, base: str = "", prefix: str = "") -> RuleSet:
    """The rules of the repository's ``.git/info/exclude`` (its work tree at ``top``), read as
    a ``.gitignore`` at ``top``, as git reads them (through a link too). Not where ``.git`` is
    a file (a linked work tree or a submodule keeps it in another git folder), nor
    ``core.excludesFile``, which would take reading git's configuration."""
    path = top / ".git" / "info" / "exclude"
    if not os.path.lexists(path):
        return RuleSet(())
    return file_rules(path, follow=True, base=base, prefix=prefix)


def enclosing_rules(root: Path) -> IgnoreStack:
    """The rules in force at ``root`` from the folders above it, as the walk of a folder
    around it would give them: the ``.mixleignore`` files of every folder above (mixle's own:
    no repository stops them); the ``.gitignore`` files above ``root`` up to the top of the
    git work tree it is in, and that repository's ``.git/info/exclude`` (the lowest in
    priority, as in git); or, in no work tree, the ``.gitignore`` files of every folder above.

    So a file is left out or not whichever folder around it is named for ingestion. What
    another user left in a folder anyone may write to (``/tmp/.mixleignore``, a ``/tmp/.git``)
    is passed over (``planted``): it must not take files out of this user's shard.
    """
    top = work_tree_top(root)
    stack = IgnoreStack()
    if top is not None:  # below what is above the work tree, as the walk resets it there
        stack = stack.push(exclude_rules(top, prefix=_prefix(root, top)))
    for parent in reversed(root.parents):  # the outermost first: deeper rules win
        in_tree = top is None or parent.is_relative_to(top)
        for fname in IGNORE_FILES:  # in a folder's order: .mixleignore last
            mixle = fname == ".mixleignore"
            path = parent / fname
            if not ((mixle or in_tree) and os.path.lexists(path)):
                continue
            if planted(path):
                told = Unread(str(path), _PLANTED, untrusted=True)
                stack = stack.push(RuleSet((), unread=told))
            else:
                stack = stack.push(_ignore_file_rules(path, prefix=_prefix(root, parent)))
    return stack


_PLANTED = "ignore file not read: another user's, in a folder anyone may write to"


def work_tree_top(root: Path) -> Path | None:
    """The top of the git work tree ``root`` is in (``root`` itself, or a folder above it),
    or None."""
    # os.path answers False where it cannot look (an unreadable folder: the walk reports it)
    if os.path.exists(root / ".git"):  # in the tree named: the user's choice, as in a walk
        return root
    tops = (p for p in root.parents if os.path.exists(p / ".git"))
    return next((p for p in tops if not planted(p / ".git")), None)


def _prefix(root: Path, above: Path) -> str:
    """``RuleSet.prefix`` of the rules of the folder ``above`` (or ``root`` itself)."""
    return "" if above == root else root.relative_to(above).as_posix() + "/"
