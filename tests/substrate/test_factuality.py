"""check_factuality / FactualityReceipt / ClaimVerdict."""

from __future__ import annotations

from typing import Any

import pytest

from substrate.answer import strip_citations
from substrate.claims import quotes_apart, sentence_claims, unwrapped
from substrate.errors import InvalidInputError
from substrate.factuality import (
    ClaimVerdict,
    FactualityReceipt,
    check_factuality,
    content_overlap,
)
from substrate.item import SubstrateItem
from substrate.store import Substrate


@pytest.fixture
def shard(lexical_search: list[str]) -> Substrate:
    s = Substrate()
    s.add(
        "text",
        "Refunds are given within 30 days of purchase.",
        id="r",
        provenance={"source": "r.md"},
    )
    s.add("text", "The warehouse ships orders every Monday.", id="w")
    s.add("text", "Gift cards are valid for ten years.", id="g", scope="ops")
    s.queries = lexical_search  # type: ignore[attr-defined]
    return s


def test_claims_are_sentences_of_two_words_or_more() -> None:
    assert sentence_claims("Yes. Refunds take 30 days! Shipping is free.\nOk") == [
        "Refunds take 30 days!",
        "Shipping is free.",
    ]
    assert sentence_claims("") == []


def test_a_question_or_a_short_heading_is_no_claim() -> None:
    from substrate.claims import unchecked_sentences

    text = (
        '## Deploys\n\nIs shipping free? Deploys run daily. Was it "done"?\n# Ports 8443\n'
        "We use LaunchDarkly, right?\n## Secrets were moved to Vault\n"
        'The FAQ answers "Why Kafka?"\nMust we deploy on Fridays, ok?\n'
    )
    assert sentence_claims(text) == [
        "Deploys run daily.",
        "We use LaunchDarkly.",  # a statement, asked to be confirmed
        "Secrets were moved to Vault",  # a heading that says something
        'The FAQ answers "Why Kafka?"',
    ]
    assert unchecked_sentences(text) == [
        "## Deploys",
        "Is shipping free?",
        'Was it "done"?',
        "# Ports 8443",
        "Must we deploy on Fridays, ok?",  # a question that asks, "ok?" tagged on or not
    ]


def test_a_sentence_wrapped_over_lines_is_one_claim() -> None:
    text = (
        "The on-call engineer acknowledges a page\nwithin fifteen minutes. Deploys run every\n"
        "weekday at 14:00 UTC for all the services [1]\nfrom the main branch.\n"
        "Steps for the on-call engineer of the week\n1. Page the engineer\n- then wait\n[2]\n"
        "Sources:\nrunbook.md\n[1] (runbook.md, id 53ca48a456d44017)\nrollbacks need no approval"
    )
    assert sentence_claims(text) == [
        "The on-call engineer acknowledges a page within fifteen minutes.",
        "Deploys run every weekday at 14:00 UTC for all the services [1] from the main branch.",
        "Steps for the on-call engineer of the week",
        "Page the engineer",
        "- then wait",
        "[1] (runbook.md, id 53ca48a456d44017)",
        "rollbacks need no approval",
    ]


def test_citations_glued_to_a_full_stop_belong_to_its_sentence() -> None:
    from substrate.factuality import _cited_claims

    assert _cited_claims("Refunds take 30 days.[1] Deploys run at noon.[2]", 2) == [
        ("Refunds take 30 days.", [1], []),
        ("Deploys run at noon.", [2], []),
    ]
    # "2." that ends no sentence stays where it is
    assert _cited_claims("Version 2.[1] is current.", 2) == [("Version 2. is current.", [1], [])]


def test_content_overlap() -> None:
    assert content_overlap("Refunds are given within 30 days", "refund within 30 days")
    assert not content_overlap("cats", "refund within 30 days")
    assert not content_overlap("anything", "the of and")
    assert not content_overlap("the moon rises at night", "The moon is cheese.")
    assert content_overlap("moon made of cheese", "The moon is cheese.")


def test_a_change_away_from_something_does_not_support_using_it() -> None:
    moved = "Background jobs move from RabbitMQ to Amazon SQS."
    assert not content_overlap(moved, "We use RabbitMQ for background jobs.")
    assert content_overlap(moved, "Background jobs use Amazon SQS.")
    assert content_overlap(moved, "Background jobs moved from RabbitMQ to Amazon SQS.")
    replaced = "The cron server was replaced by a scheduled workflow in 2023."
    assert not content_overlap(replaced, "The cron server runs the nightly jobs.")
    assert not content_overlap("We replaced Jenkins with GitHub Actions.", "We build with Jenkins.")
    # a change of something else says nothing against the claim, nor one the claim tells of
    assert content_overlap(
        "In 2021 we migrated the billing database from MySQL to Postgres.",
        "We migrated the billing database in 2021.",
    )
    assert content_overlap(moved, "Background jobs moved away from RabbitMQ.")
    assert content_overlap("We replaced Jenkins with GitHub Actions.", "Jenkins was replaced.")
    kubernetes = "The billing service runs on Kubernetes and its old queue was replaced by SQS."
    assert content_overlap(kubernetes, "The billing service runs on Kubernetes.")
    review = "Changes from the security review were applied to the auth service."
    assert content_overlap(review, "The security review findings were applied.")
    # what is taken is read whole ("the archive bucket", not "the")
    backups = "Nightly backups are moved from the hot bucket to the archive bucket."
    assert content_overlap(backups, "Nightly backups end up in the archive bucket.")
    # a change word alone in the claim is no change it tells of; a comma does not hide one
    assert not content_overlap(moved, "Change requests for background jobs use RabbitMQ.")
    later = "Background jobs moved, in 2023, from RabbitMQ to Amazon SQS."
    assert not content_overlap(later, "Background jobs use RabbitMQ.")
    # what a choice passes over ("replacing", "instead of", "rather than") is not used either
    chosen = "We will use CockroachDB for the ledger, replacing PostgreSQL 15, to get writes."
    assert not content_overlap(chosen, "We use PostgreSQL 15 for the ledger.")
    assert content_overlap(chosen, "We use CockroachDB for the ledger.")
    assert content_overlap(chosen, "We use CockroachDB instead of PostgreSQL for the ledger.")
    assert not content_overlap("Run migrations locally instead of in CI.", "Run migrations in CI.")
    # a word the choice says too is no thing passed over, nor what the sentence goes on with
    alerts = "Alerts go to PagerDuty instead of email alerts."
    assert content_overlap(alerts, "Alerts go to PagerDuty.")
    rebase = "Prefer rebase rather than merge for small fixes."
    assert content_overlap(rebase, "Prefer rebase for small fixes.")
    assert not content_overlap(rebase, "Prefer merge for small fixes.")
    kafka = "We use Kafka instead of RabbitMQ for event streaming."
    assert content_overlap(kafka, "Kafka is used for event streaming.")
    # a list of names passed over is passed over whole
    listed = "We will use CockroachDB for the ledger, instead of MySQL and MongoDB."
    assert not content_overlap(listed, "The ledger uses MongoDB.")
    metrics = "Metrics use Prometheus instead of Datadog and New Relic."
    assert not content_overlap(metrics, "Metrics use New Relic.")
    assert content_overlap("We use Kafka instead of RabbitMQ and it works well.", "It works well.")
    assert content_overlap(
        "We chose Postgres instead of MySQL and Redis caches sessions.", "Redis caches sessions."
    )
    # what replaces the thing is chosen, not passed over
    jenkins = "The team is replacing Jenkins with GitHub Actions for CI."
    assert content_overlap(jenkins, "CI runs on GitHub Actions.")


def test_a_question_supports_no_claim() -> None:
    claim = "The ledger listens on port 9443."
    assert not content_overlap("Which port does the ledger listen on: is it 8443 or 9443?", claim)
    assert content_overlap("Is it 8443? The ledger listens on port 9443 now.", claim)


def test_receipt_marks_supported_and_unsupported(shard: Substrate) -> None:
    receipt = check_factuality(
        shard, "Refunds are given within 30 days [1]. The moon is made of cheese."
    )
    assert [v.supported for v in receipt.verdicts] == [True, False]
    assert receipt.verdicts[0].claim == "Refunds are given within 30 days."
    assert receipt.verdicts[0].citations == [
        {
            "id": "r",
            "kind": "text",
            "source": "r.md",
            "score": 1.0,
            "line_start": None,
            "line_end": None,
        }
    ]
    assert receipt.grounded_fraction == 0.5
    assert [v.claim for v in receipt.unsupported()] == ["The moon is made of cheese."]
    assert not receipt.is_grounded() and receipt.is_grounded(0.5)
    d = receipt.as_dict()
    assert d["n_claims"] == 2 and d["n_unsupported"] == 1
    assert set(d["claims"][0]) == {"claim", "supported", "score", "citations", "nearest"}
    # citation markers never reach the search
    assert all("[1]" not in q for q in shard.queries)  # type: ignore[attr-defined]


def test_a_graph_item_supports_its_facts_as_the_answerer_reads_them() -> None:
    triples = [["Marta", "manages", "Jonas"], ["Jonas", "works in", "Lyon"]]
    store = Substrate()  # the real ranking, which reads a payload's words
    store.add("graph", "org chart", id="kg", payload={"triples": triples})
    store.add("text", "Marta and Jonas met in Lyon.", id="t")
    receipt = check_factuality(store, "Marta manages Jonas. Jonas works in Lyon.")
    assert [v.supported for v in receipt.verdicts] == [True, True]
    assert all("kg" in {c["id"] for c in v.citations} for v in receipt.verdicts)


def test_a_source_saying_more_of_the_claim_with_another_value_outweighs_a_looser_one() -> None:
    store = Substrate()
    policy = {"title": "Refund policy"}
    store.add("text", "Refunds for defective items take 14 days.", id="defective",
              payload=policy, provenance={"section": "Defective items"})  # fmt: skip
    store.add("text", "Other items are refunded within 30 days of delivery.", id="other",
              payload=policy, provenance={"section": "Other items"})  # fmt: skip
    claims = [
        "Refunds for defective items take 30 days.",  # the other section's figure
        "Refunds for defective items take 14 days.",
        "Other items are refunded within 30 days.",
    ]
    receipt = check_factuality(store, " ".join(claims))
    assert [v.supported for v in receipt.verdicts] == [False, True, True]
    assert [c["id"] for c in receipt.verdicts[1].citations] == ["defective"]
    assert [c["id"] for c in receipt.verdicts[2].citations] == ["other"]


def test_a_claim_s_sources_are_read_once_to_back_it_and_weigh_it() -> None:
    # the weighing across sources reads what backing them read: called otherwise, the cache
    # missed every time, and checking an answer took half as long again
    from substrate import factuality

    store = Substrate()
    store.add("text", "Refunds for defective items take 14 days.", id="defective")
    store.add("text", "Other items are refunded within 30 days of delivery.", id="other")
    factuality._readings.cache_clear()
    check_factuality(store, "Refunds for defective items take 14 days.")
    info = factuality._readings.cache_info()
    assert info.hits >= info.misses > 0


_ROW = "id: 2; name: Globex; country: France; plan: pro; MRR: 3400."
_PRODUCT = "sku: P-100; product: Blue Kettle; price: 24.99; currency: EUR; stock: 120."


@pytest.mark.parametrize(
    ("row", "claim", "said"),
    [
        (_ROW, "Globex is on the pro plan.", True),
        (_ROW, "Globex has an MRR of 3400.", True),
        (_ROW, "Globex is on the enterprise plan.", False),  # its plan is pro
        (_ROW, "Initech is on the pro plan.", False),  # another customer
        (_ROW, "The MRR of customer Globex is 3400.", True),  # a word the row has not
        (_ROW, "The customer with id 2 is Globex.", True),
        ("Level: SEV2; Pages: the on-call; Update: hourly.", "SEV3 is the level.", False),
        ("Level: SEV2; Pages: the on-call; Update: hourly.", "SEV2 pages the on-call.", True),
        # a word of several columns' names: the value of one of them says it
        (
            "team: Payments; lead: Zoë Müller; on-call lead: Raj Patel.",
            "Raj Patel is the on-call lead of Payments.",
            True,
        ),
        (
            "host: db1; port: 5432; backup host: db2; backup port: 5433.",
            "The backup port of db2 is 5433.",
            True,
        ),
        # a price said with "costs": the price column's number, not the stock's
        (_PRODUCT, "The Blue Kettle costs 24.99 EUR.", True),
        (_PRODUCT, "The Blue Kettle costs 24.99.", True),
        (_PRODUCT, "The Blue Kettle costs 120 EUR.", False),  # its stock
        (_PRODUCT, "The Blue Kettle sells for 120 EUR.", False),
        (_PRODUCT, "The Blue Kettle has 120 in stock.", True),
        # only a column named "price" is said with "costs": another column is itself
        ("product: Pan; cost: 12.00; price: 24.99.", "The price of the Pan is 12.00.", False),
        ("product: Pan; cost: 12.00; price: 24.99.", "The Pan costs 12.00.", True),
        ("product: Pan; shipping fee: 4.99; price: 20.", "The Pan costs 4.99.", False),
        ("product: Milk; sell by: 2025-01-01; price: 2.", "The price of the Milk is 2025.", False),
        # an empty cell: the row quoted whole says it; a claim of a value does not
        ("product: Kettle; price: 25; comment: .", "product: Kettle; price: 25; comment: .", True),
        ("product: Kettle; price: 25; comment: .", "product: Kettle; price: 25; comment:.", True),
        ("product: Kettle; price: 25; comment: .", "product: Kettle; comment: broken.", False),
    ],
)
def test_a_row_says_a_claim_it_names_the_values_of(row: str, claim: str, said: bool) -> None:
    assert content_overlap(row, claim) is said


def test_a_list_item_supports_a_claim_about_its_heading() -> None:
    note = "# Marco Bianchi\n\n- Sponsor of Atlas.\n- Based in Milan."
    assert content_overlap(note, "Marco Bianchi is based in Milan.")
    assert content_overlap(note, "Marco Bianchi: Based in Milan.")  # as ask quotes it
    assert not content_overlap(note, "Marco Bianchi is based in Lisbon.")
    assert not content_overlap(note, "Priya Raman is based in Milan.")


@pytest.mark.parametrize(
    "note",
    [
        "# ledger-api\n\nIt is owned by the [Platform team](platform-team.md).",
        "# ledger-api\n\nIt is owned by the [[platform-team|Platform team]].",
    ],
)
def test_a_sentence_is_read_with_its_links_as_a_reader_sees_them(note: str) -> None:
    # ask quotes it so; the link's file name had read as another service's name
    assert content_overlap(note, "ledger-api: It is owned by the Platform team.")
    assert not content_overlap(note, "ledger-api: It is owned by the Payments team.")


def test_a_claim_may_copy_a_link_or_its_address_as_written() -> None:
    note = "Bugs go to [the tracker](https://jira.example.com/LEDGER)."
    assert content_overlap(note, note)
    assert content_overlap(note, "Bugs go to https://jira.example.com/LEDGER.")
    assert content_overlap(note, "Bugs go to the tracker.")


@pytest.mark.parametrize(
    ("note", "claim"),
    [
        ("Refunds are handled by [Dana](people/oskar-brandt.md).", "Refunds are handled by Oskar."),
        ("The limit is [10 requests](limits-50.md) per second.", "The limit is 50 requests."),
        ("It is owned by the [Platform team](payments-team.md).", "It is owned by Payments."),
    ],
)
def test_where_a_link_leads_supports_no_other_claim(note: str, claim: str) -> None:
    assert not content_overlap(note, claim)


def test_a_later_chunk_s_list_item_is_an_entry_of_its_section_s_heading() -> None:
    from substrate.context.packet import headed_text

    chunk = SubstrateItem(
        "text",
        "- Worked on the ledger.\n- Based in Milan.",  # a section's second chunk: no heading
        provenance={"section": "People > Marco Bianchi", "chunk": 1},
    )
    assert not content_overlap(chunk.text, "Marco Bianchi: Based in Milan.")
    assert content_overlap(headed_text(chunk), "Marco Bianchi: Based in Milan.")
    assert headed_text(SubstrateItem("text", "# Own\n\n- x y", provenance={"section": "S"})) == (
        "# Own\n\n- x y"  # a chunk opening with its heading keeps it
    )


def test_a_sentence_under_a_person_s_heading_says_a_claim_about_them() -> None:
    claim = "Tomasz Wieczorek works from the Gdańsk office."
    note = (
        "### Tomasz Wieczorek\nEngineering lead since 2021. Works from the Gdańsk office.\n\n"
        "### Aisha Okafor\nSite reliability engineer. Works remotely from Lagos."
    )
    assert content_overlap(note, claim)
    assert not content_overlap(note, claim.replace("Tomasz Wieczorek", "Aisha Okafor"))
    assert not content_overlap(note, "Tomasz Wieczorek works remotely from Lagos.")
    # a sentence with a subject of its own is that subject's, not the heading's
    for other in ("The team", "Aisha Okafor", "Marketing", "Most of his reports"):
        said = f"### Tomasz Wieczorek\nEngineering lead. {other} works from the Gdańsk office."
        assert not content_overlap(said, claim), other


def test_scopes_hide_evidence(shard: Substrate) -> None:
    text = "Gift cards are valid for ten years."
    assert check_factuality(shard, text).grounded_fraction == 1.0
    hidden = check_factuality(shard, text, scopes={"local"})
    assert hidden.grounded_fraction == 0.0 and hidden.verdicts[0].citations == []


def test_min_score_and_custom_hooks(shard: Substrate) -> None:
    strict = check_factuality(shard, "Refunds are given within 30 days.", min_score=1.1)
    assert not strict.verdicts[0].supported and strict.verdicts[0].score == 1.0
    custom = check_factuality(
        shard,
        "anything at all",
        extract=lambda text: ["refunds given"],
        corroborates=lambda evidence, claim: "30 days" in evidence,
    )
    assert custom.verdicts[0].supported
    with pytest.raises(InvalidInputError):
        check_factuality(shard, "x y", k=0)


def test_empty_answer_is_vacuously_grounded() -> None:
    receipt = FactualityReceipt("")
    assert receipt.grounded_fraction == 1.0 and receipt.is_grounded()
    verdict = ClaimVerdict("c", False, 0.0)
    assert verdict.citations == []


def test_real_engine_factuality(tmp_path: Any) -> None:
    pytest.importorskip("substrate.search.engine")
    s = Substrate(tmp_path / "shard")
    s.add("text", "Refunds are given within 30 days of purchase.")
    s.add("text", "The warehouse ships orders every Monday.")
    s.save()
    receipt = check_factuality(s, "Refunds are given within 30 days. Pigs can fly over Mars.")
    assert [v.supported for v in receipt.verdicts] == [True, False]
    assert [v.nearest for v in receipt.verdicts] == [None, None]  # nothing near the pigs
    (wrong,) = check_factuality(s, "Refunds are given within 90 days.").verdicts
    assert not wrong.supported and wrong.citations == []
    assert wrong.nearest is not None and wrong.nearest["source"] is None
    assert s.get(wrong.nearest["id"]).text.startswith("Refunds")  # type: ignore[union-attr]


def test_a_claim_with_a_number_the_evidence_contradicts_is_not_supported() -> None:
    from substrate.factuality import content_overlap

    evidence = "The zebra protocol listens on port 4242 by default."
    assert content_overlap(evidence, "The zebra protocol uses port 4242.")
    assert not content_overlap(evidence, "The zebra protocol uses port 9999.")
    assert not content_overlap("Refunds take 5 business days.", "Refunds take 50 business days.")


def test_a_number_is_the_same_with_or_without_thousands_separators() -> None:
    evidence = "The standby database costs 4,200 EUR per year."
    assert content_overlap(evidence, "The standby database costs 4200 EUR per year.")
    assert not content_overlap(evidence, "The standby database costs 4300 EUR per year.")
    assert content_overlap("We keep 12000 snapshots.", "We keep 12,000 snapshots.")
    # a group of a number is no number said: 4,200 EUR is not 200 EUR, nor 12,000 twelve
    assert not content_overlap(evidence, "The standby database costs 200 EUR per year.")
    assert not content_overlap(evidence, "The standby database costs 4 EUR per year.")
    assert not content_overlap("We keep 12,000 snapshots.", "We keep 12 snapshots.")
    # (so "ports 80,443" does not say port 443 either: a list is written "80, 443")
    assert content_overlap("The gateway listens on ports 80, 443.", "The gateway uses port 443.")


@pytest.mark.parametrize(
    ("evidence", "right", "wrong"),
    [
        (
            "Le budget annuel est de 1 200 000 euros.",
            "Le budget annuel est de 1,200,000 euros.",
            "Le budget annuel est de 1 200 euros.",
        ),
        (
            "Das Budget beträgt 2.500.000 Euro.",
            "Das Budget beträgt 2500000 Euro.",
            "Das Budget beträgt 2.500 Euro.",
        ),
        (
            "Годовой бюджет 3 500 000 рублей.",
            "Годовой бюджет 3 500 000 рублей.",
            "Годовой бюджет 500 000 рублей.",
        ),
        (
            "The grant is £10\u00a0000 per year.",
            "The grant is £10,000 per year.",
            "The grant is £10 per year.",
        ),
        ("The rent is £10 000 per year.", "The rent is £10,000 per year.", "The rent is £10."),
        ("The fee is 5 000 € a year.", "The fee is 5000 € a year.", "The fee is 5 € a year."),
        ("It costs 12 500 dollars.", "It costs 12,500 dollars.", "It costs 500 dollars."),
    ],
)
def test_thousands_grouped_by_spaces_or_dots_are_one_number(
    evidence: str, right: str, wrong: str
) -> None:
    # as most of Europe writes them: "1 200 000 euros" supported "1 200 euros" (its groups
    # read as numbers of their own), and "£10 000" left "£10,000" unsupported
    assert content_overlap(evidence, right)
    assert not content_overlap(evidence, wrong)


def test_an_address_of_dots_and_groups_of_three_is_no_grouped_number() -> None:
    # two groups after dots are a million; a third is an IP address's shape
    evidence = "The relay listens on 10.100.200.300 and 10.100.200.301."
    assert content_overlap(evidence, "The relay listens on 10.100.200.300.")


@pytest.mark.parametrize(
    ("evidence", "right", "wrong"),
    [
        (
            "सर्वर के लिए ज़िम्मेदार व्यक्ति राहुल शर्मा हैं।",
            "सर्वर के लिए ज़िम्मेदार व्यक्ति राहुल शर्मा हैं।",
            "सर्वर के लिए ज़िम्मेदार व्यक्ति अमित वर्मा हैं।",
        ),
        (
            "데이터베이스 담당자는 김민수입니다.",
            "데이터베이스 담당자는 김민수입니다.",
            "데이터베이스 담당자는 이영희입니다.",
        ),
        (
            "المسؤول عن الخادم هو أحمد الخطيب.",
            "المسؤول عن الخادم هو أحمد الخطيب.",
            "المسؤول عن الخادم هو خالد العمري.",
        ),
        (
            "הגיבויים נשמרים שלושים ימים.",
            "הגיבויים נשמרים שלושים ימים.",
            "הגיבויים נשמרים עשרה ימים.",
        ),
    ],
)
def test_a_claim_in_a_script_without_capitals_needs_every_word_said(
    evidence: str, right: str, wrong: str
) -> None:
    # no capitals tell a name, nor a number word a value: another person (or ten days for
    # thirty) made half the claim's words, and was supported
    assert content_overlap(evidence, right)
    assert not content_overlap(evidence, wrong)


def test_numbers_listed_with_spaces_are_no_grouped_number() -> None:
    # groups of three after spaces, with no currency after them, part a list
    assert content_overlap("The API returns 400 401 403 on bad input.", "The API returns 403.")


def test_a_claim_about_another_service_host_or_region_is_not_supported() -> None:
    notes = (
        "The payments-api rate limit is 450 requests per second per merchant. "
        "The ledger-db primary lives in the eu-west-1 region."
    )
    assert content_overlap(notes, "The payments-api rate limit is 450 requests per second.")
    assert not content_overlap(notes, "The search-gateway rate limit is 450 requests per second.")
    assert not content_overlap(notes, "The ledger-db primary lives in the us-east-1 region.")
    assert content_overlap(notes, "The ledger-db primary lives in eu-west-1.")
    # a hyphenated word a sentence paraphrases, naming no other identifier, is no other claim
    assert content_overlap(
        "The batch task runs for hours each night.", "The long-running batch task runs each night."
    )


def test_a_claim_the_evidence_negates_is_not_supported() -> None:
    evidence = "Gift cards are not refundable. Refunds are processed within five business days."
    assert content_overlap(evidence, "Refunds are processed within five business days.")
    assert not content_overlap(evidence, "Gift cards are refundable.")
    assert content_overlap(evidence, "Gift cards aren't refundable.")
    assert not content_overlap(evidence, "Refunds are never processed.")
    assert not content_overlap("The reactor runs at 900 kelvin.", "It does not run at 900 kelvin.")
    assert content_overlap("It is not true that cards never expire.", "Cards expire, it is true.")


def test_the_terms_of_a_claim_must_meet_in_one_sentence() -> None:
    evidence = "Red note 7 is about the zanzibar mission. The budget is 42 million dollars."
    assert not content_overlap(evidence, "The zanzibar budget is 7 dollars.")
    assert content_overlap(evidence, "The budget is 42 million dollars.")


def test_a_sentence_of_the_other_polarity_saying_more_of_the_claim_contradicts_it() -> None:
    evidence = (
        "Refunds are processed within five business days. Refunds are not processed on weekends."
    )
    assert not content_overlap(evidence, "Refunds are processed on weekends.")
    assert content_overlap(evidence, "Refunds are not processed on weekends.")
    assert content_overlap(evidence, "Refunds are processed within five business days.")


def test_a_sentence_giving_another_value_and_saying_more_of_the_claim_contradicts_it() -> None:
    prices = "| model | price |\n|---|---|\n| Lumen City | 1,890 EUR |\n| Lumen Cargo | 3,450 EUR |"
    assert not content_overlap(prices, "The Lumen Cargo costs 1,890 EUR.")
    assert content_overlap(prices, "The Lumen Cargo costs 3,450 EUR.")
    assert content_overlap(prices, "The Lumen City costs 1,890 EUR.")
    # a value elsewhere that says less of the claim, or no more of it, is no contradiction
    evidence = "The zebra protocol listens on port 4242. Zebra was released in 2019."
    assert content_overlap(evidence, "The zebra protocol uses port 4242.")
    limits = (
        "The API allows 100 requests per minute. "
        "Since 2023 the API allows more requests per minute for paid plans."
    )
    assert content_overlap(limits, "The API allows 100 requests per minute.")


def test_an_abbreviation_or_an_initial_ends_no_claim() -> None:
    text = "Dr. Smith runs the Rotterdam warehouse. Active H. pylori urease binds nickel."
    assert sentence_claims(text) == [
        "Dr. Smith runs the Rotterdam warehouse.",
        "Active H. pylori urease binds nickel.",
    ]
    assert sentence_claims("It ships to the U.S.A. and Belgium. Orders wait.") == [
        "It ships to the U.S.A. and Belgium.",
        "Orders wait.",
    ]


def test_a_quote_cut_short_ends_its_claim(shard: Substrate) -> None:
    # an answer cuts a long quote with "…" and goes on with the next: checked as one claim,
    # the two quotes were a sentence no source says
    answer = "Exit 130 means the run was interrupted and kept its work… [1] Rerun it later. [2]"
    assert sentence_claims(strip_citations(quotes_apart(answer))) == [
        "Exit 130 means the run was interrupted and kept its work…",
        "Rerun it later.",
    ]
    receipt = check_factuality(
        shard, "Refunds are given within 30… [1] The warehouse ships orders."
    )
    assert [v.supported for v in receipt.verdicts] == [True, True]
    # nor is a quote in lower case that follows one cut short and long enough to be a wrapped
    # line: its line was joined to the next again, two claims taken for one
    lower = (
        "an approximate method of predicting the interference in wind tunnel and… [1] the "
        "supersonic boom in steady flight is due to the effects of body volume. [2]"
    )
    assert len(sentence_claims(strip_citations("\n".join(unwrapped(quotes_apart(lower)))))) == 2
    # a "…" before a capital ends a claim too, but not in a quotation, nor a pause
    paused = "Failover takes about 5 minutes… The primary database runs in us-east-1."
    assert len(sentence_claims(strip_citations(quotes_apart(paused)))) == 2
    for apostrophes in (
        "It doesn't stop here… The next one does.",
        "The users' sessions last 30 minutes… The cache is flushed nightly.",
        "In the '90s it ran slowly… The new one is fast.",
    ):
        assert len(sentence_claims(strip_citations(quotes_apart(apostrophes)))) == 2
    for text in (
        'The output says "Promoting… Done" when it succeeds.',
        "Hana said \u201cwait… Then go\u201d, and left.",
        "It says 'Promoting… Done' when promotion finishes.",
        "Run `Waiting… Done` now.",
        "Il affiche \u00abPatientez… Termin\u00e9\u00bb puis sort.",
        "It stops… and then goes on.",
    ):
        assert sentence_claims(strip_citations(quotes_apart(text))) == [text]


def test_a_name_or_a_number_in_words_the_evidence_lacks_is_not_supported() -> None:
    evidence = "The Rotterdam warehouse ships orders to the Netherlands, Belgium and Germany."
    assert content_overlap(evidence, "The Rotterdam warehouse ships orders to Belgium.")
    assert not content_overlap(evidence, "The Rotterdam warehouse ships orders to France.")
    assert not content_overlap(evidence, "Dr. Smith manages the Rotterdam warehouse.")
    paging = "The on-call engineer acknowledges a page within fifteen minutes."
    assert content_overlap(paging, "The on-call engineer acknowledges a page in fifteen minutes.")
    assert not content_overlap(paging, "The on-call engineer acknowledges a page in five minutes.")


def test_a_no_in_another_clause_of_the_sentence_does_not_deny_the_claim() -> None:
    evidence = "Rollbacks take about eight minutes and do not need approval from the manager."
    assert content_overlap(evidence, "Rollbacks take about eight minutes.")
    assert not content_overlap(evidence, "Rollbacks need approval from the manager.")
    assert content_overlap(evidence, "Rollbacks do not need approval from the manager.")
    contrast = "It is not the pager but the phone that wakes the on-call engineer."
    assert not content_overlap(contrast, "The pager wakes the on-call engineer.")
    aside = "The pager, not the phone, wakes the on-call engineer."
    assert content_overlap(aside, "The pager wakes the on-call engineer.")
    assert not content_overlap(aside, "The phone wakes the on-call engineer.")
    later = "Orders placed before 16:00 leave the same day, and orders placed later do not."
    assert content_overlap(later, "Orders placed before 16:00 leave the same day.")
    both = "Gift cards are not refundable and downloadable software is not refundable."
    assert content_overlap(both, both)  # a sentence supports itself


def test_what_a_claim_says_of_a_name_must_be_said_of_it() -> None:
    # "Lena Park owns the refund policy" was supported by who owns the on-call rotation
    from substrate.factuality import content_overlap

    evidence = "The on-call rotation is owned by Lena Park. Escalate incidents to Priya."
    assert not content_overlap(evidence, "Lena Park owns the refund policy.")
    assert content_overlap(evidence, "Lena Park owns the on-call rotation.")
    # another name is another claim, however many names the sentence holds
    said = "Lena Park reports to Oskar Brandt in Berlin. Dr. Jones approves refunds."
    assert not content_overlap(said, "Lena Park reports to Maria Lopez in Berlin.")
    assert not content_overlap(said, "Dr. Smith approves refunds.")
    assert content_overlap(said, "Lena Park reports to Oskar Brandt in Berlin.")


def test_a_claim_opening_with_a_name_is_about_it() -> None:
    # a first word has a capital whatever it is: a name opening a claim was no name at all
    from substrate.factuality import content_overlap

    marco = "# Marco Bianchi\n\n- Based in Milan.\n- Owns Kafka."
    assert not content_overlap(marco, "Priya owns Kafka.")
    assert not content_overlap("Marco owns Kafka.\nMarco works in Berlin.", "Priya owns Kafka.")
    assert not content_overlap("Marco owns Kafka.", "Élodie owns Kafka.")
    assert content_overlap(marco, "Marco owns Kafka.")
    adr = "We chose Postgres as the primary database.\nMySQL was rejected for weaker JSON support."
    assert not content_overlap(adr, "MySQL was chosen as the primary database.")  # spelt so
    assert not content_overlap(adr, "Postgres was rejected for weaker JSON support.")
    assert content_overlap(adr, "Postgres was chosen as the primary database.")
    # a common first word is no subject, whatever the sentence or the note names
    for claim, evidence in [
        ("Currently, deploys happen on Tuesdays.", "Deploys happen on Tuesdays and Thursdays."),
        (
            "Currently, deploys happen on Tuesdays.",
            "Deploys happen on Tuesdays.\n\n- Currently the lead is chosen by rota.",
        ),
        (
            "Unfortunately, gift cards are not refundable.",
            "## Exceptions\n\n- Gift cards are not refundable.",
        ),
        (
            "Critical alerts page the on-call engineer.",
            "## Critical Incidents\n\nAlerts page the on-call engineer through PagerDuty.",
        ),
        ("Refunds take five days.", "Refunds take five days at the Lisbon desk."),
        (
            "Production deploys run every weekday.",
            "## Deploying the storefront\n\n- Production deploys run every weekday.",
        ),
    ]:
        assert content_overlap(evidence, claim), claim


def test_a_number_in_another_unit_or_a_rate_per_another_period_is_not_supported() -> None:
    auth = "Tokens expire after 15 minutes; refresh tokens last 8 hours."
    for claim in ("Tokens expire after 15 hours.", "Refresh tokens last 8 minutes."):
        assert not content_overlap(auth, claim), claim
    assert content_overlap(auth, "Tokens expire after 15 min.")  # another spelling, one unit
    assert content_overlap(auth, "Refresh tokens last 8 hours.")
    cost = "The cluster costs about 4,200 EUR per month. Backups run daily."
    for claim in ("costs about 4,200 EUR per year.", "costs 4,200 EUR a year", "4,200 EUR/year"):
        assert not content_overlap(cost, f"The cluster {claim}"), claim
    assert content_overlap(cost, "The cluster costs 4,200 EUR every month.")
    # a period is the number's: another one elsewhere in the sentence contradicts nothing
    keys = "Each key may make 100 requests a minute, and keys are rotated every year."
    assert content_overlap(keys, "Each key may make 100 requests per minute.")
    plan = "The plan costs 40 EUR/month and usage is reviewed every week."
    assert content_overlap(plan, "The plan costs 40 EUR per month.")
    # a number given with no unit, or another number's unit, contradicts nothing
    assert content_overlap("The pool holds 15 workers for 2 hours.", "The pool holds 15 workers.")


def test_a_list_item_s_number_is_no_word_of_a_claim_but_a_number_inside_one_is() -> None:
    assert sentence_claims("1. Page the owner\n2) Run it now") == ["Page the owner", "Run it now"]
    retries = "Retries happen 3 times (max 9) before the on-call engineer is paged."
    assert not content_overlap(retries, sentence_claims(retries.replace("9", "5"))[0])


def test_a_value_one_clause_gives_another_subject_supports_no_claim_about_the_first() -> None:
    costs = (
        "The warm standby costs 2,500 EUR per month and the cold archive costs 300 EUR per year."
    )
    assert not content_overlap(costs, "The warm standby costs 300 EUR per year.")
    assert not content_overlap(costs, "The cold archive costs 2,500 EUR per month.")
    assert content_overlap(costs, "The cold archive costs 300 EUR per year.")
    assert content_overlap(costs, "The warm standby costs 2,500 EUR per month.")
    storage = "Each team gets 500 GB of object storage and 50 GB of database storage."
    assert not content_overlap(storage, "Each team gets 50 GB of object storage.")
    assert content_overlap(storage, "Each team gets 50 GB of database storage.")  # "gets": shared
    both = "The RPO is 15 minutes and the RTO is 4 hours."
    assert content_overlap(both, both)  # a claim of both clauses


def test_a_clause_naming_nothing_else_and_a_period_of_another_phrase_contradict_nothing() -> None:
    racks = "The Frankfurt data center has 40 racks and 1,200 servers."
    assert content_overlap(racks, "The Frankfurt data center has 1,200 servers.")
    assert not content_overlap(racks, "The Frankfurt data center has 1,200 racks.")
    audits = "Our 3 data centers are audited every year and patched every month."
    assert content_overlap(audits, "Our 3 data centers are patched every month.")


def test_verify_refuses_a_claim_about_another_person(tmp_path: Any) -> None:
    from substrate.ingest import ingest_path

    people = tmp_path / "people"
    people.mkdir()
    (people / "marco.md").write_text("# Marco Bianchi\n\n- Based in Milan.\n- Owns Kafka.\n")
    (people / "priya.md").write_text("# Priya Raman\n\n- Based in Berlin.\n- Owns Postgres.\n")
    store = Substrate()
    ingest_path(store, people)
    receipt = check_factuality(
        store, "Priya owns Kafka. Marco is based in Berlin. Marco owns Kafka. Priya owns Postgres."
    )
    assert [v.supported for v in receipt.verdicts] == [False, False, True, True]


# A sentence that denies a value beside the right one, tells a change the other way round
# or says an opposite word supports no claim of it; one giving the claim's value beside a
# denied one, an opposite in another clause, or a change told both ways still does.
@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        ("Postgres listens on port 5433, not 5432.", "Postgres listens on port 5432.", False),
        ("Postgres listens on port 5433 (not 5432).", "Postgres listens on port 5432.", False),
        ("Postgres listens on 5433 rather than 5432.", "Postgres listens on 5432.", False),
        ("The fee is 5 EUR, not 10 EUR.", "The fee is 10 EUR.", False),
        ("Use port 5433 instead of 5432 for Postgres.", "Postgres uses port 5432.", False),
        ("The cap is 20%, not 10%.", "The cap is 10%.", False),
        (
            "It listens on port 5433 on staging, not 5432.",
            "It listens on port 5432 on staging.",
            False,
        ),
        ("Postgres listens on port 5433, not 5432.", "Postgres listens on port 5433.", True),
        (
            "We upgrade Kubernetes from 1.28 to 1.30.",
            "We upgrade Kubernetes from 1.30 to 1.28.",
            False,
        ),
        (
            "We upgrade Kubernetes from 1.28 to 1.30.",
            "We upgrade Kubernetes from 1.28 to 1.30.",
            True,
        ),
        (
            "We move messaging from RabbitMQ to Kafka (Confluent Cloud).",
            "We moved messaging from Kafka to RabbitMQ.",
            False,
        ),
        (
            "We move messaging from RabbitMQ to Kafka (Confluent Cloud).",
            "We move messaging from RabbitMQ to Kafka.",
            True,
        ),
        (
            "We upgraded the clusters from Kubernetes 1.27 to 1.29.",
            "We upgraded the clusters from Kubernetes 1.29 to 1.27.",
            False,
        ),
        (
            "We upgraded the clusters from Kubernetes 1.27 to 1.29.",
            "We upgraded the clusters from Kubernetes 1.27 to 1.29.",
            True,
        ),
        (
            "The deploy freeze moves from 12:00 to 15:00 CET.",
            "The deploy freeze moves from 15:00 to 12:00 CET.",
            False,
        ),
        (
            "Full-disk encryption is mandatory on laptops.",
            "Full-disk encryption is optional on laptops.",
            False,
        ),
        ("MFA is required on every account.", "MFA is required on every account.", True),
        ("Public buckets are forbidden.", "Public buckets are allowed.", False),
        (
            "During maintenance, the service is offline.",
            "The service is online during maintenance.",
            False,
        ),
        ("The fee is $20, not $25.", "The fee is $25.", False),
        (
            "Downgraded from 2.0 to 1.9 after the incident.",
            "Upgraded from 2.0 to 1.9 after the incident.",
            False,
        ),
        ("MFA is required, never optional.", "MFA is required.", True),
        ("Backups run at 02:00, not 03:00.", "Backups run at 02:00.", True),
        ("Version 2.1, not 2.0, added retries.", "Version 2.1 added retries.", True),
        ("Timeout is 30 seconds, not 30 minutes.", "Timeout is 30 seconds.", True),
        ("The SLA is 99.9%, not 99.99%.", "The SLA is 99.9%.", True),
        (
            "Only PNG and JPEG uploads are allowed; other formats are rejected.",
            "Accepted upload formats are PNG and JPEG.",
            True,  # another clause's opposite
        ),
        (
            "Encryption can be enabled per bucket; it is off by default.",
            "Encryption is disabled by default.",
            True,
        ),
        (
            "We upgraded from 1.28 to 1.30 in May and rolled back from 1.30 to 1.28 in June.",
            "We rolled back from 1.30 to 1.28 in June.",
            True,
        ),
    ],
)
def test_a_value_denied_a_change_reversed_or_an_opposite_word_is_no_support(
    evidence: str, claim: str, supported: bool
) -> None:
    # "port 5432", "from Kafka to RabbitMQ" and "optional" were supported by sentences
    # saying "5433, not 5432", "from RabbitMQ to Kafka" and "mandatory"; "03:00" was read in
    # parts, and either way of a change told both ways was taken for the other way round
    assert content_overlap(evidence, claim) is supported


OPPOSED = (
    "The office is open on weekends. Refunds are issued after the inspection. "
    "Orders ship the same day. Refunds take five business days. "
    "Production deploys need 2 approvals, one from the platform team. Invoices are due "
    "within twenty-one days. Retries happen three times, five seconds apart."
)


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("The office is open on weekends.", True),
        ("The office is closed on weekends.", False),  # an opposite that is an index term
        ("Refunds are issued after the inspection.", True),
        ("Refunds are issued before the inspection.", False),  # ... or a stopword
        ("Orders ship the same day.", True),
        ("Orders ship the next day.", False),
        ("Refunds take within 5 business days.", True),  # "five" is 5
        ("Refunds take 5 business days.", True),
        ("Refunds take fifteen business days.", False),
        ("Refunds take 6 business days.", False),
        ("Production deploys need 1 approval.", False),  # "one" there is a pronoun
        ("Invoices are due within 21 days.", True),  # twenty-one is 21
        ("Invoices are due within 20 days.", False),
        ("Retries happen 3 times.", True),
        ("Retries happen 5 times.", False),  # five is said of the seconds
    ],
)
def test_opposites_and_numbers_in_words(claim: str, supported: bool) -> None:
    assert content_overlap(OPPOSED, claim) is supported


PREFIXED = (
    "The billing cache is strongly dependent on the primary database. The search service is "
    "only slightly affected by network latency. Backups are encrypted at rest. The audit log "
    "is readable by every engineer."
)


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("The billing cache is dependent on the primary database.", True),
        ("The billing cache is independent of the primary database.", False),  # a prefix
        ("The billing cache is weakly dependent on the primary database.", False),  # a degree
        ("The search service is affected by network latency.", True),
        ("The search service is unaffected by network latency.", False),
        ("The search service is strongly affected by network latency.", False),
        ("Backups are encrypted at rest.", True),
        ("Backups are decrypted at rest.", False),  # prefixes traded
        ("The audit log is readable by every engineer.", True),
        ("The audit log is unreadable by every engineer.", False),
    ],
)
def test_a_word_made_opposite_by_a_prefix_or_a_degree_is_no_support(
    claim: str, supported: bool
) -> None:
    # each of the unsupported claims was read as supported: all its other words are there
    assert content_overlap(PREFIXED, claim) is supported


def test_a_sentence_saying_it_of_its_heading_s_thing_supports_a_claim_naming_the_thing() -> None:
    # the answerer quoted "billing-worker: It runs on Kubernetes ..." and its own check then
    # found no source saying it: "It" was not read as the heading's billing-worker
    services = (
        "# billing-worker\n\nThe billing-worker is owned by the Payments team. It runs on "
        "Kubernetes in eu-west-1.\n\n# search-api\n\nIt listens on port 8080."
    )
    assert content_overlap(services, "The billing-worker runs on Kubernetes in eu-west-1.")
    assert content_overlap(services, "billing-worker: It runs on Kubernetes in eu-west-1.")
    assert content_overlap(services, "The search-api listens on port 8080.")
    assert not content_overlap(services, "The search-api runs on Kubernetes in eu-west-1.")
    # a sentence between the heading and "It" leaves it the heading's
    replica = (
        "# ledger-api\n\nLedger writes go through a read-only replica check first. It is "
        "deployed on Kubernetes."
    )
    assert content_overlap(replica, "The ledger-api is deployed on Kubernetes.")


def test_a_claim_led_by_the_heading_it_was_quoted_under_is_read_as_the_sentence() -> None:
    # the answerer quoted "Project Atlas: It is owned by ..." (a name heading the note) and
    # its own check called it unsupported; so did verify of the same sentence
    atlas = (
        "# Project Atlas\n\nAtlas is the billing service. It is owned by the Payments team, "
        "led by [Dana Kim](../people/dana.md).\n\n## Deploys\n\nIt ships on Fridays."
    )
    assert content_overlap(
        atlas, "Project Atlas: It is owned by the Payments team, led by Dana Kim."
    )
    assert content_overlap(atlas, "Project Atlas: Atlas is the billing service.")
    assert content_overlap(atlas, "Deploys: It ships on Fridays.")
    # a heading the evidence does not have is no support
    assert not content_overlap(atlas, "Dana Kim: Atlas is the billing service.")


@pytest.mark.parametrize(
    ("evidence", "claim"),
    [
        ("The invoice shows the item count and the discounts.", "The invoice shows the discount."),
        (
            "The log agent runs in each pod, side by side with the app.",
            "The log agent runs inside each pod.",
        ),
        ("Deploy to non-prod first, then to prod.", "Deploy to nonprod first."),
        (
            "The worker depends on Redis, independent of how Postgres is configured.",
            "The worker is dependent on Redis.",
        ),
        (
            "Release signing is mandatory because unsigned artifacts are blocked.",
            "Releases are signed.",
        ),
        (
            "Latency dropped sharply after the upgrade, with CPU slightly higher.",
            "Latency dropped significantly after the upgrade.",
        ),
    ],
)
def test_a_prefix_that_makes_another_word_is_no_opposite(evidence: str, claim: str) -> None:
    # each was called unsupported once prefixes made opposites: "count" and "discount", "side"
    # and "inside", "nonprod" spelt "non-prod"; a clause saying the claim's word another way
    # ("depends", "signing") beside its opposite said of something else; "slightly" of the CPU
    assert content_overlap(evidence, claim)


@pytest.mark.parametrize(
    ("evidence", "claim"),
    [
        ("The deploy script is safe to rerun.", "The deploy script is unsafe to rerun."),
        ("The login page is unsafe on old browsers.", "The login page is safe on old browsers."),
        ("The root cause is known and fixed.", "The root cause is unknown."),
        ("The release is likely this week.", "The release is unlikely this week."),
    ],
)
def test_un_and_non_negate_any_word(evidence: str, claim: str) -> None:
    # once prefixes paired only words of quality, these false claims read as supported
    assert not content_overlap(evidence, claim)


KAFKA = "We adopted Apache Kafka 3.6 on Amazon MSK for event streaming, replacing RabbitMQ."


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("We adopted Kafka, replacing RabbitMQ.", True),
        ("Kafka replaced RabbitMQ for event streaming.", True),
        ("We moved from RabbitMQ to Kafka.", True),
        ("We adopted RabbitMQ, replacing Kafka.", False),
        ("Kafka was replaced by RabbitMQ.", False),
        ("RabbitMQ replaced Kafka.", False),
        ("We replaced Kafka with RabbitMQ for event streaming.", False),
        ("We moved from Kafka to RabbitMQ.", False),
        ("We switched to Kafka from RabbitMQ.", True),
        ("We switched to RabbitMQ from Kafka.", False),
        ("Kafka superseded RabbitMQ for event streaming.", True),
        ("RabbitMQ superseded Kafka for event streaming.", False),
        ("We swapped RabbitMQ for Kafka.", True),
        ("Kafka was swapped for RabbitMQ.", False),
        ("RabbitMQ will replace Kafka for event streaming.", False),
        ("RabbitMQ was superseded by Kafka.", True),
        ("Kafka was superseded by RabbitMQ.", False),
    ],
)
def test_a_change_told_the_other_way_round_is_no_support(claim: str, supported: bool) -> None:
    # each way of telling a change (replacing, replaced by, Y replaced X, from X to Y) was
    # read only against "from X to Y": the others, reversed, were supported at 1.000
    assert content_overlap(KAFKA, claim) is supported


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        (
            "LaunchDarkly was rejected because of its price.",
            "LaunchDarkly was adopted because of its price.",
            False,
        ),
        (
            "The team rejected the proposal to run a second region.",
            "The team agreed to run a second region.",
            False,
        ),
        (
            "We will use PostgreSQL 15 for the orders database.",
            "PostgreSQL 15 was rejected for the orders database.",
            False,
        ),
        (
            "The orders database runs on RDS PostgreSQL with a standby.",
            "PostgreSQL was rejected for the orders database.",
            False,  # says nothing of a decision
        ),
        (
            "We declined PostgreSQL for the orders database: its licence did not fit.",
            "PostgreSQL was rejected for the orders database.",
            True,
        ),
        (
            "The move to Python 3.13 is postponed until our wheels support it.",
            "The move to Python 3.13 was approved.",
            False,
        ),
        ("Weekly pages dropped from 38 to 11.", "Weekly pages dropped from 38 to 11.", True),
        # "declined" and "used" need not tell of a decision
        (
            "Traffic dropped by 20 percent in August.",
            "Traffic declined by 20 percent in August.",
            True,
        ),
        ("Cache memory dropped to 2 GB.", "Memory used by the cache dropped to 2 GB.", True),
        # a refusal in other words
        (
            "The vendor turned down our request for a discount.",
            "The vendor rejected our request for a discount.",
            True,
        ),
        ("The change was not approved by the CAB.", "The CAB rejected the change.", True),
        ("Okta was considered and not chosen.", "Okta was chosen.", False),
        (
            "We decided against hiring temporary agents for outages.",
            "We decided to hire temporary agents for outages.",
            False,
        ),
        (
            "LaunchDarkly was rejected because of its price.",
            "We decided against LaunchDarkly because of its price.",
            True,
        ),
        (
            "The request for a second accountant was turned down until Q3.",
            "The request for a second accountant was approved.",
            False,
        ),
        (
            "The books are closed by the fifth business day of the month.",
            "Month-end close finishes by the fifth business day of the month.",
            True,  # a subject after an article is held against one after an article only
        ),
        (
            "The savings plan for EC2 and EKS nodes was approved for 3 years.",
            "The savings plan for EC2 and EKS nodes was scrapped.",
            False,  # ("and" joins two names there, no two clauses)
        ),
        (
            "The report is due 5 calendar days after month end.",
            "The report is due 5 business days after month end.",
            False,
        ),
        (
            "Reviews should be done within one business day.",
            "Reviews should be done within 1 business day.",
            True,
        ),
        (
            "A deploy needs one approval from the owning team. A rollback does not need one.",
            "A rollback needs an approval from the owning team.",
            False,  # said of another subject, a deploy
        ),
        (
            "A deploy needs one approval from a member of the owning team.",
            "A deploy needs one approval from the owning team.",
            True,
        ),
        (
            "The three goals are speed, cost and safety.",
            "The three goals are speed and cost.",
            True,
        ),
        (
            "We adopted Kafka, replacing RabbitMQ, because RabbitMQ could not replay events.",
            "Kafka replaced RabbitMQ because RabbitMQ was too expensive.",
            False,  # another reason
        ),
        (
            "We adopted Kafka, replacing RabbitMQ, because RabbitMQ could not replay events.",
            "Kafka replaced RabbitMQ because RabbitMQ could not replay events.",
            True,
        ),
        (
            "Reviews should be done within one business day.",
            "Reviews should be done within one week.",
            False,
        ),
        (
            "Reviews should be done within one business day.",
            "Reviews should be done within one business day.",
            True,
        ),
    ],
)
def test_a_decision_turned_the_other_way_or_another_reason_is_no_support(
    evidence: str, claim: str, supported: bool
) -> None:
    assert content_overlap(evidence, claim) is supported


def test_a_proposal_backs_a_claim_only_as_a_proposal(tmp_path: Any) -> None:
    pytest.importorskip("substrate.search.engine")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "adr-012.md").write_text(
        "# ADR-012: Secrets store\n\nStatus: Proposed\n\n## Decision\n\n"
        "We propose moving secrets from AWS Secrets Manager to HashiCorp Vault.\n"
    )
    s = Substrate(tmp_path / "shard")
    from substrate.ingest import ingest_path

    ingest_path(s, notes)
    done = "We moved secrets from AWS Secrets Manager to HashiCorp Vault."
    (verdict,) = check_factuality(s, done).verdicts
    assert not verdict.supported and verdict.nearest is not None
    assert verdict.nearest["not_in_force"] == "Proposed"
    (told,) = check_factuality(s, "We proposed moving secrets to HashiCorp Vault.").verdicts
    assert told.supported
    accepted = "The proposal to move secrets to HashiCorp Vault was accepted."
    assert not check_factuality(s, accepted).verdicts[0].supported
    # an answer that warns of citing a proposal may quote it
    assert check_factuality(s, done, proposals_back=True).verdicts[0].supported
    # the status is told of the claim the proposal says, not of another it is nearest to
    other = "We propose moving secrets from AWS Secrets Manager to CyberArk Conjur."
    (said, unsaid) = check_factuality(s, f"{done} {other}").verdicts
    assert said.nearest is not None and said.nearest["not_in_force"] == "Proposed"
    assert unsaid.nearest is None or "not_in_force" not in unsaid.nearest
    adopt = "It was proposed to adopt HashiCorp Vault for secrets from AWS Secrets Manager."
    assert check_factuality(s, adopt).verdicts[0].supported


def test_what_a_proposal_says_of_things_as_they_are_backs_a_claim(tmp_path: Any) -> None:
    pytest.importorskip("substrate.search.engine")
    from substrate.ingest import ingest_path

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "adr-013.md").write_text(
        "# ADR-013: Log search\n\nStatus: Proposed\n\n## Context\n\n"
        "Log search runs on Elasticsearch 7.10 with three data nodes.\n\n## Decision\n\n"
        "We replace Elasticsearch with OpenSearch 2.11 for log search.\n"
    )
    (notes / "sampling.md").write_text(
        "---\nstatus: proposed\n---\n# Sampling\n\nThe current sampling rate is 10 percent. "
        "Sampling moves to 5 percent of traces. From now on, traces are kept for 30 days.\n"
    )
    (notes / "pilot.md").write_text(
        "# ADR-12: Four-day week\n\n## Status\n\nDeclined\n\n## Outcome\n\n"
        "The pilot of a four-day week was postponed indefinitely.\n"
    )
    s = Substrate(tmp_path / "shard")
    ingest_path(s, notes)
    claims = [
        "Log search runs on Elasticsearch 7.10 with three data nodes.",  # its context
        "We replaced Elasticsearch with OpenSearch 2.11 for log search.",  # proposed only
        "The current sampling rate is 10 percent.",  # said as what is now
        "Sampling moved to 5 percent of traces.",
        "Traces are kept for 30 days.",  # "from now on": what is proposed
        "The pilot of a four-day week was postponed indefinitely.",  # a declined one's outcome
    ]
    verdicts = check_factuality(s, " ".join(claims)).verdicts
    assert [v.supported for v in verdicts] == [True, False, True, False, False, True]


def test_a_secret_in_one_claim_leaves_a_claim_quoting_a_stored_mask_checkable() -> None:
    # the whole text is masked before it is cut: only the claims that masking changed stated
    # a secret; one quoting the shard's own mask is checked as before
    s = Substrate()
    s.put(SubstrateItem("text", "The CI token is [REDACTED:github_token] and rotates monthly."))
    text = (
        "The CI token is [REDACTED:github_token] and rotates monthly. "
        "The db password: Tr0ub4dor&3xQzz"
    )
    quoted, stated = check_factuality(s, text).verdicts
    assert quoted.supported and not stated.supported
    assert "Tr0ub4dor" not in stated.claim
    # the same sentence quoting the mask and stating a token: alike once masked, one each
    same = "The CI token is ghp_zzzz567890abcdefghijABCDEFGHIJ123456 and rotates monthly."
    verdicts = check_factuality(s, f"{text.split('. ')[0]}. {same}").verdicts
    assert [v.supported for v in verdicts] == [True, False]


@pytest.mark.parametrize(
    ("evidence", "negated"),
    [
        (
            "Die Parkgebühren betragen 2,50 € pro Stunde.",
            "Die Parkgebühren betragen nicht 2,50 € pro Stunde.",
        ),
        ("Le musée est ouvert le lundi.", "Le musée n'est pas ouvert le lundi."),
        ("Магазин работает в воскресенье.", "Магазин не работает в воскресенье."),
        ("Sklep jest otwarty w niedzielę.", "Sklep nie jest otwarty w niedzielę."),
        ("Il negozio chiude la domenica.", "Il negozio non chiude mai la domenica."),  # one
        ("Sklep jest otwarty w niedzielę.", "Sklep nigdy nie jest otwarty w niedzielę."),
    ],
)
def test_a_claim_negated_in_another_language_is_not_supported(evidence: str, negated: str) -> None:
    from substrate import Substrate, check_factuality

    store = Substrate()
    store.add("text", evidence)
    assert check_factuality(store, evidence).grounded_fraction == 1.0
    assert check_factuality(store, negated).grounded_fraction == 0.0


def test_english_pas_and_may_are_no_negation() -> None:
    from substrate import Substrate, check_factuality

    store = Substrate()
    store.add("text", "Two PAs were hired in May.")
    assert check_factuality(store, "Two PAs were hired in May.").grounded_fraction == 1.0
