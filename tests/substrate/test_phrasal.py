"""A verb and its particle written apart or as one word (``phrasal``)."""

from __future__ import annotations

from substrate.phrasal import other_spellings, respelt, spelt_otherwise


def test_a_verb_and_its_particle_are_said_either_way() -> None:
    assert other_spellings("How do I roll back?") == {
        "roll": frozenset({"rollback"}),
        "back": frozenset({"rollback"}),
    }
    assert other_spellings("Rollbacks need approval.") == {"rollback": frozenset({"roll", "back"})}
    assert spelt_otherwise("Log in with SSO.") == {"login"}
    assert spelt_otherwise("The login page.") == {"log"}
    assert spelt_otherwise("Run the setup script.") == {"set"}
    assert spelt_otherwise("Deploys need approval.") == frozenset()


def test_a_lookup_is_respelt_only_where_the_notes_spell_it_the_other_way() -> None:
    assert respelt("roll back a deploy", {"roll", "back"}) == "rollback a deploy"
    assert respelt("roll back a deploy", {"roll"}) == "roll back a deploy"  # "back" is said
    assert respelt("roll back a deploy", {"roll", "back", "rollback"}) == "roll back a deploy"
    assert respelt("the login page", {"login"}) == "the log in page"


def test_only_words_that_are_a_verb_and_particle_are_read_so() -> None:
    # a word that only ends like a particle is none, nor a word before the verb
    for text in ("the cabin by the robin", "in season", "arrive in time", "we raise it"):
        assert spelt_otherwise(text) == frozenset(), text
    assert other_spellings("When do we back up?") == {"back": frozenset({"backup"})}
    assert respelt("When do we back up?", {"back", "up"}) == "When do we backup?"
    assert respelt("How do we fall back?", {"fall", "back"}) == "How do we fallback?"
    assert spelt_otherwise("The plugin times out.") == {"plug"}
