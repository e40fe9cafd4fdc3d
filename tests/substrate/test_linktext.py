"""Links read as a reader sees them, with the patterns the parser finds them by."""

from __future__ import annotations

from substrate.linktext import as_shown, link_targets

NOTE = (
    'Owned by the [Platform team](teams/platform.md "the team page"), see '
    "[the runbook](<ops/run book.md>), [[deploys#Rollback]], [[people/ana|Ana]] and "
    "![a diagram](flow.png)."
)


def test_links_read_as_their_text() -> None:
    assert as_shown(NOTE) == (
        "Owned by the Platform team, see the runbook, deploys > Rollback, Ana and "
        "![a diagram](flow.png)."
    )
    assert as_shown("no link at all") == "no link at all"


def test_where_links_lead() -> None:
    assert link_targets(NOTE) == [
        "teams/platform.md",
        "ops/run book.md",
        "deploys#Rollback",
        "people/ana",
    ]
    assert link_targets("[x] is no link, nor \\[y](z)") == []
