"""mixle's knowledge substrate: typed, provenanced, access-scoped items in a local shard.

This package is a pure library: it never imports the command-line stack, never prints and never
exits. Heavy dependencies (numpy, pyarrow, scikit-learn) are imported only by the features that
need them, so importing ``substrate`` stays cheap.
"""

from substrate.audit import AuditReport, audit_shard
from substrate.discovery import default_shard_path, find_shard
from substrate.durations import format_duration, parse_duration
from substrate.errors import (
    AccessDeniedError,
    CorruptShardError,
    InvalidInputError,
    NotFoundError,
    ShardError,
    ShardFormatError,
    SubstrateError,
)
from substrate.freshness import Freshness, check_freshness, content_hash, freshness_report
from substrate.gate import GateResult, admit
from substrate.governance import (
    APPROVED,
    PENDING,
    REJECTED,
    Governance,
    approve,
    authorize_publish,
    grant_approver,
    load_governance,
    pending,
    proposal_events,
    proposal_of,
    propose,
    reject,
    revoke_approver,
    save_governance,
)
from substrate.item import MODALITIES, SubstrateItem, new_id
from substrate.lineage import LineageReport, audit_substrate, verify_lineage
from substrate.log import Watermark
from substrate.settings import SHARD_FORMAT, Settings
from substrate.shard import init_shard, shard_status
from substrate.spaces import Space, history, merge_versions, publish, version_of, visible_item
from substrate.store import Changes, CompactStats, Substrate
from substrate.visibility import (
    PUBLIC,
    reader_scopes,
    reader_view,
    resolve_team,
    visible_scopes,
)

__version__ = "0.1.0"

__all__ = [
    "APPROVED",
    "PENDING",
    "REJECTED",
    "MODALITIES",
    "PUBLIC",
    "SHARD_FORMAT",
    "AccessDeniedError",
    "AuditReport",
    "Changes",
    "CompactStats",
    "CorruptShardError",
    "Freshness",
    "GateResult",
    "Governance",
    "InvalidInputError",
    "LineageReport",
    "NotFoundError",
    "Settings",
    "ShardError",
    "ShardFormatError",
    "Space",
    "Substrate",
    "SubstrateError",
    "SubstrateItem",
    "Watermark",
    "__version__",
    "admit",
    "approve",
    "audit_shard",
    "audit_substrate",
    "authorize_publish",
    "check_freshness",
    "content_hash",
    "default_shard_path",
    "find_shard",
    "format_duration",
    "freshness_report",
    "grant_approver",
    "history",
    "init_shard",
    "load_governance",
    "merge_versions",
    "new_id",
    "parse_duration",
    "pending",
    "proposal_events",
    "proposal_of",
    "propose",
    "publish",
    "reader_scopes",
    "reader_view",
    "reject",
    "resolve_team",
    "revoke_approver",
    "save_governance",
    "shard_status",
    "verify_lineage",
    "version_of",
    "visible_item",
    "visible_scopes",
]
