"""The values of a Kubernetes Secret manifest are secrets by the document's kind."""

from __future__ import annotations

import base64
import random
from pathlib import Path

import pytest

from substrate.ingest import ingest_path
from substrate.secrets.engine import find_secrets
from substrate.secrets.screen import may_hold_secrets
from substrate.store import Substrate

PASSWORD = "Vq7-rT2m!pXz"
ENCODED = base64.b64encode(PASSWORD.encode()).decode()
PLACEHOLDER = base64.b64encode(b"changeme").decode()
CERT = base64.b64encode(b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n").decode()


def found(text: str) -> list[tuple[str, str]]:
    return [(h.rule, text[h.start : h.end]) for h in find_secrets(text)]


def test_every_value_of_the_data_map_is_a_secret() -> None:
    # "tls.crt" or "ca.pem" name no secret: the kind says what the values are
    text = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-tls\ntype: Opaque\n"
        f"data:\n  ca.pem: {CERT}\n  db: '{ENCODED}'  # quoted\n"
    )
    assert found(text) == [("kubernetes_secret", CERT), ("kubernetes_secret", ENCODED)]


def test_the_kind_may_follow_the_map_and_be_quoted_or_in_lower_case() -> None:
    text = (
        f"apiVersion: v1\ndata:\n\tsession: \"{ENCODED}\"\nkind: 'secret'\nmetadata:\n\tname: s\n"
    )
    assert found(text) == [("kubernetes_secret", ENCODED)]


def test_string_data_holds_plain_secrets() -> None:
    text = f"kind: Secret\nstringData:\n  conn: {PASSWORD}\n  user: admin\n"
    assert found(text) == [("kubernetes_secret", PASSWORD)]


def test_a_block_value_is_masked_line_by_line_with_its_short_last_line() -> None:
    long = base64.b64encode(b'{"auths":{"registry.internal":{"auth":"' + b"q" * 60 + b'"}}}')
    first, last = long[:60].decode(), long[60:].decode()
    text = f"kind: Secret\ndata:\n  .dockercfg: |\n    {first}\n    {last}\nmetadata:\n  name: x\n"
    assert found(text) == [("kubernetes_secret", first), ("kubernetes_secret", last)]


@pytest.mark.parametrize(
    "text",
    [
        # another kind: a ConfigMap, or a resource naming where a secret is kept
        f"kind: ConfigMap\ndata:\n  session: {ENCODED}\n",
        "kind: ExternalSecret\nspec:\n  data:\n    - secretKey: api\n      remoteRef:\n"
        "        key: prod/api-key-location\n",
        # a data map nested in another key, not the document's own
        f"kind: Secret\nspec:\n  template:\n    data:\n      session: {ENCODED}\n",
        # nothing to find: empty, templated, too short, encrypted, a placeholder
        "kind: Secret\ndata:\n  csrf: ''\n  pw: {{ .Values.password }}\n  user: YWRtaW4=\n",
        "kind: Secret\ndata:\n  pw: ENC[AES256_GCM,data:W3PiZ6lD6bpfAdI=,type:str]\n",
        f"kind: Secret\ndata:\n  session: {PLACEHOLDER}\n",
        # a Secret in one document, a map in the next
        f"kind: Secret\nmetadata:\n  name: a\n---\nkind: ConfigMap\ndata:\n  x: {ENCODED}\n",
    ],
)
def test_values_that_are_no_secret_of_a_secret_manifest(text: str) -> None:
    assert [rule for rule, _ in found(text)] == []


def test_each_document_of_a_file_is_read_for_itself() -> None:
    text = (
        f"kind: ConfigMap\ndata:\n  a: {ENCODED}\n---\n"
        f"kind: Secret\ndata:\n  b: {CERT}\n---\nkind: Service\n"
    )
    assert found(text) == [("kubernetes_secret", CERT)]


def test_the_screen_sends_a_secret_manifest_to_the_scan() -> None:
    # the gate trusts the screen's "no": a Secret manifest must never pass it unscanned
    assert may_hold_secrets([f"kind: Secret\ndata:\n  tls.key: {CERT}\n"])


def test_a_manifest_in_a_note_is_stored_masked(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    manifest = f"```yaml\napiVersion: v1\nkind: Secret\ndata:\n  tls.key: {CERT}\n```\n"
    (notes / "deploy.md").write_text(f"# Deploy\n\nApply this:\n\n{manifest}", encoding="utf-8")
    shard = Substrate(tmp_path / "shard")
    report = ingest_path(shard, notes)
    assert report.redactions == 1
    assert CERT not in (tmp_path / "shard" / "items.jsonl").read_text(encoding="utf-8")


def test_a_quoted_value_is_masked_whole_past_its_escaped_quotes() -> None:
    text = (
        "kind: Secret\nstringData:\n"
        '  dsn: "Zq9!vR2#mLp7\\"Tx8&kW3uQ5^nB1"\n'
        "  conf: 'Hk3@pLm9!qZ''r7#Vt2%wX8y'\n"
        '  open: "Wm4$kQ8!zR2#pL6v\n'  # a quote left open: masked to the line's end
    )
    assert [value for _, value in found(text)] == [
        'Zq9!vR2#mLp7\\"Tx8&kW3uQ5^nB1',
        "Hk3@pLm9!qZ''r7#Vt2%wX8y",
        "Wm4$kQ8!zR2#pL6v",
    ]


def test_a_manifest_with_windows_line_ends_is_read() -> None:
    text = f"apiVersion: v1\r\nkind: Secret\r\ndata:\r\n  ca.pem: {CERT}\r\n"
    assert found(text) == [("kubernetes_secret", CERT)]


def test_a_random_key_is_a_secret_whatever_its_bytes() -> None:
    # bytes that are no UTF-8 had read as a run of replacement characters: "repetitive"
    rng = random.Random(5)
    keys = [base64.b64encode(rng.randbytes(24)).decode() for _ in range(300)]
    text = "kind: Secret\ndata:\n" + "".join(f"  k{i}: {key}\n" for i, key in enumerate(keys))
    assert [value for _, value in found(text)] == keys


def test_a_note_s_code_blocks_are_documents_of_their_own() -> None:
    note = (
        f"# Deploy\n\n```yaml\nkind: Secret\ndata:\n  ca.pem: {CERT}\n```\n\nThen:\n\n"
        "```yaml\nkind: ConfigMap\ndata:\n  storage_path: /var/lib/postgresql/data\n```\n"
    )
    assert found(note) == [("kubernetes_secret", CERT)]


@pytest.mark.parametrize("key", ["password", "client-secret", "conf"])
def test_a_value_under_a_secret_s_name_is_masked_whole_too(key: str) -> None:
    # the rule of a key named for a secret stops at the first quote inside its value
    text = f"kind: Secret\nstringData:\n  {key}: 'Hk3@pLm9''qZr7#Vt2%wX8y'\n"
    assert found(text) == [("kubernetes_secret", "Hk3@pLm9''qZr7#Vt2%wX8y")]
    left_open = f"kind: Secret\nstringData:\n  {key}: 'Hk3@pLm9!qZ''r7#Vt2%wX8y\n"
    assert found(left_open) == [("kubernetes_secret", "Hk3@pLm9!qZ''r7#Vt2%wX8y")]


def test_a_fence_inside_a_block_value_ends_no_document() -> None:
    text = (
        "kind: Secret\nstringData:\n  README.md: |\n    ```\n    run it\n    ```\n"
        "  conn: Hk3@pLm9!qZr7#Vt2%wX8y\n"
    )
    assert found(text) == [("kubernetes_secret", "Hk3@pLm9!qZr7#Vt2%wX8y")]


@pytest.mark.parametrize(
    "layout",
    [
        "kind: Secret\ndata:\n{{- if .Values.db }}\n  url: VALUE\n{{- end }}\n",  # Helm, column 0
        "kind: Secret\ndata:\n  url: VALUE\t# rotated in May\n",  # a comment after a tab
        "kind: Secret\ndata:\n  url: &db-url VALUE\n",  # an anchor
        "kind: Secret\ndata:\n  url: !!binary VALUE\n",  # a tag
        "kind: Secret\ndata:\n  url:\n    VALUE\n",  # on the line under its key
        "\ufeffkind: Secret\ndata:\n  url: VALUE\n",  # after a byte-order mark
        "kind: List\nitems:\n- kind: Secret\n  data:\n    url: VALUE\n",  # an item, kind first
    ],
)
def test_common_layouts_of_a_secret_s_value(layout: str) -> None:
    assert found(layout.replace("VALUE", CERT)) == [("kubernetes_secret", CERT)]


def test_a_value_wrapped_over_lines_is_masked_on_each() -> None:
    first, rest = CERT[:40], CERT[40:]
    text = f"kind: Secret\ndata:\n  tls.key: {first}\n    {rest}\nmetadata:\n  name: t\n"
    assert found(text) == [("kubernetes_secret", first), ("kubernetes_secret", rest)]


@pytest.mark.parametrize(
    "text",
    [
        # a List of a Secret and a ConfigMap: the ConfigMap's data is no secret
        "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: a\n"
        f"- apiVersion: v1\n  kind: ConfigMap\n  data:\n    APP_MODE: {ENCODED}\nkind: List\n",
        # a note's list items, their fences indented: each an object of its own
        "1. Create it:\n\n    ```yaml\n    kind: Secret\n    metadata:\n      name: a\n    ```\n\n"
        f"2. Then:\n\n    ```yaml\n    kind: ConfigMap\n    data:\n      x: {ENCODED}\n    ```\n",
        # settings' words under stringData
        "kind: Secret\nstringData:\n  dbname: orders\n  sslmode: require\n  role: readonly\n",
    ],
)
def test_no_secret_beside_a_secret_manifest(text: str) -> None:
    assert found(text) == []


def test_an_anchor_before_a_plain_value_does_not_make_it_quoted() -> None:
    # a passphrase counts as one quoted only: "&pw" before it quotes nothing
    plain = "kind: Secret\nstringData:\n  motd: PROPS welcome to the staging box\n"
    assert found(plain.replace("PROPS ", "")) == found(plain.replace("PROPS", "&motd")) == []
    quoted = "kind: Secret\nstringData:\n  pw: &pw 'Hk3@ pLm9 qZr7'\n"
    assert found(quoted) == [("kubernetes_secret", "Hk3@ pLm9 qZr7")]
