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
