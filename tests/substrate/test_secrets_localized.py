"""Passwords under the word for one in other languages, and tokens glued to their words."""

from __future__ import annotations

import unicodedata

import pytest

from substrate import detect_secrets, redact_secrets


@pytest.mark.parametrize(
    "line",
    [
        "Passwort = Xk9#mQ2vL7pZw4Rt",
        "Kennwort: Xk9#mQ2vL7pZw4Rt",
        "mot de passe : Qw8#zLp2Vn5xTr7K",
        "contraseña: Zr4!kPq9Lm2Wx7Tb",
        "Hasło: Lk8#pZq2Wm5vXr9T",
        "Şifre: Tr7#kLm2Qp9Zx4Wv",
        "пароль: Ru5#mKp8Zq2Wx7Lv",
        "パスワード：Jp6#nLq3Xw8Zk2Rt",
        "密码：Cn7#pLm4Zq9Wx2Kt",
        "비밀번호: Kr5#mNp8Zq2Wx7Lt",
        "كلمة المرور: Ar6#kLp9Zm3Wq8Xt",
        "סיסמה: He4#kLp7Zm2Wq9Xt",
        "PASSWORT=Sommer2024!Gaeste#91",
        "password：Xk9#mQ2vL7pZw4Rt",  # a full-width colon, as CJK keyboards type it
        "Das WLAN-Passwort lautet: Sommer2024!Gäste#91",
        "密码是Cn7#pLm4Zq9Wx2Kt。",
        # as notes and files write them
        "**Passwort:** Qw8#zLp2Vn5xTr7K",
        "Passwort: `Qw8#zLp2Vn5xTr7K`",
        '{"passwort": "Qw8#zLp2Vn5xTr7K"}',
        "Passwort für den Router: Qw8#zLp2Vn5xTr7K",
        "Passwort (Router): Qw8#zLp2Vn5xTr7K",
        "mot de passe : « Qw8#zLp2Vn5xTr7K »",
        "Пароль от Wi-Fi: Qw8#zLp2Vn5xTr7K",
        "Κωδικός πρόσβασης: Qw8#zLp2Vn5xTr7K",
        "Hasło jest Qw8#zLp2Vn5xTr7K",
    ],
)
def test_a_password_under_its_name_in_another_language_is_found(line: str) -> None:
    assert detect_secrets(line).rules() == ["sensitive_assignment"], line
    assert "[REDACTED:sensitive_assignment]" in redact_secrets(line)


@pytest.mark.parametrize(
    "word",
    [
        *("токен", "ключ", "API-Schlüssel", "Schlüssel", "jeton", "トークン", "令牌", "토큰"),
        *("clave de API", "chave da API", "chiave API", "sleutel", "klucz API"),
    ],
)
def test_a_random_value_under_the_word_for_a_token_is_found(word: str) -> None:
    # the English "token:" was known, its words in other languages were not
    assert redact_secrets(f"{word}: Lz3xCv7bNm5AsQe8Wq2R").endswith(
        "[REDACTED:sensitive_assignment]"
    )
    # a machine's secret: a word or a note under it is where the key is, not the key
    for said in ("Hausmeister", "im Büro", "в сейфе", "Vault"):
        assert detect_secrets(f"{word}: {said}").clean, said


@pytest.mark.parametrize(
    "word", ["contraseña", "Şifre", "κωδικός", "パスワード", "비밀번호", "Lösenord", "mật khẩu"]
)
def test_a_password_under_its_name_written_decomposed_is_found(word: str) -> None:
    # NFD, as macOS writes file names and some tools write text: the accent a mark of its
    # own, where the word was looked for composed only (and the password stored in clear)
    line = unicodedata.normalize("NFD", f"{word}: Lz3xCv7bNm5AsQe8")
    assert redact_secrets(line).endswith("[REDACTED:sensitive_assignment]")


@pytest.mark.parametrize(
    "line",
    [
        "Passwort: <dein Passwort>",
        "密码：******",
        "Passwortlänge: 12",
        "Das Passwort ist geheim.",  # what is said of it, not the password
        "Le mot de passe est secret.",
        "Passwort: (siehe Tresor)",
        "密码：请联系管理员",  # "ask the administrator"
        "Passwort: ${DB_PASSWORD}",
        'msgstr "Passwort: %s"',
        'msgstr "Passwort: ungültig"',  # a translation's words
        "--flag=PAROLA:ARG:FLAG",  # a constant's name
        "Resenha: boa",  # a word ending in one
        "パスワードは8文字以上で入力してください",  # a rule for it, in a sentence
        "密码为6-20位字母或数字",
        'input("Senha: "), print("ok")',  # a label inside a string, then code
        "Passwort vergessen? Hilfe: hier",
    ],
)
def test_a_note_or_placeholder_under_such_a_name_is_none(line: str) -> None:
    assert not detect_secrets(line).findings, line


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("令牌是ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z，请保密", "github_token"),
        ("キーはAKIAIOSFODNN7QWERTY4です", "aws_access_key"),
        ("ключAKIAIOSFODNN7QWERTY4", "aws_access_key"),
    ],
)
def test_a_token_right_after_a_word_of_another_script_is_found(line: str, rule: str) -> None:
    # Chinese and Japanese leave no space before it
    assert detect_secrets(line).rules() == [rule]


def test_a_token_glued_to_a_latin_letter_is_still_no_token() -> None:
    assert not detect_secrets("xAKIAIOSFODNN7QWERTY4").findings


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("password: Xk9#mQ2vL7pZw4Rt nicht weitergeben", " nicht weitergeben"),
        ("password: Xk9#mQ2vL7pZw4Rt ne pas partager", " ne pas partager"),
        ("password: Xk9#mQ2vL7pZw4Rt，请勿外传", "，请勿外传"),
        ("password: Xk9#mQ2vL7pZw4Rt。次の文です。", "。次の文です。"),
    ],
)
def test_a_note_after_a_random_password_is_kept_in_any_language(line: str, kept: str) -> None:
    assert redact_secrets(line) == "password: [REDACTED:sensitive_assignment]" + kept


def test_a_passphrase_of_words_is_masked_whole() -> None:
    line = "password: correct horse battery staple"
    assert redact_secrets(line) == "password: [REDACTED:sensitive_assignment]"
