"""The settings a hook reads (L0, import-light): the store, the namespace, and a ``[hooks]`` table.

``memlode.config.Settings`` pulls in dataclasses (and through it ``inspect``), which costs more
than a whole hook should. This class reads the same sources through the same functions
(``memlode.config_file``: ``MEMLODE_*`` environment > ``config.toml`` in the home > default)
and never raises: a broken config file is noted in ``config_error`` and the defaults apply.

```toml
[hooks]
enabled = true                 # MEMLODE_HOOKS=0 turns every hook into a no-op
capture = true                 # MEMLODE_HOOKS_CAPTURE=0: store nothing from tools or prompts
inject = true                  # MEMLODE_HOOKS_INJECT=0: print no context at all
capture_prompts = true
ingest_transcripts = true      # MEMLODE_HOOKS_TRANSCRIPTS=0: do not ingest the transcript on Stop
tools = ["Read", "Edit", ...]  # capture only these tools (default: every tool with an extractor)
session_budget_tokens = 1500   # MEMLODE_HOOKS_SESSION_BUDGET
prompt_budget_tokens = 800     # MEMLODE_HOOKS_PROMPT_BUDGET
question_budget_tokens = 2000  # MEMLODE_HOOKS_QUESTION_BUDGET: for a prompt that asks
prompt_max_memories = 10
question_max_memories = 16     # MEMLODE_HOOKS_QUESTION_MEMORIES: for a prompt that asks
bash_output_chars = 1200
resident_timeout_ms = 150
resident_start_wait_ms = 3000  # a prompt right after the resident was started waits for it
spool_max_mb = 64              # a PostgreSQL store's hook spool refuses new events beyond this
```

and ``[resident] autostart`` (``MEMLODE_RESIDENT_AUTOSTART``): whether SessionStart starts the
store's resident process when none runs (``memlode.resident``).

On a PostgreSQL store (``on_server``) a hook hands its event to the store's resident
(``memlode.hooks.handoff``) with these settings (``to_dict``), and the resident runs the same
handler with them (``from_dict``): the hook's environment decides, not the resident's.

The ``[hooks]`` table:
"""

from __future__ import annotations

import os

from memlode import config_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "CHARS_PER_TOKEN",
    "PROMPT_BUDGET_TOKENS",
    "PROMPT_MEMORIES",
    "QUESTION_BUDGET_TOKENS",
    "QUESTION_MEMORIES",
    "RESIDENT_START_WAIT_MS",
    "SPOOL_MAX_MB",
    "TIMINGS_FILE",
    "HookSettings",
]

# How long a prompt waits for a resident that a hook started moments ago
# (``memlode.hooks._resident.starting``): it comes up in about a second on a small store.
RESIDENT_START_WAIT_MS = 3000
# Never longer: every client gives the prompt hook 5 s (memlode.hook_events), and the hook still
# ranks lean and stores the prompt after the wait.
MAX_START_WAIT_MS = 4000
# Rough size of a token in English text and code; budgets are given in tokens, cut in chars.
CHARS_PER_TOKEN = 4
# One line per hook run (memlode.hooks._log.timing_line), beside hooks.log in the home.
TIMINGS_FILE = "hook-timings.log"

_FALSE = {"0", "false", "no", "off", ""}
# The hook spool of a PostgreSQL store (memlode.resident_client.spool) holds the events of a
# server outage. A busy session spools ~1-5 KB per event (payloads as redacted, measured on the
# test payloads): 64 MB is days of work offline, small beside any disk.
SPOOL_MAX_MB = 64
# What a prompt that opens the gate is given: at most this many memories in this many tokens.
# 600 tokens and 8 memories until session 20; the replays, offline on kept stores with the same
# hits, answered 14 -> 18 of 24 (the blind untuned set), 44 -> 45 of 48 and 45 -> 46 of 52 at 800
# and 10: an answer often ranks 9th-10th among memories of one busy topic (bench/RESULTS.md,
# "Session 20"). A control that opens nothing costs nothing either way.
PROMPT_BUDGET_TOKENS = 800
PROMPT_MEMORIES = 10
# A question ("why did CI fail on the PR?", "which commit was next on before?") asks for what
# memory holds, and gets more room than an instruction or a remark (whose memories the user
# did not ask for), and more memories in it. 1,200 tokens from session 22 (the four untuned
# question sets then, 96 -> 106 of 120 answered against 800); 10 memories, as any prompt, until
# session 41. What answers a question ranks 11th-26th among the engine's hits in 19 of the 52
# prompts the untuned replays missed; each memory needs about 500 characters for its passage to
# show the answer (a 12th memory in 1,200 tokens lost 12 prompts by cutting the others'
# passages). Replays offline on session 40's kept stores, the same hits (bench/RESULTS.md,
# "Session 41"): 1,200 tokens and 10 memories 236/288, 1,800 and 14 244, 2,000 and 16 248.
# About one prompt in five is a question (87 real prompts of the untuned sessions: 17).
QUESTION_BUDGET_TOKENS = 2000
QUESTION_MEMORIES = 16


def _flag(value: object, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in _FALSE


def _int(value: object, default: int, low: int, high: int) -> int:
    if value is None or isinstance(value, bool):
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        return default
    return max(low, min(high, number))


class HookSettings:
    """What a hook reads from the environment and ``config.toml``; never raises."""

    __slots__ = (
        "bash_output_chars",
        "capture",
        "capture_prompts",
        "config_error",
        "db_path",
        "enabled",
        "home",
        "ingest_transcripts",
        "inject",
        "namespace",
        "on_server",
        "prompt_budget_tokens",
        "prompt_max_memories",
        "question_budget_tokens",
        "question_max_memories",
        "resident_autostart",
        "resident_start_wait_ms",
        "resident_timeout_ms",
        "session_budget_tokens",
        "spool_max_mb",
        "tools",
    )

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.home = config_file.home_dir(env)
        self.config_error: str | None = None
        data = self._read_config(os.path.join(self.home, config_file.CONFIG_NAME))
        hooks = data.get("hooks")
        table: dict[str, Any] = hooks if isinstance(hooks, dict) else {}

        self.db_path = config_file.database_path(self.home, env, data)
        # a PostgreSQL URL: the hook hands its event to the resident (memlode.hooks.handoff)
        self.on_server = config_file.is_server_url(self.db_path)
        if self.on_server:
            self.db_path = self.db_path.strip()
        self.namespace = config_file.namespace(env, data)

        self.enabled = _flag(env.get("MEMLODE_HOOKS"), _flag(table.get("enabled"), True))
        self.capture = _flag(env.get("MEMLODE_HOOKS_CAPTURE"), _flag(table.get("capture"), True))
        self.inject = _flag(env.get("MEMLODE_HOOKS_INJECT"), _flag(table.get("inject"), True))
        self.capture_prompts = _flag(table.get("capture_prompts"), True)
        self.ingest_transcripts = _flag(
            env.get("MEMLODE_HOOKS_TRANSCRIPTS"), _flag(table.get("ingest_transcripts"), True)
        )
        tools = table.get("tools")
        self.tools: frozenset[str] | None = (
            frozenset(str(t) for t in tools) if isinstance(tools, list) else None
        )
        self.session_budget_tokens = _int(
            env.get("MEMLODE_HOOKS_SESSION_BUDGET", table.get("session_budget_tokens")),
            1500,
            0,
            20000,
        )
        self.prompt_budget_tokens = _int(
            env.get("MEMLODE_HOOKS_PROMPT_BUDGET", table.get("prompt_budget_tokens")),
            PROMPT_BUDGET_TOKENS,
            0,
            8000,
        )
        self.question_budget_tokens = _int(
            env.get("MEMLODE_HOOKS_QUESTION_BUDGET", table.get("question_budget_tokens")),
            QUESTION_BUDGET_TOKENS,
            0,
            8000,
        )
        self.prompt_max_memories = _int(table.get("prompt_max_memories"), PROMPT_MEMORIES, 0, 20)
        self.question_max_memories = _int(
            env.get("MEMLODE_HOOKS_QUESTION_MEMORIES", table.get("question_max_memories")),
            QUESTION_MEMORIES,
            0,
            30,
        )
        self.bash_output_chars = _int(table.get("bash_output_chars"), 1200, 0, 20000)
        self.resident_timeout_ms = _int(table.get("resident_timeout_ms"), 150, 0, 2000)
        self.resident_start_wait_ms = _int(
            table.get("resident_start_wait_ms"), RESIDENT_START_WAIT_MS, 0, MAX_START_WAIT_MS
        )
        self.spool_max_mb = _int(table.get("spool_max_mb"), SPOOL_MAX_MB, 1, 1 << 16)
        resident = data.get("resident")
        resident_table: dict[str, Any] = resident if isinstance(resident, dict) else {}
        self.resident_autostart = _flag(
            env.get("MEMLODE_RESIDENT_AUTOSTART") or None,  # empty: unset, as Settings reads it
            _flag(resident_table.get("autostart"), True),
        )

    def _read_config(self, path: str) -> dict[str, Any]:
        try:
            return config_file.read_config_cached(path)  # no tomllib once parsed
        except Exception as exc:  # a broken config file must not break the assistant
            self.config_error = str(exc)
            return {}

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON values (``tools`` as a sorted list), for ``from_dict``."""
        out = {name: getattr(self, name) for name in self.__slots__}
        if self.tools is not None:
            out["tools"] = sorted(self.tools)
        return out

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> HookSettings:
        """Settings a hook resolved (``to_dict``), read back without the environment."""
        settings = cls.__new__(cls)
        for name in cls.__slots__:
            setattr(settings, name, values.get(name))
        tools = values.get("tools")
        settings.tools = frozenset(str(t) for t in tools) if isinstance(tools, list) else None
        return settings

    @property
    def log_path(self) -> str:
        return os.path.join(self.home, "hooks.log")

    @property
    def timings_path(self) -> str:
        return os.path.join(self.home, TIMINGS_FILE)

    def budget_chars(self, tokens: int) -> int:
        return tokens * CHARS_PER_TOKEN

    def prompt_budget_chars(self, question: bool) -> int:
        """The room of a prompt's recalled memories: ``question_budget_tokens`` for a question
        (``memlode.hooks._recall.asks``), else ``prompt_budget_tokens``."""
        tokens = self.question_budget_tokens if question else self.prompt_budget_tokens
        if tokens is None:  # settings handed over by an older hook, without the key
            tokens = self.prompt_budget_tokens
        return self.budget_chars(tokens)

    def prompt_memories(self, question: bool) -> int:
        """How many memories a prompt is given at most: ``question_max_memories`` for a
        question, else ``prompt_max_memories`` (0 for either: nothing for that kind)."""
        count = self.question_max_memories if question else self.prompt_max_memories
        if count is None:  # settings handed over by an older hook, without the key
            count = self.prompt_max_memories
        return int(count)
