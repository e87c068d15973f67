"""Who makes the symbol vectors an index run leaves: the store's resident process, else the run.

Structure is what ``memlode index`` must finish before it returns (symbols, references, the
graph and the repo map answer at once); vectors are not: symbol search ranks on text until they
land and better as they do. Embedding every symbol of a large project takes many times longer
than indexing it (the CPython standard library: minutes against seconds), so an index run hands
the vectors it leaves pending to the store's resident (``memlode.resident``), whose background
embedder works them off a few at a time between the requests it answers
(``memlode.engine.code.vectors.SymbolBacklog``):

- a resident that answers and makes the same vectors (its ``ping`` names its embedding
  settings) is woken by that ping;
- with none running and ``[resident] autostart`` on, one is started detached, as the
  SessionStart hook starts it (``memlode.resident_client.launch``), without waiting for it;
- otherwise (autostart off, or the running resident embeds with other settings) nobody would
  make them: the index run embeds them itself, as ``memlode index --wait`` does.

The answer is ``pending_report``'s counts plus ``by`` (``"resident"``, or None: nobody, so the
run embeds them and says ``"index"``) and, when a resident takes them, its pid and whether this
run started it; ``why_not_resident`` says why none did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.engine.code.vectors import pending_report

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["hand_off"]


def hand_off(engine: Engine) -> dict[str, Any]:
    """Leave the pending symbol vectors to the store's resident when one can make them; the
    counts, and who makes them (``by`` None: nobody, so the caller embeds them itself)."""
    report: dict[str, Any] = {**pending_report(engine), "by": None}
    if not report["pending"]:
        return report
    from memlode.resident_client.client import database_of, embedding_settings, ping
    from memlode.resident_client.lock import held, read_owner
    from memlode.resident_client.paths import lock_path

    settings = engine.settings
    found = ping(settings)  # wakes a running resident's background embedder
    if found is not None:
        if found.get("embedding") != embedding_settings(settings):
            report["why_not_resident"] = "the running resident embeds with other settings"
            return report
        return {**report, "by": "resident", "resident_pid": found.get("pid"), "started": False}
    home, database = str(settings.home), database_of(settings)
    lock = lock_path(home, database)
    if held(lock):  # one is starting (it answers once its socket is bound): it will find them
        owner = read_owner(lock) or {}
        return {**report, "by": "resident", "resident_pid": owner.get("pid"), "started": False}
    if not settings.resident_autostart:
        report["why_not_resident"] = "no resident runs and [resident] autostart is off"
        return report
    from memlode.resident_client.launch import start_detached

    try:
        pid = start_detached(home, database, location=settings.db_url)
    except OSError as exc:
        report["why_not_resident"] = f"the resident could not be started: {exc}"
        return report
    return {**report, "by": "resident", "resident_pid": pid, "started": True}
