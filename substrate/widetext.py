"""Text in a wide Unicode encoding (UTF-16 or UTF-32), told by its byte-order mark, or, for
UTF-16 without one, by the NUL byte every ASCII character brings.

Windows tools save text this way (Excel's "Unicode Text", PowerShell's ``>``). It is full of
NUL bytes, which would otherwise mark it binary, and read as UTF-8 no secret rule would match
in it: ingestion, scanning and redaction all decode it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from substrate.limits import BINARY_PROBE_BYTES

# Longest first: the UTF-32 little-endian mark begins with the UTF-16 one.
_MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", 4),
    (b"\x00\x00\xfe\xff", "utf-32-be", 4),
    (b"\xff\xfe", "utf-16-le", 2),
    (b"\xfe\xff", "utf-16-be", 2),
)
BYTE_ORDER_MARKS = tuple(mark for mark, _, _ in _MARKS)


@dataclass(frozen=True, slots=True)
class WideEncoding:
    """How wide text is encoded.

    Attributes:
        codec: the Python codec of the text after the mark (``utf-16-le``, ``utf-32-be``...).
        name: the encoding as people name it (``UTF-16``, ``UTF-32``).
        mark: the length of the byte-order mark, where the text starts.
        unit: bytes per code unit; a trailing partial unit is not text.
    """

    codec: str
    name: str
    mark: int
    unit: int

    def text_end(self, data: bytes) -> int:
        """Where the whole code units of ``data`` end."""
        return len(data) - (len(data) - self.mark) % self.unit

    def decode(self, data: bytes, errors: str = "strict") -> str:
        """The text of ``data`` after its mark."""
        return data[self.mark :].decode(self.codec, errors)


def wide_encoding(data: bytes) -> WideEncoding | None:
    """The encoding ``data`` announces with a UTF-16 or UTF-32 byte-order mark, or shows as
    unmarked UTF-16 (see ``_unmarked_utf16``), else None.

    A mark alone is not enough (two bytes of Latin-1 text can look like one): what follows it
    must hold the NUL bytes these encodings give every ASCII character, or, for text with
    none (Chinese, say), read as that encoding and hold bytes past ASCII, as such text does
    (nearly any bytes read as UTF-16, ASCII text after a stray mark included).
    """
    for mark, codec, unit in _MARKS:
        if data.startswith(mark):
            wide = WideEncoding(codec, codec[:6].upper(), len(mark), unit)
            if len(data) == len(mark):  # an empty text as an editor saves it ("Unicode")
                return wide
            return wide if b"\x00" in data[:BINARY_PROBE_BYTES] or _reads_as(data, wide) else None
    return _unmarked_utf16(data[:BINARY_PROBE_BYTES])


# Of the code units of unmarked UTF-16 text, this share at least has a NUL high byte (ASCII
# and Latin letters; Cyrillic or Greek lines between them have none), and this share at
# least of its characters is printable: a binary file of 16-bit numbers rarely passes both.
_ASCII_UNITS = 0.3
_PRINTABLE_CHARS = 0.95


def _unmarked_utf16(probe: bytes) -> WideEncoding | None:
    """UTF-16 without a byte-order mark, told by NUL high bytes in many code units, no NUL
    character, and reading as printable text."""
    if len(probe) < 16 or b"\x00" not in probe:
        return None
    probe = probe[: len(probe) // 2 * 2]
    even, odd = probe[0::2], probe[1::2]
    for codec, high, low in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if high.count(0) >= _ASCII_UNITS * len(high) and 0 not in low:
            text = probe.decode(codec, "replace")
            shown = sum(c.isprintable() or c in "\t\n\r\f" for c in text)
            if shown >= _PRINTABLE_CHARS * len(text):
                return WideEncoding(codec, "UTF-16", 0, 2)
    for codec in ("utf-16-le", "utf-16-be"):  # few ASCII letters: Chinese, Japanese, Korean
        text = probe.decode(codec, "replace")
        if "\0" in text or len(set(text)) < min(_DISTINCT_CHARS, len(text) // 2):
            continue  # (a pattern of a few units repeated: "\x89PNG\0" read as "傉䝎褀乐G")
        if len(_BREAKS.findall(text)) < len(text) // 100:
            continue  # (no line breaks, spaces or stops: weights of 16 bits fall in the CJK)
        if len(_OF_A_SCRIPT.findall(text)) >= _SCRIPT_CHARS * len(text):
            return WideEncoding(codec, "UTF-16", 0, 2)
    return None


# Unmarked UTF-16 text of the scripts written without ASCII letters between them: its NUL
# bytes are the high bytes of the few ASCII characters, and the low bytes of characters such
# as U+4E00. Nearly all its characters are of those scripts, where random 16-bit units fall
# in them about half the time.
_OF_A_SCRIPT = re.compile(
    "[\t\n\r\f -~\u00a0-\u024f\u0370-\u04ff\u2000-\u206f\u3000-\u30ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uff00-\uffef]"
)
_SCRIPT_CHARS = 0.97
# What text breaks its lines and sentences with: nearly every line of it holds some
_BREAKS = re.compile("[\n \u3000\u3001\u3002\uff0c\uff0e\uff01\uff1f]")
_DISTINCT_CHARS = 24


def _reads_as(data: bytes, wide: WideEncoding) -> bool:
    if (len(data) - wide.mark) % wide.unit:  # not whole code units: not this encoding
        return False
    probe = data[: wide.text_end(data[:BINARY_PROBE_BYTES])]
    if probe[wide.mark :].isascii():
        return False
    try:
        probe.decode(wide.codec)
    except UnicodeDecodeError as exc:  # a pair of code units cut by the probe's end is fine
        return exc.start >= len(probe) - 2 * wide.unit and len(data) > len(probe)
    return True


def is_binary(head: bytes) -> bool:
    """Whether content looks binary: a NUL byte in its first 8 KiB (git's rule), unless it is
    UTF-16 or UTF-32 text."""
    return b"\x00" in head[:BINARY_PROBE_BYTES] and wide_encoding(head) is None
