"""Where Markdown's code lies: fenced blocks, spans and HTML comments.

Links inside code are no links (``ingest.formats.notelinks``), and a number in brackets inside
code is no citation (``answer``). Blanking keeps every other character where it was, so
offsets found in the blanked text hold in the text.
"""

from __future__ import annotations

import re

# A fenced code block (a line of inline code, ```x```, opens no fence). The fence is its
# whole run, never given back: a run of backticks with no line break after it was tried at
# every shorter length, each reading the rest of the line (quadratic in the run)
FENCED = (
    r"^[ \t]{0,3}(?P<fence>`{3,}+(?![^\n]*`)|~{3,}+)[^\n]*\n"
    r".*?(?:^[ \t]{0,3}(?P=fence)[`~]*[ \t]*$|\Z)"
)
COMMENT = r"<!--.*?(?:-->|\Z)"  # an HTML comment
CODE = re.compile(
    FENCED
    # a span: between runs of as many backticks, within its paragraph
    + r"|(?P<ticks>`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))+?(?<!`)(?P=ticks)(?!`)"
    + f"|{COMMENT}",
    re.MULTILINE | re.DOTALL,
)
_NOT_A_LINE_BREAK = re.compile(r"[^\n]")


def blanked(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with what ``pattern`` finds blanked: every character but a line break a
    space."""
    return pattern.sub(lambda m: _NOT_A_LINE_BREAK.sub(" ", m.group()), text)


def blanked_code(text: str) -> str:
    """``text`` with its code and comments blanked (``CODE``). For a short text (a paragraph,
    an answer): spans are looked for through all of it, which takes time quadratic in a long
    run of backticks."""
    if "`" not in text and "~~~" not in text and "<!--" not in text:
        return text
    return blanked(CODE, text)
