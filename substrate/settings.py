"""Shard settings in ``mixle.toml``: read with ``tomllib``, written with ``tomli-w``.

Each feature owns one table (``[shard]``, ``[secrets]``, ``[ingest]``, ``[governance]``,
``[answerer]``, ...); the top-level ``format`` key says which on-disk format wrote the shard.
"""

from __future__ import annotations

import difflib
import errno
import logging
import os
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import tomli_w

from substrate.derived import INDEX_DIR, LOG_FILE
from substrate.errors import ShardError, ShardFormatError
from substrate.locking import refuse_shared_folder
from substrate.replacing import (
    create_new,
    made_read_only,
    make_folder,
    open_temporary,
    refuse_link_to_another_file,
    replacing,
    sync_name,
    take_folder_group,
    temporary_name,
)
from substrate.settingvalues import check_values

log = logging.getLogger(__name__)

SHARD_FORMAT = 1
SETTINGS_FILE = "mixle.toml"

DEFAULTS: dict[str, Any] = {
    "format": SHARD_FORMAT,
    "shard": {"default_scope": "local", "shared_scopes": ["public"]},
}


class Settings:
    """The parsed ``mixle.toml`` of one shard (or defaults for an in-memory shard)."""

    def __init__(self, data: dict[str, Any] | None = None, path: Path | None = None) -> None:
        self.data: dict[str, Any] = data if data is not None else _fresh_defaults()
        self.path = path
        # how its file was lost from a shard that has a log ("missing", "empty"; else ""):
        # these defaults stand in for settings that were lost (its approvers among them), not
        # for a new shard's
        self.lost = ""

    @classmethod
    def load(cls, root: Path) -> Settings:
        path = root / SETTINGS_FILE
        refuse_link_to_another_file(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls._lost(root, path, "missing")
        except OSError as exc:
            raise ShardError(f"cannot read {path}: {exc.strerror}") from exc
        if not raw.strip():  # mixle writes it whole: a crash or a sync tool emptied it
            return cls._lost(root, path, "empty")
        try:
            # (a byte-order mark, as Windows' Notepad writes one, is no TOML: passed over)
            data = tomllib.loads(raw.decode("utf-8-sig"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ShardError(f"{path}: invalid TOML: {exc}") from exc
        if not data:  # comments alone: no setting, as mixle writes it, is left
            return cls._lost(root, path, "empty")
        fmt = data.get("format", SHARD_FORMAT)
        if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
            raise ShardError(f"{path}: format must be a whole number from 1, not {fmt!r}")
        if fmt > SHARD_FORMAT:
            raise ShardFormatError(
                f"{path}: shard format {fmt!r} is newer than this mixle supports "
                f"({SHARD_FORMAT}); upgrade mixle"
            )
        _check_types(path, data)
        _warn_once(data)
        settings = cls(data, path)
        check_values(settings)  # every known key, whichever ones this command uses
        return settings

    @classmethod
    def _lost(cls, root: Path, path: Path, how: str) -> Settings:
        """The defaults, for a file ``how`` ("missing", "empty"): told of once when the shard
        has a log (a first write writes the file before the log)."""
        settings = cls(path=path)
        settings.lost = how if _mixle_log_in(root) else ""
        if settings.lost and ("lost", str(path)) not in _warned:
            _warned.add(("lost", str(path)))
            log.warning(
                "%s is %s: the shard's settings (its approvers, team and ingest settings) are "
                "the defaults; restore it from a backup, or grant the approvers again",
                path,
                how,
            )
        return settings

    @property
    def format(self) -> int:
        return int(self.data.get("format", SHARD_FORMAT))

    def section(self, name: str) -> dict[str, Any]:
        """The table ``name``, created empty if absent (changes are kept until ``save``)."""
        table = self.data.setdefault(name, {})
        if not isinstance(table, dict):
            raise ShardError(f"{self.path}: [{name}] must be a table")
        return table

    def get(self, section: str, key: str, default: Any = None) -> Any:
        table = self.data.get(section)
        return table.get(key, default) if isinstance(table, dict) else default

    def refuse_unknown_governance(self) -> None:
        """Refuse a write while ``[governance]`` holds a key this version does not know, or
        the file a table whose name is near it ("governence"), or approvers in another table
        (``[approvers]``, ``[shard.approvers]``).

        Misspelt ("approvrs"), the approvers it holds gate nothing: a write would pass where
        they were meant to stop it, so writers fail closed. Readers go on, told by the warning
        of ``load``: they change nothing.

        Raises:
            ShardError: naming the key and the nearest known one.
        """
        unknown_tables = set(self.data) - TABLES
        near = difflib.get_close_matches("governance", sorted(unknown_tables), n=1)
        # a table named near "approvers" ([approvals]) meant them too
        near_approvers = difflib.get_close_matches("approvers", sorted(unknown_tables), n=1)
        table = self.data.get("governance")
        known = KNOWN_KEYS["governance"]
        unknown = sorted(set(table) - known) if isinstance(table, dict) else []
        astray = [  # [approvers], [shard.approvers]: approvers written in the wrong table
            name
            for name, value in sorted(self.data.items())
            if name != "governance"
            and (name in near_approvers or isinstance(value, dict) and "approvers" in value)
        ]
        if near:
            what = f"has no table {_shown(near[0])} (did you mean governance?)"
        elif astray:
            table = astray[0] in near_approvers
            where = f"a table {_shown(astray[0])}" if table else "approvers in a table"
            if not table:
                where += f" {_shown(astray[0])}"
            what = f"has {where}, which nothing reads (did you mean [governance.approvers]?)"
        elif unknown:
            what = f"[governance] has no setting {_shown(unknown[0])} ({_hint(unknown[0], known)})"
        else:
            return
        raise ShardError(
            f"{self.path}: {what}: no write is taken while it is there, as the approvers it "
            "was meant to hold would gate nothing; fix it by hand"
        )

    def save(self) -> None:
        """Write atomically (temporary file, fsync, rename)."""
        if self.path is not None:
            self._replace_with(self._encoded())

    def save_table(self, section: str, name: str) -> None:
        """``save``, changing in the file only the table ``[section.name]``: comments and
        layout a person gave the rest of it are kept. The whole file is written again when
        that table is not one block of its own there (an inline table, a dotted key), or
        when the edit would not read back as the settings."""
        text = self._text()
        edited = None if text is None else _with_table(text, section, name, self.data)
        if edited is None:
            self.save()
        else:
            self._replace_with(edited.encode())

    def _text(self) -> str | None:
        if self.path is None:
            return None
        try:  # as written: its line breaks (CRLF) kept
            with self.path.open(encoding="utf-8-sig", newline="") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError):
            return None

    def _replace_with(self, data: bytes) -> None:
        assert self.path is not None
        if made_read_only(self.path):  # to freeze the approvers, perhaps
            raise ShardError(f"cannot write {self.path}: it is not writable")
        self._make_folder()
        try:
            with (
                replacing(self.path, follow=True, durable=True) as tmp,
                open_temporary(tmp) as fh,
            ):
                self._dump(fh, data)
        except OSError as exc:
            raise ShardError(f"cannot write {self.path}: {exc.strerror}") from exc

    def create(self) -> bool:
        """Write the file unless one exists; True when this call wrote it.

        A shard's first write saves its settings while another process may be saving its
        own (a first ``grant``), which must not be written over. Whole or not at all: written
        aside, then linked into place (created exclusively where a file system has no links).
        """
        if self.path is None:
            return False
        refuse_shared_folder(self.path.parent)  # (before anything is written there)
        self._make_folder()
        aside = self.path.with_name(temporary_name(self.path.name))  # a killed write's is found
        data = self._encoded()
        try:
            create_new(aside)  # (not through a link another user put at the name)
            with open_temporary(aside) as fh:
                self._dump(fh, data)
            try:
                os.link(aside, self.path, follow_symlinks=False)
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                self._create_in_place(data)
            sync_name(self.path)  # the new name too must survive a power cut
            _keep_out_of_git(self.path.parent)
            return True
        except FileExistsError:
            return False
        except OSError as exc:
            raise ShardError(f"cannot write {self.path}: {exc.strerror}") from exc
        finally:
            aside.unlink(missing_ok=True)

    def _make_folder(self) -> None:
        """Create the shard's folder if need be; one that cannot be made (no such place, a
        file in its way) fails as every other write of the shard does, with a ShardError."""
        assert self.path is not None
        try:
            make_folder(self.path.parent)
        except OSError as exc:
            raise ShardError(f"cannot create {self.path.parent}: {exc.strerror or exc}") from exc

    def _create_in_place(self, data: bytes) -> None:
        """Create the file exclusively and write it; a write that fails removes it, so that
        no half of one is left for every later command to refuse."""
        assert self.path is not None
        with self.path.open("xb") as fh:
            try:
                self._dump(fh, data)
            except BaseException:
                self.path.unlink(missing_ok=True)
                raise

    def _encoded(self) -> bytes:
        return tomli_w.dumps(self.data).encode()

    @staticmethod
    def _dump(fh: BinaryIO, data: bytes) -> None:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


# What a file system without hard links answers ``link`` with.
_NO_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS})


def _with_table(text: str, section: str, name: str, data: dict[str, Any]) -> str | None:
    """``text`` with its ``[section.name]`` block (header to the next header) written anew
    from ``data``, or that block added at the end when the file has no ``section`` at all;
    None when neither is possible, or when the result does not read back as ``data``."""
    table = data.get(section, {}).get(name)
    if not isinstance(table, dict):
        return None
    newline = "\r\n" if "\r\n" in text else "\n"  # the file's own line breaks
    block = tomli_w.dumps({section: {name: table}}).replace("\n", newline)
    header = re.compile(
        rf"^[ \t]*\[[ \t]*{re.escape(section)}[ \t]*\.[ \t]*{re.escape(name)}[ \t]*\][^\n]*\n?",
        re.MULTILINE,
    )
    found = list(header.finditer(text))
    if len(found) == 1:
        start = found[0].start()
        after = _NEXT_HEADER.search(text, found[0].end())
        end = after.start() if after else len(text)
        # the comments and blank lines that end the block belong to what follows
        trailing = _TRAILING_NOTES.search(text, found[0].end(), end)
        end = trailing.start() if trailing else end
        edited = text[:start] + block + (newline if after and not trailing else "") + text[end:]
    elif not found and not re.search(
        rf"^[ \t]*\[+[ \t]*{re.escape(section)}\b|^[ \t]*{re.escape(section)}[ \t]*[.=]",
        text,
        re.MULTILINE,
    ):
        edited = text + ("" if text.endswith("\n") or not text else newline) + newline + block
    else:
        return None
    try:
        return edited if tomllib.loads(edited) == data else None
    except tomllib.TOMLDecodeError:
        return None


_NEXT_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
_TRAILING_NOTES = re.compile(r"(?:^[ \t]*(?:#[^\n]*)?\r?\n)+\Z", re.MULTILINE)


def _fresh_defaults() -> dict[str, Any]:
    return {"format": SHARD_FORMAT, "shard": dict(DEFAULTS["shard"])}


# The keys of the tables read by more than one part of mixle, whose unknown ones are warned of
# when the file is read: a misspelt one ("tema", "aprovers") would leave every scope readable,
# or a scope ungated, and "base_ulr" the answerer unconfigured, without a word. (Unknown keys
# of [ingest] and [secrets] are warned of where they are read; the values of every known key
# are checked as the file is read, by ``substrate.settingvalues``.)
KNOWN_KEYS = {
    "shard": frozenset({"team", "default_scope", "shared_scopes"}),
    "governance": frozenset({"approvers"}),
    # api_key is known so as to be refused where it is read (a key belongs in the environment),
    # not called unknown here first
    "answerer": frozenset({"base_url", "model", "api_key_env", "timeout", "api_key"}),
}
_warned: set[tuple[str, str]] = set()  # (table, key) told of already by this process


def _mixle_log_in(root: Path) -> bool:
    """Whether ``root`` holds a log that mixle wrote (the reference implementation's log has
    no header, and its shard no settings file)."""
    from substrate.log import HEADER_PREFIX  # (the log's module is not every settings reader's)

    try:
        with (root / LOG_FILE).open("rb") as fh:
            return fh.read(len(HEADER_PREFIX)) == HEADER_PREFIX
    except OSError:
        return False


# Every top-level name of mixle.toml (its tables, and format): a misspelt table
# ("[governence.approvers]") is not read either.
TABLES = frozenset({"format", "shard", "ingest", "secrets", "governance", "answerer"})


def _check_types(path: Path, data: dict[str, Any]) -> None:
    """Refuse a table given as a value (``shard = 3``): its settings would be passed over
    (every scope left readable) rather than obeyed. Their own values are checked next
    (``substrate.settingvalues``)."""
    for name in sorted(TABLES - {"format"}):
        if name in data and not isinstance(data[name], dict):
            raise ShardError(f"{path}: {name} must be a table ([{name}]), not a value")


def _warn_once(data: dict[str, Any]) -> None:
    """``warn_unknown_keys`` for the tables of a settings file and the keys of the tables
    in ``KNOWN_KEYS``."""
    warn_unknown_keys("", data, TABLES)
    for section, known in KNOWN_KEYS.items():
        table = data.get(section)
        if isinstance(table, dict):
            warn_unknown_keys(section, table, known)
    answerer = data.get("answerer")
    if (
        isinstance(answerer, dict)
        and "api_key" in answerer
        and ("answerer", "api_key") not in _warned
    ):
        _warned.add(("answerer", "api_key"))  # told on every command, not only by ask
        log.warning(
            "[answerer] api_key is refused: a key does not belong in %s; remove it and name "
            "the environment variable holding it with api_key_env",
            SETTINGS_FILE,
        )


def warn_unknown_keys(section: str, table: Iterable[str], known: frozenset[str]) -> None:
    """Warn of each key of the ``[section]`` table (of the file's tables, for "") this version
    does not know, with the nearest known one, once a process (a command reads the settings
    more than once): a misspelt setting would quietly do nothing, and refusing it would stop
    a shard a newer mixle wrote."""
    unknown = sorted(key for key in set(table) - known if (section, key) not in _warned)
    _warned.update((section, key) for key in unknown)
    for key in unknown:
        hint = _hint(key, known)
        if section:
            log.warning("[%s] has no setting %s, left alone (%s)", section, _shown(key), hint)
        else:
            log.warning("%s has no table %s, left alone (%s)", SETTINGS_FILE, _shown(key), hint)


def _hint(key: str, known: frozenset[str]) -> str:
    """The known key nearest ``key``, or all of them."""
    close = difflib.get_close_matches(key.lower(), sorted(known), n=1)
    return f"did you mean {close[0]}?" if close else f"known: {', '.join(sorted(known))}"


def _shown(name: str) -> str:
    from substrate.secrets import safe_repr  # a key may be a pasted secret

    return safe_repr(name)


# Written in a new shard: a shard made inside a git work tree (``.mixle`` at a repository's
# top) would be committed whole, every scope's items with it, by the next ``git add -A``
GIT_IGNORE = (
    "# A mixle shard: its items are not source. Delete this file to keep the shard in git.\n*\n"
)


def _keep_out_of_git(root: Path) -> None:
    """Write ``root/.gitignore`` ignoring the shard, when the folder holds the shard alone
    (a library's shard may be made in a project's folder, whose files it would hide from
    git) and no ``.gitignore`` is there; a failure (a read-only place) costs only the file."""
    try:
        if any(not _shard_own(entry) for entry in os.listdir(root)):
            return
        with open(root / ".gitignore", "x", encoding="utf-8") as fh:
            take_folder_group(fh.fileno(), root)
            fh.write(GIT_IGNORE)
    except OSError:
        pass


def _shard_own(name: str) -> bool:
    """Whether an entry named so is one a new shard's folder holds: its settings and their
    temporary copy, its log, its lock, its index."""
    return name in (SETTINGS_FILE, LOG_FILE, ".lock", INDEX_DIR) or name.startswith(
        f".{SETTINGS_FILE}."
    )
