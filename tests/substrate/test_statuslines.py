"""Status lines that say a note was replaced (``substrate.ingest.formats.statuslines``)."""

from __future__ import annotations

import pytest

from substrate.ingest.formats.statuslines import note_status, replacement_fields


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("- Status: Superseded by ADR-009", {"superseded_by": ["ADR-009"]}),
        (
            "- Status: **Superseded by [ADR-007](adr-007-opensearch.md)**",
            {"superseded_by": ["adr-007-opensearch.md"]},
        ),
        ("* Status: superseded by [[adr-9|the new one]]", {"superseded_by": ["adr-9"]}),
        (
            "> **Deprecated**: superseded by [the Argo CD procedure](deploy.md) on 2024-01-15.",
            {"superseded_by": ["deploy.md"]},
        ),
        ("Replaced by: the new onboarding flow.", {"superseded_by": ["the new onboarding flow"]}),
        ("- Supersedes: ADR-008", {"supersedes": ["ADR-008"]}),
        ("Replaces: ADR-5, ADR-6 and ADR-7", {"supersedes": ["ADR-5", "ADR-6", "ADR-7"]}),
        ("Supersedes: ADR-008 (the 30-day rule)", {"supersedes": ["ADR-008"]}),
        # a link to a heading of the note names the note
        (
            "- Status: Superseded by [ADR-4](adr-004.md#decision)",
            {"superseded_by": ["adr-004.md"]},
        ),
        ("Replaced by: [[adr-4#Decision]]", {"superseded_by": ["adr-4"]}),
        (
            "Replaced by: [the new flow](<onboarding v2.md>)",
            {"superseded_by": ["onboarding v2.md"]},
        ),
    ],
)
def test_labels_at_the_start_of_a_line_name_what_replaced_what(
    line: str, fields: dict[str, list[str]]
) -> None:
    assert replacement_fields(f"# A note\n\n{line}\n\nText.\n") == fields


@pytest.mark.parametrize(
    "line",
    [
        "- Status: Accepted",
        "We replaced the old cache; it is superseded by Redis.",
        "The status: superseded by nothing yet, as far as I know",  # no label at the start
        "Deploys replace the running pods.",
    ],
)
def test_other_lines_say_nothing_of_the_note(line: str) -> None:
    assert replacement_fields(f"# A note\n\n{line}\n") == {}


def test_adr_tools_status_section_says_it_without_a_colon() -> None:
    # "## Status / Superseded by [5. ...](0005-....md)", as adr-tools writes it, was not read
    old = (
        "# 2. Use RabbitMQ\n\nDate: 2023-02-01\n\n## Status\n\n"
        "Superseded by [5. Use Kafka](0005-use-kafka.md)\n\n## Decision\n\nWe use RabbitMQ.\n"
    )
    assert replacement_fields(old) == {"superseded_by": ["0005-use-kafka.md"]}
    new = "# 5. Use Kafka\n\n## Status\n\nAccepted\n\nSupersedes [2. Use RabbitMQ](0002-x.md)\n"
    assert replacement_fields(new) == {"supersedes": ["0002-x.md"]}
    # outside a status section, a line starting so is a sentence
    prose = "# 5. Use Kafka\n\n## Decision\n\nReplaces nothing: a new broker for events.\n"
    assert replacement_fields(prose) == {}


def test_only_the_head_of_a_note_outside_fenced_code_counts() -> None:
    template = "# How to write an ADR\n\n```markdown\n# ADR-NNN\n\n- Supersedes: ADR-001\n```\n"
    assert replacement_fields(template) == {}
    late = "# A note\n\n" + "Text.\n" * 60 + "- Status: Superseded by ADR-9\n"
    assert replacement_fields(late) == {}


def test_and_joins_names_only_before_another_numbered_one() -> None:
    assert replacement_fields("Supersedes: ADR-008 and the Research and Development guide") == {
        "supersedes": ["ADR-008"]
    }


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("# ADR-4\n\n- Status: Proposed\n", "Proposed"),
        ("# ADR-4\n\n**Status**: *Draft* (for review)\n", "Draft"),
        ("> STATUS: deprecated.\n", "deprecated"),
        ("# ADR-4\n\n## Status\n\nRejected in favour of ADR-5.\n", "Rejected"),
        ("## Status\n\n- Superseded by ADR-9\n", "Superseded"),
        # a word that is no note's status, or none
        ("# API\n\nStatus: 200 on success\n", None),
        ("## Status\n\nWe are still discussing it.\n", None),
        ("## Status\n\nWIP: the migration to Go 1.23 is in progress.\n", "WIP"),
        ("- Status: Rejected: too costly\n", "Rejected"),  # (a reason after it)
        ("Status: Accepted / Implemented\n", "Accepted"),
        ("Status: draft runbook, reviewed by Ana\n", None),
        ("Status: Proposed -> Accepted\n", "Accepted"),  # the status now
        ("- Status: Accepted on 2024-01-02\n", "Accepted"),
        ("# Health checks\n\nThe status page is green.\n", None),
        # in code, or far down the note, it is not the note's
        ("# Template\n\n```\nStatus: Proposed\n```\n", None),
        ("# Long\n\n" + "text\n" * 60 + "Status: Draft\n", None),
        ("# ADR-4\n\n```ts type X = 1```\n\n- Status: Proposed\n", "Proposed"),  # inline code
    ],
)
def test_the_status_a_note_gives_itself_in_its_head(text: str, status: str | None) -> None:
    assert note_status(text) == status
