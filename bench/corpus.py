"""Synthetic but realistic memories for benchmarks: decisions, insights and observations about
a made-up codebase, generated from word lists with a fixed seed (no third-party text)."""

from __future__ import annotations

import random
import re

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


# Word parts for generated identifiers and component names. Real stores have a long-tailed
# vocabulary (function names, tickets, people, products); without it every query word would
# match a tenth of the store, which no real memory store looks like.
PARTS = (
    "account address alert archive audit backup badge batch billing block bucket budget cache "
    "calendar cart channel chart checkout client cluster comment config contract coupon credit "
    "cursor customer dashboard dataset deploy device digest domain draft email event export feed "
    "field filter folder gateway grant graph group header health index inventory invoice job key "
    "label ledger limit link locale lock log mailbox manifest member message meter metric node "
    "note notice offer order owner packet page parser partner payload payment period permit "
    "pipeline plan policy pool post price profile project quota queue quote rate receipt record "
    "region release report request resource review role route rule schedule schema scope score "
    "search secret segment sender session shard shipment signal sketch slot snapshot source "
    "spec stage status store stream summary survey sync table task team template tenant ticket "
    "timer token topic trace tracker transfer trigger upload usage user vault vendor version "
    "view visit voucher wallet webhook widget window worker zone"
).split()
ACTIONS = (
    "build check compute create decode delete encode fetch flush handle load merge normalize "
    "parse publish read refresh render resolve retry rotate save scan send sort split submit "
    "sync throttle update validate verify write"
).split()
PEOPLE = (
    "Ana Bo Chen Dara Eli Femi Gus Hana Ivo Jon Kai Lena Milo Nia Omar Pia Quinn Rui Sam Tara "
    "Uma Vik Wen Xia Yan Zoe"
).split()


def _identifier(rng: random.Random) -> str:
    action, a, b = rng.choice(ACTIONS), rng.choice(PARTS), rng.choice(PARTS)
    if rng.random() < 0.5:
        return f"{action}_{a}_{b}"
    return action + a.capitalize() + b.capitalize()


def memory_text(rng: random.Random, i: int) -> str:
    subject, file = rng.choice(SUBJECTS), rng.choice(FILES)
    verb, thing, reason = rng.choice(VERBS), rng.choice(THINGS), rng.choice(REASONS)
    extra, ident, person = rng.choice(THINGS), _identifier(rng), rng.choice(PEOPLE)
    component = f"{rng.choice(PARTS)} {rng.choice(PARTS)}"
    return (
        f"In {subject} we {verb} {thing} in {file} ({ident}, {component}) {reason}; "
        f"{person} suggests {extra} next (ticket {rng.randrange(100, 99999)}, note {i})."
    )


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
        "why did we {verb} {thing} in {ident}",
        "what changed in {file} around {component}",
        "{subject} {thing} decision {person}",
        "how does {ident} handle {thing}",
        "{component} {reason}",
    ]
    return [
        rng.choice(templates).format(
            verb=rng.choice(VERBS),
            thing=rng.choice(THINGS),
            file=rng.choice(FILES),
            subject=rng.choice(SUBJECTS),
            reason=rng.choice(REASONS),
            ident=_identifier(rng),
            component=f"{rng.choice(PARTS)} {rng.choice(PARTS)}",
            person=rng.choice(PEOPLE),
        )
        for _ in range(n)
    ]


_SLOTS = re.compile(
    r"In (?P<subject>.+?) we (?P<verb>"
    + "|".join(map(re.escape, VERBS))
    + r") (?P<thing>.+?) in (?P<file>\S+) \((?P<ident>\w+), (?P<component>[a-z]+ [a-z]+)\) "
    r"(?P<reason>.+?); (?P<person>\w+) suggests (?P<extra>.+?) next "
    r"\(ticket (?P<ticket>\d+), note (?P<note>\d+)\)\.$"
)


def memory_slots(text: str) -> dict[str, str] | None:
    """The parts ``memory_text`` put into ``text`` (subject, verb, thing, file, ident,
    component, reason, person, extra, ticket, note), or None for any other text. Benchmarks
    that cannot embed every memory for real use them to find embedded memories that say the
    same things (``bench/bench_scale.py``)."""
    found = _SLOTS.search(text)
    return found.groupdict() if found is not None else None
