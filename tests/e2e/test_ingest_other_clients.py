"""`memlode ingest transcript` on Codex CLI rollouts and Gemini CLI chat files, through the real
entry point: the same turns, incremental ingest and search as for Claude Code transcripts, each
turn labelled with its client (recordings: tests/clients/payloads/{codex,gemini}/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads"
CODEX_RESUMED = PAYLOADS / "codex" / "rollout-follow-up-resumed.jsonl"
GEMINI_HOOKED = PAYLOADS / "gemini" / "chat-recall-hook-context.jsonl"
# the resumed Codex session: its first run ends with this line (task_complete), then resume
FIRST_RUN_LINES = 63


def only_file(result: Any) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    (report,) = result.json()["files"]
    return dict(report)


def test_codex_rollout_ingested_incrementally_then_found(cli: Any, tmp_path: Path) -> None:
    lines = CODEX_RESUMED.read_text().splitlines(keepends=True)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("".join(lines[:FIRST_RUN_LINES]))

    first = only_file(cli("ingest", "transcript", str(rollout), "--json"))
    assert (first["status"], first["turns"], first["units_added"]) == ("ingested", 1, 1)
    assert first["session_id"] == "01a2340c-acc6-7473-836a-6893e49be6e9"
    again = only_file(cli("ingest", "transcript", str(rollout), "--json"))
    assert (again["status"], again["chunks_added"], again["units_added"]) == ("unchanged", 0, 0)

    with rollout.open("a") as fh:  # codex exec resume appends to the same file
        fh.write("".join(lines[FIRST_RUN_LINES:]))
    grown = only_file(cli("ingest", "transcript", str(rollout), "--json"))
    assert grown["incremental"] is True and grown["turns"] == 2
    assert (grown["units_added"], grown["units_replaced"]) == (1, 1)  # new turn; provisional one

    hits = cli("search", "haiku autumn leaves pond", "--source", "transcript", "-n", "*", "--json")
    assert hits.returncode == 0, hits.stderr
    top = hits.json()[0]
    assert top["content"].startswith(
        "User: Write a haiku about autumn leaves falling on a quiet pond."
    )
    assert top["metadata"]["client"] == "codex"
    listed = cli("list", "--source", "transcript", "-n", "*", "--json")
    contents = [m["content"] for m in listed.json()]
    assert len(contents) == 2 and not [c for c in contents if "## memlode" in c]
    sessions = cli("sessions", "-n", "*", "--json")
    assert sessions.returncode == 0, sessions.stderr
    assert {s["source"] for s in sessions.json()} == {"codex"}


def test_gemini_chat_ingested_without_memlodes_briefing(cli: Any) -> None:
    first = only_file(cli("ingest", "transcript", str(GEMINI_HOOKED), "--json"))
    assert (first["status"], first["turns"]) == ("ingested", 1)
    again = only_file(cli("ingest", "transcript", str(GEMINI_HOOKED), "--json"))
    assert again["status"] == "unchanged"
    hits = cli("search", "sign bug calc add", "--source", "transcript", "-n", "*", "--json")
    assert hits.returncode == 0, hits.stderr
    top = hits.json()[0]
    assert top["content"].startswith(
        "User: Remind me what the sign bug in the calc.py add function was\n"
    )
    assert top["metadata"]["client"] == "gemini"
    listed = cli("list", "--source", "transcript", "-n", "*", "--json").json()
    assert listed and not [m for m in listed if "<hook_context>" in m["content"]]
