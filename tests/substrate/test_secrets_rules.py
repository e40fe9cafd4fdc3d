"""Every rule fires on a well-formed credential and stays quiet on its placeholder.

Test credentials are generated at run time from a seeded RNG so this file holds no
secret-looking literals of its own.
"""

from __future__ import annotations

import base64
import json
import random
import string
import subprocess
import sys
from typing import Any

import pytest

from substrate.secrets import RULE_NAMES, RULES, detect_secrets, redact_secrets, scan_text
from substrate.secrets.engine import KEYWORDLESS, _shortest_match, find_secrets
from substrate.secrets.prefilter import word_filters

_R = random.Random(20240601)
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rnd(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def b64url(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def pem(kind: str, body: str) -> str:
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


PASSWORD = "Tr0ub4dor&" + rnd(6)
PEM_BODY = "\n".join(rnd(64, B64) for _ in range(4))

# rule name -> (text that must trigger it, placeholder text that must stay clean)
CASES: dict[str, tuple[str, str]] = {
    "gcp_service_account_key": (
        json.dumps({"type": "service_account", "private_key": pem("", PEM_BODY)}),
        json.dumps({"type": "service_account", "private_key": pem("", "<your key here>")}),
    ),
    "private_key_block": (
        pem("RSA ", PEM_BODY),
        pem("RSA ", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ),
    "age_secret_key": (
        "AGE-SECRET-KEY-1" + rnd(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
        "AGE-SECRET-KEY-1" + "Q" * 58,
    ),
    "aws_access_key": (
        "key id " + "AKIA" + rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
        "key id " + "AKIA" + "X" * 16,
    ),
    "aws_secret_key": (
        "aws_secret_access_key = " + rnd(40, B64),
        "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    ),
    "aws_bedrock_api_key": (
        "ABSK" + "QmVkcm9ja0FQSUtleS" + rnd(100, B64),
        "ABSK" + "QmVkcm9ja0FQSUtleS" + "EXAMPLE" * 15,
    ),
    "gcp_api_key": ("maps key AIza" + rnd(35, URLSAFE), "maps key AIza" + "a" * 35),
    "gcp_oauth_token": ("ya29." + rnd(60, URLSAFE), "ya29." + "x" * 60),
    "azure_storage_key": (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + rnd(86, B64) + "==",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + "A" * 86 + "==",
    ),
    "azure_connection_string": (
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKey=" + rnd(43, B64) + "=",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKey=" + "x" * 43 + "=",
    ),
    "azure_sas_token": (
        "https://a.blob.core.windows.net/c?sv=2022-11-02&sr=b&sig=" + rnd(43, ALNUM) + "%3D",
        "https://a.blob.core.windows.net/c?sv=2022-11-02&sr=b&sig=" + "x" * 43 + "%3D",
    ),
    "azure_ad_client_secret": (rnd(3) + "8Q~" + rnd(34, ALNUM + "_~."), "abc8Q~" + "x" * 34),
    "digitalocean_token": ("dop_v1_" + rnd(64, HEX), "dop_v1_" + "0" * 64),
    "cloudflare_origin_ca_key": (
        "v1.0-" + rnd(24, HEX) + "-" + rnd(146, HEX),
        "v1.0-" + "0" * 24 + "-" + "0" * 146,
    ),
    "github_token": ("token ghp_" + rnd(36), "token ghp_" + "x" * 36),
    "gitlab_token": ("glpat-" + rnd(20, URLSAFE), "glpat-" + "x" * 20),
    "bitbucket_token": ("ATBB" + rnd(32) + rnd(8, "0123456789ABCDEF"), "ATBB" + "x" * 40),
    "slack_token": (
        "xoxb-" + rnd(12, "123456789") + "-" + rnd(13, "123456789") + "-" + rnd(24),
        "xoxb-" + "x" * 30,
    ),
    "slack_webhook": (
        "https://hooks.slack.com/services/T"
        + rnd(10, UPPER_ALNUM)
        + "/B"
        + rnd(10, UPPER_ALNUM)
        + "/"
        + rnd(24),
        "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
    ),
    "discord_bot_token": (
        "MT" + rnd(22, URLSAFE) + "." + rnd(6, URLSAFE) + "." + rnd(30, URLSAFE),
        "MT" + "x" * 22 + "." + "x" * 6 + "." + "x" * 30,
    ),
    "discord_webhook": (
        "https://discord.com/api/webhooks/" + rnd(18, "0123456789") + "/" + rnd(68, URLSAFE),
        "https://discord.com/api/webhooks/123456789012345678/" + "x" * 68,
    ),
    "telegram_bot_token": (
        "bot " + rnd(9, "123456789") + ":AA" + rnd(33, URLSAFE),
        "bot 123456789:AA" + "x" * 33,
    ),
    "teams_webhook": (
        "https://acme.webhook.office.com/webhookb2/"
        + rnd(36, HEX + "-")
        + "@"
        + rnd(36, HEX + "-")
        + "/IncomingWebhook/"
        + rnd(32, HEX)
        + "/"
        + rnd(36, HEX + "-"),
        "https://acme.webhook.office.com/webhookb2/" + "x" * 40 + "/IncomingWebhook/" + "x" * 40,
    ),
    "twilio_api_key": ("sid SK" + rnd(32, HEX), "sid SK" + "0" * 32),
    "sendgrid_key": (
        "SG." + rnd(22, URLSAFE) + "." + rnd(43, URLSAFE),
        "SG." + "x" * 22 + "." + "x" * 43,
    ),
    "sendinblue_key": (
        "xkeysib-" + rnd(64, HEX) + "-" + rnd(16),
        "xkeysib-" + "0" * 64 + "-" + "x" * 16,
    ),
    "mailchimp_key": ("mc " + rnd(32, HEX) + "-us12", "mc " + "0" * 32 + "-us12"),
    "mailgun_key": ("mg key-" + rnd(32, HEX), "mg key-" + "0" * 32),
    "stripe_key": ("sk_" + "live_" + rnd(24), "sk_" + "live_" + "x" * 24),
    "square_token": ("sq0atp-" + rnd(22, URLSAFE), "sq0atp-" + "x" * 22),
    "shopify_token": ("shpat_" + rnd(32, HEX), "shpat_" + "0" * 32),
    "paypal_braintree_token": (
        "access_token$production$" + rnd(16, LOWER_ALNUM) + "$" + rnd(32, HEX),
        "access_token$production$" + "0" * 16 + "$" + "0" * 32,
    ),
    "flutterwave_key": (
        "FLWSECK-" + rnd(32, "abcdefgh0123456789") + "-X",
        "FLWSECK-" + "0" * 32 + "-X",
    ),
    "shippo_token": ("shippo_live_" + rnd(40, HEX), "shippo_live_" + "0" * 40),
    "easypost_key": ("EZAK" + rnd(54), "EZAK" + "x" * 54),
    "anthropic_key": ("sk-ant-api03-" + rnd(93, URLSAFE) + "AA", "sk-ant-api03-" + "x" * 93 + "AA"),
    "openai_key": (
        "sk-proj-" + rnd(20) + "T3BlbkFJ" + rnd(20),
        "sk-proj-" + "x" * 20 + "T3BlbkFJ" + "x" * 20,
    ),
    "huggingface_token": ("hf_" + rnd(30, string.ascii_letters) + "7e2Q", "hf_" + "x" * 34),
    "replicate_token": ("r8_" + rnd(37), "r8_" + "x" * 37),
    "groq_key": ("gsk_" + rnd(52), "gsk_" + "x" * 52),
    "perplexity_key": ("pplx-" + rnd(48), "pplx-" + "x" * 48),
    "npm_token": (
        "//registry.npmjs.org/:_authToken=npm_" + rnd(36),
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    ),
    "pypi_token": ("pypi-AgEIcHlwaS5vcmc" + rnd(90, URLSAFE), "pypi-AgEIcHlwaS5vcmc" + "x" * 90),
    "rubygems_token": ("rubygems_" + rnd(48, HEX), "rubygems_" + "0" * 48),
    "clojars_token": ("CLOJARS_" + rnd(60, LOWER_ALNUM), "CLOJARS_" + "x" * 60),
    "nuget_key": ("oy2" + rnd(43, LOWER_ALNUM), "oy2" + "x" * 43),
    "dockerhub_token": ("dckr_pat_" + rnd(27, URLSAFE), "dckr_pat_" + "x" * 27),
    "artifactory_token": ("AKCp" + rnd(69), "AKCp" + "x" * 69),
    "databricks_token": ("dapi" + rnd(32, HEX), "dapi" + "0" * 32),
    "doppler_token": ("dp.pt." + rnd(43), "dp.pt." + "x" * 43),
    "dynatrace_token": (
        "dt0c01." + rnd(24, UPPER_ALNUM) + "." + rnd(64, UPPER_ALNUM),
        "dt0c01." + "X" * 24 + "." + "X" * 64,
    ),
    "newrelic_key": ("NRAK-" + rnd(27, UPPER_ALNUM), "NRAK-" + "X" * 27),
    "grafana_token": ("glc_" + rnd(40, B64), "glc_" + "x" * 40),
    "vault_token": ("hvs." + rnd(95, URLSAFE), "hvs." + "x" * 95),
    "vault_unseal_key": ("Unseal Key 1: " + rnd(44, B64), "Unseal Key 1: " + "x" * 44),
    "terraform_token": (
        rnd(14, LOWER_ALNUM) + ".atlasv1." + rnd(67, LOWER_ALNUM),
        "x" * 14 + ".atlasv1." + "x" * 67,
    ),
    "pulumi_token": ("pul-" + rnd(40, HEX), "pul-" + "0" * 40),
    "postman_key": (
        "PMAK-" + rnd(24, HEX) + "-" + rnd(34, HEX),
        "PMAK-" + "0" * 24 + "-" + "0" * 34,
    ),
    "sentry_token": ("sntryu_" + rnd(64, HEX), "sntryu_" + "0" * 64),
    "planetscale_token": ("pscale_tkn_" + rnd(43), "pscale_tkn_" + "x" * 43),
    "linear_key": ("lin_api_" + rnd(40), "lin_api_" + "x" * 40),
    "prefect_key": ("pnu_" + rnd(36), "pnu_" + "x" * 36),
    "readme_key": ("rdme_" + rnd(70, LOWER_ALNUM), "rdme_" + "x" * 70),
    "typeform_token": ("tfp_" + rnd(59, URLSAFE), "tfp_" + "x" * 59),
    "flyio_token": ("fo1_" + rnd(43, URLSAFE), "fo1_" + "x" * 43),
    "onepassword_token": ("ops_eyJ" + rnd(260, B64), "ops_eyJ" + "x" * 260),
    "onepassword_secret_key": (
        "A3-"
        + rnd(6, UPPER_ALNUM)
        + "-"
        + rnd(11, UPPER_ALNUM)
        + "-"
        + "-".join(rnd(5, UPPER_ALNUM) for _ in range(3)),
        "A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX",
    ),
    "mapbox_secret_token": ("sk.eyJ" + rnd(60, URLSAFE), "sk.eyJ" + "x" * 60),
    "adobe_client_secret": ("p8e-" + rnd(32), "p8e-" + "x" * 32),
    "openshift_token": ("sha256~" + rnd(43, URLSAFE), "sha256~" + "x" * 43),
    "harness_token": (
        "pat." + rnd(22) + "." + rnd(24, HEX) + "." + rnd(20),
        "pat." + "x" * 22 + "." + "0" * 24 + "." + "x" * 20,
    ),
    "twitter_bearer_token": ("A" * 22 + rnd(80), "A" * 22 + "x" * 80),
    "facebook_access_token": ("EAAC" + rnd(100), "EAAC" + "x" * 100),
    "sidekiq_secret": (
        "BUNDLE_GEMS__CONTRIBSYS__COM=" + rnd(8, HEX) + ":" + rnd(8, HEX),
        "BUNDLE_GEMS__CONTRIBSYS__COM=${SIDEKIQ_CREDS}",
    ),
    "sourcegraph_token": ("sgp_" + rnd(40, HEX), "sgp_" + "0" * 40),
    "notion_token": ("ntn_" + rnd(11, "0123456789") + rnd(35), "ntn_" + "0" * 11 + "x" * 35),
    "heroku_key": ("HRKU-AA" + rnd(58, URLSAFE), "HRKU-AA" + "x" * 58),
    "intra42_secret": ("s-s4t2ud-" + rnd(64, HEX), "s-s4t2ud-" + "0" * 64),
    "softlayer_api_key": (
        "http://api.softlayer.com/soap/v3/" + rnd(64, LOWER_ALNUM),
        "http://api.softlayer.com/soap/v3/" + "x" * 64,
    ),
    "jwt": (
        b64url({"alg": "HS256", "typ": "JWT"})
        + "."
        + b64url({"sub": rnd(10)})
        + "."
        + rnd(43, URLSAFE),
        "eyJ" + "x" * 20 + "." + "eyJ" + "x" * 20 + "." + "x" * 20,
    ),
    "url_credentials": (
        "postgres://admin:" + PASSWORD + "@db.internal:5432/app",
        "postgres://admin:${DB_PASSWORD}@db.internal:5432/app",
    ),
    "basic_auth_header": (
        "Authorization: Basic " + base64.b64encode(("alice:" + PASSWORD).encode()).decode(),
        "Authorization: Basic xxxxxxxxxxxxxxxx",
    ),
    "bearer_token": (
        "Authorization: Bearer " + rnd(40, URLSAFE),
        "Authorization: Bearer " + "X" * 40,
    ),
    "authorization_header": ("Authorization: Token " + rnd(40), "Authorization: Token " + "x" * 40),
    "basic_auth_credentials": (
        "curl -u alice:" + PASSWORD + " https://api.internal/v1",
        "curl -u alice:$API_PASSWORD https://api.internal/v1",
    ),
    "presigned_url_signature": (
        "https://b.s3.amazonaws.com/f.zip?X-Amz-Expires=600&X-Amz-Signature=" + rnd(64, HEX),
        "https://b.s3.amazonaws.com/f.zip?X-Amz-Expires=600&X-Amz-Signature=" + "0" * 64,
    ),
    "command_line_password": (
        "mysql -u root -p" + PASSWORD + " shop",
        "mysql -u root -p shop  # asks for the password",
    ),
    "sensitive_assignment": ('db_password = "' + PASSWORD + '"', 'db_password = "changeme"'),
    "password_argument": (
        'r = requests.get(url, auth=("admin", "' + PASSWORD + '"))',
        'r = requests.get(url, auth=("admin", os.environ["API_PASSWORD"]))',
    ),
    "pgpass_entry": (
        "db.example.com:5432:shop:app:" + PASSWORD,
        "db.example.com:5432:shop:app:$PGPASSWORD",
    ),
    "kubernetes_secret": (
        "kind: Secret\ndata:\n  ca.pem: " + base64.b64encode(PASSWORD.encode()).decode(),
        "kind: Secret\ndata:\n  ca.pem: {{ .Values.caPem }}",
    ),
    "otp_secret": (
        "otpauth://totp/Shop:ann@example.com?secret=FQXKWOVOMPZOM7WB&issuer=Shop",
        "otpauth://totp/Shop:ann@example.com?secret=YOUR_SECRET_HERE&issuer=Shop",
    ),
    "recovery_phrase": (
        "mnemonic: legal winner thank year wave sausage worth useful legal winner thank yellow",
        "recovery phrase: write down these twelve words and keep them safe offline for later",
    ),
}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULE_NAMES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_fires_on_true_positive(name: str) -> None:
    assert name in detect_secrets(CASES[name][0]).rules()


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_quiet_on_placeholder(name: str) -> None:
    assert detect_secrets(CASES[name][1]).clean


def test_rules_are_declarative_and_compile() -> None:
    for rule in RULES:
        assert rule.name and rule.pattern
        assert all(k == k.lower() for k in rule.keywords)
        assert rule.regex.pattern == rule.pattern
        kinds = {"token", "assignment", "stated", "stated_bare", "fallback", "credential", "url"}
        kinds |= {"user_option", "key_body"}
        kinds |= {"argument", "named_element", "directive", "pre_shared_key"}
        kinds |= {"pem", "netrc", "yaml_block", "line_value", "label", "header_token"}
        kinds |= {"jwt", "jwt_b64", "yaml_next_line", "document", "localized", "phrase"}
        assert rule.kind in kinds


@pytest.mark.parametrize(
    ("sentence", "secret"),
    [
        ("Server notes: the root password is {} for db01", True),
        ("password is {}", True),
        ("The admin password was {}.", True),
        ("the password for db01 is '{}'", True),
        ("The password for the VPN is {}.", True),  # said of something in a few words
        ("the password of my bank's app was {}", True),
        ("the password for resetting accounts is sent by mail", False),
        ("# the passphrase is `{}`", True),
        ("Passwords: the password is stored in the vault", False),
        ("Your password is incorrect.", False),
        ("The password was changed in 2024.", False),
        ("the password is at least 12 characters long", False),
        ("the password is $DB_PASSWORD", False),
        ("if password is not None:", False),
        # a message in code is prose too, whatever marks close it (it blocked commits)
        ('raise ValueError("Your password is incorrect!")', False),
        ("print('the password is wrong?')", False),
        ("the password is 'sunshine'", False),  # a word quoted: prose as often as not
        ("the key is {}", False),  # a bare "key" is too common a word
        ("The staging API key is {}", True),  # a key named as notes name one
        ("the bot token was `{}`.", True),
        ("the API key for prod is {}", True),
        ("The access token is expired.", False),
        ("the API key is stored in Vault", False),
        ("The client secret is ${{CLIENT_SECRET}}", False),
        ("'the secret access key is displayed.\\n'", False),  # a sentence in a literal
        ("if the certificate or private key is encrypted\\&. Can be", False),  # troff
        # what a key is, said of it: its kind and its length
        ("The private key is 4096-bit RSA and lives in Vault.", False),
        ("Our private key is RSA-2048.", False),
        ("The secret key is 256-bits long.", False),
        ("The API key is 40-chars hex.", False),
        ("The service token is k8s-sa-token-abc123xyz9.", False),
        ("The password is 2FA-protected.", False),  # a compound describing it
        ("the password is case-sensitive", False),
        ("the password is s3cret-sauce", True),
        ("The db password? It\u2019s {}.", True),  # a typographic apostrophe
        ("The wifi password is: {}", True),  # a colon after the verb
        ("The password is: stored in the vault", False),
        # hard-wrapped after the verb: the value opens the next line
        ("the admin password is\n{} until we rotate it", True),
        ("the password is\n`{}`", True),
        ("The password is\nstored in the vault.", False),
        ("the token is\nrotated by the CI job", False),
    ],
)
def test_a_password_stated_in_a_sentence(sentence: str, secret: bool) -> None:
    # free-text notes say "the password is X" more often than "password = X"
    assert_password_found(sentence.format(PASSWORD), secret)


def assert_password_found(text: str, secret: bool) -> None:
    """``PASSWORD`` in ``text`` is found, and masked, exactly when it is a ``secret``."""
    found = detect_secrets(text)
    assert found.rules() == (["sensitive_assignment"] if secret else []), text
    if secret:
        assert PASSWORD not in redact_secrets(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("| key | value |\n|---|---|\n| DB_PASSWORD | {} |\n", True),  # a runbook's table
        ("| key | value |\n|---|---|\n| db password | {} |\n", True),  # a label in words
        ("| Setting | Value |\n|---|---|\n| staging API key | `{}` |", True),
        ("| min password length | {} |", False),  # the secret's noun is not the label's last
        ("| the admin console asks for a password | {} |", False),  # prose, not a label
        ("| Name | Value |\n|---|---|\n| Scope of token | {} |\n", False),  # about the secret
        ("| Format of the secret | {} |", False),
        ("| Rotation of key | {} |", False),
        ("| api_token | `{}` | rotated monthly |", True),
        ("| password | The user's password | required |", False),  # a table describing fields
        ("| password | required |", False),
        ("| `API_TOKEN` | `{}` |", True),  # the key in code or bold, as documentation writes it
        ("| **db_password** | {} |", True),
        ("| `password` | string |", False),
        ("Deploy\n======\n\n:password: {}\n", True),  # a reStructuredText field list
        ("  :db-password: {}", True),
        ("https://registry.example.org/:_authToken=zz", False),  # the npm rule's business
        ("name\tvalue\nDB_PASSWORD\t{}\n", True),  # two tab-separated columns
        ("password\tsecret\n", False),
        ("the password\t{}", True),  # not as a column: as a strong value after the word
        ('{{"name": "DB_PASSWORD", "value": "{}"}}', True),  # an entry naming its value
        ("env:\n  - name: DB_PASSWORD\n    value: {}\n", True),  # ... in YAML, over two lines
        ('"ParameterKey": "DbPassword", "ParameterValue": "{}"', True),
        ("- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {}", False),
        ("- name: LOG_LEVEL\n  value: {}", False),
        ("hostname: DB_PASSWORD\nvalue: {}", False),
    ],
)
def test_a_key_and_its_value_side_by_side(text: str, secret: bool) -> None:
    assert_password_found(text.format(PASSWORD), secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("| service | user | password |\n|---|---|---|\n| db | admin | {} |\n", True),
        ("| host | password | notes |\n|:--|:-:|--:|\n| a | b | c |\n| db | `{}` | old |", True),
        ("Service | DB password\n--- | ---\ncache | {}", True),  # no outer pipes
        ("| Name | Client secret |\n|---|---|\n| billing | **{}** |", True),
        ("| env | password |\n|---|---|\n| prod | (kept in the vault) |", False),
        ("| env | password |\n|---|---|\n| prod | $PROD_DB_PASSWORD |", False),
        ("| check | pass rate |\n|---|---|\n| unit | {} |", False),  # not a secret's noun
        ("| setting | password policy |\n|---|---|\n| min | {} |", False),
        ("| endpoint | auth |\n|---|---|\n| /users | {} |", False),
        ("| service | password |\n|---|---|\n| db | x |\n\n| db | {} |", False),  # table ended
        ("| service | password |\n| db | {} |", False),  # no delimiter row: not a table
    ],
)
def test_a_table_column_named_for_a_secret(text: str, secret: bool) -> None:
    # a credentials table in a runbook: the header names the column, the rows only values
    assert_password_found(text.format(PASSWORD), secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("machine api.internal login deploy password {}", True),
        ("default login anonymous password {}", True),
        ("set the default password plugin", False),
        ("Add `machine git.internal login me password {}` to ~/.netrc", True),
        ("machine api.internal\n  login deploy\n  password {}\n", True),
        ("machine api.internal\n  login deploy\n  password hunter22\n", True),  # any value
        ("Go to the login page and type your password twice", False),
        ("login: deploy\npassword hunter22", False),  # not .netrc's syntax: a word after "password"
        ("machine api.internal login deploy password $NETRC_PASSWORD", False),
    ],
)
def test_a_netrc_entry(text: str, secret: bool) -> None:
    found = detect_secrets(text.format(PASSWORD))
    assert found.rules() == (["sensitive_assignment"] if secret else []), text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("db:\n  password: |\n    {}\n", True),  # a YAML block scalar
        ("db:\n  password: >-\n    {}\n", True),
        ('- "api_token": |\n    {}', True),
        ("description: |\n  {}\n", False),  # not a secret's key
        ("password: |\n  ${{DB_PASSWORD}}\n", False),
        ("password: |\n  # set by the operator\n", False),
    ],
)
def test_a_value_under_a_yaml_block_mark(text: str, secret: bool) -> None:
    assert_password_found(text.format(PASSWORD), secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("db:\n  password:\n    {}\n", True),  # a plain value on the line under its key
        ('password:\r\n  "{}"\r\n', True),
        ("- api_token:\n    {}", True),
        ("api_key:\n    {}  # prod\n", True),  # comments close YAML lines
        ("password:   # db\n  {}\n", True),
        ("password: # " + "a long comment " * 20 + "\n  {}\n", True),
        ("  secret_key:\n  {}\n", False),  # not deeper than the key: another key's line
        ("password:\n  {}: x\n", False),  # a nested mapping
        ("password:\n  - {}\n", False),  # a list
        ("password:\n  *{}\n", False),  # an alias
        ("Reset the token:\n  {}\n", False),  # prose, not a key
        ("description:\n  {}\n", False),  # not a secret's key
        ("password:\n  ${{DB_PASSWORD}}\n", False),
        ("password:\n  {} and more\n", False),  # a phrase, not one value
    ],
)
def test_a_value_on_the_line_under_a_yaml_key(text: str, secret: bool) -> None:
    assert_password_found(text.format(PASSWORD), secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("The staging password:\n\n    {}\n", True),  # under a blank line, as code
        ("Password:\n`{}`\n", True),
        ("**API key for staging:**\r\n{}\r\n", True),
        ("- Encrypt your password:\n\n`ntfyme enc`\n", False),  # a command, not a value
        ("- Retrieve the password:\n\n`larasail mysqlpass{}`\n", False),
        ("To reset your password:\n1. Open the settings\n", False),
        ("The password:\n\n\n{}\n", False),  # two blank lines: another paragraph
        ("Password:\n# {}\n", False),  # a heading
    ],
)
def test_a_value_on_the_line_under_its_label(text: str, secret: bool) -> None:
    assert_password_found(text.format(PASSWORD), secret)


def test_a_generated_value_under_its_label_may_have_words_after_it() -> None:
    text = "db password:\nXk9mQ2vL7pZq8Rt for now\n"
    assert [text[h.start : h.end] for h in detect_secrets(text).findings] == ["Xk9mQ2vL7pZq8Rt"]
    for words in ("ask Dana for it", "See the vault entry db-prod", "pass show db/prod"):
        assert detect_secrets(f"db password:\n{words}\n").findings == [], words


@pytest.mark.parametrize(
    "text",
    [
        'password: "{}"',
        "DB_PASSWORD={}",
        "postgres://app:{}@db.internal:5432/app",
        "<password>{}</password>",
        "the db password is {}",
    ],
)
@pytest.mark.parametrize(
    "value", ["Hq7mZ2.vL9zRw", "S3cr3t.P4ss", "a8f5f167f44f4964e6c998dee827.b2"]
)
def test_a_password_with_a_dot_is_no_attribute_chain(text: str, value: str) -> None:
    # "a.b" reads like code's config.password, but no one names an attribute "Hq7mZ2"
    assert [h.end - h.start for h in find_secrets(text.format(value))] == [len(value)]


@pytest.mark.parametrize(
    "text",
    [
        "password = config.db_password",
        "password: settings.DB_PASSWORD",
        'token = "k8s.io"',
        'secret = "oauth2client.client"',
        "api_key = os.environ.API_KEY",
    ],
)
def test_an_attribute_chain_is_still_a_reference(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'creds = " --username=%s --password=%s" % (user, pw)',  # holes an option's value fills
        "<li><code>passphrase</code>: &#x3C;string> Optional.</li>",  # <string>, as HTML writes
        "passphrase: &lt;string&gt;",
    ],
)
def test_holes_and_placeholders_as_documents_write_them_are_no_secrets(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password = "Tr0ub%s4dor"', "Tr0ub%s4dor"),  # a "%s" inside a value is no hole
        ("password: &lt;b&gt;Tr0ub4dor&amp;3", "&lt;b&gt;Tr0ub4dor&amp;3"),
        ('password = "Tr0ub::4dor"', "Tr0ub::4dor"),  # no one names a namespace so
        ('password = "admin::secret"', "admin::secret"),  # a pair of words, no C++ type
        ('token = "prod::Xk9mPq2vL7Rt::v2"', "prod::Xk9mPq2vL7Rt::v2"),
        ('creds = "user=%s:password=Xk9mPq2vL7Rt"', "user=%s:password=Xk9mPq2vL7Rt"),
        ('secret_key = "Zq8XcV1pD7sL0mN3Xa=%s"', "Zq8XcV1pD7sL0mN3Xa=%s"),
        ("password: Xk9mPq2vL7Rt.<strong>", "Xk9mPq2vL7Rt.<strong>"),  # markup after, not code
        # what looks like code or a name in a document may be a password: judged as any other
        ("<li>Password: Summer2024.<span", "Summer2024.<span"),
        ('password = "root::HelloWorld2024"', "root::HelloWorld2024"),
        ('client_secret: "oauth::ClientSecret::Zq8Lm2Xv9Tk3Wp7Ys1Nb5"', None),
        ("TOKEN_CONTROL=x7Kq9LmZ2pR4tVw8", "x7Kq9LmZ2pR4tVw8"),
        ("ADMIN_PASSWORD_CONTROL_PANEL=Summer2024!", "Summer2024!"),
        ("api_key_property = aZ3kLq9Xw2Tr8Yp5Nm1BxQ7", "aZ3kLq9Xw2Tr8Yp5Nm1BxQ7"),
        ("SECRET_KEY_MGR=aZ3kLq9Xw2Tr8Yp5Nm1BxQ7Lk8", "aZ3kLq9Xw2Tr8Yp5Nm1BxQ7Lk8"),
    ],
)
def test_a_password_holding_what_looks_like_a_hole_is_found(text: str, secret: str | None) -> None:
    found = [text[h.start : h.end] for h in find_secrets(text)]
    assert found == [secret] if secret is not None else found  # (None: found, however cut)


HEX_KEY = rnd(32, HEX)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("**Password:** {}", PASSWORD),  # a Markdown label in bold
        ("**Password**: {}", PASSWORD),
        ("Password for the VPN: {}", PASSWORD),
        ("password (prod): {}", PASSWORD),
        ("pw is {}", PASSWORD),
        ("- **API key:** {}", HEX_KEY),
        ("* API Key: `{}`", HEX_KEY),
        ("new api key for staging: {}", HEX_KEY),
        ("creds: deploy / {}", PASSWORD),  # the password, not the user
    ],
)
def test_a_credential_written_as_a_note(text: str, secret: str) -> None:
    shown = redact_secrets(text.format(secret))
    assert secret not in shown and "[REDACTED" in shown
    assert "deploy" in shown or "deploy" not in text


def test_a_weak_password_named_like_a_password_manager_is_still_one() -> None:
    assert detect_secrets('password = "1password"').rules() == ["sensitive_assignment"]


B64_PASSWORD = "Kq7" + rnd(3, string.ascii_letters) + "/2vL9x"  # base64 holds "/"


@pytest.mark.parametrize(
    ("text", "secret", "rule"),
    [
        # a password holding a "/" (base64 holds them) was taken for a path
        ("DB_PASSWORD={}", B64_PASSWORD, "sensitive_assignment"),
        ('{{"password": "{}"}}', B64_PASSWORD, "sensitive_assignment"),
        # Authorization headers of any scheme: GitHub's "token", Okta's "SSWS", "basic" in
        # lower case as actions/checkout writes it into .git/config
        ("curl -H 'Authorization: token {}'", rnd(40, HEX), "authorization_header"),
        ('-H "Authorization: SSWS {}"', "00" + rnd(40), "authorization_header"),
        (
            "AUTHORIZATION: basic {}",
            base64.b64encode(rnd(30).encode()).decode(),
            "basic_auth_header",
        ),
        # a Vault root token is 24 characters; unseal keys as `vault operator init` prints them
        ("vault login {}", "hvs." + rnd(24), "vault_token"),
        ("Unseal Key 2: {}", rnd(44, B64), "vault_unseal_key"),
        # .npmrc's other credentials
        (
            "//nexus.corp/repository/npm/:_auth={}",
            base64.b64encode(b"deploy:Wq9").decode() + "x=",
            "npm_token",
        ),
        ("//nexus.corp/repository/npm/:_password={}", rnd(16, B64), "npm_token"),
        # a Telegram bot token in the Bot API's URL
        (
            "https://api.telegram.org/bot{}/sendMessage",
            rnd(10, "123456789") + ":AA" + rnd(33, URLSAFE),
            "telegram_bot_token",
        ),
        # a whole INI or .env line: the value holds what ends a value in prose
        ("[client]\npassword = {}\n", rnd(5) + "," + rnd(6), "sensitive_assignment"),
        ("passphrase = {}", "correct horse battery staple", "sensitive_assignment"),
        (
            "DB_PASSWORD={} # rotated in May",
            rnd(4) + '"' + rnd(4) + ";" + rnd(4),
            "sensitive_assignment",
        ),
        # tables as clients print them, and a "Pass" column beside a user's
        (
            "+----+------+----------+\n| id | user | password |\n+----+------+----------+\n"
            "| 1  | root | {} |\n+----+------+----------+",
            PASSWORD,
            "sensitive_assignment",
        ),
        (
            "| Host | Login | Pass |\n|---|---|---|\n| db1 | root | {} |",
            PASSWORD,
            "sensitive_assignment",
        ),
        (  # as psql prints it
            " usename | passwd\n---------+----------\n alice   | {}\n(1 row)\n",
            PASSWORD,
            "sensitive_assignment",
        ),
        # SQL, and tools given a password on their command line
        ("CREATE USER 'app'@'%' IDENTIFIED BY '{}';", PASSWORD, "command_line_password"),
        (
            "GRANT ALL ON shop.* TO 'app'@'%' IDENTIFIED BY \"{}\";",
            PASSWORD,
            "command_line_password",
        ),
        ("htpasswd -b -c /etc/nginx/.htpasswd admin {}", PASSWORD, "command_line_password"),
        ("htpasswd -nb admin {} && echo done", PASSWORD, "command_line_password"),
        ("smbclient //files/share -U admin%{}", PASSWORD, "command_line_password"),
        ('mongosh "mongodb://admin@mongo" -p {}', PASSWORD, "command_line_password"),
    ],
)
def test_credentials_once_passed_over(text: str, secret: str, rule: str) -> None:
    found = detect_secrets(text.format(secret))
    assert found.rules() == [rule], text
    assert secret not in redact_secrets(text.format(secret))


@pytest.mark.parametrize(
    "line",
    [
        'settings["password"] = "{}"',  # a quoted key indexing a map
        "$config['db_password'] = '{}';",
        'creds = dict(password="{}")',  # a call given the secret-named argument first
        'auth = Auth(token="{}")',
        'PASSWORD = """{}"""',  # triple quotes
        'PASSWORD = f"{}"',  # a prefixed literal, in brackets
        'PASSWORD = ("{}")',
        'PASSWORD = ( r"{}" )',
        'PASSWORD = ("{}",)',
        'assert cfg["password"]==hash_pw(password="{}")',  # the map key's is no value
        'SECRET_KEY = env("SECRET_KEY", default="{}")',  # a default after the name
        'parser.add_argument("--password", default="{}")',
        '  :password => "{}",',  # a Ruby symbol key
        'const API_KEY: &str = "{}";',  # Rust's reference types
        'pub const DB_PASSWORD: &\'static str = "{}";',
        '    "password = \\"{}\\"\\n",',  # a notebook's code line, in its JSON
        '    "conn = connect(host=\\"db\\", password=\\"{}\\")\\n",',
    ],
)
def test_a_password_in_code_idioms_is_found_as_text_and_as_code(line: str) -> None:
    text = line.format(PASSWORD)
    for syntax in ("text", "code"):
        masked = text
        for hit in reversed(find_secrets(text, syntax=syntax)):
            masked = masked[: hit.start] + "#" + masked[hit.end :]
        assert PASSWORD not in masked and PASSWORD[3:-3] not in masked, (syntax, masked)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("cli.py", 'parser.add_argument("--api-key", required=True, metavar="KEY")'),
        ("user.go", '\tPassword string `json:"password"`'),
        ("user.go", '\tSecretKey string `env:"SECRET_KEY,required" yaml:"secret_key"`'),
        ("auth.go", 'token := strings.TrimPrefix(auth, "Bearer ")'),
        ("auth.go", "secretKey := []byte(cfg.SecretKey)"),
        ("model.py", 'attributes_key = f"{decapitalize(decision_type)}DecisionAttributes"'),
        # a quoted map key: what follows it unquoted is code, in notes too
        ("notes.md", "$data['password']=$this->input->post('password');"),
    ],
)
def test_code_that_names_a_secret_holds_none(path: str, line: str) -> None:
    from substrate.secrets import scan_text

    assert not scan_text(line + "\n", path=path).findings, line


@pytest.mark.parametrize(
    "line",
    [
        'session.auth = ("admin", "{}")',
        'AUTH = ("admin", "{}")',  # in notes too: the user stays readable
        'auth = HTTPBasicAuth("admin", "{}")',
        'smtp.login("me@example.org", "{}")',
        'req.SetBasicAuth("admin", "{}")',
        'var creds = new NetworkCredential("admin", "{}");',
    ],
)
def test_a_password_given_after_its_user_is_masked_alone(line: str) -> None:
    text = line.format(PASSWORD)
    assert detect_secrets(text).rules() == ["password_argument"], text
    masked = redact_secrets(text)
    assert PASSWORD not in masked, masked
    assert "admin" in masked or "admin" not in text, masked


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (".env", "DB_PASSWORD=Xk9mQ(2vLp7"),  # a bracket inside a password in text
        ("notes.md", "password = Sup3r(Secret"),
        ("deploy.sh", 'creds["password"]=Xk9mQ2vLp7zR'),  # a shell's map, unquoted
        ("notes.md", 'settings["SECRET_KEY"] = Xk9mQ2vLp7zR4tW'),
        ("rows.txt", '"token",YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo='),  # padding, no argument
        ("notes.md", 'client_secret=f"FzFz23PWvP5Giv:ZD{jBN4"'),  # no template in text
        (".env", "DB_PASSWORD=Xk9(q=7Zp!2m"),  # "(name=" inside a password is no call
        (".env", "SECRET_KEY=$Zk9->Q2x7Lm"),
        ("notes.md", '("password", aGVsbG8gd29ybGQ=)'),
    ],
)
def test_values_once_found_in_text_are_still_found(path: str, line: str) -> None:
    from substrate.secrets import scan_text

    assert scan_text(line + "\n", path=path).findings, line


def test_a_login_s_conventional_passwords_are_none() -> None:
    for line in ('ftp.login("anonymous", "anonymous@")', 'self.login("admin", "admin")'):
        assert not detect_secrets(line).findings, line


def test_a_tuple_in_brackets_is_not_read_as_its_first_literal() -> None:
    # ("user", "password"): the first is a user name, whatever the key's name says
    for syntax in ("text", "code"):
        assert not find_secrets("sim_auth = ('Mr.A@somewhere.com', 'somepassword')", syntax=syntax)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a passphrase of plain words given by "=" is masked whole ...
        (
            "passphrase = correct horse battery staple",
            "passphrase = [REDACTED:sensitive_assignment]",
        ),
        ("WIFI_PASSWORD=Purple Monkey Dishwasher", "WIFI_PASSWORD=[REDACTED:sensitive_assignment]"),
        # ... after ":" too, but two plain words there are as often a note
        (
            "password: correct horse battery staple",
            "password: [REDACTED:sensitive_assignment]",
        ),
        ("Password: Okta SSO", "Password: Okta SSO"),
        # a credential's word among plain words says where it is kept; beside a random one, not
        ("Credentials: Jenkins credential store", "Credentials: Jenkins credential store"),
        (
            "password: credentials Xk9pLm2qR7",
            "password: [REDACTED:sensitive_assignment]",
        ),
        ("password=Keys Galore Banana", "password=[REDACTED:sensitive_assignment]"),
        ("password: Golden Keys Ring", "password: [REDACTED:sensitive_assignment]"),
        ("Password: rotated monthly", "Password: rotated monthly"),
        # plain words after ":" leading into the next line, in any language ...
        (
            "pw-record: Check upstream docs:\ntldr pw-cat",
            "pw-record: Check upstream docs:\ntldr pw-cat",
        ),
        (
            "pw-record: Смотри документацию для команды:\nls",
            "pw-record: Смотри документацию для команды:\nls",
        ),
        # ... not a value so ended, nor one given by "=", nor one ending the text
        ("password: Xk9m Qz7p:\nnext", "password: [REDACTED:sensitive_assignment]:\nnext"),
        ("PASSWORD=purple monkey dishwasher:\nls", "PASSWORD=[REDACTED:sensitive_assignment]:\nls"),
        ("password: Golden Keys Ring:", "password: [REDACTED:sensitive_assignment]:"),
        # ... nor one before the next setting of its block
        (
            "password: purple monkey dishwasher:\nuser: admin",
            "password: [REDACTED:sensitive_assignment]:\nuser: admin",
        ),
        # a value and a note about it: the value, and its copies elsewhere
        (
            "Password: Tr0ub4dor&3, rotate monthly\nuse Tr0ub4dor&3",
            "Password: [REDACTED:sensitive_assignment], rotate monthly\n"
            "use [REDACTED:sensitive_assignment]",
        ),
        (
            "DB_PASSWORD=xKqZmVbLwTrQ # set in prod",
            "DB_PASSWORD=[REDACTED:sensitive_assignment] # set in prod",
        ),
        (
            "Username / Password: jenkins / Kq7#mZ2vL9x",
            "Username / Password: jenkins / [REDACTED:sensitive_assignment]",
        ),
    ],
)
def test_a_line_s_value_and_what_follows_it(text: str, shown: str) -> None:
    assert redact_secrets(text) == shown


@pytest.mark.parametrize(
    "line",
    [
        "env DB_PASSWORD=marmalade ./run.sh",
        "sudo -E DB_PASSWORD=marmalade make deploy",
        "LOG_LEVEL=debug DB_PASSWORD=marmalade ./run.sh",
        "$ env DB_PASSWORD=marmalade ./run.sh",
        "cd app && DB_PASSWORD=marmalade ./run.sh",
        "Run `env DB_PASSWORD=marmalade ./run.sh` once.",
        "docker run -e POSTGRES_PASSWORD=marmalade postgres",
        'docker run -e "POSTGRES_PASSWORD=marmalade" -d postgres',
        "docker run --env=POSTGRES_PASSWORD=marmalade postgres",
        "openssl genrsa -aes256 -passout pass:marmalade -out key.pem",
        "openssl enc -aes-256-cbc -pass pass:marmalade -in notes.txt",
        # where a command starts: a list's item, a prompt, a step, a wrapper's own option,
        # a string holding a command
        "  - DB_PASSWORD=marmalade ./run_tests.sh",
        "- PGPASSWORD=marmalade 2>&1",
        "user@host:~$ DB_PASSWORD=marmalade ./run.sh",
        "RUN DB_PASSWORD=marmalade ./setup.sh",
        "run: DB_PASSWORD=marmalade npm test",
        "sudo -u app DB_PASSWORD=marmalade ./run.sh",
        "timeout 10 env DB_PASSWORD=marmalade ./run.sh",
        '{"cmd": "env DB_PASSWORD=marmalade ./run.sh"}',
        'bash -c "DB_PASSWORD=marmalade ./run.sh"',
        # a command in a sentence, with quoted arguments, or chained after another
        "1. Run `DB_PASSWORD=marmalade ./deploy.sh` to deploy.",
        'Run "DB_PASSWORD=marmalade ./deploy.sh" to deploy it now.',
        "PGPASSWORD=marmalade psql -h db -c 'select * from users where id is not null'",
        "cd app && DB_PASSWORD=marmalade python manage.py runserver",
        "yes | DB_PASSWORD=marmalade python manage.py flush",
    ],
)
def test_a_plain_word_a_command_line_gives_as_a_password_is_masked(line: str) -> None:
    # the words after it are the command it runs, or its next option, not a note
    shown = redact_secrets(line)
    assert "marmalade" not in shown and "[REDACTED:sensitive_assignment]" in shown, shown
    assert shown.replace("[REDACTED:sensitive_assignment]", "marmalade") == line


@pytest.mark.parametrize(
    "line",
    [
        "PGPASSWORD={} psql -h db01 -U app appdb",
        "DB_PASSWORD={} ./migrate.sh --env prod",
        "export DB_PASSWORD={} && ./migrate.sh",
        "mysql -u root --password={} prod",
        "helm install redis bitnami/redis --set auth.password={} --namespace cache",
    ],
)
@pytest.mark.parametrize("value", ["marmalade", "Hq4nW7kYt2Bc"])
def test_a_password_set_for_a_command_is_masked_alone_and_in_its_copies(
    line: str, value: str
) -> None:
    # the command after the value is no part of it: its copy elsewhere is masked, the
    # command kept
    text = line.format(value) + f"\nor log in by hand with {value} on db02"
    shown = redact_secrets(text)
    assert value not in shown, shown
    assert shown == text.replace(value, "[REDACTED:sensitive_assignment]")


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        # a shell's history glues the command to the time it ran
        (": 1699999999:0;mysql -u root -p{} prod", "command_line_password"),
        ("cd /srv && mysql -uroot -p{} orders", "command_line_password"),
        # a web server sets the header with a blank after its name
        ('proxy_set_header Authorization "Basic {}";', "basic_auth_header"),
        # a compose file's healthcheck lists the command's words
        ('test: ["CMD", "mysqladmin", "ping", "-u", "root", "-p{}"]', "command_line_password"),
        ("ssh-keygen -t ed25519 -N '{}' -f deploy_key", "command_line_password"),
        ("az login --service-principal -u app-id -p {} --tenant acme", "command_line_password"),
        ('gh secret set DB_PASSWORD --body "{}"', "command_line_password"),
        ("rabbitmqctl add_user admin {}", "command_line_password"),
        # a server's user, set with its password
        ("    user admin insecure-password {}", "command_line_password"),
        ("ACL SETUSER alice on >{} ~cached:* +get", "command_line_password"),
        ("user alice on >{} ~* +@all", "command_line_password"),
        ("net user backupsvc {} /add", "command_line_password"),
        ('NET USER "Backup Svc" {}', "command_line_password"),
        ("mc alias set local http://localhost:9000 minio {}", "command_line_password"),
        # a parameter stored encrypted, its value on a line after the command's first
        (
            "aws ssm put-parameter \\\n  --value '{}' \\\n  --type SecureString",
            "command_line_password",
        ),
        # from a shell, which reads an unquoted > as a redirection
        ("redis-cli ACL SETUSER worker on '>{}' ~jobs:* +@list", "command_line_password"),
        ("redis-cli ACL SETUSER app on \\>{}", "command_line_password"),
        ("  - user app on >{} ~* +@all", "command_line_password"),
        # the shell's next word after it, or inline code's end
        (
            "net user svc_bkp {} & net localgroup administrators svc_bkp /add",
            "command_line_password",
        ),
        ("Run `net user svc_sql {}` to reset it.", "command_line_password"),
        ("C:\\> net.exe user svc {} >nul", "command_line_password"),
        # a tool called by its path, with options; aws with its own first
        ("./mc alias set --insecure local http://minio:9000 admin {}", "command_line_password"),
        (
            "aws --profile prod ssm put-parameter --value {} --type SecureString",
            "command_line_password",
        ),
        # a tool that reads it from the pipe
        ("echo {} | sudo -S apt-get update", "command_line_password"),
        ("echo {} | sudo -u deploy -S ls", "command_line_password"),
        ('echo "{}" | docker login -u admin --password-stdin ghcr.io', "command_line_password"),
    ],
)
def test_command_line_and_header_passwords_glued_or_spaced(line: str, rule: str) -> None:
    secret = base64.b64encode(b"deploy:" + rnd(12).encode()).decode()
    shown = redact_secrets(line.format(secret))
    assert secret not in shown and f"[REDACTED:{rule}]" in shown, shown


@pytest.mark.parametrize(
    "line",
    [
        # a URL's password holding "/" after a user named for a token
        "https://token:{}/L7wq@host/x",
        # a default given where the variable is unset
        "DB_PASSWORD=${{DB_PASSWORD:-{} and more}}",
        # a variable's value after a literal part
        "PGPASSWORD=abc${} ./run.sh",
        # a value the bare-value rule would cut short stays the line's
        "PGPASSWORD={},tree psql -h db",
        "PGPASSWORD={}\\ more psql -h db",
        # an option setting a secret after the verb "pass"
        "Pass `-Dpassword={}` to meson",
        # a folder of the command's path, or a comment, names nothing again
        "PGPASSWORD={} psql -f /srv/{}/dump.sql",
        "PGPASSWORD={} psql -h db # password is {}",
        # a value the next rule would not report alone stays the line's
        "DB_PASSWORD=qwerty{} ./run.sh",
        # compose's $$ escapes a literal $, not a variable of lower-case letters
        "DB_PASSWORD=$${}",
    ],
)
@pytest.mark.parametrize("secret", ["Xk9mQ2vL7wq", "tangerine"])
def test_values_that_look_like_names_or_commands_are_still_masked(line: str, secret: str) -> None:
    shown = redact_secrets(line.format(secret, secret))
    assert secret not in shown and "[REDACTED" in shown, shown


@pytest.mark.parametrize(
    "line", ['pass "{}" to login', "ftp user anonymous pass '{}' as usual", "pass '{}'"]
)
def test_a_password_after_pass_the_verb_or_the_noun_is_masked(line: str) -> None:
    shown = redact_secrets(line.format("Xk9#mQ2vL7"))
    assert "Xk9#mQ2vL7" not in shown and "[REDACTED" in shown, shown


def test_a_server_s_own_file_masks_the_password_to_the_next_blank() -> None:
    # no shell reads these files: ";", "<" and "&" are the password's
    for line in ("  user admin insecure-password Pq9;vTx4&mW", "user app on >Pq9;vTx4<mW ~*"):
        shown = redact_secrets(line)
        assert "Pq9" not in shown and "mW" not in shown, shown


def test_both_passphrases_of_ssh_keygen_are_masked() -> None:
    old, new = rnd(12), rnd(12)
    for line in (f"ssh-keygen -p -f key -P {old} -N {new}", f"ssh-keygen -p -N {new} -P {old}"):
        shown = redact_secrets(line)
        assert old not in shown and new not in shown, shown


def test_an_aws_session_token_with_its_run_of_slashes_is_masked() -> None:
    token = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD" + rnd(300)
    for line in (f"aws_session_token = {token}", f'"SessionToken": "{token}",'):
        assert token[60:] not in redact_secrets(line)


@pytest.mark.parametrize(
    "line",
    [
        # a command's output given as the value, cut at its first blank
        "export SECRET_KEY=$(openssl rand -hex 32)",
        "docker login -u $USER -p $(cat ~/.docker_pw) registry.example.com",
        "  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set}",
        # a URL's user named for a token, its password a variable
        "git clone https://oauth2:$GITLAB_TOKEN@gitlab.com/acme/app.git",
        "git clone https://gitlab-ci-token:$CI_JOB_TOKEN@gitlab.com/acme/lib.git",
        # alone on its line, a plain word and a note about it
        "password=development # not for prod",
        'ssh-keygen -t ed25519 -N "" -f deploy_key',  # no passphrase
        'command: ["mysql", "-u", "app", "-p"]',  # asks for one
        'gh secret set DB_PASSWORD --body "$DB_PASSWORD"',
        "rabbitmqctl add_user $RABBIT_USER $RABBIT_PASSWORD",
        "echo $REGISTRY_PASSWORD | docker login -u ci --password-stdin ghcr.io",
        "mc alias set local http://localhost:9000 $MINIO_USER $MINIO_PASSWORD",
        # a parameter stored in clear; a user without a password; a user deleted
        "aws ssm put-parameter --name /prod/db/host --value db01.internal --type String",
        "user default on nopass ~* +@all",
        "net user alice /delete",
        "The net user command displays the accounts",
        "echo hello | sudo -s",
        # words of a report, not a command: "net user" begins no command there, or the value
        # is a count
        "The net user base expanded\n\nRevenue expanded in every region.",
        "| Net user growth rate / churn | 3% |",
        "net user count 4512",
        # mc asks for the keys; a placeholder; variables of PowerShell and of a batch file
        "mc alias set myminio http://minio:9000 admin --insecure\nmc ls --insecure myminio/",
        "mc alias set myminio http://localhost:9000 ACCESS_KEY SECRET_KEY",
        "net user alice $env:NEWPASS /add",
        "mc alias set myminio http://localhost:9000 {{ minio_user }} {{ minio_password }}",
        # an upper-case name of words: what documentation asks the reader to fill in
        "docker login -u ci -p REGISTRY_PASSWORD ghcr.io",
        "mysql -u root -pROOT_PASSWORD orders",
        "net user alice !PASSWORD! /add",
        # a file holding the value; a String parameter whose description names the other type
        "aws ssm put-parameter --name /p --value file://secret.txt --type SecureString",
        'aws ssm put-parameter --value 10.0.12.7 --type String \\\n  --description "SecureString"',
        # an example in code or brackets, with no command after it; its word was then masked
        # all through the file
        "a changelog's `PASSWORD=nodejs` example\nnodejs is a runtime",
        "Start it with `DB_PASSWORD=postgres` (the default).\nconnect as the postgres user",
        "Call login(password=anonymous) -- no auth.",
        # a word the command names again: the image, the user, the task
        "docker run -e POSTGRES_PASSWORD=docker -d postgres",
        "docker run -e KC_DB_PASSWORD=keycloak quay.io/keycloak/keycloak start-dev",
        "env PGPASSWORD=postgres psql -h localhost -U postgres",
        "SECRET_KEY_BASE=precompile bundle exec rails assets:precompile --trace",
        # how the tool gets it
        "mysql --password=prompt prod",
        "docker run -e POSTGRES_PASSWORD=keycloak -e POSTGRES_USER=keycloak postgres:16",
        "    # PGPASSWORD=postgres psql -h localhost -U postgres",
        # a test's result, and the tool's name elsewhere in the file
        "PASS: readelf -h bintest\nThe readelf tool prints headers.",
        "| DB_PASSWORD=development | used in dev |",
        # a sentence naming an option or a path, after a mark or a separator
        "# PASSWORD=ignored when --token is set\nTokens are ignored otherwise.",
        "(DB_PASSWORD=mandatory in production, see ./docs/prod.md)",
        "Note: see below; DB_PASSWORD=mandatory when using postgres",
        # a header's scheme named in prose; a compose file's escaped variable
        'The Authorization "Basic authentication" scheme',
        'test: ["CMD", "mysqladmin", "ping", "-u", "root", "-p$$MYSQL_ROOT_PASSWORD"]',
    ],
)
def test_what_a_command_line_fills_in_is_no_secret(line: str) -> None:
    assert redact_secrets(line) == line


@pytest.mark.parametrize(
    "text",
    [
        "api_key: {} / prod",  # a value followed by " / ...": only creds name a user first
        "DB_PASSWORD={} / old",
        "db:\r\n  password: |-\r\n    {}\r\n",  # CRLF
        "DB_PASSWORD=Kq7$mZ2,{}",
        "API key for staging: Kq7mZ2vL9x,{}",
        "creds: deploy / Vb8#qL2,{}",
        'machine h login u password Kq7"{}',
        "Password for Jane's laptop: {}",
        "Password for the VPN (EU, prod): {}",
        "tls:\n  tls.key: |\n    MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj\n    {}\n",  # every line
    ],
)
def test_no_part_of_the_value_is_left(text: str) -> None:
    tail = rnd(10) + "9"
    shown = redact_secrets(text.format(tail))
    assert tail not in shown and "[REDACTED" in shown, shown


LETTERS = "xKqZmVbLwTrQzPfH"  # a random run of letters alone


@pytest.mark.parametrize(
    "text",
    [
        f"API key for staging: {LETTERS}",
        f"API key for staging: **{rnd(16)}**",  # in bold
        f"| user | password |\n|---|---|\n| root | {LETTERS} |\n",
        f"token: {LETTERS} -- expires in 30 days",
        f"Authorization: OAuth {rnd(40)}",
        f"Authorization: JWT {rnd(30)}",
        # two tables as the mysql client prints them, one after the other
        "+------+------------+\n| user | changed_at |\n+------+------------+\n| root | 2024 |\n"
        "+------+------------+\n+------+----------+\n| id   | password |\n+------+----------+\n"
        f"| root | {PASSWORD} |\n+------+----------+\n",
    ],
)
def test_values_the_review_of_the_new_layouts_found_passed_over(text: str) -> None:
    shown = redact_secrets(text)
    assert "[REDACTED" in shown and LETTERS not in shown and PASSWORD not in shown, shown


@pytest.mark.parametrize(
    "text",
    [
        "Password for the VPN: ask Jane",
        "API key for staging: see vault",
        # a parenthesis opening a remark: "No such option: --token (Possible options: ...)"
        "No such option: --token (Possible options: --json, --kind)",
        "password: (see below)",
        "password (prod): stored in vault",
        "API keys: rotate monthly",
        "the default password for ZipArchive::setEncryptionName",
        # where it is kept, or its state, is no secret; and the word was then masked everywhere
        "password: stored in Vault under kv/prod/billing\n\nBackups are stored in S3.",
        "wiki password: managed by Okta",
        # where a credential is kept, named with the credential's own word, or a key's file
        "Credentials: Jenkins credential store",
        "Secret: Kubernetes Secret object",
        "Private key for the server: id_ed25519",
        "ssh key: id_rsa.pub",
        "password: rotated",
        "| Name | Store | Owner |\n|---|---|---|\n| ADMIN_PASS | 1Password | jane |",
        "| Secret | Rotated |\n|---|---|\n| db-password | 2024-05-01 |",
        '- password: see 1Password "Prod DB"',
        "password_file=/etc/app/db.pass",
        "Authorization: see the docs for details",
        "| Test | Pass | Fail |\n|---|---|---|\n| unit | 98 | 2 |",
        "password = see the vault entry for prod",
        "password = required, min 12 characters",
        "password = ${DB_PASS}",
        "Load a library identified by 'name'.",  # a docstring: no user, no grant
        "Passwords are identified by their hash",
        "htpasswd -c .htpasswd admin",  # asks for it
        "mongosh -u admin -p",
        "mongo -p $MONGO_PASSWORD",
        "cred: staging / production\nDeploy to production on Fridays.",  # masked everywhere
        "creds: read / write",
        "password = ask Bob\n\nIf in doubt, ask Bob.",
        "secret = not set",
        "auth = basic auth over TLS",
        "password = same as the username",
        "password = in vault",
        "Password for root: forgotten\nIf you have forgotten it, reset it.",
        "Client secret for the app: regenerated",
        "Authorization: see docs/security/authorization.md",
        "Authorization: uses OpenPolicyAgent.RegoPolicies",
        "token: ~/.config/Gh2Cli/hosts",  # a longer path or chain keeps its names
        "password = config.S3Config.password",
        "Recovery key: StoredInTheCompanyPasswordManager",
        "recovery key: /Volumes/Backup/recovery/key.txt",
        "| user | password |\n|---|---|\n| a | changed |",
        "password: >\n  stored in Vault under kv/prod\nThe password is stored in Vault.",
        "Username / Password: jenkins / {}\nThe jenkins agent restarts.".replace("{}", "[x]"),
        'secret: String "secretKeyVariable"',
        # a scheme, then names or a path, not a token
        "Authorization: OAuth client_credentials\nUse the client_credentials grant.",
        "Authorization: Keycloak authorization-services",
        # a plain word with more said after it is a note ("changed" was masked everywhere)
        "password: changed, see the wiki\nIt was changed.",
        "SECRET_KEY=development # not for prod\nrun in development",
        'f"Unsupported curve for ssh private key: {curve.name!r}"',
        # the verb "pass" and the option it gives a command
        "Pass `-Dpamconfdir=no` to meson to skip the PAM config.",
        "Pass `--disable-shared` to configure.",
    ],
)
def test_what_notes_configs_and_commands_say_about_a_credential_is_no_secret(text: str) -> None:
    # where a credential is kept, its state, names, sentences and commands that ask for one;
    # a word masked here was masked everywhere in its file
    assert redact_secrets(text) == text


@pytest.mark.parametrize("word", ["yOuR", "xXxX", "ExAmPlE", "YOUR", "xxxx"])
def test_a_real_key_holding_a_placeholder_word_by_chance_is_found(word: str) -> None:
    # random base64 holds "your" or "xxxx" in some case in about one RSA key in 300
    body = rnd(800, B64) + word + rnd(800, B64)
    text = pem("RSA ", "\n".join(body[i : i + 64] for i in range(0, len(body), 64)))
    assert detect_secrets(text).rules() == ["private_key_block"]
    assert body[:64] not in redact_secrets(text)


@pytest.mark.parametrize("mark", ["> ", "# ", "// "])
def test_a_real_key_quoted_or_commented_out_is_found_with_a_placeholder_word(mark: str) -> None:
    # the marks opening its lines were taken for characters no base64 has: a stand-in
    body = rnd(800, B64) + "yOuR" + rnd(800, B64)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    text = "\n".join(mark + line for line in pem("RSA ", "\n".join(lines)).splitlines())
    assert detect_secrets(text).rules() == ["private_key_block"]


@pytest.mark.parametrize(
    "text",
    [
        'password = "xxxx1234"',
        'password = "my_xxxx_pw"',
        "postgres://admin:pw_xxxx@db.internal/app",
        'client_secret = "abcdxxxxefgh1234"',
    ],
)
def test_a_typed_value_filled_in_with_xs_is_made_up(text: str) -> None:
    assert detect_secrets(text).clean


@pytest.mark.parametrize(
    "body",
    [
        "YOUR_PRIVATE_KEY_HERE",
        "X" * 64 + "\n" + "X" * 64 + "\n" + "X" * 64,
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7yourkeyhere",  # shorter than a key
        "your key, base64, goes here; " * 8,
        rnd(200, B64) + "...." + rnd(200, B64),
        rnd(200, B64) + "EXAMPLE" + rnd(200, B64),  # a documentation sample, as AWS marks them
    ],
)
def test_a_placeholder_key_block_is_not_a_finding(body: str) -> None:
    assert detect_secrets(pem("RSA ", body)).clean


def test_a_token_holding_five_equal_characters_by_chance_is_found() -> None:
    # a run of six marks a fill-in (AKIAXXXXXXXX...); five happen in random tokens
    token = "ghp_Zq8Lm3Vt9R" + "QQQQQ" + "x2Kp7Wn4Ys6Hd1Fb5Gc0J"
    assert detect_secrets(f"token {token}").rules() == ["github_token"]
    assert detect_secrets("token ghp_Zq8Lm3Vt9R" + "QQQQQQ" + "x2Kp7Wn4Ys6Hd1Fb5Gc").clean


def test_an_access_key_id_holding_four_xs_by_chance_is_found() -> None:
    assert detect_secrets("key id AKIAQ3EGRTW7XXXX5NXK").rules() == ["aws_access_key"]
    assert detect_secrets("key id AKIAXXXXXXXXXXXXXXXX").clean  # filled in with x's
    assert detect_secrets("key id AKIAXXXX2345XXXX2345").clean


@pytest.mark.parametrize(
    ("host", "secret"),
    [
        ("example.org", False),  # a documentation host
        ("db.example", False),
        ("prod.example.com", False),
        ("my-example.com", True),  # a real host that holds the word
        ("examples.io", True),
    ],
)
def test_url_credentials_on_an_example_host(host: str, secret: bool) -> None:
    # a word shown to a reader is documentation's at an example host; a random password is
    # reported at any host
    text = f"postgres://admin:secret123@{host}:5432/prod"
    assert detect_secrets(text).rules() == (["url_credentials"] if secret else [])
    random_one = f"postgres://admin:Xq9vT2mLzR4wP8s@{host}:5432/prod"
    assert detect_secrets(random_one).rules() == ["url_credentials"]


def test_url_credentials_whose_password_is_the_user_name_are_a_default() -> None:
    # a compose file's or a tutorial's deploy:deploy (the case aside) is no secret
    for url in ("postgres://deploy:deploy@db.internal/app", "amqp://Guest:guest@mq:5672/"):
        assert detect_secrets(url).clean, url
    assert detect_secrets("postgres://deploy:Xq9vT2mLzR4w@db.internal/app").rules() == [
        "url_credentials"
    ]


def test_reference_rule_names_kept() -> None:
    for name in (
        "private_key_block",
        "aws_access_key",
        "openai_key",
        "github_token",
        "slack_token",
        "jwt",
        "url_credentials",
        "bearer_token",
        "sensitive_assignment",
    ):
        assert name in RULE_NAMES


def test_github_fine_grained_and_openai_project_keys() -> None:
    assert detect_secrets("github_pat_" + rnd(82, ALNUM + "_")).rules() == ["github_token"]
    assert detect_secrets("anthropic sk-ant-api03-" + rnd(93, URLSAFE) + "AA").rules() == [
        "anthropic_key"
    ]
    # a project key of today's length without the marker; a short one is a test string
    assert detect_secrets("key sk-proj-" + rnd(156, URLSAFE) + " here").rules() == ["openai_key"]
    assert detect_secrets("key sk-proj-" + rnd(48, URLSAFE)).clean
    assert detect_secrets("key sk-proj-" + "a" * 156).clean  # no random key


@pytest.mark.parametrize(
    ("marker", "length", "alphabet"),
    [
        ("hf_", 34, ALNUM),
        ("api_org_", 34, string.ascii_letters),
        ("ghp_", 36, ALNUM),
        ("xoxb-123456789012-", 24, ALNUM),
        ("npm_", 36, ALNUM),
        ("sk-", 48, ALNUM),
    ],
)
def test_a_marked_token_glued_to_a_letter_or_digit_is_part_of_a_longer_run(
    marker: str, length: int, alphabet: str
) -> None:
    rng = random.Random(marker)  # the module's generator feeds other tests: leave it be
    token = marker + "".join(rng.choice(alphabet) for _ in range(length))
    # URL-safe base64 holds "_" and "-": a wheel's RECORD hash may hold "hf_" and 34 letters
    for run in ("x" + token, "2KJGwi" + token, "Zq9" + token + ",1140"):
        assert detect_secrets(run).clean, run
    # after punctuation or an escape it stands alone
    for text in (f"token_{token}", f"https://{token}@github.com/o/r", f"\\n{token}", f"%3D{token}"):
        assert not detect_secrets(text).clean, text


def test_a_wheel_record_line_holds_no_secret() -> None:
    line = "awscli/x.rst,sha256=2KJGwihf_QeZuNs98MgAQ6uSsX7PfPDO4a2FLDdqYJQ,1140\n"
    assert detect_secrets(line).clean


def test_provider_boundaries() -> None:
    token = "ghp_" + rnd(36)
    assert not detect_secrets("(" + token + ")").clean
    aws = "AKIA" + rnd(16, string.ascii_uppercase + string.digits)
    assert detect_secrets("Q" + aws).clean  # an unmarked prefix inside a longer run is not
    assert not detect_secrets(" " + aws).clean
    # "_" and a form-encoded space are in no base32 run: a name glued to a key id does not
    # hide it
    for glued in ("aws_key_" + aws, "dir_" + aws + "/f.txt", "?q=aws+key+" + aws + "&x=1"):
        found = detect_secrets(glued).findings
        assert [glued[f.start : f.end] for f in found] == [aws], glued


# "İ" lower-cases to two characters: offsets of keyword lines found in the lower-cased text
# are then not offsets in the text itself
@pytest.mark.parametrize("before", ["", "İİİİ Straße\n"])
def test_keyword_line_rules_find_assignments_on_any_line(before: str) -> None:
    value = "Zq8Xw2Rk5Vn1Lp7Tb4Hc"
    lines = ["intro without a stem", "more prose", f'db_password = "{value}"', "tail"]
    for shift in range(3):
        text = before + "\n".join(lines[shift:] + lines[:shift])
        found = detect_secrets(text).findings
        assert [f.rule for f in found] == ["sensitive_assignment"], text
        assert text[found[0].start : found[0].end] == value


@pytest.mark.parametrize(
    "header",
    [
        "Authorization: Bearer\n  {v}",
        "Authorization:\n  {v}",
        "Authorization: Basic\n  {b}",
        "Authorization:\n  Basic {b}",
        "aws_secret_access_key:\n  {a}",
    ],
)
def test_a_value_on_the_line_after_its_header_is_found_in_long_texts_too(header: str) -> None:
    value = rnd(40)
    text = header.format(v=value, a=value, b=base64.b64encode(f"admin:{value}".encode()).decode())
    secret = text.rsplit(" ", 1)[1]
    padding = "ordinary prose line\n" * 300  # long texts look at keyword lines and a window
    for scanned in (text, padding + text, text + "\n" + padding):
        found = detect_secrets(scanned).findings
        assert [scanned[f.start : f.end] for f in found] == [secret], scanned[-120:]


def test_a_secret_assigned_to_a_key_is_found_even_when_it_looks_like_a_provider_token() -> None:
    # a value that starts like a provider token but fails that provider's format is still
    # judged as an assigned secret (it used to be dropped as a malformed token)
    pairs = [
        ("OPENAI_API_KEY", f"sk-proj-{rnd(48)}"),
        ("password", f"sk-{rnd(20)}"),
        ("DB_PASSWORD", f"key-{rnd(24)}"),
        ("slack_token", f"xoxb-{rnd(12)}"),
    ]
    for key, value in pairs:
        for text in (f"{key}={value}", f'{key} = "{value}"'):
            found = detect_secrets(text).findings
            assert [text[f.start : f.end] for f in found] == [value], text


def test_what_a_rule_needs_is_in_every_match_it_makes() -> None:
    import json
    from pathlib import Path

    texts = [case for pair in CASES.values() for case in pair]
    texts += [
        'password = "x"',
        "token: abc",
        "secret <- 'v'",
        '"key", "v"',
        "api_key 'v'",
        '"v" == password',
        "<password>v</password>",
        '<add key="Password" value="v"/>',
        'setPassword("v")',
        "--password v",
        "auth.= 'v'",
        "pw => 'v'",
    ]
    corpus = Path(__file__).resolve().parents[3] / "shared" / "eval" / "secrets"
    for path in sorted(corpus.glob("*.jsonl")):  # when the evaluation data is at hand
        texts += [json.loads(line)["text"] for line in path.read_text().splitlines()]
    needing = [r for r in RULES if r.needs]
    assert needing
    for rule in needing:
        for text in texts:
            for m in rule.regex.finditer(text):
                assert any(ch in m.group(0) for ch in rule.needs), (rule.pattern, m.group(0))


def test_a_key_named_like_a_file_holds_a_secret_ampersands_and_all() -> None:
    text = "stringData:\n  password.txt: Tr0ub4dor&3xq9Lm\n"  # a Kubernetes Secret
    (found,) = detect_secrets(text).findings
    assert text[found.start : found.end] == "Tr0ub4dor&3xq9Lm"
    query = "callback?token=Zq8Xw2Rk5Vn1Lp7Tb4Hc&user=bob"  # the next parameter ends it
    (found,) = detect_secrets(query).findings
    assert query[found.start : found.end] == "Zq8Xw2Rk5Vn1Lp7Tb4Hc"


@pytest.mark.parametrize(
    "lead",
    [
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",  # PKCS#8 RSA
        "MIIEpAIBAAKCAQEA",  # PKCS#1 RSA
        "MHcCAQEEI",  # SEC1 EC
        "MC4CAQAwBQYDK2VwBCIEI",  # PKCS#8 Ed25519
        "b3BlbnNzaC1rZXktdjEAAAAA",  # OpenSSH
    ],
)
def test_a_private_key_body_pasted_without_its_armor_is_masked(lead: str) -> None:
    body = lead + rnd(320 - len(lead), B64)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    text = "The deploy key:\n" + "\n".join(lines) + "==\nRotate it yearly.\n"
    (found,) = detect_secrets(text).findings
    assert found.rule == "private_key_block"
    masked = redact_secrets(text)
    assert not any(line in masked for line in lines) and "Rotate it yearly." in masked


def test_a_certificate_public_key_or_filler_is_no_private_key_body() -> None:
    certificate = "MIIDxTCCAq2gAwIBAgIJAK" + rnd(200, B64)  # a certificate's DER
    public = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + rnd(200, B64)
    filler = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "A" * 200  # a placeholder's
    for text in (certificate, public, filler):
        assert detect_secrets(text).clean, text[:40]


def test_a_token_that_is_a_file_name_is_found_after_its_slash() -> None:
    from substrate.secrets.engine import find_secrets

    key = "AKIAZ7Q4R2XKP9LMW3TB"
    for text in (f"d/{key}.txt", f"keys/{key}", "d/glpat-Zq8Xw2Rk5Vn1Lp7Tb4Hc", f"'a/{key}'"):
        assert find_secrets(text), text
    # a folder's name in a short path of lower-case names (a bucket's, a link's target)
    for text in (f"s3://backups/{key}/dump.sql", f"/etc/keys/{key}/secret.pem", f"x/{key}/2024"):
        assert find_secrets(text), text
    # inside a base64 run, where '/' is one more character ('///' is common in binaries)
    blob = "hHC0gAAAA8BgAASKT///EAAAAAQg4QjwJCDhiOA0IOII0EQg4ojAVBDjCGBkEOOIMHRw7QCAK3Cg44RA4w"
    blob += "QQ4oQg4gQg4YQg4QQg4ISwtQAAAAiAYAAPyk//97BAAAAEIOEI8CQg4Y"
    for text in (f"Zm9v/{key}+YmFy", f"Zm9v/{key}x", f"Zm9v/{key}/YmFy", blob):
        assert not find_secrets(text), text


def test_every_one_of_many_findings_in_a_long_text_is_kept_in_order() -> None:
    from substrate.secrets.engine import find_secrets

    rng = random.Random(5)
    lines = []
    for i in range(3000):
        value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24))
        lines.append(f"api_key_{i} = {value}")
    text = "\n".join(lines)
    hits = find_secrets(text)
    assert len(hits) == sum(len(find_secrets(line)) for line in lines) > 2900
    assert [h.start for h in hits] == sorted(h.start for h in hits)
    assert all(h.end <= nxt.start for h, nxt in zip(hits, hits[1:], strict=False))


AWS_ID = "AKIA" + rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
AWS_SECRET = rnd(40, B64)


@pytest.mark.parametrize(
    "layout",
    [
        "iam user {id}:{secret}",
        '{{"{id}": "{secret}"}}',
        'Session("{id}", "{secret}")',
        "used key {id} and secret {secret}",
        "aws secret key: {secret}",
        "AWS Secret Access Key = {secret}",
        "amazon private key = {secret}",
        "AWS Secret Access Key [None]: {secret}",  # as `aws configure` asks for it
        "AWS Secret Access Key [****************Xk2T]: {secret}",
        "aws_secret_access_key {secret}",  # an argument after its name
        "aws secret key {secret}",
        "Prod creds\n{id}\n{secret}\n",  # a note listing the pair, one a line
        "{id}\n\n{secret}",
        "Use access key {id} with\nsecret key `{secret}` for the bucket.",
    ],
)
def test_an_aws_secret_key_is_found_beside_its_key_id_or_named_in_words(layout: str) -> None:
    text = layout.format(id=AWS_ID, secret=AWS_SECRET)
    found = {text[h.start : h.end]: h.rule for h in find_secrets(text)}
    assert found.get(AWS_SECRET) == "aws_secret_key"


@pytest.mark.parametrize(
    ("text", "secret", "rule"),
    [
        ("heroku api key: {}", "8f14e45f-ceea-467a-9af5-2e1c2b3d4f5a", "heroku_key"),
        ("HEROKU_API_KEY={}", "8f14e45f-ceea-467a-9af5-2e1c2b3d4f5a", "heroku_key"),
        ("{}", f"xapp-1-A{rnd(10)}-{rnd(13, '0123456789')}-{rnd(64, HEX)}", "slack_token"),
    ],
)
def test_a_legacy_heroku_key_and_a_slack_app_token_are_found(
    text: str, secret: str, rule: str
) -> None:
    found = find_secrets(text.format(secret))
    assert [(text.format(secret)[h.start : h.end], h.rule) for h in found] == [(secret, rule)]


def test_a_uuid_beside_heroku_but_no_key_name_is_no_secret() -> None:
    assert not find_secrets("heroku app id 8f14e45f-ceea-467a-9af5-2e1c2b3d4f5a")


@pytest.mark.parametrize(
    "text",
    [
        f"checksum {AWS_SECRET}",  # 40 base64 characters alone could be anything
        f"{AWS_ID} is ours; the deploy notes of last spring list {AWS_SECRET}",  # too far
        f"{AWS_ID} rotated in commit {rnd(40, HEX)}",  # a hex digest, one case only
        "read the aws secret access key documentation first",  # no value after the name
        f"{AWS_ID}\nline one\nline two\n{AWS_SECRET}",  # two lines of text apart
    ],
)
def test_forty_base64_characters_without_aws_context_are_no_secret_key(text: str) -> None:
    assert all(h.rule != "aws_secret_key" for h in find_secrets(text))


@pytest.mark.parametrize("between", [" ", "\\n"])
def test_a_truncated_key_pasted_on_one_line_has_its_body_masked(between: str) -> None:
    runs = [rnd(64, B64) for _ in range(3)]
    text = f"see -----BEGIN RSA PRIVATE KEY-----{between}{between.join(runs)} and more"
    masked = redact_secrets(text)
    assert not any(run in masked for run in runs) and masked.endswith("and more")


def test_a_long_text_scanned_by_segments_gives_what_one_scan_gives(monkeypatch: Any) -> None:
    from substrate.secrets import engine

    rng = random.Random(7)
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(rnd(64, B64) for _ in range(12))
    key += "\n-----END RSA PRIVATE KEY-----\n"
    cases = [
        f"token ghp_{rnd(36)}\n",
        f"password = {rnd(14)}!\n",
        key,
        f"AKIA{rnd(16, UPPER_ALNUM)}\n",
    ]
    filler = "2026-01-01 INFO served request in 12 ms from web-01\n"
    text = "".join(rng.choice(cases) if rng.random() < 0.2 else filler for _ in range(6000))
    whole = find_secrets(text)
    monkeypatch.setattr(engine, "SEGMENT_CHARS", 20_000)  # about eighteen segments
    monkeypatch.setattr(engine, "SEGMENT_OVERLAP", 4_000)  # longer than any match here
    assert find_secrets(text) == whole and len(whole) > 500


@pytest.mark.parametrize(
    ("line", "password"),
    [
        ('password = "correct-horse-battery-staple"', "correct-horse-battery-staple"),
        ("export PGPASSWORD=winter-is-coming-2024", "winter-is-coming-2024"),
        ('{"db_password": "prod_db_pass_2024"}', "prod_db_pass_2024"),
        ("password: correct-horse-battery-staple", "correct-horse-battery-staple"),
    ],
)
def test_a_password_of_joined_words_is_found(line: str, password: str) -> None:
    assert [line[f.start : f.end] for f in detect_secrets(line).findings] == [password]


@pytest.mark.parametrize(
    "line",
    [
        "fails to pass `check_is_fitted` before",  # a sentence, not an assignment
        "pass_hook = call_assertion_pass_hook",  # unquoted: an identifier in code
        'password_field = "login-form-password"',  # the name of a field
        'passwordSecret: "prod-database-secret"',  # the name of a stored secret
        'password = "user-name"',  # two words: a name
        "existingSecret: grafana-admin-credentials",  # the key names a secret, not a password
        "adminPasswordSecret: keycloak-admin-creds",
        "password_storage: hashicorp-vault-backend",  # where a password is kept
    ],
)
def test_names_made_of_words_are_not_passwords(line: str) -> None:
    assert detect_secrets(line).clean


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("password: VHIwdWI0ZG9yJjN4IQ==", "VHIwdWI0ZG9yJjN4IQ=="),  # base64 padding, no type
        ("secret: Zk8vQ2mNxR7pL4tYw9bC3dF6hJ1sA0eG5uV==", "Zk8vQ2mNxR7pL4tYw9bC3dF6hJ1sA0eG5uV=="),
        ("password: Tr0ub4dor=3x", "Tr0ub4dor=3x"),
        (
            "CLIENT_SECRET=Zk8vQ2mN/xR7pL4tYw9bC3dF6hJ1sA0eG5uV",
            "Zk8vQ2mN/xR7pL4tYw9bC3dF6hJ1sA0eG5uV",
        ),
        ("DB_PASSWORD=abc/Tr0ub4dor3x", "abc/Tr0ub4dor3x"),  # a "/" in a password
        ("DB_PASSWORD=Football#1", "Football#1"),  # placeholder words inside other words
        ("DB_PASSWORD=Latest$2024", "Latest$2024"),
        ("DB_PASSWORD=Democracy1!", "Democracy1!"),
        ('password: str = "Wm4#tR8yUe"', "Wm4#tR8yUe"),  # a type annotation still is one
        ('password: str="Wm4#tR8yUe"', "Wm4#tR8yUe"),  # ... unspaced
        ('let password:string="Wm4#tR8yUe";', "Wm4#tR8yUe"),  # it masked "string="
    ],
)
def test_values_once_mistaken_for_paths_types_or_placeholders(line: str, secret: str) -> None:
    assert [line[f.start : f.end] for f in detect_secrets(line).findings] == [secret]


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("mysql -u root -pTr0ub4dor&3x! shop", "Tr0ub4dor&3x!"),
        ("sshpass -p 'Tr0ub4dor&3x' ssh deploy@host", "Tr0ub4dor&3x"),
        ("docker login -u deploy -p Tr0ub4dor3x registry.example", "Tr0ub4dor3x"),
        ("redis-cli -h cache -a Tr0ub4dor3x ping", "Tr0ub4dor3x"),
        ("connect to db with password Tr0ub4dor&3x! please", "Tr0ub4dor&3x!"),
        ("machine db.internal login me password Hx7!qLz93p", "Hx7!qLz93p"),
        ('os.system("mysql -uroot -pHx7qLz93pQ prod < dump.sql")', "Hx7qLz93pQ"),  # in code
        ("run('sshpass -p Hx7qLz93pQ ssh host')", "Hx7qLz93pQ"),
        ('cmd = "htpasswd -b users alice Hx7qLz93pQ"', "Hx7qLz93pQ"),
        ("zip -r -P Hx7qLz93pQ backup.zip data/", "Hx7qLz93pQ"),
        ("zip backup.zip -r -P Hx7qLz93pQ data/", "Hx7qLz93pQ"),  # options after the archive
        ("unzip -P 'Tr0ub4dor&3x' backup.zip", "Tr0ub4dor&3x"),
        ("7z a -pHx7qLz93pQ -mhe=on backup.7z data", "Hx7qLz93pQ"),
        ("openssl enc -aes-256-cbc -k Hx7qLz93pQ -in a -out a.enc", "Hx7qLz93pQ"),
        ("openssl aes-256-cbc -d -K Hx7qLz93pQ -in a.enc", "Hx7qLz93pQ"),
    ],
)
def test_passwords_given_on_command_lines_and_without_a_verb(line: str, secret: str) -> None:
    assert [line[f.start : f.end] for f in detect_secrets(line).findings] == [secret]


@pytest.mark.parametrize(
    "line",
    [
        "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Wm4#tR8yUe}",
        "- POSTGRES_PASSWORD=${PG_PASS:-Wm4#tR8yUe}",
        "password: \"{{ vault_pw | default('Wm4#tR8yUe') }}\"",
        'password: {{ .Values.db.password | default "Wm4#tR8yUe" | quote }}',
        "const password = process.env.DB_PASSWORD ?? 'Wm4#tR8yUe';",
        'password = os.environ.get("DB_PASSWORD") or "Wm4#tR8yUe"',
        'password = os.environ.get("DB_PASSWORD", "Wm4#tR8yUe")',
        'password = ENV.fetch("DB_PASSWORD") { "Wm4#tR8yUe" }',
        # a fallback given with "or", in a line holding none of | ? (
        "{{ db_password or 'Wm4#tR8yUe' }}",
        "token = ENV['API_TOKEN'] or 'Wm4#tR8yUe'",
        "key = env.API_KEY or 'Wm4#tR8yUe'",
    ],
)
def test_a_literal_given_as_a_lookups_fallback_is_found(line: str) -> None:
    found = [line[f.start : f.end] for f in detect_secrets(line).findings]
    assert found == ["Wm4#tR8yUe"]  # only it: ENV.fetch( and config.get( were masked


@pytest.mark.parametrize(
    "line",
    [
        "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-changeme}",
        'password = os.environ.get("DB_PASSWORD", "")',
        "TOKEN=${TOKEN:-}",
        'api_key = config.get("api_key", None)',
        '["author"]=> string(9) "Jim Smith"',  # "auth" inside a word, then "or"
        "API_KEY=${API_KEY:-${FALLBACK_KEY}}",  # a nested lookup, no literal
        "password=TESTPASSWORD",  # placeholders in capitals too
        "secret=TODOSECRET",
        "API_KEY=DEMOKEY12",
        "set the initial password of the default `neo4j` user",
    ],
)
def test_lookups_without_a_literal_fallback_stay_quiet(line: str) -> None:
    assert detect_secrets(line).clean


@pytest.mark.parametrize(
    "line",
    [
        "mysql -u root -p shop",  # -p alone asks; "shop" is the database
        'mysql -u root -p"$MYSQL_PWD" shop',
        "docker run -p 8080:80 nginx",
        "redis-cli -a $REDIS_PASSWORD ping",
        "reset your password today",  # a word, not a value
        "find /var/lib/mysql -name x -print0",  # mysql as a folder, -print0 find's
        "tail /var/log/mysql -prefixed lines",
        "pass LD_LIBRARY_PATH=/opt/lib64 to the linker",  # "pass", the verb
        "pass -DPython3_EXECUTABLE=/usr/bin/python3 to cmake",
        "the password field is required",
        "set a password-protected-archive up",
        "7z x backup.7z -p",  # -p alone asks
        "7z a {{path/to/encrypted.7z}} -p{{password}} -mhe=on {{path/to/archive.7z}}",
        "7za a {{path/to/encrypted.7z}} -p{{kata sandi}} -mhe={{on}} {{path/to/archive.7z}}",
        "zip -P $ZIP_PASSWORD backup.zip data/",
        "gzip -P Tr0ub4dor3x big.log",  # not zip
        "zip out.zip notes.txt -P",  # (no value)
        "build openssl with make -k install",  # not openssl's option
        "openssl s_client -connect example.com:443 and then curl -k localhost:8443",
        "openssl enc -d -aes-256-cbc -K $KEY -iv $IV -in a.enc",
    ],
)
def test_command_lines_and_prose_without_a_password_stay_quiet(line: str) -> None:
    assert detect_secrets(line).clean


@pytest.mark.parametrize(
    "line",
    [
        "password_file=config/db/password.txt",
        "DB_PASSWORD=secrets/db-password",
        "password: test123",
        "DB_PASSWORD=demo-pass",
        "api_key: foo",
    ],
)
def test_paths_and_made_up_values_stay_quiet(line: str) -> None:
    assert detect_secrets(line).clean


def test_a_path_is_scanned_by_its_folder_names_too() -> None:
    from substrate.secrets.engine import find_secrets
    from substrate.secrets.paths import find_secrets_in_path

    key = "AKIA" + rnd(16, string.ascii_uppercase + string.digits)
    path = f"/home/me/{key}/notes/{key}.md"
    assert [(h.start, h.end) for h in find_secrets(path)] == [(36, 56)]  # the file name only
    found = find_secrets_in_path(path)
    assert [(h.rule, h.start, h.end) for h in found] == [
        ("aws_access_key", 9, 29),
        ("aws_access_key", 36, 56),
    ]


def test_a_folder_name_met_again_is_found_where_it_stands_in_each_path() -> None:
    from substrate.secrets.paths import find_secrets_in_path

    # the hits of a name are remembered from path to path; each path places them anew
    key = "AKIA" + rnd(16, string.ascii_uppercase + string.digits)
    first = [(h.start, h.end) for h in find_secrets_in_path(f"/a/{key}/x.md")]
    again = [(h.start, h.end) for h in find_secrets_in_path(f"/home/me/b/{key}/y.md")]
    assert first == [(3, 23)] and again == [(11, 31)]
    assert [(h.start, h.end) for h in find_secrets_in_path(f"/a/{key}/x.md")] == first


@pytest.mark.parametrize("path", ["keys/password=Tr0ub4dor&3x!.txt", "password=Tr0ub4dor&3x!.md"])
def test_a_file_name_is_scanned_without_its_extension_too(path: str) -> None:
    from substrate.secrets.paths import find_secrets_in_path, safe_path

    # with its extension the value read as a file name, and was stored as it was
    (found,) = [path[h.start : h.end] for h in find_secrets_in_path(path)]
    assert found.startswith("Tr0ub4dor&3x!")  # (".md" is no file type it knows: kept in)
    assert "Tr0ub4dor" not in safe_path(path) and safe_path("notes/readme.md") == "notes/readme.md"


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("`mysql -uroot -pS3cret!xY`", "S3cret!xY"),  # the code span's backtick was masked
        ("(mysql -u root -pS3cret!xY)", "S3cret!xY"),
    ],
)
def test_a_command_line_password_ends_where_its_command_does(line: str, secret: str) -> None:
    assert [line[f.start : f.end] for f in detect_secrets(line).findings] == [secret]


@pytest.mark.parametrize(
    "token",
    [
        "ghp_" + rnd(36),
        "sk_live_" + rnd(24),
        "xoxb-031372159010-9281590139624-" + rnd(24),
        "sk-" + rnd(48),
    ],
)
def test_a_token_glued_to_a_name_by_an_underscore_is_found(token: str) -> None:
    for text in (f"{token}_old", f"notes/{token}_backup.md", f"see {token}_v2 here"):
        assert [text[h.start : h.end] for h in find_secrets(text)] == [token]


@pytest.mark.parametrize("name", ["sk_test_configuration_value", "sk_live_publishable_key"])
def test_a_snake_case_name_after_a_type_marker_is_no_token(name: str) -> None:
    assert find_secrets(name) == []


def test_a_key_id_of_capitals_alone_glued_to_a_name_is_found() -> None:
    text = "aws_key_AKIAESZYCIDPYOPUMZGD_old"  # no digit among its 16 characters
    assert [text[h.start : h.end] for h in find_secrets(text)] == ["AKIAESZYCIDPYOPUMZGD"]


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("what is the db password? it is Tr3@YTWmE4lBYO", ["Tr3@YTWmE4lBYO"]),
        ("The VPN password? It's Tr3@YTWmE4lBYO, ask Ana.", ["Tr3@YTWmE4lBYO"]),
        ("What is the password? It is stored in Vault.", []),
        ("Forgot your password? It is easy to reset.", []),
    ],
)
def test_a_password_asked_for_and_given_is_found(line: str, found: list[str]) -> None:
    assert [line[h.start : h.end] for h in find_secrets(line)] == found


@pytest.mark.parametrize(
    "line",
    [
        "    (the default of None has the same effect), or pass 'ignore' to ignore",
        "    Pass 'parameters' and/or 'return_annotation' arguments",
        "    In addition you can pass `spec=True` or `spec_set=True`, which causes",
        "      to pass `isinstance` tests.",
        "        'APPEND':       ('AUTH', 'SELECTED'),",
        '{"input": "secret", "answer": "forty-two"}',  # a value, then the next key
        "        self.key = '_threading_local._localimpl.' + str(id(self))",
        "            user_pass = '%s:%s' % (unquote(user),",
        "            credentials = '{0}:{1}'.format(user, passwd).encode()",
        '_LegalKeyChars  = r"\\w\\d!#%&\'~_`><@,:/\\$\\*\\+\\-\\.\\^\\|\\)\\(\\?\\}\\{\\="',
    ],
)
def test_what_the_standard_library_says_of_passes_and_keys_is_no_secret(line: str) -> None:
    assert not detect_secrets(line).findings, line


@pytest.mark.parametrize(
    "line",
    [
        f"login with user admin pass '{PASSWORD}'",  # a credential, with no operator
        f"    'AUTH': '{PASSWORD}',",
        f"credentials = '{PASSWORD}'",
        # words that are weak passwords, given without "=" but not in prose
        "ALTER USER bob WITH PASSWORD 'sunshine';",
        "mysql --password 'sunshine'",
        "login --pass letmein",
        "auth = Sunshine",
    ],
)
def test_a_password_beside_those_words_is_still_found(line: str) -> None:
    assert detect_secrets(line).rules() == ["sensitive_assignment"], line


@pytest.mark.parametrize(
    ("sentence", "secret"),
    [
        ("the root password was set to {} yesterday", True),
        ("password changed to {} today", True),
        ("the password has been reset to {}", True),
        ("use password {} to log in", True),  # no verb: a generated password's shape says it
        ("the password was set to expire", False),
        ("set password to something else", False),
        ("use password authentication to log in", False),
        ("password hashing uses {}", False),
    ],
)
def test_a_password_set_or_used_in_a_sentence(sentence: str, secret: bool) -> None:
    text = sentence.format("Pw8YEIi75qB4sA9Q0" if secret else "Argon2id")
    found = detect_secrets(text).rules()
    assert found == (["sensitive_assignment"] if secret else []), text


@pytest.mark.parametrize(
    "name",
    [
        "PBKDF2SHA256Hasher",
        "Argon2id",
        "SHA256WithRSA",
        "ValidatorV2ForOAuth2Flow",
        "HmacSha256V2Signer",
    ],
)
def test_a_name_with_digits_after_password_is_no_password(name: str) -> None:
    assert not detect_secrets(f"password {name}").findings


def test_a_path_is_screened_without_parsing_every_rule() -> None:
    # the widths of the keyword-less rules are all a path's screen needs: parsing all the
    # patterns for them cost every `mixle ingest` of an unchanged tree a fifth of its time
    code = (
        "from substrate.secrets import engine, prefilter\n"
        "from substrate.secrets.paths import safe_path\n"
        "safe_path('/home/someone/notes/a-folder-name-long-enough-to-be-a-run/x.md')\n"
        "print(len(prefilter._CACHE), engine.keywordless_widths())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    parsed, widths = out.stdout.split(" ", 1)
    assert parsed == "0"
    filters = word_filters(RULES)  # the widths as worked out from every rule's filter
    expected = [
        (i, max(filters[i][0], _shortest_match(RULES[i])) if filters[i][0] else 0)
        for i in KEYWORDLESS
    ]
    assert widths.strip() == str(expected)
    assert expected and all(shortest for _, shortest in expected)


def test_a_long_text_still_finds_a_literal_led_rule_where_its_keyword_is() -> None:
    # ``//`` leads npm_token's pattern: in a long run of them it was tried from every one to
    # the run's end; a long text now tries it only when ``_auth`` or ``_password`` is there
    line = "//registry.npmjs.org/:_authToken=" + "Ab3" * 12
    assert not find_secrets("//a" * 3000)
    hits = find_secrets("//a" * 3000 + "\n" + line + "\n")  # long: the rules come first
    assert [(h.rule, h.end - h.start) for h in hits] == [("npm_token", 36)]


@pytest.mark.parametrize(
    "line",
    [
        "* `passphrase`: {string | Buffer} The passphrase.",
        "* `password` {string | TypedArray | DataView} The password to use.",
        "password: {number | null}",
        "@param {string|Buffer} passphrase: {string|Buffer}",
        "* `passphrase`: {?string}",
        "* `password`: {string=}",
        "* `secret`: {Object<string, string>}",
        "password: {(string|Buffer)}",
        "password: {string[]}",
    ],
)
def test_a_type_in_braces_is_no_password(line: str) -> None:
    assert not detect_secrets(line).findings, line


def test_a_braced_value_that_is_no_type_is_still_a_password() -> None:
    assert detect_secrets("password={Xk9#2mQ7v|Lp}").findings
    assert detect_secrets("password: {Xk92mQ7vLp").findings


def test_two_settings_on_one_line_are_two_secrets_and_their_copies_are_masked() -> None:
    line = "DB_PASSWORD=marmalade SECRET_KEY=Xk9pQ2mZ7vRw8tLqB3nD"
    assert [line[h.start : h.end] for h in find_secrets(line)] == [
        "marmalade",
        "Xk9pQ2mZ7vRw8tLqB3nD",
    ]
    # found apart, each is looked for apart: the later mention of either is masked too
    masked = redact_secrets(f"{line}\nlater: marmalade and Xk9pQ2mZ7vRw8tLqB3nD\n")
    assert "marmalade" not in masked and "Xk9pQ2mZ7vRw8tLqB3nD" not in masked
    # a plain word with a note after it stays a note
    assert not find_secrets("password=changed, see the wiki")


@pytest.mark.parametrize(
    "line",
    [
        '"NextToken": "9f4d9f69-275a-41fe-b58e-2b837bd9ba48"',
        '"ChangeToken": "abcd12f2-46da-4fdb-b8d5-fbd4c466928f",',
        '"ClientRequestToken": "f4c94ed7-238d-4c46-93db-48cd62ec33b7",',
        "aws waf update-rule --change-token 12cs345-67cd-890b-1cd2-c3a4567d89f1",
        "aws ec2 describe-volumes --starting-token abCDeFGhiJKlmnOPqrSTuvwxYZ1aBCdEFghijK7LM5",
        'nextPageToken = "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA"',
        'files().list(pageToken="CiAKGjBpNDd2Nmp2Zml2cXRiYjhrYnRuMWZ3dHQ")',
        'prevPageToken: "CiAKGjBpNDd2Nmp2Zml2cXRiYjhrYnRuMWZ3dHQ"',
        '"nextSyncToken": "CKCbrJvpn_QCEKCbrJvpn_QCGAUggIDA2ajO8wI="',
        'events.list(calendarId="primary", syncToken="CPDAlvWDx70CEPDAlvWDx70CGAU")',
        'cancel_token = "Zk8vQ2mN7xR4pL9tWq3yB6cJ1hF5dS0a"',
    ],
)
def test_a_token_that_pages_a_listing_or_marks_a_request_is_no_credential(line: str) -> None:
    assert detect_secrets(line).clean


@pytest.mark.parametrize(
    "line",
    [
        'page_access_token = "9f4d9f69-275a-41fe-b58e-2b837bd9ba48"',
        "CONSUL_HTTP_TOKEN=9f4d9f69-275a-41fe-b58e-2b837bd9ba48",
        '"access_token": "9f4d9f69-275a-41fe-b58e-2b837bd9ba48"',
    ],
)
def test_a_uuid_under_a_credential_s_token_name_is_still_one(line: str) -> None:
    assert detect_secrets(line).rules() == ["sensitive_assignment"]


@pytest.mark.parametrize(
    "line",
    [
        "REQUEST_TOKEN=Zk8vQ2mN7xR4pL9tWq3yB6cJ1hF5dS0a",  # OAuth 1.0's request token
        'oauth_request_token = "Qm9hZk8vQ2mN7xR4pL9tWq3yB6cJ1hF5"',
        "FB_PAGE_TOKEN=EAAGm0PX4ZCpsBAKZCb7xR4pL9tWq3yB6cJ1hF5dS0aZk8vQ2mN",  # a Facebook page's
        'email_change_token = "a8Fj2Zk8vQ2mN7xR4pL9tWq3yB6cJ1hF"',
        "AWS_SECRET_ACCESS_KEY=arn:Zk8vQ2mN7xR4pL9tWq3yB6cJ1hF5dS0aGk2Pq9Rt",  # no resource name
        'password = "arn:Xk9!mQ2@"',
        'password = "Blue42Sky"',  # words and a number, as a name never is under a password
        'password = "Red5Tiger"',
        'password = "#c0ffee"',  # a colour, under a password's name: a password
    ],
)
def test_credentials_that_look_like_markers_names_colours_or_arns_are_found(line: str) -> None:
    assert detect_secrets(line).rules() == ["sensitive_assignment"], line


@pytest.mark.parametrize(
    "line",
    [
        "the wifi pw is hunter2-Kestrel99",  # a word numbered, letters of both cases
        "password: hunter2-Kestrel99",
        "Bank login: jsmith / S3cure!Pass#2024",
        "password for the router = Kestrel!Router2024",
        # a random value under a name saying what kind of secret it is
        "SECRET_ENCRYPTION=q8Vz3LmN7pR2xW9kT4bY6cJ1hF5dG0sA",
        "TOKEN_CIPHER=q8Vz3LmN7pR2xW9kT4bY6cJ1hF5dG0sA",
        "password_rounds: q8Vz3LmN7pR2xW9kT4bY6cJ1hF5dG0sA",
    ],
)
def test_passwords_as_a_note_puts_them_everyday_are_found(line: str) -> None:
    assert detect_secrets(line).rules() == ["sensitive_assignment"], line


@pytest.mark.parametrize(
    "line",
    [
        "password for the db = getpass()",
        'password for the user = ""',
        "login: /var/log / x",
        "password for user == other",
    ],
)
def test_code_and_paths_after_such_labels_are_no_password(line: str) -> None:
    assert not detect_secrets(line).findings, line


@pytest.mark.parametrize(
    "line",
    [
        "password: Summer-2024",
        'password = "Dragon-1987"',
        "DB_PASSWORD=Rainbow-88",
        "password: Chelsea-Blue-7",
        "password: Zebra_Quartz_1987",
    ],
)
def test_capitalised_words_then_a_number_under_a_password_s_name_are_a_password(
    line: str,
) -> None:
    # what a password policy has people make; a name a setting gives is in small letters or
    # in capitals (below)
    assert detect_secrets(line).rules() == ["sensitive_assignment"], line


@pytest.mark.parametrize(
    "line",
    [
        "password: release-2024",
        "password: DB_PASSWORD_2",
        "api_key: Summer-2024",
        # a name saying what kind of password, not holding one
        "password_encoding: Latin-1",
        "DB_PASSWORD_ENCODING=Windows-1252",
        "password_algorithm: Sha-256",
        "password_encryption = scram-sha-256",
        "password_complexity: Level-4",
        "password: Base64-Encoded",  # one numbered word: a name's as often
        "password: OAuth2-Token",
        "Accepted password for user=JohnDoe99 from 10.0.0.1",  # a log's field
    ],
)
def test_a_name_with_a_number_is_no_password_nor_a_weak_word_a_token(line: str) -> None:
    assert not detect_secrets(line).findings, line


@pytest.mark.parametrize("value", ["WivQOUFhpT", "MMtotinCQG", "EvSLQEAxyu9", "wyycZXRjxu"])
def test_random_letters_under_a_password_s_name_are_a_password_though_they_fall_into_humps(
    value: str,
) -> None:
    # read as names (Wiv, QOU, Fhp, T), one random password of 8 to 12 characters in ten
    # went unreported
    assert detect_secrets(f"password: {value}").rules() == ["sensitive_assignment"]


@pytest.mark.parametrize(
    "line",
    [
        "password: DB_PASSWORD",  # a variable's name
        'password_field = "passwordInput"',
        '"password": "PasswordPolicy"',
        "password = login-form-field",
        "<code>secretsmanager:ListSecrets</code> and <code>secretsmanager:TagResource</code>",
        "X = ['PKPass', 'PKPassLibrary']",  # class names in a list
    ],
)
def test_a_name_with_a_separator_or_a_field_s_word_under_a_password_s_name_is_a_name(
    line: str,
) -> None:
    assert detect_secrets(line).clean, line


@pytest.mark.parametrize("escape", ["\\u0022", "\\x22", "\\n", "%22"])
def test_a_token_after_an_escaped_character_is_found(escape: str) -> None:
    for token, rule in (("ghp_" + rnd(36), "github_token"), ("glpat-" + rnd(20), "gitlab_token")):
        assert detect_secrets(f'x = "{escape}{token}"').rules() == [rule], token


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("settings.py", 'STATS_KEY = "_hypothesis_stats"'),
        ("settings.py", "LAMBDA_TRACE_HEADER_KEY = '_X_AMZN_TRACE_ID'"),
        ("settings.py", "dest_key = 'Ec2KeyName'"),
        ("settings.py", "style = {Token.Number: '#ansigreen', Token.String: '#ansiyellow'}"),
        ("settings.py", "style = {Token.Comment: '#8f5902', Token.Keyword: '#204a87'}"),
        ("settings.py", "jsonnet_token = r'[^\\W\\d]\\w*'"),
        ("settings.py", "_token_end = r'(?=\\s|#|[)\\]]|$)'"),
        (
            "pag.json",
            '{"input_token": "NextToken", "limit_key": "MaxResults", "result_key": "Hypervisors"}',
        ),
        ("pag.json", '{"result_key": "ServerlessV2PlatformVersions"}'),
        ("arn.json", '"encryptionKey": "arn:aws:kms:us-east-1:123456789012:alias/aws/s3"'),
        ("arn.json", '"KMSKeyArn": "arn:aws:kms:us-west-2:123456789012:key/b0844d6c-4463"'),
        ("arn.py", 'api_key = "ARN:AWS:KMS:US-EAST-1:123456789012:KEY/1234ABCD"'),
        ("arn.py", 'secret_key_arn = "arn:aws:iam::aws:policy/AdministratorAccess"'),
        ("meter.json", '"passwordWeak": "#e74c3c",'),
        ("meter.py", 'password_strong_color = "#ff0000"'),
        ("auth.py", 'password_scheme = "sha512Crypt"'),
    ],
)
def test_names_colours_patterns_and_arns_are_no_secret(path: str, text: str) -> None:
    assert not scan_text(text, path=path).findings, text


@pytest.mark.parametrize(
    "text",
    [
        'api_key = "Xk9mQ2vLpR7tW4zN"',
        'ENCRYPTION_KEY="Butterscotch"',  # a word a person chose as a token
        'app_token = "Ab3cDe9fGh2kLm5n"',
        'password = "#gotchadude"',
        'secret = "anothersecRet4ME"',
        'config.set "password", "Summer2024Password"',
        'password = r"Tr0ub\\d{}"',  # a password may hold what a pattern does
    ],
)
def test_values_beside_those_are_still_secrets(text: str) -> None:
    assert scan_text(text, path="settings.py").findings, text
