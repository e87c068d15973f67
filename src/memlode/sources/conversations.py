"""The assistants whose conversation files memlode reads, and which one wrote a given file.

Each assistant keeps its conversations as JSON lines of its own shape: Claude Code's
transcripts (``~/.claude/projects/<enc>/<session>.jsonl``), Codex CLI's rollouts
(``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl``) and Gemini CLI's chat files
(``~/.gemini/tmp/<project>/chats/session-<date>-<id>.jsonl``). A reader turns one into the same
:class:`memlode.sources.transcript.Transcript` (threads of events), so that grouping into turns,
chunking, storage, offsets and the provisional last turn are one implementation for all of them.

``READERS`` is the one table of them: the hooks start a transcript ingest for the clients it
names, and :func:`read_conversation` picks the reader by what the file holds, not by its name.
``DATABASES`` is the same for the assistants that keep their sessions in a database instead
(OpenCode: ``$XDG_DATA_HOME/opencode/opencode.db``), read one session at a time. This module is
import-light (the Stop hook reads both tables); a reader is imported when used.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported: the Stop hook reads READERS
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

    from memlode.sources.transcript import Transcript

__all__ = [
    "DATABASES",
    "DEFAULT_CLIENT",
    "READERS",
    "detect_client",
    "read_conversation",
    "session_database",
]

# client (as memlode.hook_events names it) -> the module that reads its conversation files. Each
# has ``parse_transcript(path, *, start=0, first_line=0) -> Transcript`` (the file, or its tail
# from byte ``start``, line ``first_line``) and, all but the default's,
# ``recognise(record) -> bool`` (whether one decoded line is a record only that client writes).
READERS: dict[str, str] = {
    "claude": "memlode.sources.transcript",
    "codex": "memlode.sources.transcript_codex",
    "gemini": "memlode.sources.transcript_gemini",
}
# client -> (the module that reads one session of its database, the database's path under the
# XDG data folder). Each module has ``read_session(db, session_id, *, key=None) -> Transcript``,
# ``session_version(db, session_id)`` (what tells a changed session), ``list_sessions(db)`` and
# ``is_database(path)``.
DATABASES: dict[str, tuple[str, str]] = {
    "opencode": ("memlode.sources.transcript_opencode", "opencode/opencode.db"),
}
# A file no reader recognises is read as a Claude Code transcript (whose reader says why not).
DEFAULT_CLIENT = "claude"
# How much of a file's head is looked at to tell its writer: a few records (a Codex rollout's
# first line, its session_meta with the model's base instructions, runs to tens of kilobytes).
_SNIFF_BYTES = 1024 * 1024
_SNIFF_RECORDS = 50


def _recogniser(client: str) -> Callable[[dict[str, Any]], bool]:
    import importlib

    recognise: Callable[[dict[str, Any]], bool] = importlib.import_module(READERS[client]).recognise
    return recognise


def _parser(client: str) -> Callable[..., Transcript]:
    import importlib

    parse: Callable[..., Transcript] = importlib.import_module(READERS[client]).parse_transcript
    return parse


def detect_client(path: Path) -> str:
    """Which client wrote ``path``, from the records at its head; ``DEFAULT_CLIENT`` when no
    other reader recognises any of them."""
    import json

    from memlode.sources.transcript_records import detect_encoding

    with path.open("rb") as fh:
        head = fh.read(_SNIFF_BYTES)
    encoding, bom = detect_encoding(head)
    lines = head[bom:].decode(encoding, "replace").splitlines()
    others = [c for c in READERS if c != DEFAULT_CLIENT]
    looked = 0
    for line in lines:
        if looked >= _SNIFF_RECORDS:
            break
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a blank, broken or cut-off line
        if not isinstance(data, dict):
            continue
        looked += 1
        for client in others:
            if _recogniser(client)(data):
                return client
    return DEFAULT_CLIENT


def read_conversation(
    path: Path, *, start: int = 0, first_line: int = 0, client: str | None = None
) -> Transcript:
    """The conversation file ``path`` (or its tail from byte ``start``) parsed by the reader of
    the client that wrote it (``client``, else told from the file's head)."""
    found = client or detect_client(path)
    return _parser(found)(path, start=start, first_line=first_line)


def session_database(client: str, environ: Mapping[str, str]) -> str | None:
    """Where ``client`` (a key of ``DATABASES``) keeps its sessions for a process with the
    environment ``environ``: under ``$XDG_DATA_HOME``, else ``$HOME/.local/share``."""
    import os.path

    relative = DATABASES[client][1]
    data_home = environ.get("XDG_DATA_HOME") or ""
    if not os.path.isabs(data_home):  # the XDG rule: a relative value is ignored
        home = environ.get("HOME") or ""
        if not home:
            return None
        data_home = os.path.join(home, ".local", "share")
    return os.path.join(data_home, relative)
