"""The untuned replay set (bench/replay_untuned.json: real sessions of other projects, other
authors and Claude Code versions) loads, names its own data folder and per-session controls,
and each of its sessions ingests into a store with its session records read (a Windows
session's cwd, the newer record types of 2.1.217: custom-title, pr-link, mode, last-prompt,
attachment). The full replay is a benchmark (bench/RESULTS.md), not run here."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlode.engine import Engine
from memlode.engine.transcripts import ingest_transcript
from memlode.evaluation.replay_spec import load_replay_specs
from memlode.sources.transcript import parse_transcript

ROOT = Path(__file__).resolve().parents[2]
UNTUNED = ROOT / "bench" / "replay_untuned.json"
TUNED = ROOT / "bench" / "replay_prompts.json"
DATA = ROOT.parent / "shared" / "data" / "transcripts"


@pytest.mark.skipif(not (DATA / "JanDeDobbeleer-oh-my-posh").is_dir(), reason=f"{DATA} absent")
def test_the_untuned_set_loads_and_its_sessions_ingest(engine: Engine) -> None:
    spec = load_replay_specs([UNTUNED], None)
    assert [s.set for s in spec.sessions] == ["untuned"] * 3
    for session in spec.sessions:
        assert len(session.prompts) >= 12
        # no control here calibrates the gate: the first ones are its test split, those
        # written in session 19 are reported on their own
        assert {c.split for c in session.controls} == {"test", "written-s19"}
        assert sum(c.split == "test" for c in session.controls) >= 8
        report = ingest_transcript(engine, session.file)
        assert report.status == "ingested" and report.malformed == 0 and report.turns >= 6
    # the Go session's newer records: its name and the pull request it is linked to
    posh = next(s for s in spec.sessions if "6878eb98" in s.name)
    parsed = parse_transcript(posh.file)
    assert parsed.custom_title == "Status segment gradient keyword"
    assert [t.text for t in parsed.titles] == [
        "Pull request #7716 (JanDeDobbeleer/oh-my-posh) linked to this session: "
        "https://github.com/JanDeDobbeleer/oh-my-posh/pull/7716"
    ]
    pr = engine.conn.execute(
        "SELECT count(*) FROM memories WHERE content LIKE 'Pull request #7716%'"
    ).fetchone()[0]
    assert pr == 1


@pytest.mark.skipif(not (DATA / "spotter").is_dir(), reason=f"{DATA} absent")
def test_both_sets_load_as_one_replay() -> None:
    spec = load_replay_specs([TUNED, UNTUNED], None)
    sets = [s.set for s in spec.sessions]
    assert sets.count("replay_prompts") == 4 and sets.count("untuned") == 3
    # the tuned file's controls are asked in each of its sessions
    tuned = [s for s in spec.sessions if s.set == "replay_prompts"]
    assert all(len(s.controls) == 23 for s in tuned)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.skipif(not (DATA / "JanDeDobbeleer-oh-my-posh").is_dir(), reason=f"{DATA} absent")
@pytest.mark.parametrize(
    ("name", "set_name"),
    [
        ("replay_untuned_s20.json", "untuned-s20"),
        ("replay_untuned_s21.json", "untuned-s21"),
        ("replay_untuned_s22.json", "untuned-s22"),
        ("replay_untuned_s23.json", "untuned-s23"),
        ("replay_untuned_s24.json", "untuned-s24"),
        ("replay_untuned_s25.json", "untuned-s25"),
        ("replay_untuned_s26.json", "untuned-s26"),
        ("replay_untuned_s27.json", "untuned-s27"),
        ("replay_untuned_s35.json", "untuned-s35"),
        ("replay_untuned_s36.json", "untuned-s36"),
    ],
)
def test_the_blind_set_loads_and_each_answer_is_in_its_transcript(name: str, set_name: str) -> None:
    """bench/replay_untuned_s20.json, bench/replay_untuned_s21.json,
    bench/replay_untuned_s22.json, bench/replay_untuned_s23.json,
    bench/replay_untuned_s24.json, bench/replay_untuned_s25.json, bench/replay_untuned_s26.json,
    bench/replay_untuned_s27.json, bench/replay_untuned_s35.json and bench/replay_untuned_s36.json
    (written in sessions 20, 21, 22, 23, 25, 26, 35 and 36, s22-s24 all in session 22, without sight
    of the gate): every expected phrase is somewhere in its session's transcript, so a miss is
    memlode's."""
    import json

    spec = load_replay_specs([ROOT / "bench" / name], None)
    assert [s.set for s in spec.sessions] == [set_name] * 3
    for session in spec.sessions:
        assert len(session.prompts) == 8 and len(session.controls) == 5
        lines = session.file.read_text(encoding="utf-8").splitlines()
        said = "\n".join(s for line in lines for s in _strings(json.loads(line))).lower()
        for prompt in session.prompts:
            for group in prompt.expect:
                assert any(phrase.lower() in said for phrase in group), (prompt.prompt, group)
