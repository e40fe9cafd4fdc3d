"""Examples shown at the end of a command's ``--help``: the lines people type most, each with
what it does."""

from __future__ import annotations

# command -> (command line, what it does)
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "ingest": (
        ("mixle ingest notes/", "a folder; run again: only what changed is read"),
        ("mixle ingest notes/ docs/api.md --tag team", "several paths, each item tagged"),
        ("mixle ingest exports/ --as records", "CSV, TSV and JSON files as records"),
        ("git show HEAD:NOTES.md | mixle ingest - --source NOTES.md", "standard input"),
    ),
    "search": (
        ('mixle search "refund policy"', "the ten best matches"),
        ('mixle search "deploy" --kind record --since 30d', "records stored in the last 30 days"),
        ('mixle search "on-call" --jsonl | mixle get -', "the whole items of the hits"),
    ),
    "ask": (
        ('mixle ask "How long do refunds take?"', "an answer quoting its sources, or none"),
        (
            'mixle ask "Who leads the team that owns billing?" --hops 2',
            "through a team it does not name",
        ),
        ('mixle ask "..." --answerer-cmd ./model.sh', "a model writes it (the sources on stdin)"),
    ),
    "verify": (
        ('mixle verify "Refunds take 14 days."', "is each claim backed by a stored item?"),
        ("mixle verify draft.md --json", "a file's claims, for a script"),
    ),
    "assemble-context": (
        ('mixle assemble-context "billing outage" --max-tokens 1500', "a packet for a model"),
        ('mixle assemble-context "billing" --shape brief', "a line per item, for a person"),
    ),
    "ls": (
        ("mixle ls --tag policy", "items carrying a tag"),
        ("mixle ls --source notes/ops --jsonl", "the items of a folder, a line each"),
    ),
    "get": (
        ("mixle get 1f3a9c0d2b4e6f81", "one item, whole"),
        ("mixle ls --tag draft --jsonl | mixle get -", "the ids read from a listing"),
    ),
    "add": (
        ('mixle add "The VPN moved to vpn2.example.org." --tag infra', "a note"),
        ('mixle add "Q3 totals" --kind record --payload \'{"total": 412}\'', "a record"),
    ),
    "scan-secrets": (
        ("mixle scan-secrets", "the changes staged for the next commit"),
        ("mixle scan-secrets --all", "every file git tracks"),
        ("mixle scan-secrets config/ .env", "files and folders"),
        ("mixle scan-secrets --items", "the items of the shard"),
    ),
    "redact": (
        ("mixle redact app.log > app.clean.log", "a copy with every secret masked"),
        ("kubectl get secret db -o yaml | mixle redact -", "standard input"),
    ),
    "freshness": (
        ("mixle freshness --max-age 180d", "stale items, and those not reviewed for 180 days"),
        ("mixle freshness --jsonl | mixle get -", "the stale items, whole"),
    ),
    "audit": (
        ("mixle audit", "lineage, links, log and secrets: exit 1 when something is wrong"),
        ("mixle audit --scope public --json", "one scope, for a script"),
    ),
    "publish": (
        (
            "mixle publish 1f3a9c0d2b4e6f81 --to public",
            "move an item into a shared scope (its id stays)",
        ),
    ),
    "propose": (
        ("mixle propose 1f3a9c0d2b4e6f81 --to public", "ask a scope's approvers to take it"),
    ),
    "approve": (("mixle approve 1f3a9c0d2b4e6f81 --by alice", "as one of its approvers"),),
}


def epilog(command: str) -> str | None:
    """The examples of ``command`` as the end of its help (None when it has none): a block the
    help layout keeps as written (``\\b``), what each does above it (narrow terminals)."""
    examples = EXAMPLES.get(command)
    if not examples:
        return None
    blocks = [f"  # {what}\n  {line}" for line, what in examples]
    return "Examples:\n\b\n" + "\n\n".join(blocks)
