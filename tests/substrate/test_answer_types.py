import pytest

from substrate.answer_types import states_place
from substrate.questions import frame_of, states_frame


@pytest.mark.parametrize(
    ("sentence", "place"),
    [
        ("Our office is in Lisbon.", True),
        ("The team moved to the UK in 2021.", True),
        ("Location: server room SR-2.", True),
        # a product, a month or a day after "to" or "in" is no place
        # names that begin like a month or carry a capital inside, as places' names do
        ("The Sales team is based in Marseille.", True),
        ("Support sits in McAllen, and finance in DeKalb.", True),
        ("The Logistics team is in Augsburg.", True),
        ("Backups are stored in S3.", True),  # where things are kept: a location
        ("The runbook is in GitHub.", True),
        ("She joined in March 2023.", False),
        ("Deploys are frozen from Friday.", False),
    ],
)
def test_a_place_is_named_after_a_word_that_places_it(sentence: str, place: bool) -> None:
    assert states_place(sentence) is place


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        ("It listens on port 8080.", True),
        ("Ports: 80 and 443.", True),
        ("SERVER_PORT=8080", True),
        ("Connect to db-01:5432.", True),
        ("It binds to 127.0.0.1:9464.", True),
        ("The dev server listens on :8080.", True),
        ("Use 5173 for the Vite dev server.", True),  # a sentence's first word is no product
        ("Open tcp/8080 on the firewall.", True),
        ("The proxy binds to 9000.", True),
        ("It listens at 8443.", True),  # a number that may be a port, as notes say it
        ("It serves metrics on TCP 9102.", True),
        ("EXPOSE 8443", True),
        ("NFS exports shares on 2049.", True),  # a year's shape, not after a word that dates
        ("Home port: Orran Isle.", True),  # a harbour
        ("She is based in Skelby.", True),
        ("It was upgraded to PostgreSQL 15 in 2021.", False),  # no harbour, no port
        ("It uses Elasticsearch 8.", False),  # a version, not a port
        ("It was upgraded to PostgreSQL 15 in March 2023.", False),
        ("It runs in eu-west-1.", False),
        ("It restarts at 04:00 and serves HTTPS.", False),
        ("It restarts every 30 minutes.", False),
        ("Keep 50% of the disk free.", False),
        ("Port Services is led by Amara Okafor.", False),
    ],
)
def test_which_port_is_stated_by_a_network_port_or_a_harbour(sentence: str, stated: bool) -> None:
    frame = frame_of("Which port does it use?")
    assert frame and states_frame(sentence, frame) is stated


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        ("It is written in Go and listens on port 8081.", True),
        ("The worker is implemented in Rust.", True),
        ("The indexer uses Kotlin coroutines.", True),
        ("service: ledger-sync; language: Kotlin; tier: 2", True),
        ("The service sends push notifications to iOS and Android.", False),
        ("It runs in Frankfurt and uses PagerDuty for alerts.", False),  # no language's name
        ("Go to the dashboard and restart it.", False),
        ("The ledger service was written in 2019 by the payments team.", False),
        ("The ledger service owner is Ruby Chen.", False),
        ("Ask Julia about the ledger service.", False),
        ("Then click Go to deploy it.", False),
        ("Announce the restart in the #mobile channel.", False),
        ("The availability target is 99.5% per month.", False),
    ],
)
def test_which_language_is_stated_by_what_code_is_written_in(sentence: str, stated: bool) -> None:
    # the word itself is no term a note must say: "It is written in Go." answers
    frame = frame_of("What language is the invoice-api written in?")
    assert "languag" in frame and states_frame(sentence, frame) is stated
