"""Traces: JSON Lines rows of ``{"input": ..., "answer"|"label"|"call": ...}``.

Each row becomes a ``trace`` item whose text is ``"<input> => <answer>"`` and whose payload is
the row. ``row`` in provenance is the 0-based physical line index (blank lines counted, as in the
reference implementation); ``line`` is the same position 1-based, as editors show it.
"""

from __future__ import annotations

from typing import Any

from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.records import stringify
from substrate.ingest.segment import LineIssue, Parsed, Segment

ANSWER_KEYS = ("answer", "label", "call")


def trace_answer(row: dict[str, Any]) -> Any:
    """The first of ``answer``, ``label``, ``call`` present in the row (None when none is)."""
    for key in ANSWER_KEYS:
        if key in row:
            return row[key]
    return None


def trace_text(row: dict[str, Any]) -> str:
    """``"<input> => <answer>"``; a missing side renders as ``null``."""
    return f"{stringify(row.get('input'))} => {stringify(trace_answer(row))}"


def is_trace_row(value: Any) -> bool:
    """A dict with ``input`` and one of the answer keys."""
    return isinstance(value, dict) and "input" in value and any(k in value for k in ANSWER_KEYS)


# The first rows of a JSON Lines file that tell whether it holds traces
SAMPLE_ROWS = 5


def looks_like_traces(rows: list[tuple[int, Any]], sample: int = SAMPLE_ROWS) -> bool:
    """Whether the first rows of a JSON Lines file (up to ``sample``) read as traces: at least
    half of them trace rows, and the others runs that gave no answer, with no field the
    answered rows do not have. A harvest holds such runs: one of them among the first rows
    does not make the file records; a row of other fields (``notes``, ``expected``) does."""
    head = [value for _, value in rows[:sample]]
    answered = [value for value in head if is_trace_row(value)]
    if not answered or 2 * len(answered) < len(head):
        return False
    fields = set().union(*answered)
    return all(
        is_trace_row(value)
        or (isinstance(value, dict) and _asked(value) and value.keys() <= fields)
        for value in head
    )


def _asked(row: dict[str, Any]) -> bool:
    """Whether ``row`` has an input (not null, not empty): a run that was asked something."""
    return row.get("input") not in (None, "")


def trace_segment(row: dict[str, Any], index: int) -> Segment:
    """The segment of the row on physical line index ``index`` (0-based)."""
    return Segment(
        "trace",
        trace_text(row),
        None,
        index + 1,
        index + 1,
        0,
        row,
        [],
        {"row": index, "line": index + 1},
    )


def traces_from_rows(rows: list[tuple[int, Any]], parsed: Parsed) -> Parsed:
    """Turn parsed ``(line index, value)`` rows into trace segments; non-objects, and objects
    with neither an input nor an answer (absent, null or empty: ``null => null``), are
    issues."""
    parsed.format = "traces"
    for index, value in rows:
        if not isinstance(value, dict):
            parsed.issues.append(LineIssue(index + 1, "trace row is not a JSON object"))
        elif all(value.get(key) in (None, "") for key in ("input", *ANSWER_KEYS)):
            reason = f"trace row has no input and no {', '.join(ANSWER_KEYS)}"
            parsed.issues.append(LineIssue(index + 1, reason))
        else:
            parsed.segments.append(trace_segment(value, index))
    # in the file's order, with the lines that were no JSON at all (told as they were read)
    parsed.issues.sort(key=lambda issue: issue.line or 0)
    return parsed


def parse_traces(text: str, ctx: ParseContext) -> Parsed:
    """Parse a JSON Lines file as traces (the format forced or detected)."""
    from substrate.ingest.formats.jsonl import json_rows

    parsed = Parsed("traces")
    return traces_from_rows(json_rows(text, parsed), parsed)
