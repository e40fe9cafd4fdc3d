"""Where source code holds text (``substrate.secrets.codetext``), and what the scanner makes
of ``key=value`` there."""

from __future__ import annotations

import pytest

from substrate.secrets.codetext import in_text
from substrate.secrets.scan import redact_secrets
from substrate.secrets.textscan import scan_text


def at(code: str, word: str) -> bool:
    return in_text(code, code.index(word))


def test_literals_closed_on_the_line_and_comments_hold_text() -> None:
    assert at('conn = "User ID=sa;Password=abc;"\n', "Password")
    assert at("run(['--password=abc', 'prod'])\n", "password")
    assert at("x = 1  # password=abc\n", "password")
    assert at("x = 1; // password=abc\n", "password")
    assert at("x = 1; /* password=abc */\n", "password")
    assert at('s = "a \\" password=abc"\n', "password")  # an escaped quote ends nothing


def test_code_between_literals_is_code() -> None:
    assert not at('password = "a" + b\n', "b\n")
    assert not at('d = {"client_secret": value}\n', "value")
    assert not at("x = 1; /* note */ password = value\n", "value")
    assert not at("it's password = value\n", "value")  # an apostrophe never closed


def test_hashes_that_open_no_comment_are_code() -> None:
    assert not at("#define PASSWORD value\n", "value")
    assert not at("this.#password = value;\n", "value")
    assert not at("#[derive(Debug)] password = value\n", "value")


def test_blocks_spanning_lines() -> None:
    doc = 'def f():\n    """Connect.\n\n    password: abc\n    """\n    password = value\n'
    assert at(doc, "password: abc")
    assert not at(doc, "value")
    comment = "/*\n * password=abc\n */\nint password = value;\n"
    assert at(comment, "abc")
    assert not at(comment, "value")
    assert not at("s = \"'''\"\npassword = value\n", "value")  # marks inside a literal


@pytest.mark.parametrize("path", ["db.py", "Db.java", "db.cs", "db.js", "db.go", "db.rb"])
def test_code_files_report_values_written_in_literals_and_comments(path: str) -> None:
    code = (
        'CONN = "Server=db.prod;Database=app;User ID=sa;Password=Xk92LmQp7RtVz4Wn;"\n'
        'run(["pg_dump", "--password=Qm7Zx2Lp9Wv4Rt8K", "prod"])\n'
        "// prod password=Hj3kL9mN2pQ8rS5t\n"
        'connect("host=db user=app password=Wq8Rt5Yu2Io9Pa3S")\n'
    )
    assert [f.line for f in scan_text(code, path=path).findings] == [1, 2, 3, 4]


def test_code_files_still_pass_expressions_and_commented_out_code() -> None:
    code = (
        "password = get_password()\n"
        "db_password = settings.DB_PASSWORD\n"
        '# password = os.environ["DB_PASSWORD"]\n'
        'log.info("password=%s", masked)\n'
        'url = f"postgres://app:{password}@db/app"\n'
        'api_key = os.getenv("API_KEY")  # api_key = from the environment\n'
    )
    assert not scan_text(code, path="settings.py").findings


def test_only_an_operator_makes_a_value_of_a_literal_or_comment() -> None:
    code = (
        'def f(pass_zero):\n    """\n    pass_zero : bool, optional\n    """\n'
        "# they can be given with the --username and --password options\n"
        "PATTERNS = (r'delpassword|'\n            r'delpassword2|')\n"
    )
    assert not scan_text(code, path="lexer.py").findings


@pytest.mark.parametrize(
    "line",
    [
        'print(f"password={password!r}")',
        "AccountKey=[a-zA-Z0-9+/=]{88}",
        "token=\\w{40}",
        ":param auth: (optional) Auth tuple to enable Basic Auth.",
        "password: Annotated[str, typer.Option(prompt=True)]",
        # a call of several arguments, cut at its first comma (code read with --as-text)
        "password = getpass(prompt, stream)",
        "token = self._next(a, b)",
        "api_key = load_key(path, strict=True)",
        'password = getpass(prompt, "Password: ")',
        "Call `password = getpass(prompt, stream)` to ask.",  # Markdown's inline code
    ],
)
def test_code_written_in_text_is_no_value(line: str) -> None:
    assert not scan_text(line + "\n", path="notes.txt").findings
    assert not scan_text(f"x = 1  # {line}\n", path="notes.py").findings


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("DB_PASSWORD=Xk92Lm[Qp7RtVz4Wn", "app.env"),
        ("DB_PASSWORD=Qw3r[Ty7]Xk92LmQp7!", "app.env"),
        ("DB_PASSWORD=Zq8[a-Xk92LmQp7Rt", "app.env"),
        ("password: Xk92Lm[Qp7RtVz4Wn", "config.yaml"),
        ("Password for staging: Xk92Lm[Qp7RtVz4Wn", "notes.txt"),
        ("password = Xk9m(Q2, vLp7)", "notes.txt"),  # no call: code names no function so
        ("password = xk9m(q2, then log in)", "notes.txt"),
        ("password = Summer(2024, then log in", "notes.txt"),
        ("DB_PASSWORD=k7f(x2,q9)!Zm84Wd", "app.env"),  # an .env file's values are no calls
        ("PASSWORD=s3cr3t_(a,b)", "notes.txt"),
        ("password=mypass(1,2)", "notes.txt"),
        ("db_password = p4ss.w0rd(x, y)", "notes.txt"),
        ("password = mypass(1, 2)", "notes.txt"),
    ],
)
def test_generated_values_with_brackets_are_no_code(line: str, path: str) -> None:
    assert scan_text(line + "\n", path=path).findings


@pytest.mark.parametrize(
    "line", ["password: (xKqZmVbLwTrQ", "password = (SunshineDays", "PASSWORD=(hJkLqWeRtZuIoP"]
)
def test_a_password_that_opens_with_a_bracket_is_no_remark(line: str) -> None:
    assert scan_text(line + "\n", path="notes.txt").findings


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("password=mypass(1,Lp7)", "password="),
        ("password: mypass(1, Lp7) and more", "password:  and more"),
        ("DB_PASSWORD=k7f(x2, q9)Zm", "DB_PASSWORD="),
        ("password=abc(1,Lp7)", "password="),  # its part before the comma alone is short
        ("password=Xy(9,Lp7q", "password="),
        ("password=mypass{1,Lp7} ok", "password= ok"),
        ("password=mypass（1,Lp7） ok", "password= ok"),
        ("password=Xk9(1, Lp7 next", "password= next"),  # left open: a comma's blank goes on
        ("password=mypass(1,Lp7,ghp_16C7e42F292c6912E7710c838347Ae178B4a) ok", "password= ok"),
    ],
)
def test_a_value_cut_inside_its_brackets_is_masked_to_their_close(line: str, shown: str) -> None:
    # cut at the comma, "[REDACTED],Lp7)" showed the password's end
    assert redact_secrets(line, mask="") == shown


@pytest.mark.parametrize(
    "line",
    [
        'password: "Summer(2024)"',
        "DB_PASSWORD=Welcome(1)",
        '{"password": "Tiger(1,2)"}',
        "password = Rocket(42)",
        "DB_PASSWORD=WelcomeHome(1)",
        "DB_PASSWORD=Hunter1(2024)",
        "DB_PASSWORD=Tr0ub(4dor)",  # a name no one calls
        "DB_PASSWORD=P4ssw0rd(me)",  # given a name, but spelling a word in digits
        "password: Random(2024)",
        'PASSWORD="Pa55word(1)"',
        "password: 'Xk9mQ(2vLp7)'",  # an argument no code writes
    ],
)
def test_a_word_and_numbers_in_brackets_is_a_password_not_a_call(line: str) -> None:
    assert scan_text(line + "\n", path="notes.txt").findings


@pytest.mark.parametrize(
    "line",
    [
        "password: varchar(255)",
        "- api_key: char(40)",
        "SECRET_KEY = urandom(24)",
        "password: Varchar(255)",
        "api_key: String(64)",
        "secret: Text(500)",
        "password: Field(64)",
        "password: Int64(0)",
        "password = Argon2id(salt)",
        "password = Get2FA(user)",
        "password = get_secret(3rd_party)",
        "password = secrets.token_hex(32)",
        "password = getpass()",
        "pwd = randomString(12)",
        "password = getB64Value(x)",
        "password = k8sSecret(name)",
        "password = args[1]",
        "SECRET_KEY=token_bytes(0x20)",
        "password = token_hex(1e3)",
    ],
)
def test_a_type_or_a_call_that_fetches_a_secret_is_no_password(line: str) -> None:
    # a column's type in lower or upper case, or named so; a call in lower case, given a
    # name, or of a name joined in camel case
    assert not scan_text(line + "\n", path="schema.md").findings
