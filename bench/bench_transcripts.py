"""Transcript ingest throughput: turns/s and chunks/s, without and with embeddings.

Ingests the largest real transcript in ../shared/data/transcripts, then a synthetic larger one
built by repeating it (fresh uuids, each copy chained to the previous one, text varied per copy)
into a temporary file. For each it reports parse time, ingest time (parse + chunk + store, the
Stop hook's work), the cost of re-ingesting after one more turn is appended (the incremental
case), and -- when ``memlode.embed`` can build the configured embedder -- the time to embed the
new rows as a long-lived process would.

    python bench/bench_transcripts.py                 # 40 copies, default (local) embedder
    python bench/bench_transcripts.py --copies 100 --provider hash --json
    python bench/bench_transcripts.py --no-embed
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.transcripts import ingest_transcript
from memlode.sources.transcript import parse_transcript

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "transcripts"


def largest_real() -> Path:
    files = sorted(REAL.glob("**/*.jsonl"), key=lambda p: p.stat().st_size)
    if not files:
        sys.exit(f"no transcripts under {REAL}")
    return files[-1]


def _remap(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value, value)
    return value


def synthesize(source: Path, target: Path, copies: int) -> None:
    """``copies`` chained copies of ``source`` with new uuids and a varied prompt per copy."""
    records = []
    for line in source.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    last: str | None = None
    with target.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            ids: dict[str, str] = {}
            for rec in records:
                if isinstance(rec.get("uuid"), str):
                    ids[rec["uuid"]] = str(uuid.uuid4())
            first = True
            for rec in records:
                new = dict(rec)
                for key in ("uuid", "parentUuid", "logicalParentUuid", "leafUuid"):
                    if key in new:
                        new[key] = _remap(new[key], ids)
                if first and "uuid" in new:
                    new["parentUuid"] = last
                    first = False
                data = new.get("data")
                if isinstance(data, dict) and data.get("agentId"):  # a subagent per copy
                    inner = dict(data.get("message") or {})
                    inner["uuid"] = str(uuid.uuid4())
                    new["data"] = {**data, "agentId": f"{data['agentId']}c{copy}", "message": inner}
                msg = new.get("message")
                if isinstance(msg, dict):
                    msg = dict(msg)
                    if isinstance(msg.get("id"), str):
                        msg["id"] = f"{msg['id']}-{copy}"
                    content = msg.get("content")
                    if isinstance(content, str) and new.get("type") == "user":
                        msg["content"] = f"{content} (variant {copy})"
                    elif isinstance(content, list):
                        msg["content"] = [
                            {**b, "text": f"{b['text']} [copy {copy}]"}
                            if isinstance(b, dict) and b.get("type") == "text" and b.get("text")
                            else b
                            for b in content
                        ]
                    new["message"] = msg
                out.write(json.dumps(new) + "\n")
                if isinstance(new.get("uuid"), str) and not new.get("isSidechain"):
                    last = new["uuid"]


def append_turn(path: Path) -> None:
    """One more prompt and reply on the active branch (what a Stop hook sees next)."""
    transcript = parse_transcript(path)
    last = transcript.main.events[-1].uuids[-1] if transcript.main.events else None
    base = {"sessionId": transcript.session_id, "cwd": transcript.cwd, "isSidechain": False}
    prompt_id, reply_id = str(uuid.uuid4()), str(uuid.uuid4())
    lines = [
        {
            **base,
            "type": "user",
            "uuid": prompt_id,
            "parentUuid": last,
            "timestamp": "2026-12-01T10:00:00Z",
            "message": {"role": "user", "content": "one more question about the bench"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": reply_id,
            "parentUuid": prompt_id,
            "timestamp": "2026-12-01T10:00:05Z",
            "message": {
                "id": "msg_bench_tail",
                "role": "assistant",
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Here is one more answer."}],
            },
        },
    ]
    with path.open("a", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")


def measure(path: Path, home: Path, provider: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"file": path.name, "bytes": path.stat().st_size}
    t0 = time.perf_counter()
    parse_transcript(path)
    out["parse_s"] = round(time.perf_counter() - t0, 4)
    settings = Settings.load({"home": str(home), "namespace": "bench", "embed_provider": "none"})
    with Engine(settings) as engine:
        t0 = time.perf_counter()
        report = ingest_transcript(engine, path)
        elapsed = time.perf_counter() - t0
        turns = report.turns + report.sidechain_turns
        chunks = report.chunks_added
        out.update(
            turns=turns,
            chunks=chunks,
            ingest_s=round(elapsed, 4),
            turns_per_s=round(turns / elapsed, 1),
            chunks_per_s=round(chunks / elapsed, 1),
        )
        t0 = time.perf_counter()
        assert ingest_transcript(engine, path).status == "unchanged"
        out["unchanged_s"] = round(time.perf_counter() - t0, 5)
        append_turn(path)
        t0 = time.perf_counter()
        again = ingest_transcript(engine, path)
        out["append_one_turn_s"] = round(time.perf_counter() - t0, 4)
        out["append_units_written"] = again.units_added + again.units_replaced
    if provider is None:
        return out
    settings = Settings.load({"home": str(home), "namespace": "bench", "embed_provider": provider})
    with Engine(settings) as engine:
        embedder = engine.embeddings.embedder
        if embedder is None:
            out["embed"] = f"unavailable: {engine.embeddings.error}"
            return out
        embedder.embed(["warm up the model"])  # load time is not ingest time
        t0 = time.perf_counter()
        done = engine.embed_pending()
        embed_s = time.perf_counter() - t0
    total = out["ingest_s"] + embed_s
    out.update(
        embed_model=embedder.name,
        embedded=done,
        embed_s=round(embed_s, 3),
        with_embed_turns_per_s=round(turns / total, 1),
        with_embed_chunks_per_s=round(chunks / total, 1),
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=40, help="copies in the synthetic file")
    parser.add_argument("--provider", default="local", help="embedder for the second pass")
    parser.add_argument("--no-embed", action="store_true", help="skip the embedding pass")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    provider = None if args.no_embed else args.provider
    real = largest_real()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        real_copy = work / real.name
        real_copy.write_bytes(real.read_bytes())
        results.append(measure(real_copy, work / "home-real", provider))
        synthetic = work / f"synthetic-x{args.copies}.jsonl"
        synthesize(real, synthetic, args.copies)
        results.append(measure(synthetic, work / "home-synth", provider))
    info = {"python": platform.python_version(), "machine": platform.machine(), "runs": results}
    if args.json:
        print(json.dumps(info, indent=2))
        return
    for r in results:
        print(f"{r['file']}: {r['bytes'] / 1e6:.2f} MB, {r['turns']} turns, {r['chunks']} chunks")
        print(
            f"  parse {r['parse_s']:.3f}s; ingest {r['ingest_s']:.3f}s = "
            f"{r['turns_per_s']} turns/s, {r['chunks_per_s']} chunks/s (no embeddings)"
        )
        print(
            f"  unchanged re-run {r['unchanged_s'] * 1000:.2f} ms; one appended turn "
            f"{r['append_one_turn_s']:.3f}s ({r['append_units_written']} units written)"
        )
        if "embed_s" in r:
            print(
                f"  + embedding {r['embedded']} chunks with {r['embed_model']}: "
                f"{r['embed_s']:.2f}s -> {r['with_embed_turns_per_s']} turns/s, "
                f"{r['with_embed_chunks_per_s']} chunks/s end to end"
            )
        elif "embed" in r:
            print(f"  embeddings {r['embed']}")


if __name__ == "__main__":
    main()
