"""The seed API: detect_secrets / redact_secrets / safe_text and their result shapes."""

from __future__ import annotations

import random
import string

import pytest

from substrate.errors import InvalidInputError
from substrate.secrets import SecretFinding, SecretScan, detect_secrets, redact_secrets, safe_text

_R = random.Random(7)


def rnd(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


GH = "ghp_" + rnd(36)
PASSWORD = "Xq7!" + rnd(10)


def test_empty_and_clean_text() -> None:
    assert detect_secrets("").clean
    assert detect_secrets("the password is kept safe").clean
    assert detect_secrets("token: short").clean
    assert redact_secrets("nothing here") == "nothing here"
    assert redact_secrets("") == ""
    assert detect_secrets(None).clean  # type: ignore[arg-type]  # as the seed's does


@pytest.mark.parametrize("scan", [detect_secrets, redact_secrets])
def test_bytes_are_refused_by_name_not_by_a_pattern_deep_inside(scan: object) -> None:
    with pytest.raises(InvalidInputError, match=r"takes a str, not bytes"):
        scan(b"password = hunter2")  # type: ignore[operator]


def test_scan_shape_and_sorting() -> None:
    text = f"a {GH} b api_key = '{rnd(24)}' c"
    scan = detect_secrets(text)
    assert [f.rule for f in scan.findings] == ["github_token", "sensitive_assignment"]
    assert scan.findings[0].start < scan.findings[1].start
    d = scan.as_dict()
    assert d["clean"] is False and d["n_findings"] == 2
    assert d["rules"] == ["github_token", "sensitive_assignment"]
    assert set(d["findings"][0]) >= {"rule", "start", "end", "preview"}
    assert text[scan.findings[0].start : scan.findings[0].end] == GH


def test_seed_constructors_still_work() -> None:
    f = SecretFinding("jwt", 0, 5, "jwt:\u2026")
    assert f.field == "text"
    assert SecretScan().clean and SecretScan([f]).rules() == ["jwt"]


def test_preview_never_shows_the_secret() -> None:
    scan = detect_secrets(f"password = '{PASSWORD}' and {GH}")
    for f in scan.findings:
        assert PASSWORD[:4] not in f.preview or f.rule != "sensitive_assignment"
        assert GH[4:10] not in f.preview
    assert scan.findings[-1].preview == "github_token:ghp_\u2026"


def test_redaction_masks_fully() -> None:
    text = f"deploy {GH} now"
    out = redact_secrets(text)
    assert out == "deploy [REDACTED:github_token] now"
    assert safe_text(text) == out


def test_custom_mask() -> None:
    assert redact_secrets(GH, mask="<{rule}>") == "<github_token>"
    for bad in ("{nope}", "{0}", "{rule", "{rule.upper}"):  # refused, clean text or not
        with pytest.raises(InvalidInputError, match="no other"):
            redact_secrets("nothing to hide", mask=bad)


def test_keep_prefix_reveals_only_public_prefix_or_a_quarter() -> None:
    assert redact_secrets("AKIA1234567890ABCDEF", keep_prefix=4) == "AKIA[REDACTED:aws_access_key]"
    out = redact_secrets(f'password = "{PASSWORD}"', keep_prefix=8)
    visible = out.split('"')[1].split("[REDACTED")[0]
    assert len(visible) <= len(PASSWORD) // 4
    assert out.startswith('password = "')  # key name untouched, never counted as prefix
    assert PASSWORD not in out


def test_keep_prefix_on_assignment_does_not_reveal_key_name() -> None:
    out = redact_secrets('api_key: "abcdef123"', keep_prefix=4)
    assert out.startswith('api_key: "') and out.endswith('"')
    assert "abcdef123" not in out


def test_url_credentials_mask_only_the_password() -> None:
    out = redact_secrets(f"postgres://admin:{PASSWORD}@db.internal:5432/app")
    assert out == "postgres://admin:[REDACTED:url_credentials]@db.internal:5432/app"


def test_url_credentials_without_a_scheme_are_masked_and_comments_are_not() -> None:
    out = redact_secrets(f"see //admin:{PASSWORD}@db.internal/app for the primary")
    assert out == "see //admin:[REDACTED:url_credentials]@db.internal/app for the primary"
    for clean in ("// TODO: fix@later", "x = a//b:c@d", "<script src=//cdn.example.com/x.js>"):
        assert redact_secrets(clean) == clean


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("postgres://svc:p@ss{}@db.internal/app", "postgres://svc:{}@db.internal/app"),
        ("redis://:Qm7#vL2p@Xz9{}@cache.internal:6379", "redis://:{}@cache.internal:6379"),
        ("amqp://bus:a@b@c{}@mq.internal", "amqp://bus:{}@mq.internal"),
    ],
)
def test_url_credentials_mask_a_password_holding_an_at_sign_whole(url: str, masked: str) -> None:
    # clients end the password at the last @ before the host: only "p" was masked
    out = redact_secrets(f"dsn = {url.format(PASSWORD)} # primary")
    assert out == f"dsn = {masked.format('[REDACTED:url_credentials]')} # primary"


def test_url_credentials_in_a_template_are_left_but_a_password_beginning_your_is_not() -> None:
    masked = "postgres://svc:[REDACTED:url_credentials]@db.prod.internal/x"
    assert redact_secrets("postgres://svc:Yourk3yZ9q@db.prod.internal/x") == masked
    for template in (
        "postgres://svc:your_password@db.internal/x",
        "postgres://svc:<password>@db.internal/x",
    ):
        assert redact_secrets(template) == template


@pytest.mark.parametrize(
    "url",
    [
        "DATABASE_URL=postgres://admin:{}@db.internal.example.com:5432/prod",
        'url = "https://deploy:{}@git.example.com/repo.git"',
        "postgres://svc:{}@db.example.com/x",
    ],
)
@pytest.mark.parametrize("password", ["Hu8kLp3Qz9w", "Hu8$kLp3Qz9w", "Yourk3yZ9q"])
def test_a_random_password_is_masked_at_an_example_host(url: str, password: str) -> None:
    out = redact_secrets(url.format(password))
    assert out == url.format("[REDACTED:url_credentials]")


@pytest.mark.parametrize(
    "url",
    [
        "https://user:pass@example.com",
        "ftp://user:password@ftp.example.com",
        "postgres://admin:secret123@db.example.com/app",
        "mongodb://root:P@ssw0rd@mongo.example.org",
        "redis://:Tr0ub4dor&3@cache.example.net",
        "https://user:xxx@db.acme.io/x",
        "https://user:***@db.acme.io/x",
        "https://user:<pass>@db.acme.io/x",
        "https://user:${PASS}@db.acme.io/x",
        "https://user:changeme@db.acme.io/x",
    ],
)
def test_a_password_shown_to_a_reader_is_left_in_a_link(url: str) -> None:
    assert redact_secrets(url) == url


def test_assignment_keeps_quotes() -> None:
    assert redact_secrets('api_key: "abcdef123"') == 'api_key: "[REDACTED:sensitive_assignment]"'


@pytest.mark.parametrize(
    "text",
    [
        "password: 'Xk9''mQ2vL8pRz'",  # YAML and SQL double a single quote
        "db_password = 'Xk9mQ2''vL8pRz'",
        'password: "Xk9\\"mQ2vL8pRz"',  # a backslash before a double quote
        "PASSWORD='Xk9mQ2'\\''vL8pRz'",  # a shell ends, escapes and reopens its quote
    ],
)
def test_a_quoted_value_is_masked_past_its_escaped_quotes(text: str) -> None:
    out = redact_secrets(text)
    assert "mQ2" not in out and "pRz" not in out, out
    assert out.endswith("[REDACTED:sensitive_assignment]" + text[-1])


@pytest.mark.parametrize(
    "text",
    [
        'key_dir = "C:\\keys\\" ; api_token = "Xk9mQ2vL8pRzT4wN"',
        'keyfile="C:\\ssh\\", password="Xk9mQ2vL8pRz"',
        'secret_dir = "\\\\server\\share\\" password = "Xk9mQ2vL8pRz"',
    ],
)
def test_a_value_ending_in_a_backslash_ends_at_its_quote(text: str) -> None:
    # a Windows folder's trailing backslash escapes no quote: the next value is read too
    out = redact_secrets(text)
    assert "mQ2" not in out and "pRz" not in out, out
    assert out.endswith('"[REDACTED:sensitive_assignment]"')


def test_a_value_ending_in_a_backslash_at_the_line_end_is_read() -> None:
    assert redact_secrets('password = "Xk9mQ2vL8pRz\\"') == (
        'password = "[REDACTED:sensitive_assignment]"'
    )


@pytest.mark.parametrize(
    "text",
    [
        'body="{\\"user\\":\\"david\\",\\"password\\":\\"Xk9mQ2vL8pRz\\"}"',  # a log line
        '"SecretString": "{\\"username\\":\\"db\\",\\"password\\":\\"Xk9mQ2vL8pRz\\"}"',
        'request {\\"api_token\\": \\"Xk9mQ2vL8pRz\\"} sent',
    ],
)
def test_a_value_of_json_escaped_in_a_string_is_masked(text: str) -> None:
    out = redact_secrets(text)
    assert "mQ2" not in out and "pRz" not in out, out
    assert '[REDACTED:sensitive_assignment]\\"' in out
    assert detect_secrets('x = "{\\"token\\":\\"%s\\"}"').clean  # a template


def test_an_empty_quoted_value_before_another_string_is_no_finding() -> None:
    assert redact_secrets("password = '' # or 'x'") == "password = '' # or 'x'"


def test_private_key_block_body_masked() -> None:
    body = "\n".join(rnd(64, string.ascii_letters + string.digits + "+/") for _ in range(3))
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    out = redact_secrets(text)
    assert body not in out and "[REDACTED:private_key_block]" in out
    assert out.startswith("-----BEGIN RSA PRIVATE KEY-----")


@pytest.mark.parametrize(
    "end",
    [
        "-----END PGP PRIVATE KEY BLOCK--",  # cut short
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQENBF\n-----END PGP PUBLIC KEY BLOCK-----",
    ],
)
def test_a_key_block_whose_own_end_line_is_missing_is_masked(end: str) -> None:
    # another END line after it (a shortened one, the public half of an exported pair) was
    # taken for the key's own, and the body stayed in clear
    lines = [rnd(64, string.ascii_letters + string.digits + "+/") for _ in range(20)]
    text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(lines) + "\n" + end + "\n"
    out = redact_secrets(text)
    assert not [line for line in lines if line in out]


@pytest.mark.parametrize(
    "text",
    [
        'password = "changeme"',
        "token: <your-token>",
        'api_key = "xxxxxxxxxxxxxxxx"',
        'password = "${DB_PASSWORD}"',
        'password = os.environ["DB_PASSWORD"]',
        "token = process.env.API_TOKEN",
        'secret: "{{ vault_secret }}"',
        'api_key = "example-key-1234567890"',
        'password = "dummy-value"',
        'password = "sample123"',
        'password = "test1234"',
        'password = "fake_password"',
        'password = "aaaaaaaaaa"',
        'password = "12345678"',
        "password = get_password()",
        "token = self.token",
        "secret_key = settings.SECRET_KEY",
        'password: "Enter your password"',
        "password_reset_url = 'https://example.org/reset'",
        'token_type = "bearer"',
        'public_key = "' + rnd(40) + '"',
        'password = "ENC[AES256_GCM,data:abc,iv:def]"',
    ],
)
def test_placeholders_and_references_do_not_alarm(text: str) -> None:
    assert detect_secrets(text).clean, text


@pytest.mark.parametrize(
    "text",
    [
        "password: Ks5(dFg2)hJk8Lz",
        "DB_PASSWORD=Xy7(qP9)zR3",
        "password: Xy7[qP9]zR3",
        "password: Hx7(aB)9Qz(Lm)",  # ending in a bracket: no call's brackets balance so
    ],
)
def test_a_password_with_brackets_inside_is_no_call(text: str) -> None:
    # read as a call or a subscript, it was let through; in code a letter never follows
    # the closing bracket (a call's "get_pw(x).strip()" and "cfg['a']['b']" still pass)
    assert redact_secrets(text).endswith("[REDACTED:sensitive_assignment]"), text
    assert detect_secrets("password = cfg.get('pw').strip()").clean
    assert detect_secrets("password = f(g(h(x)))").clean  # (nested calls)
    # a call cut at a quote, its brackets balanced so far (Node's crypto docs)
    assert detect_secrets("secret = compute(key(), 'hex')").clean
    assert detect_secrets("const s = alice.computeSecret(bob.getPublicKey(), null, 'hex');").clean


@pytest.mark.parametrize(
    "text",
    [
        f'password = "{PASSWORD}"',
        f"DB_PASSWORD={PASSWORD}",
        f"export API_TOKEN={rnd(32)}",
        f'<add key="SmtpPassword" value="{PASSWORD}" />',
        f"<password>{PASSWORD}</password>",
        f'"client_secret": "{rnd(30)}"',
        f"secret_key: {rnd(40)}",
        f"--password={PASSWORD}",
        f'setPassword("{PASSWORD}")',
        f'if (api_key == "{rnd(20)}") {{',
        f'System.setProperty("SERVICE_TOKEN", "{rnd(32)}")',
    ],
)
def test_random_looking_values_alarm(text: str) -> None:
    assert detect_secrets(text).rules() == ["sensitive_assignment"], text


def test_marked_tokens_are_found_in_urls_identifiers_and_escapes() -> None:
    import random
    import string

    rng = random.Random(3)
    token = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    for text in (f"https://{token}@github.com/o/r", f"token_{token}", f"\\n{token}"):
        assert token not in redact_secrets(text), text


def test_a_key_header_whose_body_was_masked_is_not_reported_again() -> None:
    from substrate.secrets.engine import find_secrets

    header = "-----BEGIN PRIVATE KEY-----"
    assert [h.rule for h in find_secrets(header + "\n")] == ["private_key_block"]  # cut off
    assert find_secrets(header + "[REDACTED:private_key_block]") == []


def test_a_text_redacted_once_is_clean_when_scanned_again() -> None:
    # the mask's colon once read as curl's user:password, its rule's name as the password
    slack = "xoxb-" + "-".join([rnd(12, string.digits), rnd(13, string.digits), rnd(24)])
    texts = (f"curl -u }}{slack} https://x", f"-u [{GH}] ok", f"curl -u {GH}:{PASSWORD} x")
    for text in texts:
        redacted = redact_secrets(text)
        assert "[REDACTED:" in redacted
        assert detect_secrets(redacted).clean, redacted


def test_an_armored_key_longer_than_16_kb_is_masked_whole() -> None:
    rng = random.Random(11)
    body = "\n".join(
        "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(64))
        for _ in range(300)
    )
    armor = "PGP PRIVATE KEY BLOCK-----"
    key = f"-----BEGIN {armor}\n\n{body}\n=Ab3x\n-----END {armor}"
    masked = redact_secrets(f"backup:\n{key}\nend")
    assert len(key) > 19_000 and body[:64] not in masked and body[-64:] not in masked
    assert masked.startswith("backup:\n-----BEGIN PGP PRIVATE KEY BLOCK-----[REDACTED:")


def test_copies_of_a_found_secret_are_masked_whole() -> None:
    # the second line has no keyword: only the first shows the value is a password
    text = f'password = "{PASSWORD}"\nmysql login {PASSWORD} then {GH}, again {GH}'
    out = redact_secrets(text)
    assert PASSWORD not in out and GH not in out
    assert out.count("[REDACTED:sensitive_assignment]") == 2
    assert out.count("[REDACTED:github_token]") == 2
    shown = redact_secrets(text, keep_prefix=4)
    # a copy's public prefix is not known: nothing of it is shown
    assert "mysql login [REDACTED:sensitive_assignment]" in shown
    assert f"again {GH[:4]}[REDACTED:github_token]" in shown
    assert redact_secrets(f"{PASSWORD}x is another word") == f"{PASSWORD}x is another word"
