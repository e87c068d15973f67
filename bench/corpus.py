"""Synthetic but realistic memories for benchmarks: decisions, insights and observations about
a made-up codebase, generated from word lists with a fixed seed (no third-party text)."""

from __future__ import annotations

import random

SUBJECTS = [
    "the auth service",
    "the billing worker",
    "the search API",
    "the ingest pipeline",
    "the mobile client",
    "the admin dashboard",
    "the CI runner",
    "the cache layer",
    "the rate limiter",
    "the payment gateway",
    "the export job",
    "the websocket hub",
    "the scheduler",
    "the migration tool",
    "the logging agent",
    "the feature flag service",
]
FILES = [
    "auth/tokens.py",
    "billing/invoice.ts",
    "search/ranker.go",
    "ingest/reader.rs",
    "api/routes.py",
    "web/src/App.tsx",
    "db/migrations/0042.sql",
    "cache/redis.py",
    "limits/bucket.go",
    "payments/stripe.py",
    "jobs/export.py",
    "hub/socket.ts",
    "sched/cron.rs",
    "tools/migrate.py",
    "log/agent.go",
    "flags/client.ts",
]
VERBS = [
    "switched to",
    "dropped",
    "added",
    "replaced",
    "tuned",
    "capped",
    "retried",
    "batched",
    "moved",
    "split",
    "cached",
    "validated",
    "streamed",
    "sharded",
    "logged",
    "measured",
]
THINGS = [
    "JWT refresh rotation",
    "exponential backoff",
    "a 30 second timeout",
    "connection pooling",
    "idempotency keys",
    "a dead letter queue",
    "optimistic locking",
    "cursor pagination",
    "gzip compression",
    "structured logging",
    "a read replica",
    "an LRU cache",
    "request hedging",
    "schema validation",
    "a circuit breaker",
    "bulk inserts",
]
REASONS = [
    "because p95 latency doubled under load",
    "after the outage on Friday",
    "since the vendor deprecated the old endpoint",
    "to stop duplicate charges",
    "because tests were flaky on CI",
    "to cut memory use by half",
    "after users reported stale results",
    "because the old approach leaked connections",
    "to keep the hook under 50 ms",
    "so retries stay safe",
    "to satisfy the audit",
    "because the queue backed up overnight",
]
TYPES = ["decision", "insight", "pattern", "context", "preference", "habit", "style"]


def memory_text(rng: random.Random, i: int) -> str:
    subject, file = rng.choice(SUBJECTS), rng.choice(FILES)
    verb, thing, reason = rng.choice(VERBS), rng.choice(THINGS), rng.choice(REASONS)
    extra = rng.choice(THINGS)
    return f"In {subject} we {verb} {thing} in {file} {reason}; next we may try {extra} (note {i})."


def corpus(n: int, seed: int = 7) -> list[tuple[str, str, list[str]]]:
    """``n`` (content, memory_type, tags) triples."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        text = memory_text(rng, i)
        tags = [rng.choice(FILES).split("/")[0], rng.choice(["perf", "bug", "infra", "api"])]
        out.append((text, rng.choice(TYPES), tags))
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    templates = [
        "why did we {verb} {thing}",
        "what changed in {file}",
        "{subject} {thing} decision",
        "how does {subject} handle {thing}",
        "{thing} {reason}",
    ]
    return [
        rng.choice(templates).format(
            verb=rng.choice(VERBS),
            thing=rng.choice(THINGS),
            file=rng.choice(FILES),
            subject=rng.choice(SUBJECTS),
            reason=rng.choice(REASONS),
        )
        for _ in range(n)
    ]
