"""answer_from_substrate / Answer and the three answerers (extractive, command, HTTP)."""

from __future__ import annotations

import hashlib
import http.server
import json
import struct
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from substrate.answer import (
    Answer,
    _unknown_name,
    answer_from_substrate,
    answerability,
    citations_to_nothing,
    cited_numbers,
    strip_citations,
)
from substrate.answerers import (
    AnswererError,
    CommandAnswerer,
    HttpAnswerer,
    build_prompt,
    http_answerer_from_config,
)
from substrate.context import ContextBudget, ContextPacket, pack_context
from substrate.context.compress import stretch_saying, terms, truncate
from substrate.errors import InvalidInputError
from substrate.extractive import ExtractiveAnswerer
from substrate.ingest import ingest_path
from substrate.item import SubstrateItem
from substrate.notelinks import NOTE_LINKS
from substrate.store import Substrate
from substrate.telemetry import Telemetry

QUESTION = "What is the refund policy for defective items under warranty?"


def extractive(store: Substrate, question: str) -> Answer:
    """``answer_from_substrate`` with the extractive answerer (no model)."""
    return answer_from_substrate(store, question, ExtractiveAnswerer())


@pytest.fixture
def shop(lexical_search: list[str]) -> Substrate:
    """A small shop shard over a deterministic lexical scorer (share of query terms)."""

    s = Substrate()
    s.add(
        "text",
        "Our refund policy: refunds for defective items under warranty are given within 30 days. "
        "The sky is blue.",
        id="refund",
        provenance={"source": "docs/refunds.md", "line_start": 4, "line_end": 6},
        links=["model"],
    )
    s.add("text", "Store hours: items are shelved daily.", id="hours")
    s.add("artifact", "warranty claims classifier", id="model")
    s.add("text", "Secret refund override for defective warranty items.", id="hidden", scope="ops")
    return s


class Recording:
    def __init__(self, reply: str = "An answer [1].") -> None:
        self.calls: list[tuple[str, str]] = []
        self.reply = reply

    def __call__(self, question: str, context: str) -> str:
        self.calls.append((question, context))
        return self.reply


def test_the_sources_an_answer_cites_are_numbered_from_one(lexical_search: list[str]) -> None:
    # an answer citing only [2] was shown over a list of sources with no [1]
    shop = Substrate()
    shop.add("text", "Deploys of the billing service run on Mondays.", id="runs")
    shop.add("text", "Deploys of the billing service need one approval.", id="approval")
    shop.queries = lexical_search  # type: ignore[attr-defined]
    question = "When do deploys of the billing service run?"
    first = answer_from_substrate(shop, question, Recording())
    assert len(first.context) == 2, first.note
    second = first.context.items[1]
    result = answer_from_substrate(
        shop, question, Recording("Shelved daily [2]. Not a source [7].")
    )
    assert result.answer == "Shelved daily [1]. Not a source [7]."
    assert result.cited() == [1] and result.context.items[0].id == second.id
    assert result.citations()[0]["id"] == second.id
    assert result.context.items[1].id == first.context.items[0].id  # given, not cited
    assert result.context.texts[0] == first.context.texts[1]
    both = answer_from_substrate(shop, question, Recording("A [2]. B [1]."))
    assert both.answer == "A [2]. B [1]."  # numbered as given when all are cited
    # a number in brackets glued to a word may be code, which renumbered would say what its
    # source does not: such a text stays as written
    kept = answer_from_substrate(shop, question, Recording("Reads argv[2] at start [2]."))
    assert kept.answer == "Reads argv[2] at start [2]." and kept.context.items[1].id == second.id
    # code is never renumbered; adjacent markers are
    for given, shown in (
        ("Set `retries: [2]` as the docs say [2].", "Set `retries: [2]` as the docs say [1]."),
        (
            "```\nretries: [2]\n```\nAs the docs say [2].",
            "```\nretries: [2]\n```\nAs the docs say [1].",
        ),
        ("Shelved daily [2][7].", "Shelved daily [1][7]."),
    ):
        assert answer_from_substrate(shop, question, Recording(given)).answer == shown


def test_answers_with_citations(shop: Substrate) -> None:
    result = answer_from_substrate(shop, QUESTION, ExtractiveAnswerer(), scopes={"local"})
    assert not result.abstained and result.answer is not None
    assert result.answer.startswith("Our refund policy: refunds for defective items")
    assert result.answer.endswith("[1]")
    assert result.cited() == [1]
    assert result.confidence > 0.9
    first = result.citations()[0]
    assert first["id"] == "refund" and first["source"] == "docs/refunds.md"
    assert first["line_start"] == 4
    data = result.as_dict()
    assert data["confidence_kind"] == "heuristic"
    assert data["citations"][0]["cited"] is True
    assert set(data) >= {"question", "answer", "abstained", "confidence", "note", "citations"}


def test_a_secret_typed_into_a_question_is_not_given_back_by_any_result(shop: Substrate) -> None:
    from substrate.act import investigate, retrieve_action
    from substrate.factuality import check_factuality
    from substrate.hops import multihop
    from substrate.retrieval import retrieve

    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    question = f"{QUESTION} {token}"
    results = [
        extractive(shop, question),
        retrieve(shop, question),
        multihop(shop, question),
        check_factuality(shop, f"Refunds are given within 30 days {token}."),
        investigate(question, [retrieve_action(shop)], lambda q, c: "an answer"),
    ]
    for result in results:
        shown = json.dumps(result.as_dict())
        assert token not in shown and "[REDACTED:github_token]" in shown, type(result).__name__


def test_a_source_name_stored_with_its_secret_is_masked_in_every_result() -> None:
    from substrate.hops import multihop
    from substrate.retrieval import retrieve

    token = "ghp_" + "Zq3xV9mK2pL8wR4tY6uB1nC5dF7gH0jE2sA4"
    store = Substrate()  # put as given (as --no-redact or an older shard stored it)
    store.add("text", "deploys happen on mondays", provenance={"source": f"ci/{token}.md"})
    for result in (retrieve(store, "deploys"), multihop(store, "deploys")):
        shown = json.dumps(result.as_dict())
        assert token not in shown and "ci/[REDACTED:github_token].md" in shown, shown


def test_irrelevant_items_are_never_cited(shop: Substrate) -> None:
    result = answer_from_substrate(shop, QUESTION, Recording(), scopes={"local"})
    ids = [c["id"] for c in result.citations()]
    assert "hours" not in ids  # shares only "items" with the question
    assert "hidden" not in ids  # not visible


def test_abstains_without_calling_the_answerer(shop: Substrate) -> None:
    answerer = Recording()
    result = answer_from_substrate(shop, "airspeed of an unladen swallow", answerer)
    assert result.abstained and result.answer is None
    assert answerer.calls == []
    assert result.citations() == [] and result.evidence == []
    assert result.note.startswith("abstained: 0 matching item(s) at confidence")


def test_min_confidence_and_min_evidence(shop: Substrate) -> None:
    assert answer_from_substrate(shop, QUESTION, Recording(), min_confidence=1.01).abstained
    assert answer_from_substrate(shop, QUESTION, Recording(), min_evidence=10).abstained


def test_plain_callable_gets_the_rendered_packet(shop: Substrate) -> None:
    answerer = Recording()
    result = answer_from_substrate(shop, QUESTION, answerer, scopes={"local"})
    ((question, context),) = answerer.calls
    assert question == QUESTION and context == result.context.render()
    assert context.startswith("# Context for:")


def test_the_note_counts_the_sources_an_answer_cites(shop: Substrate) -> None:
    result = answer_from_substrate(shop, QUESTION, Recording(), scopes={"local"}, hops=2)
    n = len(result.context)
    assert n > 1 and result.note == f"answered from {n} source(s), citing 1"
    uncited = answer_from_substrate(shop, QUESTION, Recording("An answer."), scopes={"local"})
    assert uncited.note.endswith("citing none of them")  # no marker: it names no source
    astray = answer_from_substrate(shop, QUESTION, Recording("An answer [9]."), scopes={"local"})
    assert astray.note.endswith("citing none of them; [9] names no source")  # no such one
    for answer in (result, uncited, astray):  # the note and the citations agree
        flags = [c["cited"] for c in answer.as_dict()["citations"]]
        assert f"citing {sum(flags) or 'none of them'}" in answer.note


def test_a_secret_in_the_answerers_reply_is_masked(shop: Substrate) -> None:
    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    result = answer_from_substrate(shop, QUESTION, Recording(reply=f"Use {token} [1]"))
    assert result.answer is not None and token not in result.answer
    assert "[REDACTED:" in result.answer and result.answer.endswith("[1]")


def test_empty_answer_is_an_abstention(shop: Substrate) -> None:
    result = answer_from_substrate(shop, QUESTION, Recording(reply="  "))
    assert result.abstained and "no answer" in result.note
    with pytest.raises(InvalidInputError, match="must return text"):
        answer_from_substrate(shop, QUESTION, lambda q, c: {"answer": "x"})  # type: ignore[arg-type,return-value]


def test_multihop_answers_follow_links(shop: Substrate) -> None:
    result = answer_from_substrate(shop, QUESTION, Recording(), hops=2, scopes={"local"})
    assert not result.abstained
    assert "model" in [i.id for i in result.context.items]
    with pytest.raises(InvalidInputError):
        answer_from_substrate(shop, QUESTION, Recording(), hops=-1)


@pytest.mark.parametrize(
    ("argument", "value", "says"),
    [
        ("min_evidence", -1, "min_evidence must be a whole number >= 0"),
        ("hops", 1.5, "hops must be a whole number"),
        ("min_confidence", "0.5", "min_confidence must be a number"),
        ("min_relevance", None, "min_relevance must be a number"),
    ],
)
def test_a_bad_threshold_is_refused_before_anything_is_searched(
    shop: Substrate, argument: str, value: object, says: str
) -> None:
    """A negative min_evidence was taken silently, as the command line refuses it."""
    answerer = Recording()
    with pytest.raises(InvalidInputError, match=says):
        answer_from_substrate(shop, QUESTION, answerer, **{argument: value})  # type: ignore[arg-type]
    assert not answerer.calls


def test_zero_hops_is_a_single_retrieval_as_in_the_seed_api(shop: Substrate) -> None:
    one, zero = (answer_from_substrate(shop, QUESTION, Recording(), hops=n) for n in (1, 0))
    assert not zero.abstained and zero.as_dict() == one.as_dict()


def test_telemetry_events(shop: Substrate) -> None:
    tel = Telemetry()
    answer_from_substrate(shop, QUESTION, Recording(), telemetry=tel)
    reasons = tel.events("reason")
    assert [e.features["action"] for e in reasons] == ["retrieve", "answer"]
    assert reasons[1].choice == "answer"
    assert len(tel.events("context")) == 1
    # with hops, the chain then the answer, though a question naming what it asks about is
    # searched for once more
    chained = Telemetry()
    answer_from_substrate(shop, QUESTION, Recording(), telemetry=chained, hops=2)
    actions = [e.features["action"] for e in chained.events("reason")]
    assert actions == ["multihop", "answer"]


def test_answerability_signals() -> None:
    item = SubstrateItem("text", "Refund policy for defective items.")
    strong = answerability("refund policy defective items", 0.9, [item])
    weak = answerability("refund policy defective items", 0.2, [item])
    assert 0.0 <= weak < strong <= 1.0
    assert answerability("the of and", 0.9, [item]) == 0.0
    assert answerability("refund", 0.0, [item]) == 0.0


def test_citation_helpers() -> None:
    assert cited_numbers("a [2] b [1, 3] c [9] [2]", 3) == [2, 1, 3]
    assert cited_numbers(None, 3) == []
    # the edges: [0] and one past the last source name none
    assert cited_numbers("[0] [1] [3] [4]", 3) == [1, 3]
    assert citations_to_nothing("[0] [1] [3] [4]", 3) == [0, 4]
    assert citations_to_nothing("Thirty days [1] [2].", 1) == [2]
    assert (
        strip_citations("Refunds take 30 days [1]. Done [2, 3].") == "Refunds take 30 days. Done."
    )


def test_answer_as_dict_round() -> None:
    packet = ContextPacket("q")
    a = Answer("q", None, True, 0.123456, packet, note="n")
    assert a.as_dict()["confidence"] == 0.1235 and a.cited() == []


# -- extractive answerer ---------------------------------------------------------------------------


def test_extractive_answerer_prefers_the_questions_own_words_between_equals() -> None:
    context = (
        "The billing service is deployed with Ansible from the ops repository. "
        "Deploys happen on Mondays and Wednesdays after 14:00 UTC."
    )
    answer = ExtractiveAnswerer()("When are deploys?", context)
    assert answer == "Deploys happen on Mondays and Wednesdays after 14:00 UTC. [1]"


def test_a_how_long_question_is_answered_by_a_sentence_giving_a_duration() -> None:
    context = (
        "Refunds are handled by the support team. "
        "Refunds for defective items are processed within five business days. "
        "The warehouse takes a long time to answer the phone."
    )
    answer = ExtractiveAnswerer()("How long do refunds take?", context)
    assert answer == "Refunds for defective items are processed within five business days. [1]"
    # the frame alone ("long", "take") answers nothing
    assert ExtractiveAnswerer()("How long does it take?", "It takes ten minutes.") == ""


def test_a_how_long_question_is_looked_up_by_what_it_is_about() -> None:
    s = Substrate()
    s.add("text", "Refunds for defective items are processed within five business days.")
    s.add("text", "Rollbacks take about eight minutes. Deploys take long on Fridays.")
    result = extractive(s, "How long do refunds take?")
    assert not result.abstained and "five business days" in (result.answer or "")
    assert result.confidence >= 0.5


def test_a_how_long_question_nothing_answers_is_still_refused() -> None:
    s = Substrate()
    s.add("text", "Shipping is free for orders over fifty euros.")
    model = Recording("Shipping takes two days [1].")
    result = answer_from_substrate(s, "How long does shipping take?", model)
    assert result.abstained and not model.calls and result.confidence < 0.5


def test_extractive_answerer_quotes_and_cites() -> None:
    its = [
        SubstrateItem("text", "Cats purr. Refunds take 30 days for defective items.", id="a"),
        SubstrateItem("text", "Defective items may also be exchanged at the store.", id="b"),
    ]
    packet = pack_context("refund defective items", its, [0.9, 0.5])
    out = ExtractiveAnswerer().answer_packet("How do refunds for defective items work?", packet)
    assert out.startswith("Refunds take 30 days for defective items. [1]")
    assert "Cats purr" not in out
    assert ExtractiveAnswerer().answer_packet("zebra migration", packet) == ""
    assert ExtractiveAnswerer()("refund days", "Refunds take 30 days.") == (
        "Refunds take 30 days. [1]"
    )


def test_a_sentence_under_a_heading_answers_with_the_headings_words() -> None:
    section = SubstrateItem(
        "text",
        "## How to file\n\nOpen a ticket with the order number. The team confirms by email.",
        provenance={"section": "Refund policy > How to file"},
        id="a",
    )
    packet = pack_context("file a refund", [section], [0.9])
    out = ExtractiveAnswerer().answer_packet("How do I file a refund?", packet)
    assert out == "Open a ticket with the order number. [1]"
    # a question asking more than the heading names is not answered by the heading
    assert ExtractiveAnswerer().answer_packet("Who wrote the refund policy?", packet) == ""
    # in an item of several sections, a sentence is under every heading above it
    nested = SubstrateItem(
        "text",
        "# Refund policy\n\nRefunds take a week.\n\n## How to file\n\nOpen a ticket first.",
        id="b",
    )
    packet = pack_context("file a refund", [nested], [0.9])
    out = ExtractiveAnswerer().answer_packet("How do I file a refund?", packet)
    assert out == "Open a ticket first. [1]"


@pytest.mark.parametrize(
    "question", ["What does POD mean?", "What does POD stand for?", "What is a POD?"]
)
def test_a_definition_is_answered_by_the_entry_that_defines_the_term(question: str) -> None:
    # the runbook ranked first, and its sentence holding "pods" was quoted; one using the term
    # after an article is no definition either
    runbook = SubstrateItem(
        "text", "When the certificate expires the pods keep running. The POD is uploaded.", id="r"
    )
    glossary = SubstrateItem(
        "text",
        "# Glossary\n\n- **ETA**: estimated time of arrival.\n- **POD**: proof of delivery.",
        id="g",
    )
    packet = pack_context("pod", [runbook, glossary], [0.9, 0.5])
    answer = ExtractiveAnswerer().answer_packet(question, packet)
    assert answer == "- **POD**: proof of delivery. [2]"


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("What does POD mean?", "POD"),
        ("What does `p99` stand for?", "p99"),
        ("What does the term error budget mean?", "error budget"),
        ("What is an SLO?", "SLO"),
        ("What is the deploy freeze?", None),  # more than a definition
        ("What does the deploy do on Fridays?", None),
    ],
)
def test_the_term_a_question_asks_the_meaning_of(question: str, term: str | None) -> None:
    from substrate.questions import defined_term

    assert defined_term(question) == term


def test_who_is_answered_with_the_heading_a_sentence_is_under() -> None:
    # "Who owns the Kafka clusters?" was answered "Owns alerting and the Kafka clusters."
    people = SubstrateItem(
        "text",
        "# People\n\n## Dana Whitfield\n\nEngineering manager of the platform team.\n\n"
        "## Marco Bianchi\n\nSite reliability engineer. Owns alerting and the Kafka clusters.",
        id="p",
    )
    packet = pack_context("kafka", [people], [0.9])
    answer = ExtractiveAnswerer().answer_packet
    assert answer("Who owns the Kafka clusters?", packet) == (
        "Marco Bianchi: Owns alerting and the Kafka clusters. [1]"
    )
    assert answer("Who is the engineering manager?", packet) == (
        "Dana Whitfield: Engineering manager of the platform team. [1]"
    )
    runbook = SubstrateItem("text", "The ETA model is retrained every two weeks.", id="m")
    data = SubstrateItem("text", "## Lucía Morales\n\nRetrains the ETA model every two weeks.")
    ranked = pack_context("retrains", [runbook, data], [0.9, 0.5])  # the passive one first
    assert answer("Who retrains the ETA model?", ranked) == (
        "Lucía Morales: Retrains the ETA model every two weeks. [2]"
    )
    review = SubstrateItem(
        "text", "# Incident Review\n\nThe on-call engineer restarted the worker.", id="r"
    )
    restarted = pack_context("restarted", [review], [0.9])  # a sentence with its own subject
    assert answer("Who restarted the worker?", restarted) == (
        "The on-call engineer restarted the worker. [1]"
    )
    # not asked who: quoted as written (the heading is no answer)
    assert answer("What does the platform team's engineering manager do?", packet) == (
        "Engineering manager of the platform team. [1]"
    )
    from substrate.factuality import content_overlap

    # the quote is grounded; the same sentence quoted under another heading is not
    assert content_overlap(people.text, "Marco Bianchi: Owns alerting and the Kafka clusters.")
    assert not content_overlap(people.text, "Dana Whitfield: Owns alerting and the Kafka clusters.")


TEAM = SubstrateItem(
    "text", "# Payments team\n\nPayments owns invoicing and the billing-worker.", id="t"
)
PEOPLE = SubstrateItem(
    "text",
    "# Payments team\n\n## Priya Raman\n\nPayments lead. Based in Lisbon.\n\n"
    "## Diego Fuentes\n\nBackend engineer. Based in Madrid.",
    id="p",
)
SERVICES = SubstrateItem(
    "text", "service: eta-service; owner_team: Data; primary_owner: Lucía Morales", id="s"
)
DATA = SubstrateItem("text", "# Data team\n\n## Lucía Morales\n\nBased in Lisbon.", id="d")


@pytest.mark.parametrize(
    ("question", "items", "expected"),
    [
        (
            "Who leads the team that owns the billing-worker?",
            [TEAM, PEOPLE],
            "Payments owns invoicing and the billing-worker. [1] Priya Raman: Payments lead. [2]",
        ),
        (
            "Where is the primary owner of eta-service based?",
            [SERVICES, PEOPLE, DATA],
            "service: eta-service; owner_team: Data; primary_owner: Lucía Morales [1]\n\n"
            "Lucía Morales: Based in Lisbon. [3]",
        ),
    ],
)
def test_a_question_through_what_it_describes_is_answered_by_two_sentences(
    question: str, items: list[SubstrateItem], expected: str
) -> None:
    # one sentence says part of it and names the bridge; another, about the bridge, the rest
    packet = pack_context("team", items, [0.9, 0.5, 0.4][: len(items)])
    assert ExtractiveAnswerer().answer_packet(question, packet) == expected


def test_a_link_to_a_page_bridges_to_what_that_page_says() -> None:
    # "the payments team" is no name, but the link (as ingest resolved it) names its page
    service = SubstrateItem(
        "text",
        "# invoice-api\n\nIt is owned by the [payments team](../teams/payments.md).",
        provenance={
            "source": "services/invoice-api.md",
            "path": "/w/services/invoice-api.md",
            NOTE_LINKS: ["/w/teams/payments.md#lead"],
        },
    )
    team = SubstrateItem(
        "text",
        "# Payments team\n\nThe payments team is led by Priya Raman.",
        provenance={"source": "teams/payments.md", "path": "/w/teams/payments.md"},
    )
    question = "Who leads the team that owns invoice-api?"
    packet = pack_context("team", [service, team], [0.9, 0.5])
    assert ExtractiveAnswerer().answer_packet(question, packet) == (
        "invoice-api: It is owned by the payments team. [1] "
        "The payments team is led by Priya Raman. [2]"
    )
    # a page the link does not lead to is no bridge
    team.provenance.update(source="teams/search.md", path="/w/teams/search.md")
    packet = pack_context("team", [service, team], [0.9, 0.5])
    assert ExtractiveAnswerer().answer_packet(question, packet) == ""


def test_no_second_sentence_without_a_bridge() -> None:
    answer = ExtractiveAnswerer().answer_packet
    packet = pack_context("team", [TEAM, PEOPLE], [0.9, 0.5])
    # answered whole by one sentence: nothing is added
    assert answer("Who is the Payments lead of the team?", packet) == (
        "Priya Raman: Payments lead. [2]"
    )
    # a name the question gives that neither sentence says: no pair
    assert "Priya" not in answer("Who leads the team that owns the Kafka clusters?", packet)
    # a sentence saying the rest but of another name than the first gives
    other = SubstrateItem("text", "## Ana Silva\n\nSupport lead. Based in Porto.", id="o")
    unlinked = pack_context("team", [TEAM, other], [0.9, 0.5])
    assert "Ana" not in answer("Who leads the team that owns the billing-worker?", unlinked)
    # an answerer of one sentence gives no pair, and the first alone does not say who leads
    one = ExtractiveAnswerer(max_sentences=1).answer_packet
    assert one("Who leads the team that owns the billing-worker?", packet) == ""


def quoted(question: str, *texts: str) -> str:
    items = [SubstrateItem("text", text, id=f"i{n}") for n, text in enumerate(texts)]
    packet = pack_context("q", items, [0.9 - 0.1 * n for n in range(len(items))])
    return ExtractiveAnswerer().answer_packet(question, packet)


def test_a_bridge_is_a_name_not_a_heading_or_word_two_sentences_share() -> None:
    # another service's timeout, under the same heading, is not the payments-api's
    platform = "# Platform\n\nThe payments-api runs on Kubernetes."
    search = "The search service has a timeout of 30 seconds."
    assert quoted("What is the timeout of the payments-api?", f"{platform}\n\n{search}") == (
        "The payments-api runs on Kubernetes. [1]"
    )
    # "We" opens both sentences, and names nothing
    assert (
        quoted(
            "What is the phone number of the Twilio account manager?",
            "We use Twilio for SMS. We pay $0.0079 per message.",
        )
        == ""
    )


def test_one_sentence_answering_all_is_not_replaced_by_a_pair() -> None:
    assert (
        quoted(
            "How many replicas of the payments-api run in Frankfurt?",
            "Replicas of the payments-api run in Frankfurt on Kubernetes.",
            "Kubernetes restarts a failed pod within 2 minutes.",
            "Frankfurt runs 4 replicas of the payments-api.",
        )
        == "Frankfurt runs 4 replicas of the payments-api. [3]"
    )
    # one that names the service the question describes answers it all
    assert (
        quoted(
            "What port does the service that went down listen on?",
            "The tracker-api went down on Monday and listens on port 8443.",
            "In staging the tracker-api listens on port 9000.",
        )
        == "The tracker-api went down on Monday and listens on port 8443. [1]"
    )


def test_a_procedure_a_question_describes_is_not_one_it_asks_for() -> None:
    assert quoted(
        "Where is the author of the Bunkering procedure based?",
        "# Procedures\n\n1. Bunkering: author Oskar Brandt. 2. Mooring: author Elena Marsh.",
        "name: Oskar Brandt; role: engineer; base: Brackwater.",
    ) == (
        "1. Bunkering: author Oskar Brandt. [1] name: Oskar Brandt; role: engineer; base: "
        "Brackwater. [2]"
    )


def test_the_thing_a_clause_describes_is_said_by_the_answer() -> None:
    gizmo = "The gizmo service is owned by the Widget Guild."  # a guild no note tells of
    billing = "The billing-worker service is owned by the Payments team."
    lead = "The Payments team is led by Zoë Müller."
    question = "Who leads the team that owns the gizmo service?"
    assert quoted(question, gizmo, billing, lead) == ""  # not the billing-worker's owner
    assert quoted("Who leads the team that owns the billing-worker?", gizmo, billing, lead) == (
        f"{billing} [2] {lead} [3]"
    )
    token = "Who leads the team that owns the token service?"  # ("token" is no participle)
    assert quoted(token, gizmo, billing, lead) == ""
    # ... what it describes, not the question's own words after it, nor its verb's
    for asked in (
        "Who leads the team that is responsible for the billing-worker?",
        "Who leads the team that owns the billing-worker today?",
        "Who leads the team that owns billing-worker this quarter?",
        "Who leads the team that owns the billing-worker at the moment?",
        "Who leads the team that owns the billing system?",  # a kind, said otherwise
    ):
        assert quoted(asked, gizmo, billing, lead) == f"{billing} [2] {lead} [3]", asked
    engineer = "Aisha Okafor: Site reliability engineer on the Payments team."
    asked = (
        "Which engineer on the team that owns the billing-worker is a site reliability engineer?"
    )
    assert quoted(asked, billing, engineer) == f"{billing} [1] {engineer} [2]"


def test_a_procedure_asked_for_after_a_description_is_quoted_whole() -> None:
    runbook = (
        "# Session store failover\n\nProcedure for failover of the session store:\n\n"
        "1. Promote the replica.\n2. Update the DNS record.\n3. Page the DBA.\n"
    )
    question = "If the session store that holds logins fails, what is the procedure?"
    assert quoted(question, runbook).endswith(
        "1. Promote the replica. 2. Update the DNS record. 3. Page the DBA. [1]"
    )


def test_the_second_sentence_says_what_is_asked_of_what_the_question_describes() -> None:
    question = "Who is the lead of the team that owns the billing-worker?"
    pay = "Payments owns the billing-worker."
    # the team alone says no lead: no answer (it was quoted alone, as if it were one)
    assert quoted(question, pay, "The Payments team meets on Fridays in Lisbon.") == ""
    assert quoted(question, pay, "Priya Raman is the Payments lead.") == (
        f"{pay} [1] Priya Raman is the Payments lead. [2]"
    )


def test_a_pair_answers_where_no_one_sentence_does() -> None:
    # no sentence alone says a number of the team's engineers
    question = "How many engineers are in the team that owns the billing-worker?"
    pay, size = "Payments owns the billing-worker.", "Payments has seven engineers."
    expected = f"{pay} [1] {size} [2]"
    assert quoted(question, pay, size) == expected
    assert quoted(question, pay, size, "The billing-worker has 3 replicas.") == expected
    # the lead of the office is who the question asks where is based
    office = "# Tokyo office\n\nKim Sato is the lead.\n\nThe Tokyo office is based in Shibuya."
    assert quoted(
        "Where is the lead of the Tokyo office based?", office, "# Kim Sato\n\nBased in Osaka."
    ) == ("Kim Sato is the lead. [1] Kim Sato: Based in Osaka. [2]")


def test_a_quote_ending_no_sentence_ends_its_paragraph() -> None:
    from substrate.claims import sentence_claims

    # a list item has no full stop: on one line with the next quote, the two would be checked
    # as one claim that no source says
    answer = quoted(
        "Who leads the team that owns the billing-worker?",
        "# Payments team\n\n- Payments owns invoicing and the billing-worker",
        "# Payments team\n\n## Priya Raman\n\nPayments lead.",
    )
    assert answer == (
        "- Payments owns invoicing and the billing-worker [1]\n\nPriya Raman: Payments lead. [2]"
    )
    assert sentence_claims(strip_citations(answer)) == [
        "- Payments owns invoicing and the billing-worker",
        "Priya Raman: Payments lead.",
    ]
    # the break counts against the answer's length
    items = [
        SubstrateItem(
            "text", "# Payments team\n\n- Payments owns invoicing and the billing-worker"
        ),
        SubstrateItem("text", "# Payments team\n\n## Priya Raman\n\nPayments lead."),
    ]
    packet = pack_context("q", items, [0.9, 0.8])
    question = "Who leads the team that owns the billing-worker?"
    assert ExtractiveAnswerer(max_chars=len(answer)).answer_packet(question, packet) == answer
    assert "\n" not in ExtractiveAnswerer(max_chars=len(answer) - 1).answer_packet(question, packet)
    # nor as a sentence wrapped over two lines, when the next opens in small letters
    pair = quoted(
        "Where is the primary owner of eta-service based?",
        "- eta-service is owned by the Data team, primary owner Lucía Morales",
        "name: Lucía Morales; role: engineer; base: Oslo",
    )
    assert len(sentence_claims(strip_citations(pair))) == 2


def test_a_chain_may_say_what_the_frame_asks_a_hop_from_what_the_question_names(
    lexical_search: list[str],
) -> None:
    store = Substrate()
    store.add("text", "# INC-22: memory exhaustion\n\n- Commander: Leila Haddad", id="inc")
    store.add("text", "# Leila Haddad\n\nBased in Lisbon.", id="who")
    for n in range(3):  # the seeds: they outrank the note saying where, which a hop reaches
        store.add("text", f"The commander of INC-22 paged team {n} at night.", id=f"page{n}")
    question = "In which city is the commander of INC-22 based?"
    answer = answer_from_substrate(store, question, ExtractiveAnswerer(), hops=2)
    assert answer.answer == (
        "INC-22: memory exhaustion: Commander: Leila Haddad [1]\n\n"
        "Leila Haddad: Based in Lisbon. [2]"  # the sources cited are numbered first
    )


def test_two_hops_find_and_quote_what_a_question_describes(tmp_path: Path) -> None:
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    (notes / "teams").mkdir(parents=True)
    (notes / "services.csv").write_text(
        "service,owner_team,primary_owner\nbilling-worker,Payments,Diego Fuentes\n"
        "eta-service,Data,Lucía Morales\n"
    )
    (notes / "teams" / "payments.md").write_text(
        "# Payments team\n\nTeam channel: #team-payments.\n\n## Priya Raman\n\n"
        "Payments lead. Based in Lisbon.\n\n## Diego Fuentes\n\nBackend engineer.\n"
    )
    (notes / "teams" / "data.md").write_text(
        "# Data team\n\n## Lucía Morales\n\nData lead. Based in Porto.\n"
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, notes)
    question = "Who leads the team that owns the billing-worker?"
    answer = answer_from_substrate(store, question, ExtractiveAnswerer(), hops=2)
    assert answer.answer is not None and "Priya Raman: Payments lead." in answer.answer
    cited = {answer.citations()[n - 1]["source"] for n in answer.cited()}
    assert cited == {"services.csv", "teams/payments.md"}


def test_a_record_s_status_line_answers_only_a_question_of_its_status() -> None:
    # "Supersedes 2. Use RabbitMQ for domain events" answered which broker is used, in Kafka's
    # record, and the reader saw "RabbitMQ"
    record = (
        "# 5. Use Kafka for domain events\n\n## Status\n\nAccepted\n\n"
        "Supersedes [2. Use RabbitMQ for domain events](0002-use-rabbitmq.md)\n\n"
        "## Decision\n\nDomain events go to Kafka topics, one per aggregate.\n"
    )
    said = quoted("Which message broker do we use for domain events?", record)
    assert "Kafka topics" in said and "RabbitMQ" not in said
    assert "Supersedes" in quoted("What does the Kafka decision supersede?", record)
    # nor does its date line, but to a question of when
    dated = "# 5. Use Kafka for events\n\nDate: 2023-09-12\n\n## Decision\n\nEvents go to Kafka.\n"
    assert quoted("What do we use for events?", dated) == "Decision: Events go to Kafka. [1]"
    assert "2023-09-12" in quoted("When was Use Kafka for events dated?", dated)
    # a status word is a question of status too ("Was Project Plover approved?")
    plover = "# Project Plover\n\n## Status\n\nApproved\n"
    assert quoted("Was Project Plover approved?", plover) == "Status: Approved [1]"
    # asked why, a status word asks the reason, which the status line does not give
    adr = (
        "# ADR 6: A C extension for the tokenizer\n\nStatus: rejected.\n\nWe rejected it: "
        "maintaining C code costs more than the 3x speed-up is worth.\n"
    )
    assert "3x speed-up" in quoted("Why was the C extension for the tokenizer rejected?", adr)
    assert quoted("Was the C extension rejected?", adr) == "Status: rejected. [1]"
    # a date line that tells the time and place answers where
    forum = "# Architecture forum\n\nDate: 2 July 2024, 14:00 in room Ada (Berlin office)\n"
    assert "room Ada" in quoted("Where was the architecture forum?", forum)
    # prose opening with "Supersedes" is no status line
    policy = (
        "# On-call\n\nSupersedes the 2022 policy: engineers get a day off after a night page.\n"
    )
    assert "a day off" in quoted("What do engineers get after a night page?", policy)
    news = "# Garden sensor\n\n## Status\n\nBattery life is now about 23 days without sun.\n"
    assert "23 days" in quoted("How long does the garden sensor battery last?", news)


def test_what_a_team_owns_is_answered_by_the_sentence_saying_it_owns() -> None:
    # "own" is a stopword: both sentences said "platform team" alone, and the first won
    note = (
        "# Platform team\n\nThe Platform team is led by Dana Reyes.\n\n"
        "The Platform team owns the Kubernetes clusters and the CI runners."
    )
    owns = "The Platform team owns the Kubernetes clusters and the CI runners. [1]"
    assert quoted("What does the Platform team own?", note) == owns
    assert quoted("what did the platform team own", note) == owns
    from substrate.asked import _owning_asked

    assert not _owning_asked("What does the Platform team run on its own?")
    assert not _owning_asked("Who leads the Platform team?")


def test_he_or_she_under_a_persons_heading_is_quoted_as_their_entry() -> None:
    from substrate.factuality import content_overlap

    note = (
        "# Leadership\n\n## Tobias Rennick\n\nHead of Marine Engineering. He is a chartered "
        "marine engineer and owns the Environmental Policy.\n\n## Ana Silva\n\nShe signs "
        "invoices over 10k."
    )
    assert quoted("Who owns the Environmental Policy?", note) == (
        "Tobias Rennick: He is a chartered marine engineer and owns the Environmental Policy. [1]"
    )
    assert (
        quoted("What does Ana Silva sign?", note) == "Ana Silva: She signs invoices over 10k. [1]"
    )
    # grounded under its own heading only
    assert content_overlap(note, "Tobias Rennick: He is a chartered marine engineer.")
    assert not content_overlap(note, "Ana Silva: He is a chartered marine engineer.")
    # a heading of one word names a kind of section, not a person ("People")
    long = "He owns the environmental policy of the whole company."
    assert quoted("Who owns the environmental policy?", f"## People\n\n{long}") == f"{long} [1]"


def test_the_owner_is_who_owns() -> None:
    from substrate.questions import asked_terms, terms_said

    # the stemmer leaves "owner" whole: "Who is the owner?" is answered by who owns
    owns = "Gideon Ashby owns the echosounder."
    assert quoted("Who is the owner of the echosounder?", owns, "It maps the seabed.") == (
        f"{owns} [1]"
    )
    wanted = asked_terms("Which team owns the billing-worker?")
    assert "own" in terms_said("service: billing-worker; owner_team: Payments", wanted, {})
    assert "own" not in terms_said("The billing-worker retries invoices.", wanted, {})


def test_a_list_item_is_quoted_as_an_entry_of_its_heading() -> None:
    people = [
        SubstrateItem("text", "# Priya Raman\n\n- Platform team lead.\n- Based in Lisbon.", id="p"),
        SubstrateItem("text", "# Marco Bianchi\n\n- Based in Milan.", id="m"),
        SubstrateItem("text", "# Lena\n\n- Lena moved to Lyon.", id="l", provenance={}),
    ]
    packet = pack_context("based", people, [0.9, 0.8, 0.7])
    answer = ExtractiveAnswerer().answer_packet
    assert answer("Who is based in Milan?", packet) == "Marco Bianchi: Based in Milan. [2]"
    assert answer("Who leads the platform team?", packet) == (
        "Priya Raman: Platform team lead. [1]"
    )
    assert answer("Who moved to Lyon?", packet) == "- Lena moved to Lyon. [3]"  # named already
    from substrate.context.compress import entry_of

    assert entry_of("Steps", "2. Page the owner.") == "2. Page the owner."  # a kind of section
    assert entry_of("Release notes", "- Faster sync.") == "Release notes: Faster sync."
    # a link's address is not what the item says: "services" names no heading here
    linked = "- [ledger](../services/ledger.md)"
    assert entry_of("Services owned", linked) == "Services owned: [ledger](../services/ledger.md)"


def test_a_list_items_later_sentences_are_its_names_not_the_headings() -> None:
    team = SubstrateItem(
        "text",
        "## Engineering\n\n- Karin Holt: Tech lead, backend. Owns the database.\n"
        "- Jonas Weber: Security and infrastructure. Based in Berlin.\n"
        "- SEV1: Customer-facing outage. Response within 15 minutes, at any hour.\n",
        id="t",
    )
    answer = ExtractiveAnswerer().answer_packet
    full = pack_context("team", [team], [0.9])
    assert answer("Who is based in Berlin?", full) == "Jonas Weber: Based in Berlin. [1]"
    assert answer("Where is Jonas based?", full) == "Jonas Weber: Based in Berlin. [1]"
    assert answer("What is the SEV1 response time?", full) == (
        "SEV1: Response within 15 minutes, at any hour. [1]"
    )
    # a packet too small for the whole item keeps the sentence with the name it is led by
    budget = ContextBudget(max_chars=200)
    small = pack_context("owns the database", [team], [0.9], budget=budget, compress=True)
    assert "Karin Holt: Owns the database." in small.texts[0]
    assert answer("Who owns the database?", small) == "Karin Holt: Owns the database. [1]"
    from substrate.factuality import content_overlap

    assert content_overlap(team.text, "Jonas Weber is based in Berlin.")
    assert content_overlap(team.text, "Karin Holt owns the database.")
    assert not content_overlap(team.text, "Karin Holt is based in Berlin.")


def test_only_a_name_leads_a_list_items_later_sentences() -> None:
    from substrate.context.compress import sentences

    text = (
        "- Alice said: we ship Friday. Bob disagreed and wants Monday.\n"
        "- Pros: fast. Cons: expensive.\n"
        "- Q: Who owns billing? A: Team Falcon.\n"
        "1. Install the CLI: run the installer. Then restart the shell.\n"
        "- Note: backups run nightly. Restores take an hour.\n"
    )
    assert sentences(text, led=True) == sentences(text)  # a phrase, labels, a step: no names
    named = (
        "- Jonas Weber: Security. Based in Berlin; favourite editor: vim.\n"
        "- 李明 王: Ops. On call.\n"
        "- **Sonarvik AS**: Echosounders. Contact: Kari Nygaard.\n"
        "- Lena Voss: Finance. Approver: Kari Nygaard signs invoices over 10k.\n"
    )
    assert sentences(named, led=True)[1::2] == [
        "Jonas Weber: Based in Berlin; favourite editor: vim.",  # a colon further on
        "李明 王: On call.",  # a name in a script without capitals
        "Sonarvik AS: Contact: Kari Nygaard.",  # a label giving a value: whose contact it is
        "Approver: Kari Nygaard signs invoices over 10k.",  # a clause: as it stands
    ]
    from substrate.factuality import content_overlap

    assert content_overlap(named, "Sonarvik AS: Contact: Kari Nygaard.")
    assert not content_overlap(named, "Jonas Weber: Contact: Kari Nygaard.")
    assert not content_overlap(named, "Lena Voss signs invoices over 10k.")
    assert not content_overlap(
        "- Jonas Weber: Security. Note: backups run nightly.", ("Jonas Weber runs the backups.")
    )


def test_a_short_phrase_under_a_name_is_quoted_as_its_entry() -> None:
    team = SubstrateItem(
        "text", "# Team\n\n## Dana Whitfield\nEngineering manager.\n\n## Jonas Weber\nDBA."
    )
    packet = pack_context("DBA", [team], [0.9])
    assert ExtractiveAnswerer().answer_packet("Who is the DBA?", packet) == "Jonas Weber: DBA. [1]"
    from substrate.context.compress import entry_of

    # a longer sentence says whose it is by itself; a heading that is no name is no owner
    long = "The DBA on call restores the snapshot."
    assert entry_of("Jonas Weber", long) == long
    assert entry_of("How to file", "Open a ticket first.") == "Open a ticket first."


def test_one_list_item_under_two_headings_is_quoted_for_each_from_its_own_source() -> None:
    marco = SubstrateItem("text", "# Marco Bianchi\n\n- Engineer.\n- Based in Milan.", id="m")
    luca = SubstrateItem("text", "# Luca Rossi\n\n- Designer.\n- Based in Milan.", id="l")
    packet = pack_context("based Milan", [marco, luca], [0.9, 0.8])
    answer = ExtractiveAnswerer().answer_packet("Who is based in Milan?", packet)
    assert answer == "Marco Bianchi: Based in Milan. [1] Luca Rossi: Based in Milan. [2]"


def test_facts_of_one_source_saying_as_much_are_all_quoted() -> None:
    org = SubstrateItem(
        "graph",
        payload={"triples": [["Kenji", "manages", "Marco"], ["Kenji", "manages", "Ana"]]},
        id="g",
    )
    packet = pack_context("Kenji manage", [org], [0.9])
    answer = ExtractiveAnswerer().answer_packet("Who does Kenji manage?", packet)
    assert answer == "Kenji manages Marco. [1] Kenji manages Ana. [1]"


def test_links_in_a_quoted_sentence_read_as_a_reader_sees_them() -> None:
    note = SubstrateItem(
        "text",
        "The rotation is in [[oncall#Rotation]], kept by [[priya|our lead]] in [the runbook]"
        "(runbook.md).",
        id="n",
    )
    packet = pack_context("rotation", [note], [0.9])
    answer = ExtractiveAnswerer().answer_packet("Where is the rotation kept?", packet)
    assert answer == ("The rotation is in oncall > Rotation, kept by our lead in the runbook. [1]")


def test_a_reference_in_a_quoted_sentence_is_not_taken_for_a_citation() -> None:
    its = [
        SubstrateItem("text", "The pricing cache TTL is 300 seconds, as measured in [2].", id="a"),
        SubstrateItem("text", "Prices are set by the pricing team.", id="b"),
    ]
    packet = pack_context("pricing cache TTL", its, [0.9, 0.5])
    out = ExtractiveAnswerer().answer_packet("What is the pricing cache TTL?", packet)
    assert out == "The pricing cache TTL is 300 seconds, as measured in (2). [1]"
    assert cited_numbers(out, len(packet)) == [1]


def test_prompt_numbers_sources_and_asks_for_citations() -> None:
    it = SubstrateItem(
        "text",
        "Refunds take 30 days.",
        id="abc",
        provenance={"path": "docs/r.md", "line_start": 2, "line_end": 2},
    )
    prompt = build_prompt("refund?", pack_context("refund", [it], [1.0]))
    assert "[1] (docs/r.md:2, id abc)" in prompt and "cite" in prompt
    assert "Question: refund?" in prompt


# -- command answerer ------------------------------------------------------------------------------

PY = sys.executable


def packet_of(text: str) -> ContextPacket:
    return pack_context("q", [SubstrateItem("text", text, id="s1")], [1.0])


def test_command_answerer_pipes_the_prompt() -> None:
    script = (
        "import sys; p = sys.stdin.read(); print('Refunds take 30 days [1]' if '[1]' in p else 'x')"
    )
    answerer = CommandAnswerer([PY, "-c", script], timeout=30)
    assert answerer.answer_packet("refund?", packet_of("Refunds take 30 days.")) == (
        "Refunds take 30 days [1]"
    )
    assert CommandAnswerer(f'{PY} -c "print(42)"').argv()[-1] == "print(42)"


def test_command_answerer_errors() -> None:
    failing = CommandAnswerer([PY, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"])
    with pytest.raises(AnswererError, match="exited with status 3: boom"):
        failing.complete("p")
    slow = CommandAnswerer([PY, "-c", "import time; time.sleep(10)"], timeout=0.3)
    with pytest.raises(AnswererError, match="timed out"):
        slow.complete("p")
    with pytest.raises(AnswererError, match="not found"):
        CommandAnswerer(["/nonexistent/answerer-cmd"]).complete("p")
    with pytest.raises(InvalidInputError):
        CommandAnswerer("   ").complete("p")


GITHUB_TOKEN = "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"


def test_a_failing_command_answerer_s_echo_of_a_token_is_masked_in_its_error() -> None:
    echo = f"import sys; sys.stderr.write('auth failed for {GITHUB_TOKEN}\\n'); sys.exit(3)"
    with pytest.raises(AnswererError) as failed:
        CommandAnswerer([PY, "-c", echo]).complete("p")
    assert GITHUB_TOKEN not in str(failed.value)
    assert "auth failed for [REDACTED:github_token]" in str(failed.value)


def test_answerers_print_no_key_nor_the_environment() -> None:
    env = {"OPENAI_API_KEY": "sk-live-" + "secret-value-123", "HOME": "/home/someone"}
    http = HttpAnswerer(
        "http://h:8080/v1?api_key=Hunter2", "m", api_key_env="OPENAI_API_KEY", env=env
    )
    shown = repr(http)
    assert "secret-value" not in shown and "Hunter2" not in shown and "HOME" not in shown
    assert shown == (
        "HttpAnswerer(endpoint='http://h:8080', model='m', api_key_env='OPENAI_API_KEY', "
        "timeout=120.0)"
    )
    command = CommandAnswerer(["llm", "--key", GITHUB_TOKEN])
    assert repr(command) == "CommandAnswerer(program='llm', timeout=120.0)"
    assert repr(CommandAnswerer('llm "unclosed')) == "CommandAnswerer(program='', timeout=120.0)"


def test_results_print_a_secret_typed_into_the_question_masked() -> None:
    from substrate.act import investigate, retrieve_action
    from substrate.context import assemble_context
    from substrate.hops import multihop
    from substrate.retrieval import retrieve

    shard = Substrate()
    shard.add("text", "The refund policy is 14 days.")
    asked = f"refund policy? {GITHUB_TOKEN}"
    results = [
        answer_from_substrate(shard, asked, lambda q, c: "14 days"),
        assemble_context(shard, asked),
        retrieve(shard, asked),
        multihop(shard, asked),
        investigate(asked, [retrieve_action(shard)], lambda q, c: "14 days"),
    ]
    for result in results:
        assert GITHUB_TOKEN not in repr(result), type(result).__name__
        assert "[REDACTED:github_token]" in repr(result), type(result).__name__
    assert results[2].query == asked  # kept as given: only its printing is masked
    from substrate.act import Step

    echoed = Step("delegate", "text", [f"asked: {asked}", ("x",)], 1.0, 1.0)  # texts in a list
    assert GITHUB_TOKEN not in repr(echoed) and "('x',)" in repr(echoed)
    looped: list[object] = [{"q": asked}]
    looped.append(looped)  # a dict's text, and a list holding itself
    assert GITHUB_TOKEN not in repr(Step("delegate", "text", looped, 1.0, 1.0))  # type: ignore[arg-type]


def test_a_result_s_repr_is_short_whatever_it_holds() -> None:
    # an answer printed in a notebook showed its whole packet and evidence: 70,000 characters
    from substrate import Substrate, answer_from_substrate

    shard = Substrate()
    for n in range(40):
        shard.add("text", f"Refunds take {n} days in region {n}. " + "Detail of the policy. " * 80)
    answer = answer_from_substrate(shard, "How long do refunds take?", lambda q, c: "5 days [1]")
    shown = repr(answer)
    assert len(shown) < 2000 and shown.startswith("Answer(question='How long do refunds take?'")
    assert "answer='5 days [1]'" in shown and "... " in shown  # (the evidence listed short)


def test_answerer_reprs_never_raise() -> None:
    assert repr(CommandAnswerer(None)) == "CommandAnswerer(program='', timeout=120.0)"  # type: ignore[arg-type]
    changed = HttpAnswerer("http://h:8080/v1", "m")
    for later in ("http://h:port/v1", 5):  # checked when made, not when changed
        changed.base_url = later  # type: ignore[assignment]
        assert repr(changed).startswith("HttpAnswerer(endpoint='?'")


def test_command_answerer_caps_its_output_and_leaves_no_process_behind(tmp_path: Path) -> None:
    import os
    import time

    from substrate.answerers import MAX_RESPONSE_BYTES

    endless = "import sys\nwhile True: sys.stdout.write('y' * 65536)"
    with pytest.raises(AnswererError, match=f"more than {MAX_RESPONSE_BYTES} bytes"):
        CommandAnswerer([PY, "-c", endless], timeout=60).complete("p")
    # a few bytes over the cap, in one write after a pause, then the command exits
    just_over = (
        "import sys, time; sys.stdout.buffer.write(b'y' * "
        f"({MAX_RESPONSE_BYTES} - 10)); sys.stdout.flush(); time.sleep(0.2); "
        "sys.stdout.buffer.write(b'z' * 100)"
    )
    with pytest.raises(AnswererError, match=f"more than {MAX_RESPONSE_BYTES} bytes"):
        CommandAnswerer([PY, "-c", just_over], timeout=60).complete("p")
    marker = tmp_path / "helper.pid"
    # the command starts a helper in the background, then hangs until the timeout
    spawner = (
        "import subprocess, sys, time; "
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(marker)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    with pytest.raises(AnswererError, match="timed out"):
        CommandAnswerer([PY, "-c", spawner], timeout=2).complete("p")
    helper = int(marker.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(helper, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(helper, 9)
        raise AssertionError("the answerer's helper process outlived it")


# -- HTTP answerer ---------------------------------------------------------------------------------


class Endpoint:
    """A tiny OpenAI-compatible server on 127.0.0.1 (stops itself after 30 s at the latest)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.body: Any = {"choices": [{"message": {"content": "Refunds take 30 days [1]."}}]}
        self.delay = 0.0
        self.trickle = 0.0  # seconds between the bytes of the body (0: all at once)
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("Content-Length", 0))
                endpoint.requests.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": json.loads(self.rfile.read(length)),
                    }
                )
                if endpoint.delay:
                    threading.Event().wait(endpoint.delay)
                data = json.dumps(endpoint.body).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    if not endpoint.trickle:
                        self.wfile.write(data)
                        return
                    for byte in data:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        threading.Event().wait(endpoint.trickle)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting, as the timeout tests mean it to

            def log_message(self, *args: Any) -> None:
                pass

        # request threads are waited for when the server closes: none outlives its test
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.stopped = False
        self.guard = threading.Timer(30, self.server.shutdown)
        self.guard.daemon = True
        self.guard.start()

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self.guard.cancel()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    yield server
    server.stop()


def test_http_answerer_calls_chat_completions(endpoint: Endpoint) -> None:
    answerer = HttpAnswerer(endpoint.url, "m1", api_key_env="TEST_KEY", env={"TEST_KEY": "sk-t"})
    out = answerer.answer_packet("refund?", packet_of("Refunds take 30 days."))
    assert out == "Refunds take 30 days [1]."
    (req,) = endpoint.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-t"
    assert req["body"]["model"] == "m1"
    assert "[1]" in req["body"]["messages"][-1]["content"]


def test_http_answerer_answers_never_show_the_key(endpoint: Endpoint) -> None:
    # an opaque key (32 hex digits) no rule knows, reflected by a proxy or a debug endpoint
    key = "3f9b2c1e7d3a4e8b9c6f1a2b3c4d5e6f"
    endpoint.body = {"choices": [{"message": {"content": f"The key {key} says hi [1]."}}]}
    answerer = HttpAnswerer(endpoint.url, "m", api_key_env="K", env={"K": key})
    assert answerer.complete("p") == "The key [REDACTED:api_key] says hi [1]."
    endpoint.body = {"choices": [{"message": {"content": "The standby is nonexistent [1]."}}]}
    local = HttpAnswerer(endpoint.url, "m", api_key_env="K", env={"K": "none"})  # a stand-in
    assert local.complete("p") == "The standby is nonexistent [1]."
    endpoint.body = {"choices": [{"message": {"content": "Key s3cr3tk3y is fine [1]."}}]}
    short = HttpAnswerer(endpoint.url, "m", api_key_env="K", env={"K": "s3cr3tk3y"})
    assert short.complete("p") == "Key [REDACTED:api_key] is fine [1]."  # short, and a key
    key = "sk-proj-Abc123XyZ987qwe"  # a long one, wherever it is
    endpoint.body = {"choices": [{"message": {"content": f"Bearer%20{key}_backup [1]."}}]}
    long = HttpAnswerer(endpoint.url, "m", api_key_env="K", env={"K": key})
    assert long.complete("p") == "Bearer%20[REDACTED:api_key]_backup [1]."


def test_http_answerer_errors_never_show_the_key(endpoint: Endpoint) -> None:
    endpoint.status = 401
    endpoint.body = {"error": {"message": "Incorrect API key provided: sk-secret-123"}}
    answerer = HttpAnswerer(endpoint.url, "m", api_key_env="K", env={"K": "sk-secret-123"})
    with pytest.raises(AnswererError) as err:
        answerer.complete("p")
    assert "HTTP 401" in str(err.value) and "sk-secret-123" not in str(err.value)
    endpoint.status = 200
    endpoint.body = {"unexpected": True}
    with pytest.raises(AnswererError, match="unexpected response"):
        answerer.complete("p")
    with pytest.raises(AnswererError, match="is not set"):
        HttpAnswerer(endpoint.url, "m", api_key_env="MISSING", env={}).complete("p")
    pasted_keys = ("9f2c4e7a1b3d5f6e8a0c2e4f6a8b0d1c", "af2c4e7a1b3d5f6e8a0c2e4f6a8b0d1c", "sk-x")
    for pasted in (*pasted_keys, "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"):  # "_": a name?
        with pytest.raises(AnswererError, match="is it the key itself") as err:
            HttpAnswerer(endpoint.url, "m", api_key_env=pasted, env={}).complete("p")
        assert pasted not in str(err.value)  # it was echoed as a variable's name


def test_http_answerer_timeout_and_unreachable(endpoint: Endpoint) -> None:
    endpoint.delay = 1.0
    with pytest.raises(AnswererError, match="timed out"):
        HttpAnswerer(endpoint.url, "m", timeout=0.2).complete("p")
    endpoint.stop()
    with pytest.raises(AnswererError, match="cannot reach"):
        HttpAnswerer(endpoint.url, "m", timeout=2).complete("p")


def test_http_answerer_timeout_covers_the_whole_response(endpoint: Endpoint) -> None:
    # a byte every 0.1 s: no single read waits 0.5 s, yet the whole body takes seconds, so
    # only a deadline on the whole response can time it out
    endpoint.trickle = 0.1
    with pytest.raises(AnswererError, match="timed out"):
        HttpAnswerer(endpoint.url, "m", timeout=0.5).complete("p")


def test_http_answerer_from_a_tracked_settings_file(tmp_path: Path) -> None:
    settings = tmp_path / ".mixle" / "mixle.toml"
    settings.parent.mkdir()
    settings.write_text("format = 1\n")
    (tmp_path / ".git").mkdir()
    name = b".mixle/mixle.toml"  # an index (version 2) tracking it
    entry = bytes(40) + bytes(20) + struct.pack(">H", len(name)) + name + b"\0"
    data = struct.pack(">4sII", b"DIRC", 2, 1) + entry + b"\0" * (-len(entry) % 8)
    (tmp_path / ".git" / "index").write_bytes(data + hashlib.sha1(data).digest())
    far = {"base_url": "https://collector.example/v1", "model": "m", "api_key_env": "K"}
    with pytest.raises(InvalidInputError, match="tracked by git"):
        http_answerer_from_config(far, {}, source=settings)
    assert http_answerer_from_config(far, {}).base_url == far["base_url"]  # no source: as told
    (tmp_path / "kb").symlink_to(tmp_path / ".mixle")  # reached through a link: as tracked
    with pytest.raises(InvalidInputError, match="tracked by git"):
        http_answerer_from_config(far, {}, source=tmp_path / "kb" / "mixle.toml")
    env = {"MIXLE_ANSWERER_URL": "https://api.example/v1"}  # the user's own choice, but
    with pytest.raises(InvalidInputError, match=r"chooses its \[answerer\] api_key_env"):
        http_answerer_from_config(far, env, source=settings)  # the key the file chose
    env["MIXLE_ANSWERER_KEY_ENV"] = "K"
    chosen = http_answerer_from_config(far, env, source=settings)
    assert chosen.base_url == env["MIXLE_ANSWERER_URL"]
    for here in ("http://127.0.0.1:8080/v1", "http://[::1]:9/v1", "http://localhost/v1"):
        assert http_answerer_from_config({**far, "base_url": here}, {}, source=settings)
    (tmp_path / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x09")  # unread: as tracked
    with pytest.raises(InvalidInputError, match="tracked by git"):
        http_answerer_from_config(far, {}, source=settings)
    (tmp_path / ".git" / "index").unlink()  # no commit yet: the user's own file
    assert http_answerer_from_config(far, {}, source=settings).base_url == far["base_url"]


def test_http_answerer_configuration() -> None:
    env = {"MIXLE_ANSWERER_URL": "http://127.0.0.1:9/v1", "MIXLE_ANSWERER_KEY_ENV": "K"}
    a = http_answerer_from_config({"base_url": "http://x:1", "model": "m", "timeout": 5}, env)
    assert a.base_url == "http://127.0.0.1:9/v1" and a.model == "m" and a.api_key_env == "K"
    assert a.timeout == 5.0 and a.endpoint == "http://127.0.0.1:9/v1/chat/completions"
    with pytest.raises(InvalidInputError, match="no answerer endpoint"):
        http_answerer_from_config({}, {})
    with pytest.raises(InvalidInputError, match=r"has no model \(MIXLE_ANSWERER_MODEL\)"):
        http_answerer_from_config({}, {"MIXLE_ANSWERER_URL": "http://127.0.0.1:9/v1"})
    with pytest.raises(InvalidInputError, match=r"has no base_url \(MIXLE_ANSWERER_URL\)"):
        http_answerer_from_config({"model": "m"}, {})
    configured = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    with pytest.raises(InvalidInputError, match="MIXLE_ANSWERER_MODEL is set but empty"):
        http_answerer_from_config(configured, {"MIXLE_ANSWERER_MODEL": ""})
    with pytest.raises(InvalidInputError, match="must not hold an API key"):
        http_answerer_from_config({"base_url": "http://x", "model": "m", "api_key": "k"}, {})
    for timeout in (True, float("nan"), float("inf"), 0):  # as mixle.toml's checks refuse them
        with pytest.raises(InvalidInputError, match=r"\[answerer\] timeout must be a"):
            http_answerer_from_config(
                {"base_url": "http://x", "model": "m", "timeout": timeout}, {}
            )
    with pytest.raises(InvalidInputError):
        HttpAnswerer("file:///etc/passwd", "m")
    assert HttpAnswerer("https://host:8443/v1", "m").where() == "https://host:8443"
    assert HttpAnswerer("http://[::1]:9/v1", "m").where() == "http://[::1]:9"
    # never sent by the request, which failed naming the password ("nonnumeric port")
    with pytest.raises(InvalidInputError, match="holds a user name or password") as err:
        HttpAnswerer("http://admin:Tr0ub4dor&3x!@127.0.0.1/v1", "m")
    assert "Tr0ub4dor" not in str(err.value)
    with pytest.raises(InvalidInputError, match="port that is not a number"):
        HttpAnswerer("http://127.0.0.1:abc/v1", "m")
    # an internal error (exit 3), or a request to "http://None:80"
    for url, problem in (
        ("http://[::1/v1", "is not a URL"),
        ("http://a b/v1", "has a space"),
        ("http://:80/v1", "names no host"),
        ("http://exa%20mple.com/v1", "no host that can be looked up"),
        ("http://a..b:1/v1", "no host that can be looked up"),
    ):
        with pytest.raises(InvalidInputError, match=problem):
            HttpAnswerer(url, "m")
        with pytest.raises(InvalidInputError, match=problem):  # (from the environment too)
            env = {"MIXLE_ANSWERER_URL": url, "MIXLE_ANSWERER_MODEL": "m"}
            http_answerer_from_config({}, env, source="mixle.toml")


# -- with the real engine ------------------------------------------------------------------------


def test_real_engine_answer_and_abstain(tmp_path: Any) -> None:
    pytest.importorskip("substrate.search.engine")
    s = Substrate(tmp_path / "shard")
    s.add("text", "Refunds for defective items are given within 30 days of purchase.")
    s.add("text", "The store opens at nine and closes at five on weekdays.")
    s.add("text", "Gift cards never expire and can be used online.")
    s.save()
    good = extractive(s, "How long do refunds for defective items take?")
    assert not good.abstained and "30 days" in (good.answer or "")
    bad = extractive(s, "airspeed velocity of an unladen swallow")
    assert bad.abstained and bad.citations() == []


def test_a_table_row_is_quoted_with_its_column_names_never_the_header_alone() -> None:
    table = (
        "| Level | Definition | Status page updates |\n|---|---|---|\n"
        "| SEV1 | Payments failing | every 30 min |\n| SEV2 | Degraded service | every 60 min |\n"
    )
    packet = ContextPacket(task="sev2 updates", items=[SubstrateItem("text", table)])
    answer = ExtractiveAnswerer().answer_packet(
        "How often are status page updates for SEV2?", packet
    )
    assert answer == (
        "Level: SEV2; Definition: Degraded service; Status page updates: every 60 min. [1]"
    )


def test_a_heading_is_never_quoted_as_the_answer() -> None:
    policy = "# Refund days\n\nRefunds take five business days."
    packet = ContextPacket(task="refund days", items=[SubstrateItem("text", policy)])
    answer = ExtractiveAnswerer().answer_packet("how many days for a refund", packet)
    assert answer == "Refunds take five business days. [1]"
    only = ContextPacket(task="x", items=[SubstrateItem("text", "# Refund days")])
    assert ExtractiveAnswerer().answer_packet("how many days for a refund", only) == ""


def test_what_a_command_does_is_answered_by_its_description_not_its_synopsis() -> None:
    # "Usage: tool prune [OPTIONS]" was the answer: it names the command, as a heading does
    s = Substrate()
    s.add(
        "text",
        "## tool prune\n\n```\n\n Usage: tool prune [OPTIONS]\n\n"
        " Delete the cached builds older than a week (atomic; keeps the newest).\n\n"
        " A cache with nothing to delete is left as it is. The index of the tool cache is "
        "rebuilt on the next run (run `tool reindex` afterwards to pay for that now).\n```\n",
        provenance={"source": "cli.md", "section": "Commands > tool prune"},
    )
    s.add("text", "The tool keeps its cache under ~/.cache/tool.", id="cache")
    result = answer_from_substrate(
        s, "What does tool prune do?", ExtractiveAnswerer(), budget=ContextBudget(max_chars=300)
    )
    assert result.answer is not None
    assert result.answer.startswith("Delete the cached builds older than a week"), result.answer
    # with room for the whole help, too
    whole = extractive(s, "What does tool prune do?")
    assert whole.answer is not None and whole.answer.startswith("Delete the cached builds")


@pytest.mark.parametrize(
    ("sentence", "duration"),
    [
        ("processed within five business days", True),
        ("Rollbacks take about eight minutes.", True),
        ("within 30 days of delivery", True),
        ("It may take a few weeks.", True),
        ("Orders placed before 16:00 leave the same day.", False),
        ("Five people work there.", False),
        ("Password resets require a second factor.", False),
        ("It takes about a day.", True),
        ("The suite takes about two and a half minutes on two cores.", True),
        ("A restore takes half an hour.", True),
        ("Half the team works remotely.", False),
    ],
)
def test_what_counts_as_a_duration(sentence: str, duration: bool) -> None:
    from substrate.questions import frame_of, states_frame

    assert states_frame(sentence, frame_of("How long does it take?")) is duration


@pytest.mark.parametrize(
    ("question", "topic", "answer"),
    [
        (
            "How many minutes until a page is acknowledged?",
            "how minutes until a page is acknowledged?",
            "fifteen minutes",
        ),
        ("How often do deploys run?", "how do deploys run?", "every weekday"),
        ("How much time do rollbacks take?", "how do rollbacks ?", "eight minutes"),
    ],
)
def test_how_many_how_much_and_how_often_are_said_by_a_number_or_a_frequency(
    question: str, topic: str, answer: str
) -> None:
    from substrate.questions import frame_of, terms_said, topic_text

    assert " ".join(topic_text(question).split()) == " ".join(topic.split())
    frame = frame_of(question)
    plain = terms_said("Deploys are announced in the channel.", terms(question), frame)
    assert frame and not plain & set(frame)
    result = extractive(oncall_shard(), question)
    assert not result.abstained and answer in (result.answer or ""), result.note


INFRA = (
    "Dashboards live in Grafana.",
    "Each backup is encrypted with the platform key.",
    "The CDN was moved to edge regions in 2023.",
    "Every new hire gets a laptop on her first morning.",
    "The Starter plan costs 12 dollars per user per month.",
    "Enterprise pricing is negotiated with sales.",
    "Logs are retained for 90 days.",
)


def infra_shard() -> Substrate:
    s = Substrate()
    for text in INFRA:
        s.add("text", text)
    return s


@pytest.mark.parametrize(
    "question",
    [
        "How many dashboards are there in Grafana?",  # no number at all
        "How often are backups encrypted?",  # "each backup" is no frequency
        "How many edge regions does the CDN use?",  # "in 2023" is a year, not a count
        "How much does a laptop cost?",  # a price, but of something else
        "How much does the Enterprise plan cost?",  # the price of another plan
    ],
)
def test_a_framed_question_no_sentence_states_the_value_of_is_refused(question: str) -> None:
    s = infra_shard()
    result = extractive(s, question)
    assert result.abstained, result.answer
    right = extractive(s, "How long are logs retained?")
    assert right.answer == "Logs are retained for 90 days. [1]"
    named = extractive(s, "How much does the Starter plan cost?")
    assert named.answer == "The Starter plan costs 12 dollars per user per month. [1]"


def test_an_option_is_answered_by_its_own_entry_not_a_neighbour_naming_it() -> None:
    # undici's docs: the entry of keepAliveMaxTimeout mentions keepAliveTimeout, and was
    # quoted for its default (600e3, not 4e3)
    s = Substrate()
    s.add(
        "text",
        "# Client\n\n## Options\n\n"
        "* **keepAliveMaxTimeout** `number` - Default: `600e3` - The maximum allowed "
        "`keepAliveTimeout`, in milliseconds.\n"
        "* **keepAliveTimeout** `number` - Default: `4e3` - The timeout, in milliseconds, "
        "after which an idle socket times out.\n",
    )
    answer = extractive(s, "What is the default keepAliveTimeout?").answer or ""
    assert "`4e3`" in answer and "600e3" not in answer


def test_when_something_happened_is_answered_by_a_sentence_saying_when() -> None:
    # "When was the Azure provider added?" quoted the plugin's install command
    s = Substrate()
    s.add(
        "text",
        "# Azure provider\n\n## Overview\n\nThe provider uploads to blob storage. It was added "
        "in Kestrel 1.4.\n\n## Installation\n\nInstall the Azure plugin with `kestrel plugin "
        "add azure`.\n",
    )
    answer = extractive(s, "When was the Azure provider added?").answer or ""
    assert "added in Kestrel 1.4" in answer and "plugin add" not in answer
    bare = Substrate()
    bare.add(
        "text", "# Azure provider\n\nInstall the Azure plugin with `kestrel plugin add azure`.\n"
    )
    assert extractive(bare, "When was the Azure provider added?").abstained
    # "When is ..." asks for a case as often as a time: not held to a moment
    rule = Substrate()
    rule.add("text", "# Reviews\n\nA second review is needed whenever a change touches billing.\n")
    assert not extractive(rule, "When is a second review needed?").abstained


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (
            "When do deploys of the billing-api happen?",
            "Deploys of the billing-api happen on Tuesdays.",
        ),
        ("When does the Lisbon office open?", "The Lisbon office opens at nine."),
        ("When does the release freeze start?", "The release freeze starts in December."),
    ],
)
def test_when_something_happens_is_answered_by_a_sentence_saying_when(
    question: str, said: str
) -> None:
    s = Substrate()
    s.add("text", said)
    assert extractive(s, question).answer == f"{said} [1]"


def test_when_something_happens_is_not_answered_by_what_else_is_said_of_it() -> None:
    # "When do deploys happen for billing-worker?" quoted "The billing-worker consumes jobs
    # from the queue."
    s = Substrate()
    s.add("text", "# Services\n\n## billing-api\n\nDeploys happen on Tuesdays.\n")
    s.add("text", "# Services\n\n## billing-worker\n\nThe billing-worker consumes jobs.\n")
    assert extractive(s, "When do deploys happen for billing-worker?").abstained
    # (what one does, not when: not held to a moment)
    s.add("text", "Use the staging cluster for load tests.")
    assert not extractive(s, "When do I use the staging cluster?").abstained
    # nor by when another thing of its kind happens
    workshops = Substrate()
    workshops.add("text", "The onboarding workshop starts in March.")
    workshops.add("text", "The design workshop starts with a welcome talk by the CTO.")
    assert extractive(workshops, "When does the design workshop start?").abstained
    told = extractive(workshops, "When does the onboarding workshop start?").answer
    assert told == "The onboarding workshop starts in March. [1]"
    s.add("text", "Open an incident if the error rate stays above 5% for ten minutes.")
    assert not extractive(s, "When do we open an incident?").abstained  # (a case, not a time)


def test_which_organisation_is_answered_by_a_sentence_naming_one() -> None:
    # cranfield's "Which university has the largest wind tunnel?" quoted wind-tunnel sentences
    # naming no university, at confidence 0.94
    _abstains_until_told(
        "Which university has the largest wind tunnel?",
        (
            "wind tunnel techniques for the measurements of oscillatory derivatives .",
            "new test techniques for a hypervelocity wind tunnel .",
            "the largest wind tunnel tests are run at high speed .",
            "shells were tested by a university group in a pressure chamber .",
        ),
        "The largest wind tunnel of any university is run by Cranfield University.",
        "Cranfield University",
    )


def _abstains_until_told(question: str, texts: tuple[str, ...], told: str, said: str) -> None:
    """``question`` is abstained on over ``texts``, and answered by quoting ``said`` once
    ``told`` is added."""
    s = sections(notes=texts)
    assert extractive(s, question).abstained
    s.add("text", told)
    assert said in (extractive(s, question).answer or "")


def test_a_number_the_question_gives_does_not_answer_how_many() -> None:
    # "Kestrel 2.0 is out" gave a number, the one asked of: it was quoted for how many
    _abstains_until_told(
        "How many contributors worked on Kestrel 2.0?",
        (
            "# Kestrel 2.0\n\nKestrel 2.0 is out with uploads, thanks to its contributors.\n",
            "# Team\n\nThe contributors meet weekly.\n",
        ),
        "# Credits\n\n40 contributors worked on Kestrel 2.0.\n",
        "40 contributors",
    )


def test_a_page_titled_in_its_front_matter_answers_under_that_title(tmp_path: Path) -> None:
    # a docs site titles its pages in front matter, with no "#" heading: "What was dropped in
    # v2?" abstained where the same page titled "# What's new in v2" answered
    (tmp_path / "whats-new.md").write_text(
        "---\ntitle: What's new in v2\n---\n\n## Breaking changes\n\n"
        "- The MSI installer was dropped; Windows users install with winget.\n"
    )
    store = Substrate()
    ingest_path(store, tmp_path)
    found = answer_from_substrate(store, "What was dropped in v2?", ExtractiveAnswerer())
    assert "The MSI installer was dropped" in (found.answer or ""), found.note


def test_how_much_a_thing_costs_is_answered_by_a_price_not_any_number() -> None:
    # "How much does a wind tunnel cost?" was answered, confidently, by a tunnel at Mach 1
    tunnels = (
        "A study of flow with free stream Mach number 1 in a choked wind tunnel.",
        "The wind tunnel has a test section of 2 metres.",
        "The cost of the computation is halved by the new scheme.",
    )
    told = "Building the wind tunnel cost $4.2 million in 1958."
    _abstains_until_told("How much does a wind tunnel cost?", tunnels, told, "$4.2 million")
    s = sections(notes=(*tunnels, told))
    for price in ("4.2 million dollars", "SEK 40,000", "3,500 CHF"):  # said in other ways
        priced = Substrate()
        priced.add("text", f"The new wind tunnel cost {price} to build.")
        assert price in (extractive(priced, "How much does a wind tunnel cost?").answer or "")
    fleet = Substrate()  # another thing's price, after a sentence naming the one asked of
    fleet.add(
        "text",
        "# Fleet\nThe delivery van carries 900 kg of cargo.\n"
        "The forklift cost $18,000 last year.\n",
    )
    assert extractive(fleet, "How much does the delivery van cost?").abstained
    paid = Substrate()  # "how much ... paid" asks for an amount, not only money
    paid.add("text", "Overtime is paid at 1.5 times the hourly rate.")
    assert "1.5 times" in (extractive(paid, "How much is overtime paid?").answer or "")
    assert "2 metres" in (
        extractive(s, "How much room does the wind tunnel test section have?").answer or ""
    )


def test_what_a_thing_costs_is_not_answered_by_a_sentence_stating_no_charge() -> None:
    s = Substrate()
    s.add("text", "notify-service sends push notifications between 08:00 and 21:00.")
    s.add("text", "service: notify-service; owner_team: Mobile; tier: 2")
    question = "What is the annual cost of the vendor notify-service uses?"
    assert extractive(s, question).abstained
    s.add("text", "The annual cost of the push vendor notify-service uses is €12,000.")
    assert "€12,000" in (extractive(s, question).answer or "")


def test_an_abstention_for_want_of_a_value_says_which_value() -> None:
    result = extractive(infra_shard(), "How often are backups encrypted?")
    assert result.abstained
    assert result.note == (
        "abstained: no readable item found says how often -- escalate rather than guess"
    )


@pytest.mark.parametrize(
    ("question", "sentence", "says"),
    [
        ("How often do backups run?", "Backups run every two hours.", True),
        ("How often do backups run?", "Backups run three times a week.", True),
        ("How often do backups run?", "Backups run every business day.", True),
        ("How often do backups run?", "Backups run every fourth week.", True),
        ("How often do backups run?", "Backups run every 2nd sprint.", True),
        ("How often do backups run?", "Backups run every other day.", True),
        ("How often do backups run?", "Once the backup finishes, it is copied.", False),
        ("How often do backups run?", "Backups run 3 times faster now.", False),
        ("How many servers are there?", "The farm is a fleet of 2000 servers.", True),
        ("How many servers are there?", "Servers moved to Grafana on 2023-05-01.", False),
        ("How many servers are there?", "The servers were bought in March 2021.", False),
        ("How many servers are there?", "The 2023 servers are faster.", False),
        ("How long is the trial?", "The trial lasts a month.", True),
        ("How long is the cable?", "The cable is 3 metres.", True),
        ("How big is the canary for a deploy?", "A deploy starts with a 5% canary.", True),
        ("How large is the disk?", "The disk is large enough.", False),
        ("What city is the office in?", "Our office is in Lisbon.", True),
        ("What city is the office in?", "- Slack: @dan", False),  # a label names no place
        ("What city is the office in?", "Office practicalities", False),  # a title
        ("What city is the office in?", "The kitchen is cleaned by Facilities.", False),
        ("What is the email address of Jonas?", "Mail jonas@example.com today.", True),
        ("What time does the deploy window open?", "It opens after lunch.", True),
        ("What time is standup?", "Standup happens every weekday.", False),
        ("What country is our office in?", "Our office is in the Netherlands.", True),
        ("What city is the offsite in?", "The offsite city is Lisbon.", True),
        ("What version of Postgres do we run?", "We run Postgres for billing.", False),
        ("What is the cost of a full outage?", "The cost is very high.", True),
        ("Where is Tomasz based?", "- Location: Kraków", True),
        ("Where is Tomasz based?", "Tomasz moved to Gdańsk last year.", True),
        ("Where is the Berlin team based?", "Office: Berlin-Mitte", True),
        ("Where is the Berlin team based?", "Our office is in Berlin.", True),
        ("Where is Tomasz based?", "- Role: Security engineer", False),
        ("Where is the team headquartered?", "They sit in a flat.", False),
        ("Where is Priya based?", "- Location: [Millbrook Lab](../sites/mlab.md)", True),
        ("Where is the historian based?", "- Location: server room SR-2", True),
        ("Where is the historian based?", "Data was back-filled from the RTUs.", False),
        ("Where is the historian based?", "She moved it to the UK.", True),
        ("How many pumps does the station have?", "- Commissioned: 2009", False),
        ("How many pumps does the station have?", "- Pumps: 3 of 75 kW each", True),
        ("What is the annual cost of Twilio?", "- Annual cost: €84,000", True),
        ("What is the annual cost of Twilio?", "Twilio costs us about 40k a year.", True),
        ("What is the price of the Pro plan?", "Pro is 30 USD per seat.", True),
        ("What is the fee for a late refund?", "It is waived for members.", True),
        ("What is the cost of the course?", "The course is 450 dollars.", True),
        ("What is the cost of the course?", "The course is 300 CAD per attendee.", True),
        ("What is the price of a desk?", "A desk in Pune is ₹18,000.", True),
        ("What is the card processing fee?", "The card processing rate is 2.9%.", True),
        ("What is the annual cost of Twilio?", "Twilio is a vendor we use for SMS.", False),
        ("What is the cost of the course?", "Tuition is CHF 1200.", True),
        ("What is the cost of the course?", "It is Rs. 18,000, or 4,200 a quarter.", True),
        ("What is the cost of the course?", "The course runs at 09:30 CET.", False),
        ("What is the cost of the cluster?", "It runs in 3 AWS regions on 2 CPU cores.", False),
        # a number alone is no charge: a clock's time, a record's tier
        ("What is the annual cost of Twilio?", "Twilio sends SMS from 14:00 to 16:00.", False),
        ("What is the annual cost of Twilio?", "vendor: Twilio; tier: 2", False),
    ],
)
def test_what_says_a_frame(question: str, sentence: str, says: bool) -> None:
    from substrate.questions import frame_of, states_frame

    assert states_frame(sentence, frame_of(question)) is says


def test_where_one_is_based_frames_no_question_describing_whom_it_asks_of() -> None:
    from substrate.questions import frame_of

    assert frame_of("Where is Tomasz based?")
    assert not frame_of("Where is the config file located?")  # a path answers it
    # the custodian's base: a row naming the custodian and the asset's location says nothing
    assert not frame_of("Where is the custodian of the BW-12 unit based?")
    assert not frame_of("Where is the person who wrote the runbook based?")


def test_where_one_is_based_is_said_by_a_place_not_by_another_fact_of_them() -> None:
    s = Substrate()
    s.add("text", "# Tomasz Nowak\n\n- Role: Security engineer\n- Location: Kraków\n")
    s.add("text", "# Ines Duarte\n\n- Role: Data engineer\n- Manager: Tomasz Nowak\n")
    placed = "Tomasz Nowak: Location: Kraków [1]"
    assert extractive(s, "Where is Tomasz Nowak based?").answer == placed
    unplaced = extractive(s, "Where is Ines Duarte based?")
    assert unplaced.abstained, unplaced.answer
    assert unplaced.note == (
        "abstained: no readable item found says where -- escalate rather than guess"
    )


def office_shard() -> Substrate:
    s = Substrate()
    s.add("text", "Our office is in Lisbon, at Rua Augusta 12. The standup is at 9:30.")
    s.add("text", "Jonas Weber is the DBA. Reach him at jonas.weber@example.com.")
    s.add("text", "The API listens on 8443 behind the load balancer. We run Postgres 15.")
    s.add("text", "Ana Costa leads the platform team.")
    s.add("text", "Lena Vogel owns the CI runners. Slack: @lena.")
    return s


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What city is the office in?", "Lisbon"),
        ("What is the email address of Jonas Weber?", "jonas.weber@example.com"),
        ("What is Jonas Weber's email?", "jonas.weber@example.com"),
        ("What time is the standup?", "9:30"),
        ("Which version of Postgres do we run?", "Postgres 15"),
        ("What port does the API listen on?", "8443"),
        ("What is Lena Vogel's Slack handle?", "@lena"),
    ],
)
def test_the_kind_of_value_a_question_names_need_not_be_said(question: str, said: str) -> None:
    # every one abstained: "no readable item mentions 'city'" ('email', 'time', 'port'...)
    result = extractive(office_shard(), question)
    assert said in (result.answer or ""), result.note


@pytest.mark.parametrize(
    ("question", "note", "said"),
    [
        (
            "What is the name of the staging database?",
            "The staging database is called orders_stg.",
            "orders_stg",
        ),
        ("What version of the agent do we run?", "We run the latest agent release.", "latest"),
        ("What is the fee for a late refund?", "The fee for a late refund is waived.", "waived"),
    ],
)
def test_a_kind_of_value_often_said_in_words_is_answered_in_words(
    question: str, note: str, said: str
) -> None:
    s = Substrate()
    s.add("text", note)
    s.add("text", "Unrelated: the printer on the second floor prints in colour.")
    assert said in (extractive(s, question).answer or "")


def test_a_kind_of_value_no_sentence_states_is_refused_by_name() -> None:
    from substrate.questions import frame_phrases

    s = office_shard()
    s.add("text", "Ana Costa joined the platform team from the payments team in spring.")
    result = extractive(s, "What is Ana Costa's email address?")
    assert result.abstained  # not answered with Jonas's address
    assert frame_phrases(result.question) == ["which email address"]
    assert frame_phrases("What time is it and how many?") == ["how many", "which time"]


def test_a_long_text_s_words_are_each_analysed_once_for_its_quote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every word of a 2 MB cell was analysed on its own, and each word asked of read its whole
    # window again: ask took 20 s over a table of two rows
    from substrate.context import compress

    text = "lorem ipsum dolor " * 20_000 + "zanzibar quokka " + "tail " * 30
    calls = 0
    analysed = compress.terms

    def counted(said: str) -> frozenset[str]:
        nonlocal calls
        calls += 1
        return analysed(said)

    monkeypatch.setattr(compress, "terms", counted)
    quote = stretch_saying(text, analysed("lorem zanzibar quokka"), 300)
    assert "zanzibar quokka" in quote and calls < 100
    # what the analyzer reads as one term counts where it stands ("C++": "C" is no word)
    code = "compiler " + "filler words here " * 30 + "the compiler for C++ is gcc " + "x " * 90
    assert "compiler for C++" in stretch_saying(code, analysed("compiler C++"), 80)


@pytest.mark.parametrize(
    ("question", "framed"),
    [
        ("What city is the office in?", {"city"}),
        ("In which year did the move happen?", {"year"}),
        ("What's our phone number?", {"phone", "number"}),
        ("What is Lena's Slack handle?", {"handle"}),  # Slack is asked of the evidence
        ("What time zone do we use?", set()),  # about a zone
        ("Which database does the city team use?", set()),  # about the city team
        ("Who knows the time of the standup?", set()),
        # words saying which one before the noun
        ("What is the on-call phone number for billing?", {"phone", "number"}),
        ("What is the main office address?", {"address"}),
        ("What is the latest version of the API?", {"version"}),
        ("What is the reason for the date change?", set()),
        ("What is the number one priority?", set()),
    ],
)
def test_which_nouns_name_the_kind_of_value_asked_for(question: str, framed: set[str]) -> None:
    from substrate.questions import frame_of

    assert set(frame_of(question)) == terms(" ".join(framed))


def test_how_fast_or_high_is_no_frame_a_word_may_answer() -> None:
    from substrate.questions import frame_of

    assert frame_of("How fast does the edge cache invalidate entries?") == {}  # "immediately"
    assert frame_of("How high is the risk of data loss?") == {}  # "low"


def test_sources_giving_other_values_for_a_framed_question_are_all_quoted() -> None:
    s = Substrate()
    s.add("text", "Refunds are processed within 3 business days.", provenance={"path": "/a/r.md"})
    s.add("text", "Refunds are processed within 9 business days.", provenance={"path": "/b/r.md"})
    s.add("text", "Refunds are processed by the finance team.")
    framed = extractive(s, "How long does refund processing take?")
    answer = framed.answer or ""
    assert "3 business days" in answer and "9 business days" in answer
    assert "finance" not in answer
    plain = extractive(s, "Who processes refunds?")
    assert (plain.answer or "").count("[") == 1  # one sentence says it: one quoted


def test_what_a_question_asks_of_a_name_is_not_said_of_another_or_left_unsaid() -> None:
    # confident answers about the Tallinn office, or a CFO's approval limit for a salary
    s = Substrate()
    s.add("text", "The Tallinn office is open Monday to Friday.")
    s.add("text", "Expenses above 500 EUR need pre-approval by the CFO, Oskar Brandt.")
    s.add("text", "Oskar Brandt is the Chief Financial Officer, based in Berlin.")
    s.add("text", "The shipment SH-1005 went from Tokyo to Tallinn.")
    for question, why in (
        ("When does the Tokyo office open?", "found says what is asked of 'Tokyo'"),
        ("What is the salary of Oskar Brandt?", "no readable item mentions 'salary'"),
    ):
        result = extractive(s, question)
        assert result.abstained and why in result.note, question
    for question, said in (
        ("When does the Tallinn office open?", "Monday to Friday"),
        ("Who is Oskar Brandt?", "Chief Financial Officer"),
    ):
        assert said in (extractive(s, question).answer or "")


def test_a_question_about_two_names_quotes_a_sentence_about_each() -> None:
    s = Substrate()
    s.add("text", "The Tokyo office is open 9 to 5.")
    s.add("text", "The Tallinn office opens at 8.")
    for question in (
        "When do the Tokyo and Tallinn offices open?",
        "Which office opens, Tokyo or Tallinn?",
    ):
        answer = extractive(s, question).answer or ""
        assert "9 to 5" in answer and "at 8" in answer, question
    only_one = Substrate()
    only_one.add("text", "The Tokyo office is open 9 to 5.")
    result = extractive(only_one, question)
    assert result.abstained  # what is asked of Tallinn is said nowhere


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("When does the Tokyo office open?", {"tokyo"}),
        ("Lena Park owns the refund policy.", {"lena", "park"}),  # a name may start it
        ("What is it? Give definitions.", set()),  # a second sentence starts with a capital
        ("Performance Testing of a Book and Its Index as a Retrieval System", set()),  # a title
        ("What are the aims of MEDLARS (Medical Literature Analysis System)?", {"medlar"}),
        # several names make no title, and an abbreviation's period ends no sentence
        (
            "Lena Park reports to Maria Lopez in Berlin.",
            {"lena", "park", "maria", "lopez", "berlin"},
        ),
        ("Dr. Smith approves refunds.", {"smith"}),
        # of any script: the accents fold in the terms, as the index keeps them
        (
            "The Payments team is led by Zoë Müller in Zürich.",
            {"payment", "zoe", "muller", "zurich"},
        ),
        ("Łukasz Nowak runs the Kraków office.", {"lukasz", "nowak", "krakow"}),
        ("We sell to l'Oréal.", {"oreal"}),  # after an elided article
        ("Über Änderungen Öffentlicher Übersichten Für Ärzte Und Kliniken", set()),  # a title
    ],
)
def test_the_names_in_a_text(text: str, names: set[str]) -> None:
    from substrate.questions import named_terms

    assert named_terms(text) == names


def test_a_faqs_own_question_is_not_quoted_as_its_answer() -> None:
    its = [SubstrateItem("text", "How long do refunds take? Refunds are paid in 5 days.", id="f")]
    packet = pack_context("refunds take", its, [0.9])
    out = ExtractiveAnswerer().answer_packet("How long do refunds take?", packet)
    assert out == "Refunds are paid in 5 days. [1]"


def test_a_sentence_two_sources_hold_is_quoted_once() -> None:
    s = Substrate()
    said = "Damaged shipments are refunded within 45 days."
    s.add("text", f"# Refund policy\n\n{said}", provenance={"path": "/a.md"})
    s.add("text", said)  # the same sentence, pasted on its own
    answer = extractive(s, "How long to refund damaged shipments?")
    assert (answer.answer or "").count("45 days") == 1


def test_a_frame_is_not_said_by_a_sentence_without_its_value() -> None:
    from substrate.questions import frame_of, terms_said

    wanted = terms("How many warehouses ship orders")
    frame = frame_of("How many warehouses ship orders", wanted)
    assert set(frame) == terms("many")
    assert terms("many") <= terms_said("Two warehouses ship orders.", wanted, frame)
    assert not terms("many") & terms_said("The warehouse ships orders.", wanted, frame)


# -- what the shard never mentions ---------------------------------------------------------------

ONCALL = (
    "The on-call engineer acknowledges a page within fifteen minutes.",
    "Handover happens on Monday at ten. The outgoing engineer writes a summary.",
    "Deploys run every weekday at 14:00 UTC from the main branch.",
    "Rollbacks take about eight minutes and need no approval.",
    "The warehouse ships orders to the Netherlands and Belgium.",
)


def oncall_shard(*extra: tuple[str, str]) -> Substrate:
    s = Substrate()
    for text in ONCALL:
        s.add("text", text)
    for text, scope in extra:
        s.add("text", text, scope=scope)
    return s


def test_a_question_about_what_the_shard_never_mentions_is_refused() -> None:
    model = Recording("The on-call engineer acknowledges a page within fifteen minutes [1].")
    result = answer_from_substrate(oncall_shard(), "What is the on-call engineer's salary?", model)
    assert result.abstained and not model.calls and result.confidence < 0.5
    assert result.note.endswith("no readable item mentions 'salary'")
    # the same shard answers what it does say about the on-call engineer
    covered = "How fast does the on-call engineer acknowledge a page?"
    good = extractive(oncall_shard(), covered)
    assert not good.abstained and "fifteen minutes" in (good.answer or "")


def test_what_another_scope_mentions_changes_nothing_for_a_reader_who_cannot_see_it() -> None:
    question = "What is the on-call engineer's salary?"
    secret = ("The on-call engineer's salary is paid monthly.", "hr")
    alone = extractive(oncall_shard(), question)
    beside = answer_from_substrate(
        oncall_shard(secret), question, ExtractiveAnswerer(), scopes={"local"}
    )
    assert beside.abstained and beside.confidence == alone.confidence
    assert beside.note == alone.note
    allowed = answer_from_substrate(
        oncall_shard(secret), question, ExtractiveAnswerer(), scopes={"local", "hr"}
    )
    assert not allowed.abstained and "paid monthly" in (allowed.answer or "")


def test_an_unmentioned_word_costs_nothing_below_a_third_of_the_question() -> None:
    item = SubstrateItem("text", "Refund policy for defective items.")
    plain = answerability("refund policy defective items", 0.9, [item])
    assert answerability("refund policy defective items", 0.9, [item], unseen_share=0.3) == plain
    half = answerability("refund policy defective items", 0.9, [item], unseen_share=0.5)
    assert half == pytest.approx(plain * 0.25, abs=1e-4)


def test_words_that_make_a_request_are_not_what_a_question_is_about() -> None:
    from substrate.questions import topic_text, words_for
    from substrate.search.engine import unmentioned

    assert topic_text("Explain how refunds work").split() == ["how", "refunds"]
    s = Substrate()
    s.add("text", "Refunds are processed within five business days.")
    s.add("text", "The warehouse ships orders to Belgium.")
    assert unmentioned(s, topic_text("Please explain how refunds work")) == (frozenset(), 0.0)
    unseen, share = unmentioned(s, "refund salary")
    # an unmentioned word weighs as a word one item holds: here as much as "refund"
    assert unseen == {"salari"} and share == pytest.approx(0.5)
    assert words_for("What is the engineer's salary?", unseen) == ["salary"]
    # a word unmentioned is named without the possessive the question gave it
    assert words_for("What is the CEO's name?", terms("ceo")) == ["CEO"]


def test_a_question_asking_what_a_word_means_is_about_the_word() -> None:
    from substrate.questions import asked_terms, topic_text

    s = Substrate()
    s.add("text", "# Glossary\n\n- PITR: point-in-time recovery of the last 7 days.")
    s.add("text", "The mean latency of the API is 120 ms.")
    for question in ("What does PITR mean?", "what do we mean by PITR", "What does PITR stand for"):
        result = extractive(s, question)
        assert result.answer == "- PITR: point-in-time recovery of the last 7 days. [1]"
    assert topic_text("What does PITR mean?").split() == ["What", "does", "PITR", "?"]
    assert "mean" in asked_terms("What is the mean latency?")  # a topic there
    latency = extractive(s, "What is the mean latency of the API?")
    assert latency.answer == "The mean latency of the API is 120 ms. [1]"


def test_a_question_asking_how_is_answered_with_every_step_of_the_list() -> None:
    from substrate.context.compress import numbered_lists

    runbook = (
        "# Postgres failover\n\n## Steps\n1. Confirm the primary is down. Check the dashboard."
        "\n2. Page the database owner.\n3. Run the failover command.\n\n## After\n"
        "1. Write the postmortem.\n- a bullet\n1. Start again.\n4. Out of order."
    )
    assert numbered_lists(runbook) == [
        [
            "1. Confirm the primary is down.",
            "Check the dashboard.",
            "2. Page the database owner.",
            "3. Run the failover command.",
        ]
    ]
    shapes = {  # a lead-in, reStructuredText's "#.", Markdown's lazy "1." each, "(1)"
        "Steps for a restart:\n\n1. Drain it.\n2. Restart it.": [
            "Steps for a restart: 1. Drain it."
        ],
        "#. Install it.\n#. Import the profile.": ["#. Install it."],
        "1. Open.\n1. Click.\n1. Done.": ["1. Open."],
        "(1) Open the portal.\n(2) Log in.": ["(1) Open the portal."],
    }
    for text, first in shapes.items():
        (found,) = numbered_lists(text)
        assert found[:1] == first and len(found) >= 2, text
    s = Substrate()
    s.add("text", runbook)
    s.add("text", "The failover command needs the database owner's approval.")
    for question in ("What are the failover steps?", "How do I run a failover?"):
        answer = extractive(s, question).answer
        assert answer is not None and answer.startswith(
            "1. Confirm the primary is down. Check the dashboard. 2. Page the database owner. "
            "3. Run the failover command. ["
        ), (question, answer)
    contacts = (
        "# Escalation contacts\n\n1. The network team is on #netops.\n"
        "2. Page the DBA with `pd dba`."
    )
    s.add("text", contacts)  # a list, not a procedure: the one step that says how
    dba = extractive(s, "How do I page the DBA?").answer
    assert dba is not None and dba.startswith("Escalation contacts: Page the DBA with `pd dba`.")
    one = extractive(s, "Who must approve the failover command?")
    assert one.answer == "The failover command needs the database owner's approval. [1]"


def test_a_bold_label_heads_the_list_below_it_and_a_shared_step_keeps_to_its_own_list() -> None:
    users = (
        "# Admin console users\n\n**Adding a user**\n\n1. Log in to the console.\n"
        "2. Click Invite.\n\n**Removing a user**\n\n1. Log in to the console.\n"
        "2. Click Deactivate.\n"
    )
    packet = pack_context("user", [SubstrateItem("text", users)], [0.9])
    answer = ExtractiveAnswerer().answer_packet
    assert answer("How do I remove a user?", packet) == (
        "1. Log in to the console. 2. Click Deactivate. [1]"
    )
    assert (
        answer("How do I add a user?", packet) == "1. Log in to the console. 2. Click Invite. [1]"
    )


def test_a_procedure_keeps_its_sub_items_and_a_bold_warning_is_no_label() -> None:
    from substrate.context.compress import numbered_lists
    from substrate.questions import asked_terms

    restore = "1. Stop the API.\n2. Restore it.\n   - check its date first\n3. Start the API."
    (steps,) = numbered_lists(restore)
    assert steps[-1] == "3. Start the API." and "- check its date first" in steps
    warning = "**Never restart the primary during business hours.**\n\nThe DBA team restarts it."
    packet = pack_context("restart", [SubstrateItem("text", warning)], [0.9])
    answer = ExtractiveAnswerer().answer_packet
    said = answer("Can we restart the primary during business hours?", packet)
    assert said.startswith("**Never restart the primary during business hours.**")
    # a procedure asked for needs no note saying "steps"; steps counted are a topic
    assert "step" not in asked_terms("What are the steps to restore a backup?")
    assert "step" in asked_terms("How many steps does the onboarding have?")
    assert "definit" in asked_terms("What is our definition of done?")


def test_a_step_that_says_all_a_how_question_asks_gets_no_preference() -> None:
    keys = SubstrateItem("text", "Rotate the API keys with `vault rotate api-keys`.")
    policy = SubstrateItem(
        "text", "# Security policy\n\n1. Rotate the API keys every 90 days.\n2. Review access."
    )
    packet = pack_context("rotate api keys", [keys, policy], [0.9, 0.9])
    answer = ExtractiveAnswerer().answer_packet("How do I rotate the API keys?", packet)
    assert answer.startswith("Rotate the API keys with `vault rotate api-keys`. [1]")


def test_a_procedure_too_long_for_the_answer_is_cut_after_the_steps_that_fit() -> None:
    steps = "\n".join(f"{i}. Move rack {i} of the old hall to the new one." for i in range(1, 21))
    packet = pack_context("move", [SubstrateItem("text", f"# Moving racks\n\n{steps}")], [0.9])
    answerer = ExtractiveAnswerer()
    answer = answerer.answer_packet("How do I move the racks?", packet)
    assert answer.startswith("1. Move rack 1 of the old hall to the new one. 2. Move rack 2")
    assert answer.endswith(" … [1]") and len(answer) <= answerer.max_chars


def test_a_how_question_prefers_the_steps_of_a_procedure_to_a_sentence_saying_as_much() -> None:
    steps = "## Steps\n1. Merge the pull request.\n2. Run `orbitctl deploy SERVICE`."
    rollback = "## Rollback\nRun `orbitctl rollback SERVICE`."
    section = "Deploying a service > {}"
    packet = pack_context(
        "deploy service",
        [
            SubstrateItem("text", rollback, provenance={"section": section.format("Rollback")}),
            SubstrateItem("text", steps, provenance={"section": section.format("Steps")}),
        ],
        [0.99, 0.97],
    )
    answer = ExtractiveAnswerer().answer_packet("How do I deploy a service?", packet)
    assert answer == "1. Merge the pull request. 2. Run `orbitctl deploy SERVICE`. [2]"


RESTART = (
    "# Restarting ledger\n\n1. Announce in the #pay-team channel.\n"
    "2. Run `kubectl rollout restart deploy/ledger -n prod`.\n"
    "3. Watch the error rate on the ledger dashboard."
)


def test_a_sentence_only_pointing_to_a_page_gives_way_to_what_the_page_says() -> None:
    pointer = SubstrateItem(
        "text", "## Runbook\n\nSee [restarting ledger](../runbooks/restart-ledger.md)."
    )
    runbook = SubstrateItem("text", RESTART, provenance={"section": "Restarting ledger"})
    step = "2. Run `kubectl rollout restart deploy/ledger -n prod`."
    question = "How do I restart the ledger?"
    packet = ContextPacket("restart", [pointer, runbook], [0.9, 0.8], texts=[pointer.text, step])
    assert ExtractiveAnswerer().answer_packet(question, packet).startswith("1. Announce in")
    # with nothing else saying it, the pointer still answers
    alone = ContextPacket("restart", [pointer], [0.9])
    assert ExtractiveAnswerer().answer_packet(question, alone) == (
        "Runbook: See restarting ledger. [1]"
    )


def test_a_procedure_cut_by_the_packets_budget_is_quoted_whole() -> None:
    runbook = SubstrateItem("text", RESTART, id="r", provenance={"section": "Restarting ledger"})
    step = "2. Run `kubectl rollout restart deploy/ledger -n prod`."
    packet = ContextPacket(task="restart", items=[runbook], scores=[0.9], texts=[step])
    answer = ExtractiveAnswerer().answer_packet("How do I restart the ledger?", packet)
    assert answer == " ".join(RESTART.splitlines()[2:]) + " [1]"


def test_a_request_is_answered_by_what_it_asks_about() -> None:
    s = oncall_shard()
    for question in ("Tell me about rollbacks", "Please explain how rollbacks work"):
        result = extractive(s, question)
        assert not result.abstained, (question, result.note)
        assert result.answer == "Rollbacks take about eight minutes and need no approval. [1]"


def test_a_request_word_counts_as_none_whatever_its_ending() -> None:
    from substrate.questions import topic_text

    s = oncall_shard()
    for question in ("Explaining the rollback approval", "How is the rollback approval working?"):
        topic = topic_text(question).lower()
        assert "approval" in topic and "explain" not in topic and "working" not in topic
        result = extractive(s, question)
        assert not result.abstained, (question, result.note)


def test_an_abstention_names_each_unmentioned_word_once() -> None:
    from substrate.questions import words_for

    assert words_for("salary's salary’s Salary pay", frozenset({"salari"})) == ["salary"]
    decomposed = "Welche Geha\u0308lter?"  # the umlaut typed as a combining mark
    assert words_for(decomposed, terms("Gehälter")) == ["Gehälter"]
    # a word a secret rule might have missed (digits, token length) is never named
    token = "sk-proj-abc123def456"
    assert words_for(f"salary {token}", terms(f"salary {token}")) == ["salary"]
    assert words_for("x" * 40, terms("x" * 40)) == []


def test_nothing_readable_mentions_nothing() -> None:
    from substrate.search.engine import SearchFilters, unmentioned

    s = Substrate()
    assert unmentioned(s, "salary refund") == ({"salari", "refund"}, 1.0)
    s.add("text", "Refunds take five days.", scope="ops")
    hidden = unmentioned(s, "salary refund", filters=SearchFilters(scopes=frozenset({"hr"})))
    assert hidden == ({"salari", "refund"}, 1.0)


PRIYA = (
    "# Priya Sharma\n\nPriya leads the platform team. She joined in 2019 and works from the "
    "Bangalore office."
)
BILLING = (
    "The platform team owns the billing-worker service. "
    "The search-api service is deployed on Kubernetes. "
    "This runbook was written by Elena Marsh."
)


@pytest.mark.parametrize(
    ("question", "context", "expected"),
    [
        # a year is no phone number; seven digits or more are
        ("What is Priya's phone number?", PRIYA, ""),
        (
            "What is Priya's phone number?",
            PRIYA + "\n\nPriya can be reached at +91 80 4123 5567.",
            "Priya can be reached at +91 80 4123 5567. [1]",
        ),
        # who owns it: a sentence saying something else of it names no owner, and one naming
        # the owner of another service is not about it
        ("Who owns the search-api service?", BILLING, ""),
        (
            "Who owns the billing-worker service?",
            BILLING,
            "The platform team owns the billing-worker service. [1]",
        ),
        # the verb in another of its forms, or after an adverb
        ("Who wrote the runbook?", BILLING, "This runbook was written by Elena Marsh. [1]"),
        (
            "Who freezes the schema?",
            "Ivan froze the schema on 3 June.",
            "Ivan froze the schema on 3 June. [1]",
        ),  # fmt: skip
        (
            "Who currently owns the billing-worker service?",
            BILLING,
            "The platform team owns the billing-worker service. [1]",
        ),
    ],
)
def test_what_is_asked_must_be_said(question: str, context: str, expected: str) -> None:
    assert ExtractiveAnswerer()(question, context) == expected


def test_a_verb_the_question_leans_on_need_not_be_said() -> None:
    context = "# Marco\n\nMarco joined in 2020. He maintains the Postgres cluster on port 5433."
    assert ExtractiveAnswerer()("What port does Postgres use?", context) == (
        "He maintains the Postgres cluster on port 5433. [1]"
    )
    assert ExtractiveAnswerer()("What port does Redis use?", context) == ""


def sections(*texts: str, notes: tuple[str, ...] = ()) -> Substrate:
    """A shard of sections (``heading path|text``) and whole notes."""
    store = Substrate()
    for section in texts:
        path, _, text = section.partition("|")
        store.add("text", text, provenance={"source": "note.md", "section": path})
    for text in notes:
        store.add("text", text)
    return store


OTHER_NOTES = (
    "# Priya\n\nPriya leads the platform team. She works from the Bangalore office.",
    "# Search\n\nThe search-api service is deployed on Kubernetes.",
    "# Radio\n\nThe team listens to the news every morning.",
)


@pytest.mark.parametrize(
    ("texts", "question", "said", "not_said"),
    [
        (  # "Port: 8080" says which port; "in 2022" only holds a number
            (
                "refund-service|# refund-service\n\nThe service was split out of checkout-api "
                "in 2022.",
                "checkout-api > Runtime|## Runtime\n\n- Language: Go 1.22\n- Port: 8080",
            ),
            "What port does checkout-api listen on?",
            "8080",
            "2022",
        ),
        (  # "go" need not be said
            ("Shakshuka > Ingredients|## Ingredients\n\n- 4 eggs\n- 1 can of tomatoes",),
            "How many eggs go into shakshuka?",
            "4 eggs",
            "can",
        ),
        (  # nor "current"
            ("Sessions|# Sessions\n\nThe customer session lifetime is 14 days.",),
            "What is the current customer session lifetime?",
            "14 days",
            "Priya",
        ),
        (  # a line that updates its note, over the line it updates
            (
                "Garden sensor > Status|## Status\n\n"
                "- Battery life measured in October 2023: about 9 days without sun.\n"
                "- Update 2024-01: with the new firmware, battery life is now about 23 days "
                "without sun.",
            ),
            "How long does the garden sensor battery last without sun?",
            "23 days",
            "9 days",
        ),
    ],
)
def test_the_sentence_that_answers_is_quoted_over_one_that_only_seems_to(
    texts: tuple[str, ...], question: str, said: str, not_said: str
) -> None:
    found = extractive(sections(*texts, notes=OTHER_NOTES), question)
    assert found.answer is not None, found.note
    assert said in found.answer and not_said not in found.answer


def test_a_shard_that_never_says_the_light_verb_still_answers() -> None:
    store = Substrate()
    for text in (
        "# Marco\n\nMarco joined in 2020. He maintains the Postgres cluster on port 5433.",
        "# Priya\n\nPriya leads the platform team. She works from the Bangalore office.",
        "# Billing\n\nThe platform team owns the billing-worker service. It runs nightly.",
        "# Search\n\nThe search-api service is deployed on Kubernetes.",
        "# Inventory\n\nWidgets are counted in Lisbon and Porto every Monday.",
    ):
        store.add("text", text)
    found = extractive(store, "What port does Postgres use?")
    assert found.answer is not None and "5433" in found.answer


def test_who_else_asks_the_verb_after_it() -> None:
    assert ExtractiveAnswerer()("Who else owns the billing-worker service?", BILLING) == (
        "The platform team owns the billing-worker service. [1]"
    )


def test_a_verb_asked_in_one_form_is_mentioned_in_another() -> None:
    from substrate.questions import said_alike
    from substrate.search.engine import unmentioned

    s = Substrate()
    s.add("text", "The Payments team is led by Dana Kowalski.")
    assert unmentioned(s, "leads payments team")[0] == {"lead"}
    assert unmentioned(s, "leads payments team", alike=said_alike()) == (frozenset(), 0.0)
    s.add("text", "Noor Haddad is the leader of the Search team.")
    assert not unmentioned(s, "Who leads the search team", alike=said_alike())[0]


def test_who_leads_is_answered_by_a_passive_sentence(tmp_path: Path) -> None:
    # "led" of "leads": the question's own form no note uses must neither make it abstain
    # nor keep the second hop from the sentence that says it
    s = Substrate(tmp_path / "shard")
    s.add("text", "# Billing\n\nThe billing-worker is owned by the Payments team.")
    s.add("text", "## Team\n\nThe Payments team is led by Dana Kowalski.")
    direct = extractive(s, "Who leads the Payments team?")
    assert direct.answer == "The Payments team is led by Dana Kowalski. [1]", direct.note
    chained = answer_from_substrate(
        s, "Who leads the team that owns the billing-worker?", ExtractiveAnswerer(), hops=2
    )
    assert chained.answer == (
        "The billing-worker is owned by the Payments team. [1] "
        "The Payments team is led by Dana Kowalski. [2]"
    ), chained.note


def test_who_leads_is_not_answered_by_an_entry_giving_another_kind_of_lead(tmp_path: Path) -> None:
    s = Substrate(tmp_path / "shard")
    s.add(
        "text",
        "# Payments team\n\nThe Payments team is led by Zoë Müller.\n\n"
        "- Zoë Müller: Engineering manager.\n- Raj Patel: Senior engineer, on-call lead.\n",
    )
    assert extractive(s, "Who leads the Payments team?").answer == (
        "The Payments team is led by Zoë Müller. [1]"
    )
    assert extractive(s, "Who is the on-call lead of the Payments team?").answer == (
        "Payments team: Raj Patel: Senior engineer, on-call lead. [1]"
    )
    # entries alone: the one saying whose lead it is, wherever it is listed
    entries = (
        "- Raj Patel: Senior engineer, on-call lead.\n- Zoë Müller: Tech lead of the Payments team."
    )
    listed = pack_context(
        "q", [SubstrateItem("text", f"# Payments team\n\n{entries}\n", id="t")], [0.9]
    )
    assert ExtractiveAnswerer().answer_packet("Who leads the Payments team?", listed) == (
        "- Zoë Müller: Tech lead of the Payments team. [1]"
    )


def test_who_is_answered_by_a_sentence_naming_someone_not_by_one_of_the_role() -> None:
    items = [
        SubstrateItem(
            "text",
            "# Salary bands\n\nThe Payments team lead salary band tops out at 150,000 EUR.",
            id="s1",
        ),
        SubstrateItem(
            "text", "# Payments team\n\nThe Payments team is led by Priya Raman.", id="s2"
        ),
    ]
    question = "Who leads the Payments team?"
    packet = pack_context(question, items, [1.0, 0.9])
    answer = ExtractiveAnswerer().answer_packet(question, packet)
    assert answer == "The Payments team is led by Priya Raman. [2]"


def test_a_row_of_another_identifier_of_the_family_asked_of_is_not_quoted() -> None:
    # "count", which no row says, once made the question read as one through a description:
    # the row of srv-008 was quoted as naming what the row of srv-010 speaks of
    rows = [("srv-010", "payments", 12), ("srv-008", "search", 4), ("srv-024", "growth", 4)]
    items = [
        SubstrateItem(
            "record",
            f"hostname: {host}; team: {team}; region: us-east-1; cpu: {cpu}; status: active.",
            id=f"r{n}",
        )
        for n, (host, team, cpu) in enumerate(rows)
    ]
    for question in ("What is the cpu count of srv-010?", "What is the cpu of srv-010?"):
        packet = pack_context(question, items, [1.0, 0.9, 0.8])
        answer = ExtractiveAnswerer().answer_packet(question, packet)
        assert answer == (
            "hostname: srv-010; team: payments; region: us-east-1; cpu: 12; status: active. [1]"
        )


def test_a_budget_is_said_by_its_amount_not_by_the_word() -> None:
    items = [
        SubstrateItem("text", "# Falcon\n\nBudget details are in the budget note.", id="a"),
        SubstrateItem("text", "# Falcon budget\n\nThe Falcon budget is 2.4 million EUR.", id="b"),
    ]
    for question in ("What is the Falcon budget?", "What is the budget of Falcon?"):
        packet = pack_context(question, items, [1.0, 0.9])
        answer = ExtractiveAnswerer().answer_packet(question, packet)
        assert answer == "The Falcon budget is 2.4 million EUR. [2]"
    s = Substrate()
    s.add("text", "# Growth sync\n\nAttendees discussed the budget review for the Growth team.")
    told = extractive(s, "What is the budget of the Growth team?")
    assert told.abstained and "budget" in told.note


def test_a_chain_through_a_wiki_link_names_the_page_it_links_to(tmp_path: Path) -> None:
    # "[[team-falcon]]" names the team "Team Falcon's" page speaks of; alone, the sentence
    # naming the team states no phone number and answers nothing
    s = Substrate(tmp_path / "shard")
    naming = s.add("text", "# Project X\n\nProject X is maintained by [[team-falcon]].")
    s.add("text", "# Team Falcon\n\nTeam Falcon's on-call phone number is 555-0199.")
    question = "What is the on-call phone number for the team that maintains Project X?"
    chained = answer_from_substrate(s, question, ExtractiveAnswerer(), hops=2)
    assert chained.answer == (
        "Project X is maintained by team-falcon. [1] "
        "Team Falcon's on-call phone number is 555-0199. [2]"
    ), chained.note
    packet = pack_context(question, [s.get(naming)], [1.0])
    assert ExtractiveAnswerer().answer_packet(question, packet) == ""


SERVICES = (
    "# Services\n\n## invoice-api\nThe invoice-api listens on port 8080. It is written in "
    "Python.\n\n## billing-worker\nThe billing-worker listens on port 8443. It is written in Go."
)


def test_a_pronoun_speaks_of_the_identifier_its_heading_names() -> None:
    s = Substrate()
    for section in SERVICES.split("\n\n## ")[1:]:
        s.add("text", "## " + section)
    asked = extractive(s, "What language is the billing-worker written in?")
    assert asked.answer == "billing-worker: It is written in Go. [1]", asked.note
    # the invoice-api's "It is written in Python." says nothing of the billing-worker
    assert extractive(s, "Is the billing-worker written in Python?").abstained


def test_a_possession_asked_of_a_name_is_answered_by_the_sentence_saying_it_so() -> None:
    s = Substrate()
    s.add(
        "text",
        "# Dana Whitfield\n\nDana Whitfield is the release manager. Dana sits in the Dublin "
        "office, room 2.14.\nDana's manager is Omar Haddad.",
    )
    for question in ("Who is Dana's manager?", "Who is Dana Whitfield's manager?"):
        assert extractive(s, question).answer == "Dana's manager is Omar Haddad. [1]", question
    from substrate.asked import _possessed

    assert _possessed("What's the release manager's name?") is None  # no name owns it


def rota_shard(rows: str) -> Substrate:
    s = Substrate()
    s.add(
        "text",
        "# On-call rota\n\nEach week one engineer is on call for the platform team, with a "
        "backup. Swap weeks in the #platform channel.\n\n" + rows,
        provenance={"source": "oncall.md"},
    )
    s.add("text", "# Dana Whitfield\n\n- Role: Engineering director\n- Location: desk 14\n")
    s.add("text", "# Platform team\n\nThe platform team runs the deploy pipeline.\n")
    return s


ROTA = (
    "| Week | On call | Backup |\n|---|---|---|\n| 12 | Tomasz Nowak | Priya Raman |\n"
    "| 13 | Priya Raman | Ines Duarte |\n| 15 | Ines Duarte | Tomasz Nowak |\n"
)


@pytest.mark.parametrize("hops", [1, 2])
def test_a_week_the_rota_does_not_list_is_not_answered_by_another_weeks_row(hops: int) -> None:
    # every one was answered by the rows of weeks 12 and 13, and "Each week one engineer is
    # on call", which say nothing of week 14
    s = rota_shard(ROTA)
    for question in ("Who is on call in week 14?", "Who is the backup in week 14?"):
        result = answer_from_substrate(s, question, ExtractiveAnswerer(), hops=hops)
        assert result.abstained, result.answer
    listed = answer_from_substrate(s, "Who is on call in week 13?", ExtractiveAnswerer(), hops=hops)
    assert listed.answer == "Week: 13; On call: Priya Raman; Backup: Ines Duarte. [1]"


def test_a_row_of_another_week_is_no_answer_though_it_holds_the_number_asked() -> None:
    # the row of week 15 starts on 14 April: it says "14", not week 14
    s = rota_shard(
        "| Week | Starts | On call |\n|---|---|---|\n| 12 | 17 March | Tomasz Nowak |\n"
        "| 13 | 24 March | Priya Raman |\n| 15 | 14 April | Ines Duarte |\n"
    )
    result = extractive(s, "Who is on call in week 14?")
    assert result.abstained, result.answer
    assert extractive(s, "Who is on call in week 15?").answer == (
        "Week: 15; Starts: 14 April; On call: Ines Duarte. [1]"
    )


def people_shard(*, priya_has_a_manager: bool = True) -> Substrate:
    s = Substrate()
    manager = "- Manager: Dana Whitfield\n" if priya_has_a_manager else ""
    s.add("text", "# Priya Raman\n\n- Role: Staff engineer\n- Team: Platform\n" + manager)
    s.add("text", "# Tomasz Nowak\n\n- Role: Site reliability engineer\n- Manager: Priya\n")
    s.add("text", "# Ines Duarte\n\n- Role: Data engineer\n- Manager: Priya Raman\n")
    s.add("text", "# Dana Whitfield\n\n- Role: Engineering director\n- Team: Platform\n")
    return s


@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize(
    "question", ["Who manages Priya?", "Who is Priya's manager?", "Who is the manager of Priya?"]
)
def test_who_manages_one_is_read_from_their_own_manager_line(question: str, hops: int) -> None:
    # "Tomasz Nowak: Manager: Priya" says whom Priya manages: it was quoted too, and alone
    # where Priya's page names no manager
    result = answer_from_substrate(people_shard(), question, ExtractiveAnswerer(), hops=hops)
    assert result.answer is not None, result.note
    assert result.answer.startswith("Priya Raman: Manager: Dana Whitfield [")
    assert "Tomasz" not in result.answer and "Ines" not in result.answer
    unmanaged = people_shard(priya_has_a_manager=False)
    result = answer_from_substrate(unmanaged, question, ExtractiveAnswerer(), hops=hops)
    assert result.abstained, result.answer
    # nor is Dana's manager the one Priya's page names
    dana = answer_from_substrate(
        people_shard(), question.replace("Priya", "Dana"), ExtractiveAnswerer(), hops=hops
    )
    assert dana.abstained, dana.answer


def test_whom_one_manages_is_read_from_the_manager_lines_naming_them() -> None:
    # "Priya Raman: Manager: Dana Whitfield" says who manages Priya: it was quoted first,
    # her page ranking first
    pages = sorted(people_shard().iter_items(), key=lambda item: "# Priya" not in item.text)
    for question, managed in (
        ("Whom does Priya manage?", ["Tomasz Nowak: Manager: Priya [2]", "Ines Duarte"]),
        ("Who does Priya Raman manage?", ["Ines Duarte: Manager: Priya Raman [3]"]),
    ):
        packet = pack_context(question, pages, [0.9, 0.8, 0.8, 0.7])
        answer = ExtractiveAnswerer().answer_packet(question, packet)
        assert all(line in answer for line in managed), answer
        assert "Dana" not in answer


@pytest.mark.parametrize(
    ("note", "question", "said"),
    [
        ("# Figma\n\n- Seats: 10\n- Cost: 1,800 EUR a year\n", "What does Figma cost?", "1,800"),
        ("# Stripe\n\n- Charge: 2.9% per card payment\n", "What does Stripe charge?", "2.9%"),
        ("# Marco Rossi\n\n- Lead: Project Atlas\n", "What does Marco Rossi lead?", "Atlas"),
    ],
)
def test_a_label_naming_what_is_done_answers_what_one_does(
    note: str, question: str, said: str
) -> None:
    s = Substrate()
    s.add("text", note, provenance={"source": "page.md"})
    for hops in (1, 2):
        result = answer_from_substrate(s, question, ExtractiveAnswerer(), hops=hops)
        assert said in (result.answer or ""), result.note


def test_which_way_a_label_states_a_relation() -> None:
    from substrate.asked import _relation_asked
    from substrate.extractive import _reads_backwards

    doer_asked = _relation_asked("Who leads Dana?")
    held_asked = _relation_asked("Whom does Dana lead?")
    assert doer_asked is not None and held_asked is not None
    # a label naming who does it, its value them: "Team lead", "Tech lead", "Led by"
    for line in (
        "- Team lead: Dana",
        "- Tech lead: Dana",
        "- **Led by:** Dana",
        "Team lead: Dana; Site: Oslo",
    ):
        assert _reads_backwards(doer_asked, terms("Dana"), "Ana Silva", line), line
        assert not _reads_backwards(held_asked, terms("Dana"), "Ana Silva", line), line
        assert _reads_backwards(held_asked, terms("Dana"), "Dana Berg", line.replace("Dana", "Ana"))
    # one saying what its owner does, a plural, or "Lead" alone (on a person's page, what
    # they lead: "Lead: Project Atlas"), is left as it is
    for line in ("- Leads: Dana", "- Leader of: Dana", "- Direct reports: Dana", "- Lead: Dana"):
        assert not _reads_backwards(doer_asked, terms("Dana"), "Ana Silva", line), line
    # nor does a label naming what is done rather than who does it tell a direction
    cost = _relation_asked("What does Figma cost?")
    assert cost is not None
    assert not _reads_backwards(cost, terms("Figma"), "Figma", "- Cost: 1,800 EUR a year")
    # a name on both sides, or a question of no relation, tells nothing
    assert not _reads_backwards(doer_asked, terms("Dana"), "Dana Berg", "- Tech lead: Dana Smith")
    assert _relation_asked("Which port does the billing-worker listen on in staging?") is None
    assert _relation_asked("Who is on call in week 14?") is None


def test_a_chain_answer_says_what_is_asked_before_the_description(tmp_path: Path) -> None:
    # "[[team-mobile]]" leads to the page headed "Mobile team"; the first hop alone ("owned
    # by team-mobile") says no office, and is no answer
    s = Substrate(tmp_path / "shard")
    s.add("text", "# Project Borealis\n\nBorealis is owned by [[team-mobile]].")
    s.add("text", "# Mobile team\n\nLed by Maria Okafor. The team works from the Lagos office.")
    question = "Which office does the team that owns Borealis work from?"
    chained = answer_from_substrate(s, question, ExtractiveAnswerer(), hops=2)
    assert chained.answer == (
        "Borealis is owned by team-mobile. [1] The team works from the Lagos office. [2]"
    ), chained.note
    first = pack_context(question, [next(iter(s.iter_items()))], [1.0])
    assert ExtractiveAnswerer().answer_packet(question, first) == ""


def test_a_verb_and_its_particle_are_said_by_the_word_joining_them() -> None:
    from substrate.questions import compounds_split

    assert compounds_split("Announce the failover; check the backups and the rollout.") == {
        "fail", "back", "roll"}  # fmt: skip
    assert compounds_split("Read about it throughout.") == frozenset()  # no verb before
    # things, not a verb and its particle: "How do I check out the branch?" is not about them
    assert compounds_split("The checkout service; proxy setup; a timeout.") == frozenset()
    runbook = (
        "# Runbook: database failover\n\n"
        "Do not use it for the us-east-1 cluster, which fails over automatically.\n\n"
        "1. Announce the failover in #incidents.\n2. Promote the replica.\n"
    )
    assert quoted("How do I fail over the database?", runbook) == (
        "1. Announce the failover in #incidents. 2. Promote the replica. [1]"
    )


OFFICES = (
    "# Offices\n\nThe Dublin office opens at 8:00 and closes at 19:00 on weekdays. It is closed "
    "on weekends.\nThe Seoul office opens at 9:00; on Saturdays it opens from 10:00 to 14:00."
)


def test_a_pronoun_speaks_of_the_name_of_the_sentence_before() -> None:
    assert quoted("Is the Dublin office closed on weekends?", OFFICES) == (
        "It is closed on weekends. [1]"
    )
    # neither the weekday hours nor Seoul's Saturday ones say it of Dublin (a day is when,
    # not what is asked of): a Saturday is of the weekend
    assert quoted("Is the Dublin office open on Saturdays?", OFFICES) == (
        "It is closed on weekends. [1]"
    )


def test_a_verb_saying_nothing_beyond_the_value_asked_need_not_be_said() -> None:
    context = "# Services\n\nThe indexer runs on port 7700. Jonas Weber works from Berlin."
    assert quoted("What port does the indexer listen on?", context) == (
        "The indexer runs on port 7700. [1]"
    )


def test_an_unmentioned_word_qualifying_what_the_evidence_qualifies_otherwise() -> None:
    # whether it abstained hung on how many unrelated notes the shard held
    s = Substrate()
    s.add(
        "text",
        "# Incident review: checkout outage, 2 May 2024\n\nThe checkout was down for 47 "
        "minutes.\nThe incident commander was Sara Lopez.",
    )
    for filler in ("The kitchen is on floor two.", "The gym opens at six.", "Parking is free."):
        s.add("text", filler)
    asked = extractive(s, "Who was the incident commander for the payments outage?")
    assert asked.abstained and "'payments'; the evidence tells of another outage" in asked.note
    named = extractive(s, "Who was the incident commander for the checkout outage?")
    assert named.answer == "The incident commander was Sara Lopez. [1]"


def test_a_hyphenated_name_no_note_mentions_is_not_answered_from_its_other_words() -> None:
    # "service" and the rest matched a policy well enough to quote it for "zebra-service"
    s = Substrate()
    s.add(
        "text",
        "# Access review\n\nProduction access to a tier 1 service requires approval from the "
        "lead of the team that owns it.",
    )
    s.add("text", "# route-planner\n\nThe route-planner is owned by the Fulfillment team.")
    for filler in ("The kitchen is on floor two.", "The gym opens at six.", "Parking is free."):
        s.add("text", filler)
    asked = extractive(s, "Who leads the team that owns the zebra-service?")
    assert asked.abstained and "no readable item mentions 'zebra-service'" in asked.note
    named = extractive(s, "Which team owns the route-planner?")
    assert not named.abstained and "Fulfillment" in (named.answer or "")
    # a claim checked against papers names its compound as they do not: read on its words
    assert _unknown_name("4-PBA treatment decreases stress.", frozenset({"pba"})) is None
    assert _unknown_name("The zebra-service is deployed weekly.", frozenset({"zebra"})) is None
    # a hyphenated word qualifying another is no name: the notes may say it otherwise
    unseen = frozenset({"cross", "max", "sev"})
    assert _unknown_name("Who approves cross-team changes to the database?", unseen) is None
    assert _unknown_name("What is the max-retry limit for webhooks?", unseen) is None
    assert _unknown_name("What is the deadline for a sev-2 incident?", unseen) is None
    asked = "Is the zebra-service deployed in eu-west-1?"
    assert _unknown_name(asked, frozenset({"zebra"})) == "zebra-service"


def test_an_identifier_titling_a_note_must_be_named_by_the_answer() -> None:
    # "refund-service" titles a note: a sentence of another note (the runbook's deploy step,
    # the ledger-api's rate limit) answers nothing of it
    s = Substrate()
    s.add("text", "# refund-service\n\nThe refund-service was migrated to SQS in March 2023.")
    s.add("text", "# ledger-api\n\nRate limit: 500 requests per second per client.")
    s.add("text", "# Deploy runbook\n\n1. Announce the deploy in #deploys.")
    assert extractive(s, "Is the refund-service deployed in eu-west-1?").abstained
    assert extractive(s, "What is the rate limit for the refund-service?").abstained
    migrated = extractive(s, "When was the refund-service migrated to SQS?")
    assert migrated.answer == "The refund-service was migrated to SQS in March 2023. [1]"


def test_a_list_value_under_headings_naming_the_thing_asked_answers() -> None:
    s = Substrate()
    s.add(
        "text",
        "## Ports\n\n- Production: port 8443\n- Staging: port 9443",
        provenance={"section": "billing-worker > Ports"},
    )
    s.add("text", "# ledger-api\n\nThe ledger-api listens on port 7070.")
    asked = extractive(s, "Which port does the billing-worker listen on in staging?")
    assert asked.answer == "- Staging: port 9443 [1]", asked.note


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Which database cluster does the ledger use?", "ledger-db cluster"),
        ("Where is the ledger repository?", "corvid/ledger"),
    ],
)
def test_a_word_cut_short_in_a_note_says_the_word_in_full(question: str, said: str) -> None:
    # "db", "repo", "max", "config": both had abstained, no note mentioning the full word
    s = Substrate()
    s.add(
        "text",
        "# Ledger\n\nThe ledger keeps the accounts of every customer.\n\n"
        "- Storage: PostgreSQL, on the ledger-db cluster\n- Repo: corvid/ledger",
        provenance={"source": "ledger.md"},
    )
    s.add("text", "# Billing\n\nBilling sends invoices at the end of each month.")
    assert said in (extractive(s, question).answer or "")


def test_where_a_link_leads_says_its_words_not_what_they_stand_for() -> None:
    # "db" of the link's target read as "database": the sentence a reader sees as "see
    # failover" answered which database the ledger uses
    decision = "# Use Postgres for the ledger\n\nWe will use PostgreSQL 15 for the ledger."
    consequences = (
        "# Use Postgres for the ledger\n\n## Consequences\n\n"
        "The Platform team operates the cluster; see [failover](../runbooks/db-failover.md)."
    )
    assert quoted("What database do we use for the ledger?", consequences, decision) == (
        "We will use PostgreSQL 15 for the ledger. [2]"
    )
    # its own words it says: a question after the linked note is answered by the link
    follow = "# Database\n\nIf the primary fails, follow the [runbook](runbooks/db-failover.md)."
    assert quoted("Where is the failover runbook?", follow, decision) == (
        "If the primary fails, follow the runbook. [1]"
    )


def test_a_value_is_quoted_from_a_sentence_saying_what_it_is_of() -> None:
    # each says half the question: the billing service's outage (a record, whose fields
    # would name a retry limit), a client's retry limit
    outage = SubstrateItem(
        "record",
        "2024-03-02 outage billing 47",
        payload={"date": "2024-03-02", "event": "outage", "service": "billing", "minutes": 47},
    )
    quotas = SubstrateItem(
        "text", "The client supports retry quotas, which limit the number of retries."
    )
    packet = pack_context("q", [outage, quotas], [0.9, 0.8])
    question = "What is the retry limit for the billing service?"
    assert ExtractiveAnswerer().answer_packet(question, packet) == ""
    payments = "The payments service has a retry limit of 5."
    assert quoted("What is the retry limit for the payments service?", payments) == (
        f"{payments} [1]"
    )
    # a sentence may name the value in other words ("built" of the builder)
    petrel = "MV Petrel was built in 2018 by Kvarnholm Shipyard."
    assert quoted("What is the builder of MV Petrel?", petrel) == f"{petrel} [1]"
    # every word of a short name: a setting of the metadata service is no search service's
    settings = "Settings: token, aws_session_token, metadata_service_timeout, region."
    assert quoted("What is the timeout for the search service?", settings) == ""


def test_a_sentence_saying_what_the_thing_asked_is_outranks_one_mentioning_it() -> None:
    incident = "INC-102: email-sender hit the daily limit on 2024-04-20; 3,000 emails waited."
    service = "The email-sender service sends email; the daily limit is 250,000 messages."
    assert quoted("What is the daily email limit?", incident, service) == f"{service} [2]"


def test_which_language_is_answered_by_what_it_is_written_in() -> None:
    # no note says "language": the word is the kind of answer, not a topic left unmentioned
    store = Substrate()
    store.add("text", "# indexer\n\nIt is written in Rust and listens on port 9200.")
    store.add("text", "# push-gateway\n\nIt sends push notifications to iOS and Android.")
    store.add("text", "# billing\n\nIt runs in Frankfurt and uses PagerDuty for alerts.")
    found = answer_from_substrate(
        store, "What language is the indexer written in?", ExtractiveAnswerer()
    )
    assert found.answer == "It is written in Rust and listens on port 9200. [1]"
    # a sentence saying no language of it is no answer
    for question in (
        "What language does the push-gateway use?",
        "Which language does billing use?",
    ):
        assert answer_from_substrate(store, question, ExtractiveAnswerer()).abstained, question


def test_a_frames_verb_no_note_says_is_nothing_unmentioned() -> None:
    # no note says "written": the question's verb is the frame's, "language: Go" answers it
    store = Substrate()
    store.add("text", "# ledger service\n\nThe ledger service's language is Go.")
    store.add("text", "# search service\n\nThe search service indexes the catalogue.")
    question = "What language is the ledger service written in?"
    found = answer_from_substrate(store, question, ExtractiveAnswerer())
    assert found.answer == "The ledger service's language is Go. [1]", found.note


def test_which_language_through_what_a_question_describes_takes_the_bridge() -> None:
    # "written" need not be said: the record's "language: Kotlin" says it; the incident's
    # sentence naming ledger-sync is the bridge to it, not one naming nothing
    from substrate.ingest import ingest_path

    store = Substrate()
    ingest_path(store, Path(__file__).parents[2] / "fixtures" / "handbooks" / "corvid")
    question = (
        "What language is the service that caused the duplicate invoices incident written in?"
    )
    found = answer_from_substrate(store, question, ExtractiveAnswerer(), hops=2).answer or ""
    assert found.startswith("ledger-sync sent 312 duplicate invoices") and "Kotlin" in found


def test_the_words_before_a_kind_of_thing_say_which_one_is_asked_of() -> None:
    auth = "# auth-service\n\nIt is written in Java 21 and listens on port 8080."
    ledger = "# ledger\n\nIt is written in PostgreSQL 15 and listens on port 5432."
    # no sentence says anything of a billing service: the auth service's port is no answer
    assert quoted("What port does the billing service listen on?", auth, ledger) == ""
    assert quoted("Who owns the billing service?", "It is owned by the platform team.") == ""
    # nor is it beside the ledger's, asked of the ledger service (which its notes call the
    # ledger: the kind of thing it is need not be said)
    assert quoted("What port does the ledger service listen on?", auth, ledger) == (
        "It is written in PostgreSQL 15 and listens on port 5432. [2]"
    )
    # a word that tells none of them from another ("the main database", "the two
    # databases") is not asked of; one beside it that does, is
    db = "The database listens on port 5432."
    assert quoted("What port does the main database listen on?", db) == f"{db} [1]"
    assert quoted("Which ports do the two databases listen on?", db) == f"{db} [1]"
    assert quoted("What port does the new billing service listen on?", auth, ledger) == ""
    billing = "# billing\n\nThe billing service is written in Go. It listens on port 8080."
    answer = quoted("What port does the new billing service listen on?", billing)
    assert answer.startswith("It listens on port 8080. [1]")  # "new" need not be said


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        # a record's field whose name says a length of time
        (
            "How long did the search outage last?",
            "date: 2024-05-19; event: outage; service: search; duration_min: 12.",
        ),
        # a file's location is its path
        (
            "What is the default location of the shared credentials file?",
            "The shared credentials file has a default location of ~/.aws/credentials.",
        ),
    ],
)
def test_a_value_of_the_kind_asked_is_said_in_a_record_s_field_or_a_path(
    question: str, sentence: str
) -> None:
    assert quoted(question, sentence) == f"{sentence} [1]"


def test_a_line_of_badges_answers_nothing() -> None:
    badges = (
        "[![npm version](https://img.shields.io/npm/v/ci.svg)](https://npm.im/ci) "
        "[![CI](https://github.com/npm/ci/workflows/CI/badge.svg)](https://github.com/npm/ci)"
    )
    assert quoted("What does npm ci do?", badges) == ""
    # nor do they when the package's tagline follows them in one sentence
    assert quoted("What does npm ci do?", f"{badges} The registry diff lib.") == ""


def test_a_note_saying_what_is_asked_is_quoted_over_pages_and_records_matching_more() -> None:
    # the chunks of a long page name a VPN and a gateway in every sentence; records name a
    # vpn_gateway_url; the note says what the VPN gateway is (found by a tester)
    store = Substrate()
    page = {"source": "aws/create-vpn-connection.rst"}
    for n in range(4):
        store.add(
            "text",
            f"Example {n}: the create-vpn-connection example creates a VPN connection between "
            f"the virtual private gateway and the customer gateway. The VPN gateway id is "
            f"given with --vpn-gateway-id; the VPN tunnel options name the gateway too.",
            provenance={**page, "chunk": n},
        )
    for n in range(4):
        store.add(
            "record",
            f"gpclient Connect to a VPN: gpclient connect --gateway {{{{vpn_gateway_url}}}} {n}",
            payload={"title": "gpclient", "n": n},
            provenance={"source": "tldr.jsonl", "line_start": n + 1},
        )
    store.add(
        "text",
        "New engineers get laptop access on day one. The VPN gateway is vpn.example.net.",
        provenance={"source": "team/welcome.md"},
    )
    for hops in (1, 2):
        answer = extractive_hops(store, "What is the VPN gateway?", hops)
        assert answer.startswith("The VPN gateway is vpn.example.net. ["), (hops, answer)


def extractive_hops(store: Substrate, question: str, hops: int) -> str:
    return answer_from_substrate(store, question, ExtractiveAnswerer(), hops=hops).answer or ""


def test_how_to_do_one_thing_is_not_answered_by_how_to_do_another() -> None:
    install = "To install a Python version, run `pyenv install` with the version's name."
    create = "`pyenv virtualenv 3.12 venv` creates a virtualenv of Python 3.12 in pyenv's folder."
    # the opposite, in any form ("installed"), and another task of the same words
    question = "How do I uninstall a Python version with pyenv?"
    assert quoted(question, install) == ""
    assert quoted(question, "Versions are installed under ~/.pyenv/versions by pyenv.") == ""
    assert quoted(question, create) == ""
    uninstall = "To uninstall a Python version, run `pyenv uninstall` with its name."
    assert quoted(question, install, uninstall) == f"{uninstall} [2]"
    # a vague verb names no task
    assert quoted("How do I get a Python version with pyenv?", install) == f"{install} [1]"
    # asked yes or no, the opposite answers ("no")
    dependent = "The cache is strongly dependent on the database."
    assert quoted("Is the cache independent of the database?", dependent) == f"{dependent} [1]"


def test_a_figure_s_description_says_what_a_badge_does_not() -> None:
    figure = "![Architecture: checkout calls billing, billing calls the ledger](img/arch.png)"
    assert quoted("What does checkout call?", figure) == f"{figure} [1]"


def test_a_record_of_the_owner_asked_of_answers_though_another_s_value_names_it() -> None:
    # "owner: billing-team" of the billing service names no other database: the column of
    # the value asked for tells no record apart (found by a reviewer)
    def record(payload: dict[str, object], source: str) -> SubstrateItem:
        text = " ".join(str(v) for v in payload.values())
        return SubstrateItem("record", text, payload=payload, provenance={"source": source})

    billing_db = {"name": "pg-main-01", "used_by": "billing", "owner": "dba-team"}
    checkout_db = {"name": "mysql-shop-02", "used_by": "checkout", "backup_hours": 24}
    services = {"name": "billing", "owner": "billing-team"}
    items = [
        record(billing_db, "billing-db.json"),
        record(checkout_db, "checkout-db.json"),
        record(services, "services.jsonl"),
    ]
    packet = pack_context("q", items, [0.9, 0.8, 0.7])
    answer = ExtractiveAnswerer().answer_packet
    assert "dba-team" in answer("Who is the owner of the billing database?", packet)
    # a record names the value asked for by its field, in part ("backup_hours")
    assert "24" in answer("What is the backup interval of the checkout database?", packet)


@pytest.mark.parametrize("question", ["What is   for billing?", "Who is \t \t for billing?"])
def test_a_question_with_no_value_before_its_owner_is_read_without_failing(question: str) -> None:
    assert quoted(question, "The billing service retries 5 times.") in (
        "",
        "The billing service retries 5 times. [1]",
    )


def test_the_default_asked_for_is_a_value_the_sentence_gives() -> None:
    # "Returns the default watermark" names the default without giving it: the sentence
    # after it gives the value, and is quoted with it
    text = (
        "### getDefaultWatermark(objectMode)\n\nReturns the default watermark used by streams.\n"
        "Defaults to `65536` (64 KiB), or `16` for `objectMode`.\n"
    )
    packet = ContextPacket(task="default watermark", items=[SubstrateItem("text", text)])
    answer = ExtractiveAnswerer().answer_packet("What is the default watermark of streams?", packet)
    assert answer == (
        "Returns the default watermark used by streams. Defaults to `65536` (64 KiB), or `16` "
        "for `objectMode`. [1]"
    )
    # a value in words answers it too
    for said, asked in [
        ("The default branch is main.", "What is the default branch?"),
        ("The default log level is INFO.", "What is the default log level?"),
        ("The request timeout defaults to thirty seconds.", "What is the default request timeout?"),
        ("By default the theme is dark.", "What is the default theme?"),
    ]:
        packet = ContextPacket(task="default", items=[SubstrateItem("text", said)])
        assert ExtractiveAnswerer().answer_packet(asked, packet) == f"{said} [1]", asked
    # a sentence naming a default without any value does not answer what it is
    named = "Note that logging is suppressed by default for all the services we run."
    packet = ContextPacket(task="default logging", items=[SubstrateItem("text", named)])
    assert ExtractiveAnswerer().answer_packet("What is the default log level?", packet) == ""


def test_a_long_sentence_is_quoted_where_it_says_what_is_asked() -> None:
    # cut from its start, the quote lost "defaults to 120 seconds" at its end
    sentence = (
        "The http answerer waits for the endpoint that the answerer table of the settings "
        "file names, an OpenAI-compatible chat completions endpoint that may run locally or "
        "remotely behind a proxy of the user's choosing, for a number of seconds that the "
        "timeout key or the command line flag sets, and when neither is given the answerer "
        "timeout defaults to 120 seconds."
    )
    packet = ContextPacket(task="answerer timeout", items=[SubstrateItem("text", sentence)])
    answer = ExtractiveAnswerer().answer_packet("What is the default answerer timeout?", packet)
    assert answer.startswith("… ") and answer.endswith("timeout defaults to 120 seconds. [1]")
    assert len(answer) <= 300 + len(" [1]")


def test_a_log_is_quoted_where_it_says_what_is_asked(tmp_path: Path) -> None:
    # a log's lines have no sentence punctuation: read as one long "sentence", it was quoted
    # from its start, cited lines 1-5 and said nothing of line 16's error, "grounded" all the
    # same
    lines = [f"2024-05-01 12:00:{n:02d} INFO worker {n % 4} served request {n}" for n in range(20)]
    lines[15] = "2024-05-01 12:00:15 ERROR disk quota exceeded on volume /srv/data"
    (tmp_path / "app.log").write_text("\n".join(lines) + "\n")
    store = Substrate()
    ingest_path(store, tmp_path, as_text=["*.log"])
    found = answer_from_substrate(
        store, "Which volume exceeded its disk quota?", ExtractiveAnswerer()
    )
    # each line a record of its own: the line that says it, quoted alone
    assert found.answer == "2024-05-01 12:00:15 ERROR disk quota exceeded on volume /srv/data [1]"
    # and a claim stitched from several lines is no line's (one "sentence" held every number)
    from substrate.factuality import check_factuality

    stitched = check_factuality(store, "The disk quota on volume /srv/data was exceeded 19 times.")
    assert [v.supported for v in stitched.verdicts] == [False]


@pytest.mark.parametrize("gap", range(240, 285, 5))
def test_a_quote_cut_from_a_long_text_keeps_the_terms_it_was_chosen_for(gap: int) -> None:
    # the stretch was chosen from its first word asked of, then quoted from four words before
    # it: the word asked of at its end fell off
    before = " ".join(f"word{n}" for n in range(60))
    between = " ".join(f"fill{n}" for n in range(60))[:gap]
    text = f"{before} zanzibar {between} quokka " + "tail " * 30
    quote = stretch_saying(text, terms("zanzibar quokka"), 300)
    assert quote.startswith("…") and "zanzibar" in quote and "quokka" in quote
    assert stretch_saying(text, terms("word3"), 300) == truncate(text, 300)  # said at its start


@pytest.mark.parametrize(
    ("question", "framed"),
    [
        ("What is the default watermark?", True),
        ("What is cjpeg's default quality setting?", True),
        ("Which default port does it use?", True),
        ("What is the default behaviour of pip?", False),  # a way of acting, not a value
        ("How do I reset the defaults?", False),
    ],
)
def test_which_questions_ask_for_a_default_value(question: str, framed: bool) -> None:
    from substrate.questions import frame_of, frame_phrases

    assert ("default" in frame_of(question)) is framed
    if framed:
        assert "the default" in frame_phrases(question)


def test_a_product_named_in_humps_is_what_the_question_asks_of() -> None:
    # "PostgreSQL" is a name, as "Tokyo" is: a sentence about another program's TCP port
    # does not answer it
    node = "Use server.listen(port) for TCP servers; it listens on the port by default."
    question = "What TCP port does PostgreSQL listen on by default?"
    packet = ContextPacket(task="tcp port", items=[SubstrateItem("text", node)])
    assert ExtractiveAnswerer().answer_packet(question, packet) == ""
    pg = "PostgreSQL listens on TCP port 5432 by default."
    packet = ContextPacket(task="tcp port", items=[SubstrateItem("text", pg)])
    assert ExtractiveAnswerer().answer_packet(question, packet) == f"{pg} [1]"


@pytest.mark.parametrize("symbol", ["RhoA", "PrP", "HeLa", "IgG", "DNA", "IL-18"])
def test_a_symbol_is_no_product_name(symbol: str) -> None:
    from substrate.questions import product_terms

    assert not product_terms(f"Is {symbol} raised in these cells?")
    assert product_terms("Does NumPy use OpenSSH?") == {"numpi", "openssh"}


@pytest.mark.parametrize(
    "question",
    [
        "Wer ist für die Straßenreinigung zuständig?",
        "Wann beginnt die Straßenreinigung?",
    ],
)
def test_a_question_opening_with_another_language_s_question_word_is_answered(
    question: str,
) -> None:
    # "Wer" asks, as "who" does: no note says it, and its weight held the answer back
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    store.add("text", "Für die Straßenreinigung ist das Ordnungsamt München zuständig.")
    store.add("text", "Die Straßenreinigung beginnt jeden Montag um 6 Uhr.")
    store.add("text", "Der Wochenmarkt findet samstags auf dem Marktplatz statt.")
    answer = answer_from_substrate(store, question, ExtractiveAnswerer())
    assert answer.answer is not None and "Straßenreinigung" in answer.answer


def test_another_language_s_function_words_do_not_count_as_a_topic_mentioned() -> None:
    # "es", "el", "del" are in every Spanish note: counted as said, they hid that no note
    # mentions marketing, and another responsibility was quoted at confidence 0.83
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    store.add("text", "El responsable es José Peña. La contraseña se cambia cada mes.")
    store.add("text", "Die Sicherungen werden 14 Tage aufbewahrt. Danach werden sie gelöscht.")
    marketing = answer_from_substrate(
        store, "¿Quién es el responsable del marketing?", ExtractiveAnswerer()
    )
    assert marketing.abstained and "no readable item mentions 'marketing'" in marketing.note
    kept = answer_from_substrate(
        store, "Wie lange werden die Sicherungen aufbewahrt?", ExtractiveAnswerer()
    )
    assert kept.answer is not None and "14 Tage" in kept.answer


@pytest.mark.parametrize(
    ("note", "question"),
    [
        ("Il server di backup si trova a Milano.", "Dov'è il server di backup?"),
        ("Il server di backup si trova a Milano.", "Dove si trova il server di backup?"),
        (
            "Les sauvegardes sont conservées pendant 14 jours.",
            "Combien de temps les sauvegardes sont-elles conservées ?",
        ),
        ("Os backups levam 3 horas para terminar.", "Quanto tempo levam os backups?"),
        ("De back-up start om 02:00 uur.", "Hoe laat start de back-up?"),
    ],
)
def test_a_question_s_frame_in_another_language_is_no_topic_unmentioned(
    note: str, question: str
) -> None:
    # "temps", "tempo", "laat" (how long, what time) and "Dov'è" were read as the topic, and
    # the answer stored was abstained on
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    for each in (
        "Il server di backup si trova a Milano.",
        "Les sauvegardes sont conservées pendant 14 jours.",
        "Os backups levam 3 horas para terminar.",
        "De back-up start om 02:00 uur.",
    ):
        store.add("text", each)
    answer = answer_from_substrate(store, question, ExtractiveAnswerer())
    assert answer.answer is not None and note in answer.answer, answer.note


@pytest.mark.parametrize(
    "line", ["- **Location**: Lisbon", "- **Location:** Lisbon", "Location:: Lisbon"]
)
def test_a_label_in_bold_or_a_dataview_field_states_its_value(line: str) -> None:
    # as person notes in Obsidian write them; "Location: Lisbon" was answered, these not
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    store.add("text", f"{line}\n", provenance={"path": "/v/priya.md", "section": "Priya Shah"})
    store.add("text", "- Location: Oslo\n", provenance={"path": "/v/kai.md", "section": "Kai Berg"})
    answer = answer_from_substrate(store, "Where is Priya Shah based?", ExtractiveAnswerer())
    assert answer.answer is not None and "Lisbon" in answer.answer and "Oslo" not in answer.answer


@pytest.mark.parametrize(
    "question",
    ["How much did the Fujifilm X100V cost?", "How much did I pay for the Fujifilm X100V?"],
)
def test_how_much_something_cost_is_answered_by_the_sum_paid_for_it(question: str) -> None:
    # the note says what was paid, not the verb "cost": it asked for a sentence saying it
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    store.add("text", "- Bought a Fujifilm X100V camera for 1,399 EUR for the Osaka trip.")
    store.add("text", "- Reviewed pull requests and watered the plants.")
    answer = answer_from_substrate(store, question, ExtractiveAnswerer())
    assert answer.answer is not None and "1,399 EUR" in answer.answer


def test_what_a_thing_costs_is_answered_by_its_price() -> None:
    # a table's price column: "no readable item mentions 'cost'"
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    for sku, product, price in (("P-103", "Steel Pan", "1,050.00"), ("P-100", "Kettle", "24.99")):
        payload = {"sku": sku, "product": product, "price": price, "currency": "GBP"}
        store.add("record", f"{sku} {product} {price} GBP", payload=payload)
    asked = "How much does the Steel Pan cost?"
    answer = answer_from_substrate(store, asked, ExtractiveAnswerer())
    assert (
        answer.answer is not None and "1,050.00" in answer.answer and "24.99" not in answer.answer
    )


def test_a_cost_says_no_one_bought_it() -> None:
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    store.add("text", "The laptop repair cost 180 EUR.")
    assert (
        answer_from_substrate(store, "Who bought the laptop repair?", ExtractiveAnswerer()).answer
        is None
    )


def _incidents() -> list[SubstrateItem]:
    """Graph facts from an incident to the lead of the team owning what it hit, and another
    team's lead first (the words of the question, but not its incident)."""
    facts = [
        [["query-router", "owned_by", "Search team"], ["Search team", "led_by", "Bob Ortiz"]],
        [["INC-101", "affected", "billing-api"], ["INC-101", "severity", "sev1"]],
        [["billing-api", "owned_by", "Payments team"], ["Payments team", "led_by", "Alice Chen"]],
    ]
    return [SubstrateItem("graph", "", payload={"triples": triples}) for triples in facts]


def test_an_answer_that_says_nothing_of_the_identifier_asked_about_is_withheld() -> None:
    """ "Search team led_by Bob Ortiz." answered a question about INC-101 at confidence 0.99:
    the chain from the incident to a team is not one the quotes show."""
    question = "Who leads the team that owns the service that had incident INC-101?"
    packet = pack_context(question, _incidents(), [0.9, 0.8, 0.7])
    assert ExtractiveAnswerer().answer_packet(question, packet) == ""


def test_a_question_naming_an_identifier_is_answered_where_the_quote_names_it() -> None:
    question = "Which service did INC-101 affect?"
    packet = pack_context(question, _incidents(), [0.9, 0.8, 0.7])
    assert "INC-101 affected billing-api" in ExtractiveAnswerer().answer_packet(question, packet)


def test_a_japanese_question_is_answered_from_the_sentence_saying_it() -> None:
    # a run of Japanese, cut into pairs of characters, read as its own opposite ("un" + run)
    store = Substrate()
    store.add("text", "東京の倉庫は毎日九時に開きます。")
    store.add("text", "The Osaka office closes at six.")
    result = answer_from_substrate(store, "倉庫は何時に開きますか？", ExtractiveAnswerer())
    assert not result.abstained and result.answer == "東京の倉庫は毎日九時に開きます。 [1]"


def test_a_merge_left_unresolved_is_quoted_side_by_side_without_its_marks() -> None:
    # "<<<<<<< HEAD The gamma server listens on port 8080." was the answer, 9090 dropped
    s = Substrate()
    s.add(
        "text",
        "# Gamma\n\n<<<<<<< HEAD\nThe gamma server listens on port 8080.\n=======\n"
        "The gamma server listens on port 9090.\n>>>>>>> feature\n",
    )
    answer = extractive(s, "What port does the gamma server listen on?").answer or ""
    assert answer == (
        "The gamma server listens on port 8080. [1] The gamma server listens on port 9090. [1]"
    )


def test_a_why_question_is_answered_by_a_sentence_giving_a_reason() -> None:
    # "Why are security reviews required?" quoted the rule, which gives none, at 1.00
    _abstains_until_told(
        "Why are security reviews required?",
        ("# Policies\n\nSecurity reviews are required for every new vendor.\n",),
        "# Vendors\n\nSecurity reviews are required because vendors hold customer data.\n",
        "because vendors hold customer data",
    )


def test_a_value_asked_for_is_not_answered_by_an_example() -> None:
    # under a FAQ heading that matched the question, the example was quoted, not the value
    s = Substrate()
    s.add(
        "text",
        "# FAQ\n\n## How many retries does the client make?\n\nFor example, you might set "
        "retries to 3 in a test. The production client makes 5 retries.\n",
    )
    answer = extractive(s, "How many retries does the client make?").answer
    assert answer == "The production client makes 5 retries. [1]"


def test_who_does_something_is_answered_by_a_sentence_of_what_it_is_done_to() -> None:
    # "Who approves budget requests?" quoted who approves production access requests
    _abstains_until_told(
        "Who approves budget requests?",
        (
            "# People\n\nCarol Diaz approves production access requests.\n",
            "# Budget\n\nThe 2025 infrastructure budget was $120,000.\n",
        ),
        "# Finance\n\nDan Ito approves budget requests.\n",
        "Dan Ito approves budget requests.",
    )
