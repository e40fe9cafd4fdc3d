"""Each format parser on its own: sections, records, traces, manifests, and their errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from substrate.errors import InvalidInputError
from substrate.ingest import ingest_path
from substrate.ingest.detect import detect_format, normalize_format
from substrate.ingest.formats import PARSERS, ParseContext
from substrate.ingest.formats.frontmatter import front_matter_end, parse_block, split_tags
from substrate.ingest.segment import FileRejected
from substrate.ingest.textio import decode_text
from substrate.item import SubstrateItem
from substrate.limits import FRONT_MATTER_DEPTH
from substrate.secrets.fields import MAX_NESTING, nesting_depth
from substrate.store import Substrate
from substrate.widetext import is_binary

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
CTX = ParseContext()


def _parse(fmt: str, text: str, ctx: ParseContext = CTX):  # type: ignore[no-untyped-def]
    return PARSERS[fmt](text, ctx)


# -- markdown -------------------------------------------------------------------------------


def test_markdown_sections_keep_heading_path_and_lines() -> None:
    text = (FIXTURES / "notes" / "guides" / "install.md").read_text()
    parsed = _parse("markdown", text)
    got = [(s.section, s.line_start, s.line_end) for s in parsed.segments]
    assert got == [
        (None, 7, 7),
        ("Install", 9, 11),
        ("Install > Linux", 13, 20),
        ("Install > macOS", 22, 24),
        ("Uninstall", 26, 26),  # a heading with nothing under it: its words are its item
    ]


def test_a_heading_alone_is_an_item_unless_deeper_headings_follow_it() -> None:
    """A step's heading may be all it says ("## Step 1: back up with pg_dump"): dropped, its
    words were found nowhere. A heading over deeper ones is in their section paths, and a
    note of nothing but headings stays one item holding them all."""
    text = (
        "# Upgrade\n\nRead all steps.\n\n## Step 1: back up with pg_dump\n\n"
        "## Part two\n### Step 2: migrate\nRun it.\n\nStep 3\n------\n## #\n"
    )
    parsed = _parse("markdown", text)
    assert [(s.section, s.text, s.line_start) for s in parsed.segments] == [
        ("Upgrade", "# Upgrade\n\nRead all steps.", 1),
        ("Upgrade > Step 1: back up with pg_dump", "## Step 1: back up with pg_dump", 5),
        ("Upgrade > Part two > Step 2: migrate", "### Step 2: migrate\nRun it.", 8),
        ("Upgrade > Step 3", "Step 3\n------", 11),
    ]  # neither "Part two" (over a deeper heading) nor "## #" (no words)
    only_headings = _parse("markdown", "# A\n\n## B\n## C\n")
    assert [(s.text, s.section, s.line_start, s.line_end) for s in only_headings.segments] == [
        ("# A\n\n## B\n## C", "A", 1, 4)
    ]  # under its first heading, as a listing titles it


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("# Just a title\n", "Just a title"),
        ("Title\n=====\n", "Title"),
        ("## #\n## *B*\n", "B"),
        ("#\n## Setup\n### Deep\n", "Setup"),  # an empty heading is none
        ("# #\n## B\n", "B"),  # nor is its path part of the title
    ],
)
def test_a_note_of_one_heading_is_titled_by_it(text: str, section: str) -> None:
    (segment,) = _parse("markdown", text).segments
    assert (segment.text, segment.section) == (text.rstrip("\n"), section)


def test_a_heading_closes_the_sections_of_its_level_and_below() -> None:
    text = "# A\n## B\n#### C\nc\n### D\nd\n## E\ne\n# F\nf\n##### G\ng\n"
    parsed = _parse("markdown", text)
    assert [s.section for s in parsed.segments] == [
        "A > B > C", "A > B > D", "A > E", "F", "F > G"]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "sections"),
    [
        # titled by its file's name, as note-taking apps title a note with no heading
        ("recipes/Grandma lasagne.md", "- 500 g flour\n- Bake 40 minutes.\n", ["Grandma lasagne"]),
        ("pages/Kafka Migration.md", "## Decision\nSeven days.\n", ["Kafka Migration > Decision"]),
        ("journals/2024_03_20.MD", "Met Priya.\n", ["2024_03_20"]),
        # by its front matter's title (a site's page); a heading of level 1 is its own title
        ("site/p.md", "---\ntitle: Install  guide\n---\n## Linux\nx\n", ["Install guide > Linux"]),
        ("notes/a.md", "Intro.\n\n# Title\n\nBody.\n", [None, "Title"]),
        ("notes/b.md", "Title\n=====\n\nBody.\n", ["Title"]),
        ("-", "From a pipe.\n", [None]),  # no file name to take
    ],
)
def test_a_note_with_no_title_heading_is_titled_by_its_name(
    name: str, text: str, sections: list[str | None]
) -> None:
    parsed = _parse("markdown", text, ParseContext(name=name))
    assert [s.section for s in parsed.segments] == sections


def test_a_list_item_s_heading_is_a_heading_as_logseq_outlines_write_them() -> None:
    text = (
        "- ## Overview\n\t- The cluster has five nodes.\n\t- ### Nodes\n\t\t- Five.\n"
        "-  ## Maintenance\n\t- Patch window is Sunday 03:00 UTC.\n- #tag, no heading\n"
    )
    parsed = _parse("markdown", text, ParseContext(name="pages/cluster.md"))
    assert [(s.section, s.line_start, s.line_end) for s in parsed.segments] == [
        ("cluster > Overview", 1, 2),
        ("cluster > Overview > Nodes", 3, 4),
        ("cluster > Maintenance", 5, 7),
    ]
    # a bullet of level 1 is a README's list of commands as often: its note stays untitled
    commands = _parse(
        "markdown", "Setup:\n\n- # install deps\n- npm ci\n", ParseContext(name="R.md")
    )
    assert [s.section for s in commands.segments] == ["R"]


def test_tags_written_in_a_note_s_text_are_its_section_s_tags() -> None:
    text = (
        "---\ntags: [home]\n---\n# Alpha\n\nKickoff #project/alpha with #Ops, again #ops.\n"
        "Not tags: C#, issue #12, a [link](#alpha), `#code`, http://x/#frag, %% #hidden %%.\n\n"
        "## Build\n\n```sh\n#include <stdio.h>\n```\n"
    )
    parsed = _parse("markdown", text)
    assert [s.tags for s in parsed.segments] == [["home", "project/alpha", "Ops", "ops"], ["home"]]


def test_a_logseq_page_s_properties_are_its_front_matter() -> None:
    # "title:: Team Handbook" was the text of the page's first item, its title the file's name
    text = "title:: Team Handbook\ntags:: handbook, [[onboarding]]\nalias:: TH\n\n- ## Welcome\n"
    text += "\t- Read this first.\n"
    (seg,) = _parse("markdown", text, ParseContext(name="pages/handbook.md")).segments
    assert (seg.section, seg.tags, seg.payload) == (
        "Team Handbook > Welcome",
        ["handbook", "onboarding"],
        {"title": "Team Handbook", "alias": "TH"},
    )
    assert seg.text == "- ## Welcome\n\t- Read this first." and seg.line_start == 5


def test_a_note_opening_with_code_has_no_page_properties() -> None:
    text = 'std::cout << "hello giraffe";\nreturn 0;\n'
    (seg,) = _parse("markdown", text, ParseContext(name="snippets/hello.md")).segments
    assert "giraffe" in seg.text and seg.payload == {}


def test_front_matter_tags_lose_the_hash_notes_write_before_them() -> None:
    text = '---\ntags: ["#urgent", "#project/alpha", C#]\n---\nbody text\n'
    assert _parse("markdown", text).segments[0].tags == ["urgent", "project/alpha", "C#"]


def test_markdown_front_matter_becomes_tags_and_payload() -> None:
    text = (FIXTURES / "notes" / "guides" / "install.md").read_text()
    seg = _parse("markdown", text).segments[1]
    assert seg.tags == ["setup", "linux"]
    assert seg.payload == {
        "title": "Installation guide",
        "owner": "platform team",
        "reviewed": "2024-05-01",
    }
    assert "title:" not in seg.text


def test_front_matter_tags_are_not_spelled_as_python() -> None:
    text = "---\ntags: [a, null, true, 3]\n---\nbody text\n"
    assert _parse("markdown", text).segments[0].tags == ["a", "true", "3"]


def test_a_tag_list_left_open_is_read_as_the_list_meant() -> None:
    text = "---\ntags: [ops, runbook\n---\nbody text\n"
    assert _parse("markdown", text).segments[0].tags == ["ops", "runbook"]


def test_a_heading_of_a_megabyte_is_read_for_markup_only_at_its_start() -> None:
    # emphasis takes time with the square of the text read: a minified line as a heading
    # must not stall the file (all of it was read: 9,000 characters took 0.3 s, a megabyte
    # hours); its explicit id, at its end, is still found
    for heading in ("*a " * 350_000, "_a " * 350_000 + "{#end}"):
        parsed = _parse("markdown", f"# {heading}\n\nBody.\n")
        anchor = "end" if heading.endswith("}") else None
        for seg in parsed.segments:  # (the section is cut into chunks: each keeps its path)
            assert seg.section is not None and len(seg.section) <= 210
            assert seg.extra.get("anchor") == anchor


@pytest.mark.parametrize(
    "heading,section,anchor",
    [
        ("## [Install](https://example.com) guide", "Install guide", None),
        ("## **Bold** and _light_ words", "Bold and light words", None),
        ("## ![logo](logo.png) The [docs][ref]", "logo The docs", None),
        ("## `__init__` and snake_case_name", "__init__ and snake_case_name", None),
        ("## Setting up {#setup .unnumbered}", "Setting up", "setup"),
        ("## Escaped \\*stars\\* and a * b * c", "Escaped *stars* and a * b * c", None),
        ("Setext **heading** {#top}\n---", "Setext heading", "top"),
        ("## *args and **kwargs", "*args and **kwargs", None),  # no emphasis: as written
        ("## Wildcards * and ** and ***", "Wildcards * and ** and ***", None),
        ("## Use \\{#esc}", "Use {#esc}", None),  # an escaped brace opens no id
        # attribute lists as other tools write them, and inline HTML: markup, not words
        ("## Deploy {.class #deploy-id}", "Deploy", "deploy-id"),
        ("## Deploy {: #kramdown-id}", "Deploy", "kramdown-id"),
        ("## Deploy {.wide}", "Deploy", None),
        ('## <a id="x"></a>Install <code>mixle</code>', "Install mixle", None),
        ("## Generic List<T> {of items}", "Generic List<T> {of items}", None),
    ],
)
def test_a_heading_reads_as_its_text_and_keeps_its_explicit_id(
    heading: str, section: str, anchor: str | None
) -> None:
    parsed = _parse("markdown", f"# Doc\n\nIntro.\n\n{heading}\n\nBody.\n")
    last = parsed.segments[-1]
    assert last.section == f"Doc > {section}" and last.text.startswith(heading.split("\n")[0])
    assert last.extra.get("anchor") == anchor


def test_an_explicit_id_is_looked_for_only_at_the_end_of_a_long_heading() -> None:
    near = "w" * 195 + " {#near}"  # the id within the last 200 characters of the heading
    far = "{#" + "f" * 300 + "}"  # an id that opens before them: a word too long to show
    for heading, section, anchor in ((near, "w" * 195, "near"), (far, "(long title)", None)):
        (seg,) = _parse("markdown", f"## {heading}\n\nBody.\n").segments
        assert (seg.section, seg.extra.get("anchor")) == (section, anchor)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# Zebra migration\n", [("# Zebra migration", 1, 1)]),
        ("# Trip\n\n## Book flights to Lisbon\n", [("# Trip\n\n## Book flights to Lisbon", 1, 3)]),
        ("---\ntitle: Lisbon trip\ntags: [travel]\n---\n", [("Lisbon trip", 1, 4)]),
        ("---\nowner: me\n---\n\n", []),  # nothing to show: no title, no text
        ("#\n##\n", []),  # a template of empty headings
        ("---\ntitle: Lisbon trip\n---", [("Lisbon trip", 1, 3)]),  # no newline at the end
        ("---\ntitle: 2024\ntags: [year]\n---\n", [("2024", 1, 4)]),  # a title read as a number
    ],
)
def test_markdown_of_headings_or_front_matter_alone_is_one_item(
    text: str, expected: list[tuple[str, int, int]]
) -> None:
    parsed = _parse("markdown", text)
    assert [(s.text, s.line_start, s.line_end) for s in parsed.segments] == expected


def test_a_note_of_front_matter_alone_is_titled_by_its_file_s_name() -> None:
    # a note of fields a vault's queries read ("role: owner") was passed over as empty
    named = ParseContext(name="people/Bob Marsh.md")
    (seg,) = _parse("markdown", "---\nrole: owner\nteam: payments\n---\n", named).segments
    assert (seg.text, seg.section, seg.payload) == (
        "Bob Marsh",
        "Bob Marsh",
        {"role": "owner", "team": "payments"},
    )
    assert _parse("markdown", "---\n---\n", named).segments == []  # nothing said at all


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("## Closed ##", "Doc > Closed"),
        ("##\tClosed, tabs too #\t", "Doc > Closed, tabs too"),
        ("## C# and F#", "Doc > C# and F#"),  # no white space before the #: no closing
        ("## a # #", "Doc > a #"),
        ("## #", "Doc > #"),  # the first white space opens the title: a # after it is text
        ("##", "Doc > (untitled)"),
        ("   ### Three spaces in", "Doc > Three spaces in"),
        ("    ### Four spaces in", "Doc"),  # code, by its indentation
        ("#hashtag", "Doc"),
        ("####### Seven", "Doc"),
        ("Setext\n   ===", "Setext"),
        ("Setext\n    ===", "Doc"),
        ("  ~~~\n# in code\n   ~~~", "Doc"),
        ("   <!--\n# commented out\n-->", "Doc"),
        ("```js const x = 1```\n\n## After", "Doc > After"),  # inline code opens no fence
        ("1. first item\n---", "Doc"),  # a list item is no setext heading's text
        ("```\ncode\n```\nAfter code\n---", "Doc > After code"),  # a code block ended
        ("```\ncode\n```\nmore\nAfter code\n---", "Doc"),  # a paragraph's second line
        ("    indented code\n---", "Doc"),
        ("\tindented code\n---", "Doc"),
    ],
)
def test_the_lines_that_are_headings_and_their_titles(line: str, section: str) -> None:
    parsed = _parse("markdown", f"# Doc\n\nIntro.\n\n{line}\n\nBody.\n")
    last = parsed.segments[-1]
    assert last.section == section and last.text.endswith("Body.")


def test_markdown_fenced_code_is_not_a_heading() -> None:
    text = "# A\n\n```\n# comment\n```\n\ntext\n"
    parsed = _parse("markdown", text)
    assert [s.section for s in parsed.segments] == ["A"]
    assert "# comment" in parsed.segments[0].text


def test_markdown_setext_headings() -> None:
    text = "Top\n===\n\nintro\n\nSub\n---\n\nbody\n"
    parsed = _parse("markdown", text)
    assert [(s.section, s.line_start) for s in parsed.segments] == [("Top", 1), ("Top > Sub", 6)]


def test_markdown_thematic_break_after_blank_line_is_not_a_heading() -> None:
    text = "# H\n\npara\n\n---\n\nmore\n"
    parsed = _parse("markdown", text)
    assert len(parsed.segments) == 1
    assert parsed.segments[0].text.endswith("more")


def test_markdown_long_section_is_chunked_with_chunk_index() -> None:
    body = " ".join(f"Sentence {i} of the long section." for i in range(60))
    parsed = _parse("markdown", f"# Long\n\n{body}\n", ParseContext(chunk_chars=200))
    assert len(parsed.segments) > 3
    assert [s.chunk for s in parsed.segments] == list(range(len(parsed.segments)))
    assert all(len(s.text) <= 200 and s.section == "Long" for s in parsed.segments)


def test_front_matter_subset() -> None:
    lines = [
        "---",
        "title: 'It''s here'",
        "count: 3",
        "ratio: 0.5",
        "draft: false",
        "nothing:",
        "keywords: alpha, beta",
        "authors:",
        "  - Ada",
        "  - Grace",
        "nested:",
        "  a: 1",
        "note: |",
        "  line one",
        "  line two",
        "---",
    ]
    end = front_matter_end(lines)
    assert end == len(lines) - 1
    fields = parse_block(lines[1:end])
    assert fields["title"] == "It's here"
    assert fields["count"] == 3 and fields["ratio"] == 0.5 and fields["draft"] is False
    assert fields["nothing"] is None
    assert fields["authors"] == ["Ada", "Grace"]
    assert fields["nested"] == {"a": 1}
    assert fields["note"] == "line one\nline two"
    tags, rest = split_tags(fields)
    assert tags == ["alpha", "beta"]
    assert "keywords" not in rest


def test_a_heading_inside_an_html_comment_is_no_section() -> None:
    text = "# Real\nx\n<!--\n# fake in a comment\n-->\n# Real3\ny\n<!-- one line -->\n# Real4\nz\n"
    parsed = _parse("markdown", text)
    assert [s.section for s in parsed.segments] == ["Real", "Real3", "Real4"]
    unclosed = _parse("markdown", "# A\nx\n<!--\n# hidden\ny\n")
    assert [s.section for s in unclosed.segments] == ["A"]
    empty = _parse("markdown", "<!-->\n# A\ntext a\n# B\ntext b\n")  # closed at once
    assert [s.section for s in empty.segments] == [None, "A", "B"]


def test_front_matter_numbers_json_cannot_hold_stay_as_written() -> None:
    fields = parse_block(["n: 99999999999999999999999999", "f: 1.5e999", "ok: -12", "r: 2.5"])
    assert fields == {"n": "99999999999999999999999999", "f": "1.5e999", "ok": -12, "r": 2.5}


def test_front_matter_flow_collections_nest() -> None:
    fields = parse_block(
        [
            'tags: [ops, [nested, list], "quoted, tag", don\'t]',
            "owner: {name: Ann, roles: [admin, dev]}",
            "odd: {not a mapping}",
        ]
    )
    assert fields["owner"] == {"name": "Ann", "roles": ["admin", "dev"]}
    assert fields["odd"] == "{not a mapping}"
    tags, _ = split_tags(fields)
    assert tags == ["ops", "nested", "list", "quoted, tag", "don't"]


def test_front_matter_quotes_comments_and_lines_as_yaml_reads_them() -> None:
    fields = parse_block(
        [
            'hashes: [a, "b #c", d]  # a comment',
            'title: "Hello" # a comment',
            'escaped: ["a \\"b, c\\" d", e]',
            'odd: {"a:b": c}',
            '"quoted key": v',
            "single: 'it''s # here'",
            "items: ['it''s, ok', x]",
            "multiline: [one,",
            "  two]",
            "code: |",
            "  def f():",
            "      return 1",
            "folded: >",
            "  line one",
            "  line two",
            "",
            "  para two",
        ]
    )
    assert fields == {
        "hashes": ["a", "b #c", "d"],
        "title": "Hello",
        "escaped": ['a "b, c" d', "e"],
        "odd": {"a:b": "c"},
        "quoted key": "v",
        "single": "it's # here",
        "items": ["it's, ok", "x"],
        "multiline": ["one", "two"],
        "code": "def f():\n    return 1",
        "folded": "line one line two\npara two",
    }


def test_front_matter_values_over_several_lines_are_folded_as_yaml_folds_them() -> None:
    fields = parse_block(
        [
            "title: A long title that",
            "  wraps onto a second line",
            'description: "Quoted and',
            "  continued",
            "",
            '  past a blank line"  # a comment',
            "single: 'it''s",
            "   here'",
            "summary:",
            "  Begun on the next line",
            "  and ended here # a comment",
            "  ignored",
            'joined: "no \\',
            '  space"',
            "count: 3",
            "next: x",
        ]
    )
    assert fields == {
        "title": "A long title that wraps onto a second line",
        "description": "Quoted and continued\npast a blank line",
        "single": "it's here",
        "summary": "Begun on the next line and ended here",
        "joined": "no space",
        "count": 3,
        "next": "x",
    }
    # never closed: kept as written, as before
    assert parse_block(['open: "never closed', "  at all"]) == {"open": '"never closed'}


def test_double_quoted_front_matter_values_decode_their_escapes() -> None:
    fields = parse_block(
        [
            r'esc: "tab\there \u00e9 \"q\" back\\slash \x41 \U0001F600 \ud83d\ude00"',
            r'odd: "C:\Users \ud800 \q"',  # no escape YAML knows: kept as written
            r'nul: "a\0b \x00 \u0000"',  # no text holds a NUL: kept as written
            r"single: 'no \t escape, ''quoted'''",
            r'tags: ["a\tb", c]',
        ]
    )
    assert fields["esc"] == 'tab\there \u00e9 "q" back\\slash A \U0001f600 \U0001f600'
    assert fields["odd"] == r"C:\Users \ud800 \q"
    assert fields["nul"] == r"a\0b \x00 \u0000"
    assert fields["single"] == r"no \t escape, 'quoted'"
    assert split_tags(fields)[0] == ["a\tb", "c"]


@pytest.mark.parametrize(
    ("value", "tags"),
    [("true", ["true"]), ("0", ["0"]), ("{a: 1}", ['{"a": 1}']), ("a, b", ["a", "b"])],
)
def test_a_tag_that_is_no_list_is_one_tag_spelled_as_json(value: str, tags: list[str]) -> None:
    assert split_tags(parse_block([f"tags: {value}"]))[0] == tags


@pytest.mark.parametrize("depth", [70, 600])
def test_front_matter_nested_past_the_limit_is_kept_as_written(depth: int) -> None:
    deep = "[" * depth + "x" + "]" * depth
    text = f"---\ntitle: Deep\nmeta: {deep}\nblock:\n  in: {deep}\n---\n# Deep\n\nBody.\n"
    parsed = _parse("markdown", text)  # no RecursionError
    payload = parsed.segments[0].payload
    for meta in (payload["meta"], payload["block"]["in"]):
        for _ in range(FRONT_MATTER_DEPTH):
            [meta] = meta
        assert isinstance(meta, str) and meta.startswith("[[")
    # and the gate can check what is kept: the file is stored, not refused
    assert nesting_depth(payload) <= MAX_NESTING


def test_front_matter_deeper_than_one_level_is_kept_as_written() -> None:
    lines = ["author:", "  name: Bob", "  nested:", "    deep: 1", "people:", "  - name: Ann"]
    lines += ["    email: a@x"]
    fields = parse_block(lines)
    assert fields == {
        "author": "name: Bob\nnested:\n  deep: 1",
        "people": "- name: Ann\n  email: a@x",
    }


@pytest.mark.parametrize(
    "text",
    [
        "---\n\nIntro paragraph about widgets.\n\n---\n\nSecond part.\n",  # a rule, then text
        "---\nIntro paragraph about widgets.\n---\nSecond part.\n",  # no key: no front matter
    ],
)
def test_a_file_opening_with_a_rule_keeps_its_text(text: str) -> None:
    assert front_matter_end(text.splitlines()) == -1
    parsed = PARSERS["markdown"](text, ParseContext(2000, "hr.md", "hr.md"))
    assert "Intro paragraph about widgets." in "\n".join(s.text for s in parsed.segments)
    assert not any(s.payload for s in parsed.segments)


@pytest.mark.parametrize("fence", ["---", "+++"])
def test_an_integer_of_thousands_of_digits_in_front_matter_fails_nothing(fence: str) -> None:
    # int() refuses more than 4,300 digits: the run must not end on one note's field
    digits = "9" * 5000
    field = f"n: {digits}" if fence == "---" else f"n = {digits}"
    segments = _parse("markdown", f"{fence}\n{field}\n{fence}\nbody words\n").segments
    if fence == "---":  # kept as written, as a number JSON cannot hold
        [seg] = segments
        assert seg.payload == {"n": digits} and seg.text == "body words"
    else:  # TOML that Python cannot read: the block stays text, as invalid TOML does
        assert "body words" in segments[-1].text and not any(s.payload for s in segments)


@pytest.mark.parametrize("text", ["---\n---\nbody words\n", "+++\n+++\nbody words\n"])
def test_empty_front_matter_is_no_text(text: str) -> None:
    [seg] = _parse("markdown", text).segments
    assert (seg.text, seg.line_start, seg.payload, seg.tags) == ("body words", 3, {}, [])


def test_toml_front_matter_is_read_as_yaml_front_matter_is() -> None:
    text = (
        '+++\ntitle = "Toml Title"\ntags = ["tomltag", "b"]\ndate = 2024-05-01\n'
        'size = inf\nbig = 99999999999999999999\n[params]\nowner = "me"\n'
        "+++\n# Heading\ntoml body marmot\n"
    )
    [seg] = _parse("markdown", text).segments
    assert seg.text == "# Heading\ntoml body marmot" and seg.line_start == 10
    assert seg.tags == ["tomltag", "b"]
    assert seg.payload == {
        "title": "Toml Title",
        "date": "2024-05-01",
        "size": "inf",
        "big": "99999999999999999999",
        "params": {"owner": "me"},
    }


def test_json_front_matter_is_read_as_hugo_reads_it() -> None:
    text = (
        '{\n  "title": "Overview",\n  "tags": ["reference"],\n  "big": 99999999999999999999\n}\n'
        "\nThe reference documents every command.\n"
    )
    [seg] = _parse("markdown", text).segments
    assert seg.text == "The reference documents every command." and seg.line_start == 7
    assert seg.tags == ["reference"]
    assert seg.payload == {"title": "Overview", "big": "99999999999999999999"}
    for text in ('{\n"a": 1,\n}\nbody\n', "{\nnot json\n}\nbody\n", '[\n"a"\n]\nbody\n'):
        [kept] = _parse("markdown", text).segments  # no front matter: the file's text
        assert kept.text == text.strip() and not kept.payload


def test_toml_front_matter_nested_deep_is_kept_as_json_text() -> None:
    deep = "[" * 12 + "1" + "]" * 12
    payload = _parse("markdown", f"+++\nmeta = {deep}\n+++\nbody\n").segments[0].payload
    meta = payload["meta"]
    for _ in range(FRONT_MATTER_DEPTH):
        [meta] = meta
    assert meta == "[[[[1]]]]"


def test_an_escaped_nul_in_front_matter_is_kept_as_written() -> None:
    """No text holds a NUL (a file holding one fails): one written as an escape stays it."""
    toml = '+++\ntitle = "a\\u0000b"\n"k\\u0000" = {x = "c\\u0000"}\n+++\n# T\n\nbody\n'
    payload = _parse("markdown", toml).segments[0].payload
    assert payload == {"title": "a\\u0000b", "k\\u0000": {"x": "c\\u0000"}}


@pytest.mark.parametrize(
    "text",
    [
        '+++\ntitle = "unclosed\n+++\nbody words\n',  # invalid TOML
        '+++\ntitle = "never closed"\nbody words\n',
        "+++\nmeta = " + "[" * 3000 + "]" * 3000 + "\n+++\nbody words\n",  # past the stack
    ],
)
def test_a_toml_block_that_does_not_parse_stays_the_files_text(text: str) -> None:
    parsed = _parse("markdown", text)
    assert "+++" in parsed.segments[0].text and "body words" in parsed.segments[-1].text
    assert not any(s.payload or s.tags for s in parsed.segments)


# -- plain text and reStructuredText -----------------------------------------------------------


def test_text_paragraphs() -> None:
    parsed = _parse("text", (FIXTURES / "notes" / "readme.txt").read_text())
    assert [(s.text, s.line_start, s.line_end) for s in parsed.segments] == [
        ("Plain notes, first paragraph.\nIt has two lines.", 1, 2),
        ("Second paragraph after a blank line.", 4, 4),
    ]


def test_a_text_file_s_title_line_is_the_section_of_its_paragraphs() -> None:
    week = "Your first week at Orbit\n\nMonday: laptop setup.\n\nWednesday: shadow on-call.\n"
    parsed = _parse("text", week)
    assert [(s.text, s.section, s.line_start) for s in parsed.segments] == [
        ("Your first week at Orbit", None, 1),  # a fact left without its full stop is kept
        ("Monday: laptop setup.", "Your first week at Orbit", 3),
        ("Wednesday: shadow on-call.", "Your first week at Orbit", 5),
    ]
    long_line = "The HTML version of the Python Policy can be found in the python3-dev package"
    contents = ("The vault password: hunter2", "host=db1", "first note", "Done.", "2024-05-01")
    for first in (*contents, long_line):
        parsed = _parse("text", f"{first}\n\nA paragraph.\n")  # content, not a title
        assert [s.text for s in parsed.segments] == [first, "A paragraph."], first
        assert {s.section for s in parsed.segments} == {None}
    alone = _parse("text", "Just a title line\n").segments  # nothing for it to name
    assert [(s.text, s.section) for s in alone] == [("Just a title line", None)]
    # a README without an extension, written in Markdown: the heading's marks are no title's
    readme = _parse("text", "# Head\n\nbody\n").segments
    assert [(s.text, s.section) for s in readme] == [("# Head", None), ("body", "Head")]


def test_source_code_read_as_text_has_no_title() -> None:
    # its first comment named every paragraph of the module ("Copyright 2020 Example")
    code = "# Copyright 2020 Example Ltd\n\nimport os\n\n\ndef main():\n    pass\n"
    for path, section in (("/src/tool.py", None), ("/src/NOTES.txt", "Copyright 2020 Example Ltd")):
        segments = _parse("text", code, ParseContext(2000, path, "x")).segments
        assert [s.section for s in segments] == [None, section, section], path


@pytest.mark.parametrize(
    "head",
    [
        "Git v2.30.4 Release Notes\n=========================",
        "Git v2.30.4 Release Notes\n-----",
        "~~~~~~~~~~~~~~~~~~~~~~~~~\nGit v2.30.4 Release Notes\n~~~~~~~~~~~~~~~~~~~~~~~~~",
    ],
)
def test_a_text_file_s_title_underlined_is_the_section_of_its_paragraphs(head: str) -> None:
    # release notes in plain text: each version's fixes answered questions of the others
    notes = _parse("text", f"{head}\n\nFixes the cache eviction bug.\n").segments
    assert [s.section for s in notes] == [None, "Git v2.30.4 Release Notes"]
    news = "Release 1.6\n===========\n\nFixes X.\n\nRelease 1.5\n-----------\n\nFixes Y.\n\nMore.\n"
    got = [(s.text.split("\n")[0], s.section) for s in _parse("text", news).segments]
    assert got == [  # each release's notes under its own title
        ("Release 1.6", None),
        ("Fixes X.", "Release 1.6"),
        ("Release 1.5", None),
        ("Fixes Y.", "Release 1.5"),
        ("More.", "Release 1.5"),
    ]
    # its marks make a heading whatever its words, and the text may follow them at once
    versions = "2.5.0 (2024-03-01)\n------------------\nFixes Z.\n\nv2: what changed\n====\n\nW.\n"
    got = [(s.line_start, s.section) for s in _parse("text", versions).segments]
    assert got == [(1, "2.5.0 (2024-03-01)"), (5, None), (8, "v2: what changed")]
    for first in ("==\nTitle\n==", "Title\n==", "====\n===="):
        parsed = _parse("text", f"{first}\n\nA paragraph.\n")  # no title underlined
        assert {s.section for s in parsed.segments} == {None}, first


@pytest.mark.parametrize("fmt", ["markdown", "rst"])
def test_a_long_heading_is_cut_in_the_section_path_not_in_the_text(fmt: str) -> None:
    # every chunk repeats its section path: a heading of 40,000 words, whole in each of its own
    # chunks, made the shard grow with the square of its length
    title = " ".join(f"w{i}" for i in range(40_000))
    text = f"# {title}\n\nbody\n" if fmt == "markdown" else f"{title}\n{'=' * len(title)}\n\nbody\n"
    segments = _parse(fmt, text, ParseContext(chunk_chars=1000)).segments
    assert len(segments) > 100 and "".join(s.text for s in segments).count("w39999") == 1
    sections = {s.section for s in segments}
    assert len(sections) == 1
    [section] = sections
    assert section is not None and section.endswith(" …") and len(section) <= 202
    assert title.startswith(section[:-2])  # cut after a whole word
    assert _parse(fmt, text.replace(title, "x" * 300)).segments[0].section == "(long title)"


def test_blank_lines_and_long_token_runs_cost_no_matcher_memory() -> None:
    # a backtracking repeat keeps a state per repetition: 16 MB of blank lines took 1.9 GB
    import tracemalloc

    from substrate.search.tokenize import Analyzer

    tracemalloc.start()
    try:
        assert _parse("text", "\n" * 2_000_000).segments == []
        assert len(Analyzer().terms("a_" * 500_000 + "a")) == 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 30_000_000  # ~240 MB and ~80 MB with backtracking


def test_a_hyperlink_target_before_an_rst_title_is_no_item() -> None:
    # ".. _top:" names the title below for links to point at; it became an item of its own
    text = ".. _top:\n\nTitle\n=====\n\nText.\n"
    assert [s.section for s in _parse("rst", text).segments] == ["Title"]


def test_rst_sections_by_underlined_titles() -> None:
    parsed = _parse("rst", (FIXTURES / "notes" / "manual.rst").read_text())
    got = [(s.section, s.line_start) for s in parsed.segments]
    assert got == [
        ("Title", 1),
        ("Title > Usage", 7),
        ("Title > Usage > Options", 12),
        ("Title > Limits", 21),
    ]
    options = parsed.segments[2].text
    assert "After a transition" in options  # a transition is not a title


def test_an_rst_title_alone_is_an_item_unless_deeper_titles_follow_it() -> None:
    """As a Markdown heading: "Step 1: back up with pg_dump" may be all a step says."""
    text = (
        "Guide\n=====\n\nIntro.\n\nStep 1: back up with pg_dump\n----------------------------"
        "\n\nStep 2\n------\n\nRun it.\n\nPart\n====\n\nSub\n---\n\nsub text\n"
    )
    assert [(s.section, s.line_start) for s in _parse("rst", text).segments] == [
        ("Guide", 1),
        ("Guide > Step 1: back up with pg_dump", 6),
        ("Guide > Step 2", 9),
        ("Part > Sub", 17),  # "Part" is in its sub-section's path
    ]
    only_titles = _parse("rst", "A\n=\n\nB\n-\n")
    assert [(s.text, s.section) for s in only_titles.segments] == [("A\n=\n\nB\n-", None)]


# -- JSON Lines, JSON, traces -----------------------------------------------------------------


def test_jsonl_keeps_file_order_and_reports_bad_lines() -> None:
    text = '{"text": "a"}\n{"k": 1}\nnot json\n"b"\n\n[1, 2]\n'
    parsed = _parse("jsonl", text)
    assert [(s.kind, s.text, s.line_start, s.extra["index"]) for s in parsed.segments] == [
        ("text", "a", 1, 0),
        ("record", "1", 2, 1),
        ("text", "b", 4, 2),
        ("text", "[1, 2]", 6, 3),
    ]
    assert [(i.line, i.reason.split(":")[0]) for i in parsed.issues] == [(3, "invalid JSON")]


def test_jsonl_with_trace_rows_is_read_as_traces() -> None:
    parsed = _parse("jsonl", (FIXTURES / "notes" / "traces.jsonl").read_text())
    assert parsed.format == "traces"
    assert [(s.kind, s.text, s.extra) for s in parsed.segments] == [
        ("trace", "2+2 => 4", {"row": 0, "line": 1}),
        ("trace", "capital of France => Paris", {"row": 2, "line": 3}),
        ("trace", '{"q": "route"} => router', {"row": 3, "line": 4}),
    ]


@pytest.mark.parametrize(
    ("rows", "kind"),
    [
        ('{"input": "q1"}\n' + '{"input": "q", "answer": "a"}\n' * 4, "trace"),  # a run gave none
        ('{"input": "q", "label": "spam"}\n{"input": "r"}\n', "trace"),
        ('{"input": "q1"}\n{"input": "q2"}\n{"input": "q3", "answer": "a"}\n', "record"),
        ('{"input": "q", "answer": "a"}\n{"prompt": "p", "answer": "a"}\n', "record"),
        # a row of fields no answered one has is a dataset's, not a run that gave nothing
        ('{"input": "q", "label": "geo"}\n{"input": "r", "notes": "n"}\n', "record"),
        ('{"input": "q", "answer": "a", "id": 1}\n{"input": "r", "id": 2}\n', "trace"),
        ('{"input": "q", "answer": "a"}\n{"input": null}\n', "record"),  # no run: no input
    ],
)
def test_half_the_rows_answered_make_a_file_of_traces(rows: str, kind: str) -> None:
    # one unanswered run among the first five made a harvest of traces records
    assert {s.kind for s in _parse("jsonl", rows).segments} == {kind}


def test_a_format_forced_reads_trace_rows_as_records() -> None:
    # `--as records` (or `--as jsonl`) still read rows of traces as traces
    rows = '{"input": "q", "answer": "a"}\n' * 2
    forced = ParseContext(forced=True)
    assert {s.kind for s in _parse("jsonl", rows, forced).segments} == {"record"}
    assert {s.kind for s in _parse("jsonl", rows).segments} == {"trace"}


def test_a_trace_file_s_problems_are_told_in_line_order() -> None:
    text = '[1]\n{"input": 1, "answer": 2}\nnot json\n{}\n'
    parsed = _parse("traces", text)
    assert [i.line for i in parsed.issues] == [1, 3, 4]


def test_forced_traces_report_non_object_rows() -> None:
    parsed = _parse("traces", '{"input": 1, "answer": 2}\n[1]\n{}\n{"foo": 1}\n{"input": 3}\n')
    assert [s.text for s in parsed.segments] == ["1 => 2", "3 => null"]  # unanswered is kept
    empty = "trace row has no input and no answer, label, call"
    assert [(i.line, i.reason) for i in parsed.issues] == [
        (2, "trace row is not a JSON object"),
        (3, empty),
        (4, empty),
    ]


def test_json_array_and_object() -> None:
    parsed = _parse("json", (FIXTURES / "notes" / "facts.json").read_text())
    assert [(s.kind, s.text) for s in parsed.segments] == [
        ("text", "water boils at 100 C"),
        ("text", "ice melts at 0 C"),
        ("record", "iron Fe"),
    ]
    single = _parse("json", '{\n  "a": "x",\n  "b": 2\n}\n')
    assert [(s.kind, s.payload, s.line_start, s.line_end) for s in single.segments] == [
        ("record", {"a": "x", "b": 2}, 1, 4)
    ]
    scalar = _parse("json", "42\n").segments  # had no lines at all
    assert [(s.kind, s.text, s.line_start, s.line_end) for s in scalar] == [("text", "42", 1, 1)]


def test_each_element_of_a_json_array_has_the_lines_it_spans() -> None:
    text = '[\n  {"a": "x, ] [\\" }",\n   "b": [1, 2]},\n  "plain", 3,\n  ["nested"\n  ]\n]\n'
    parsed = _parse("json", text)
    assert [(s.kind, s.line_start, s.line_end) for s in parsed.segments] == [
        ("record", 2, 3),
        ("text", 4, 4),
        ("text", 4, 4),
        ("text", 5, 6),
    ]
    assert [(s.line_start, s.line_end) for s in _parse("json", "[1, 2]").segments] == [
        (1, 1),
        (1, 1),
    ]


def test_invalid_json_is_rejected_with_its_line() -> None:
    with pytest.raises(FileRejected) as err:
        _parse("json", '{\n  "a": 1,\n  "b": oops\n}')
    assert err.value.line == 3


# -- CSV and TSV ----------------------------------------------------------------------------


def test_csv_rows_become_string_records() -> None:
    parsed = _parse("csv", (FIXTURES / "notes" / "people.csv").read_text())
    assert [(s.kind, s.payload, s.text, s.line_start) for s in parsed.segments] == [
        ("record", {"name": "ada", "role": "engineer", "team": "core"}, "ada engineer core", 2),
        ("record", {"name": "grace", "role": "admiral", "team": "navy"}, "grace admiral navy", 3),
    ]


def test_tsv_and_sniffed_semicolons() -> None:
    tsv = _parse("tsv", (FIXTURES / "notes" / "cities.tsv").read_text())
    assert [s.payload for s in tsv.segments] == [
        {"city": "Paris", "country": "France"},
        {"city": "Lima", "country": "Peru"},
    ]
    semi = _parse("csv", "a;b\n1;2\n3;4\n")
    assert [s.payload for s in semi.segments] == [{"a": "1", "b": "2"}, {"a": "3", "b": "4"}]
    # a comma-separated file with semicolons inside values stays comma-separated
    commas = _parse("csv", "a,b\nx;y,2\nz,3\n")
    assert [s.payload for s in commas.segments] == [{"a": "x;y", "b": "2"}, {"a": "z", "b": "3"}]
    decimal = _parse("csv", "id;price\n1;2,50\n2;3,75\n")  # a decimal comma: a value's
    assert [s.payload for s in decimal.segments] == [
        {"id": "1", "price": "2,50"},
        {"id": "2", "price": "3,75"},
    ]
    quoted = _parse("csv", '"a;b",c\n"1;2",3\n')  # a semicolon inside quotes: a value's
    assert [s.payload for s in quoted.segments] == [{"a;b": "1;2", "c": "3"}]
    tie = _parse("csv", "a|b,c\n1|2,3\n")  # both split rows alike: the comma
    assert [s.payload for s in tie.segments] == [{"a|b": "1|2", "c": "3"}]


@pytest.mark.parametrize(
    ("text", "rows"),
    [  # a comma inside quotes, or inside a cell's text, is no separator
        ('"Name, full";Age\n"Smith, J";40\n', [{"Name, full": "Smith, J", "Age": "40"}]),
        (
            "Name;Notes (a, b, c)\nx;hello\ny;world\n",
            [{"Name": "x", "Notes (a, b, c)": "hello"}, {"Name": "y", "Notes (a, b, c)": "world"}],
        ),
    ],
)
def test_the_delimiter_is_the_one_that_splits_rows_alike(
    text: str, rows: list[dict[str, str]]
) -> None:
    parsed = _parse("csv", text)
    assert [s.payload for s in parsed.segments] == rows and not parsed.issues


@pytest.mark.parametrize("fmt,sep", [("csv", ","), ("tsv", "\t")])
def test_a_headerless_list_of_secret_settings_is_read_as_key_value_records(
    fmt: str, sep: str
) -> None:
    rows = [("DB_PASSWORD", "Tr0ub4dor&3x!"), ("API_TOKEN", "q8Zr2LmX9vB4nW7k")]
    parsed = _parse(fmt, "".join(f"{k}{sep}{v}\n" for k, v in rows))
    assert [s.payload for s in parsed.segments] == [{"key": k, "value": v} for k, v in rows]
    assert parsed.segments[0].line_start == 1
    # an ordinary header stays one, even over settings that name a secret
    named = _parse(fmt, f"name{sep}value\nDB_PASSWORD{sep}Tr0ub4dor&3x!\n")
    assert [s.payload for s in named.segments] == [
        {"name": "DB_PASSWORD", "value": "Tr0ub4dor&3x!"}
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_excel_s_separator_line_names_the_delimiter_and_is_no_row(newline: str) -> None:
    text = newline.join(["sep=;", "name;city", "Ada;London", "Grace;New York, NY", ""])
    parsed = _parse("csv", text)
    got = [(s.payload, s.line_start) for s in parsed.segments]
    assert got == [
        ({"name": "Ada", "city": "London"}, 3),
        ({"name": "Grace", "city": "New York, NY"}, 4),
    ]
    broken = _parse("csv", "sep=|\na|b\n1|2|3\n")
    assert [(i.line, i.reason) for i in broken.issues] == [
        (3, "row has 3 fields, the header has 2")
    ]


def test_a_csv_cell_larger_than_the_csv_modules_default_limit_is_read() -> None:
    note = "word " * 40_000  # 200 KB in one quoted cell
    parsed = _parse("csv", f'id,note\n1,"{note}"\n')
    assert [s.payload["note"] for s in parsed.segments] == [note] and not parsed.issues
    assert csv.field_size_limit() == 131_072  # the module's limit is left as it was


def test_csv_row_with_more_fields_is_reported_and_left_out_one_with_fewer_kept() -> None:
    parsed = _parse("csv", 'a,b,c\n1,2,3\n4,5\n"multi\nline",6,7,8\n9,10,11\n')
    assert [s.payload for s in parsed.segments] == [
        {"a": "1", "b": "2", "c": "3"},
        {"a": "4", "b": "5", "c": ""},  # a spreadsheet's row, its empty last cell left out
        {"a": "9", "b": "10", "c": "11"},
    ]
    assert [s.line_start for s in parsed.segments] == [2, 3, 6]
    assert [(i.line, i.reason) for i in parsed.issues] == [
        (4, "row has 4 fields, the header has 3")
    ]


def test_broken_csv_is_rejected_with_its_line() -> None:
    with pytest.raises(FileRejected) as err:
        _parse("csv", 'a,b\n1,2\n"3,4\n')
    assert err.value.line is not None and err.value.line >= 3
    assert "malformed CSV" in err.value.reason


# -- artifacts --------------------------------------------------------------------------------


def test_artifact_manifest_summary_and_reference() -> None:
    path = FIXTURES / "registry" / "router" / "manifest.json"
    parsed = _parse("artifact", path.read_text(), ParseContext(path=str(path)))
    (seg,) = parsed.segments
    assert seg.kind == "artifact"
    assert seg.text == "router solve/v1 solve record"
    assert seg.payload["ref"] == str(path.parent)
    assert seg.payload["manifest"]["mixle_artifact"] == "solve/v1"
    assert seg.tags == ["solve", "parent"]
    assert seg.extra["artifact_kind"] == "solve/v1" and seg.extra["parent"] == "base-7"


@pytest.mark.parametrize(
    ("text", "kind"),
    [("[1, 2, 3]", "an array"), ("null", "null"), ('"x"', "a string"), ("2.5", "a number")],
)
def test_manifest_that_is_not_an_object_is_rejected_when_artifacts_are_asked_for(
    text: str, kind: str
) -> None:
    with pytest.raises(FileRejected, match=f"manifest is {kind}, not an object"):
        # in JSON's words, not Python's (NoneType, str, list)
        _parse("artifact", text, ParseContext(forced=True))


@pytest.mark.parametrize("text", ['{"name": "web app", "icons": []}', '[{"name": "modelB"}]'])
def test_a_manifest_that_describes_no_artifact_is_plain_json(text: str) -> None:
    # in a walk, an array failed on every run, where an object of other keys was JSON
    parsed = _parse("artifact", text)
    assert parsed.format == "json"
    assert parsed.segments[0].kind == "record"


# -- detection and decoding ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a/b/README", "text"),
        ("doc/README.Debian", "text"),  # what the file is about, not its format
        ("usr/share/doc/git/copyright", "text"),  # (Debian's), and GNU's documents
        ("THANKS", "text"),
        ("NEWS", "text"),
        ("INSTALL", "text"),
        ("NEWS.Debian", "text"),
        ("fzf/install", None),  # a script: GNU's documents are named in capitals
        ("history", None),
        ("LICENSE.BSD", "text"),
        ("README.html", None),
        ("README.md", "markdown"),
        ("src/todo.js", None),  # code, or a format of its own
        ("License.rtf", None),
        ("notes.MD", "markdown"),
        ("x.ndjson", "jsonl"),
        ("x.tsv", "tsv"),
        ("deep/manifest.json", "artifact"),
        ("x.json", "json"),
        ("x.rst", "rst"),
        ("photo.png", None),
        ("Makefile", None),
        (".md", None),
    ],
)
def test_detect_format(name: str, fmt: str | None) -> None:
    assert detect_format(name) == fmt


def test_normalize_format_aliases_and_errors() -> None:
    assert normalize_format("MD") == "markdown"
    assert normalize_format(".ndjson") == "jsonl"
    with pytest.raises(InvalidInputError, match="unknown format"):
        normalize_format("docx")


def test_binary_detection_uses_nul_in_first_8k() -> None:
    assert is_binary(b"abc\x00def")
    assert not is_binary("héllo".encode())
    assert not is_binary(b"a" * 8192 + b"\x00")


def test_decode_text_strips_bom_and_normalises_newlines() -> None:
    assert decode_text(b"\xef\xbb\xbfa\r\nb\r\nc\n") == "a\nb\nc\n"
    assert decode_text(b"a\rb\rc") == "a\nb\nc"  # classic Mac OS: no \n anywhere


def test_a_carriage_return_within_a_line_ends_none(tmp_path: Path) -> None:
    # a progress bar's "10%\r50%\r100%" in a log: counted as line ends, they moved every later
    # line number past where grep, less and git put it (line 52 of a 40-line file)
    lines = [f"ordinary line {n}" for n in range(1, 41)]
    lines[4] = "download 10%\r50%\r100% done"
    lines[37] = "needleword appears here on line 38"
    (tmp_path / "build.log").write_text("\n".join(lines) + "\n", newline="")
    store = Substrate()
    ingest_path(store, tmp_path, chunk_chars=60, as_text=["*.log"])
    (item,) = [i for i in store.iter_items() if "needleword" in i.text]
    assert item.provenance["line_end"] == 38 and "ordinary line 39" not in item.text
    (bar,) = [i for i in store.iter_items() if "download" in i.text]
    assert "10% 50% 100% done" in bar.text


def test_decode_text_rejects_invalid_utf8_with_line_and_byte() -> None:
    with pytest.raises(FileRejected) as err:
        decode_text(b"ok\nfine\nbad \xff here\n")
    assert err.value.line == 3
    assert err.value.byte == 12


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_decode_text_rejects_a_nul_byte_past_the_binary_probe(encoding: str) -> None:
    # zeros a crash left after the first 8 KiB, which the binary check reads
    text = "line\r\n" * 2000 + "\x00\x00"
    with pytest.raises(FileRejected, match="NUL byte") as err:
        decode_text(text.encode(encoding))
    assert err.value.line == 2001


def test_every_chunk_of_a_jsonl_row_is_on_the_row_s_line() -> None:
    long = " ".join(f"Sentence number {i} of the row." for i in range(40))
    rows = [{"text": "a\nb\nc"}, {"text": "d"}, {"text": long}]
    text = "".join(json.dumps(row) + "\n" for row in rows)
    parsed = PARSERS["jsonl"](text, ParseContext(200, "rows.jsonl", "rows.jsonl"))
    lines = [(s.line_start, s.line_end) for s in parsed.segments]
    assert lines[:2] == [(1, 1), (2, 2)]
    assert len(lines) > 3 and set(lines[2:]) == {(3, 3)}


def test_csv_headers_that_repeat_or_are_empty_lose_no_value() -> None:
    parsed = PARSERS["csv"]("a,a,,b\n1,2,3,4\n", ParseContext(2000, "h.csv", "h.csv"))
    assert parsed.segments[0].payload == {"a": "1", "a (2)": "2", "column 3": "3", "b": "4"}


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("1,2\n3,4\n", {"column 1": "1", "column 2": "2"}),  # no header: numbers are data
        ("-1.5,2e3,40%\n3,4,5\n", {"column 1": "-1.5", "column 2": "2e3", "column 3": "40%"}),
        ("year,2024\n1,2\n", {"year": "1", "2024": "2"}),  # a word among them: a header
    ],
)
def test_a_first_row_of_numbers_is_the_first_record(text: str, first: dict[str, str]) -> None:
    parsed = PARSERS["csv"](text, ParseContext(2000, "n.csv", "n.csv"))
    assert parsed.segments[0].payload == first
    assert parsed.segments[0].line_start == (1 if "column 1" in first else 2)


def test_an_unclosed_quote_is_reported_where_its_row_starts() -> None:
    text = 'x,y\n1,"oops\n' + "".join(f"{i},b\n" for i in range(100))
    with pytest.raises(FileRejected) as caught:
        PARSERS["csv"](text, ParseContext(2000, "u.csv", "u.csv"))
    assert caught.value.line == 2


def test_a_tsv_with_quotes_that_are_not_csv_quoting_keeps_them() -> None:
    text = 'name\tdesc\nfoo\t"big" box\nbar\tplain\n'
    parsed = PARSERS["tsv"](text, ParseContext(2000, "q.tsv", "q.tsv"))
    assert [s.payload["desc"] for s in parsed.segments] == ['"big" box', "plain"]
    quoted = PARSERS["tsv"]('a\tb\n"x\ty"\tz\n', ParseContext(2000, "q.tsv", "q.tsv"))
    assert quoted.segments[0].payload == {"a": "x\ty", "b": "z"}  # CSV quoting still read


def test_a_tsv_quote_that_would_swallow_rows_is_a_plain_character() -> None:
    text = 'name\tnote\na\t"quoted start\nb\tend quote"\nc\tx\n'
    parsed = PARSERS["tsv"](text, ParseContext(2000, "q.tsv", "q.tsv"))
    assert [(s.payload, s.line_start) for s in parsed.segments] == [
        ({"name": "a", "note": '"quoted start'}, 2),
        ({"name": "b", "note": 'end quote"'}, 3),
        ({"name": "c", "note": "x"}, 4),
    ]
    # a quoted cell holding a line break that the rows need: quoting, as an export writes it
    export = 'id\tnote\tn\n1\t"line one\nline two"\t5\n2\t"say ""hi"""\t6\n'
    parsed = PARSERS["tsv"](export, ParseContext(2000, "e.tsv", "e.tsv"))
    assert [s.payload for s in parsed.segments] == [
        {"id": "1", "note": "line one\nline two", "n": "5"},
        {"id": "2", "note": 'say "hi"', "n": "6"},
    ]
    quoted = PARSERS["tsv"]('"a"\t"b"\n"1"\t"2"\n', ParseContext(2000, "a.tsv", "a.tsv"))
    assert [s.payload for s in quoted.segments] == [{"a": "1", "b": "2"}]  # every cell quoted


@pytest.mark.parametrize(
    "encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]
)
def test_wide_text_with_a_byte_order_mark_is_text(encoding: str) -> None:
    text = "name,age\r\nAnn,30\r\n"
    data = ("\ufeff" if encoding not in ("utf-16", "utf-32") else "") + text
    raw = data.encode(encoding)
    assert not is_binary(raw) and decode_text(raw) == "name,age\nAnn,30\n"
    assert is_binary("no mark\x00".encode("utf-16-le"))  # NUL bytes without a mark: binary
    with pytest.raises(FileRejected, match="invalid UTF-16") as err:
        decode_text(b"\xff\xfe" + "a\r\nb\rc\ud800".encode("utf-16-le", "surrogatepass"))
    # a line, as UTF-8 text gets one (the lone "\r" of a text with "\n" ends none)
    assert (err.value.line, err.value.byte) == (2, 14)
    with pytest.raises(FileRejected, match="invalid UTF-32"):
        decode_text(b"\xff\xfe\x00\x00" + "a\ud800".encode("utf-32-le", "surrogatepass"))
    with pytest.raises(FileRejected, match="invalid UTF-8"):  # the mark alone is no UTF-16
        decode_text(b"\xff\xfe plain text")


@pytest.mark.parametrize("mark", [b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\xef\xbb\xbf"])
def test_a_byte_order_mark_alone_is_an_empty_text(mark: bytes, tmp_path: Path) -> None:
    # what an editor saves for an empty file in "Unicode": no content, not invalid UTF-8
    assert decode_text(mark) == ""
    (tmp_path / "empty.txt").write_bytes(mark)
    report = ingest_path(Substrate(), tmp_path)
    assert report.files_failed == 0 and report.files_skipped == 1


def test_integers_past_64_bits_are_kept_exactly() -> None:
    big, small = "123456789012345678901234567890", -(2**63)
    text = f'{{"id": {big}, "n": {small}, "neg": -{big}, "code": "{big}"}}\n'
    for fmt in ("jsonl", "json"):
        parsed = PARSERS[fmt](text, ParseContext(2000, f"r.{fmt}", f"r.{fmt}"))
        assert parsed.segments[0].payload == {"id": big, "n": small, "neg": f"-{big}", "code": big}


def test_numbers_past_a_float_s_range_are_valid_json_kept_as_written() -> None:
    digits = "7" * 5000  # int() refuses more than 4,300 digits
    rows = ['{"a": 1e400, "b": -2.5E+999, "c": 1.5}', f'{{"e": {digits}, "f": [-{digits}]}}']
    parsed = PARSERS["jsonl"]("\n".join(rows) + "\n", ParseContext(2000, "h.jsonl", "h.jsonl"))
    assert not parsed.issues
    assert [s.payload for s in parsed.segments] == [
        {"a": "1e400", "b": "-2.5E+999", "c": 1.5},
        {"e": digits, "f": [f"-{digits}"]},
    ]
    text = f'[{{"e": {digits}}},\n {{"a": 1e400}}]'
    whole = PARSERS["json"](text, ParseContext(2000, "h.json", "h.json"))
    assert [(s.payload, s.line_start) for s in whole.segments] == [
        ({"e": digits}, 1),
        ({"a": "1e400"}, 2),
    ]
    # beside what JSON forbids, such a number is still invalid JSON
    bad = ['{"a": 1e400, "b": "\\ud800"}', '{"a": 1e400,}', '{"a": NaNa}']
    parsed = PARSERS["jsonl"]("\n".join(bad), ParseContext(2000, "h.jsonl", "h.jsonl"))
    assert not parsed.segments and [i.line for i in parsed.issues] == [1, 2, 3]
    assert "Expecting property name" in parsed.issues[1].reason  # the error, not the number


def test_nan_and_infinity_as_python_writes_them_are_kept_as_written() -> None:
    # json.dump writes a float NaN so unless told not to: the row is kept, not lost
    rows = ['{"s": "t1", "r": 21.5}', '{"s": "t2", "r": NaN}', '{"hi": Infinity, "lo": -Infinity}']
    parsed = PARSERS["jsonl"]("\n".join(rows), ParseContext(2000, "h.jsonl", "h.jsonl"))
    assert not parsed.issues
    assert [s.payload for s in parsed.segments] == [
        {"s": "t1", "r": 21.5},
        {"s": "t2", "r": "NaN"},
        {"hi": "Infinity", "lo": "-Infinity"},
    ]
    whole = PARSERS["json"]("[" + ",\n".join(rows) + "]", ParseContext(2000, "h.json", "h.json"))
    assert [s.payload["r"] for s in whole.segments[:2]] == [21.5, "NaN"]


def test_json_lines_in_a_json_file_are_rejected_with_a_hint() -> None:
    with pytest.raises(FileRejected) as err:
        PARSERS["json"]('{"a": 1}\n{"b": 2}\n', ParseContext(2000, "n.json", "n.json"))
    assert err.value.line == 2
    assert err.value.reason.endswith("looks like JSON Lines: rename it .jsonl or use --as jsonl")
    with pytest.raises(FileRejected) as err:  # one document, then something else: no hint
        PARSERS["json"]('{\n  "a": 1\n}\n{"b": 2}\n', ParseContext(2000, "n.json", "n.json"))
    assert "JSON Lines" not in err.value.reason


def test_the_records_family_keeps_each_file_s_own_record_format() -> None:
    from substrate.ingest.detect import file_format

    assert normalize_format("records") == "records"
    assert [file_format("records", n) for n in ("a.csv", "b.tsv", "c.json", "d.jsonl")] == [
        "csv",
        "tsv",
        "json",
        "jsonl",
    ]
    assert file_format("records", "notes.md") == "jsonl" and file_format("records", "") == "jsonl"
    assert file_format("jsonl", "a.csv") == "jsonl" and file_format(None, "a.csv") == "csv"


def test_a_value_nested_too_deep_is_a_line_problem_not_a_crash() -> None:
    deep = "[" * 1000 + "12345678901234567890123" + "]" * 1000
    text = deep + '\n{"text": "kept"}\n'
    parsed = PARSERS["jsonl"](text, ParseContext(2000, "d.jsonl", "d.jsonl"))
    assert [s.text for s in parsed.segments] == ["kept"]
    assert [(i.line, i.reason) for i in parsed.issues] == [(1, "nested deeper than 64 levels")]
    with pytest.raises(FileRejected, match="nested deeper"):
        PARSERS["json"](deep, ParseContext(2000, "d.json", "d.json"))
    stamp = '{"at": 1796023982123456789, "text": "a nanosecond time stays an integer"}\n'
    parsed = PARSERS["jsonl"](stamp, ParseContext(2000, "t.jsonl", "t.jsonl"))
    assert parsed.segments[0].payload["at"] == 1796023982123456789


def test_a_markdown_note_s_status_line_is_every_section_s_status_front_matter_first() -> None:
    from substrate.notestatus import not_in_force

    lined = _parse("markdown", "# ADR-4\n\n- Status: Proposed\n\n## Decision\n\nMove.\n")
    assert [seg.payload.get("status") for seg in lined.segments] == ["Proposed", "Proposed"]
    fronted = _parse("markdown", "---\nstatus: accepted\n---\n# ADR-4\n\nStatus: Draft\n")
    assert {seg.payload.get("status") for seg in fronted.segments} == {"accepted"}
    record = SubstrateItem("record", "api-v1", payload={"status": "deprecated"})
    assert not_in_force(record) is None  # a row's status column tells of its row


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("markdown", "# Top\n\n\u200e\u200b\n\n## Sub\n\nb\n"),
        ("rst", "Top\n===\n\n\u200e\u200b\n\nSub\n---\n\nb\n"),
    ],
)
def test_a_section_of_characters_that_show_nothing_has_no_body(fmt: str, text: str) -> None:
    """A left-to-right mark or a zero-width space under a heading is no text of its own (as
    ``is_blank`` says): the heading over a deeper one gives no item, as over white space."""
    assert [s.section for s in _parse(fmt, text).segments] == ["Top > Sub"]


def test_a_table_read_as_json_lines_says_what_it_looks_like() -> None:
    parsed = PARSERS["jsonl"]("name,team\nAna,Falcon\n", ParseContext(2000, "s", "s"))
    assert parsed.issues[0].reason.endswith("looks like CSV or TSV: name it .csv or .tsv "
                                            "(--source for -) or use --as csv")  # fmt: skip
    assert "looks like" not in parsed.issues[1].reason  # (once)
    broken = PARSERS["jsonl"]('{"a": 1,}\n{"a": 2,}\n', ParseContext(2000, "s", "s"))
    assert all("looks like" not in issue.reason for issue in broken.issues)
    commented = PARSERS["jsonl"]('# rows, one a line\n{"a": 1}\n', ParseContext(2000, "s", "s"))
    assert "looks like" not in commented.issues[0].reason


def test_an_object_holding_arrays_of_objects_gives_a_record_for_each_and_one_for_the_rest() -> None:
    text = (
        '{\n  "count": 3,\n  "results": [\n    {"name": "Swiss Franc", "code": "CHF"},\n'
        '    {"name": "Euro",\n     "code": "EUR"}\n  ],\n  "tags": ["a", "b"]\n}\n'
    )
    parsed = PARSERS["json"](text, ParseContext(2000, "x.json", "x.json"))
    got = [(s.payload, s.section, s.line_start, s.line_end) for s in parsed.segments]
    assert got == [
        ({"count": 3, "tags": ["a", "b"]}, None, 1, 9),  # an array of strings is a field
        ({"name": "Swiss Franc", "code": "CHF"}, "results", 4, 4),
        ({"name": "Euro", "code": "EUR"}, "results", 5, 6),
    ]
    alone = PARSERS["json"]('{"items": [{"a": 1}, {"a": 2}]}', ParseContext(2000, "y", "y"))
    assert [s.payload for s in alone.segments] == [{"a": 1}, {"a": 2}]  # no empty rest
    few = PARSERS["json"]('{"servers": [{"a": 1}], "t": 3}', ParseContext(2000, "z", "z"))
    assert [s.payload for s in few.segments] == [{"servers": [{"a": 1}], "t": 3}]


def test_an_object_of_objects_by_name_gives_a_record_for_each() -> None:
    # services by id as one item: an answer quoted megabytes, in tens of seconds
    text = (
        '{\n  "svc1": {"owner": "ann", "tier": 1},\n  "svc2": {\n    "owner": "bo"\n  },\n'
        '  "svc1": {"owner": "cy"}\n}\n'
    )
    parsed = PARSERS["json"](text, ParseContext(2000, "x.json", "x.json"))
    got = [(s.text, s.payload, s.section, s.line_start, s.line_end) for s in parsed.segments]
    assert got == [  # (a key given twice: its last value, as the parser keeps it)
        ("svc1: cy", {"owner": "cy"}, "svc1", 6, 6),
        ("svc2: bo", {"owner": "bo"}, "svc2", 3, 5),
    ]
    no_map = ('{"svc1": {"owner": "ann"}}', '{"a": {"x": 1}, "b": 2}', '{"a": {}, "b": {}}')
    for one in no_map:  # (one object, a value of another kind, objects with nothing in them)
        whole = PARSERS["json"](one, ParseContext(2000, "y", "y")).segments
        assert [s.section for s in whole] == [None], one


def test_ingest_file_keeps_an_object_one_item_as_the_reference_does(tmp_path: Path) -> None:
    from substrate import Substrate, ingest_file

    path = tmp_path / "r.json"
    path.write_text('{"results": [{"a": 1}, {"a": 2}]}')
    assert len(ingest_file(Substrate(), path)) == 1


def test_the_records_of_several_arrays_of_an_object_are_placed_on_their_lines() -> None:
    text = '{\n "a": [\n  {"x": 1},\n  {"x": 2}\n ],\n "b": [{"y": 1},\n  {"y": 2}]\n}\n'
    parsed = PARSERS["json"](text, ParseContext(2000, "x.json", "x.json"))
    got = [(s.section, s.payload, s.line_start) for s in parsed.segments]
    assert got == [("a", {"x": 1}, 3), ("a", {"x": 2}, 4), ("b", {"y": 1}, 6), ("b", {"y": 2}, 7)]
