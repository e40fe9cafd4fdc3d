"""Reading a passages file: good lines kept with their numbers, each bad line told and left out."""

from __future__ import annotations

from substrate import read_passages


def test_good_lines_are_kept_with_their_line_numbers() -> None:
    read = read_passages(b'"one"\n\n{"text": "two", "tags": ["t"]}\n', "docs.jsonl")
    assert read.docs == ["one", {"text": "two", "tags": ["t"]}]
    assert read.lines == [1, 3]
    assert read.problems == []


def test_each_bad_line_is_told_by_its_number_and_the_rest_kept() -> None:
    raw = b'{"txt": "typo"}\n42\nnot json\n"kept"\n{"text": 7}\n'
    read = read_passages(raw, "docs.jsonl")
    assert read.docs == ["kept"]
    told = {p.line: p.reason for p in read.problems}
    assert "none of the keys text, tags, payload (it has 'txt')" in told[1]
    assert "(a number)" in told[2]
    assert told[3].startswith("invalid JSON")
    assert "whose text is not a string" in told[5]
    assert {p.source for p in read.problems} == {"docs.jsonl"}
    assert not any(p.fatal for p in read.problems)


def test_a_binary_or_shard_file_is_refused_whole() -> None:
    (binary,) = read_passages(b'"a"\n\x00\x01\x02', "blob").problems
    assert binary.fatal and "binary" in binary.reason
    (own,) = read_passages(b"", "items.jsonl", shard_file=True).problems
    assert own.fatal and read_passages(b"", "x", shard_file=True).docs == []


def test_utf16_with_its_mark_is_decoded_and_a_utf8_mark_dropped() -> None:
    assert read_passages('"été"\n'.encode("utf-16"), "f").docs == ["été"]
    assert read_passages(b'\xef\xbb\xbf"a"\n', "f").docs == ["a"]
