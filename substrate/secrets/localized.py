"""Passwords given under the word for one in other languages ("Passwort: ...", "mot de passe
: ...", "密码：...") and under the English word with a full-width colon, as Chinese and Japanese
keyboards type it ("password：..."). The value is judged as one under ``password`` is
(``placeholders.worth_reporting``): "Passwort: <dein Passwort>" or "密码：******" is none. Under
the word for a token or a key ("токен: ...", "API-Schlüssel: ..."), as one under ``token`` is:
only a value that looks random.
"""

from __future__ import annotations

from unicodedata import normalize

from substrate.secrets.rule import Rule

# The word for a password (or a passphrase) in the languages a team's notes are likely in,
# in small letters as the keyword search reads the text; each is a keyword of the rule
_WORDS: tuple[str, ...] = (
    "passwort",  # German
    "kennwort",
    "mot de passe",  # French
    "contraseña",  # Spanish
    "contrasena",
    "senha",  # Portuguese
    "wachtwoord",  # Dutch
    "lösenord",  # Swedish
    "adgangskode",  # Danish
    "passord",  # Norwegian
    "salasana",  # Finnish
    "hasło",  # Polish
    "haslo",
    "heslo",  # Czech, Slovak
    "jelszó",  # Hungarian
    "parolă",  # Romanian
    "şifre",  # Turkish
    "şifresi",
    "sifre",
    "parola",  # Italian, Turkish
    "пароль",  # Russian, Ukrainian
    "κωδικός",  # Greek
    "パスワード",  # Japanese
    "密码",  # Chinese
    "密碼",
    "口令",
    "비밀번호",  # Korean
    "كلمة المرور",  # Arabic
    "كلمة السر",
    "סיסמה",  # Hebrew
    "סיסמא",
    "पासवर्ड",  # Hindi
    "mật khẩu",  # Vietnamese
    "mat khau",
)
# The word for a token or a key in those languages: what is written under it is a machine's
# secret, so only a value that looks random counts (as under "token" or "api_key"): "Schlüssel:
# im Büro" is where the key is
TOKEN_WORDS: tuple[str, ...] = (
    "токен",  # Russian, Ukrainian
    "ключ",
    "ключ api",
    "api-ключ",
    "schlüssel",  # German
    "api-schlüssel",
    "zugangsschlüssel",
    "zugangstoken",
    "jeton",  # French
    "clé api",
    "clave api",  # Spanish
    "clave de api",
    "chave api",  # Portuguese
    "chave da api",
    "chiave api",  # Italian
    "sleutel",  # Dutch
    "api-sleutel",
    "klucz api",  # Polish
    "klucz",
    "トークン",  # Japanese
    "令牌",  # Chinese
    "密钥",
    "토큰",  # Korean
)
# each also as it is written decomposed (NFD: as macOS names files, and as some editors and
# tools write text), where its accents are marks of their own: "contrasen\u0303a"
_ALL = _WORDS + TOKEN_WORDS
KEYWORDS = _ALL + tuple(
    decomposed for decomposed in (normalize("NFD", word) for word in _ALL) if decomposed not in _ALL
)

# The words written without spaces around them (Chinese, Japanese): no word boundary to find
_UNSPACED = (
    *("パスワード", normalize("NFD", "パスワード"), "密码", "密碼", "口令"),
    *("トークン", "令牌", "密钥"),
)
_SPACED = tuple(word for word in KEYWORDS if word not in _UNSPACED)
_KEY = (
    # (after a hyphen too: "WLAN-Passwort"; not inside a word: "Resenha")
    r"(?P<key>(?<!\w)(?:" + "|".join(_SPACED) + r")(?![\w-])|(?:" + "|".join(_UNSPACED) + r"))"
    r"""["']?"""  # (a JSON or YAML key's closing quote)
)
# What is said of it before the colon ("Passwort für den Router:", "Пароль от Wi-Fi:",
# "Κωδικός πρόσβασης:"), or a note in brackets ("Passwort (Router):")
_ABOUT = (
    r"(?:(?:[ \t]+[^\s:=：.?!,;()\"']{1,30}){1,3}(?=[ \t]*\**[ \t]*[:：])|[ \t]*\([^()\n]{1,30}\))?"
)
# What may stand between the word and the value: a colon (full-width too) or an equals sign,
# in bold perhaps, or a verb saying what it is ("lautet", "ist", "est", "是", "は")
_BETWEEN = (
    r"[ \t]*\**[ \t]*(?:[:=：]\**|(?:lautet|ist|jest|est|es|é|je|是|为|為|は)[ \t]*[:：]?)[ \t]*"
)
_QUOTED = (
    r"""(?:"(?P<sq>[^"\n]*)"|'(?P<ss>[^'\n]*)'|„(?P<sb>[^“”\n]*)[“”]|「(?P<sx>[^」\n]*)」"""
    r"""|`(?P<sc>[^`\n]+)`|«[ \t]*(?P<se>[^»\n]*?)[ \t]*»)"""
)
# A bare value ends at white space or at punctuation a sentence of these scripts ends with
_BARE = r"(?P<su>[^\s\"'`,;，。、；！？」]+)"

LOCALIZED_RULES: tuple[Rule, ...] = (
    Rule(
        "sensitive_assignment",
        r"(?i)" + _KEY + _ABOUT + _BETWEEN + r"(?:" + _QUOTED + "|" + _BARE + ")",
        KEYWORDS,
        kind="localized",
        lines=True,
        boundary=False,
        description="Passwort: literal, mot de passe : literal, 密码：literal, токен: random "
        "(other languages)",
    ),
    Rule(
        "sensitive_assignment",
        r"(?i)(?P<key>password|passwd|passphrase)[ \t]*：[ \t]*(?:" + _QUOTED + "|" + _BARE + ")",
        ("password：", "passwd：", "passphrase："),
        kind="localized",
        lines=True,
        boundary=False,
        description="password：literal, with a full-width colon",
    ),
)
