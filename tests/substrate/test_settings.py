"""mixle.toml as read: a table given as a value refused, misspellings told."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from substrate.errors import ShardError
from substrate.settings import Settings


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("shard = 3\n", "shard must be a table"),
        ("governance = []\n", "governance must be a table"),
        ('answerer = "http://x"\n', "answerer must be a table"),
        ("format = 0\n", "format must be a whole number from 1"),
    ],
)
def test_a_setting_of_the_wrong_type_is_refused_when_read(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "mixle.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ShardError, match=message):
        Settings.load(tmp_path)


def test_a_misspelt_answerer_setting_is_told_with_the_one_meant(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "mixle.toml").write_text(
        '[answerer]\nbase_ulr = "http://127.0.0.1:8080/v1"\nmodel = "m"\n', encoding="utf-8"
    )
    with caplog.at_level(logging.WARNING, logger="substrate.settings"):
        Settings.load(tmp_path)
    assert "[answerer] has no setting 'base_ulr', left alone (did you mean base_url?)" in (
        caplog.text
    )


def test_an_api_key_in_mixle_toml_is_warned_of_as_refused_by_every_command(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # it was called unknown ("did you mean api_key_env?"), then said nothing until ask
    from substrate import settings

    settings._warned.discard(("answerer", "api_key"))
    (tmp_path / "mixle.toml").write_text('[answerer]\napi_key = "sk-x"\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="substrate.settings"):
        Settings.load(tmp_path)
        Settings.load(tmp_path)
    assert caplog.text.count("[answerer] api_key is refused") == 1  # once a process
    assert "did you mean" not in caplog.text and "sk-x" not in caplog.text
