"""Links between notes: kept by the Markdown parser, followed by link hops."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate.hops import multihop
from substrate.ingest import ingest_path
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.notelinks import MAX_LINKS, note_links
from substrate.notelinks import NOTE_LINKS, ingest_root, unresolved_links
from substrate.store import Substrate

NOTE = ParseContext(1500, "/n/notes/projects/atlas.md", "projects/atlas.md")


@pytest.mark.parametrize(
    ("text", "links"),
    [
        ("see [Hermes](hermes.md)", ["/n/notes/projects/hermes.md"]),
        ("see [deploys](../ops/deploys.md#rollback)", ["/n/notes/ops/deploys.md#rollback"]),
        ("from the top: [deploys](/ops/deploys.md)", ["/n/notes/ops/deploys.md"]),
        ("below: [intro](#intro)", ["/n/notes/projects/atlas.md#intro"]),
        ('[mine](<my note.md> "Title") [same](my%20note.md?v=2)', ["/n/notes/projects/my note.md"]),
        (
            "[[project-hermes]] and [[ops/oncall#Handover|the handover]]",
            ["[[project-hermes]]", "[[ops/oncall#Handover]]"],
        ),
        ("[web](https://example.com/a.md) [mail](mailto:a@b.c) [net](//host/x.md)", []),
        ("![diagram](arch.png) ![[embedded.png]]", []),
        ("`[a](a.md)` and ``[[b]]``, then `[[ -f x ]]` in a span", []),
        ('```sh\n[[ -n "$x" ]] && cat [a](a.md)\n```\nafter [c](c.md)', ["/n/notes/projects/c.md"]),
        ("[[ -f x ]] outside code is no note name either", []),
        ("```js const x = 1```\nthen [c](c.md)", ["/n/notes/projects/c.md"]),  # inline code
        ("<!-- [[hidden]] [h](h.md) --> [[shown]]", ["[[shown]]"]),
        ("\\[[escaped]] and \\[x](x.md)", []),
        (
            "[[#Short links]], ![[embedded]], ![[pic.png]]",
            ["/n/notes/projects/atlas.md#Short links", "[[embedded]]"],
        ),
        ("| [[target\\|alias]] |", ["[[target]]"]),
        ("a stray ` tick\n\n[b](b.md) and a `span`", ["/n/notes/projects/b.md"]),
        ("``a ` [[b]] in a double span`` and `` `[c](c.md)` ``", []),
        ("[[note#]] and [café](c.md#caf%C3%A9)", ["/n/notes/projects/c.md#café", "[[note]]"]),
        ("no links at all, [brackets] and (parentheses)", []),
    ],
)
def test_links_a_section_makes(text: str, links: list[str]) -> None:
    assert note_links(text, NOTE) == links


def test_links_are_kept_once_and_at_most_a_few_dozen() -> None:
    text = " ".join(f"[n{i}](n{i}.md) [again](n{i}.md)" for i in range(MAX_LINKS + 10))
    links = note_links(text, NOTE)
    assert len(links) == MAX_LINKS and len(set(links)) == MAX_LINKS


def test_a_stream_keeps_only_wiki_style_links() -> None:
    stream = ParseContext(1500, None, "stdin-123")
    assert note_links("[a](a.md) and [[b]]", stream) == ["[[b]]"]


def test_the_ingested_folder_is_told_from_a_path_and_its_source_name() -> None:
    assert ingest_root("/n/notes/ops/a.md", "ops/a.md") == "/n/notes"
    assert ingest_root("/a.md", "a.md") == "/"
    assert ingest_root("/n/notes/a.md", "/n/notes/a.md") is None  # named by its path
    assert ingest_root("/n/notes/b.md", "a.md") is None


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


NOTES = {
    "projects/hermes.md": "# Hermes\n\nHermes is the event bus.\n\n## Ownership\n\n"
    "Hermes is owned by the [[team-platform]] team.\n",
    "team-platform.md": "# Platform team\n\nThe platform team runs CI.\n\n## Lead\n\n"
    "The team is led by [Priya](people/priya.md#about).\n",
    "people/priya.md": "# Priya Raman\n\n## Career\n\nPriya joined in 2019.\n\n"
    "## About\n\nPriya Raman is based in Lisbon.\n",
}


def test_ingest_keeps_a_section_s_links_and_only_where_there_are_some(tmp_path: Path) -> None:
    _write(tmp_path / "notes", NOTES)
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    links = {i.provenance.get("section"): i.provenance.get(NOTE_LINKS) for i in store.iter_items()}
    assert links["Hermes > Ownership"] == ["[[team-platform]]"]
    assert links["Platform team > Lead"] == [str(tmp_path / "notes/people/priya.md") + "#about"]
    assert links["Hermes"] is None and links["Priya Raman > About"] is None


def test_link_hops_follow_notes_by_path_and_by_name_to_the_anchored_section(
    tmp_path: Path,
) -> None:
    _write(tmp_path / "notes", NOTES)
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    chain = multihop(store, "Hermes ownership and its lead", seeds=1, max_hops=2, branch=1)
    linked = [s for s in chain.steps if s.via == "link"]
    # [[team-platform]]: the section the question fits; [Priya](…#about): the anchored one
    assert [s.item.provenance["section"] for s in linked] == [
        "Platform team > Lead",
        "Priya Raman > About",
    ]
    assert [s.depth for s in linked] == [1, 2]
    # a question the linked note shares no word with: its first item
    other = multihop(store, "Hermes ownership", seeds=1, max_hops=1, branch=1)
    assert [s.item.provenance["section"] for s in other.steps if s.via == "link"] == [
        "Platform team"
    ]


def test_a_note_linked_to_is_found_when_ingested_later_or_edited(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    _write(notes, {"a.md": "# Alpha\n\nAlpha depends on [Beta](beta.md).\n"})
    store = Substrate()
    ingest_path(store, notes)
    assert [s.via for s in multihop(store, "Alpha depends", seeds=1).steps] == ["seed"]
    _write(notes, {"beta.md": "# Beta\n\nBeta stores the ledger.\n"})
    ingest_path(store, notes)
    chain = multihop(store, "Alpha depends", seeds=1)
    assert [s.via for s in chain.steps] == ["seed", "link"]
    _write(notes, {"beta.md": "# Beta\n\nBeta stores the ledger and the audit log.\n"})
    ingest_path(store, notes)  # a new id for Beta's item: the link still leads there
    assert "audit log" in multihop(store, "Alpha depends", seeds=1).steps[1].item.text


def test_a_link_without_an_extension_finds_the_page_a_docs_site_serves_there(
    tmp_path: Path,
) -> None:
    # "../guides/configuration#opts", as MkDocs and Docusaurus write links: followed nowhere,
    # and told by audit to lead to no note, though the page was there
    notes = tmp_path / "docs"
    _write(
        notes,
        {
            "start/intro.md": "# Intro\n\nSet the options as "
            "[configured](../guides/configuration#opts) and read the [guides](../guides/).\n",
            "guides/configuration.md": "# Configuration\n\n## Opts\n\nThe retry limit is 7.\n",
            "guides/index.md": "# Guides\n\nEvery guide of the project.\n",
        },
    )
    store = Substrate()
    ingest_path(store, notes)
    chain = multihop(store, "Set the options as configured", seeds=1, branch=2)
    linked = {s.item.provenance["section"] for s in chain.steps if s.via == "link"}
    assert linked == {"Configuration > Opts", "Guides"}
    [intro] = [i for i in store.iter_items() if "Intro" in i.text]
    assert list(unresolved_links(store, [intro], None)) == []


def test_a_wiki_style_link_stays_in_the_folder_ingested(tmp_path: Path) -> None:
    _write(tmp_path / "one", {"a.md": "# A\n\nA links to [[b]].\n"})
    _write(tmp_path / "two", {"b.md": "# B\n\nThe other folder's b.\n"})
    store = Substrate()
    ingest_path(store, tmp_path / "one")
    ingest_path(store, tmp_path / "two")
    assert [s.via for s in multihop(store, "A links", seeds=1).steps] == ["seed"]


def test_a_wiki_name_two_notes_bear_finds_the_one_beside_the_linking_note(tmp_path: Path) -> None:
    # it found the other folder's, as the question fitted it as well: a wrong evidence path
    _write(
        tmp_path / "vault",
        {
            "home/Standup.md": "# Standup\n\nThe family standup is on Sunday evening.\n",
            "work/Standup.md": "# Standup\n\nThe work standup is at 09:30 every day.\n",
            "work/Team.md": "# Team page\n\nOur daily ritual is described in [[Standup]].\n",
            "Index.md": "# Index\n\nThe ritual of the family: [[Standup]] on Sunday.\n",
        },
    )
    store = Substrate()
    ingest_path(store, tmp_path / "vault")
    assert _followed(store, "Our daily ritual team page") == ("work/Team.md", "work/Standup.md")
    # none beside it: the name is looked for in the whole folder ingested
    assert _followed(store, "The ritual of the family") == ("Index.md", "home/Standup.md")


def test_a_wiki_name_never_leads_to_the_other_note_when_the_chain_holds_its_neighbour(
    tmp_path: Path,
) -> None:
    # the note beside the link found already, the other folder's was followed in its stead
    files = {}
    for team, what in (("teamA", "alpha billing"), ("teamB", "beta rendering")):
        files[f"{team}/Service.md"] = f"# Service\n\nThe {what} service: see [[Contacts]].\n"
        files[f"{team}/Contacts.md"] = f"# Contacts\n\nEscalation contact for {what}: {team}.\n"
    _write(tmp_path / "vault", files)
    store = Substrate()
    ingest_path(store, tmp_path / "vault")
    chain = multihop(store, "escalation contact for the beta rendering service", seeds=3)
    source = {step.item.id: step.item.provenance["source"] for step in chain.steps}
    links = [(source[s.parent_id], source[s.item.id]) for s in chain.steps if s.via == "link"]
    assert links and all(a.split("/")[0] == b.split("/")[0] for a, b in links), links


@pytest.mark.parametrize(
    ("notes", "question", "followed"),
    [
        pytest.param(  # neither beside the link: the 2023 plan answered for the 2024 sprint
            {
                "Projects/2023/Planning.md": "# Planning\n\nThe plan budgets 100 engineers.\n",
                "Projects/2024/Planning.md": "# Planning\n\nThe plan budgets 12 engineers.\n",
                "Projects/2024/Sprints/s1.md": "# Sprint one\n\nZebra notes: see [[Planning]].\n",
            },
            "sprint one zebra notes",
            ("Projects/2024/Sprints/s1.md", "Projects/2024/Planning.md"),
            id="the-one-sharing-most-folders",
        ),
        pytest.param(  # as near each other: the question picks
            {
                "Home/Planning.md": "# Planning\n\nGroceries for the week.\n",
                "Work/Planning.md": "# Planning\n\nThe zebra budget is 12 engineers.\n",
                "Index.md": "# Index\n\nThe zebra budget: see [[Planning]].\n",
            },
            "zebra budget index",
            ("Index.md", "Work/Planning.md"),
            id="of-equals-the-question-picks",
        ),
    ],
)
def test_a_wiki_name_two_notes_bear_elsewhere_leads_to_the_nearest(
    tmp_path: Path, notes: dict[str, str], question: str, followed: tuple[str, str]
) -> None:
    _write(tmp_path / "vault", notes)
    store = Substrate()
    ingest_path(store, tmp_path / "vault")
    assert _followed(store, question) == followed


def _followed(store: Substrate, query: str) -> tuple[str, str]:
    """The note the best match for ``query`` is, and the note its first link led to."""
    steps = multihop(store, query, seeds=1).steps
    link = next(step for step in steps if step.via == "link")
    return steps[0].item.provenance["source"], link.item.provenance["source"]


def test_a_wiki_name_from_dot_dot_is_read_from_the_linking_notes_folder(tmp_path: Path) -> None:
    _write(
        tmp_path / "notes",
        {
            "runbooks/db.md": "# DB\n\nEscalate to [[../people/priya]] after an hour.\n",
            "people/priya.md": "# Priya\n\nPriya approves the on-call schedule.\n",
            "runbooks/out.md": "# Out\n\nBoundary check: [[../../elsewhere]], [[./../../x]].\n",
        },
    )
    _write(tmp_path, {"elsewhere.md": "# Elsewhere\n\nOutside the folder.\n"})
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    chain = multihop(store, "Escalate after an hour", seeds=1)
    assert [(s.via, s.item.provenance["source"]) for s in chain.steps] == [
        ("seed", "runbooks/db.md"),
        ("link", "people/priya.md"),
    ]
    assert [s.via for s in multihop(store, "Boundary check", seeds=1).steps] == ["seed"]


@pytest.mark.parametrize("ext", [".mkd", ".mdown", ".text", ".mdx"])
def test_a_wiki_name_finds_a_note_of_every_extension_ingest_reads(tmp_path: Path, ext: str) -> None:
    _write(
        tmp_path / "notes",
        {"index.md": "# Index\n\nRollout details: [[rollout]].\n", f"rollout{ext}": "Tuesdays."},
    )
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    chain = multihop(store, "Rollout details", seeds=1)
    assert [(s.via, s.item.provenance["source"]) for s in chain.steps] == [
        ("seed", "index.md"),
        ("link", f"rollout{ext}"),
    ]


def test_a_secret_in_a_link_is_masked_where_the_link_is_kept(tmp_path: Path) -> None:
    key = "AKIAQ3EGRTZ5KX7WNM2P"
    encoded = "%41" + key[1:]  # the text shows it encoded; the link kept is decoded
    _write(tmp_path / "notes", {"a.md": f"# A\n\nSee [k](keys/{encoded}/x.md).\n"})
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    (item,) = store.iter_items()
    (link,) = item.provenance[NOTE_LINKS]
    assert key not in link and link.endswith("/keys/[REDACTED:aws_access_key]/x.md")


def test_a_link_names_one_file_and_a_wiki_name_a_note(tmp_path: Path) -> None:
    notes = {
        "index.md": "# Index\n\nEverything indexed: [top](/), [ops](ops/), [up](../..).\n",
        "ops/deploys.md": "# Deploys\n\nDeploys happen on Tuesdays.\n",
        "cfg.md": "# Cfg\n\nRead [[config]], never [[../outside]].\n",
        "config.yaml": "name: config\n",
        "config.md": "# Config\n\nThe configuration note.\n",
    }
    _write(tmp_path / "notes", notes)
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    assert [s.via for s in multihop(store, "Everything indexed", seeds=1).steps] == ["seed"]
    chain = multihop(store, "Read never", seeds=1)
    assert [(s.via, s.item.provenance["source"]) for s in chain.steps] == [
        ("seed", "cfg.md"),
        ("link", "config.md"),
    ]


def test_an_anchor_finds_its_section_however_far_down_the_note(tmp_path: Path) -> None:
    steps = "".join(f"## Step {n}\n\nDo thing number {n}.\n\n" for n in range(1, 40))
    _write(
        tmp_path / "notes",
        {"a.md": "# A\n\nThe last [step](b.md#step-39).\n", "b.md": f"# B\n\n{steps}"},
    )
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    chain = multihop(store, "The last", seeds=1, max_hops=1, branch=1)
    assert [s.item.provenance["section"] for s in chain.steps if s.via == "link"] == ["B > Step 39"]


def test_a_section_a_link_names_is_followed_once_and_under_nested_headings(
    tmp_path: Path,
) -> None:
    policy = "# Policy\n\n## Intro\n\nThe intro.\n\n## Escalation\n\n### Night shift\n\n"
    _write(
        tmp_path / "notes",
        {
            "policy.md": policy + "Page the night lead.\n",
            "a.md": "# A\n\nTwo links: [[policy#Escalation#Night shift]] and "
            "[night](policy.md#night-shift).\n",
        },
    )
    store = Substrate()
    ingest_path(store, tmp_path / "notes")
    chain = multihop(store, "Two links", seeds=1, max_hops=1, branch=5)
    # the second link names the section the first reached: no other section in its place
    assert [s.item.provenance["section"] for s in chain.steps if s.via == "link"] == [
        "Policy > Escalation > Night shift"
    ]


def test_a_linked_note_outside_the_reader_s_scopes_is_not_followed(tmp_path: Path) -> None:
    _write(tmp_path / "pub", {"a.md": "# A\n\nA links to [the plan](../vault/plan.md).\n"})
    _write(tmp_path / "vault", {"plan.md": "# Plan\n\nThe secret plan of the vault.\n"})
    store = Substrate()
    ingest_path(store, tmp_path / "pub", scope="public")
    ingest_path(store, tmp_path / "vault", scope="vault")
    assert [s.via for s in multihop(store, "A links", seeds=1).steps] == ["seed", "link"]
    hidden = multihop(store, "A links", seeds=1, scopes={"public"})
    assert [s.via for s in hidden.steps] == ["seed"]
    assert all(s.item.scope == "public" for s in hidden.steps)


def test_ranked_takes_filters_or_kind_and_scopes_never_both() -> None:
    from substrate.errors import InvalidInputError
    from substrate.retrieval import ranked
    from substrate.search.filters import SearchFilters

    with pytest.raises(InvalidInputError):  # the scopes given would be ignored
        ranked(Substrate(), "q", 3, scopes=frozenset({"a"}), filters=SearchFilters())


def test_audit_tells_of_links_to_no_note_or_heading_as_each_reader_sees_them(
    tmp_path: Path,
) -> None:
    from substrate.audit import audit_shard

    _write(tmp_path / "notes", NOTES)
    _write(
        tmp_path / "notes",
        {
            "plans.md": "# Plans\n\nSee [[postmortem-template]], [gone](old/gone.md), "
            "[about](people/priya.md#about), [missing](people/priya.md#hobbies) and "
            "[the vault](../vault/plan.md).\n"
        },
    )
    _write(tmp_path / "vault", {"plan.md": "# Plan\n\nThe plan of the vault.\n"})
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes", scope="public")
    ingest_path(store, tmp_path / "vault", scope="vault")
    report = audit_shard(store)
    assert report.ok  # told, not a problem: a note may link to one not written yet
    links = [(u["source"], u["link"]) for u in report.notes["unresolved"]]
    assert sorted(links) == [
        ("plans.md", "[[postmortem-template]]"),
        ("plans.md", "old/gone.md"),
        ("plans.md", "people/priya.md#hobbies"),
    ]
    assert report.notes["n_links"] == 7
    assert {u["line"] for u in report.notes["unresolved"]} == {3}  # the links' line
    public = audit_shard(store, scopes={"public"})  # the vault's note is none of its to see
    hidden = {u["link"] for u in public.notes["unresolved"]} - {link for _, link in links}
    assert hidden == {str(tmp_path / "vault/plan.md")}  # not under the folder: a full path


def test_an_anchor_to_a_repeated_heading_names_its_later_section(tmp_path: Path) -> None:
    from substrate.audit import audit_shard

    _write(
        tmp_path / "notes",
        {
            "b.md": "# B\n\n## FAQ\n\nThe first questions.\n\n## Other\n\nIn between.\n\n"
            "## FAQ\n\nThe second questions, about herons.\n",
            "a.md": "# A\n\nSee [the second](b.md#faq-1), [the first](b.md#faq) and "
            "[none](b.md#faq-2).\n",
        },
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    unresolved = [u["link"] for u in audit_shard(store).notes["unresolved"]]
    assert unresolved == ["b.md#faq-2"]
    linked = [s.item.text for s in multihop(store, "See the second", seeds=1).steps[1:]]
    assert "about herons" in linked[0] and "The first questions" in linked[1]


def test_an_anchor_finds_a_heading_by_its_text_without_markup_or_by_its_explicit_id(
    tmp_path: Path,
) -> None:
    from substrate.audit import audit_shard

    setup = (
        "# Setup\n\nIntro.\n\n## [Install](https://example.com) guide\n\nRun make.\n\n"
        "## **Bold** settings {#config .wide}\n\nEdit the file, then restart the herons.\n"
    )
    links = (
        "[install](setup.md#install-guide), [by id](setup.md#config), "
        "[by text](setup.md#bold-settings) and [none](setup.md#installhttpsexamplecom-guide)"
    )
    _write(tmp_path / "notes", {"setup.md": setup, "a.md": f"# A\n\nSee {links}.\n"})
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    sections = {i.provenance["section"]: i.provenance.get("anchor") for i in store.all()}
    assert sections == {
        "A": None,
        "Setup": None,
        "Setup > Install guide": None,
        "Setup > Bold settings": "config",
    }
    unresolved = [u["link"] for u in audit_shard(store).notes["unresolved"]]
    assert unresolved == ["setup.md#installhttpsexamplecom-guide"]
    linked = [s.item.text for s in multihop(store, "See by id", seeds=1).steps[1:]]
    assert any("restart the herons" in text for text in linked)


def test_a_link_to_no_note_is_told_at_its_own_line(tmp_path: Path) -> None:
    from substrate.audit import audit_shard

    text = "# Ideas\n\nSome text.\nSee [[not-yet-written]] later.\n\n## More\n\nx\nand [[gone]]\n"
    _write(tmp_path / "notes", {"ideas.md": text})
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    told = {u["link"]: u["line"] for u in audit_shard(store).notes["unresolved"]}
    assert told == {"[[not-yet-written]]": 4, "[[gone]]": 9}  # not 1 and 6, the sections'


def test_an_anchor_names_a_heading_with_no_text_of_its_own_or_an_html_element(
    tmp_path: Path,
) -> None:
    from substrate.audit import audit_shard

    text = (
        "# T\n\nSee [API](#api), [opts](#opts), [the list](#list) and [none](#nowhere).\n\n"
        '## API\n\n### Options\n\nSome text.\n\n<a name="opts"></a>\nMore text.\n\n'
        '## Elsewhere\n\n<span id="list">Herons and egrets.</span>\n'
    )
    _write(tmp_path / "notes", {"a.md": text})
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    told = {u["link"]: u["line"] for u in audit_shard(store).notes["unresolved"]}
    assert told == {"a.md#nowhere": 3}  # at the link's own line, written by its anchor alone
    # a form field's or a meta tag's name, or a data-id, is no anchor
    fields = '# F\n\nSee [q](#q) and [d](#d).\n\n<input name="q"> <div data-id="d">x</div>\n'
    _write(tmp_path / "notes", {"f.md": fields})
    ingest_path(store, tmp_path / "notes")
    told = {u["link"] for u in audit_shard(store).notes["unresolved"]}
    assert told == {"a.md#nowhere", "f.md#q", "f.md#d"}
    linked = [s.item.text for s in multihop(store, "See API opts", seeds=1).steps[1:]]
    assert any("Some text." in text for text in linked)


def test_each_chunk_of_a_long_paragraph_keeps_its_own_links() -> None:
    from substrate.ingest.formats.markdown import parse_markdown

    filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit sed do. "
    text = f"# T\n\nsee [a](a.md) {filler * 300} [b](b.md)\n"
    segments = parse_markdown(text, NOTE).segments
    links = [seg.extra.get(NOTE_LINKS, []) for seg in segments]
    assert len(segments) > 2 and links[0] == ["/n/notes/projects/a.md"]
    assert links[-1] == ["/n/notes/projects/b.md"] and not any(links[1:-1])


def test_a_chunk_s_links_are_its_own_past_comments_and_copies_in_code_blocks() -> None:
    from substrate.ingest.formats.context import ParseContext
    from substrate.ingest.formats.markdown import parse_markdown

    small = ParseContext(80, "/n/t.md", "t.md")
    filler = "lorem ipsum dolor sit amet, consectetur."
    # a comment cut into chunks hides its links in each
    comment = f"# T\n\n<!-- hidden\n\n{filler}\n\nsee [[InComment]] here -->\n\n{filler}\n"
    # the same words in a code block before do not take the link's place
    copy = (
        "# T\n\nIntro of this note is here and long enough.\n\n~~~\nSee [[Other]] now.\n~~~\n\n"
        "See [[Other]] now.\n"
    )
    for text, links in ((comment, []), (copy, ["[[Other]]"])):
        segments = parse_markdown(text, small).segments
        assert len(segments) > 1
        assert [link for seg in segments for link in seg.extra.get(NOTE_LINKS, [])] == links


def test_a_wiki_name_in_a_code_block_longer_than_a_chunk_is_no_link(tmp_path: Path) -> None:
    from substrate.audit import audit_shard

    code = "".join(f"obj.[[Prototype]] = value{i};  // line {i}\n" for i in range(80))
    text = f"# B\n\nSee [[Missing]].\n\n```js\n{code}```\n\nAfter [[Gone]].\n"
    _write(tmp_path / "notes", {"b.md": text})
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    assert len(store.all()) > 2  # the section was cut into chunks, some inside the block
    told = {u["link"]: u["line"] for u in audit_shard(store).notes["unresolved"]}
    assert told == {"[[Missing]]": 3, "[[Gone]]": 88}


def test_a_link_to_a_block_id_finds_the_item_ending_a_block_with_it(tmp_path: Path) -> None:
    from substrate.audit import audit_shard

    _write(
        tmp_path / "notes",
        {
            "A.md": "# A\n\n- do it ^blk\n\n## Later\n\nOther text ^blk-2\n",
            "B.md": "# B\n\nsee [[A#^blk]], [[A#^blk-2]] and [[A#^nope]]\n",
        },
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    unresolved = [u["link"] for u in audit_shard(store).notes["unresolved"]]
    assert unresolved == ["[[A#^nope]]"]


def test_a_wikilink_finds_a_note_whose_name_macos_wrote_decomposed(tmp_path: Path) -> None:
    import unicodedata

    from substrate.audit import audit_shard

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / unicodedata.normalize("NFD", "Tomás.md")).write_text("# T\n\nTomás lives in Faro.\n")
    (notes / "x.md").write_text("# X\n\nSee [[Tomás]].\n")  # typed composed
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    assert audit_shard(store).notes["unresolved"] == []
