"""Per-invocation state shared by the commands: which shard, opened once, lazily."""

from __future__ import annotations

import errno
import getpass
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from substrate import Substrate


# The commands that may create the shard they write to; every other one refuses a shard that
# does not exist, so that a mistyped --shard in a cron line is an error, not an empty shard.
CREATING_COMMANDS = frozenset(
    {"add", "ingest", "ingest-file", "ingest-docs", "ingest-artifacts", "ingest-traces", "grant"}
)


def is_shard(root: Path) -> bool:
    """Whether ``root`` holds a shard (``mixle init`` or a first write made it one)."""
    return (root / "items.jsonl").exists() or (root / "mixle.toml").exists()


def check_scope_name(name: str, what: str = "the scope", *, empty_hint: str = "") -> None:
    """Refuse, as a usage error, a scope name that names no scope: an empty one (a variable
    left unset), or one that prints like another name it is not: with white space around it,
    invisible characters in it, or an accent typed apart from its letter. No scope is
    written so, and a read that matched nothing would print the name as the real one."""
    from mixle_cli.errors import usage
    from substrate import UNFIT_NAME, printable_name, safe_repr

    if not name.strip():
        usage(f"{what} is empty{empty_hint}")
    if name != name.strip():
        usage(f"{what} has white space around it")
    if not printable_name(name):
        usage(f"{what} {safe_repr(name)} {UNFIT_NAME}")


def check_tags(tags: Iterable[str] | None) -> None:
    """Refuse, as a usage error, a tag given to write that is not one as typed: an empty one,
    one with white space around it (" a" would be another tag than "a", printed alike), or one
    holding control or invisible characters (printed in listings, an escape would act on the
    terminal and a look-alike pass for another tag), as scope names are refused."""
    from mixle_cli.errors import usage
    from substrate import UNFIT_NAME, printable_name

    for tag in tags or ():
        if not tag.strip():
            usage("a tag cannot be empty")
        if tag != tag.strip():
            usage("a tag has white space around it")
        if not printable_name(tag):
            usage(f"a tag {UNFIT_NAME}")


@dataclass
class AppState:
    shard_option: str | None = None
    team_option: str | None = None
    command: str | None = None  # the command being run
    _substrate: Substrate | None = field(default=None, repr=False)

    @property
    def team(self) -> str | None:
        """The team the caller reads as (``--as``, ``MIXLE_TEAM``, or the shard default)."""
        from substrate import resolve_team

        return resolve_team(self.team_option, os.environ, self.substrate().settings)

    @property
    def scopes(self) -> frozenset[str] | None:
        """The scopes the caller may read, or None when no team is set (everything)."""
        from substrate import reader_scopes

        return reader_scopes(self.team, self.substrate().settings)

    def can_read(self, scope: str) -> bool:
        scopes = self.scopes
        return scopes is None or scope in scopes

    def read_scope(self, scope: str | None) -> str | None:
        """``scope`` (from a read command's ``--scope``), refused when the caller may not read
        it: its items would be filtered out one by one, and an empty answer would look like
        an empty scope. The refusal depends on the team alone, not on what the shard holds."""
        if scope is not None:
            check_scope_name(scope)
        if scope is not None and not self.can_read(scope):
            from substrate import AccessDeniedError, safe_repr

            raise AccessDeniedError(
                f"you read as {safe_repr(self.team)} and may not read scope {safe_repr(scope)} "
                f"(you read: {self._readable()})"
            )
        return scope

    def scopes_within(self, scope: str | None) -> frozenset[str] | None:
        """The scopes a read command given ``--scope`` reads: that one (refused when the
        caller may not read it, ``read_scope``), else every scope the caller may read."""
        from substrate import merge_scopes

        return merge_scopes(self.read_scope(scope), self.scopes)

    def nothing_in(self, scope: str | None, held: bool | None = None) -> str:
        """For a listing that came back empty: "no matching items", and when the ``--scope``
        it was given holds no item the caller may read, that too (a mistyped scope name
        reads as an empty result). ``held``: whether the scope holds an item, when the
        caller knows (else the log is read until one is found)."""
        empty = self.empty_scope(scope, held) or (
            "" if scope is not None else self.team_reads_nothing(held) or self._holds_nothing()
        )
        return f"no matching items: {empty}" if empty else "no matching items"

    def _holds_nothing(self) -> str:
        """When the shard, read by no team, holds no item at all: which shard that is (the
        one found above the working folder, perhaps, not the one meant), else ""."""
        if self.team is not None or len(self.substrate()):
            return ""
        return (
            f"the shard {_shown(self.shard_path)} holds no item (add some with `mixle "
            "ingest PATH` or `mixle add`, or name another with --shard)"
        )

    def nothing_found(self, scope: str | None) -> str:
        """``nothing_in`` for a search that found nothing: whether the scope, or the team,
        holds an item the caller may read is looked up in the search index the search has
        loaded, not by reading the log (a team reading nothing would read all of it)."""
        held = True
        if scope is not None or self.team is not None:
            from substrate import SearchFilters, first_items

            filters = SearchFilters(scopes=self.scopes_within(scope))
            held = bool(first_items(self.substrate(), filters, 1))
        return self.nothing_in(scope, held=held)

    def team_reads_nothing(self, held: bool | None = None) -> str:
        """When the caller reads as a team none of whose scopes holds an item, that (a
        mistyped --as or $MIXLE_TEAM reads as an empty shard), else "". ``held``: whether the
        caller may read an item, when known (else the log is read until one is found)."""
        if self.team is None or held:
            return ""
        if held is None and next(iter(self.substrate().iter_items(scopes=self.scopes)), None):
            return ""
        from substrate import safe_repr

        return (
            f"you read as {safe_repr(self.team)} and no item is in its scopes ({self._readable()})"
        )

    def empty_scope(self, scope: str | None, held: bool | None = None) -> str:
        """Why ``--scope`` matched nothing when it holds no item the caller may read, else ""
        (``held`` as for ``nothing_in``)."""
        if held is None and scope is not None:
            held = next(self.substrate().iter_items(scope=scope), None) is not None
        if scope is None or held:
            return ""
        from substrate import safe_repr

        return f"no item you may read is in scope {safe_repr(scope)}"

    def fail_if_nothing_matched(self, scope: str | None) -> None:
        """Exit 1 for a check (audit, freshness, scan-secrets --items) whose --scope, or whose
        team, matched no item: nothing was checked, and a mistyped scope or team in a cron
        line must not pass as clean. Whether the shard holds other items is not said (a team
        may not count them); an empty shard read by no team is simply clean. (A scope the
        caller may not read was refused before: ``read_scope``.)"""
        from mixle_cli.errors import FOUND, fail
        from substrate import safe_repr

        if scope is not None:
            fail(
                f"--scope {safe_repr(scope)} matched no item you can read; nothing was checked",
                FOUND,
            )
        if self.team is not None:
            fail(f"{self.team_reads_nothing(held=False)}; nothing was checked", FOUND)

    def own_scope_empty(self, scope: str | None) -> bool:
        """Whether a check (audit, freshness, scan-secrets --items) of all the team's scopes
        finds its own scope without an item: a mistyped team in a cron line reads the shared
        scopes alone, and their items must not let it pass as clean (JSON says so as
        ``own_scope_empty``, and ``fail_if_none_of_its_own`` exits 1)."""
        from substrate import own_scope

        own = own_scope(self.team, self.substrate().settings) if scope is None else None
        if own is None:
            return False
        return next(iter(self.substrate().iter_items(scope=own, scopes=self.scopes)), None) is None

    def fail_if_none_of_its_own(self, empty: bool) -> None:
        """Exit 1 after a check whose team's own scope was ``empty`` (``own_scope_empty``)."""
        from mixle_cli.errors import FOUND, fail
        from substrate import safe_repr

        if empty:
            fail(
                f"you read as {safe_repr(self.team)} and its own scope holds no item (a "
                "mistyped team?); only the shared scopes were checked",
                FOUND,
            )

    def new_scope(self, scope: str, named: bool) -> str:
        """What to say when a write goes into a scope no item is in yet, named by --scope
        (``named``) or by the team (a mistyped name makes a scope no other reader sees),
        else ""."""
        if not named and self.team is None:
            return ""
        from substrate import safe_repr, scope_in_use, shared_scopes

        substrate = self.substrate()
        if scope in shared_scopes(substrate.settings):
            return ""  # a name mixle.toml gives
        if not len(substrate) or scope_in_use(substrate, scope):
            return ""  # (in a shard of no item yet, every scope is new)
        if named:
            return (
                f"scope {safe_repr(scope)} held no item before: a new scope, or a mistyped --scope?"
            )
        return f"team {safe_repr(scope)} held no item before: a new team, or a mistyped team name?"

    def _readable(self) -> str:
        """The scopes the caller reads, as messages list them."""
        return ", ".join(sorted(self.scopes or ()))

    def write_scope(self, scope: str | None, by: str | None = None) -> str:
        """The scope a write goes to (given, else the default), if the caller (acting as
        ``by``, the --by name) may write it: a scope it reads, and without approvers unless
        the caller is one."""
        from mixle_cli.errors import FOUND, fail
        from substrate import safe_repr

        if scope is not None:
            check_scope_name(scope, empty_hint="; leave --scope out for the default one")
        target = scope or self.default_scope()
        if not self.can_read(target):
            who, where = safe_repr(self.team), safe_repr(target)
            fail(f"you read as {who} and may not write to scope {where}", FOUND)
        self.may_change(target, by)
        return target

    def may_change(self, scope: str, by: str | None = None, *, adding: bool = True) -> None:
        """Refuse a direct change (add, ingest; rm: not ``adding``) to a scope with approvers
        the caller, acting as ``by`` (``acting_name``), is not one of (``authorize_write``)."""
        from substrate import authorize_write

        authorize_write(self.substrate(), scope, by=self.acting_name(by), adding=adding)

    def acting_name(self, by: str | None = None) -> str:
        """Who the caller acts as: ``by`` (``--by``), else the team, else the login name."""
        if by is not None:
            if not by.strip():  # `--by "$APPROVER"` unset must not act as the login name
                from mixle_cli.errors import usage

                usage("the --by name is empty (was a variable left unset?)")
            return by
        team = self.team
        if team:
            return team
        try:
            return getpass.getuser()
        except Exception:  # noqa: BLE001 - no login name in some containers
            return "unknown"

    def default_scope(self) -> str:
        team = self.team
        if team is not None:
            return team
        from substrate import default_scope

        return default_scope(self.substrate().settings)

    @property
    def shard_path(self) -> Path:
        from substrate import find_shard

        return find_shard(self.shard_option)

    def searched(self) -> Substrate:
        """The shard, for a command that searches it. A search index that must first be built
        (a new shard, a compacted log, a newer format) takes seconds for thousands of items,
        and so does folding in a large ingest saved since the last search: a terminal is
        told why it waits."""
        substrate = self.substrate()
        if sys.stderr.isatty():
            from substrate import index_status

            status = index_status(substrate)
            said = None
            if status["state"] in ("missing", "stale"):
                said = "building the search index (once; later searches reuse it)"
            elif self.scopes is None and _far_behind(status):
                # (not to a team: it would tell of another team's writes)
                said = "adding the latest changes to the search index (once)"
            if said is not None:
                from mixle_cli import output

                output.note(f"note: {said}")
        return substrate

    def substrate(self, *, quiet: bool = False) -> Substrate:
        """The shard this command works on. Only ``CREATING_COMMANDS`` may work on one that
        does not exist yet (it is created on their first write, which is noted unless
        ``quiet``); the others fail."""
        if self._substrate is None:
            from substrate import Substrate  # opened only by commands that use a shard

            root = self.shard_path
            new = not is_shard(root)
            if new:
                self._refuse_to_make(root)
            substrate = Substrate(root)  # (first: it refuses a new one's path not UTF-8)
            if new:
                from substrate import new_shard_problem

                problem = new_shard_problem(root)
                if problem is not None:  # MIXLE_SHARD set to a notes folder, not its .mixle
                    from mixle_cli.errors import OPERATIONAL, fail

                    fail(problem, OPERATIONAL)
                if not quiet:
                    from mixle_cli import output

                    output.note(f"note: no shard at {_shown(root)} yet; the first write creates it")
            self._substrate = substrate
        return self._substrate

    def _refuse_to_make(self, root: Path) -> None:
        """Fail when no shard may be made at ``root``, which holds none: a broken link, a
        file, a project folder whose .mixle is the shard, or a command that only reads."""
        from mixle_cli.errors import OPERATIONAL, fail
        from substrate import new_shard_problem

        broken = broken_link(root)
        if broken:  # neither there nor creatable: mkdir says only "File exists"
            fail(broken, OPERATIONAL, LINK_HINT)
        if root.exists() and not root.is_dir():
            fail(f"{_shown(root)} is a file, not a shard folder", OPERATIONAL, _ANOTHER_FOLDER)
        if is_shard(root / ".mixle"):  # a project folder given for its shard
            inner = root / ".mixle"
            fail(f"no shard at {_shown(root)}", OPERATIONAL, f"its {inner} is one: --shard {inner}")
        if self.command not in CREATING_COMMANDS:
            # a folder holding other files never becomes one: no write would create it there
            hint = _ANOTHER_FOLDER if new_shard_problem(root) else _NO_SHARD_HINT
            fail(f"no shard at {_shown(root)}", OPERATIONAL, hint)

    @property
    def saved(self) -> bool:
        """Whether this command has saved a change to its shard."""
        substrate = self._substrate
        return substrate is not None and (substrate.last_append is not None or substrate.compacted)

    def close(self) -> None:
        if self._substrate is not None:
            self._substrate.close()


def broken_link(path: Path) -> str | None:
    """What is wrong with ``path`` when it, or the folder it would be made in, is a symbolic
    link that leads nowhere (to a missing place, or round in a loop): nothing could be made
    there. None when there is no such link."""
    for place in (path, *path.parents):
        if place.exists():
            return None
        if place.is_symlink():
            return f"{_shown(place)} {_dead_end(place)}"
    return None


def _dead_end(link: Path) -> str:
    try:
        link.resolve(strict=True)
    except RuntimeError:  # (Python 3.11's word for a loop)
        return "is a symbolic link in a loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link in a loop"
    return f"is a symbolic link to {_shown(Path(os.readlink(link)))}, which does not exist"


def _shown(path: Path) -> str:
    """``path`` as a message shows it: its bytes that are not UTF-8 written ``\\xNN``, a
    secret in it masked (``shown_path``: imported for notes and errors only)."""
    from substrate import shown_path

    return shown_path(os.fspath(path))


LINK_HINT = "mend the link, or choose another shard"

_NO_SHARD_HINT = (
    "check --shard or MIXLE_SHARD; `mixle init` makes one in this folder (./.mixle), "
    "and the first `mixle add` or `mixle ingest` that stores something creates this one"
)


_ANOTHER_FOLDER = (
    "a shard is a folder of its own: name an empty or new one (--shard PATH/.mixle), or make "
    "one beside your files with `mixle init`"
)


# Saved changes a search folds into its index before it answers: past this many bytes of
# the log (about 0.7 s of work on 2 CPUs), a terminal is told why it waits
FAR_BEHIND = 4 << 20


def _far_behind(status: dict[str, object]) -> bool:
    index, log = status.get("watermark"), status.get("log_watermark")
    if status["state"] != "behind" or not isinstance(index, dict) or not isinstance(log, dict):
        return False
    return bool(log["offset"] - index["offset"] >= FAR_BEHIND)


def state(ctx: typer.Context) -> AppState:
    root = ctx.find_root()
    if not isinstance(root.obj, AppState):
        root.obj = AppState()
    return root.obj


def given(ctx: typer.Context, name: str) -> bool:
    """Whether the option ``name`` of ``ctx``'s command was typed on the command line, not
    left at its default (nor taken from the environment)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"
