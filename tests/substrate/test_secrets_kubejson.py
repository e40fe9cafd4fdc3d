"""A Kubernetes Secret written as JSON: its data values are secrets by the object's kind, in
a text (``kubejson``) and in a parsed payload (``fields``)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from substrate.ingest import ingest_path
from substrate.item import SubstrateItem
from substrate.secrets import scan_item
from substrate.secrets.engine import find_secrets
from substrate.secrets.fields import redacted_fields
from substrate.store import Substrate

PASSWORD = "Vq7-rT2m!pXz"
ENCODED = base64.b64encode(PASSWORD.encode()).decode()
SHORT = base64.b64encode(b"admin").decode()  # a user name, more often than not
PLACEHOLDER = base64.b64encode(b"changeme").decode()
CERT = base64.b64encode(b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n").decode()
CONFIG = base64.b64encode(b"server-port=8080").decode()


def secret(**extra: object) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "data": {"tls.key": CERT, "ca.pem": ENCODED, "user": SHORT, "pw": PLACEHOLDER},
        "kind": "Secret",  # after its data, as kubectl sorts the keys
        "metadata": {"name": "web-tls", "annotations": {"note": ENCODED}},
        **extra,
    }


def config_map() -> dict[str, object]:
    return {"apiVersion": "v1", "data": {"app.conf": CONFIG}, "kind": "ConfigMap"}


def found(text: str) -> list[str]:
    return [text[h.start : h.end] for h in find_secrets(text) if h.rule == "kubernetes_secret"]


def test_the_values_of_a_secret_s_data_map_are_found_in_json_text() -> None:
    for text in (json.dumps(secret(), indent=4), json.dumps(secret())):
        assert found(text) == [CERT, ENCODED]  # not the short one, the placeholder, metadata


def test_a_list_s_config_map_and_other_kinds_hold_no_secret() -> None:
    listed = {"apiVersion": "v1", "items": [config_map(), secret()], "kind": "List"}
    assert found(json.dumps(listed, indent=2)) == [CERT, ENCODED]
    assert found(json.dumps(config_map())) == []
    external = {"kind": "ExternalSecret", "data": {"x": ENCODED}, "spec": {"kind": "Secret"}}
    upper = json.dumps(secret()).replace('"kind"', '"Kind"')  # read in any case, as YAML is
    assert found(upper) == [CERT, ENCODED]
    assert found(json.dumps(external)) == []  # the kind of a nested object is its own


def test_string_data_is_judged_as_a_password_is() -> None:
    text = json.dumps(secret(stringData={"pw": "Kq7mZ2vL9x!a", "sslmode": "require"}))
    assert found(text) == [CERT, ENCODED, "Kq7mZ2vL9x!a"]


def test_escaped_slashes_and_a_text_cut_short_are_read() -> None:
    slashed = base64.b64encode(b"\xfb\xff\xfe-secret-bytes").decode()
    assert "/" in slashed
    text = json.dumps(secret(stringData={})).replace(ENCODED, slashed.replace("/", "\\/"))
    assert slashed.replace("/", "\\/") in found(text)
    cut = '{"kind": "Secret", "data": {"ca.pem": "' + ENCODED + '", "more": "'
    assert found(cut) == [ENCODED]  # an object left open is judged by what it showed


def test_an_ingested_json_secret_is_stored_without_its_values(tmp_path: Path) -> None:
    (tmp_path / "secret.json").write_text(json.dumps(secret(), indent=4))
    (tmp_path / "config.json").write_text(json.dumps(config_map()))
    report = ingest_path(Substrate(tmp_path / "shard"), tmp_path)
    assert report.redaction_rules["kubernetes_secret"] == 1  # (items it fired in)
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert CERT not in stored and ENCODED not in stored
    assert CONFIG in stored and SHORT in stored  # what the kind does not make a secret
    items = list(Substrate(tmp_path / "shard").iter_items())
    assert all(scan_item(item).clean for item in items)


def test_a_payload_secret_is_found_by_its_field_and_masked_in_the_text() -> None:
    item = SubstrateItem("record", f"a record holding {ENCODED}", payload=secret())
    fields = {f.field for f in scan_item(item).findings if f.rule == "kubernetes_secret"}
    assert fields == {"payload.data.tls.key", "payload.data.ca.pem"}
    masked, rules, _ = redacted_fields(item)
    assert ENCODED not in masked["text"] and ENCODED not in json.dumps(masked["payload"])
    assert rules.count("kubernetes_secret") == 2
    assert not scan_item(SubstrateItem("record", "x", payload=config_map())).findings


def test_a_value_no_secret_by_the_kind_is_judged_by_its_own_key() -> None:
    # the kind adds findings, never takes one away: what its key makes a secret stays one
    words = {"stringData": {"password": "correcthorsebatterystaple"}}
    for maps in (words, {"data": {"pw": SHORT}}):
        payload = {"apiVersion": "v1", "kind": "Secret", **maps}
        item = SubstrateItem("record", "x", payload=payload)
        other = SubstrateItem("record", "x", payload={**payload, "kind": "Settings"})
        rules = {f.rule for f in scan_item(item).findings}
        assert rules == {f.rule for f in scan_item(other).findings}
        assert rules, maps
        masked, _, _ = redacted_fields(item)
        assert "correcthorse" not in json.dumps(masked) and SHORT not in json.dumps(masked)


def test_a_secret_written_as_json_inside_a_json_string_is_found() -> None:
    # kubectl's last-applied-configuration annotation: the Secret as it was applied, escaped
    old = base64.b64encode(b"Old-Pa55w0rd!x").decode()
    applied = json.dumps({"apiVersion": "v1", "data": {"pw": old}, "kind": "Secret"})
    listed = secret(metadata={"annotations": {"last-applied-configuration": applied}})
    for text in (json.dumps(listed, indent=2), json.dumps({"log": json.dumps(listed)})):
        assert old in found(text) and ENCODED in found(text)
    slashed = base64.b64encode(b"\xfb\xff\xfe-secret-bytes").decode()
    inner = json.dumps({"kind": "Secret", "data": {"pw": slashed}}).replace("/", "\\/")
    twice = slashed.replace("/", "\\\\/")  # \/ written in a JSON string
    assert found(json.dumps({"note": inner})) == [twice]
    quoted = '{"note": "{\\u0022kind\\u0022: \\u0022Secret\\u0022, \\u0022data\\u0022: '
    assert found(quoted + "{\\u0022pw\\u0022: \\u0022" + ENCODED + '\\u0022}}"}') == [ENCODED]
    assert found(json.dumps({"note": json.dumps(config_map())})) == []


def test_a_payload_s_kind_and_data_maps_are_read_in_any_case() -> None:
    # as the text scan reads them (Kubernetes decodes JSON keys in any case too)
    cased = [
        {"Kind": "Secret", "data": {"ca.pem": ENCODED}},
        {"KIND": "secret", "Data": {"ca.pem": ENCODED}},
        {"kind": "Secret", "stringdata": {"mode": "Kq7mZ2vL9x!a"}},
    ]
    for payload in cased:
        item = SubstrateItem("record", "x", payload=payload)
        assert {f.rule for f in scan_item(item).findings} == {"kubernetes_secret"}, payload
        masked, _, _ = redacted_fields(item)
        assert ENCODED not in json.dumps(masked) and "Kq7mZ" not in json.dumps(masked)
        assert found(json.dumps(payload)), payload


def test_an_entry_of_kind_secret_still_has_its_value_judged_by_its_name() -> None:
    # a setting listed as {"kind": "secret", "name": ..., "value": ...}: the name judges the
    # value, as under any other kind
    for kind in ("secret", "Secret", "variable"):
        payload = {"kind": kind, "name": "DB_PASSWORD", "value": "mQ2vL8pRz"}
        item = SubstrateItem("record", "x", payload=payload)
        assert {f.rule for f in scan_item(item).findings} == {"sensitive_assignment"}, kind
        masked, _, _ = redacted_fields(item)
        assert "mQ2vL8pRz" not in json.dumps(masked), kind
