"""mixle's knowledge substrate: typed, provenanced, access-scoped items in a local shard.

This package is a pure library: it never imports the command-line stack, never prints and never
exits. Heavy dependencies (numpy, pyarrow, scikit-learn) are imported only by the features that
need them, so importing ``substrate`` stays cheap.
"""

from substrate.discovery import default_shard_path, find_shard
from substrate.errors import (
    AccessDeniedError,
    CorruptShardError,
    InvalidInputError,
    NotFoundError,
    ShardError,
    ShardFormatError,
    SubstrateError,
)
from substrate.item import MODALITIES, SubstrateItem, new_id
from substrate.log import Watermark
from substrate.settings import SHARD_FORMAT, Settings
from substrate.shard import init_shard, shard_status
from substrate.store import Changes, CompactStats, Substrate
from substrate.visibility import PUBLIC, reader_scopes, resolve_team, visible_scopes

__version__ = "0.1.0"

__all__ = [
    "MODALITIES",
    "PUBLIC",
    "SHARD_FORMAT",
    "AccessDeniedError",
    "Changes",
    "CompactStats",
    "CorruptShardError",
    "InvalidInputError",
    "NotFoundError",
    "Settings",
    "ShardError",
    "ShardFormatError",
    "Substrate",
    "SubstrateError",
    "SubstrateItem",
    "Watermark",
    "__version__",
    "default_shard_path",
    "find_shard",
    "init_shard",
    "new_id",
    "reader_scopes",
    "resolve_team",
    "shard_status",
    "visible_scopes",
]
