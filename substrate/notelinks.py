"""Following the links one note makes to another (``provenance.note_links``, written by the
Markdown parser: ``ingest.formats.notelinks``).

A link names a file, not an item: the note it names may have been edited (new ids) or ingested
after the note linking to it. So a link is looked up when it is followed, through the search
index: the items of the file it names (an absolute path, or a wiki-style name looked for in the
folder the linking note was ingested from, as ``NAME`` or ``NAME.md`` and the like), of the
scopes the reader may see. Of those, the section the link's ``#anchor`` names is taken (its
chunk the question fits best; nothing when the chain holds it already), else the item the
question fits best, else the file's first item.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from substrate import limits
from substrate.compressed import SUFFIX
from substrate.item import SubstrateItem
from substrate.retrieval import innermost_heading, ranked
from substrate.visibility import reader_view

if TYPE_CHECKING:
    from substrate.search.filters import SearchFilters
    from substrate.store import Substrate

NOTE_LINKS = "note_links"  # the provenance field ``ingest.formats.notelinks`` fills
SECTION_SEPARATOR = " > "  # between the headings of a section path (``Install > Linux``)
ANCHOR = "anchor"  # the explicit id of a section's heading (``ingest.formats.headings``)
_CANDIDATES = 8  # items of a linked note looked at for the question
MAX_ANCHORED = 256  # items of a linked note looked through for the anchored heading
# What a wiki-style name may leave off: ``[[deploys]]`` names ``deploys.md``; the extensions
# ingest reads notes with.
NOTE_EXTENSIONS = tuple(f".{ext}" for ext in limits.NOTE_FORMATS)
_SLUG_DROP = re.compile(r"[^\w\s-]")


def note_link_targets(item: SubstrateItem) -> list[str]:
    """The links ``item`` holds to other notes (as stored), each once."""
    links = item.provenance.get(NOTE_LINKS) if isinstance(item.provenance, dict) else None
    if not isinstance(links, list):
        return []
    return list(dict.fromkeys(link for link in links if isinstance(link, str) and link))


def linked_notes(
    substrate: Substrate,
    item: SubstrateItem,
    query: str,
    allowed: frozenset[str] | None,
    skip: Iterable[str] = (),
    limit: int = 1 << 30,
) -> list[SubstrateItem]:
    """One item for each note ``item`` links to (up to ``limit``), none in ``skip``, all in
    ``allowed`` (None: every scope), as a reader of those scopes sees them; a link to a note
    that is not there, or not visible, gives nothing (the two look alike)."""
    found: list[SubstrateItem] = []
    skipped = set(skip) | {item.id}
    for link in note_link_targets(item):
        if len(found) >= limit:
            break
        target = _link_filters(item, link, allowed)
        if target is None:
            continue
        filters, anchor = target
        # a name several notes bear: the nearest one (even if the chain holds it already:
        # then nothing is followed, not another)
        filters = _nearest(substrate, item, link, filters)
        best = _best_of(substrate, filters, anchor, query, skipped)
        if best is not None:
            skipped.add(best.id)
            found.append(best if allowed is None else reader_view(substrate, best, allowed))
    return found


def named_note(
    substrate: Substrate,
    item: SubstrateItem,
    name: str,
    query: str,
    allowed: frozenset[str] | None,
    limit: int,
) -> list[SubstrateItem]:
    """Up to ``limit`` items of the note ``name`` names (a front-matter value: ``adr-004``,
    ``adr-004.md``, ``../old/adr-004.md``), read from the folder of ``item``'s note, as a
    reader of ``allowed`` sees them: those ``query`` fits, best first, then the note's others
    in its order (a record's "Status: Accepted" alone says nothing of what it decided); none
    when there is no such note, or none visible."""
    from substrate.search.engine import first_items

    if "://" in name or name.startswith("/"):
        return []
    relative = name if name.startswith(("./", "../")) else f"./{name}"
    target = _link_filters(item, f"[[{relative}]]", allowed)
    if target is None:
        return []
    filters = target[0]
    matched = [hit for hit, _ in ranked(substrate, query, limit, filters=filters)]
    found = {c.id: c for c in [*matched, *first_items(substrate, filters, limit)]}
    usable = [c for c in found.values() if _visible(c, allowed)][:limit]
    return usable if allowed is None else [reader_view(substrate, c, allowed) for c in usable]


def _link_filters(
    item: SubstrateItem, link: str, allowed: frozenset[str] | None
) -> tuple[SearchFilters, str] | None:
    """The search filters that find the items of the note ``link`` names, and its anchor."""
    from substrate.search.filters import SearchFilters

    if not (link.startswith("[[") and link.endswith("]]")):
        path, _, anchor = link.partition("#")
        if not path.startswith("/"):
            return None
        return SearchFilters(scopes=allowed, paths=_page_paths(path)), anchor
    name, _, anchor = link[2:-2].partition("#")
    root = root_of(item)
    name = name.strip()
    if name.startswith(("./", "../")):  # from the linking note's own folder
        source = item.provenance.get("source")
        name = posixpath.normpath(posixpath.join(posixpath.dirname(str(source)), name))
    folder, _, file_name = name.strip("/").rpartition("/")
    if root is None or not file_name or ".." in folder.split("/"):
        return None  # (out of the folder ingested)
    under = f"{root.rstrip('/')}/{folder}" if folder else root
    names = _with_extensions(file_name)
    return SearchFilters(scopes=allowed, source_prefix=(under,), file_names=names), anchor


def _with_extensions(name: str) -> tuple[str, ...]:
    """``name``, and ``name`` with each extension a wiki-style name may leave off, or
    compressed (``CONTRIBUTING.md`` is ``CONTRIBUTING.md.gz`` in a package's docs)."""
    named = (name, *(name + ext for ext in NOTE_EXTENSIONS))
    return (*named, *(each + SUFFIX for each in named))


def _nearest(
    substrate: Substrate, item: SubstrateItem, link: str, filters: SearchFilters
) -> SearchFilters:
    """For a wiki link by a bare name (``[[Standup]]``) that several notes bear, ``filters``
    narrowed to the nearest of them, as note-taking apps resolve it: the one beside the
    linking note, else those sharing most of its folders (``Projects/2024/Planning.md`` from
    ``Projects/2024/Sprints/s1.md``, not ``Projects/2023/Planning.md``; of equals, the
    question picks)."""
    from substrate.search.engine import first_items

    name = link[2:-2].partition("#")[0].strip() if link.startswith("[[") else ""
    path = item.provenance.get("path")
    if not name or "/" in name or not isinstance(path, str):
        return filters
    sibling = posixpath.join(posixpath.dirname(path), name)
    beside = replace(filters, paths=_with_extensions(sibling))
    if any(_visible(c, filters.scopes) for c in first_items(substrate, beside, 1)):
        return beside
    found = {
        c.provenance.get("path")
        for c in first_items(substrate, filters, MAX_ANCHORED)
        if _visible(c, filters.scopes)
    }
    notes = [p for p in found if isinstance(p, str)]
    if len(notes) < 2:
        return filters
    here = posixpath.dirname(path).split("/")

    def shared(note: str) -> int:  # the folders it shares with the linking note, from the top
        return len(os.path.commonprefix([here, posixpath.dirname(note).split("/")]))

    most = max(map(shared, notes))
    return replace(filters, paths=tuple(sorted(n for n in notes if shared(n) == most)))


def _page_paths(path: str) -> tuple[str, ...]:
    """The files a link to ``path`` may name: ``path`` itself (or compressed), and for one
    without an extension the page a docs site serves there (``../guides/configuration`` is
    ``configuration.md``; a folder's page is its ``index.md`` or ``README.md``)."""
    if posixpath.splitext(posixpath.basename(path))[1]:
        return (path, path + SUFFIX)
    bare = path.rstrip("/")
    pages = (*(bare + ext for ext in NOTE_EXTENSIONS), bare + "/index.md", bare + "/README.md")
    return (path, *pages)


def root_of(item: SubstrateItem) -> str | None:
    """The folder ``item``'s file was ingested from (``ingest_root``), when it tells."""
    path, source = item.provenance.get("path"), item.provenance.get("source")
    return ingest_root(path, source) if isinstance(path, str) and isinstance(source, str) else None


def ingest_root(path: str, source: str) -> str | None:
    """The folder that was ingested, from a file's absolute ``path`` and its ``source`` name
    (the path relative to that folder); None when they do not fit together (a stream, a name
    whose secret was masked)."""
    if not source or source == path or not path.endswith("/" + source):
        return None
    return path[: -len(source) - 1] or "/"


def _best_of(
    substrate: Substrate, filters: SearchFilters, anchor: str, query: str, skip: set[str]
) -> SubstrateItem | None:
    """The item of the linked note to follow (see the module docstring); None when the
    section a link names is in ``skip`` already (the chain holds it)."""
    from substrate.search.engine import first_items

    def usable(found: Iterable[SubstrateItem]) -> list[SubstrateItem]:
        return [c for c in found if _visible(c, filters.scopes)]

    matched = usable(hit for hit, _ in ranked(substrate, query, _CANDIDATES, filters=filters))
    if anchor:
        section = anchored(usable(first_items(substrate, filters, MAX_ANCHORED)), anchor)
        if section:  # of its chunks, the one the question fits best
            order = {c.id: n for n, c in enumerate(matched)}
            section.sort(key=lambda c: order.get(c.id, len(order)))
            fresh = [c for c in section if c.id not in skip]
            return fresh[0] if fresh else None
    fresh = [c for c in matched if c.id not in skip]
    if fresh:
        return fresh[0]
    first = [c for c in usable(first_items(substrate, filters, _CANDIDATES)) if c.id not in skip]
    return first[0] if first else None


_REPEAT = re.compile(r"(.+)-(\d+)")  # "faq-1": the second heading "FAQ" of a note


def anchored(items: list[SubstrateItem], anchor: str) -> list[SubstrateItem]:
    """The items (a note's, in order) of the section ``anchor`` names: by its heading as
    anchors spell it, the last of "Deep Dive#Details" (a heading under a heading); "faq-1"
    names the second section headed "FAQ" when no heading reads "faq-1" itself. A heading
    with no text of its own before its first subheading names the sections under it, and an
    anchor an HTML element names (``<a name="opts">``, ``id="opts"``) names the item that
    holds the element, and a block's id (``#^blk``, as Obsidian writes one) the item that
    ends a block with it."""
    last = anchor.rpartition("#")[2]
    if last.startswith("^"):  # a block's id, which a note writes after the block: "... ^blk"
        mark = re.compile(rf"(?<!\S)\^{re.escape(last[1:])}(?![\w-])")
        return [c for c in items if mark.search(c.text)]
    wanted = _slug(last)
    named = [c for c in items if _heading_slug(c) == wanted or _explicit_slug(c) == wanted]
    if not named:
        named = [c for c in items if wanted in _enclosing_slugs(c)]
    if not named:
        named = [c for c in items if wanted in _element_anchors(c)]
    repeat = _REPEAT.fullmatch(wanted)
    if named or repeat is None:
        return named
    base, nth = repeat.group(1), int(repeat.group(2))
    sections: list[list[SubstrateItem]] = []  # each section headed so: a first chunk starts one
    for item in items:
        if _heading_slug(item) == base:
            if not sections or item.provenance.get("chunk", 0) == 0:
                sections.append([])
            sections[-1].append(item)
    return sections[nth] if nth < len(sections) else []


def _visible(item: SubstrateItem, allowed: frozenset[str] | None) -> bool:
    return allowed is None or item.scope in allowed  # (the index filtered already: again)


def _heading_slug(item: SubstrateItem) -> str:
    return _slug(innermost_heading(item))


def _enclosing_slugs(item: SubstrateItem) -> list[str]:
    """The slugs of the headings above ``item``'s own in its section path."""
    section = item.provenance.get("section") if isinstance(item.provenance, dict) else None
    if not isinstance(section, str):
        return []
    return [_slug(heading) for heading in section.split(SECTION_SEPARATOR)[:-1]]


# An anchor an HTML element names: <a name="opts">, <span id="opts"> (not a form field's or a
# meta tag's name, nor a data-id)
_ELEMENT_ANCHOR = re.compile(
    r"""<(?:a\s[^<>]*?(?<![\w-])name|[A-Za-z][\w-]*\s[^<>]*?(?<![\w-])id)\s*=\s*["']?"""
    r"""([^"'\s<>]+)""",
    re.IGNORECASE,
)


def _element_anchors(item: SubstrateItem) -> set[str]:
    """The slugs of the anchors HTML elements in ``item``'s text name."""
    if "<" not in item.text:
        return set()
    return {_slug(m.group(1)) for m in _ELEMENT_ANCHOR.finditer(item.text)}


def _explicit_slug(item: SubstrateItem) -> str | None:
    """The slug of the explicit id of ``item``'s heading (``{#setup}``), if it has one."""
    anchor = item.provenance.get(ANCHOR)
    return _slug(anchor) if isinstance(anchor, str) else None


def _slug(heading: str) -> str:
    """A heading as anchors spell it: ``Rollback plan!`` and ``rollback-plan`` alike."""
    return "-".join(_SLUG_DROP.sub("", heading.casefold()).replace("_", " ").split())


def unresolved_links(
    substrate: Substrate, items: Iterable[SubstrateItem], allowed: frozenset[str] | None
) -> Iterator[tuple[SubstrateItem, str]]:
    """Each link of ``items`` to a note that a reader of ``allowed`` finds nowhere (None:
    every scope), or to a heading that note does not have: a note renamed or removed, a link
    mistyped. Each link a folder's notes share is looked up once."""
    from substrate.search.engine import first_items

    found: dict[tuple[SearchFilters, str], bool] = {}
    for item in items:
        for link in note_link_targets(item):
            target = _link_filters(item, link, allowed)
            if target is None:
                yield item, link
                continue
            if target not in found:
                filters, anchor = target
                notes = first_items(substrate, filters, MAX_ANCHORED if anchor else 1)
                notes = [n for n in notes if _visible(n, allowed)]
                found[target] = bool(notes) and (not anchor or bool(anchored(notes, anchor)))
            if not found[target]:
                yield item, link
