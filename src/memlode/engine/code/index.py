"""An index run as a user names it (``memlode index``, the MCP ``index_codebase`` tool): the
project's code indexed incrementally into its namespace, then what the run derives
(``index_state``) and the symbol vectors it leaves (made here, or handed to the resident:
``handoff``); and the links between indexed projects.

Defaults: the root to index is the project root of the working directory (git top level or
nearest project marker); the namespace is that project's, or the engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.engine.code.repo_map import one_namespace, save_session_map, session_map
from memlode.errors import InvalidInput
from memlode.project import find_project_root, namespace_for_path

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["cross_repo", "default_root", "index"]

# (phase, done, total), as memlode.code.ProgressCallback
Progress = Callable[[str, int, int], None]


def default_root(cwd: Path | None = None) -> Path:
    """The project root of ``cwd`` (the working directory by default)."""
    here = cwd or Path.cwd()
    root = find_project_root(here)
    if root is None or root == root.parent:
        raise InvalidInput(
            f"{here} is not inside a project (no git repository or project marker); "
            "give the folder to index"
        )
    return root


def index(
    engine: Engine,
    root: Path | str | None = None,
    *,
    namespace: str | None = None,
    exclude: Sequence[str] = (),
    progress: Progress | None = None,
    cwd: Path | None = None,
    embed: bool = True,
    background: bool = False,
) -> dict[str, Any]:
    """Index (incrementally) the code under ``root`` into its project's namespace, then (with
    ``embed`` and an embedder) embed its new or changed symbols for semantic search: here, or
    with ``background`` by the store's resident when one can (``handoff``; the index
    then returns before them). ``symbol_vectors`` says how many wait, and who makes them.

    Namespace: ``namespace`` when given; else, for an explicit ``root``, the key of the project
    that root belongs to (of the folder itself outside any project); else the engine's.
    """
    from memlode.code import index_project

    if root is None:
        base = default_root(cwd)
        ns = one_namespace(engine, namespace)
    else:
        base = Path(root).expanduser()
        if not base.is_absolute() and cwd is not None:
            base = cwd / base
        if not base.is_dir():
            raise InvalidInput(f"{root} is not a folder; give the project folder to index")
        base = base.resolve()
        if namespace is not None:
            ns = one_namespace(engine, namespace)
        else:
            ns = namespace_for_path(str(base))  # its project's key (the folder's own outside one)
            if not ns:
                raise InvalidInput(f"cannot name a namespace for {base}; pass one")
    from memlode.engine.code.index_state import refresh, refresh_symbol_index

    stats = index_project(
        engine.code_db, base, ns, exclude=tuple(exclude), progress=progress, centrality=False
    )
    # The steps after the commit run whenever what they derive is stale, not only when this
    # run changed files: a run killed after its commit left them undone (index_state.py).
    # A run that wrote files ("store") has linked cross-repo imports already.
    rebuilt = refresh(engine, ns, full=True, linked="store" in stats.phases, progress=progress)
    out = stats.to_dict()
    if refresh_symbol_index(engine):
        out["symbol_index_rebuilt"] = True
    if rebuilt is not None:
        stats.phases["centrality"] = rebuilt.seconds
        if "session_map_chars" in rebuilt.extra:
            out["session_map_chars"] = rebuilt.extra["session_map_chars"]
    if "session_map_chars" not in out and session_map(engine, ns) is None:
        out["session_map_chars"] = len(save_session_map(engine, ns))
    from memlode.engine.code.handoff import hand_off
    from memlode.engine.code.vectors import embed_symbols, pending_report

    handed = hand_off(engine) if embed and background else None
    if embed and engine.embeddings.enabled and (handed is None or handed["by"] is None):
        report = (lambda done, total: progress("embed", done, total)) if progress else None
        vectors = embed_symbols(engine, ns, progress=report)
        embedding = vectors.to_dict()
        if engine.embeddings.error is not None:
            embedding["error"] = engine.embeddings.error
        out["embedding"] = embedding
        stats.phases["embed"] = vectors.seconds
        # "index": this run made them (with nothing pending, only neighbours' renamings)
        by = "index" if handed is None or vectors.embedded or vectors.reused else None
        handed = {**(handed or {}), **pending_report(engine), "by": by}
    out["symbol_vectors"] = handed if handed is not None else {**pending_report(engine), "by": None}
    out["seconds"] = round(stats.seconds + (rebuilt.seconds if rebuilt else 0.0), 3)
    out["phases"] = {k: round(v, 3) for k, v in stats.phases.items()}
    return out


def cross_repo(engine: Engine, *, relink: bool = True) -> list[dict[str, Any]]:
    """Dependencies between indexed projects (manifest or import), after re-linking imports."""
    from memlode.code import cross_repo as _cross_repo
    from memlode.code import link_cross_repo

    links = link_cross_repo(engine.code_db) if relink else _cross_repo(engine.code_db)
    return [link.to_dict() for link in links]
