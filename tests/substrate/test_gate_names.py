"""The gate's check of names (scopes, approvers, ids): the same verdict every time it is asked."""

from __future__ import annotations

import pytest

from substrate.errors import InvalidInputError
from substrate.gate import refuse_unfit_names

TOKEN = "ghp_" + "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({"scope": TOKEN}, "the scope looks like a secret"),
        ({"approver": " bob"}, "the approver has white space around it"),
        ({"target_scope": "team\x00a"}, "the target scope "),
        ({"scope": "team-a", "item_id": f"id-{TOKEN}"}, "the item id looks like a secret"),
    ],
)
def test_an_unfit_name_is_refused_every_time_by_what_it_names(
    names: dict[str, str], message: str
) -> None:
    for _ in range(2):  # the verdict is remembered: a refusal must not turn into a pass
        with pytest.raises(InvalidInputError, match=message) as err:
            refuse_unfit_names(**names)
        assert TOKEN not in str(err.value)


def test_fit_names_and_missing_ones_pass() -> None:
    for _ in range(2):
        refuse_unfit_names(scope="team-a", item_id="", approver=None)


def test_a_link_that_looks_like_a_secret_is_refused_and_one_stored_is_found() -> None:
    # a link is an id, never masked (it would point elsewhere); one stored before admit
    # refused it, or written by hand, is found by the sweeps
    from substrate.gate import admit
    from substrate.item import SubstrateItem
    from substrate.secrets import scan_item

    linked = SubstrateItem("text", "see the other note", links=["abc123", TOKEN])
    with pytest.raises(InvalidInputError, match="the link looks like a secret") as caught:
        admit(linked)
    assert TOKEN not in str(caught.value)
    assert admit(SubstrateItem("text", "see", links=["abc123"])).redactions == 0
    [finding] = scan_item(linked).findings
    assert finding.field == "links[1]" and finding.rule == "github_token"
    assert TOKEN not in finding.preview
