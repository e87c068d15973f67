"""Consolidation cycles, declared once (L0, import-light: ``memlode --help`` lists the
``consolidate`` command's choices from it without loading the engine, and the MCP
``consolidate`` tool's schema names them).

Each cycle is the module of that name in ``memlode.engine.consolidation``, with ``run(ctx,
report)``; the engine runs them, the CLI and the MCP tool offer them, the resident schedules
them, all from this table. A new cycle is one row here and its module there.

Order matters: a run takes the cycles in the table's order, what writes memories first (decay
covers them in the same run), forget after decay, creative last (it links what stays; a run
killed midway ends like one that was not).
"""

from __future__ import annotations

__all__ = [
    "AUTO_CYCLES",
    "CYCLES",
    "DEFAULT_CYCLES",
    "DEFAULT_FORGET_AFTER_DAYS",
    "MODEL_CYCLES",
    "OPT_IN",
    "TABLE",
    "Cycle",
]


class Cycle:
    """One cycle: its name (its module's), whether it runs only when named (``opt_in``: it
    removes rows), whether the resident runs it by itself when due (``auto``), and whether the
    resident runs it when a language model is configured (``model``)."""

    __slots__ = ("auto", "model", "name", "opt_in")

    def __init__(
        self, name: str, *, opt_in: bool = False, auto: bool = False, model: bool = False
    ) -> None:
        self.name = name
        self.opt_in = opt_in
        self.auto = auto
        self.model = model


# auto: the cycles the session replay has judged (45/52 with them and without; bench/RESULTS.md);
# decay runs when asked until it is measured too. model: with a language model configured the
# resident also compresses (the user asked for a model, and its daily token budget bounds what
# an unattended run can spend).
TABLE: tuple[Cycle, ...] = (
    Cycle("cluster", auto=True),
    Cycle("patterns", auto=True),
    Cycle("reflect", auto=True),
    Cycle("supersede", auto=True),
    Cycle("compress", model=True),
    Cycle("decay"),
    Cycle("forget", opt_in=True),
    Cycle("creative", auto=True),
)

CYCLES: tuple[str, ...] = tuple(c.name for c in TABLE)
OPT_IN: frozenset[str] = frozenset(c.name for c in TABLE if c.opt_in)
DEFAULT_CYCLES: tuple[str, ...] = tuple(c.name for c in TABLE if not c.opt_in)
AUTO_CYCLES: tuple[str, ...] = tuple(c.name for c in TABLE if c.auto)
MODEL_CYCLES: tuple[str, ...] = tuple(c.name for c in TABLE if c.model)

# Forget: rows younger than this many days are never removed (a run's default).
DEFAULT_FORGET_AFTER_DAYS = 90.0
