"""What each known key of ``mixle.toml`` must hold, checked whenever the file is read.

A value of the wrong type or out of range is refused by every command that reads the file,
not only by those that use the key: ``ls`` must not pass a file that ``add`` refuses, and
``grant`` must not write back a file it found wrong. Every command reads the settings (a
pre-commit hook runs mixle often), so this module imports nothing heavy: the feature modules
that use a key ask here what is wrong with its value, rather than the other way round.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from substrate.errors import InvalidInputError, ShardError
from substrate.limits import MIN_CHUNK_CHARS

if TYPE_CHECKING:
    from substrate.settings import Settings

# What is wrong with a value (a phrase to follow the key's name), or None.
Check = Callable[[Any], "str | None"]


def _whole_number(least: int) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            return f"must be an integer >= {least}, not {_shown(value)}"
        return None

    return check


def _strings(value: Any) -> str | None:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        return "must be a list of strings"
    return None


def _string_or_strings(value: Any) -> str | None:
    return None if isinstance(value, str) else _strings(value)  # one ignore rule alone


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, not {_shown(value)}"


# The shortest and the longest wait for an answerer: shorter gives no model time to answer,
# longer is a slip (a waiting socket cannot hold 1e10 s)
MIN_TIMEOUT = 0.1
MAX_TIMEOUT = 86400


def seconds_problem(value: Any) -> str | None:
    """What keeps ``value`` from being a timeout in seconds (a phrase to follow its name)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        return "must be a positive number of seconds"  # (not > 0: NaN too)
    if not math.isfinite(value):
        return "must be a finite number of seconds"
    if value < MIN_TIMEOUT:
        return f"must be at least {MIN_TIMEOUT} seconds, as --timeout must"
    return None if value <= MAX_TIMEOUT else f"must be at most {MAX_TIMEOUT} seconds (a day)"


def _name(value: Any) -> str | None:
    return _string(value) or (None if value.strip() else "must not be empty")


def _endpoint(value: Any) -> str | None:
    return _string(value) or url_problem(value)


def url_problem(url: str) -> str | None:
    """What keeps ``url`` from being an answerer's endpoint (a phrase to follow its name), or
    None. A user name or password in it would never be sent, and never shown either."""
    try:
        parsed = urllib.parse.urlsplit(url)
    except ValueError:  # a bracket left open: "http://[::1"
        return "is not a URL (an IPv6 address's bracket is left open)"
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return "must be an http:// or https:// URL"
    if not parsed.hostname:  # "http://:80/v1"
        return "names no host"
    if any(ch.isspace() or ord(ch) < 0x20 for ch in parsed.netloc):
        return "has a space or a control character in its host"
    try:
        parsed.hostname.encode("idna")  # "exa%20mple.com", "a..b": no host name
    except UnicodeError:
        return "names no host that can be looked up"
    if "%" in parsed.hostname:
        return "names no host that can be looked up"
    if "@" in parsed.netloc:
        return (
            "holds a user name or password, which is not sent; give the key through "
            "api_key_env (MIXLE_ANSWERER_KEY_ENV)"
        )
    try:
        parsed.port  # noqa: B018 - a port that is no number fails here, not mid-request
    except ValueError:
        return "has a port that is not a number"
    return None


def _key_variable(value: Any) -> str | None:
    if not isinstance(value, str) or not env_name(value):
        # never echoed: it may be the key itself, pasted in the variable's place
        return "must name the environment variable that holds the key (is it the key itself?)"
    return None


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def env_name(name: str) -> bool:
    """Whether ``name`` reads as an environment variable's (``OPENAI_API_KEY``, ``apikey``),
    not as a key pasted into ``api_key_env`` (a 32-hex Azure key, ``sk-...``)."""
    if not _ENV_NAME.fullmatch(name):
        return False
    from substrate.secrets.engine import find_secrets  # (only when a shard names one)

    if find_secrets(name):  # ghp_..., sk_live_... have "_"
        return False
    return name.isupper() or "_" in name or len(name) < 16


def _rule_names(value: Any) -> str | None:
    problem = _strings(value)
    if problem is not None:
        return problem
    from substrate.secrets.rules import RULE_NAMES  # (only when a shard lists some)

    unknown = sorted(set(value) - set(RULE_NAMES))
    return f"names unknown rules: {', '.join(unknown)}" if unknown else None


# The keys checked here, by table. [shard] and [governance] hold names, checked by
# ``check_values`` with the checks of the commands that take them.
CHECKS: dict[str, dict[str, Check]] = {
    "ingest": {
        "chunk_chars": _whole_number(MIN_CHUNK_CHARS),
        "max_file_size": _whole_number(1),
        "ignore": _string_or_strings,
        "as_text": _string_or_strings,
    },
    "secrets": {
        "allow_paths": _strings,
        "allow_rules": _rule_names,
        "max_file_bytes": _whole_number(1),
    },
    "answerer": {
        "base_url": _endpoint,
        "model": _name,
        "api_key_env": _key_variable,
        "timeout": seconds_problem,
    },
}


def problem_in(table: str, values: Mapping[str, Any]) -> str | None:
    """What is wrong with the first wrong value of ``values`` (the ``[table]`` table), as
    ``[table] key must be ...``; None when every known key holds what it must."""
    for key, check in CHECKS[table].items():
        if key in values:
            problem = check(values[key])
            if problem is not None:
                return f"[{table}] {key} {problem}"
    return None


def check_values(settings: Settings) -> None:
    """Refuse ``settings`` (read from a file) when a known key holds a wrong value.

    Raises:
        ShardError: naming the file, the key and what it must hold.
    """
    from substrate.visibility import configured_team, default_scope, shared_scopes

    for table in CHECKS:
        values = settings.data.get(table)
        problem = problem_in(table, values) if isinstance(values, dict) else None
        if problem is not None:
            raise ShardError(f"{settings.path}: {problem}")
    # (the names a file sets: a default is no one's to check, and the checks of a name load
    # the secret rules, which a library reading settings alone should not pay for)
    shard = settings.data.get("shard")
    given = shard if isinstance(shard, dict) else {}
    configured_team(settings)
    if "default_scope" in given:
        default_scope(settings)
    if "shared_scopes" in given:
        shared_scopes(settings)
    approvers_of(settings)


def approvers_of(settings: Settings) -> dict[str, set[str]]:
    """``[governance.approvers]``: each gated scope and its approvers, held to the checks of
    ``grant`` (a name edited by hand as "alice " would be another approver than "alice",
    printed alike, and an empty one nobody's).

    Raises:
        ShardError: the table is malformed, or a scope or a name is one ``grant`` refuses.
    """
    raw = settings.get("governance", "approvers", {})
    where = f"{settings.path or 'mixle.toml'}: [governance.approvers]"
    if not isinstance(raw, dict):
        raise ShardError(f"{where} must be a table of scope = [names]")
    approvers: dict[str, set[str]] = {}
    for scope, names in raw.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ShardError(f"{where}: {_shown(scope)} must be a list of names")
        for name in names:
            _refuse_unfit(where, scope, name)
        if names:
            approvers[str(scope)] = set(names)
    return approvers


def _refuse_unfit(where: str, scope: str, name: str) -> None:
    from substrate.gate import refuse_unfit_names  # grant's checks, word for word

    if not name or not scope:
        what = "an approver's name" if scope else "a scope's name"
        raise ShardError(f"{where}: {what} is empty")
    try:
        refuse_unfit_names(approver=name, scope=scope)
    except InvalidInputError as exc:  # never the name itself: it may be a pasted secret
        raise ShardError(f"{where}: {exc} (in the names of {_shown(scope)})") from None


def _shown(value: Any) -> str:
    from substrate.secrets import safe_repr  # a value may be a pasted secret

    return safe_repr(value)
