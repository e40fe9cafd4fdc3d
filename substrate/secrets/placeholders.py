"""Tell real secret values from placeholders, references and ordinary words.

A value assigned to ``password`` or ``api_key`` is only worth an alarm when it is a literal
that could work as a credential. Template holes (``${TOKEN}``, ``{{ token }}``), environment
lookups (``os.environ["TOKEN"]``), function calls, variable names, documentation fill-ins
(``<your-token>``, ``changeme``, ``xxxxxxxx``) and UI text (``"Enter your password"``) are not.
"""

from __future__ import annotations

import re

from substrate.secrets.entropy import char_classes, is_repetitive, is_sequential, shannon
from substrate.secrets.keynames import PASSWORD_MANAGERS, names_a_password

# Words that mark a value as made up wherever they appear in it.
_HARD_MARKERS: tuple[str, ...] = (
    "example",
    "dummy",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "changeit",
    "redacted",
    "replace_me",
    "replaceme",
    "replace-me",
    "insert_",
    "insert-",
    "_here",
    "-here",
    "your_",
    "your-",
    "yourkey",
    "yourtoken",
    "yoursecret",
    "yourpassword",
    "yourapikey",
    "****",
    "...",
    "\u2026",
    "fake",
    "mock",
    "lorem",
    "notreal",
    "not_real",
    "not-real",
    "not_a_",
    "not-a-",
    "foobar",
    "sample",
)
# Words that only mark a value as made up when what is left around them is not random.
_SOFT_MARKERS: tuple[str, ...] = ("test", "demo", "foo", "todo", "tbd", "here")
# Values that are encrypted or point into a secret store: safe to commit by design.
_SEALED_PREFIXES: tuple[str, ...] = (
    "enc[",
    "$ansible_vault",
    "vault:",
    "!vault",
    "sm://",
    "secretmanager:",
    "ssm:",
    "kms:",
    "arn:aws:secretsmanager",
    "arn:aws:ssm",
    "op://",
    "keyvault:",
    "akv:",
    "sops:",
)

# Whole values that name a thing instead of being one.
_NON_SECRET_WORDS: frozenset[str] = frozenset(
    """password passwd pass pwd secret secrets token tokens key keys apikey api_key auth
    credential credentials none null nil true false yes no on off undefined empty string str
    text bearer basic required optional hidden default value values public private true
    false disabled enabled unknown n/a na tbd todo blank omitted masked encrypted hash
    hashed random generated secure insecure user username login
    stored managed rotated expired revoked unchanged pending shared vault keychain
    id_rsa id_dsa id_ecdsa id_ed25519 id_ecdsa_sk id_ed25519_sk
    """.split()
)
# A value that is a date ("rotated: 2024-05-01"), not a secret.
_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)

_TEMPLATE = re.compile(
    r"\$\{\{[^{}]*\}\}"  # ${{ github.expr }}
    r"|\$\{[A-Za-z_][\w.:\-]*(?::?[-=?+][^{}]*)?\}"  # ${VAR}, ${VAR:-default}
    r"|\$\([^()]*\)"  # $(command)
    # a value a blank cut short: "$(openssl rand -hex 32)", "${PASSWORD:?PASSWORD is not set}"
    # (not a default, "${PASSWORD:-...}", which may be the password)
    r"|^\$\(|^\$\{[A-Za-z_][\w.]*:?\?"
    r"|\{\{[^{}]*\}\}"  # {{ var }}
    r"|\{%[^%]*%\}"  # {% tag %}
    r"|<%=?[^%]*%>"  # <%= erb %>
    r"|#\{[^{}]*\}"  # #{ruby}
    r"|%\([\w.]+\)[sdrif]"  # %(name)s
    r"|%%[\w./ \-]+%%"  # %%VAR%%
    r"|(?<![\w%])%[A-Za-z_][\w]*%(?![\w%])"  # %WINDOWS_VAR%
    r"|\{[A-Za-z_][\w.]+(?:\(\))?\}"  # {name} (f-strings, str.format), 2+ characters
    r"|\{\$[A-Za-z_][\w.]*\}"  # {$var}
    r"|@[A-Z_][A-Z0-9_]+@"  # @TOKEN@
    r"|__[A-Z][A-Z0-9_]+__"  # __TOKEN__
)
# A call's or a subscript's brackets, balanced, with brackets three deep at most inside them
_IN_PARENS = r"[^()]*+"
_IN_SQUARE = r"[^\[\]]*+"
for _ in range(3):
    _IN_PARENS = rf"(?:[^()]++|\({_IN_PARENS}\))*+"
    _IN_SQUARE = rf"(?:[^\[\]]++|\[{_IN_SQUARE}\])*+"
_BALANCED = rf"\({_IN_PARENS}\)|\[{_IN_SQUARE}\]"
# A call's arguments before a quoted one, or a comma, cut it short: each a run of what is
# neither a bracket nor a comma, or brackets balanced, then the comma; the last, cut, holds a
# call of its own ("compute(key()", "s(bob.key()": "Xk9mQ(2vLp7" is a password)
_ARGUMENTS = (
    rf"(?:(?:[^(),]++|\({_IN_PARENS}\))++,\s*+)*+"
    rf"(?:[^(),]*+\({_IN_PARENS}\)(?:[^(),]++|\({_IN_PARENS}\))*+)?"
)
_WHOLE_REFERENCE = re.compile(
    r"(?:"
    r"\$[A-Za-z_][\w]*"  # $VAR
    r"|(?i:\$env:)[A-Za-z_][\w]*"  # $env:VAR (PowerShell)
    r"|![A-Z_][A-Z0-9_]*!"  # !VAR! (a batch file's delayed expansion)
    r"|\$\$[A-Z_][A-Z0-9_]*"  # $$VAR: a compose file's escaped one
    r"|\$\d"  # $1
    r"|%[sdvrqx]|\{\d*\}|\?"  # format holes
    r"|(?:%[sdvrqx]|\{\d*\})(?:[^\w\s{}%]{1,3}(?:%[sdvrqx]|\{\d*\}))+"  # %s:%s, {0}@{1}
    r"|<[^<>]{1,80}>"  # <your-token>, <API key>
    # <string> as HTML escapes it, perhaps with the markup that closes around it
    r"|(?i:(?:&lt;|&#x0*3c;|&#0*60;)[^<>&]{1,80}(?:>|&gt;?|&#x0*3e;?|&#0*62;?)(?:</[a-z]+>)*)"
    r"|\[[A-Za-z_][\w .\-]{0,60}\]"  # [PASSWORD]
    r"|(?:-{1,2}[\w.\-]+[=:]%[sdvrq][ \t]*)+"  # options' holes: " --user=%s --password=%s"
    # calls and subscripts, their brackets balanced (three deep at most), and what follows one
    # in code: never a letter right after its bracket ("Ks5(dFg2)hJk8Lz", "Hx7(aB)9Qz(Lm)":
    # passwords)
    r"|[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*\s*(?:" + _BALANCED + r")"
    r"(?:[.()\[\]'\"][\w.()\[\]'\"]*)?"
    r"|[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+"  # a.b.c attribute chains
    # a call cut at its quote or a comma: right after its bracket, or after its arguments so
    # far ("compute(key(), 'hex')")
    r"|[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*[ \t]*(?:\(" + _ARGUMENTS + r"|\[)"
    r")[;,)]*"
)
_ENV_LOOKUP = re.compile(
    r"environ|getenv|process\.env|ENV\[|env\(|Environment\.|System\.get|secrets\.|vault\(",
)
_PATH = re.compile(r"^(?:~|\.{1,2})?/|^[A-Za-z]:\\|^[\w.\-]+(?:/[\w.\-]+)+/?$")
_FILE = re.compile(r"\.(?:pem|key|crt|cer|der|p12|pfx|jks|json|ya?ml|txt|conf|cfg|ini|env|pub)$")
_UI_WORDS: frozenset[str] = frozenset(
    """password passwords passwd pass secret token key enter your please must invalid incorrect
    wrong missing required confirm confirmation forgot reset show hide new current old change
    field label placeholder type minimum characters
    match mismatch do does length mot de passe passwort kennwort contraseña senha wachtwoord
    parola hasło lozinka salasana jelszó heslo""".split()
)


def has_template(value: str) -> bool:
    """Whether ``value`` holds a template hole or an environment lookup anywhere, or begins
    with a hole a blank cut short (``$(openssl``)."""
    return bool(_TEMPLATE.search(value) or _ENV_LOOKUP.search(value))


def is_reference(value: str) -> bool:
    """The value refers to a secret kept elsewhere (variable, call, template, env lookup)."""
    v = value.strip()
    if has_template(v) or v.lower().startswith(_SEALED_PREFIXES) or _ARN.fullmatch(v):
        return True
    if not _WHOLE_REFERENCE.fullmatch(v) or _password_shaped_call(v):
        return False
    # "Hq7mZ2.vL9zRw" reads as an attribute chain, but no one names attributes so (a longer
    # chain, config.S3Config.password, is one)
    parts = v.split(".")
    return not (len(parts) <= 2 and _CHAIN.fullmatch(v) and any(map(_random_part, parts)))


_CHAIN = re.compile(r"[\w$?.]+")


def _password_shaped_call(value: str) -> bool:
    """Whether ``value``, shaped as a call, is a password people choose: a capitalised word or
    two and numbers in brackets that names no type (``_WORD_AND_NUMBERS``), a name no one
    calls (``_random_part``: ``Tr0ub(4dor)``, ``Pa55word(1)``; ``getB64Value`` is words
    joined) given no name, or spelling a word in digits (``P4ssw0rd(me)``, not
    ``Argon2id(salt)``), or an argument no code writes (``Xk9m(2vLp7)``: digits, letters,
    digits; not ``0x20`` or ``1e3``)."""
    word = _WORD_AND_NUMBERS.fullmatch(value)
    if word is not None and word.group(1).lower() not in _TYPE_WORDS:
        return True
    arguments = _ARGUMENT.findall(value)
    if any(_MIXED_ARGUMENT.fullmatch(arg) for arg in arguments):
        return True
    callee = _CALLEE.match(value)
    if callee is None or not _random_part(name := callee.group(1)) or _CAMEL.search(name, 1):
        return False
    # (a name given, it is a call, unless the callee spells a word in digits: "P4ssw0rd(me)")
    named = any(arg[:1].isalpha() or arg[:1] == "_" for arg in arguments)
    return not named or _LEET.search(name) is not None


# A capitalised word (or two) and numbers in brackets: "Summer(2024)", "Welcome(1)",
# "Hunter1(2024)". Code that fetches a secret calls a name of its own, in lower case
# (``urandom(24)``), with a dot or an underscore, or passes more than numbers; a column's
# type is in lower or upper case (``varchar(255)``, ``CHAR(40)``), or capitalised and named
# so (``String(64)``, ``Decimal(10, 2)``: ``_TYPE_WORDS``)
_WORD_AND_NUMBERS = re.compile(r"((?:[A-Z][a-z]+){1,2})\d*\(\d+(?:,[ ]?\d+)*\)")
_TYPE_WORDS = frozenset(
    """string text varchar nvarchar char nchar character decimal numeric number int integer
    smallint bigint tinyint float double real bytes binary varbinary blob clob bit bool boolean
    field column array list vector enum datetime timestamp interval uuid json compile range
    sleep length size limit round""".split()
)
# The name a value shaped as a call opens with (no dotted one: ``config.S3Key(…)``)
_CALLEE = re.compile(r"([A-Za-z_$][\w$]*)[(\[]")
# A call's arguments, and one no code writes: digits, then letters, then digits ("2vLp7")
_ARGUMENT = re.compile(r"[(\[,]\s*([^\s(),\[\]]+)")
_MIXED_ARGUMENT = re.compile(r"(?!0[xob]|\d+e[+-]?\d+$)\d+[a-z]+\d.*", re.IGNORECASE)
# Digits standing for letters between letters, as a password spells a word: "P4ssw0rd",
# "Tr0ub4dor", "S3cr3t" (not "Argon2id", "Get2FA")
_LEET = re.compile(r"[A-Za-z][013457]+[A-Za-z]")
# A word joined in camel case, past a name's first letter: "getB64Value", "s3Secret"
_CAMEL = re.compile(r"[A-Z][a-z]{2}")
# An AWS resource's name (a KMS key's, a role's, a secret's), never its key material:
# arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE, the account twelve digits or none
_ARN = re.compile(r"arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?:\d{12}|aws)?:\S+", re.IGNORECASE)


def _random_part(part: str) -> bool:
    """A part of a dotted value that no one would name: digits inside letters of mixed case
    (``Hq7mZ2``, ``S3cr3t``; not ``k8s`` or ``oauth2client``), or a long run of them (a hex
    digest)."""
    if not _DIGITS_INSIDE.search(part):
        return False
    return len(part) >= 16 or not (part.islower() or part.isupper())


def _residue_is_random(value: str, marker: str) -> bool:
    rest = value.lower().replace(marker, "")
    rest = "".join(ch for ch in rest if ch.isalnum())
    return len(rest) >= 16 and shannon(rest) >= 3.3


def is_placeholder(value: str) -> bool:
    """Documentation fill-ins, masks and obviously made-up values."""
    low = value.lower()
    # x's typed in one case mark a made-up value ("xxxx1234", "sk_live_51Hxxxx"); random
    # letters hold "xXxX" by chance (a token's own judge asks more: ``x_filler``)
    if any(m in low for m in _HARD_MARKERS) or "xxxx" in value or "XXXX" in value:
        return True
    for marker in _SOFT_MARKERS:
        if marker in low and _marks(value, marker) and not _residue_is_random(low, marker):
            return True
    core = low.strip(" \t'\"`")
    if core in _NON_SECRET_WORDS or _USER_AND_PASSWORD.fullmatch(core):
        return True
    return is_repetitive(value) or is_sequential(value)


# A user's and a password's names as a value's shape, not a value ("username:password",
# "user/pass", "username:" opening a joined one)
_USER_AND_PASSWORD = re.compile(r"(?:user(?:name)?|login)[:/](?:pass(?:word)?|pwd)?")


def x_filler(value: str) -> bool:
    """Whether ``value`` is filled in with x's, in one case as a person types them: a run of
    five or more, or two runs of four ("xxxx-xxxx"). A random key holds a run of four by
    chance (an AWS key id, of 32 upper-case letters and digits, about one in 80,000)."""
    return _X_FILLER.search(value) is not None


_X_FILLER = re.compile(r"x{5}|X{5}|(?:xxxx|XXXX).*?(?:xxxx|XXXX)", re.DOTALL)


def _marks(value: str, marker: str) -> bool:
    """Whether ``marker`` stands in ``value`` as a word of its own (``test_pw``, ``myTest1``,
    ``demo-key``, ``TESTPASS``), not inside another word (``Latest$2024``, ``Football#1``,
    ``Democracy1!``)."""
    if any(part.lower() == marker for part in _SEGMENTS.findall(value)):
        return True
    # in one case throughout, words run together unseen: "testpass", "TESTPASSWORD"
    low = value.lower()
    one_case = value.islower() or value.isupper()
    return one_case and (low.startswith(marker) or low.endswith(marker))


_SEGMENTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+(?:\.\d+)*|[^A-Za-z0-9]+")


def is_name_like(value: str) -> bool:
    """An identifier or label that reads as a name: ``secretKeyVariable``, ``MY_APP_KEY``,
    ``api-key``, ``DOC_Vector_5_32``, ``jjwt-jackson-0.11.2``.

    The value must have at least two parts (separators or camel humps) and every part must be
    a whole word or a whole number; random values mix letters and digits inside their parts.
    """
    value = value.strip("_")  # a private or a dunder name: _hypothesis_stats, __X_ID__
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", value) or not value[:1].isalpha():
        return False
    # digits inside a word are random, not a name; digits may end a short hump, a name's
    # number before a word (Ec2KeyName, Ipv4Pools, Sha256Digest), but not a word's
    # (Summer2024Password), nor before capitals (secRet4ME) or in capitals alone, where no
    # hump shows where a word ends
    if value.isupper():
        inside = r"[A-Z]\d+[A-Z]"
    else:
        # (the letters before a number tried from a run's start only, and never given back:
        # from every letter of a long run, the search read the rest of it each time)
        inside = (
            r"[A-Za-z]\d+(?:[a-z]|[A-Z](?![a-z]))|(?:[A-Z][a-z]{4,}+|(?<![a-z])[a-z]{5,}+)\d+[A-Z]"
        )
    if re.search(inside, value):
        return False
    parts = [p for p in _SEGMENTS.findall(value) if p[0].isalnum()]
    words = [p for p in parts if p.isalpha()]
    if len(words) < 2 and not re.search(r"[A-Za-z][_.\-]\d", value):
        return False  # one word plus glued digits (``password1``) reads as a literal
    if not words or sum(len(w) for w in words) < len(value) // 2:
        return False
    if any(_short_humps(piece) > 1 for piece in re.split(r"[_.\-]", value)):
        return False  # many one- or two-letter humps: mixed-case noise, not camelCase
    # words read as words when they hold a vowel ("Vector", "key"), unlike "qDVtk"
    return all(any(ch in "aeiouyAEIOUY" for ch in w) or len(w) <= 4 for w in words)


def _short_humps(piece: str) -> int:
    """How many words of one or two letters ``piece`` holds: ``X`` and ``ID`` in
    ``X_AMZN_TRACE_ID`` are one each between separators, ``qDVtk`` is three."""
    return sum(w.isalpha() and len(w) <= 2 for w in _SEGMENTS.findall(piece))


# words that make a value joined from words the name of a field, a variable or a setting
# ("login-form-password", "db_user_name") rather than a password made of words
_LABEL_WORDS = frozenset(
    "password passwd pwd secret key token field input name label id env var form login user "
    "username value default example sample test dummy placeholder".split()
)
_JOINED_WORDS = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+){2,}")


def is_passphrase(value: str) -> bool:
    """Three or more lower-case words joined by ``-`` or ``_`` (``correct-horse-battery``,
    ``winter-is-coming-2024``): a password made of words, though it reads as a name, unless
    one of its words names a field or setting."""
    if len(value) < 12 or not _JOINED_WORDS.fullmatch(value):
        return False
    return not _LABEL_WORDS.intersection(re.split(r"[-_]", value))


# Words that make a run of words a sentence about a credential ("stored in Vault", "ask Bob",
# "same as the username", "not set") rather than a passphrase ("correct horse battery staple").
_SENTENCE_WORDS: frozenset[str] = frozenset(
    """a an the in on at by for from of to into under over with without as is are was be been
    and or but not no nor see ask same usual below above here there it its this that these
    those our your their my his her set unset empty none if when via per each any all only also
    than then use used using kept stored rotate rotated monthly weekly daily yearly expires
    expired soon later yet knows unknown handled managed""".split()
)


def plain_word(word: str) -> bool:
    """A word as a dictionary or a name spells it (``changed``, ``Keycloak``, ``SSO``), not a
    random run of letters (``xKqZmVbLwTrQ``)."""
    return (
        word.isalpha()
        and len(word) <= 14  # "correcthorsebatterystaple" is no dictionary's
        and (word.islower() or word.istitle() or word.isupper())
    )


def says_something(words: list[str]) -> bool:
    """Whether ``words`` read as a sentence: one of them is a word sentences are made of."""
    return any(w.strip(".,:;!?()'\"").lower() in _SENTENCE_WORDS for w in words)


def is_prose(value: str) -> bool:
    """Several words of UI or documentation text rather than one credential."""
    words = value.split()
    if len(words) < 2:
        return False
    if len(words) > 6:
        return True
    low = [w.strip(".,:;!?()'\"").lower() for w in words]
    return any(w in _UI_WORDS for w in low) or value.rstrip().endswith((".", "?", ":"))


def is_path_or_url(value: str) -> bool:
    """A file system path, a file name or a URL (credentials in URLs have their own rule).

    A "path" with a machine-made part (``Zk8vQ2mN/xR7pL4tYw9b``) is a base64 secret holding
    a ``/``: folders are named by people, not by random mixes of cases and digits.
    """
    if "://" in value or _FILE.search(value.lower()):
        return True
    if not _PATH.match(value):
        return False
    parts = _PATH_PARTS.split(value)
    # one "/" between two short random runs is base64 (Kq7mZ/2vL9x); a longer path is a path
    # unless one of its folders is long and random
    shortest = 4 if len(parts) == 2 else 8
    return not any(_machine_made(part, shortest) for part in parts)


_PATH_PARTS = re.compile(r"[/\\]")
_DIGITS_INSIDE = re.compile(r"[A-Za-z]\d+[A-Za-z]")


def _machine_made(part: str, shortest: int = 8) -> bool:
    """Mixed case with digits inside its letters, and at least ``shortest`` long:
    ``Tr0ub4dor3x``, not ``v1beta1``, ``k8s`` or ``Python3``."""
    return (
        len(part) >= shortest
        and not part.islower()
        and not part.isupper()
        and _DIGITS_INSIDE.search(part) is not None
    )


def looks_random(value: str, *, min_len: int = 8) -> bool:
    """Random enough to be a machine-made token (for keys named ``token``, ``api_key``...)."""
    if len(value) < min_len:
        return False
    if value.isdigit():
        return len(value) >= 16 and shannon(value) >= 2.5
    classes = char_classes(value)
    ent = shannon(value)
    if classes == 1:
        # one letter case only: long enough and varied, like ``baqjwieuhgrwqa...``
        return len(value) >= 20 and ent >= 3.0
    return ent >= 2.8 or (len(value) >= 20 and ent >= 2.5)


def _few_words(words: list[str]) -> bool:
    """Whether a value of several ``words`` is short enough for a passphrase: five words, or
    six lower-case words alone, as a diceware passphrase is (not a command of six)."""
    if len(words) <= 5:
        return True
    six = len(words) == 6 and all(w.isalpha() and w.islower() for w in words)
    return six and not says_something(words)  # ("replace with the real one later": a sentence)


# The fewest characters an unquoted value is reported with (quoted: one fewer)
SHORTEST_UNQUOTED = 6


def worth_reporting(
    value: str,
    *,
    strength: str,
    quoted: bool,
    key: str = "",
    assigned: bool = True,
    length: int = 0,
) -> bool:
    """Decide whether a value assigned to a secret-named key is a credential.

    Args:
        value: the value without its quotes.
        strength: ``"password"`` for keys that hold human-chosen secrets (weak values count),
            ``"token"`` for keys that hold machine-made ones (the value must look random).
        quoted: whether the value was written as a string literal.
        key: the key name; a value that merely restates it (``API_KEY = "api_key"``) is a
            label, not a secret.
        assigned: the value follows an operator (``=``, ``:``...), not only white space as
            in prose (``pass `use_fast_path` to``).
        length: the length of the whole value, when ``value`` is the part of it before a
            comma inside its brackets (``abc(1`` of ``abc(1,Lp7)``): what is judged short.
    """
    v = value.strip()
    if not v or not any(ch.isalnum() for ch in v):
        return False
    if any(ch.isspace() for ch in v):
        # a quoted passphrase counts; UI text, sentences and messages do not
        return (
            strength == "password"
            and quoted
            and _few_words(v.split())
            and not is_prose(v)
            and not is_reference(v)
            and not is_placeholder(v)
        )
    if is_reference(v) or is_placeholder(v) or is_path_or_url(v):
        return False
    if v in PASSWORD_MANAGERS or _DATE.fullmatch(v) or _DOTTED_NUMBERS.fullmatch(v):
        return False
    # under a token's or a key's name (a style's key, a pattern's), or a name that says it is
    # a colour (a strength meter's "passwordWeak"), not a password's: "#c0ffee" is a
    # password as well as a colour
    if _COLOUR.fullmatch(v) and (strength == "token" or _STYLE_KEY.search(key)):
        return False
    if strength == "token" and _PATTERN_MARK.search(v):
        return False  # r'[^\W\d]\w*', r'(?=\s|#)': a regular expression, not a key
    if key and _restates(v, key):
        return False
    if v.endswith(".") and is_reference(v.rstrip(".")):
        return False  # "_threading_local._localimpl." + str(id(self)): a name's first part
    # a password of joined words reads as a name too; unquoted, only "-" tells it from an
    # identifier in code (``pass_hook = call_assertion_pass_hook``)
    joined_words = (
        strength == "password"
        and assigned
        and names_a_password(key)
        and (quoted or "-" in v)
        and is_passphrase(v)
    )
    if is_name_like(v) and not joined_words and not _chosen(v, strength):
        return False
    if strength == "token":  # a field's, a state's or a list's name is no token
        named = plain_word(v) and _FIELD_WORD.search(v) is not None
        return not named and looks_random(v, min_len=8)
    return max(len(v), length) >= (5 if quoted else SHORTEST_UNQUOTED)


# Numbers joined by dots: a version, an object identifier (PKCS #9's 1.2.840.113549.1.9.4), an
# address; no one chooses or generates a secret so
_DOTTED_NUMBERS = re.compile(r"\d+(?:\.\d+){2,}")


# A word ending as the name of a field, a header or a state does ("Authorization",
# "Permissions", "Deployment", "Unauthorized", "Configured"), which a word chosen as a token
# ("Butterscotch") seldom does
_FIELD_WORD = re.compile(
    r"(?i)(?:tions?|sions?|ments?|ness|ity|ities|[iy][sz]ed|ated|ured|ified|ings?)$"
    # or a plural, as a list is named ("Snapshots", "Hypervisors" in botocore's paginators)
    r"|[a-z][^s]s$"
)


def _chosen(value: str, strength: str) -> bool:
    """Whether a value that reads as a name is, under a password's name, the password: one
    with a number between letters (``Blue42Sky``), capitalised words then a number
    (``Summer-2024``), or in humps alone with no word a field is
    named by (random letters fall into humps: ``WivQOUFhpT``, ``MMtotinCQG``, a tenth of
    random passwords of 8 to 12 letters and digits). A name a setting or code gives holds a
    separator (``DB_PASSWORD``, ``login-form``) or such a word (``passwordInput``,
    ``ListSecrets``)."""
    if strength != "password":
        return False
    if _DIGITS_BETWEEN_LETTERS.search(value) or _WORDS_THEN_A_NUMBER.fullmatch(value):
        return True
    numbered = _A_WORD_S_NUMBER.findall(value)
    if len(numbered) >= 2 and not (value.islower() or value.isupper()):
        return True  # "hunter2-Kestrel99": words numbered, and letters of both cases
    if len(value) > _CHOSEN_LEN or any(ch in value for ch in "_.-"):
        return False  # a class's long name (ASAuthorizationPasswordRequest) is a name
    humps = {hump.lower() for hump in _SEGMENTS.findall(value)}
    return humps.isdisjoint(_NAMING_HUMPS) and {h[:-1] for h in humps}.isdisjoint(_NAMING_HUMPS)


_DIGITS_BETWEEN_LETTERS = re.compile(r"[A-Za-z]\d+[A-Za-z]")
# A word of three letters or more with a number glued on ("hunter2", "Kestrel99"); one alone
# is a name's as often ("Base64-Encoded", "OAuth2-Token", "UserPassword2")
# (tried from a word's start only, its letters never given back: see ``is_name_like``)
_A_WORD_S_NUMBER = re.compile(r"(?<![A-Za-z])[A-Za-z]{3,}+\d+(?![A-Za-z])")
# Capitalised words, then a number, joined as a password policy has them made ("Summer-2024",
# "Chelsea-Blue-7", "Zebra_Quartz_1987"); a name a setting or code gives is in small letters
# ("db-01", "release-2024") or in capitals ("DB_PASSWORD_2")
_WORDS_THEN_A_NUMBER = re.compile(r"[A-Z][a-z]{2,}(?:[-_.][A-Z][a-z]+)*[-_.]\d{1,4}")
# Random letters longer than this seldom fall into humps that read as words (0.6% at 16)
_CHOSEN_LEN = 16
# The words that make a value in humps a name (a key's own "pass": PKPass, PKPassLibrary)
_NAMING_HUMPS = _LABEL_WORDS | {"pass"}
# A key naming a colour, or a strength meter's level
_STYLE_KEY = re.compile(r"(?i)colou?r|bg|background|border|theme|weak|strong|strength")
# A colour as a style sheet or Pygments' styles write it: #fa0, #ffaa00cc, #ansigreen
_COLOUR = re.compile(r"#(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8}|ansi[a-z]+)")
# What only a regular expression writes: a class escape (\w, \d, \s), a group's (?: or a
# look-around, a negated class
_PATTERN_MARK = re.compile(r"\\[wdsWDSbB]|\(\?[:=!<]|\[\^")


def credential_ok(value: str) -> bool:
    """A password given in a credential position (``user:PASSWORD``): any literal that is
    not a reference, placeholder or default word."""
    v = value.strip()
    if len(v) < 4 or not any(ch.isalnum() for ch in v):
        return False
    # ("-p ROOT_PASSWORD", "mc alias set ... ACCESS_KEY SECRET_KEY": a name a reader fills in)
    return not (is_reference(v) or is_placeholder(v) or _UPPER_NAME.fullmatch(v))


# A name of upper-case words joined by "_", as documentation writes what to fill in
_UPPER_NAME = re.compile(r"[A-Z]+(?:_[A-Z]+)+")


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _restates(value: str, key: str) -> bool:
    v, k = _norm(value), _norm(key)
    return len(v) >= 4 and v in k
