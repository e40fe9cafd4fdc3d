"""bridging: questions that describe what they ask about, and the hop query from a part answer."""

from __future__ import annotations

import pytest

from substrate import Substrate
from substrate.bridging import Names, bridge_query, names_in, names_of, outer_terms, relational
from substrate.context.compress import terms


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who leads the team that owns the billing-worker?", True),
        ("Where is the primary owner of eta-service based?", True),
        ("What is the availability SLO of the service owned by Lucía Morales?", True),
        ("Who wrote the runbook used to fix the database failover?", True),
        ("Who owns the billing-worker?", False),
        ("How do I promote a deploy to production?", False),
        ("Which port?", False),
        ("That is all?", False),  # never the first word
        ("At which port is the company helicopter based?", False),  # "which" asks here
        ("In which city is the commander of INC-22 based?", True),
        ("What was the rating of the model fine-tuned from llama-base-7b?", True),
        ("What data is exported from billing-api?", False),  # a verb's, not a description
        ("What was removed from the v2 API?", False),
    ],
)
def test_a_question_describing_what_it_asks_about(question: str, expected: bool) -> None:
    assert relational(question) is expected


def test_names_are_capitalised_words_and_identifiers() -> None:
    # the word opening a sentence may be the name it is about
    assert names_in("Payments owns invoicing and the Stripe integration.") == terms(
        "Payments Stripe"
    )
    assert names_in("it calls tracker-api on port 8443") == terms("tracker-api")
    assert names_in("Óscar Núñez owns it.") == terms("Óscar Núñez")
    assert names_in("nothing named here") == frozenset()
    assert names_in("Name: Camila Restrepo; Role: Team lead.") == terms("Camila Restrepo Team")


@pytest.mark.parametrize(
    ("text", "proper", "opening"),
    [
        ("Payments owns invoicing and the Stripe integration.", {"stripe"}, {"payments"}),
        # labels and common words name nothing; a value after a label opens a clause
        ("Name: Camila Restrepo; Role: Team lead.", {"restrepo"}, {"camila", "team"}),
        ("We use Twilio. It is cheap.", {"twilio"}, set()),
        # identifiers whole, possessives dropped
        ("session-store's nodes of INC-2024-022 failed", {"session-store", "inc-2024-022"}, set()),
        ("Łukasz Żak owns it.", {"żak"}, {"łukasz"}),
    ],
)
def test_the_names_a_text_gives(text: str, proper: set[str], opening: set[str]) -> None:
    assert names_of(text) == Names(frozenset(proper), frozenset(opening))


def test_what_is_asked_before_the_description() -> None:
    # the word the description stands for ("team") is what an answer names instead
    assert outer_terms("Who leads the team that owns the billing-worker?") == terms("leads")
    assert outer_terms("What port does the service that went down listen on?") == terms("port")
    assert outer_terms("Who owns the billing-worker?") == terms("owns billing-worker")


def test_the_next_hop_searches_for_the_rest_with_the_names_given() -> None:
    question = "Who leads the team that owns the billing-worker?"
    text = "Team channel: #payments. Payments owns invoicing, the billing-worker, and Stripe."
    words = bridge_query(question, text).split()
    # what the item leaves unsaid, then the names of its sentence that says most
    assert words[:1] == ["leads"]
    assert set(words[1:]) == {"Payments", "Stripe"}


def test_the_names_of_every_sentence_saying_as_much_lead_on() -> None:
    # the date and the commander each say one word of the question: both are read, and a
    # label ("Commander:") is no name
    question = "In which city is the incident commander of INC-22 based?"
    incident = "# INC-22: memory exhaustion\n\n- Date: 2024-06-21\n- Commander: Leila Haddad"
    assert bridge_query(question, incident) == "city incident based Leila Haddad"
    # a row that says more than its neighbours is the one read
    register = "- Bunkering: author Oskar Brandt.\n- Mooring: author Elena Marsh."
    assert bridge_query("Where is the author of the Bunkering procedure based?", register) == (
        "procedure based Oskar Brandt"
    )


def test_a_question_that_names_what_it_asks_about_searches_on_from_the_item() -> None:
    assert bridge_query("What is the refund policy?", "Stripe issues refunds in five days.") == ""


@pytest.mark.parametrize(
    "text",
    [
        "The team lead of Payments owns the billing-worker.",  # says all of it
        "The weather in Lisbon is mild.",  # says none of it
        "the billing-worker is owned by a team.",  # names nothing new
    ],
)
def test_no_bridge_from_an_item_saying_all_none_or_naming_nothing(text: str) -> None:
    assert bridge_query("Who leads the team that owns the billing-worker?", text) == ""


def test_a_name_whose_words_are_all_asked_still_leads_on() -> None:
    # "team-payments" is no word of the question, though "team" and "payments" are
    question = "Who leads the team that owns payments-api?"
    assert (
        bridge_query(question, "payments-api is owned by team-payments.") == "leads team-payments"
    )
    triples = "payments-api owned_by team-payments.\nsearch-svc owned_by team-discovery."
    assert bridge_query(question, triples) == "leads team-payments"


def test_a_team_named_after_the_service_it_owns_answers_the_two_hop_question() -> None:
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate, multihop

    store = Substrate()
    store.add(
        "graph",
        "",
        payload={
            "triples": [
                ["payments-api", "owned_by", "team-payments"],
                ["search-svc", "owned_by", "team-discovery"],
            ]
        },
    )
    store.add("text", "team-payments is led by Priya Raman.")
    store.add("text", "team-discovery is led by Omar Haddad.")
    store.add("text", "team-platform is led by Jonas Weber.")
    question = "Who leads the team that owns payments-api?"
    reached = [step.item.text for step in multihop(store, question, max_hops=2).steps]
    assert "team-payments is led by Priya Raman." in reached
    answer = answer_from_substrate(store, question, ExtractiveAnswerer(), hops=2)
    assert answer.answer is not None and "Priya Raman" in answer.answer
    assert "Omar Haddad" not in answer.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who leads the team that owns search-worker?", "Cara Diaz"),
        ("Who leads the team that owns payments-api?", "Priya Raman"),
        ("Who leads the team that owns search-api?", "Ana Ruiz"),
    ],
)
def test_a_team_sharing_a_word_with_another_service_is_not_its_owner(
    question: str, expected: str
) -> None:
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    for text in (
        "payments-api is owned by team-payments.",
        "search-worker is owned by team-indexing.",
        "search-api is owned by team-search.",
        "team-payments is led by Priya Raman.",
        "team-search is led by Ana Ruiz.",
        "team-indexing is led by Cara Diaz.",
    ):
        store.add("text", text)
    for hops in (1, 2):  # one retrieval may not reach the owner's page: then it abstains
        answer = answer_from_substrate(store, question, ExtractiveAnswerer(), hops=hops).answer
        assert answer is None or (expected in answer and answer.count(" is led by ") == 1)
    assert expected in (
        answer_from_substrate(store, question, ExtractiveAnswerer(), hops=2).answer or ""
    )


@pytest.mark.parametrize(
    "question", ["Who maintains srv-008?", "What port does payments-api listen on?"]
)
def test_an_identifier_named_beside_the_asked_one_does_not_answer_for_it(question: str) -> None:
    from substrate import ExtractiveAnswerer, Substrate, answer_from_substrate

    store = Substrate()
    for text in (
        "srv-008 is a replica of srv-010.",
        "srv-010 is maintained by Lars Holm.",
        "srv-008 runs in rack B4.",
        "payments-api and payments-worker are deployed together.",
        "payments-worker listens on port 9000.",
    ):
        store.add("text", text)
    for hops in (1, 2):
        assert (
            answer_from_substrate(store, question, ExtractiveAnswerer(), hops=hops).answer is None
        )


def _note(store: Substrate, path: str, section: str, text: str) -> None:
    store.add("text", text, provenance={"path": path, "section": section})


def _model_notes() -> Substrate:
    from substrate import Substrate

    store = Substrate()
    _note(
        store,
        "/notes/orca.md",
        "Orca fine-tune v2",
        "Orca-ft-v2 is fine-tuned from llama-base-7b on the support tickets dataset.\n"
        "Orca-ft-v2 scores 0.612 on MMLU.\n\nSee [the eval](eval.md) for details.",
    )
    _note(
        store,
        "/notes/eval.md",
        "Evaluation of orca-ft-v2",
        "Helpfulness was rated 0.81 by human raters.\nKnown weakness: hallucinated refunds.",
    )
    return store


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What was the helpfulness rating of the model fine-tuned from llama-base-7b?", "0.81"),
        ("What is the known weakness of the model fine-tuned from llama-base-7b?", "refunds"),
    ],
)
def test_a_model_described_by_what_it_was_fine_tuned_from_is_followed_to_its_page(
    question: str, expected: str
) -> None:
    # the page names the model in its heading only: the sentence saying the question's
    # clause ("fine-tuned from llama-base-7b") bridges to it; another score is no answer
    from substrate import ExtractiveAnswerer, answer_from_substrate

    answer = answer_from_substrate(_model_notes(), question, ExtractiveAnswerer(), hops=2).answer
    assert answer is not None and expected in answer and "MMLU" not in answer


def test_only_the_identifier_the_clause_relates_to_the_asked_one_is_bridged() -> None:
    # falcon-base-40b is named in the same sentence, but "compared against" llama-base-7b,
    # not "fine-tuned from" it; ledger-api "calls" the billing-worker, it does not own it
    from substrate import ExtractiveAnswerer, answer_from_substrate

    store = _model_notes()
    _note(
        store,
        "/notes/compare.md",
        "Comparison",
        "Orca-ft-v2 is fine-tuned from llama-base-7b and compared against falcon-base-40b.",
    )
    _note(
        store,
        "/notes/falcon.md",
        "Evaluation of falcon-base-40b",
        "Helpfulness was rated 0.33 by human raters.",
    )
    question = "What was the helpfulness rating of the model fine-tuned from llama-base-7b?"
    answer = answer_from_substrate(store, question, ExtractiveAnswerer(), hops=2).answer
    assert answer is not None and "0.81" in answer and "0.33" not in answer
    other = Substrate()
    _note(
        other,
        "/notes/billing-worker.md",
        "billing-worker",
        "ledger-api calls the billing-worker, which owns the retry queue.",
    )
    _note(other, "/notes/ledger-api.md", "ledger-api", "Owner: Core Platform.\nLead: Dana Kim.")
    asked = "Who leads the team that owns the billing-worker?"
    for hops in (1, 2):
        assert answer_from_substrate(other, asked, ExtractiveAnswerer(), hops=hops).answer is None
