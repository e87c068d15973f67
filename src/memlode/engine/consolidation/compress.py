"""The compress cycle: an optional language model turns consolidation's long texts into one
short fact each.

What it takes: the namespace's memories from consolidation (source ``consolidation``) tagged
``summary`` (the cluster cycle's "Read billing.py 12 times in 3 sessions; parts read: ...") or
``reflection`` (session reflections, when a cycle writes them), whose text changed since this
cycle last wrote it. Several go in one request (``BATCH_ITEMS``, at most ``MAX_BATCH_CHARS``),
numbered; the model answers one numbered line per input, and each line that parses becomes that
memory's fact. Everything sent has been through the store's secret redaction again (as injected
text is: ``memlode.redact``), after what writing it already removed.

Where the fact goes: the memory's ``content`` becomes the fact (so that search, injection and
every reader show it without knowing about this cycle), its raw text moves to
``metadata["raw"]`` and ``metadata["compressed"]`` says by which model and when; ``memlode get
ID`` shows both. Its vector is dropped, to be embedded again from the fact. When the cluster
cycle rewrites a summary (its group grew), the raw text is back in ``content`` and this cycle
compresses it again.

Idempotent: a ``consolidation_clusters`` row of kind ``compress`` per memory holds the hash of
the text the cycle left in it (the fact, or the raw text when the fact was not shorter or
another memory already says it); a memory whose text still has that hash is not sent again.

Never at the expense of the raw text: a line that does not parse, a request that fails (HTTP
error, garbage, refusal) or a budget that would be exceeded leaves the memory as it was and
unrecorded, so that the next run tries again; a failed request stops the namespace's run (a
server that is down is not asked once per batch). The budget (``llm_daily_tokens`` input and
output tokens a UTC day, all providers together, from the ``llm_usage`` ledger) is checked
before each request against the request's estimate (its text at ``CHARS_PER_TOKEN`` plus the
output cap): a request that could exceed it is not made, and the run stops there. With no
provider the cycle does nothing and says so (``skipped``); nothing of ``memlode.llm`` is
imported.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.errors import LlmError
from memlode.fastjson import loads
from memlode.redact import redact
from memlode.storage import compression
from memlode.storage import consolidation as rows
from memlode.storage import memories as memory_rows
from memlode.storage.capture import SUMMARY_SOURCE, SUMMARY_TAG
from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    import sqlite3

    from memlode.llm import Completion, LlmClient

__all__ = ["COMPRESSED_TAGS", "COMPRESS_KIND", "SYSTEM_PROMPT", "parse_facts", "run"]

log = logging.getLogger(__name__)

COMPRESS_KIND = "compress"  # its records in consolidation_clusters
REFLECTION_TAG = "reflection"
COMPRESSED_TAGS = (SUMMARY_TAG, REFLECTION_TAG)
# Inputs per request, and the characters of all of them: a batch of 20 summaries (~150 tokens
# each) is ~3k tokens in, well inside any model's context, and one bad answer costs 20 retries.
BATCH_ITEMS = 20
MAX_BATCH_CHARS = 12_000
MAX_ITEM_CHARS = 2_000  # a longer text is cut (summaries stop near 1,100 characters)
# The answer's cap: one line of at most MAX_FACT_CHARS per input, plus slack for numbering.
OUTPUT_TOKENS_PER_ITEM = 80
OUTPUT_TOKENS_SLACK = 40
MAX_FACT_CHARS = 300
CHARS_PER_TOKEN = 4  # as memlode.llm estimates (not imported without a provider)

SYSTEM_PROMPT = (
    "You compress notes from a software project's memory into short facts. The user sends "
    "numbered notes, one per line. For each note, answer exactly one line: its number, a "
    "period, a space, and one sentence of at most 30 words with the fact the note holds. "
    "Keep file names, commands, identifiers and numbers exactly as written. Add nothing that "
    "is not in the note. Answer nothing but these numbered lines, in the same order."
)
_LINE = re.compile(r"^\s*(\d{1,3})[.)]\s*(.*?)\s*$")


@dataclass
class _Item:
    id: str
    tag: str
    content: str  # as stored now
    metadata: dict[str, Any]
    state: str  # new (never compressed) or changed (its text changed since)

    @cached_property
    def sent(self) -> str:
        """One line of redacted text, cut to ``MAX_ITEM_CHARS``."""
        return " ".join(redact(self.content).split())[:MAX_ITEM_CHARS]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def parse_facts(answer: str, count: int) -> dict[int, str]:
    """Number (1-based) -> fact for each line of ``answer`` shaped ``N. text`` with N in
    1..``count``; the first line of each number counts, empty or overlong facts do not."""
    out: dict[int, str] = {}
    for line in answer.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        number, fact = int(match.group(1)), match.group(2).strip().strip("*").strip()
        if 1 <= number <= count and number not in out and 0 < len(fact) <= MAX_FACT_CHARS:
            out[number] = fact
    return out


def _plan(conn: sqlite3.Connection, namespace: str) -> tuple[list[_Item], int]:
    """The memories to compress, and how many are compressed already."""
    records = compression.compress_records(conn, namespace, COMPRESS_KIND)
    todo: list[_Item] = []
    unchanged = 0
    for memory_id, content, tags_json, meta_json in compression.compress_candidates(
        conn, namespace, SUMMARY_SOURCE, COMPRESSED_TAGS
    ):
        known = records.get(str(memory_id))
        if known == text_hash(str(content)):
            unchanged += 1
            continue
        tags = loads(tags_json) if tags_json else []
        tag = next((t for t in COMPRESSED_TAGS if t in tags), SUMMARY_TAG)
        meta = loads(meta_json) if meta_json else {}
        state = "new" if known is None else "changed"
        todo.append(
            _Item(str(memory_id), tag, str(content), meta if isinstance(meta, dict) else {}, state)
        )
    return todo, unchanged


def _batches(items: list[_Item]) -> list[list[_Item]]:
    out: list[list[_Item]] = []
    size = 0
    for item in items:
        length = len(item.sent) + 6
        if not out or len(out[-1]) >= BATCH_ITEMS or size + length > MAX_BATCH_CHARS:
            out.append([])
            size = 0
        out[-1].append(item)
        size += length
    return out


def _request(batch: list[_Item]) -> tuple[str, int, int]:
    """The user text of a batch, its output cap, and its estimated cost in tokens."""
    user = "\n".join(f"{n}. {item.sent}" for n, item in enumerate(batch, 1))
    max_out = OUTPUT_TOKENS_PER_ITEM * len(batch) + OUTPUT_TOKENS_SLACK
    estimate = -(-(len(SYSTEM_PROMPT) + len(user)) // CHARS_PER_TOKEN) + max_out
    return user, max_out, estimate


def _today() -> str:
    return format_ts(utcnow())[:10]


def _used_today(ctx: CycleContext) -> int:
    _requests, _failures, used_in, used_out = compression.usage_on(ctx.engine.conn, _today())
    return used_in + used_out


def run(ctx: CycleContext, report: CycleRun) -> None:
    settings = ctx.engine.settings
    if settings.llm_provider == "none":
        report.parameters = {"provider": "none"}
        report.counts = {"skipped": 1}
        return
    from memlode.llm import make_client

    client = make_client(settings)
    assert client is not None
    budget = settings.llm_daily_tokens
    report.parameters = {
        "provider": client.provider,
        "model": client.model,
        "daily_tokens": budget,
        "batch_items": BATCH_ITEMS,
        "max_batch_chars": MAX_BATCH_CHARS,
    }
    todo, unchanged = _plan(ctx.engine.conn, report.namespace)
    batches = _batches(todo)
    counts = dict.fromkeys(
        ("candidates", "unchanged", "requests", "compressed", "kept_raw", "unparsed", "failed"), 0
    )
    counts.update(candidates=len(todo) + unchanged, unchanged=unchanged)
    counts.update(budget_stopped=0, pending=0, input_tokens=0, output_tokens=0)
    report.counts = counts
    if report.dry_run:
        _dry_run(report, batches, budget - _used_today(ctx))
        return
    log_id = log_start(ctx, report)
    for index, batch in enumerate(batches):
        user, max_out, estimate = _request(batch)
        if _used_today(ctx) + estimate > budget:
            counts["budget_stopped"] = 1
            counts["pending"] = sum(len(b) for b in batches[index:])
            log.warning(
                "compress: the daily budget of %d tokens leaves no room for the next request"
                " (~%d tokens); %d memories wait for tomorrow",
                budget,
                estimate,
                counts["pending"],
            )
            break
        if not _send(ctx, report, client, batch, user, max_out):
            counts["pending"] = sum(len(b) for b in batches[index + 1 :])
            break
    log_finish(ctx, log_id, report)


def _dry_run(report: CycleRun, batches: list[list[_Item]], left: int) -> None:
    """What a run would send: how many memories in how many requests, at what estimated cost,
    and where the budget would stop it. Nothing is sent, nothing written."""
    estimated_in = 0
    for index, batch in enumerate(batches):
        _user, max_out, estimate = _request(batch)
        if estimate > left:
            report.counts["budget_stopped"] = 1
            report.counts["pending"] = sum(len(b) for b in batches[index:])
            break
        left -= estimate
        report.counts["requests"] += 1
        estimated_in += estimate - max_out
        for item in batch:
            report.changes.append(
                {"id": item.id, "tag": item.tag, "state": item.state, "chars": len(item.sent)}
            )
    report.counts["estimated_input_tokens"] = estimated_in


def _send(
    ctx: CycleContext,
    report: CycleRun,
    client: LlmClient,
    batch: list[_Item],
    user: str,
    max_out: int,
) -> bool:
    """One request and its results written; False when the request failed."""
    counts = report.counts
    counts["requests"] += 1
    try:
        answer = client.complete(SYSTEM_PROMPT, user, max_out)
    except LlmError as exc:
        log.warning("compress: %s; %d memories keep their raw text", exc, len(batch))
        counts["failed"] += len(batch)
        with ctx.engine.db.write() as conn:
            compression.record_usage(
                conn, _today(), client.provider, client.model, 0, 0, failed=True
            )
        report.changes.extend({"id": i.id, "tag": i.tag, "state": "failed"} for i in batch)
        return False
    counts["input_tokens"] += answer.input_tokens
    counts["output_tokens"] += answer.output_tokens
    facts = parse_facts(answer.text, len(batch))
    with ctx.engine.db.write() as conn:
        _record(conn, client, answer)
        for number, item in enumerate(batch, 1):
            state = _apply(conn, report.namespace, client, item, facts.get(number))
            counts[state] = counts.get(state, 0) + 1
            report.changes.append({"id": item.id, "tag": item.tag, "state": state})
    return True


def _record(conn: sqlite3.Connection, client: LlmClient, answer: Completion) -> None:
    compression.record_usage(
        conn, _today(), client.provider, client.model, answer.input_tokens, answer.output_tokens
    )


def _apply(
    conn: sqlite3.Connection, namespace: str, client: LlmClient, item: _Item, fact: str | None
) -> str:
    """Write one memory's fact; its state: compressed, kept_raw, unparsed or moved (its text
    changed while the model worked: the next run takes the new text)."""
    current = memory_rows.fetch(conn, item.id)
    if current is None or current.content != item.content:
        return "moved"
    if fact is None:
        return "unparsed"
    duplicate = memory_rows.find_duplicate(conn, namespace, SUMMARY_SOURCE, fact)
    if len(fact) >= len(item.content) or (duplicate is not None and duplicate != item.id):
        rows.save_cluster(conn, namespace, COMPRESS_KIND, item.id, item.id, text_hash(item.content))
        return "kept_raw"
    metadata = {
        **current.metadata,
        "raw": item.content,
        "compressed": {"by": f"{client.provider}:{client.model}", "at": format_ts(utcnow())},
    }
    memory_rows.update(conn, item.id, {"content": fact, "metadata": metadata})
    memory_rows.drop_vectors(conn, [item.id])  # the vector described the raw text
    stored = memory_rows.fetch(conn, item.id)
    written = stored.content if stored is not None else fact
    rows.save_cluster(conn, namespace, COMPRESS_KIND, item.id, item.id, text_hash(written))
    return "compressed"
