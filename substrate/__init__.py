"""mixle's knowledge substrate: typed, provenanced, access-scoped items in a local shard.

This package is a pure library: it never imports the command-line stack, never prints and never
exits. Heavy dependencies (numpy, pyarrow, scipy) are imported only by the features that
need them, so importing ``substrate`` stays cheap.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# The secret rules hold possessive quantifiers and atomic groups, which CPython matched wrongly
# before 3.11.5 (a password with an unclosed bracket went unfound, and was stored in clear):
# refused outright rather than run with a gate that misses secrets
if sys.version_info < (3, 11, 5):
    raise ImportError(
        f"mixle needs Python 3.11.5 or newer; this is {sys.version.split()[0]}, whose regular "
        "expressions would let secrets through"
    )

# A library leaves where its log records go to the program: without a handler of its own,
# Python's last resort would print its warnings to stderr in every program that imports it.
logging.getLogger(__name__).addHandler(logging.NullHandler())

# Public name -> the module that defines it. Modules load on first use (PEP 562), so
# `import substrate` costs almost nothing and a command pays only for what it touches.
_EXPORTS: dict[str, str] = {
    "Action": "substrate.act",
    "action_features": "substrate.act",
    "compute_action": "substrate.act",
    "create_action": "substrate.act",
    "delegate_action": "substrate.act",
    "Fragment": "substrate.act",
    "investigate": "substrate.act",
    "Investigation": "substrate.act",
    "relevance_of": "substrate.act",
    "retrieve_action": "substrate.act",
    "score_action": "substrate.act",
    "simulate_action": "substrate.act",
    "Step": "substrate.act",
    "Answer": "substrate.answer",
    "answer_from_substrate": "substrate.answer",
    "answerability": "substrate.answer",
    "citations_to_nothing": "substrate.answer",
    "AnswererError": "substrate.answerers",
    "build_prompt": "substrate.answerers",
    "CommandAnswerer": "substrate.answerers",
    "http_answerer_from_config": "substrate.answerers",
    "HttpAnswerer": "substrate.answerers",
    "audit_shard": "substrate.audit",
    "AuditReport": "substrate.audit",
    "held_by": "substrate.audit",
    "unchecked_sentences": "substrate.claims",
    "CompressedError": "substrate.compressed",
    "GZIP_MAGIC": "substrate.compressed",
    "gunzip": "substrate.compressed",
    "inflate": "substrate.compressed",
    "assemble_context": "substrate.context",
    "assemble_for_receivers": "substrate.context",
    "compress_text": "substrate.context",
    "ContextBudget": "substrate.context",
    "ContextPacket": "substrate.context",
    "estimate_tokens": "substrate.context",
    "pack_context": "substrate.context",
    "ReceiverProfile": "substrate.context",
    "available_cpus": "substrate.cpus",
    "default_shard_path": "substrate.discovery",
    "find_shard": "substrate.discovery",
    "nearest_shard": "substrate.discovery",
    "SHARD_DIR": "substrate.discovery",
    "format_duration": "substrate.durations",
    "is_bare_number": "substrate.durations",
    "parse_duration": "substrate.durations",
    "AccessDeniedError": "substrate.errors",
    "CorruptShardError": "substrate.errors",
    "InvalidInputError": "substrate.errors",
    "LostCommitsError": "substrate.errors",
    "NotFoundError": "substrate.errors",
    "ShardError": "substrate.errors",
    "ShardFormatError": "substrate.errors",
    "SubstrateError": "substrate.errors",
    "external_action": "substrate.external",
    "ExternalAnswer": "substrate.external",
    "ExternalModel": "substrate.external",
    "semantic_entropy": "substrate.external",
    "ExtractiveAnswerer": "substrate.extractive",
    "check_factuality": "substrate.factuality",
    "ClaimVerdict": "substrate.factuality",
    "FactualityReceipt": "substrate.factuality",
    "miscited_claims": "substrate.factuality",
    "changed_since_ingest": "substrate.freshness",
    "check_freshness": "substrate.freshness",
    "content_hash": "substrate.freshness",
    "Freshness": "substrate.freshness",
    "freshness_report": "substrate.freshness",
    "published_copy": "substrate.freshness",
    "admit": "substrate.gate",
    "GateResult": "substrate.gate",
    "APPROVED": "substrate.governance",
    "authorize_publish": "substrate.governance",
    "authorize_write": "substrate.governance",
    "Governance": "substrate.governance",
    "grant_approver": "substrate.governance",
    "load_governance": "substrate.governance",
    "PENDING": "substrate.governance",
    "REJECTED": "substrate.governance",
    "require_readable": "substrate.governance",
    "revoke_approver": "substrate.governance",
    "save_governance": "substrate.governance",
    "scope_in_use": "substrate.governance",
    "find_harnesses": "substrate.harness",
    "Harness": "substrate.harness",
    "HarnessResult": "substrate.harness",
    "monitoring_harness": "substrate.harness",
    "register_harness": "substrate.harness",
    "support_triage_harness": "substrate.harness",
    "HopChain": "substrate.hops",
    "HopStep": "substrate.hops",
    "multihop": "substrate.hops",
    "FileOutcome": "substrate.ingest",
    "FORMATS": "substrate.ingest",
    "ingest_artifacts": "substrate.ingest",
    "ingest_documents": "substrate.ingest",
    "ingest_file": "substrate.ingest",
    "ingest_path": "substrate.ingest",
    "gone_from_disk": "substrate.ingest.disklook",
    "ingest_records": "substrate.ingest",
    "ingest_text": "substrate.ingest",
    "ingest_traces": "substrate.ingest",
    "IngestIssue": "substrate.ingest",
    "IngestOptions": "substrate.ingest",
    "IngestReport": "substrate.ingest",
    "ProgressFn": "substrate.ingest",
    "file_provenance": "substrate.ingest.adapters",
    "normalize_format": "substrate.ingest.detect",
    "Passages": "substrate.ingest.passages",
    "read_passages": "substrate.ingest.passages",
    "shown_names": "substrate.ingest.report",
    "OVER_THE_SIZE_LIMIT": "substrate.ingest.session",
    "too_large": "substrate.ingest.session",
    "size_limit": "substrate.ingest.settings",
    "KEPT_REJECTIONS": "substrate.ingest.sources",
    "link_trouble": "substrate.ingest.walk",
    "shard_file": "substrate.ingest.walk",
    "FIELD_ORDER": "substrate.item",
    "MODALITIES": "substrate.item",
    "new_id": "substrate.item",
    "SubstrateItem": "substrate.item",
    "kg_action": "substrate.kg",
    "link_entities": "substrate.kg",
    "retrieve_triples": "substrate.kg",
    "BINARY_PROBE_BYTES": "substrate.limits",
    "CHARS_PER_TOKEN": "substrate.limits",
    "DEFAULT_CHUNK_CHARS": "substrate.limits",
    "DEFAULT_MAX_FILE_SIZE": "substrate.limits",
    "DEFAULT_PACKET_CHARS": "substrate.limits",
    "FILE_FORMATS": "substrate.limits",
    "INGEST_FORMATS": "substrate.limits",
    "MIN_CHUNK_CHARS": "substrate.limits",
    "STORABLE_INTS": "substrate.limits",
    "audit_substrate": "substrate.lineage",
    "LineageReport": "substrate.lineage",
    "verify_lineage": "substrate.lineage",
    "LockBusy": "substrate.locking",
    "SharedFolderError": "substrate.locking",
    "wait_for_locks_at_most": "substrate.locking",
    "waiting_for_a_lock": "substrate.locking",
    "DAMAGED_HEADER": "substrate.log",
    "Watermark": "substrate.log",
    "HEADER_LOST": "substrate.logend",
    "OLDER_COPY": "substrate.logend",
    "already_proposed": "substrate.proposals",
    "approve": "substrate.proposals",
    "pending": "substrate.proposals",
    "proposal_events": "substrate.proposals",
    "proposal_of": "substrate.proposals",
    "propose": "substrate.proposals",
    "reject": "substrate.proposals",
    "withdraw": "substrate.proposals",
    "Reasoner": "substrate.reasoner",
    "lines_of": "substrate.retrieval",
    "merge_scopes": "substrate.retrieval",
    "NOISE_FLOOR": "substrate.retrieval",
    "RELATIVE_FLOOR": "substrate.retrieval",
    "Retrieval": "substrate.retrieval",
    "retrieve": "substrate.retrieval",
    "shown_path_of": "substrate.retrieval",
    "shown_source": "substrate.retrieval",
    "shown_sources": "substrate.retrieval",
    "first_items": "substrate.search.engine",
    "Hit": "substrate.search.engine",
    "IndexStats": "substrate.search.engine",
    "spelling_suggestions": "substrate.search.engine",
    "item_source": "substrate.search.filters",
    "SearchFilters": "substrate.search.filters",
    "source_matcher": "substrate.search.filters",
    "has_tag": "substrate.search.filters",
    "tag_key": "substrate.search.filters",
    "make_snippet": "substrate.search.snippets",
    "Snippet": "substrate.search.snippets",
    "index_status": "substrate.search.status",
    "respelled": "substrate.search.suggest",
    "Analyzer": "substrate.search.tokenize",
    "Baseline": "substrate.secrets",
    "baseline_from_findings": "substrate.secrets",
    "detect_secrets": "substrate.secrets",
    "fingerprint": "substrate.secrets",
    "load_baseline": "substrate.secrets",
    "merge_baseline": "substrate.secrets",
    "new_findings": "substrate.secrets",
    "redact_secrets": "substrate.secrets",
    "Rule": "substrate.secrets",
    "RULE_NAMES": "substrate.secrets",
    "RULES": "substrate.secrets",
    "safe_repr": "substrate.secrets",
    "safe_text": "substrate.secrets",
    "sarif_log": "substrate.secrets",
    "save_baseline": "substrate.secrets",
    "scan_file": "substrate.secrets",
    "scan_files": "substrate.secrets",
    "scan_item": "substrate.secrets",
    "scan_substrate": "substrate.secrets",
    "scan_text": "substrate.secrets",
    "ScanConfig": "substrate.secrets",
    "SecretFinding": "substrate.secrets",
    "SecretScan": "substrate.secrets",
    "stale_fingerprints": "substrate.secrets",
    "TextFinding": "substrate.secrets",
    "TextScan": "substrate.secrets",
    "update_baseline": "substrate.secrets",
    "escaped_name": "substrate.secrets.names",
    "check_mask": "substrate.secrets.scan",
    "detect_and_redact": "substrate.secrets.scan",
    "safe_echo": "substrate.secrets.scan",
    "git_toplevel": "substrate.secrets.sources",
    "scan_path": "substrate.secrets.sources",
    "ScanSource": "substrate.secrets.sources",
    "shown_path": "substrate.secrets.sources",
    "staged_blobs": "substrate.secrets.sources",
    "staged_changes": "substrate.secrets.sources",
    "StagedChanges": "substrate.secrets.sources",
    "tracked_files": "substrate.secrets.sources",
    "TrackedPaths": "substrate.secrets.sources",
    "tracked_paths": "substrate.secrets.sources",
    "unstaged": "substrate.secrets.sources",
    "walk_sources": "substrate.secrets.sources",
    "reported_path": "substrate.secrets.textscan",
    "scan_contents": "substrate.secrets.textscan",
    "scan_oversized": "substrate.secrets.textscan",
    "SKIPPED_ALLOWED": "substrate.secrets.textscan",
    "SKIPPED_BINARY": "substrate.secrets.textscan",
    "SKIPPED_TOO_LARGE": "substrate.secrets.textscan",
    "SKIPPED_UNREADABLE": "substrate.secrets.textscan",
    "Settings": "substrate.settings",
    "SETTINGS_FILE": "substrate.settings",
    "SHARD_FORMAT": "substrate.settings",
    "MAX_TIMEOUT": "substrate.settingvalues",
    "written_formats": "substrate.versions",
    "init_shard": "substrate.shard",
    "new_shard_problem": "substrate.shard",
    "shard_status": "substrate.shard",
    "history": "substrate.spaces",
    "MERGE_PREFERENCES": "substrate.spaces",
    "merge_versions": "substrate.spaces",
    "publish": "substrate.spaces",
    "require_items": "substrate.spaces",
    "Space": "substrate.spaces",
    "version_of": "substrate.spaces",
    "visible_item": "substrate.spaces",
    "Changes": "substrate.store",
    "CompactStats": "substrate.store",
    "Substrate": "substrate.store",
    "read_within": "substrate.streams",
    "superseded": "substrate.supersession",
    "Event": "substrate.telemetry",
    "Telemetry": "substrate.telemetry",
    "default_scope": "substrate.visibility",
    "own_scope": "substrate.visibility",
    "printable_name": "substrate.visibility",
    "PUBLIC": "substrate.visibility",
    "reader_scopes": "substrate.visibility",
    "reader_view": "substrate.visibility",
    "resolve_team": "substrate.visibility",
    "shared_scopes": "substrate.visibility",
    "UNFIT_NAME": "substrate.visibility",
    "visible_scopes": "substrate.visibility",
    "is_binary": "substrate.widetext",
    "wide_encoding": "substrate.widetext",
    "WideEncoding": "substrate.widetext",
}

if TYPE_CHECKING:
    from substrate.act import (
        Action as Action,
    )
    from substrate.act import (
        Fragment as Fragment,
    )
    from substrate.act import (
        Investigation as Investigation,
    )
    from substrate.act import (
        Step as Step,
    )
    from substrate.act import (
        action_features as action_features,
    )
    from substrate.act import (
        compute_action as compute_action,
    )
    from substrate.act import (
        create_action as create_action,
    )
    from substrate.act import (
        delegate_action as delegate_action,
    )
    from substrate.act import (
        investigate as investigate,
    )
    from substrate.act import (
        relevance_of as relevance_of,
    )
    from substrate.act import (
        retrieve_action as retrieve_action,
    )
    from substrate.act import (
        score_action as score_action,
    )
    from substrate.act import (
        simulate_action as simulate_action,
    )
    from substrate.answer import (
        Answer as Answer,
    )
    from substrate.answer import (
        answer_from_substrate as answer_from_substrate,
    )
    from substrate.answer import (
        answerability as answerability,
    )
    from substrate.answer import (
        citations_to_nothing as citations_to_nothing,
    )
    from substrate.answerers import (
        AnswererError as AnswererError,
    )
    from substrate.answerers import (
        CommandAnswerer as CommandAnswerer,
    )
    from substrate.answerers import (
        HttpAnswerer as HttpAnswerer,
    )
    from substrate.answerers import (
        build_prompt as build_prompt,
    )
    from substrate.answerers import (
        http_answerer_from_config as http_answerer_from_config,
    )
    from substrate.audit import (
        AuditReport as AuditReport,
    )
    from substrate.audit import (
        audit_shard as audit_shard,
    )
    from substrate.audit import (
        held_by as held_by,
    )
    from substrate.claims import (
        unchecked_sentences as unchecked_sentences,
    )
    from substrate.compressed import (
        GZIP_MAGIC as GZIP_MAGIC,
    )
    from substrate.compressed import (
        CompressedError as CompressedError,
    )
    from substrate.compressed import (
        gunzip as gunzip,
    )
    from substrate.compressed import (
        inflate as inflate,
    )
    from substrate.context import (
        ContextBudget as ContextBudget,
    )
    from substrate.context import (
        ContextPacket as ContextPacket,
    )
    from substrate.context import (
        ReceiverProfile as ReceiverProfile,
    )
    from substrate.context import (
        assemble_context as assemble_context,
    )
    from substrate.context import (
        assemble_for_receivers as assemble_for_receivers,
    )
    from substrate.context import (
        compress_text as compress_text,
    )
    from substrate.context import (
        estimate_tokens as estimate_tokens,
    )
    from substrate.context import (
        pack_context as pack_context,
    )
    from substrate.cpus import (
        available_cpus as available_cpus,
    )
    from substrate.discovery import (
        SHARD_DIR as SHARD_DIR,
    )
    from substrate.discovery import (
        default_shard_path as default_shard_path,
    )
    from substrate.discovery import (
        find_shard as find_shard,
    )
    from substrate.discovery import (
        nearest_shard as nearest_shard,
    )
    from substrate.durations import (
        format_duration as format_duration,
    )
    from substrate.durations import (
        is_bare_number as is_bare_number,
    )
    from substrate.durations import (
        parse_duration as parse_duration,
    )
    from substrate.errors import (
        AccessDeniedError as AccessDeniedError,
    )
    from substrate.errors import (
        CorruptShardError as CorruptShardError,
    )
    from substrate.errors import (
        InvalidInputError as InvalidInputError,
    )
    from substrate.errors import (
        LostCommitsError as LostCommitsError,
    )
    from substrate.errors import (
        NotFoundError as NotFoundError,
    )
    from substrate.errors import (
        ShardError as ShardError,
    )
    from substrate.errors import (
        ShardFormatError as ShardFormatError,
    )
    from substrate.errors import (
        SubstrateError as SubstrateError,
    )
    from substrate.external import (
        ExternalAnswer as ExternalAnswer,
    )
    from substrate.external import (
        ExternalModel as ExternalModel,
    )
    from substrate.external import (
        external_action as external_action,
    )
    from substrate.external import (
        semantic_entropy as semantic_entropy,
    )
    from substrate.extractive import (
        ExtractiveAnswerer as ExtractiveAnswerer,
    )
    from substrate.factuality import (
        ClaimVerdict as ClaimVerdict,
    )
    from substrate.factuality import (
        FactualityReceipt as FactualityReceipt,
    )
    from substrate.factuality import (
        check_factuality as check_factuality,
    )
    from substrate.factuality import (
        miscited_claims as miscited_claims,
    )
    from substrate.freshness import (
        Freshness as Freshness,
    )
    from substrate.freshness import (
        changed_since_ingest as changed_since_ingest,
    )
    from substrate.freshness import (
        check_freshness as check_freshness,
    )
    from substrate.freshness import (
        content_hash as content_hash,
    )
    from substrate.freshness import (
        freshness_report as freshness_report,
    )
    from substrate.freshness import (
        published_copy as published_copy,
    )
    from substrate.gate import (
        GateResult as GateResult,
    )
    from substrate.gate import (
        admit as admit,
    )
    from substrate.governance import (
        APPROVED as APPROVED,
    )
    from substrate.governance import (
        PENDING as PENDING,
    )
    from substrate.governance import (
        REJECTED as REJECTED,
    )
    from substrate.governance import (
        Governance as Governance,
    )
    from substrate.governance import (
        authorize_publish as authorize_publish,
    )
    from substrate.governance import (
        authorize_write as authorize_write,
    )
    from substrate.governance import (
        grant_approver as grant_approver,
    )
    from substrate.governance import (
        load_governance as load_governance,
    )
    from substrate.governance import (
        require_readable as require_readable,
    )
    from substrate.governance import (
        revoke_approver as revoke_approver,
    )
    from substrate.governance import (
        save_governance as save_governance,
    )
    from substrate.governance import (
        scope_in_use as scope_in_use,
    )
    from substrate.harness import (
        Harness as Harness,
    )
    from substrate.harness import (
        HarnessResult as HarnessResult,
    )
    from substrate.harness import (
        find_harnesses as find_harnesses,
    )
    from substrate.harness import (
        monitoring_harness as monitoring_harness,
    )
    from substrate.harness import (
        register_harness as register_harness,
    )
    from substrate.harness import (
        support_triage_harness as support_triage_harness,
    )
    from substrate.hops import (
        HopChain as HopChain,
    )
    from substrate.hops import (
        HopStep as HopStep,
    )
    from substrate.hops import (
        multihop as multihop,
    )
    from substrate.ingest import (
        FORMATS as FORMATS,
    )
    from substrate.ingest import (
        FileOutcome as FileOutcome,
    )
    from substrate.ingest import (
        IngestIssue as IngestIssue,
    )
    from substrate.ingest import (
        IngestOptions as IngestOptions,
    )
    from substrate.ingest import (
        IngestReport as IngestReport,
    )
    from substrate.ingest import (
        ProgressFn as ProgressFn,
    )
    from substrate.ingest import (
        ingest_artifacts as ingest_artifacts,
    )
    from substrate.ingest import (
        ingest_documents as ingest_documents,
    )
    from substrate.ingest import (
        ingest_file as ingest_file,
    )
    from substrate.ingest import (
        ingest_path as ingest_path,
    )
    from substrate.ingest import (
        ingest_records as ingest_records,
    )
    from substrate.ingest import (
        ingest_text as ingest_text,
    )
    from substrate.ingest import (
        ingest_traces as ingest_traces,
    )
    from substrate.ingest.adapters import (
        file_provenance as file_provenance,
    )
    from substrate.ingest.detect import (
        normalize_format as normalize_format,
    )
    from substrate.ingest.disklook import (
        gone_from_disk as gone_from_disk,
    )
    from substrate.ingest.passages import (
        Passages as Passages,
    )
    from substrate.ingest.passages import (
        read_passages as read_passages,
    )
    from substrate.ingest.report import (
        shown_names as shown_names,
    )
    from substrate.ingest.session import (
        OVER_THE_SIZE_LIMIT as OVER_THE_SIZE_LIMIT,
    )
    from substrate.ingest.session import (
        too_large as too_large,
    )
    from substrate.ingest.settings import (
        size_limit as size_limit,
    )
    from substrate.ingest.sources import (
        KEPT_REJECTIONS as KEPT_REJECTIONS,
    )
    from substrate.ingest.walk import (
        link_trouble as link_trouble,
    )
    from substrate.ingest.walk import (
        shard_file as shard_file,
    )
    from substrate.item import (
        FIELD_ORDER as FIELD_ORDER,
    )
    from substrate.item import (
        MODALITIES as MODALITIES,
    )
    from substrate.item import (
        SubstrateItem as SubstrateItem,
    )
    from substrate.item import (
        new_id as new_id,
    )
    from substrate.kg import (
        kg_action as kg_action,
    )
    from substrate.kg import (
        link_entities as link_entities,
    )
    from substrate.kg import (
        retrieve_triples as retrieve_triples,
    )
    from substrate.limits import (
        BINARY_PROBE_BYTES as BINARY_PROBE_BYTES,
    )
    from substrate.limits import (
        CHARS_PER_TOKEN as CHARS_PER_TOKEN,
    )
    from substrate.limits import (
        DEFAULT_CHUNK_CHARS as DEFAULT_CHUNK_CHARS,
    )
    from substrate.limits import (
        DEFAULT_MAX_FILE_SIZE as DEFAULT_MAX_FILE_SIZE,
    )
    from substrate.limits import (
        DEFAULT_PACKET_CHARS as DEFAULT_PACKET_CHARS,
    )
    from substrate.limits import (
        FILE_FORMATS as FILE_FORMATS,
    )
    from substrate.limits import (
        INGEST_FORMATS as INGEST_FORMATS,
    )
    from substrate.limits import (
        MIN_CHUNK_CHARS as MIN_CHUNK_CHARS,
    )
    from substrate.limits import (
        STORABLE_INTS as STORABLE_INTS,
    )
    from substrate.lineage import (
        LineageReport as LineageReport,
    )
    from substrate.lineage import (
        audit_substrate as audit_substrate,
    )
    from substrate.lineage import (
        verify_lineage as verify_lineage,
    )
    from substrate.locking import (
        LockBusy as LockBusy,
    )
    from substrate.locking import (
        SharedFolderError as SharedFolderError,
    )
    from substrate.locking import (
        wait_for_locks_at_most as wait_for_locks_at_most,
    )
    from substrate.locking import (
        waiting_for_a_lock as waiting_for_a_lock,
    )
    from substrate.log import (
        DAMAGED_HEADER as DAMAGED_HEADER,
    )
    from substrate.log import (
        Watermark as Watermark,
    )
    from substrate.logend import (
        HEADER_LOST as HEADER_LOST,
    )
    from substrate.logend import (
        OLDER_COPY as OLDER_COPY,
    )
    from substrate.proposals import (
        already_proposed as already_proposed,
    )
    from substrate.proposals import (
        approve as approve,
    )
    from substrate.proposals import (
        pending as pending,
    )
    from substrate.proposals import (
        proposal_events as proposal_events,
    )
    from substrate.proposals import (
        proposal_of as proposal_of,
    )
    from substrate.proposals import (
        propose as propose,
    )
    from substrate.proposals import (
        reject as reject,
    )
    from substrate.proposals import (
        withdraw as withdraw,
    )
    from substrate.reasoner import (
        Reasoner as Reasoner,
    )
    from substrate.retrieval import (
        NOISE_FLOOR as NOISE_FLOOR,
    )
    from substrate.retrieval import (
        RELATIVE_FLOOR as RELATIVE_FLOOR,
    )
    from substrate.retrieval import (
        Retrieval as Retrieval,
    )
    from substrate.retrieval import (
        lines_of as lines_of,
    )
    from substrate.retrieval import (
        merge_scopes as merge_scopes,
    )
    from substrate.retrieval import (
        retrieve as retrieve,
    )
    from substrate.retrieval import (
        shown_path_of as shown_path_of,
    )
    from substrate.retrieval import (
        shown_source as shown_source,
    )
    from substrate.retrieval import (
        shown_sources as shown_sources,
    )
    from substrate.search.engine import (
        Hit as Hit,
    )
    from substrate.search.engine import (
        IndexStats as IndexStats,
    )
    from substrate.search.engine import (
        first_items as first_items,
    )
    from substrate.search.engine import (
        spelling_suggestions as spelling_suggestions,
    )
    from substrate.search.filters import (
        SearchFilters as SearchFilters,
    )
    from substrate.search.filters import (
        has_tag as has_tag,
    )
    from substrate.search.filters import (
        item_source as item_source,
    )
    from substrate.search.filters import (
        source_matcher as source_matcher,
    )
    from substrate.search.filters import (
        tag_key as tag_key,
    )
    from substrate.search.snippets import (
        Snippet as Snippet,
    )
    from substrate.search.snippets import (
        make_snippet as make_snippet,
    )
    from substrate.search.status import (
        index_status as index_status,
    )
    from substrate.search.suggest import (
        respelled as respelled,
    )
    from substrate.search.tokenize import (
        Analyzer as Analyzer,
    )
    from substrate.secrets import (
        RULE_NAMES as RULE_NAMES,
    )
    from substrate.secrets import (
        RULES as RULES,
    )
    from substrate.secrets import (
        Baseline as Baseline,
    )
    from substrate.secrets import (
        Rule as Rule,
    )
    from substrate.secrets import (
        ScanConfig as ScanConfig,
    )
    from substrate.secrets import (
        SecretFinding as SecretFinding,
    )
    from substrate.secrets import (
        SecretScan as SecretScan,
    )
    from substrate.secrets import (
        TextFinding as TextFinding,
    )
    from substrate.secrets import (
        TextScan as TextScan,
    )
    from substrate.secrets import (
        baseline_from_findings as baseline_from_findings,
    )
    from substrate.secrets import (
        detect_secrets as detect_secrets,
    )
    from substrate.secrets import (
        fingerprint as fingerprint,
    )
    from substrate.secrets import (
        load_baseline as load_baseline,
    )
    from substrate.secrets import (
        merge_baseline as merge_baseline,
    )
    from substrate.secrets import (
        new_findings as new_findings,
    )
    from substrate.secrets import (
        redact_secrets as redact_secrets,
    )
    from substrate.secrets import (
        safe_repr as safe_repr,
    )
    from substrate.secrets import (
        safe_text as safe_text,
    )
    from substrate.secrets import (
        sarif_log as sarif_log,
    )
    from substrate.secrets import (
        save_baseline as save_baseline,
    )
    from substrate.secrets import (
        scan_file as scan_file,
    )
    from substrate.secrets import (
        scan_files as scan_files,
    )
    from substrate.secrets import (
        scan_item as scan_item,
    )
    from substrate.secrets import (
        scan_substrate as scan_substrate,
    )
    from substrate.secrets import (
        scan_text as scan_text,
    )
    from substrate.secrets import (
        stale_fingerprints as stale_fingerprints,
    )
    from substrate.secrets import (
        update_baseline as update_baseline,
    )
    from substrate.secrets.names import (
        escaped_name as escaped_name,
    )
    from substrate.secrets.scan import (
        check_mask as check_mask,
    )
    from substrate.secrets.scan import (
        detect_and_redact as detect_and_redact,
    )
    from substrate.secrets.scan import (
        safe_echo as safe_echo,
    )
    from substrate.secrets.sources import (
        ScanSource as ScanSource,
    )
    from substrate.secrets.sources import (
        StagedChanges as StagedChanges,
    )
    from substrate.secrets.sources import (
        TrackedPaths as TrackedPaths,
    )
    from substrate.secrets.sources import (
        git_toplevel as git_toplevel,
    )
    from substrate.secrets.sources import (
        scan_path as scan_path,
    )
    from substrate.secrets.sources import (
        shown_path as shown_path,
    )
    from substrate.secrets.sources import (
        staged_blobs as staged_blobs,
    )
    from substrate.secrets.sources import (
        staged_changes as staged_changes,
    )
    from substrate.secrets.sources import (
        tracked_files as tracked_files,
    )
    from substrate.secrets.sources import (
        tracked_paths as tracked_paths,
    )
    from substrate.secrets.sources import (
        unstaged as unstaged,
    )
    from substrate.secrets.sources import (
        walk_sources as walk_sources,
    )
    from substrate.secrets.textscan import (
        SKIPPED_ALLOWED as SKIPPED_ALLOWED,
    )
    from substrate.secrets.textscan import (
        SKIPPED_BINARY as SKIPPED_BINARY,
    )
    from substrate.secrets.textscan import (
        SKIPPED_TOO_LARGE as SKIPPED_TOO_LARGE,
    )
    from substrate.secrets.textscan import (
        SKIPPED_UNREADABLE as SKIPPED_UNREADABLE,
    )
    from substrate.secrets.textscan import (
        reported_path as reported_path,
    )
    from substrate.secrets.textscan import (
        scan_contents as scan_contents,
    )
    from substrate.secrets.textscan import (
        scan_oversized as scan_oversized,
    )
    from substrate.settings import (
        SETTINGS_FILE as SETTINGS_FILE,
    )
    from substrate.settings import (
        SHARD_FORMAT as SHARD_FORMAT,
    )
    from substrate.settings import (
        Settings as Settings,
    )
    from substrate.settingvalues import (
        MAX_TIMEOUT as MAX_TIMEOUT,
    )
    from substrate.shard import (
        init_shard as init_shard,
    )
    from substrate.shard import (
        new_shard_problem as new_shard_problem,
    )
    from substrate.shard import (
        shard_status as shard_status,
    )
    from substrate.spaces import (
        MERGE_PREFERENCES as MERGE_PREFERENCES,
    )
    from substrate.spaces import (
        Space as Space,
    )
    from substrate.spaces import (
        history as history,
    )
    from substrate.spaces import (
        merge_versions as merge_versions,
    )
    from substrate.spaces import (
        publish as publish,
    )
    from substrate.spaces import (
        require_items as require_items,
    )
    from substrate.spaces import (
        version_of as version_of,
    )
    from substrate.spaces import (
        visible_item as visible_item,
    )
    from substrate.store import (
        Changes as Changes,
    )
    from substrate.store import (
        CompactStats as CompactStats,
    )
    from substrate.store import (
        Substrate as Substrate,
    )
    from substrate.streams import (
        read_within as read_within,
    )
    from substrate.supersession import (
        superseded as superseded,
    )
    from substrate.telemetry import (
        Event as Event,
    )
    from substrate.telemetry import (
        Telemetry as Telemetry,
    )
    from substrate.versions import (
        written_formats as written_formats,
    )
    from substrate.visibility import (
        PUBLIC as PUBLIC,
    )
    from substrate.visibility import (
        UNFIT_NAME as UNFIT_NAME,
    )
    from substrate.visibility import (
        default_scope as default_scope,
    )
    from substrate.visibility import (
        own_scope as own_scope,
    )
    from substrate.visibility import (
        printable_name as printable_name,
    )
    from substrate.visibility import (
        reader_scopes as reader_scopes,
    )
    from substrate.visibility import (
        reader_view as reader_view,
    )
    from substrate.visibility import (
        resolve_team as resolve_team,
    )
    from substrate.visibility import (
        shared_scopes as shared_scopes,
    )
    from substrate.visibility import (
        visible_scopes as visible_scopes,
    )
    from substrate.widetext import (
        WideEncoding as WideEncoding,
    )
    from substrate.widetext import (
        is_binary as is_binary,
    )
    from substrate.widetext import (
        wide_encoding as wide_encoding,
    )

if not TYPE_CHECKING:  # a type checker, which cannot read this list, takes the imports above
    __all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'substrate' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return [*sorted(_EXPORTS), "__version__"]
