"""UserPromptSubmit: what is recalled for a prompt, and how the prompt itself is stored.

The recall is the engine's ranking from the store's resident (``memlode.hooks._resident``),
or the hook's lean BM25 (``memlode.hooks._recall``) when the resident cannot answer in time;
both go through the same gate and rendering. A resident started a moment ago (the first prompt
of ``claude -p "..."``) is waited for, up to ``[hooks] resident_start_wait_ms``. The prompt is
stored afterwards (never before its own recall): an instruction ("start phoenix in the
background") as knowledge a later session can use, a question or a nudge ("continue") as a
prompt, which recall leaves out.
"""

from __future__ import annotations

from memlode.hooks.run import SOURCE, HookRun
from memlode.storage import capture
from memlode.storage import capture_session as sessions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memlode.hooks._recall import Recalled

__all__ = ["MAX_PROMPT_CHARS", "user_prompt"]

PROMPT_IMPORTANCE = 0.3
# What the user told the assistant to do ("start phoenix in the background", "new beads were
# added, tackle them") is knowledge a later session can use; a question is not (its answer
# is). Instructions are tagged INSTRUCTION_TAG and recalled; questions keep the prompt tag,
# which recall leaves out. Below INSTRUCTION_MIN_WORDS content words ("continue", "ok do it")
# an instruction says nothing on its own and is stored as a prompt.
INSTRUCTION_TAG = "instruction"
INSTRUCTION_IMPORTANCE = 0.4
INSTRUCTION_MIN_WORDS = 3
MAX_PROMPT_CHARS = 4000


def user_prompt(run: HookRun) -> str | None:
    prompt = run.text("prompt", 200_000)
    output: str | None = None
    found_ids: list[str] = []
    recall_path = ""  # who ranked: "resident" (the engine) or "lean" (the hook's BM25)
    question = False
    limit = 0
    if run.settings.inject and prompt.strip():
        from memlode.hooks import _recall

        question = _recall.asks(prompt)  # a question gets more memories and more room
        limit = run.settings.prompt_memories(question)
    if limit > 0:
        from memlode.hooks.injection import hook_output, prompt_context

        found, recall_path = _recalled(run, prompt, limit)
        budget = run.settings.prompt_budget_chars(question)
        text = prompt_context(found, budget)
        if text:
            output = hook_output("UserPromptSubmit", text)
            found_ids = [f.id for f in found]
    store_prompt = run.settings.capture and run.settings.capture_prompts and prompt.strip()
    if store_prompt or found_ids:
        with run.write() as conn:
            sessions.start_session(conn, run.session_id, run.namespace, run.label)
            if store_prompt:
                # redacted once, where storage writes it (memlode.storage.scrub)
                content = prompt[:MAX_PROMPT_CHARS].strip()
                metadata = run.base_metadata()
                if recall_path:  # measured by `memlode eval replay`: how often the lean path ran
                    metadata["recall"] = recall_path
                    metadata["injected"] = len(found_ids)
                if content:
                    told = _is_instruction(content)
                    memory_id, created = capture.insert_memory(
                        conn,
                        content=content,
                        memory_type="context",
                        importance=INSTRUCTION_IMPORTANCE if told else PROMPT_IMPORTANCE,
                        tags=[INSTRUCTION_TAG if told else "prompt"],
                        metadata=metadata,
                        namespace=run.namespace,
                        source=SOURCE,
                        session_id=run.session_id,
                    )
                    if not created:
                        sessions.remember_seen(conn, run.session_id, memory_id)
            if found_ids:
                capture.touch(conn, found_ids)
    return output


def _recalled(run: HookRun, prompt: str, limit: int) -> tuple[list[Recalled], str]:
    """At most ``limit`` memories for ``prompt`` through the gate, and who ranked them: the
    engine's ranking from the store's resident ("resident"), the lean BM25 when it cannot
    answer in time ("lean"; the resident is then started again if it is gone), nothing on a
    server store without its resident ("")."""
    from memlode.hooks import _recall, _resident

    if run.ranker is not None:  # the resident runs this handler: its own ranking
        hits = run.ranker(prompt, run.namespace, run.session_id, limit * 3)
    else:
        hits = _resident.recall(
            run.settings.home,
            run.settings.db_path,
            prompt,
            run.namespace,
            run.session_id,
            limit * 3,
            run.settings.resident_timeout_ms,
        )
        if hits is None and not run.on_server:
            hits = _wait_for_a_starting_resident(run, prompt, limit * 3)
    if hits is not None:
        found = _resident.recalled(
            run.conn,
            hits,
            prompt,
            limit,
            run.session_id,
            frequencies=run.frequencies,
            project=run.namespace,
        )
        return found, "resident"
    if run.on_server:
        return [], ""  # the lean BM25 reads SQLite's FTS5 index, which a server has not
    found = _recall.recall(run.conn, prompt, run.namespace, run.session_id, limit=limit)
    if run.settings.resident_autostart:
        _resident.ensure_running(
            run.settings.home, run.settings.db_path, backoff=_resident.PROMPT_START_BACKOFF
        )
    return found, "lean"


def _wait_for_a_starting_resident(run: HookRun, prompt: str, k: int) -> list[Any] | None:
    """The hits of a resident that is coming up (started by SessionStart a moment ago, or now,
    when none runs), waited for at most ``resident_start_wait_ms``; None to rank lean."""
    from memlode.hooks import _resident

    settings = run.settings
    if settings.resident_start_wait_ms <= 0:
        return None
    home, db = settings.home, settings.db_path
    if not _resident.starting(home, db) and not (
        settings.resident_autostart
        and _resident.ensure_running(home, db, backoff=_resident.PROMPT_START_BACKOFF)
    ):
        return None

    def ask(timeout_ms: int) -> list[Any] | None:
        return _resident.recall(home, db, prompt, run.namespace, run.session_id, k, timeout_ms)

    return _resident.when_up(home, db, ask, settings.resident_start_wait_ms)


def _is_instruction(prompt: str) -> bool:
    """A prompt that tells rather than asks: not a question (``_recall.asks``), and holding at
    least INSTRUCTION_MIN_WORDS content words."""
    from memlode.hooks._recall import _gate_terms, asks

    text = prompt.strip()
    if not text or asks(text):
        return False
    return len(_gate_terms(text)) >= INSTRUCTION_MIN_WORDS
