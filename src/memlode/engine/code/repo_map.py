"""The repo map as a user and the SessionStart hook see it: PageRank over the code graph,
heated by recent edits, and the small map kept for the hook.

Heat comes from the Claude Code hooks: every Edit/Write is a ``hook`` memory whose metadata
names the edited file (``metadata.file``, an absolute path). Each edit counts
``0.5 ** (age / HEAT_HALF_LIFE_HOURS)``; the repo map then weights the hottest file
``HOT_WEIGHT`` (100) times a cold one and the others in proportion. ``--focus`` files count as
hot as the hottest.

This module reads; it never refreshes the graph state (``index_state`` does, and saves the
session map through :func:`save_session_map` after it has). It also holds the namespace guards
the code operations share.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.errors import InvalidInput, NotFound
from memlode.storage import briefing, code_graph_rows
from memlode.storage.capture import HOOK_SOURCE
from memlode.storage.store_stats import has_indexed_code
from memlode.types import format_ts, parse_ts, utcnow

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = [
    "HEAT_HALF_LIFE_HOURS",
    "HEAT_WINDOW_DAYS",
    "SESSION_MAP_TOKENS",
    "edit_heat",
    "indexed_namespace",
    "one_namespace",
    "repo_map",
    "save_session_map",
    "session_map",
]

# An edit a day old counts half as much as one made now: "recently" in a coding assistant's
# sense is today's and yesterday's work, and a week-old edit should barely register.
HEAT_HALF_LIFE_HOURS = 24.0
# Edits older than this are not read at all (their weight is below 0.5 ** 14, negligible).
HEAT_WINDOW_DAYS = 14
# The size of the repo map kept for the SessionStart hook (``storage.briefing``): about a
# quarter of the hook's default 1,500-token budget.
SESSION_MAP_TOKENS = 400


def one_namespace(engine: Engine, namespace: str | None) -> str:
    """One namespace (never '*'), and one that exists as a project."""
    ns = engine.resolve_namespace(namespace)
    if ns is None:
        raise InvalidInput("give one namespace, not '*'")
    if not ns:
        raise InvalidInput(
            "no project here (no git repository or project marker); run inside a project "
            "or pass a namespace"
        )
    return ns


def indexed_namespace(engine: Engine, namespace: str | None) -> str:
    ns = one_namespace(engine, namespace)
    if not has_indexed_code(engine.code_db.conn, ns):
        raise NotFound(f"no code indexed in namespace {ns!r}; run `memlode index` in the project")
    return ns


def session_map(engine: Engine, namespace: str) -> str | None:
    """The map kept for the SessionStart hook (see ``save_session_map``), or None."""
    return briefing.session_map(engine.code_db.conn, namespace)


def save_session_map(engine: Engine, namespace: str, tokens: int = SESSION_MAP_TOKENS) -> str:
    """Render the namespace's repo map and keep it for the SessionStart hook, which cannot
    afford to render one (igraph, the code index); '' (kept too) when nothing is indexed."""
    try:
        text = str(repo_map(engine, tokens=tokens, namespace=namespace)["text"]).strip()
    except NotFound:
        text = ""
    with engine.code_db.write() as conn:
        briefing.keep_session_map(conn, namespace, text)
    return text


def edit_heat(engine: Engine, namespace: str, *, now: datetime | None = None) -> dict[str, float]:
    """Absolute path -> recency-weighted count of the hooks' recorded edits of that file."""
    now = now or utcnow()
    since = format_ts(now - timedelta(days=HEAT_WINDOW_DAYS))
    heat: dict[str, float] = {}
    for path, created in code_graph_rows.edited_files_since(
        engine.conn, namespace, HOOK_SOURCE, since
    ):
        if not isinstance(path, str) or not path:
            continue
        try:
            age_hours = max(0.0, (now - parse_ts(created)).total_seconds() / 3600.0)
        except ValueError:
            continue
        key = os.path.normpath(path)
        heat[key] = heat.get(key, 0.0) + 0.5 ** (age_hours / HEAT_HALF_LIFE_HOURS)
    return heat


def _indexed_paths(engine: Engine, namespace: str) -> dict[str, str]:
    """Absolute path -> path as stored, of every indexed code file of the namespace."""
    return {
        os.path.normpath(os.path.join(root, path)): path
        for root, path in code_graph_rows.indexed_file_paths(engine.code_db.conn, namespace)
    }


def _focus_paths(indexed: dict[str, str], focus: Sequence[str], cwd: Path | None) -> list[str]:
    """Each focus entry as the absolute path of the indexed file it names (or a path tail)."""
    out: list[str] = []
    here = cwd or Path.cwd()
    for entry in focus:
        text = entry.strip()
        if not text:
            continue
        candidate = os.path.normpath(str(here / Path(text).expanduser()))
        if candidate in indexed:
            out.append(candidate)
            continue
        tail = "/" + text.lstrip("./")
        matches = sorted(p for p in indexed if p.endswith(tail))
        if not matches:
            raise InvalidInput(f"focus file {entry!r} is not an indexed code file")
        out.extend(matches)
    return out


def repo_map(
    engine: Engine,
    *,
    tokens: int = 1024,
    focus: Sequence[str] = (),
    namespace: str | None = None,
    heat: bool = True,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """The PageRank repo map of the namespace, personalised by recent edits and ``focus``."""
    from memlode.code import repo_map as _repo_map

    if not 64 <= tokens <= 100_000:
        raise InvalidInput("tokens must be between 64 and 100000")
    ns = indexed_namespace(engine, namespace)
    indexed = _indexed_paths(engine, ns)
    focused = _focus_paths(indexed, focus, cwd)
    hot = {p: v for p, v in edit_heat(engine, ns).items() if p in indexed} if heat else {}
    result = _repo_map(engine.code_db, ns, tokens=tokens, heat=hot, focus=focused)
    out = result.to_dict()
    out["namespace"] = ns
    out["focus"] = [indexed[p] for p in focused]
    ranked = sorted(hot.items(), key=lambda kv: (-kv[1], kv[0]))
    out["heat"] = {indexed[p]: round(v, 6) for p, v in ranked}
    return out
