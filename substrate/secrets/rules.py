"""The rule table, in the order the rules are tried: private keys, the providers' token
formats, credentials known by their context (a URL's password, headers, calls), passwords
given to commands, and the generic key = value forms.

Provider rules follow each provider's documented public token format (fixed prefix, alphabet,
length); a reader can hold the pattern against that documentation. Their patterns start with
their literal prefix, so the regex engine's fast literal search does the scanning. What each
field of an entry means: ``secrets.rule``.
"""

from __future__ import annotations

import hashlib

from substrate.secrets.assignments import ASSIGNMENT_RULES
from substrate.secrets.localized import LOCALIZED_RULES
from substrate.secrets.passwordcommands import PASSWORD_COMMAND_RULES
from substrate.secrets.providers import PROVIDER_RULES
from substrate.secrets.rule import Rule

_PEM_BEGIN = r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
PEM_END = r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_B64 = r"[A-Za-z0-9+/]"
# The longest key block looked for: an armored PGP key with several subkeys runs past 20 KB.
MAX_KEY_BLOCK = 65536
# Armor header lines ("Version: ...", "Proc-Type: ...") and the blank line that may follow them
# before a key's base64 body
_ARMOR_HEADERS = r"(?:\r?\n[A-Za-z][\w-]{0,30}: [^\r\n]{0,200})*(?:\r?\n[ \t]*(?=\r?\n))?"

# Private keys come first: a key block may contain strings other rules would claim.
KEY_RULES: tuple[Rule, ...] = (
    Rule(
        "gcp_service_account_key",
        r'"private_key"\s*:\s*"(?P<secret>' + _PEM_BEGIN + r'[^"]{20,})"',
        ('"private_key"',),
        kind="pem",
        boundary=False,
        description="Google Cloud service-account JSON: the PEM key in its private_key field",
    ),
    Rule(
        "private_key_block",
        # the body holds no other BEGIN line: a text of BEGIN lines with no END costs a scan
        # to the next one from each, not one to the end of the text (a square of its length)
        _PEM_BEGIN + rf"(?P<secret>(?:(?!-----BEGIN)[\s\S]){{1,{MAX_KEY_BLOCK}}}?)" + PEM_END,
        ("-----begin",),
        kind="pem",
        boundary=False,
        description="PEM/OpenSSH/PGP private key block (the body between BEGIN and END)",
    ),
    Rule(
        "private_key_block",
        _PEM_BEGIN
        + _ARMOR_HEADERS
        # the body's lines (or "\n" escapes), or its runs on the header's line (a key pasted
        # flattened); the white space after the last run is masked with it
        + r"(?P<secret>(?:(?:[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]*|[ \t]+)"
        + _B64
        + r"{16,}=*)*[ \t]*)",
        ("-----begin",),
        kind="pem",
        boundary=False,
        description="A private key header whose END line is missing (a truncated key, or one "
        "too long for the block rule)",
    ),
    Rule(
        "private_key_block",
        # its first bytes name it: DER of a PKCS#8 or PKCS#1 RSA key, a PKCS#8 EC or Ed25519
        # key, a SEC1 EC key (P-256, P-384), or "openssh-key-v1" (a public key's differ)
        r"(?<![A-Za-z0-9+/])(?P<secret>(?P<lead>MII[A-Za-z0-9+/]{2}[AQgw]IBA"
        r"(?:DANBgkqhkiG9w0BAQEFAASC|AK[CB])|MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0w"
        r"|MHcCAQEEI|MIGkAgEBBD|MC4CAQAwBQYDK2VwBCIEI|b3BlbnNzaC1rZXktdjEAAAAA)"
        + _B64
        + r"{20,}=*(?=[ \t]*(?:\r?\n|$))"
        # the lines after it, to one that is not base64 alone
        + r"(?:[ \t]*\r?\n[ \t]*"
        + _B64
        + r"{4,}=*(?=[ \t]*(?:\r?\n|$))){0,1000})",
        (
            "ibadanbgkqhkig9w0baqefaasc",
            "ibaakc",
            "ibaakb",
            "mighageambmgbyqgsm49",
            "mhccaqeei",
            "migkagebbd",
            "mc4caqawbqydk2vwbciei",
            "b3blbnnzac1rzxktdjeaaaaa",
        ),
        kind="key_body",
        boundary=False,
        description="A private key's base64 body without its BEGIN and END lines",
    ),
    Rule(
        "private_key_block",
        r"Private-Lines: \d+(?P<secret>(?:\r?\n" + _B64 + r"{8,}=*)+)",
        ("private-lines:",),
        kind="pem",
        boundary=False,
        description="PuTTY .ppk private key lines",
    ),
)

# What sets a value after its name: an operator among ``ops`` with blanks around it, or
# blanks alone. Blanks are taken whole (possessively): a run of them before no value is not
# tried again split in every way, a cost growing with the square of its length.
_ASSIGNED_WITH = r"(?:\s*+(?:{ops})\s*+|\s++)"
# A password given by position, after its user, to what code calls with both: requests'
# auth=("user", "..."), HTTPBasicAuth("user", "..."), NetworkCredential, SetBasicAuth, and
# the login("user", "...") of smtplib, ftplib and imaplib; and a database's address, user and
# password given to JDBC's getConnection, PHP's PDO and mysqli, Python's MySQL drivers. The
# user may be a name or a literal; the password is the literal after it.
_USER_ARGUMENT = (
    r"""(?:"(?P<user>[^"\n]{0,128})"|'(?P<us>[^'\n]{0,128})'"""
    r"""|\$?[A-Za-z_][\w.]{0,64}(?:->\w{1,64}){0,4})"""
)
_ADDRESS_ARGUMENT = (
    r"""(?:"[^"\n]{0,256}"|'[^'\n]{0,256}'"""
    r"""|\$?[A-Za-z_][\w.]{0,64}(?:->\w{1,64}|\[[^\]\n]{0,64}\]){0,4})"""
)
_PASSWORD_ARGUMENT = (
    r"(?:(?<![\w])(?i:auth)[ \t]*=[ \t]*\("
    r"|(?<![\w])(?:HTTP(?:Basic|Digest|Proxy)Auth|BasicAuth|NetworkCredential"
    r"|UsernamePasswordCredentials|PasswordAuthentication|SetBasicAuth)[ \t]*\("
    r"|\.login[ \t]*\("
    r"|(?:\bgetConnection|\bnew[ \t]+\\?(?:PDO|mysqli)|(?<![\w$])mysqli_connect"
    r"|\b(?:pymysql|MySQLdb)\.connect)[ \t]*\([ \t]*"
    + _ADDRESS_ARGUMENT
    + r"[ \t]*,)[ \t]*"
    + _USER_ARGUMENT
    + r"""[ \t]*,[ \t]*[rRuU]?(?:"(?P<sq>[^"\\\n]{1,256})"|'(?P<ss>[^'\\\n]{1,256})')[ \t]*[,)]"""
)

# Credentials known only by their context (key names, URLs, headers), tried after the
# provider formats so a recognised token keeps its specific name.
CONTEXT_RULES: tuple[Rule, ...] = (
    Rule(
        "password_argument",
        _PASSWORD_ARGUMENT,
        ("auth", "credential", ".login", "getconnection", "pdo", "mysqli", "mysql"),
        kind="argument",
        lines=True,
        needs=",",
        boundary=False,
        description='a password given after its user: auth=("user", "..."), .login(user, "..."), '
        'getConnection(url, user, "...")',
    ),
    Rule(
        "aws_secret_key",
        # the name may be written as words: "AWS secret key: ...", as `aws configure` asks
        # for it ("AWS Secret Access Key [None]: ..."), or be given as an argument after it
        r"(?i:(?:aws|amazon)[\w.\- ]{0,30}?(?:secret|private)[\w.\- ]{0,20}?key"
        r"|secret[_\-. ]?access[_\-. ]?key)[\w.\-]{0,10}(?:[ \t]*\[[^\]\r\n]{0,40}\])?"
        r"[\"'`]?" + _ASSIGNED_WITH.format(ops="=>|:=|[:=,]") + r"[\"'`]?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        ("aws", "amazon", "secret_access", "secretaccess", "secret-access", "secret access"),
        entropy=3.5,
        lines=True,
        window=1,  # the value may follow on the next line
        description="AWS secret access key (40 base64 characters) assigned to a secret key name",
    ),
    Rule(
        "aws_secret_key",
        # a key id and its secret written side by side: "AKIA...:<secret>", two arguments,
        # a JSON entry, "key AKIA... and secret <secret>"; or the secret on the next line, as
        # a note lists the pair (a blank line between)
        r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"
        r"[^\r\n]{0,40}?(?:\r?\n(?:[ \t]*\r?\n)?[^\r\n]{0,40}?)?"
        # base64 of random bytes has both cases: a hex digest (a commit id) beside the key
        # id is no secret
        r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("akia", "asia", "abia", "acca", "a3t"),
        entropy=3.5,
        lines=True,
        window=2,
        description="AWS secret access key (40 base64 characters) next to its access key id",
    ),
    Rule(
        "heroku_key",
        # the legacy key is a UUID, known only by the name before it ("HEROKU_API_KEY=...",
        # "heroku api key: ...")
        r"(?i:heroku)[\w.\- ]{0,20}?(?i:key|token|secret|auth)[\w.\-]{0,10}[\"'`]?"
        + _ASSIGNED_WITH.format(ops="=>|:=|[:=]")
        + r"[\"'`]?(?P<secret>[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12})(?![\w-])",
        ("heroku",),
        entropy=3.0,
        lines=True,
        description="Heroku API key (legacy: a UUID) assigned to a Heroku key name",
    ),
    Rule(
        "npm_token",
        r"//[\w.\-]+(?::\d+)?(?:/[\w.\-]*)*/:_(?:authToken|auth|password)\s*=\s*"
        r"(?P<secret>[^\s\"'`]+)",
        ("_auth", "_password"),
        kind="credential",
        boundary=False,
        description="npm registry credentials in .npmrc (//registry/:_authToken=..., _auth, "
        "_password)",
    ),
    Rule(
        "jwt",
        # from the start of a run only: tried from each "eyJ" inside one ("eyJeyJ…"), the
        # search would read the rest of the run each time
        r"(?<![\w\-])eyJ[\w\-]{10,}={0,2}\.[\w\-]{10,}={0,2}(?:\.[\w\-]{10,}={0,2})?(?![\w\-.])",
        ("eyj",),
        kind="jwt",
        entropy=3.0,
        description="JSON Web Token: base64url JSON header . payload [. signature]",
    ),
    Rule(
        "jwt",
        r"ZXlK" + _B64 + r"{40,}={0,2}",
        ("zxlk",),
        kind="jwt_b64",
        entropy=3.5,
        description="A JSON Web Token that was base64-encoded once more",
    ),
    Rule(
        "url_credentials",
        # with its scheme, or without one ("//admin:pw@db/app")
        r"(?:(?<![\w+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,20}:|(?<![\w:/]))//[^\s:/@\"'<>]{0,64}:"
        # a password may hold @: clients end it at the last @ before the host, as this does
        r"(?P<secret>[^\s:/\"'<>]{1,128})@[\w.\-\[\]%]+",
        ("//",),
        kind="url",
        lines=True,
        boundary=False,
        needs="@",  # not tried on every comment line
        description="user:password@ in a URL or connection string (only the password masked)",
    ),
    Rule(
        "url_credentials",
        r"jdbc:oracle:thin:[\w.\-$]+/(?P<secret>[^\s@/\"']+)@",
        ("jdbc:oracle",),
        kind="url",
        lines=True,
        boundary=False,
        description="Oracle JDBC URL user/password@host",
    ),
    Rule(
        "basic_auth_header",
        # (base64 of "user:password" holds a capital or a digit: "Basic authentication" no)
        r"(?i:authorization)[\"']?(?:\s*[:=]|[ \t]+(?=[\"']))\s*[\"']?(?i:basic)\s+"
        r"(?=[a-z+/]*[A-Z0-9])(?P<secret>" + _B64 + r"{6,}={0,2})",
        ("basic", "authorization"),  # either line of a header split after its name
        lines=True,
        window=1,  # the value may follow on the next line
        entropy=2.5,
        boundary=False,
        description="HTTP Authorization: Basic header with base64 user:password",
    ),
    Rule(
        "bearer_token",
        r"Bearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)(?![\w\-.~+/=])",
        ("bearer",),
        lines=True,
        window=1,  # the value may follow on the next line
        entropy=3.0,
        description="OAuth bearer token in an Authorization header or code",
    ),
    Rule(
        "authorization_header",
        # the schemes that carry a token: token (GitHub), SSWS (Okta), Bot, Splunk, GenieKey,
        # Api-Key... (not any word: "Authorization: see docs/security/authorization.md")
        r"(?i:authorization)[\"']?\s*:\s*[\"']?(?i:(?:token|bearer|oauth|jwt|ssws|bot|splunk"
        r"|geniekey|api-?key|api-?token|key|dpop|zoho-oauthtoken|klaviyo-api-key|hmac"
        r"|sharedaccesssignature)[ \t]+)?"
        r"(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)(?![\w\-.~+/=])",
        ("authorization",),
        lines=True,
        window=1,  # the value may follow on the next line
        entropy=3.0,
        boundary=False,
        kind="header_token",
        description="A token in an Authorization header, after its scheme if any",
    ),
    Rule(
        "vault_unseal_key",
        # as `vault operator init` prints them
        r"(?i:(?:unseal|recovery)[ \t]+key)(?:[ \t]+\d{1,2})?[ \t]*:[ \t]*"
        # base64 of random bytes: holding a digit, and no path
        r"(?P<secret>(?!/)(?=[A-Za-z0-9+/]*\d)" + _B64 + r"{20,}={0,2})(?![A-Za-z0-9+/=.])",
        ("unseal key", "recovery key"),
        lines=True,
        entropy=3.5,
        boundary=False,
        description="Vault unseal or recovery key (Unseal Key 1: ...)",
    ),
    Rule(
        "otp_secret",
        # the shared secret of a one-time-password app, as the QR code's link holds it
        # (otpauth://totp/Issuer:me?secret=JBSWY3DPEHPK3PXP&issuer=...), base32
        r"(?i:otpauth://[th]otp/)[^\s?#]*\?(?:[^\s#&]*&)*?(?i:secret)="
        r"(?P<secret>[A-Za-z2-7]{16,}=*)(?![A-Za-z0-9])",
        ("otpauth://",),
        boundary=False,
        description="a one-time-password app's shared secret in an otpauth:// link",
    ),
    Rule(
        "recovery_phrase",
        # a wallet's recovery phrase under its name: "mnemonic: legal winner ...", "seed_phrase
        # = '...'", "My recovery phrase is: ..."; 12 to 24 lower-case words of 3 to 8 letters,
        # as BIP-39 lists them (how many, and that they read as no sentence: ``verdict``)
        r"(?<![\w\-])(?P<key>(?i:(?:secret[ _\-]?)?(?:recovery|seed|backup|wallet|mnemonic)"
        r"[ _\-]?(?:phrase|words|seed|mnemonic)|mnemonic|seed))(?![\w\-])(?:[ \t]+(?i:is|was))?"
        # ("key:: words" as a vault's property, "- words", or the words on the line under a
        # name that a colon ends, perhaps as a list item)
        r"(?:[ \t]*(?:::|:)[ \t]*\r?\n[ \t]*(?:[-*][ \t]+)?|[ \t]*(?:::|[:=\-\u2013])?[ \t]*)"
        r"(?P<q>[\"'`]?)(?P<secret>[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23})(?![ \t]*[a-z])(?P=q)",
        ("mnemonic", "phrase", "seed", "recovery words", "backup words"),
        kind="phrase",
        lines=True,
        window=1,
        boundary=False,
        description="a recovery (seed) phrase of 12 to 24 words under its name",
    ),
)


RULES: tuple[Rule, ...] = (
    KEY_RULES
    + PROVIDER_RULES
    + CONTEXT_RULES
    + PASSWORD_COMMAND_RULES
    + ASSIGNMENT_RULES
    + LOCALIZED_RULES
)
RULE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(rule.name for rule in RULES))


def rules_digest() -> str:
    """A digest of the rule table: what an ingest records with its options, so that a file
    read under other rules is read again (its earlier lines too, when it only grew)."""
    table = "\x1e".join(
        "\x1f".join((rule.name, rule.pattern, rule.kind, *rule.keywords)) for rule in RULES
    )
    return hashlib.blake2b(table.encode(), digest_size=6).hexdigest()
