from __future__ import annotations

import re

import pytest

from substrate import MODALITIES, InvalidInputError, SubstrateItem


def test_defaults_and_fresh_containers() -> None:
    a, b = SubstrateItem("text"), SubstrateItem("text")
    assert re.fullmatch(r"[0-9a-f]{16}", a.id)
    assert a.id != b.id
    assert a.scope == "local" and a.text == ""
    a.tags.append("x")
    assert b.tags == []


def test_modalities_order() -> None:
    assert MODALITIES == (
        "text",
        "record",
        "image",
        "signal",
        "graph",
        "field",
        "event_stream",
        "artifact",
        "trace",
        "context",
    )


def test_unknown_kind_is_value_error() -> None:
    with pytest.raises(ValueError, match="unknown modality"):
        SubstrateItem("video")
    with pytest.raises(InvalidInputError):
        SubstrateItem("video")


def test_round_trip_and_deep_copy() -> None:
    item = SubstrateItem("record", "t", payload={"a": [1]}, tags=["x"], links=["y"])
    data = item.to_json()
    assert list(data) == [
        "kind",
        "text",
        "payload",
        "provenance",
        "scope",
        "tags",
        "links",
        "id",
        "created_at",
    ]
    data["payload"]["a"].append(2)
    assert item.payload == {"a": [1]}
    assert SubstrateItem.from_json(item.to_json()) == item
    rebuilt = type(item)(**{**item.to_json(), "links": ["z"]})
    assert rebuilt.links == ["z"] and rebuilt.id == item.id


def test_from_json_tolerates_newer_fields() -> None:
    data = {**SubstrateItem("text", "hi").to_json(), "embedding_hint": [1, 2], "v2_field": "x"}
    assert SubstrateItem.from_json(data).text == "hi"


def test_from_json_without_kind_fails_clearly() -> None:
    with pytest.raises(InvalidInputError, match="kind"):
        SubstrateItem.from_json({"text": "x"})
    for not_an_object in ([1], "x", None):
        with pytest.raises(InvalidInputError, match="JSON object"):
            SubstrateItem.from_json(not_an_object)  # type: ignore[arg-type]


def test_numbers_and_entries_read_back_pass_over_other_shapes() -> None:
    from substrate.item import dict_entries, place_value, whole_number

    assert [whole_number(v) for v in (7, 7.9, -3, True, "x", None, [1])] == [7, 7, -3, 0, 0, 0, 0]
    assert [whole_number(v, -1) for v in (1e30, float("nan"), 1 << 63)] == [-1, -1, -1]
    assert [whole_number(v, -1) for v in ("12", " -3 ", "1e3", "", "9" * 40)] == [
        12,
        -3,
        -1,
        -1,
        -1,
    ]
    assert [place_value(v) for v in (0, "intro", 1.5, [1], {"a": 1}, None)] == [
        0,
        "intro",
        1.5,
        None,
        None,
        None,
    ]
    assert dict_entries([{"a": 1}, 1, "x", [2]]) == [{"a": 1}]
    assert dict_entries({"a": 1}) == dict_entries(5) == []


def test_an_item_s_repr_is_short_whatever_it_holds() -> None:
    # a search hit printed whole was 30-79 KB, its payload with it
    item = SubstrateItem("record", "Q3 totals " * 100, payload={"rows": ["x" * 50] * 500})
    shown = repr(item)
    assert len(shown) < 200 and shown.startswith("SubstrateItem(kind='record', id=")
    assert "text='Q3 totals Q3" in shown and shown.endswith("…')")


def test_an_item_s_repr_masks_the_secrets_it_holds() -> None:
    # an item stored unredacted (--no-redact), shown in a log or a traceback
    token = "ghp_" + "Zq8fT2kLm9Xw3RbN7yHc4VjD1sGa6PeU0oKi"
    for text in (f"deploy with {token}", "x " * 30 + f"deploy with {token} " + "y " * 30):
        shown = repr(SubstrateItem("text", text))
        assert token[:12] not in shown and "[REDACT" in shown
