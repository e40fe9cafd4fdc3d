"""Artifact registries: a directory holding a ``manifest.json`` is one ``artifact`` item.

The item references the directory (``payload.ref``) and embeds the manifest; nothing else of the
artifact (weights, data) is read or copied. Its text is a short summary of the manifest, built as
the reference implementation builds it (directory name, artifact kind, task keys of ``meta``, io
kind). A ``manifest.json`` that is not an object with one of the artifact keys is ingested as an
ordinary JSON file (a web app's or an extension's manifest), unless artifacts were asked for
(``--as artifacts``), as ``ingest-artifacts`` takes every one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.jsonfile import load_json, parse_json_data
from substrate.ingest.formats.records import stringify
from substrate.ingest.segment import FileRejected, Parsed, Segment

ARTIFACT_KEYS = ("mixle_artifact", "kind", "meta", "io")
_TASK_KEYS = ("solve", "regress", "multilabel", "structured", "task")


def load_manifest(text: str) -> dict[str, Any]:
    """Parse a manifest.

    Raises:
        FileRejected: invalid JSON, or JSON that is not an object.
    """
    manifest = load_json(text)
    if not isinstance(manifest, dict):
        kind = _JSON_KINDS.get(type(manifest), "a JSON value")
        raise FileRejected(f"manifest is {kind}, not an object", line=1)
    return manifest


# what a JSON value is, in JSON's words (not Python's: NoneType, str, list)
_JSON_KINDS = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def manifest_meta(manifest: dict[str, Any]) -> dict[str, Any]:
    meta = manifest.get("meta", {})
    return meta if isinstance(meta, dict) else {}


def artifact_kind(manifest: dict[str, Any]) -> Any:
    return manifest.get("mixle_artifact") or manifest.get("kind")


def artifact_summary(name: str, manifest: dict[str, Any]) -> str:
    """The text surface: name, artifact kind, task keys of meta, io kind, space-joined."""
    parts = [name]
    kind = artifact_kind(manifest)
    if kind:
        parts.append(stringify(kind))  # (a kind that is no string, spelt as JSON spells it)
    meta = manifest_meta(manifest)
    parts.extend(k for k in _TASK_KEYS if k in meta)
    io = manifest.get("io")
    if isinstance(io, dict) and io.get("kind"):
        parts.append(stringify(io["kind"]))
    return " ".join(parts)


def artifact_parent(manifest: dict[str, Any]) -> Any:
    return manifest.get("parent") or manifest_meta(manifest).get("parent") or None


def artifact_segment(directory: Path, manifest: dict[str, Any]) -> Segment:
    """The one segment of an artifact directory."""
    return Segment(
        "artifact",
        artifact_summary(directory.name, manifest),
        None,
        None,
        None,
        0,
        {"ref": str(directory), "manifest": manifest},
        [str(k) for k in manifest_meta(manifest)],
        {
            "artifact_kind": artifact_kind(manifest),
            "parent": artifact_parent(manifest),
            "artifact_dir": str(directory),
        },
    )


def parse_artifact(text: str, ctx: ParseContext) -> Parsed:
    """Parse a ``manifest.json``: an artifact item, or plain JSON when it is not a manifest
    and the format was not chosen (an empty one gives nothing, as an empty JSON file)."""
    if not text.strip():
        return Parsed("artifact")
    if not ctx.forced:  # an array or an object without the artifact keys is some other JSON
        value = load_json(text)
        if not (isinstance(value, dict) and any(key in value for key in ARTIFACT_KEYS)):
            return parse_json_data(text, ctx)
    manifest = load_manifest(text)
    directory = Path(ctx.path or ctx.name or ".").parent
    parsed = Parsed("artifact")
    parsed.segments.append(artifact_segment(directory, manifest))
    return parsed
