"""The session replay's question files: sessions (a transcript, its end state, next-day
prompts with the phrases an answer must contain, its own controls) and controls, read and
checked; several files as one replay, each file a set (``memlode.evaluation.replay``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlode.errors import InvalidInput

__all__ = [
    "DEFAULT_DATA",
    "Control",
    "Prompt",
    "ReplaySession",
    "ReplaySpec",
    "load_replay_spec",
    "load_replay_specs",
]

# where a question file's sessions are when neither the file nor --data says (the tuned set's)
DEFAULT_DATA = Path("../shared/data/transcripts/spotter")


@dataclass
class Prompt:
    prompt: str
    expect: list[list[str]]
    kind: str = ""


@dataclass
class Control:
    prompt: str
    split: str


@dataclass
class ReplaySession:
    file: Path
    end_state: list[list[str]]
    prompts: list[Prompt]
    name: str = ""
    controls: list[Control] = field(default_factory=list)
    set: str = ""


@dataclass
class ReplaySpec:
    sessions: list[ReplaySession]


def _groups(value: Any, where: str) -> list[list[str]]:
    if not isinstance(value, list) or not all(
        isinstance(g, list) and g and all(isinstance(p, str) and p.strip() for p in g)
        for g in value
    ):
        raise InvalidInput(f"{where}: expected a list of non-empty lists of phrases")
    return [[p.strip() for p in g] for g in value]


def _controls(raw: Any) -> list[Control]:
    return [Control(str(c["prompt"]), str(c.get("split", "test"))) for c in raw or []]


def load_replay_spec(
    path: Path, data_dir: Path | None, only: list[str] | None = None
) -> ReplaySpec:
    """The question file at ``path``; session files resolve under its own ``data`` folder
    (relative to the file) when ``data_dir`` is None, else under ``data_dir``."""
    if path.exists() and not path.is_file():  # a device (/dev/zero) would be read without end
        raise InvalidInput(f"the replay questions {path} are not a regular file; give a JSON file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot read the replay questions {path}: {exc}") from None
    if data_dir is None:
        data_dir = path.parent / data["data"] if data.get("data") else DEFAULT_DATA
    label = str(data.get("set") or path.stem)
    shared = _controls(data.get("controls"))
    sessions = []
    for i, raw in enumerate(data.get("sessions") or []):
        file = data_dir / str(raw.get("file", ""))
        name = Path(str(raw.get("file", ""))).stem
        if only and not any(o in str(raw.get("file")) for o in only):
            continue
        if not file.is_file():
            raise InvalidInput(f"session {i}: no transcript at {file}")
        prompts = [
            Prompt(
                str(p["prompt"]),
                _groups(p.get("expect"), f"{name}: {p['prompt'][:40]}"),
                str(p.get("kind", "")),
            )
            for p in raw.get("prompts") or []
        ]
        end_state = _groups(raw.get("end_state") or [], f"{name}: end_state")
        controls = shared + _controls(raw.get("controls"))
        sessions.append(ReplaySession(file, end_state, prompts, name, controls, label))
    if not sessions:
        raise InvalidInput(
            f"no sessions to replay in {path}" + (f" matching {only}" if only else "")
        )
    return ReplaySpec(sessions)


def load_replay_specs(
    paths: list[Path], data_dir: Path | None, only: list[str] | None = None
) -> ReplaySpec:
    """Several question files as one replay (one store), each file a set of its own; a file
    with no session matching ``only`` is left out (none matching at all is an error)."""
    sessions: list[ReplaySession] = []
    for path in paths:
        try:
            sessions.extend(load_replay_spec(path, data_dir, only).sessions)
        except InvalidInput:
            if not only or len(paths) == 1:
                raise
    if not sessions:
        raise InvalidInput(f"no sessions to replay matching {only}")
    names = [s.name for s in sessions]
    if len(set(names)) != len(names):
        raise InvalidInput("the question files name the same session twice")
    return ReplaySpec(sessions)
