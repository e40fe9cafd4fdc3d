"""Budgeted, provenanced context packets and the extractive compression behind them."""

from substrate.context.compress import compress_text, query_coverage
from substrate.context.packet import (
    ContextBudget,
    ContextPacket,
    estimate_tokens,
)
from substrate.context.packing import (
    ReceiverProfile,
    assemble_context,
    assemble_for_receivers,
    pack_context,
)
from substrate.context.render import FORMATS, SHAPES
from substrate.limits import CHARS_PER_TOKEN

__all__ = [
    "CHARS_PER_TOKEN",
    "FORMATS",
    "SHAPES",
    "ContextBudget",
    "ContextPacket",
    "ReceiverProfile",
    "assemble_context",
    "assemble_for_receivers",
    "compress_text",
    "estimate_tokens",
    "pack_context",
    "query_coverage",
]
