"""Passwords given under the word for one in other languages ("Passwort: ...", "mot de passe
: ...", "密码：...") and under the English word with a full-width colon, as Chinese and Japanese
keyboards type it ("password：..."). The value is judged as one under ``password`` is
(``placeholders.worth_reporting``): "Passwort: <dein Passwort>" or "密码：******" is none.
"""

from __future__ import annotations

from substrate.secrets.rule import Rule

# The word for a password (or a passphrase) in the languages a team's notes are likely in,
# in small letters as the keyword search reads the text; each is a keyword of the rule
PASSWORD_WORDS: tuple[str, ...] = (
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
)

# What may stand between the word and the value: a colon (full-width too) or an equals
# sign, or a verb saying what it is ("lautet", "ist", "est", "是", "は")
_BETWEEN = r"[ \t]*(?:[:=：]|(?:lautet|ist|est|es|é|je|jest|是|为|為|は)[ \t]*[:：]?)[ \t]*"
_QUOTED = r"""(?:"(?P<sq>[^"\n]*)"|'(?P<ss>[^'\n]*)'|„(?P<sb>[^“”\n]*)[“”]|「(?P<sx>[^」\n]*)」)"""
# A bare value ends at white space or at punctuation a sentence of these scripts ends with
_BARE = r"(?P<su>[^\s\"'`,;，。、；！？」]+)"

LOCALIZED_RULES: tuple[Rule, ...] = (
    Rule(
        "sensitive_assignment",
        r"(?i)(?P<key>"
        + "|".join(PASSWORD_WORDS)
        + r")"
        + _BETWEEN
        + r"(?:"
        + _QUOTED
        + "|"
        + _BARE
        + ")",
        PASSWORD_WORDS,
        kind="localized",
        lines=True,
        boundary=False,
        description="Passwort: literal, mot de passe : literal, 密码：literal (other languages)",
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
