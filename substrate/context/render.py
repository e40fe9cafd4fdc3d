"""How a packet is written out: a frame (head, separator, tail) around one piece per item.

A rendered packet is exactly ``head + sep.join(pieces) + tail``. Packing measures those same
strings, so the length it accounts for is the length of the text the receiver gets.

Formats:
    markdown: ``# Context for: TASK`` then ``[kind:id] text`` passages, as in the reference (a
        line of text opening as a label or the heading does, ``[word:`` or ``# Context for:``,
        escaped with a backslash), or for the ``brief`` shape ``- Heading: text (source)``
        lines.
    xml: ``<context task="...">`` holding one ``<document index id kind source>`` per item,
        text and attributes escaped.
    json: ``{"task": ..., "documents": [{"index", "id", "kind", "source", "text"}, ...]}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from substrate.context.compress import truncate
from substrate.item import SubstrateItem

FORMATS: tuple[str, ...] = ("markdown", "xml", "json")
SHAPES: tuple[str, ...] = ("passages", "brief", "features")
BRIEF_WIDTH = 160
# The longest source name a markdown packet shows beside an item's id
SOURCE_WIDTH = 80

# Characters XML 1.0 forbids even when escaped.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# Written out here because xml.sax.saxutils drags in urllib and http.client (~15 ms).
_XML_TEXT = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"}
_XML_ATTR = {
    **_XML_TEXT,
    ord('"'): "&quot;",
    ord("\n"): "&#10;",
    ord("\r"): "&#13;",
    ord("\t"): "&#9;",
}


@dataclass(frozen=True, slots=True)
class Frame:
    head: str
    sep: str
    tail: str

    @property
    def fixed(self) -> int:
        """Characters the frame costs with no items."""
        return len(self.head) + len(self.tail)


def one_line(text: str, width: int = BRIEF_WIDTH) -> str:
    """Whitespace collapsed, cut to ``width`` characters with "…"."""
    return truncate(" ".join(text.split()), width)


def frame(
    task: str, fmt: str, shape: str, *, header: bool = True, limit: int | None = None
) -> Frame | None:
    """The frame of a packet; with ``limit``, the task is shortened so the frame fits.

    The task named in the header is cut to a quarter of ``limit`` at most.

    Returns None when not even a frame with an empty task fits in ``limit``.
    """
    sep = "\n" if shape == "brief" or fmt != "markdown" else "\n\n"
    if fmt == "json":
        sep = ", "
    task_line = " ".join(task.split())
    if limit is not None:
        # The task named in the header may take at most a quarter of the budget: the rest is
        # for the evidence.
        task_line = truncate(task_line, max(limit // 4, 1))
    built = _frame(task_line, fmt, sep, header)
    if limit is None or built.fixed <= limit:
        return built
    bare = _frame("", fmt, sep, header)
    if bare.fixed > limit:
        return None
    # Shorten the task by the overflow; escaping may need a second, smaller cut.
    width = len(task_line) - (built.fixed - limit)
    while width > 0:
        built = _frame(truncate(task_line, width), fmt, sep, header)
        if built.fixed <= limit:
            return built
        width -= max(1, built.fixed - limit)
    return bare


def _frame(task: str, fmt: str, sep: str, header: bool) -> Frame:
    if fmt == "xml":
        if not header:
            return Frame("", sep, "")
        return Frame(f"<context task={quoteattr(_xml_clean(task))}>\n", sep, "\n</context>")
    if fmt == "json":
        if not header:
            return Frame("[", sep, "]")
        return Frame('{"task": ' + _json(task) + ', "documents": [', sep, "]}")
    return Frame(f"# Context for: {task}\n" if header else "", sep, "")


def piece(
    item: SubstrateItem, text: str, index: int, fmt: str, shape: str, source: str | None
) -> str:
    """The rendered form of one item whose used text is ``text`` (``index`` counts from 1)."""
    if shape == "brief":
        text = one_line(text)
    if fmt == "xml":
        attrs = f'index="{index}" id={quoteattr(item.id)} kind={quoteattr(item.kind)}'
        if source:
            attrs += f" source={quoteattr(_xml_clean(source))}"
        return f"<document {attrs}>{escape(_xml_clean(text))}</document>"
    if fmt == "json":
        doc = {"index": index, "id": item.id, "kind": item.kind, "source": source, "text": text}
        return _json(doc)
    if shape == "brief":  # whose facts, and from where: "Based in Berlin." names no one
        where = f" ({one_line(source, SOURCE_WIDTH)})" if source else ""
        return f"- {_headed(item, text)}{where}"
    # the source names the note ("## Decision" alone does not tell one record from another)
    label = (
        f"{item.kind}:{item.id} {one_line(source, SOURCE_WIDTH)}"
        if source
        else f"{item.kind}:{item.id}"
    )
    return f"[{label}] {_LABEL_SHAPE.sub(_escaped, text)}"


# A line of an item's text that opens as a piece's label does ("[text:0123abcd leads.md]"),
# or as the packet's heading ("# Context for: ..."): its first mark escaped, so that a note
# cannot pass a line of its own off as another item, or as the start of another packet
_LABEL_SHAPE = re.compile(r"(?m)^([ \t]*)(?=\[[\w-]+:|#[ \t]*Context for:)")


def _escaped(match: re.Match[str]) -> str:
    return match.group(1) + "\\"


def _headed(item: SubstrateItem, line: str) -> str:
    """A brief ``line`` led by its item's heading ("Priya Raman: Based in Berlin."), unless
    it opens with it already."""
    section = item.provenance.get("section")
    heading = section.rpartition(" > ")[2].strip() if isinstance(section, str) else ""
    if not heading or line.lstrip("# ").startswith(heading):
        return line
    return f"{heading}: {line}"


def join(fr: Frame, pieces: list[str]) -> str:
    return fr.head + fr.sep.join(pieces) + fr.tail


def _xml_clean(text: str) -> str:
    # replaced, not deleted: text is masked before it is rendered, and deleting a character
    # that split a secret would join the secret again after the masking missed it
    return _XML_INVALID.sub("\ufffd", text)


def escape(text: str) -> str:
    """``text`` escaped for XML character data."""
    return text.translate(_XML_TEXT)


def quoteattr(value: str) -> str:
    """``value`` as a double-quoted, escaped XML attribute value."""
    return '"' + value.translate(_XML_ATTR) + '"'


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
