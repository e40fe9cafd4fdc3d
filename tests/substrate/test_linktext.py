"""Links read as a reader sees them, with the patterns the parser finds them by."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (":::tip The zebra eats grass.", "The zebra eats grass."),
        (":::warning[Careful] Do not feed the yak.", "Do not feed the yak."),
        ('!!! danger "Heads up" The lemur bites.', "The lemur bites."),
        ("{{< hint info >}} The hint text. {{< /hint >}}", "The hint text."),
        ('{% hint style="info" %} A hint. {% endhint %}', "A hint."),
        ("> [!WARNING] Back up first.", "> Back up first."),
        ("The TTL is 300 s.[^ttl]", "The TTL is 300 s."),
        ("[^ttl]: Time to live.", "Time to live."),
        ('Use <Highlight color="red">red</Highlight> only.', "Use red only."),
        # what is no such markup stays as written
        ("Use List<T> and Optional<String> here.", "Use List<T> and Optional<String> here."),
        ("Wow!!! It works.", "Wow!!! It works."),
    ],
)
def test_a_docs_sites_markup_is_no_part_of_a_quote(written: str, shown: str) -> None:
    # answers quoted ":::tip The zebra ..." and "{{< hint info >}} ...", which no reader of
    # the rendered page sees
    assert as_shown(written) == shown
