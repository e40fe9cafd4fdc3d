import pytest

from substrate.answer_types import asks_when, states_place, states_time
from substrate.questions import frame_of, states_frame


@pytest.mark.parametrize(
    ("sentence", "place"),
    [
        ("Our office is in Lisbon.", True),
        ("The team moved to the UK in 2021.", True),
        ("Location: server room SR-2.", True),
        # a product, a month or a day after "to" or "in" is no place
        ("The billing-worker was upgraded to PostgreSQL 15.", False),
        ("The runners were moved to GitLab.", False),
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
        ("Open tcp/8080 on the firewall.", True),
        ("The proxy binds to 9000.", True),
        ("It listens at 8443.", True),  # a number that may be a port, as notes say it
        ("It serves metrics on TCP 9102.", True),
        ("EXPOSE 8443", True),
        ("Home port: Orran Isle.", True),  # a harbour
        ("She is based in Skelby.", True),
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


def test_when_asks_for_a_time_and_a_sentence_says_one() -> None:
    asked = (
        "When was the Payments team formed?",
        "when does the office open",
        "Since when is it on?",
    )
    assert all(asks_when(question) for question in asked)
    assert not asks_when("When the build fails, who do I call?")  # a condition, not a time
    said = (
        "It was formed in 2021.",
        "The rotation changes every Monday.",
        "Run it after the deploy.",
    )
    assert all(states_time(sentence) for sentence in said)
    assert not states_time("The Payments team is led by Maria Lopez.")
