"""Passwords written the way tools and frameworks spell them: settings' lines, Java's options,
named XML elements, positional connection arguments, SQL, password files.

Each case holds ``{}`` where a password goes; it is filled at run time, so this file holds no
secret-looking literal of its own.
"""

from __future__ import annotations

import random
import string

import pytest

from substrate.secrets import detect_secrets, scan_text
from substrate.secrets.keynames import classify_key

_R = random.Random(20261204)
# mixed case, digits and a symbol: strong enough for every rule's checks
PASSWORD = "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(11)) + "!Qz7"
# letters and digits only (what a .properties or XML value holds unescaped)
PLAIN = "Xk" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(12)) + "9"


def _masked(path: str, text: str, secret: str) -> bool:
    """Whether scanning ``text`` as the file ``path`` finds ``secret`` and hides it."""
    findings = scan_text(text, path=path).findings
    lines = text.splitlines()
    holding = [f for f in findings if secret in lines[f.line - 1]]
    return bool(holding) and all(secret not in f.preview for f in holding)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        # a setting's line: NAME VALUE
        ("redis.conf", "requirepass {}"),
        ("redis.conf", "masterauth {}"),
        ("Dockerfile", "ENV DB_PASSWORD {}"),
        ("Dockerfile", "ENV MYSQL_ROOT_PASSWORD {}"),
        ("app.properties", "db.password {}"),
        # options
        ("sign.sh", "keytool -list -keystore ks.jks -storepass {}"),
        ("sign.sh", "jarsigner -keypass {} app.jar alias"),
        ("run.sh", "redis-server --requirepass {}"),
        ("query.sh", 'sqlcmd -S db -U sa -P {} -Q "select 1"'),
        ("query.sh", "ldapsearch -x -D cn=admin,dc=x -w {} -b dc=x"),
        ("setup.sh", 'echo "deploy:{}" | chpasswd'),
        ("setup.sh", "echo {} | sudo passwd --stdin deploy"),
        # SQL
        ("grant.sql", "SET PASSWORD FOR 'app'@'%' = PASSWORD('{}');"),
        (
            "grant.sql",
            "ALTER USER 'root'@'localhost' IDENTIFIED WITH caching_sha2_password BY '{}';",
        ),
        # elements named by an attribute
        ("hibernate.cfg.xml", '<property name="hibernate.connection.password">{}</property>'),
        ("config.xml", '<entry key="db.password">{}</entry>'),
        # a password by position after its user
        ("Db.java", 'Connection c = DriverManager.getConnection(url, "app", "{}");'),
        ("db.php", '$db = new PDO($dsn, $user, "{}");'),
        ("db.php", '$link = mysqli_connect("localhost", "app", "{}", "shop");'),
        ("db.py", 'conn = pymysql.connect("localhost", "app", "{}", "shop")'),
        # a PostgreSQL password file
        (".pgpass", "db.example.com:5432:shop:app:{}"),
        ("setup.sh", 'echo "db.example.com:5432:shop:app:{}" >> ~/.pgpass'),
        # a connection string's field holding a comma
        ("notes.md", "Server=db;Database=shop;User Id=sa;Password=ab,{};"),
        # a literal wrapped onto the line under its key
        ("settings.py", 'PASSWORD = (\n    "{}"\n)'),
        # as the review wrote them: by a path, in capitals, glued, in a list, escaped
        ("run.sh", "mysqldump --password -{} shop"),  # a password may start with a dash
        ("healthcheck.sh", "/opt/mssql-tools/bin/sqlcmd -S localhost -U SA -P '{}'"),
        ("run.bat", "SQLCMD.exe -S db -U sa -P {}"),
        ("query.sh", "ldapsearch -x -w{} -b dc=x"),
        ("notes.md", "- db.example.com:5432:shop:app:{}"),
        ("notes.md", "CONFIG SET requirepass {}"),
        ("notes.md", "- requirepass {}"),
        ("db.php", "$db = new \\PDO($this->dsn, $this->user, '{}');"),
        ("db.php", "$db = new  PDO($config['dsn'], 'app', '{}');"),
        ("db.py", 'conn = pymysql.connect("localhost", "app", r"{}", "shop")'),
        ("settings.py", 'PASSWORD = (\n    "{}"  # noqa: S105\n)'),
        ("setup.sh", 'echo "deploy:{}" | sudo -S /usr/sbin/chpasswd'),
        ("setup.sh", "echo {} | passwd deploy --stdin"),
        ("grant.sql", "ALTER USER 'r'@'h' IDENTIFIED WITH 'mysql_native_password' BY '{}';"),
        # Wi-Fi and IPsec pre-shared keys
        ("wpa_supplicant.conf", 'network={{\n    ssid="home"\n    psk="{}"\n}}'),
        ("ipsec.secrets", '10.0.0.1 10.0.0.2 : PSK "{}"'),
        ("wifi.sh", "wpa_passphrase home {}"),
        ("get.sh", "docker run --rm curlimages/curl -u admin:{} http://db"),
        ("get.sh", "curl -u admin:/{} https://db"),  # curl's: a password may start with /
        ("up.sh", "docker compose run web ./upload.sh -u ops:{}"),  # the script's -u
        ("up.sh", "chown -R www-data:www-data /srv ; mysql -u root:{}"),  # another command's
        # a value in a CDATA section
        ("settings.xml", "<password><![CDATA[{}]]></password>"),
        ("settings.xml", "<Password>\n  <![CDATA[{}]]>\n</Password>"),
        ("hibernate.cfg.xml", '<property name="connection.password"><![CDATA[{}]]></property>'),
        # PowerShell's environment and scopes (a key after a colon was left to npm's rule)
        ("setup.ps1", '$env:DB_PASSWORD = "{}"'),
        ("ci.ps1", "$Env:API_TOKEN = '{}'"),
        ("run.ps1", '$global:password = "{}"'),
        # logical assignments
        ("app.rb", '@password ||= "{}"'),
        ("app.rb", 'ENV["DB_PASSWORD"] ||= "{}"'),
        ("app.ts", 'config.password ??= "{}";'),
        ("app.pl", '$password //= "{}";'),
        # a call's or a pair's first argument, then its value
        ("settings.py", 'SECRET_KEY = env("SECRET_KEY", "{}")'),
        ("settings.py", 'pair = ("password", "{}")'),
        # a name then its value in a list, or in a call after other arguments
        ("creds.py", 'creds = ["db_password", "{}"]'),
        ("pod.yaml", 'args: ["--password", "{}"]'),
        ("app.js", "new Map([['apiKey', '{}']])"),
        ("cache.py", 'r.hset("user:1", "password", "{}")'),
        # a value in backticks that only looks like code or an option
        ("runbook.md", "password = `{}--`"),
        ("runbook.md", "password = `--{}`"),
        ("runbook.md", "password = `Tr0ub\\d{}`"),  # as a pattern's class would
        ("appsettings.json", '{{"Smtp:Password": "{}"}}'),  # a .NET setting's section
        # on the line after its key, in a string literal (an escaped line break between),
        # indented, before an escaped quote or a dash
        ("events.jsonl", '{{"msg": "login ok, password:\\n{} sent"}}'),
        ("app.log", "password=\\r\\n{}"),
        ("events.jsonl", '{{"msg": "password:\\n  {}"}}'),
        ("events.jsonl", '{{"a": "password:\\n{0}\\" end", "b": "{0}"}}'),
        ("notes.jsonl", '{{"note": "wifi password:\\n{} - ask Bob"}}'),
        # a Dataview field or a Logseq property: "key:: value"
        ("Accounts.md", "db_password:: {}"),
        ("pages/Accounts.md", "- password:: {}"),
        ("pages/Accounts.md", "\tapi_key:: {}"),
        ("Accounts.md", "Cloud: [api_key:: {}]"),
    ],
)
def test_a_password_so_written_is_found_and_masked(path: str, line: str) -> None:
    for secret in (PASSWORD, PLAIN):
        if "5432" in line and secret is PASSWORD:
            continue  # ("!" needs no escape there, but keep the line plain)
        text = line.format(secret)
        assert _masked(path, text, secret), text


@pytest.mark.parametrize(
    ("path", "line", "hidden"),
    [
        ("grant.sql", "SET PASSWORD FOR 'app'@'%' = 'Zq8X''w2Rk5Vn1';", "w2Rk5Vn1"),
        ("query.sh", 'sqlcmd -S db -U sa -P "Zq8X\'w2Rk5Vn1"', "w2Rk5Vn1"),
        (".pgpass", "db:5432:shop:app:Zq8X:w2Rk5Vn1", "w2Rk5Vn1"),  # as libpq reads it
        ("setup.sh", 'echo "ab:Zq8Xw2Rk5Vn1" | passwd --stdin bob', "ab:"),  # all of it
    ],
)
def test_a_password_holding_a_quote_or_colon_is_masked_whole(
    path: str, line: str, hidden: str
) -> None:
    findings = scan_text(line, path=path).findings
    assert findings, line
    assert all(hidden not in f.preview for f in findings), findings


def test_only_the_password_is_masked() -> None:
    text = f'echo "deploy:{PASSWORD}" | chpasswd'
    (finding,) = scan_text(text, path="setup.sh").findings
    assert "deploy:" in finding.preview
    text = f'Connection c = DriverManager.getConnection(url, "app", "{PASSWORD}");'
    (finding,) = scan_text(text, path="Db.java").findings
    assert '"app"' in finding.preview


@pytest.mark.parametrize(
    ("path", "text"),
    [
        # sentences and declarations that look like a setting's line
        ("notes.md", "Password reset"),
        ("notes.md", "Token expired"),
        ("notes.md", "PASSWORD changed"),
        ("notes.md", "api_key required"),
        ("notes.md", "    DBPassword string"),
        ("notes.md", "    DBPassword []byte"),
        ("gpg.conf", "default-key 0x6B2C4A9F1E3D5C7B"),  # a public key's id
        ("case.txt", 'secret_key value="secretKeyVariable"'),  # a setting of its own
        ("redis.conf", "# requirepass foobared"),  # the stock file's commented example
        ("redis.conf", "requirepass foobared"),  # a word, as unquoted values go
        ("Dockerfile", 'ENV DB_PASSWORD "$DB_PASSWORD"'),
        ("gpg.conf", "ENV_SIGNING_KEY 0x6B2C4A9F1E3D5C7B"),  # ENV in its name, not before it
        # options that ask for the password, or take none
        ("keys.md", "keytool -storepasswd -keystore {{path/to/file.keystore}}"),
        ("dump.md", "mysqldump --user {{user}} --password --all-databases > out.sql"),
        ("query.sh", "ldapsearch -x -W -b dc=x"),
        ("setup.md", 'echo "{{username}}:{{password}}" | chpasswd'),
        # UI text under a password's name in an Android resource
        ("res/values-de/strings.xml", '<string name="login_password">Passwort</string>'),
        ("res/values/strings.xml", '<string name="password_hint">Enter your password</string>'),
        ("hibernate.cfg.xml", '<property name="connection.password">${DB_PASSWORD}</property>'),
        # the system's own password file is no PostgreSQL one
        ("shadow", "root:*:20228:0:99999:7:::"),
        ("notes.md", "hostname:port:database:username:password"),
        # a tuple's first item
        ("settings.py", 'AUTH = (\n    "deploy",\n    os.environ["PASSWORD"],\n)'),
        ("Db.java", "DriverManager.getConnection(url, user, password);"),
        # a setting's name in hard-wrapped prose, a shell's function, nginx's upstreams
        ("notes.md", "The deploy failed because the value of\nPOSTGRES_PASSWORD changed."),
        ("NEWS", "\tpassphrase_to_dek failed."),
        ("NEWS", "base-passwd.preinst (#316084)."),
        ("deploy.sh", "reset_password deploy"),
        ("nginx.conf", "    fastcgi_pass 127.0.0.1:9000;"),
        ("nginx.conf", "fastcgi_pass unix:/run/php/php8.1-fpm.sock;"),
        ("notes.md", "fastcgi_pass php:9000"),  # an address, with no ";" to end it
        ("notes.md", "uwsgi_pass unix:/run/app.sock"),  # a socket
        ("README.md", "MYSQL_ROOT_PASSWORD k8s-secret"),
        ("README.md", "masterauth (optional)"),
        ("notes.md", "setPassword v1.2.3"),
        # translations and preference keys under a password's or a key's name
        ("messages_de.properties", "label.password Passwort"),
        ("config.xml", '<entry key="login.password">Passwort</entry>'),
        ("res/values/strings.xml", '<string name="pref_key_last_sync">last_sync_ts_ms</string>'),
        ("res/values/strings.xml", '<string name="settings_key">KeyAccount2FA</string>'),
        ("gcloud.1", "set\\-password my\\-username"),  # troff's escaped dash
        # a pre-shared key's name in prose and settings
        ("notes.md", "key_mgmt=WPA-PSK"),
        ("changelog", "      psk.c:275:21: warning: use of possibly-NULL '_username.data'"),
        ("changelog", "    psk: Allow non-NULL PSK usernames"),
        ("NEWS", "gnutls_psk_netconf_derive_key: REMOVED"),
        ("changelog", '   This means that you can now say, e.g., "PSK:-PSK:HIGH" to enable'),
        ("notes.md", "Use WPA2-PSK for home networks."),
        ("wifi.md", "wpa_passphrase {{ssid}} {{passphrase}}"),
        ("settings.xml", "<password><![CDATA[]]></password>"),
        # -u USER:GROUP, a time format, a remote path: no user and password
        ("stamp.sh", "date -u +%Y-%m-%dT%H:%M:%SZ"),
        ("run.sh", "podman run -u nobody:nogroup img"),
        ("run.sh", "docker exec -u www-data:www-data app ls"),
        ("run.sh", "docker run --user 1000:1000 img"),
        ("sync.sh", "rsync -u src:/data dst"),
        ("scan.md", "nuclei -pt http -u {{http://scanme.sh}}"),  # a URL's rest, and a protocol
        ("settings.xml", "<password><![CDATA[${DB_PASSWORD}]]></password>"),
        # names listed after a secret's name: a form's fields, keywords, slots
        ("forms.py", "fields = ['username', 'password', 'email']"),
        ("forms.py", 'fields = ("username", "password", "confirmation")'),
        ("lexer.py", "KEYWORDS = ['if', 'pass', 'raise', 'return']"),
        ("cmp.py", '__slots__ = ["_compare_key", "_defining_class"]'),
        ("forms.py", "fields = ('username', 'email', 'password1', 'password2')"),
        ("settings.py", "HASHERS = ['password', 'sha256', 'bcrypt']"),
        # code quoted in prose: a call through a path or a chain, an option
        ("book.md", "let secret_number = rand::thread_rng().gen_range(1..=100);"),
        ("NEWS.md", "to rerun pass `--lib`"),
        # a word as a dictionary spells it, under a token's name: a field's or a header's
        ("paginators-1.json", '"result_key": "Permissions"'),
        ("client.py", 'API_KEY = "Authorization"'),
        ("forms.py", "fields = ['confirmPassword', 'newPassword']"),
        ("models.py", "fields = ['password', 'iOSToken', 'PASSWORD2']"),
        # patterns and scopes naming secrets
        ("logger.js", "redact: ['password', '*.secret', 'user.*.token']"),
        ("logger.js", "redact: ['password', '*.email']"),  # a path of names, whatever they are
        ("scrub.py", 'SCRUB = ["password", "^key$", "secret*"]'),
        ("oauth.py", 'SCOPES = ("user:email", "token", "read:public_key")'),
        ("slack.py", 'SCOPES = ["token", "chat:write"]'),
        ("client.py", 'API_KEY = "Deployment"'),
        ("status.json", '{"token_status": "Authenticated"}'),
        # a command named for a password, and its option
        ("tldr.md", "List pending password requests:\nsystemd-tty-ask-password-agent --list"),
        # a label ending a line of a JSON string: the escaped line break, then the next line
        ("tldr.jsonl", '{"text": "Change the password for a user:\\nsudo passwd {{name}}"}'),
        ("tldr.jsonl", '{"text": "Set the API key:\\nexport FOO=1"}'),
        # the next line is a command, a version or a note
        ("faq.jsonl", '{"a": "To reset the password:\\npython3 manage.py changepassword"}'),
        ("faq.jsonl", '{"a": "The password:\\nsha256sum file.txt | head"}'),
        ("faq.jsonl", '{"a": "password:\\n(none)"}'),
        ("faq.jsonl", '{"a": "password:\\nv1.2.3"}'),
        # web code: the Fetch API's modes, an object identifier, calls, a logged pair
        ("fp.js", "fetch(url, { credentials: 'include' })"),
        ("fp.js", "if (request.credentials === 'same-origin' || x) {}"),
        ("README.md", "Cookies go with `credentials: 'include'`; we include them."),
        ("oids.js", "const OID_PKCS9_MESSAGE_DIGEST_KEY = '1.2.840.113549.1.9.4';"),
        ("log.js", "log.verbose('web auth', 'got response', content)"),
        ("README.md", '```python\ntoken = client.auth.create_token(scope="read")\n```'),
        ("-", 'HEADER_TOKEN_RE = re.compile(r"^\\s*([^=\\s;,]+)")'),
        # a user's and a password's names joined: a doctest's long value
        ("package_index.py", ">>> long_auth = 'username:' + 'password'*10"),
        # usage's notation of an optional part: user[:password]@host
        ("tldr.md", 'tmutil setdestination "protocol://user[:password]@host/share"'),
        # a scope's name, and a field of no secret's name
        ("auth.cpp", "auto key = Password::hash(input);"),
        ("Daily.md", "status:: done"),
        # a recovery phrase's name in a sentence, or a seed that is a number
        (
            "wallet.md",
            "recovery phrase: write down these twelve words and keep them safe for later",
        ),
        ("train.py", "seed = 42"),
        ("wallet.md", "mnemonic: word word word word word word word word word word word word"),
        ("isa.md", "mnemonic: add sub mul div and orr eor lsl lsr asr mov cmp"),  # an ISA's
        # a property's value that is a link to a page, as Logseq writes one
        ("pages/Accounts.md", "- password:: [[Vault Entry]]"),
        ("pages/Accounts.md", "- token:: #[[Tokens]]"),
        # a placeholder of six words that reads as a sentence; a heading over a list of words
        ("config.md", 'password = "replace with the real one later"'),
        (
            "garden.md",
            "## Seed\ncarrot potato onion garlic pepper tomato radish turnip celery leek bean pea",
        ),
        (
            "garden.md",
            "seedling carrot potato onion garlic pepper tomato radish turnip celery leek bean",
        ),
        ("Types.hs", "secretKey :: ByteString"),  # a type, in Haskell
    ],
)
def test_what_only_looks_like_one_is_not_reported(path: str, text: str) -> None:
    assert not scan_text(text, path=path).findings, text


@pytest.mark.parametrize(
    "line",
    [
        "smb://user[:{}]@host/share",  # a password filled into the notation is one still
        "('password', '{}')",  # a pair's key quoted alone
        '{{"facebook access_token": "{}"}}',  # a quoted key of two words, then its value
        # a pair's key after a path or a phrase (a vault's, a cache's)
        "vault.write('secret/api-token', '{}')",
        'kv.put("prod/db_password", "{}")',
        'redis.set("session:api_key", "{}")',
        "client.set('github token', '{}')",
        "('admin password', '{} and more')",  # a passphrase under a password's name
    ],
)
def test_a_password_beside_what_no_longer_counts_is_found(line: str) -> None:
    assert _masked("notes.txt", line.format(PLAIN), PLAIN)


def test_an_android_resource_holds_a_random_key_not_a_word() -> None:
    key = "Ai" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(30))
    text = f'<string name="maps_api_key">{key}</string>'
    assert _masked("res/values/strings.xml", text, key)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('creds = ["db_password", "hunter2hunter2"]', "hunter2"),
        ('env = [["DB_PASSWORD", "correct-horse-battery"]]', "correct-horse-battery"),
        ('config.set("database", "password", "hunter2hunter2")', "hunter2"),
        ('"smtp_password","hunter2hunter2"', "hunter2"),
        ("password = `--hunter2`", "hunter2"),
        # a value holding a secret's word is no field's name
        ("params = ['password', 'mypassword1']", "mypassword1"),
        ("env = ['SECRET_KEY', 'secretkey-9f8a7b6c5d4e3f2a1b0c']", "9f8a7b6c"),
        # a token a person chose, not a machine; and one of a key a result's name qualifies
        ('api_key: "Supersecretkey"', "Supersecretkey"),
        ('api_result_key = "a8Fk3LqP9zXw2VbN7cRt"', "a8Fk3LqP9zXw2VbN7cRt"),
        ('ENCRYPTION_KEY="Butterscotch"', "Butterscotch"),
        ('config.set("database", "password", "letMeIn1")', "letMeIn1"),
        ('creds = ["db_password", "P@$$w0rd"]', "P@$$w0rd"),
        # marks of a pattern, a scope's colon, a name's hump: in a password, not a name
        ('ENV.fetch "DB_PASSWORD", "Hunter2$"', "Hunter2$"),
        ('creds = ["password", "monkey$"]', "monkey$"),
        ('creds = ["password", "Secret*"]', "Secret*"),
        ('creds = ["password", "tokenK8sJd93kLa0"]', "tokenK8sJd93kLa0"),
        ('creds = ["password", "guest:write"]', "guest:write"),
        ('creds = ["password", "passport*"]', "passport*"),
        ('API_KEY="Magnificent"', "Magnificent"),
        ('creds = ["password", "admin:hunter"]', "admin:hunter"),
        ('config.set "password", "Summer2024Password"', "Summer2024Password"),
    ],
)
def test_a_weak_password_after_its_name_in_a_list_is_found(text: str, secret: str) -> None:
    # only names listed after a secret's name are passed over, not any value that is not random
    assert _masked("app.py", text, secret)


def test_glued_password_names_are_passwords() -> None:
    for name in ("requirepass", "masterauth", "storepass", "keypass", "keystorePass"):
        assert classify_key(name) == "password", name
    for name in ("bypass", "lowpass", "compass"):
        assert classify_key(name) is None, name


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('pass_zero = "bandstop"', None),  # scipy's filter design: a verb, not a password
        ('pass_color = "green"', None),
        ("firwin(n, pass_zero='highpass')", None),
        ('pass_prod = "Xk9#mP2qLw7!"', "Xk9#mP2qLw7!"),  # random, under any name
        ('pass_zero = "Xk9#mP2qLw7!"', "Xk9#mP2qLw7!"),
        ('enable_pass_through = "Xk9#mP2qLw7!"', None),  # passing through, anywhere in a name
        ('pass1 = "hunter2xyz"', "hunter2xyz"),  # numbered passwords stay passwords
        ('smtp_pass = "green"', "green"),  # "pass" last names what the value is
        ('PASS_PHRASE = "correct horse battery"', "correct horse battery"),  # a passphrase
        ("DB_PASS_PROD=letmein99", "letmein99"),  # weak passwords under ordinary names
        ("PASS_ROOT=hunter22", "hunter22"),
        ('MYSQL_PASS_ADMIN="correcthorse"', "correcthorse"),
        ('pass_code = "471199"', "471199"),
    ],
)
def test_pass_leading_a_name_needs_a_value_that_looks_random(text: str, secret: str | None) -> None:
    path = "filters.py" if '"' in text or "'" in text else "prod.env"  # (unquoted: a setting)
    if secret is None:
        assert scan_text(text, path=path).findings == []
    else:
        assert _masked(path, text, secret)


def test_a_flag_after_the_option_is_not_its_value() -> None:
    """Before, "--password --all-databases" took the next option for the password, and the
    gate then masked every copy of it in the file."""
    text = "mysqldump --password --all-databases\nmysql --all-databases"
    assert detect_secrets(text).clean


@pytest.mark.parametrize(
    "line",
    [
        "Cookie: theme=dark; sessionid={}",
        "Set-Cookie: PHPSESSID={}; Path=/; HttpOnly",
        'curl -b "JSESSIONID={}" https://shop.example.com/cart',
        '{{"cookies": {{"sessionid": "{}"}}}}',
    ],
)
def test_a_session_cookie_is_found_by_its_name(line: str) -> None:
    # who holds a session's cookie is logged in: it was stored in clear
    secret = "Zq8vLp2mWxQ4rT7yU0iOZq8vLp2mWxQ4"
    assert _masked("requests.log", line.format(secret), secret), line


@pytest.mark.parametrize(
    "text",
    [
        "Cookie: theme=dark; lang=en-US",
        "sessionid=expired",
        "PHPSESSID is PHP's default name for the session cookie.",
        'redis.set("session:api", "cart-v2")',
        # an app's own session, named apart: an identifier its traces are looked up by
        '{"session_id": "3f2a9c41-b7d3-4e5f-a60a-1b2c3d4e5f6a"}',
    ],
)
def test_a_session_cookie_needs_a_value_that_looks_random(text: str) -> None:
    assert not scan_text(text, path="requests.log").findings, text


@pytest.mark.parametrize(
    "text",
    [
        "mnemonic: {}",
        'seed_phrase = "{}"',
        "My recovery phrase is: {}",
        "- Secret Recovery Phrase: `{}`",
        "WALLET_MNEMONIC={}",
        # a vault's property, a dash, the next line, a list item under the name
        "- Recovery Phrase:: {}",
        "MetaMask recovery phrase - {}",
        "Recovery phrase:\n{}",
        "- Seed phrase:\n  - {}",
    ],
)
def test_a_recovery_phrase_under_its_name_is_found_and_masked(text: str) -> None:
    words = "".join(_R.choice(string.ascii_lowercase) for _ in range(24 * 5))
    phrase = " ".join(words[i : i + 5] for i in range(0, 24 * 5, 5))  # 24 random words
    for size in (12, 24):
        secret = " ".join(phrase.split()[:size])
        assert _masked("wallet.md", text.format(secret), secret), (text, size)


def test_a_token_after_a_colour_code_or_an_escaped_tab_is_found() -> None:
    # a CI log prints a token in bold ("\x1b[1m" ends in a letter, as a longer run would)
    token = "ghp_" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(36))
    key_id = "AKIA" + "".join(_R.choice(string.ascii_uppercase + string.digits) for _ in range(16))
    for text, secret in [
        (f"\x1b[1m{token}\x1b[0m", token),
        (f"export AWS_ACCESS_KEY_ID=\x1b[33m{key_id}\x1b[0m", key_id),
        (f"key:\\t{key_id}", key_id),  # an escaped tab, as JSON writes one
        # the colour code escaped, as JSON, a shell and Python write it; a tab as JSON's \u
        (f'{{"msg": "\\u001b[1m{key_id}\\u001b[0m"}}', key_id),
        (f'{{"msg": "\\u001b[38;2;255;100;0m{key_id}"}}', key_id),
        (f'echo -e "\\033[1m{key_id}"', key_id),
        (f'print("\\x1b[1m{key_id}")', key_id),
        (f'{{"msg": "key:\\u0009{key_id}"}}', key_id),
    ]:
        assert _masked("ci.log", text, secret), text


def test_a_value_holding_more_than_a_link_is_judged_as_a_value() -> None:
    assert _masked("notes.md", f'password = "[[a]]{PASSWORD}"', PASSWORD)


def test_a_passphrase_of_six_words_is_found() -> None:
    # (five were, and a copy of five of the six masked elsewhere left the sixth in clear)
    words = " ".join("".join(_R.choice(string.ascii_lowercase) for _ in range(6)) for _ in range(6))
    assert _masked("vault.md", f"passphrase: {words}", words)


def test_a_test_suite_s_results_are_no_passwords() -> None:
    log = (
        "Running binutils-all/ar.exp ...\n"
        "PASS: ar thin archive\n"
        "PASS: ar deterministic archive\n"
        "PASS: addr2line -f option\n"
        "FAIL: objdump -d\n"
    )
    assert not scan_text(log, path="test-summary.log").findings


@pytest.mark.parametrize(
    "text",
    [
        "PASS: {}\n",
        "USER: admin\nPASS: {}\nUSER: deploy\nPASS: Zq8mWv3kLp9x\n",
        "PASS: {}\nPASS: Zq8mWv3kLp9x\n",  # two accounts' passwords, one under the other
        "PASS: Zq8mWv3kLp9x\nPASS: {}\nPASS: Wm4tR8yUe2Kq\n",
        "Running the staging box\nPASS: {}\n",
        "USER: admin\nPASS: {}\nFAIL: account locked after three tries\n",
    ],
)
def test_a_password_labelled_pass_is_one(text: str) -> None:
    assert _masked("notes.txt", text.format(PASSWORD), PASSWORD)
