"""``mixle redact``: a filter that prints text with every detected secret masked."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Annotated

import typer

from mixle_cli import output
from mixle_cli.errors import OPERATIONAL, fail, usage
from mixle_cli.stdin import file_within, refuse_a_terminal, stdin_within
from substrate import BINARY_PROBE_BYTES, GZIP_MAGIC, WideEncoding, wide_encoding


def redact(
    source: Annotated[
        str | None,
        typer.Argument(
            help="File to redact, or - for standard input (the default when it is piped).",
            show_default=False,
        ),
    ] = None,
    mask: Annotated[
        str, typer.Option("--mask", help="Replacement text; {rule} becomes the rule name.")
    ] = "[REDACTED:{rule}]",
    keep_prefix: Annotated[
        int,
        typer.Option(
            "--keep-prefix",
            min=0,
            help="Leave up to N leading characters of each secret (capped at its public "
            "prefix plus a quarter of the rest).",
        ),
    ] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No count on stderr.")] = False,
    json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print {source, redactions, rules, text} as one JSON document instead (bytes "
            "that are not UTF-8 become U+FFFD).",
        ),
    ] = False,
) -> None:
    """Print a file (or standard input) with every detected secret masked.

    Bytes that are not UTF-8 pass through unchanged (UTF-16 or UTF-32 with a byte-order mark
    is read as such), and every line keeps its number (a key block leaves blank lines). Gzip
    data is redacted inside and written compressed again when anything was masked (--json
    shows its text). Exits 0 whether or not anything was masked; the count goes to stderr.
    """
    from substrate import InvalidInputError, check_mask

    try:
        check_mask(mask)
    except InvalidInputError:
        usage("--mask may use {rule} and no other {...} field")
    if source is None:
        refuse_a_terminal("give the FILE to redact, or - to read it from standard input")
        source = "-"
    from substrate import detect_and_redact, safe_text

    data = original = _read(source)
    compressed = data.startswith(GZIP_MAGIC)
    if compressed:
        data = _inflated(data, source)
    encoding, errors, start, end = _encoding_of(data)
    text = data[start:end].decode(encoding, errors)
    path = "" if source == "-" else source  # a .csv or .tsv is judged by its columns too
    scan, text = detect_and_redact(
        text, mask=mask, keep_prefix=keep_prefix, keep_lines=True, path=path
    )
    if not scan.clean:
        data = data[:start] + text.encode(encoding, errors) + data[end:]
    binary = encoding == "utf-8" and b"\0" in data[:BINARY_PROBE_BYTES]  # git's rule
    if binary:  # said even with -q or --json: secrets may have been missed
        output.note(
            "warning: NUL bytes: binary content, or UTF-16/32 without a byte-order mark; "
            "secrets in it may not have been found"
        )
    if json:
        found = {"redactions": len(scan.findings), "rules": scan.rules(), "text": text}
        output.emit_json({"source": safe_text(source), **found})
        return
    if compressed:  # (as it was when nothing was masked: its header, its name, its time)
        data = gzip.compress(data, mtime=0) if not scan.clean else original
    output.emit_bytes(data)
    if not quiet:
        rules = f": {', '.join(scan.rules())}" if scan.findings else ""
        output.note(f"redacted {len(scan.findings)} secret(s){rules}")


# Redaction holds the whole text (a key block or a joined literal spans lines), in about 4x its
# size: an endless stream (a device, a pipe that never ends) is refused at this many bytes
# instead of filling the memory, and a log of a few hundred MB still goes through
READ_LIMIT = 256 << 20
_SPLIT_HINT = "redact it in parts (split -l 100000), or scan it with mixle scan-secrets"


def _read(source: str) -> bytes:
    """The bytes of ``source`` (``-``: standard input), at most ``READ_LIMIT`` of them."""
    if source == "-":
        return stdin_within(READ_LIMIT, _SPLIT_HINT)
    return file_within(source, READ_LIMIT, _SPLIT_HINT)


def _inflated(data: bytes, source: str) -> bytes:
    """What gzip ``data`` holds, text or not (an archive's members are masked as a plain
    tar's are): a secret inside is one a copy of the file leaks."""
    from substrate import CompressedError, inflate, safe_text

    try:
        inside, after = inflate(data, READ_LIMIT)
    except CompressedError as exc:  # nothing written: a copy not redacted would leak
        fail(f"cannot redact {safe_text(source)}: {exc}", OPERATIONAL)
    if after.strip(b"\0"):  # (zcat passes them over: a secret there would be copied out)
        fail(
            f"cannot redact {safe_text(source)}: it holds bytes after its gzip data",
            OPERATIONAL,
            "remove them (zcat reads the data alone: zcat FILE | mixle redact | gzip)",
        )
    return inside


def _encoding_of(data: bytes) -> tuple[str, str, int, int]:
    """How to read ``data`` and write it back byte for byte: UTF-16 or UTF-32 when a byte-order
    mark says so (kept as it was, like a partial last code unit), else UTF-8 with undecodable
    bytes carried through; and where the text starts and ends."""
    wide = wide_encoding(data)
    if wide is not None and _decodes(data, wide):
        return wide.codec, "surrogatepass", wide.mark, wide.text_end(data)
    return "utf-8", "surrogateescape", 0, len(data)


def _decodes(data: bytes, wide: WideEncoding) -> bool:
    """Whether ``data`` reads whole in its wide encoding (UTF-32 has no room for a value past
    U+10FFFF, even with lone surrogates let through): if not, its bytes pass through as any
    other bytes that are not text."""
    try:
        data[wide.mark : wide.text_end(data)].decode(wide.codec, "surrogatepass")
    except UnicodeDecodeError:
        return False
    return True


COMMANDS: dict[str, Callable[..., None]] = {"redact": redact}
