"""Item field scanning, scan_substrate, and the write-time gate."""

from __future__ import annotations

import base64
import copy
import random
import string
from typing import Any

import pytest

from substrate.gate import GateResult, admit
from substrate.item import SubstrateItem
from substrate.secrets import scan_item, scan_substrate

_R = random.Random(11)


def rnd(n: int) -> str:
    return "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(n))


GH = "ghp_" + rnd(36)
GH2 = "ghp_Zq8Xk2Lm9Rt4Vb7Nc1Pd6Hs3Jw5Fy0Ga8QeR"
PASSWORD = "Vx9#" + rnd(12)


def dirty_item() -> SubstrateItem:
    return SubstrateItem(
        kind="record",
        text=f"deploy token {GH}",
        payload={"db": {"host": "db.internal", "password": PASSWORD}, "list": ["ok", GH]},
        provenance={"source": f"postgres://svc:{PASSWORD}@db/app"},
        tags=["prod", f"token={GH}"],
    )


def test_scan_item_covers_every_string_field() -> None:
    scan = scan_item(dirty_item())
    fields = {f.field for f in scan.findings}
    assert fields == {
        "text",
        "payload.db.password",
        "payload.list[1]",
        "provenance.source",
        "tags[1]",
    }
    assert scan.rules() == ["github_token", "sensitive_assignment", "url_credentials"]


def test_scan_item_clean_and_duck_typed() -> None:
    assert scan_item(SubstrateItem(kind="text", text="hello world")).clean

    class Bare:
        text = f"x {GH}"

    assert scan_item(Bare()).rules() == ["github_token"]


def test_payload_key_name_gives_context() -> None:
    item = SubstrateItem(kind="record", payload={"api_key": rnd(32), "note": rnd(32)})
    assert [f.field for f in scan_item(item).findings] == ["payload.api_key"]


@pytest.mark.parametrize("key", ["bearer", "totp_seed"])
def test_a_session_credential_or_a_code_seed_is_named_by_its_key(key: str) -> None:
    item = SubstrateItem(kind="record", payload={key: rnd(20), "cookie_domain": ".example.com"})
    assert [f.field for f in scan_item(item).findings] == [f"payload.{key}"]


def test_a_named_entry_s_value_is_judged_by_its_name() -> None:
    # Kubernetes env entries, CloudFormation parameters, CSV rows of "key,value"
    item = SubstrateItem(
        kind="record",
        text=f"DB_PASSWORD = {PASSWORD}",
        payload={
            "env": [{"name": "DB_PASSWORD", "value": PASSWORD}, {"name": "MODE", "value": "x7"}],
            "params": [{"ParameterKey": "ApiToken", "ParameterValue": rnd(32)}],
            "options": [{"Namespace": "aws:rds", "OptionName": "DBPassword", "Value": PASSWORD}],
            "row": {"key": "LOG_LEVEL", "value": rnd(32)},  # not a secret's name
        },
    )
    fields = [f.field for f in scan_item(item).findings]
    assert fields == [
        "text",
        "payload.env[0].value",
        "payload.params[0].ParameterValue",
        "payload.options[0].Value",
    ]
    stored = admit(item).item
    assert PASSWORD not in str(stored.payload) + stored.text
    assert stored.payload["env"][1]["value"] == "x7"
    assert stored.payload["row"] == item.payload["row"]
    two_names = {"name": "DB_PASSWORD", "key": "k1", "value": PASSWORD}  # which one? neither
    assert not scan_item(SubstrateItem(kind="record", payload=two_names)).findings


def test_a_header_kept_as_a_field_is_judged_as_its_header_line() -> None:
    basic = "Basic " + base64.b64encode(f"svc:{PASSWORD}".encode()).decode()
    token = "token " + rnd(32)
    item = SubstrateItem(
        kind="record",
        payload={
            "headers": {"Authorization": basic, "Proxy-Authorization": "SSWS " + rnd(40)},
            "env": {"HTTP_AUTHORIZATION": token},
            "row": {"name": "Authorization", "value": basic},
            "docs": {"Authorization": "see docs/security/authorization.md"},
            "note": basic,  # a bare "Basic ..." says nothing: it may be prose
        },
    )
    findings = scan_item(item).findings
    assert [(f.field, f.rule) for f in findings] == [
        ("payload.headers.Authorization", "basic_auth_header"),
        ("payload.headers.Proxy-Authorization", "authorization_header"),
        ("payload.env.HTTP_AUTHORIZATION", "authorization_header"),
        ("payload.row.value", "basic_auth_header"),
    ]
    stored = admit(item).item.payload
    assert stored["headers"]["Authorization"] == "Basic [REDACTED:basic_auth_header]"
    assert stored["env"]["HTTP_AUTHORIZATION"] == "token [REDACTED:authorization_header]"
    assert stored["docs"] == item.payload["docs"]
    js = SubstrateItem(
        kind="record", payload={"proxyAuthorization": token, "reauthorization": token}
    )
    assert [f.field for f in scan_item(js).findings] == ["payload.proxyAuthorization"]


class FakeStore:
    def __init__(self, items: list[SubstrateItem]) -> None:
        self.items = items

    def all(self, *, kind: str | None = None, scope: str | None = None) -> list[SubstrateItem]:
        return [i for i in self.items if scope is None or i.scope == scope]


def test_scan_substrate_shape() -> None:
    a = dirty_item()
    b = SubstrateItem(kind="text", text="clean", scope="team")
    report = scan_substrate(FakeStore([a, b]))
    assert report == {
        "n_items": 2,
        "n_dirty": 1,
        "dirty": [{"item_id": a.id, "rules": scan_item(a).rules()}],
    }
    assert scan_substrate(FakeStore([a, b]), scope="team")["n_dirty"] == 0


def test_gate_redacts_every_field_without_touching_caller() -> None:
    item = dirty_item()
    before: dict[str, Any] = copy.deepcopy(item.to_json())
    result = admit(item)
    assert isinstance(result, GateResult)
    assert item.to_json() == before
    stored = result.item
    assert stored is not item and stored.id == item.id
    dumped = repr(stored.to_json())
    assert GH not in dumped and PASSWORD not in dumped
    assert stored.payload["db"]["password"] == "[REDACTED:sensitive_assignment]"
    assert stored.provenance["source"] == "postgres://svc:[REDACTED:url_credentials]@db/app"
    assert result.redactions == 3  # the token (in three fields), the password (by two rules)
    assert stored.provenance["redactions"] == {"count": 3, "rules": result.rules}
    assert result.rules == ["github_token", "sensitive_assignment", "url_credentials"]
    assert scan_item(stored).clean


def test_gate_masks_every_copy_of_a_secret_found_in_another_field() -> None:
    # a record's text is its values: only the payload shows that one of them is a password
    item = SubstrateItem(
        kind="record",
        text="bob Zx9#qLm2Wp bobZx9#qLm2Wp, (Zx9#qLm2Wp)",
        payload={"user": "bob", "password": "Zx9#qLm2Wp"},
        tags=["Zx9#qLm2Wp"],
    )
    result = admit(item)
    stored = result.item
    mask = "[REDACTED:sensitive_assignment]"
    assert stored.payload == {"user": "bob", "password": mask}
    # copies standing alone are masked; one inside a longer word is not this secret
    assert stored.text == f"bob {mask} bobZx9#qLm2Wp, ({mask})"
    assert stored.tags == [mask]
    assert result.redactions == 1  # one secret, however many copies


def test_a_secret_found_in_two_fields_counts_once() -> None:
    item = SubstrateItem(
        kind="trace",
        text=f"Q: which token?\nA: use {GH}",
        payload={"input": "which token?", "answer": f"use {GH}", "other": f"token={GH2}"},
    )
    result = admit(item)
    assert (result.redactions, result.rules) == (2, ["github_token"])
    assert GH not in str(result.item.payload) + result.item.text


def test_copies_are_found_without_their_spaces_and_as_code_writes_them() -> None:
    mask = "[REDACTED:sensitive_assignment]"
    spaced = SubstrateItem(
        kind="record",
        text="bob  Zq8vLm3XrT9pWk2N typed Zq8vLm3XrT9pWk2N at login",
        payload={"user": "bob", "password": " Zq8vLm3XrT9pWk2N", "note": "typed Zq8vLm3XrT9pWk2N"},
    )
    stored = admit(spaced).item
    assert "Zq8vLm3XrT9pWk2N" not in repr(stored.to_json())
    assert stored.payload["note"] == f"typed {mask}"
    # a record's text writes nested values as Python does, a trace's as JSON does
    nested = SubstrateItem(
        kind="record",
        text="amy ['Zq8vLm3X\\\\rT9pWk2N']",
        payload={"user": "amy", "password": ["Zq8vLm3X\\rT9pWk2N"]},
    )
    assert admit(nested).item.text == f"amy ['{mask}']"
    quoted = SubstrateItem(
        kind="trace",
        text='log in => {"password": "Zq8vLm3X\\"rT9pWk2N"}',
        payload={"input": "log in", "answer": {"password": 'Zq8vLm3X"rT9pWk2N'}},
    )
    assert "rT9pWk2N" not in admit(quoted).item.text


def test_copies_in_file_locations_are_left_alone() -> None:
    # a short password such as "admin" also names folders: the path must still lead to the file
    item = SubstrateItem(
        kind="record",
        text="root admin db1",
        payload={"user": "root", "password": "admin", "host": "db1"},
        provenance={"source": "admin/users.csv", "path": "/srv/admin/users.csv"},
    )
    stored = admit(item).item
    assert stored.text == "root [REDACTED:sensitive_assignment] db1"
    assert stored.provenance["path"] == "/srv/admin/users.csv"
    assert stored.provenance["source"] == "admin/users.csv"
    artifact = SubstrateItem(
        kind="artifact",
        text="model in staging2024",
        payload={"ref": "reg/staging2024/bert", "registry": {"password": "staging2024"}},
        provenance={"manifest": "reg/staging2024/bert/manifest.json", "parent": "staging2024"},
    )
    kept = admit(artifact).item
    assert kept.text == "model in [REDACTED:sensitive_assignment]"
    assert kept.payload["ref"] == "reg/staging2024/bert"
    assert kept.provenance == artifact.provenance | {"redactions": kept.provenance["redactions"]}


def test_gate_without_redaction_records_but_keeps() -> None:
    item = dirty_item()
    result = admit(item, redact=False)
    assert result.redactions == 0
    assert result.item.text == item.text and GH in result.item.text
    assert result.item.provenance["unredacted_secrets"]["count"] == 5
    assert "unredacted_secrets" not in item.provenance


def test_gate_clean_item_passes_untouched() -> None:
    item = SubstrateItem(kind="text", text="meeting notes", payload={"n": 3})
    result = admit(item)
    assert result.item is item and result.redactions == 0 and result.rules == []
    assert "redactions" not in item.provenance


def test_gate_readmission_accumulates() -> None:
    first = admit(dirty_item()).item
    first.text += f" and {'ghp_' + rnd(36)}"
    second = admit(first)
    assert second.redactions == 1
    assert second.item.provenance["redactions"]["count"] == 4
    # the rules of both admissions, not only the last one's
    first = admit(SubstrateItem("text", f"token {'ghp_' + rnd(36)}")).item
    first.text += " and password = 'Xk9#mQ2v!Lp7wRt4'"
    assert admit(first).item.provenance["redactions"] == {
        "count": 2,
        "rules": ["github_token", "sensitive_assignment"],
    }


def test_item_screen_never_misses_what_a_field_scan_finds() -> None:
    from substrate.secrets.engine import find_secrets
    from substrate.secrets.screen import may_hold_secrets

    secret = "ghp_" + rnd(36)
    clean = ["meeting notes", "docs/guide.md", "Install > Linux", "refunds take five days"]
    assert may_hold_secrets(clean) is False
    for position in range(len(clean)):
        fields = list(clean)
        fields[position] = f"token {secret} here"
        assert find_secrets(fields[position])
        assert may_hold_secrets(fields) is True
    # a value that only a keyed field makes suspicious is still scanned field by field
    item = SubstrateItem(kind="record", text="x", payload={"password": "Tr0ub4dor&3-" + rnd(8)})
    assert not scan_item(item).clean


def test_item_screen_agrees_with_field_scans() -> None:
    from substrate.secrets.engine import find_secrets
    from substrate.secrets.paths import find_secrets_in_path
    from substrate.secrets.screen import may_hold_secret, may_hold_secrets

    discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Kq2.Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
    fields = [
        "notes/ops/runbook.md",  # a long run with no keyword
        f"see {discord} for the bot",  # a rule without keywords, found by its width
        f"deploy/{discord}x",  # long enough, but the rule's boundaries fail
        "Authorization: Bearer\n  Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3",  # a match across lines
        "tiny",
        # a file name's stem: the extension hides it from a scan of the whole path
        f"bots/{discord}.md",
    ]
    for field in fields:
        found = bool(find_secrets(field) or find_secrets_in_path(field))
        assert may_hold_secret(field) or not found, field
        assert may_hold_secrets([field, "plain words"]) or not found, field
    assert may_hold_secrets([fields[1]]) and find_secrets(fields[1])
    assert not find_secrets(fields[5]) and find_secrets_in_path(fields[5])
    assert not may_hold_secrets([fields[0], fields[4]])


def test_gate_masks_secrets_in_keys_and_refuses_what_it_cannot_check() -> None:
    import pytest

    from substrate.errors import InvalidInputError

    item = SubstrateItem(kind="record", text="x", payload={GH: 1, "nested": {GH: "v"}})
    clean = admit(item).item
    assert GH not in repr(clean.to_json())
    assert clean.provenance["redactions"]["count"] == 1  # one secret, as two keys
    deep: dict[str, Any] = {"token": GH}
    for _ in range(70):
        deep = {"d": deep}
    with pytest.raises(InvalidInputError, match="deeper"):
        admit(SubstrateItem(kind="record", payload=deep))
    with pytest.raises(InvalidInputError, match="scope"):
        admit(SubstrateItem(kind="text", text="x", scope=GH))


def test_a_secret_used_as_a_key_is_not_spelled_out_in_field_paths() -> None:
    secret = "ghp_" + rnd(36)
    item = SubstrateItem(kind="record", text="x", payload={"tokens": {secret: {"note": "n"}}})
    scan = scan_item(item)
    assert scan.findings and all(secret not in f.field for f in scan.findings)
    assert all(secret not in str(f.as_dict()) for f in scan.findings)
    assert any(f.field == "payload.tokens.<key 0><key>" for f in scan.findings)


def test_text_screen_answers_for_every_slice_of_the_text() -> None:
    from substrate.secrets.engine import find_secrets
    from substrate.secrets.paths import find_secrets_in_path
    from substrate.secrets.screen import may_hold_secrets, slices_may_hold_secrets

    rng = random.Random(5)
    # keyword fragments, case-folding look-alikes (Kelvin sign, long s, dotted I), separators
    pieces = ["pa", "ss", "k", "ey", "\u212a", "ſ", "İ", "ecret", "to", "ken", "-u", "xoxb", "-"]
    pieces += ["ghp_", rnd(20), rnd(5), "word", " ", "\n", "\t", "=", ":", "'", "sk", "AKIA"]
    # a token without keywords, cut up, among path separators
    discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Kq2.Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
    pieces += [discord[:24], discord[24:32], discord[32:], "/", ".", "_", "é", "Nzk4"]
    screened = 0
    for _ in range(800):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 24)))
        if slices_may_hold_secrets(text):
            continue
        screened += 1
        for _ in range(30):
            i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
            piece = text[i:j]
            assert not may_hold_secrets([piece]), (text, i, j)
            assert not (find_secrets(piece) or find_secrets_in_path(piece)), (text, i, j)
    assert screened > 50
    assert slices_may_hold_secrets("\u212aey=") and not slices_may_hold_secrets("ask for the task")
    assert slices_may_hold_secrets("see docs/a_long_word_with_sk_inside")
    discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Kq2.Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
    assert slices_may_hold_secrets(f"bot {discord}") and slices_may_hold_secrets(discord + "x")


def test_a_keyword_whose_rules_need_characters_the_text_lacks_leaves_it_clean() -> None:
    from substrate.secrets.engine import SYNTAXES, find_secrets
    from substrate.secrets.keywords import ANY_CONTEXT_KEYWORD
    from substrate.secrets.paths import find_secrets_in_path
    from substrate.secrets.screen import may_hold_secrets

    # "//" selects only the rule of credentials in links, which needs an "@"
    assert not may_hold_secrets(["see https://example.com/docs/a for more"])
    assert may_hold_secrets(["https://deploy:Zq8Xw2Rk5V@example.com/"])
    rng = random.Random(11)
    pieces = ["//", "@", ":", "https", "example.com", "/", "user", "pw", "=", "|", "pass", "-u"]
    pieces += [" ", "\n", "'", '"', ",", "<", "(", "{", "token", "key", rnd(12), rnd(5)]
    with_keyword = 0
    for _ in range(1500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 16)))
        if may_hold_secrets([text]):
            continue
        with_keyword += ANY_CONTEXT_KEYWORD.search(text.lower()) is not None
        for syntax in SYNTAXES:
            assert not find_secrets(text, syntax=syntax), (syntax, text)
        assert not find_secrets_in_path(text), text
    assert with_keyword > 50  # screened clean by the characters their rules need


def test_many_secrets_find_the_same_copies_as_few(monkeypatch: Any) -> None:
    from substrate.secrets import copies as copy_module

    rng = random.Random(4)
    for _ in range(300):
        secrets = {
            "".join(rng.choice("abc1") for _ in range(rng.randint(3, 8))): f"r{i}"
            for i in range(rng.randint(1, 30))
        }
        text = "".join(rng.choice('abc1 _-.x"') for _ in range(rng.randint(0, 150)))
        found = []
        for limit in (10**6, 0):  # one pattern, then the index by first characters
            monkeypatch.setattr(copy_module, "_REGEX_FORMS", limit)
            copies = copy_module.copies_of(secrets)
            found.append(copy_module.copy_spans(text, copies) if copies else [])
        assert found[0] == found[1], (text, secrets)


def test_a_text_ending_in_a_secret_a_longer_one_starts_with(monkeypatch: Any) -> None:
    # (over 64 secrets: the index by first characters) the longer one's slice, cut short by
    # the text's end, read as the shorter, and the look past its end raised IndexError
    from substrate.secrets import copies as copy_module

    monkeypatch.setattr(copy_module, "_REGEX_FORMS", 0)
    copies = copy_module.copies_of({"Xk7pQ2vL9mR4": "a", "Xk7pQ2vL9mR4tW": "b"})
    assert copies is not None
    assert copy_module.copy_spans("key Xk7pQ2vL9mR4", copies) == [(4, 16, "a")]
    assert copy_module.copy_spans("key Xk7pQ2vL9mR4tW", copies) == [(4, 18, "b")]


def test_two_secret_keys_masked_alike_keep_both_values() -> None:
    first, second = (
        "ghp_" + "Xk9mP2qR7sT4vW1yZ3bC5dF8gH0jL6nQ2rS4",
        "ghp_" + "Ab9mP2qR7sT4vW1yZ3bC5dF8gH0jL6nQ2rZZ",
    )
    item = SubstrateItem("text", "c", payload={"tokens": {first: "alice", second: "bob"}})
    payload = admit(item).item.payload
    assert payload == {
        "tokens": {"[REDACTED:github_token]": "alice", "[REDACTED:github_token] #2": "bob"}
    }


def test_what_the_gate_stores_scans_clean_when_a_mask_gives_a_value_its_context() -> None:
    # the key id is masked as "[REDACTED:aws_access_key]", which names an access key: its
    # value, a plain string to the first scan, is then a key's value, and is masked too
    key_id = "AKIA" + "".join(_R.choice(string.ascii_uppercase + "234567") for _ in range(16))
    secret = rnd(40)
    item = SubstrateItem(kind="record", text="x", payload={"iam": {key_id: secret}})
    clean = admit(item).item
    assert key_id not in repr(clean.to_json()) and secret not in repr(clean.to_json())
    assert scan_item(clean).clean
    assert clean.provenance["redactions"]["count"] == 2


def test_an_id_that_is_a_secret_or_holds_a_control_character_is_refused() -> None:
    import pytest

    from substrate.errors import InvalidInputError

    for bad in (GH, "note\nid"):
        with pytest.raises(InvalidInputError, match="item id") as refused:
            admit(SubstrateItem("text", "plain words", id=bad))
        assert GH not in str(refused.value)
    assert admit(SubstrateItem("text", "plain words", id="my-note-1")).item.id == "my-note-1"


def test_each_string_of_a_list_under_a_plural_secret_key_is_judged_by_it() -> None:
    item = SubstrateItem(
        kind="record",
        payload={
            "api_keys": ["Zk8vQ2mNxR7pL4tYw9bC3dF6hJ1sA0eG5uVd"],
            "passwords": ["Jd5^hR7mCv"],
            "tokens": ["the", "cat", "Understanding"],  # a plural alone names no secret
            "logprobs": {"tokens": ["Hello", " Photosynthesis", "ChatGPT4o"]},  # a model's
            "max_tokens": 1500,
        },
    )
    result = admit(item)
    assert result.item.payload["api_keys"] == ["[REDACTED:sensitive_assignment]"]
    assert result.item.payload["passwords"] == ["[REDACTED:sensitive_assignment]"]
    assert result.item.payload["tokens"] == ["the", "cat", "Understanding"]
    assert result.item.payload["logprobs"] == item.payload["logprobs"] and result.redactions == 2


def test_a_number_under_a_secret_key_is_judged_by_the_key_as_the_text_scanner_does() -> None:
    from substrate.secrets.engine import find_secrets

    payload = {
        "service": "db",
        "db_password": 9876543210123,  # YAML and TOML read an unquoted password as a number
        "vpn": {"pin_code": 1234, "secret": 73910284},
        "passwords": [83920174],
        "password": 1234,  # too short and plain to be told from a setting, as in a file
        "api_key": 12345678901234567890,  # a machine-made key is never all digits
        "port": 5432,
        "max_password_length": 64,
        "password_set": True,
        "pass_rate": 0.734375,  # a fraction is a measure, never a password
        "pass@1": 0.853658,
        "password_hash": 10**5000,  # longer than any password (and than str() takes)
    }
    item = SubstrateItem(kind="record", text="db 9876543210123", payload=payload)
    scan = scan_item(item)
    assert sorted(f.field for f in scan.findings) == [
        "payload.db_password",
        "payload.passwords[0]",
        "payload.vpn.secret",
    ]
    # the same values written out as a file's text: what scan-secrets and redact find
    for key, value in [("db_password", 9876543210123), ("secret", 73910284), ("password", 1234)]:
        assert bool(find_secrets(f"{key}: {value}")) == (value != 1234)
    result = admit(item)
    stored = result.item.payload
    assert stored["db_password"] == "[REDACTED:sensitive_assignment]"
    assert stored["passwords"] == ["[REDACTED:sensitive_assignment]"]
    assert stored["vpn"] == {"pin_code": 1234, "secret": "[REDACTED:sensitive_assignment]"}
    kept = ("password", "api_key", "port", "max_password_length", "password_set", "pass_rate")
    assert {k: stored[k] for k in kept} == {k: payload[k] for k in kept}
    assert stored["pass@1"] == 0.853658 and stored["password_hash"] == 10**5000
    assert result.item.text == "db [REDACTED:sensitive_assignment]"  # its copy in the text
    assert result.redactions == 3 and scan_item(result.item).clean
