"""Settings: one object built at the edge (CLI, MCP server, hook) and passed down.

Precedence for every field: explicit flag > ``MEMLODE_*`` environment > ``config.toml`` in the
home > default. L0: stdlib only.

The store is a SQLite file, or a PostgreSQL database shared by a team (``memlode.storage``):

```toml
db_path = "postgresql://me@db.internal:5432/memory"  # --db / MEMLODE_DB; default
                                                     # <home>/memlode.db
created_by = "ana@laptop"  # --created-by / MEMLODE_CREATED_BY: who stores (recorded with each
                           # memory on PostgreSQL; default: login name@host name)
```

Writing into the user's project is off unless asked for:

```toml
[memory_files]
write_compactions = true   # MEMLODE_WRITE_COMPACTIONS=1: also append each compaction summary to
                           # MEMORY.md of the project the ingest runs in (never another one)
```

One resident process per store keeps the engine warm for the hooks and one-shot commands
(``memlode resident``):

```toml
[resident]
autostart = true       # MEMLODE_RESIDENT_AUTOSTART=0: SessionStart starts none, memlode mcp
                       # hosts none (one started by hand is still used)
idle_seconds = 1200    # MEMLODE_RESIDENT_IDLE: exit after this long without a request (0: never)
```

The resident consolidates the store when it is due (``memlode.engine.consolidation``):

```toml
[consolidation]
every_hours = 24       # MEMLODE_CONSOLIDATE_EVERY: hours between automatic runs (0: only by
                       # hand, `memlode consolidate`)
decay_every_hours = 168  # any cycle's own interval (decay and forget run only when given one;
                         # 0 takes a cycle out of the automatic runs)
```

An optional language model compresses consolidation's summaries and reflections into short facts
(``memlode.llm``, the ``compress`` cycle); off unless a provider is named:

```toml
[llm]
provider = "ollama"    # MEMLODE_LLM_PROVIDER: none (default) | ollama | openai | anthropic
model = "llama3.2"     # MEMLODE_LLM_MODEL (default per provider)
url = "http://127.0.0.1:11434"  # MEMLODE_LLM_URL (default per provider)
api_key = "..."        # MEMLODE_LLM_API_KEY, else OPENAI_API_KEY / ANTHROPIC_API_KEY
daily_tokens = 200000  # MEMLODE_LLM_DAILY_TOKENS: input + output tokens a UTC day (0: none)
```

Recall's ranking knobs (``memlode.search.recall_params`` has the defaults and where each comes
from); every search uses them: ``memlode search``, the MCP tools and the hooks' resident recall:

```toml
[recall]
half_life_days = 30    # MEMLODE_RECALL_HALF_LIFE_DAYS: the recency signal halves in this many
                       # days (memory-file chunks decay by it too)
mmr_lambda = 0.7       # MEMLODE_RECALL_MMR_LAMBDA: 1 ranks by score alone; lower, more diverse
min_score = 0.1        # MEMLODE_RECALL_MIN_SCORE: hits scoring below this are left out
evergreen = ["DECISIONS.md"]  # MEMLODE_RECALL_EVERGREEN (comma-separated): files that never
                       # decay, besides MEMORY.md, SOUL.md and USER.md
```

A key ``config.toml`` does not know is named in one warning line on stderr (and ignored).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from memlode import config_file
from memlode.errors import InvalidInput, StorageError

__all__ = [
    "DEFAULT_LLM_DAILY_TOKENS",
    "DEFAULT_WEIGHTS",
    "LLM_PROVIDERS",
    "Settings",
    "normalise_weights",
]

# Recall signal weights. DESIGN.md's starting point was vector .25, graph .25, bm25 .15,
# temporal .10, tags .10, importance/confidence/recency .05 each; on LoCoMo (memlode eval
# locomo, bench/RESULTS.md) equal text and vector weights with a small tag weight did best:
# turn recall@5 0.702 -> 0.728. LoCoMo cannot see importance, confidence or recency (constant
# there), so those keep DESIGN's small weights for everyday use.
DEFAULT_WEIGHTS: dict[str, float] = {
    "vector": 0.36,
    "graph": 0.04,
    "bm25": 0.36,
    "temporal": 0.04,
    "tags": 0.07,
    "importance": 0.05,
    "confidence": 0.03,
    "recency": 0.05,
}


# The optional language model (memlode.llm): "none" sends nothing anywhere.
LLM_PROVIDERS = ("none", "ollama", "openai", "anthropic")
# Where a provider's key is found when MEMLODE_LLM_API_KEY is not set (each SDK's own variable).
_LLM_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
# Tokens (input + output, as the provider counts them) the model may use in a UTC day: compressing
# a few hundred summaries of ~150 tokens each in batches costs well under this; a runaway loop
# or a store of thousands stops here instead of on the bill.
DEFAULT_LLM_DAILY_TOKENS = 200_000


def normalise_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """Validate signal weights and scale them to sum 1. Unknown names and negatives are refused."""
    unknown = sorted(set(weights) - set(DEFAULT_WEIGHTS))
    if unknown:
        known = ", ".join(DEFAULT_WEIGHTS)
        raise InvalidInput(f"unknown scoring signal(s) {', '.join(unknown)}; known: {known}")
    merged = {name: float(weights.get(name, 0.0)) for name in DEFAULT_WEIGHTS}
    if any(v < 0 or v != v for v in merged.values()):
        raise InvalidInput("scoring weights must be non-negative numbers")
    total = sum(merged.values())
    if total <= 0:
        raise InvalidInput("at least one scoring weight must be positive")
    return {name: value / total for name, value in merged.items()}


def _default_home() -> Path:
    return Path(config_file.default_home())


def default_created_by() -> str:
    """Who stores memories by default: the login name at this machine's name."""
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no login name (a container's unknown uid)
        user = os.environ.get("USER") or "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path = field(default_factory=_default_home)
    db_path: Path | None = None  # None means <home>/memlode.db
    # The store on a PostgreSQL server (``--db`` / MEMLODE_DB / db_path given a postgresql://
    # URL): then ``db_path`` is None. Not shown (a URL may carry a password).
    db_url: str | None = field(default=None, repr=False)
    # Who stores memories through this process (a PostgreSQL store records it with each memory:
    # ``memories.created_by``); None: ``default_created_by()``.
    created_by: str | None = None
    namespace: str | None = None  # None means detect from the working directory
    embed_provider: str = "local"  # local | ollama | openai | hash | none
    embed_model: str | None = None
    embed_url: str | None = None
    embed_api_key: str | None = None
    embed_dimensions: int | None = None
    weights: dict[str, float] | None = None  # None means the defaults
    log_level: str = "WARNING"
    # Off: a transcript's compaction summaries stay in memlode's store (issue 16 item 6).
    write_compactions: bool = False
    # The resident process (memlode.resident): started by SessionStart / hosted by memlode mcp,
    # and how long it waits without a request before it exits (20 minutes: a coffee break
    # keeps it, an evening does not).
    resident_autostart: bool = True
    resident_idle_seconds: float = 1200.0
    # Hours between the resident's automatic consolidation runs (a day: the store is tidied
    # once between one day's work and the next); 0 leaves it to `memlode consolidate`.
    consolidate_every_hours: float = 24.0
    # The optional language model (memlode.llm, the compress cycle); "none": no model, nothing
    # leaves the machine. The key is never shown (repr) nor logged.
    llm_provider: str = "none"
    llm_model: str | None = None
    llm_url: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_daily_tokens: int = DEFAULT_LLM_DAILY_TOKENS
    # Seconds between the resident's checks for sessions ended since its last reflect run
    # (engine/consolidation/reflect); off with consolidate_every_hours = 0.
    reflect_check_seconds: float = 60.0
    # Per-cycle intervals, ``[consolidation] <cycle>_every_hours`` (decay = 168 lets the
    # resident decay weekly; forget = 720 forgets monthly; 0 takes a cycle out); the cycle
    # names are checked by memlode.engine.consolidation.schedule.
    consolidate_cycle_hours: dict[str, float] | None = None
    # ``[recall]``: the ranking's knobs; None keeps the default of memlode.search.recall_params
    # (``evergreen`` names files added to its evergreen ones).
    recall_half_life_days: float | None = None
    recall_mmr_lambda: float | None = None
    recall_min_score: float | None = None
    recall_evergreen: tuple[str, ...] | None = None

    @property
    def database(self) -> Path:
        """The SQLite database file. A PostgreSQL store has none: ``StorageError`` then (what
        asks for it needs a file: a backup, a repair, the resident's socket)."""
        if self.db_url is not None:
            raise StorageError(
                "this needs a SQLite database file, and the store is a PostgreSQL URL "
                "(not supported on PostgreSQL yet)"
            )
        return self.db_path if self.db_path is not None else self.home / "memlode.db"

    @property
    def store(self) -> Path | str:
        """Where the store is, as ``memlode.storage.open_store`` takes it: the PostgreSQL URL,
        else the SQLite database file."""
        return self.db_url if self.db_url is not None else self.database

    @property
    def author(self) -> str:
        """``created_by``, or who this is by default (``default_created_by``)."""
        return self.created_by or default_created_by()

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def log_file(self) -> Path:
        return self.home / "memlode.log"

    @classmethod
    def load(
        cls,
        overrides: Mapping[str, Any] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        """Build settings from flags (``overrides``), the environment and the config file."""
        env = os.environ if environ is None else environ
        flags = {k: v for k, v in (overrides or {}).items() if v is not None}
        home = Path(config_file.home_dir(env, flags.get("home")))
        values: dict[str, Any] = {"home": home}
        values.update(_read_config_file(home / config_file.CONFIG_NAME))
        values.update(_from_env(env))
        values.update(flags)
        values["home"] = home
        if not values.get("llm_api_key"):
            provider = str(values.get("llm_provider") or "").strip().lower()
            fallback = env.get(_LLM_KEY_ENV.get(provider, ""))
            if fallback:
                values["llm_api_key"] = fallback
        return cls._coerce(values)

    @classmethod
    def _coerce(cls, values: Mapping[str, Any]) -> Settings:
        names = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            if key not in names:
                continue
            if key == "db_path" and value is not None and config_file.is_server_url(str(value)):
                kwargs["db_url"] = str(value).strip()
                continue
            if key in ("home", "db_path") and value is not None:
                value = Path(str(value)).expanduser()
            elif key == "embed_dimensions" and value is not None:
                try:
                    value = int(value)
                except (TypeError, ValueError):
                    raise InvalidInput(
                        f"embed dimensions must be an integer, got {value!r}"
                    ) from None
            elif key in ("write_compactions", "resident_autostart"):
                value = _switch(key, value)
            elif key in ("resident_idle_seconds", "reflect_check_seconds"):
                value = _seconds(key, value)
            elif key == "consolidate_every_hours":
                value = _seconds(key, value, "hours")
            elif key == "consolidate_cycle_hours" and value is not None:
                value = {
                    str(cycle): _seconds(f"{cycle}_every_hours", hours, "hours")
                    for cycle, hours in dict(value).items()
                }
            elif key == "created_by" and value is not None:
                value = _created_by(value)
            elif key == "llm_provider":
                value = _llm_provider(value)
            elif key == "llm_daily_tokens":
                value = _tokens(key, value)
            elif key == "recall_half_life_days" and value is not None:
                value = _number(_recall_name(key), value, above=0.0)
            elif key in ("recall_mmr_lambda", "recall_min_score") and value is not None:
                value = _number(_recall_name(key), value, at_least=0.0, at_most=1.0)
            elif key == "recall_evergreen" and value is not None:
                value = _file_names(_recall_name(key), value)
            elif key == "weights" and value is not None:
                if not isinstance(value, Mapping):
                    raise InvalidInput("weights must be a table of signal = number")
                value = normalise_weights(value)
            kwargs[key] = value
        return cls(**kwargs)

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @property
    def effective_weights(self) -> dict[str, float]:
        return dict(self.weights) if self.weights else normalise_weights(DEFAULT_WEIGHTS)


_ENV_KEYS = {
    config_file.ENV_DB: "db_path",
    config_file.ENV_NAMESPACE: "namespace",
    "MEMLODE_CREATED_BY": "created_by",
    "MEMLODE_EMBED_PROVIDER": "embed_provider",
    "MEMLODE_EMBED_MODEL": "embed_model",
    "MEMLODE_EMBED_URL": "embed_url",
    "MEMLODE_EMBED_API_KEY": "embed_api_key",
    "MEMLODE_EMBED_DIMENSIONS": "embed_dimensions",
    "MEMLODE_LOG_LEVEL": "log_level",
    "MEMLODE_WRITE_COMPACTIONS": "write_compactions",
    "MEMLODE_RESIDENT_AUTOSTART": "resident_autostart",
    "MEMLODE_RESIDENT_IDLE": "resident_idle_seconds",
    "MEMLODE_CONSOLIDATE_EVERY": "consolidate_every_hours",
    "MEMLODE_LLM_PROVIDER": "llm_provider",
    "MEMLODE_LLM_MODEL": "llm_model",
    "MEMLODE_LLM_URL": "llm_url",
    "MEMLODE_LLM_API_KEY": "llm_api_key",
    "MEMLODE_LLM_DAILY_TOKENS": "llm_daily_tokens",
    "MEMLODE_REFLECT_CHECK": "reflect_check_seconds",
    "MEMLODE_RECALL_HALF_LIFE_DAYS": "recall_half_life_days",
    "MEMLODE_RECALL_MMR_LAMBDA": "recall_mmr_lambda",
    "MEMLODE_RECALL_MIN_SCORE": "recall_min_score",
    "MEMLODE_RECALL_EVERGREEN": "recall_evergreen",
}

_log = logging.getLogger(__name__)

# (file, key) already warned about: a command may load its settings more than once.
_warned: set[tuple[str, str]] = set()


def _warn_unknown(path: Path, data: Mapping[str, Any]) -> None:
    """One warning line on stderr for each key of ``config.toml`` nothing reads."""
    for key in config_file.unknown_keys(data):
        if (str(path), key) not in _warned:
            _warned.add((str(path), key))
            _log.warning("unknown setting %r in %s (ignored)", key, path)


_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"0", "false", "no", "off", ""})


def _switch(name: str, value: object) -> bool:
    """An on/off setting from TOML (a boolean) or the environment ("1", "true", "off", ...)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _ON:
        return True
    if text in _OFF:
        return False
    raise InvalidInput(f"{name} must be true or false, got {value!r}")


def _seconds(name: str, value: object, unit: str = "seconds") -> float:
    """A duration (a number, or a numeric string), 0 or more."""
    try:
        seconds = float(str(value).strip()) if not isinstance(value, bool) else -1.0
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise InvalidInput(f"{name} must be a number of {unit} (0 or more), got {value!r}")
    return seconds


def _recall_name(field_name: str) -> str:
    """How a ``[recall]`` setting is named to the user: its key and its variable."""
    return f"recall.{field_name.removeprefix('recall_')} (MEMLODE_{field_name.upper()})"


def _number(
    name: str,
    value: object,
    *,
    above: float | None = None,
    at_least: float | None = None,
    at_most: float | None = None,
) -> float:
    """A number from TOML or the environment, within its bounds."""
    try:
        number = float(str(value).strip()) if not isinstance(value, bool) else float("nan")
    except ValueError:
        number = float("nan")
    ok = number == number and number != float("inf")
    ok = ok and (above is None or number > above) and (at_least is None or number >= at_least)
    ok = ok and (at_most is None or number <= at_most)
    if not ok:
        bounds = (
            f"above {above:g}" if above is not None else f"between {at_least:g} and {at_most:g}"
        )
        raise InvalidInput(f"{name} must be a number {bounds}, got {value!r}")
    return number


def _file_names(name: str, value: object) -> tuple[str, ...]:
    """File names: a TOML list, or a comma-separated string (the environment)."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise InvalidInput(f"{name} must be a list of file names, got {value!r}")
    return tuple(sorted({i.strip() for i in items if i.strip()}))


def _created_by(value: object) -> str | None:
    """A name for who stores (one line, at most 200 characters); blank: the default."""
    text = " ".join(str(value).split())
    if len(text) > 200:
        raise InvalidInput(f"created_by must be at most 200 characters, got {len(text)}")
    return text or None


def _llm_provider(value: object) -> str:
    name = str(value or "none").strip().lower()
    if name not in LLM_PROVIDERS:
        raise InvalidInput(
            f"unknown language model provider {value!r}; choose one of "
            f"{', '.join(LLM_PROVIDERS)} (llm.provider / MEMLODE_LLM_PROVIDER)"
        )
    return name


def _tokens(name: str, value: object) -> int:
    """A whole number of tokens, 0 or more."""
    text = str(value).strip().replace("_", "") if not isinstance(value, bool) else "-1"
    if not text.isdigit():
        raise InvalidInput(f"{name} must be a whole number of tokens (0 or more), got {value!r}")
    return int(text)


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    return {field_name: env[key] for key, field_name in _ENV_KEYS.items() if env.get(key)}


def _read_config_file(path: Path) -> dict[str, Any]:
    """Read ``config.toml``: top-level field names plus ``[weights]``, ``[embed]``,
    ``[memory_files]``, ``[resident]``, ``[consolidation]``, ``[llm]`` and ``[recall]`` tables
    (``[hooks]`` is the hooks' own: ``memlode.hook_settings``)."""
    data = config_file.read_config(str(path))  # ConfigFileError is an InvalidInput
    _warn_unknown(path, data)
    out: dict[str, Any] = {}
    for key in ("db_path", "namespace", "log_level", "created_by"):
        if key in data:
            out[key] = data[key]
    for table in ("embed", "resident", "llm", "recall"):  # each key is <table>_<key>
        section = data.get(table, {})
        if isinstance(section, Mapping):
            for key in config_file.KNOWN_KEYS[table] & set(section):
                out[f"{table}_{key}"] = section[key]
    if "weights" in data:
        out["weights"] = data["weights"]
    memory_files = data.get("memory_files", {})
    if isinstance(memory_files, Mapping) and "write_compactions" in memory_files:
        out["write_compactions"] = memory_files["write_compactions"]
    consolidation = data.get("consolidation", {})
    if isinstance(consolidation, Mapping) and "every_hours" in consolidation:
        out["consolidate_every_hours"] = consolidation["every_hours"]
    if isinstance(consolidation, Mapping) and "reflect_check_seconds" in consolidation:
        out["reflect_check_seconds"] = consolidation["reflect_check_seconds"]
    if isinstance(consolidation, Mapping):
        cycles = {
            str(key).removesuffix("_every_hours"): value
            for key, value in consolidation.items()
            if str(key).endswith("_every_hours") and key != "every_hours"
        }
        if cycles:
            out["consolidate_cycle_hours"] = cycles
    return out
