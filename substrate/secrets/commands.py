"""Values a command line gives: a variable set for the command it runs (``env
DB_PASSWORD=... ./run.sh``, ``docker run -e ...``), and an option's value (``--password=...``).

A word with more after it on its line is often a note ("password: changed, see the wiki"); on
a command line, what follows is the command, and the word is the value.
"""

from __future__ import annotations

import re

from substrate.secrets.around import line_after, line_before
from substrate.secrets.placeholders import says_something

# What may come before a variable a command line sets for the command it runs, on its line
# or after a separator: a mark (a list's item, a quote, a comment), then the command's start: a
# Dockerfile's RUN, a CI step, a Makefile's silent line, a prompt, wrappers that pass the
# environment on (``sudo -E``, ``sudo -u app``, ``env``, ``timeout 10``), other such variables
# (``FOO=1``). (A container's option is ``_ENV_OPTION``: it may open a quote.)
_COMMAND_LEAD = re.compile(
    r"(?:[-*>#][ \t]+)?(?P<command>"
    r"(?:(?:RUN|run:|script:|command:)[ \t]+|@)?"
    r"(?:(?:[^\s\"'`]*[$%]|[^\s\"'`]+#)[ \t]+)?"
    r"(?:(?:sudo|env|export|nohup|exec|time|nice|timeout|doas)"
    r"(?:[ \t]+-{1,2}[A-Za-z][\w\-]*(?:[ \t]+[^\s=\-][^\s=]*(?=[ \t]))?)*"
    r"(?:[ \t]+\d+)?[ \t]+)*"
    r"(?:[A-Za-z_]\w*=[^\s\"'`]*[ \t]+)*"
    r")"
)
# A container's option that sets a variable: "docker run -e", "--env=", "--build-arg"
_ENV_OPTION = re.compile(r"[ \t](?:-e|--env|--build-arg)(?:[ \t]+|=)[\"']?$")
# The last place on a line where a command may start: after ";", "|" or "&", or where a quote,
# code or brackets open ("`", "'", '"', "(")
_LAST_SEPARATOR = re.compile(r"[;|&`'\"(][^;|&`'\"(]*$")
# A command chained after another ("cd app && ...", "... || ..."), or fed by one ("cat f |"),
# not a table's first cell ("| DB_PASSWORD=x | ...")
_CHAINED = re.compile(r"(?:&&|\|\||(?<=\S)[ \t]*\|)$")
_QUOTED_WORDS = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")


def command_environment(m: re.Match[str], text: str, value_end: int | None = None) -> bool:
    """Whether the key is a variable a command line sets for the command after it: ``env
    DB_PASSWORD=marmalade ./run.sh``, ``docker run -e DB_PASSWORD=marmalade img``. Its value
    is then a literal, however many words follow it: they are the command, not a note.

    Alone at its line's start, after a separator, or where a quote or code opens
    (```PASSWORD=nodejs```), it may be a note or an example: only a command's words after the
    value (which ends at ``value_end``) make it one.
    """
    key = m.group("key")
    if not key.isidentifier() or text[m.end("key") : m.start("su")] != "=":
        return False
    before = line_before(text, m.start("key"))
    if _ENV_OPTION.search(before):
        return True  # docker run -e "KEY=value", --env=KEY=value
    cut = _LAST_SEPARATOR.search(before)
    lead = (before[cut.start() + 1 :] if cut else before).lstrip(" \t")
    found = _COMMAND_LEAD.fullmatch(lead)
    if found is None:
        return False
    opener = cut.group()[0] if cut else ""
    if found.group("command") or _CHAINED.search(before[: cut.start() + 1] if cut else ""):
        return True
    end = m.end("su") if value_end is None else value_end
    tail = line_after(text, end)
    if opener and opener in "`'\"":
        tail = tail.split(opener, 1)[0]  # the command's end: what follows is the sentence's
    after = _QUOTED_WORDS.sub(" ", tail.split(" #", 1)[0]).split()
    # its command, then perhaps an option: "./run.sh", "psql -h db"; not a sentence that
    # names one ("ignored when --token is set"). (Its quoted arguments and a comment after
    # it say nothing of it.)
    return runs_a_command(after[:2]) and not says_something(after)


def said_again(word: str, m: re.Match[str], text: str) -> bool:
    """Whether the command line that sets ``word`` says it again, as an argument or the last
    part of one: ``docker run -e POSTGRES_PASSWORD=docker -d postgres``, ``psql -U postgres``,
    ``quay.io/keycloak/keycloak``, ``-e POSTGRES_USER=keycloak`` (not
    ``/srv/wombat/dump.sql``, nor a comment after it)."""
    after = line_after(text, m.end("su")).split(" #", 1)[0]  # (a comment's are no argument)
    arguments = (line_before(text, m.start("key")) + " " + after).split()
    word = word.casefold()
    return any(
        arg.strip("\"'`,").rsplit("=", 1)[-1].rsplit("/", 1)[-1].rsplit(":", 1)[-1].casefold()
        == word
        for arg in arguments
    )


# Words that make a line a command: an option, a path, a shell operator
_COMMAND_WORD = re.compile(
    r"--?[A-Za-z][\w\-]*(?:=\S*)?|(?:\.{1,2}|~)?/\w\S*|&&|\|\|?|;|[12]?>>?\S*|<"
)


def runs_a_command(words: list[str]) -> bool:
    return any(_COMMAND_WORD.fullmatch(word) for word in words)


# Values an option takes that say how a tool gets a password, not what it is
OPTION_WORDS = frozenset(
    {"prompt", "keyring", "stdin", "ask", "none", "env", "file", "tty", "interactive", "generate"}
)


def an_option_s_value(m: re.Match[str], text: str) -> bool:
    """Whether the value is given to a command's option with ``=``: ``mysql
    --password=cinnamon prod``, where the words after it are the command's."""
    key_start = m.start("key")
    dashed = m.group("key").startswith("-") or text[key_start - 1 : key_start] == "-"
    return dashed and text[m.end("key") : m.start("su")] == "="
