"""A detection rule: one declarative entry of the rule table (``secrets.rules``).

Each entry names the rule, gives its regular expression and says how a candidate is checked.
The named group ``secret`` is the part that is secret and that redaction masks; without it the
whole match is.

Fields:
    name: the rule name reported in findings (several entries may share one).
    pattern: the regular expression. Provider patterns start with their literal prefix so the
        regex engine's fast literal search does the scanning.
    keywords: lower-case literals, one of which must occur in the text (or, for ``lines``
        rules, in the line) before the pattern is tried at all.
    kind: how a candidate is checked: ``token`` (placeholder and entropy checks on the part
        after the public prefix), ``assignment`` (key-name and value checks), ``stated`` (a
        password in a sentence: the same checks, and unquoted it must not be a plain word),
        ``url`` (the password of a URL), ``phrase`` (a recovery phrase: how many words, and
        no sentence), ``pem`` (a private key block), ``jwt`` /
        ``jwt_b64`` (decoded header must be JSON).
    entropy: minimum Shannon entropy, in bits per character, of the secret after its prefix.
    prefix: leading characters of the secret that are a public type marker (``ghp_``);
        ``keep_prefix`` may reveal at most these and placeholder checks skip them.
    boundary: the match may not start right after a letter, digit or ``_+/``...
    joins: ... except after one of these characters, which glue a name to a token.
    lines: only try the pattern on lines holding a keyword (plus ``window`` following lines).
    needs: characters one of which every match holds (an operator, a bracket); a text with
        none of them is not searched (``lines`` rules only).
    holds: lower-case strings one of which every match holds, as the lower-cased text shows
        it (a key's word, a lookup's opening); a keyword line window holding none of them is
        not searched (``lines`` rules only).
    starts: lower-case strings one of which begins every match, as the lower-cased text shows
        it: the pattern is then tried only where one does, not at every character of the
        keyword lines (``lines`` rules only; ``engine._led_matches``). With ``word`` set,
        every match begins a word instead (a run of letters, digits, ``_`` and the
        characters of ``word``, after a character that is none of them) holding one of
        ``starts`` at most ``reach`` characters after the word's beginning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Rule:
    """One detection rule (see the module docstring for the meaning of each field)."""

    name: str
    pattern: str
    keywords: tuple[str, ...]
    kind: str = "token"
    entropy: float = 0.0
    prefix: int = 0
    boundary: bool = True
    joins: str = ""
    lines: bool = False
    window: int = 0
    needs: str = ""
    holds: tuple[str, ...] = ()
    starts: tuple[str, ...] = ()
    word: str | None = None
    reach: int = 0
    flags: int = 0
    description: str = field(default="", compare=False)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern, built on first use so importing the table stays cheap."""
        return re.compile(self.pattern, self.flags)
