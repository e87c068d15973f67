"""The storage layer's redaction choke point: every text a writer stores passes through here.

Each function of ``memlode.storage`` that writes a column a user or an assistant can read (the
``USER_TEXT`` columns of ``memlode.storage.text_columns``), the hooks' writers
(``memlode.storage.capture`` and ``capture_session``) included, runs the value through ``text``,
``tags`` or ``mapping`` before binding it, and computes anything derived from it (the content
hash that deduplicates, the extra search terms, a node's name) from the redacted value. Code
outside the storage layer never writes those columns itself: it calls a storage function.

``memlode.storage.text_columns`` lists which columns those are, which are not (and why), and
the modules that may write them; the tests that keep it so read it there
(``tests/e2e/safety/test_redaction_guard.py``), and so does ``doctor --repair``
(``memlode.storage.rescrub``). A third test runs every write path (hooks, transcript ingest,
CLI, docs indexing, import) with planted secrets and finds none of them in any table, the hook
log or an export.

Import-light: the hooks import it on every event, and every repository that writes imports it,
so a command that only reads (``memlode search``) imports it too. ``memlode.redact`` (its rules,
a few milliseconds of imports) is therefore loaded by the first value redacted, not by this
module: a process that writes nothing never loads it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

__all__ = [
    "mapping",
    "optional_text",
    "tags",
    "text",
    "texts",
]

_redact: Any = None  # memlode.redact, once a value has been redacted (see the module)


def _rules() -> Any:
    """``memlode.redact``, imported on first use."""
    global _redact
    if _redact is None:
        import memlode.redact

        _redact = memlode.redact
    return _redact


def text(value: str) -> str:
    """A text column's value, redacted."""
    redacted: str = _rules().redact(value)
    return redacted


def texts(values: Sequence[str]) -> list[str]:
    """Many text columns' values (a batch of rows), redacted: ``[text(v) for v in values]``,
    cheaper when they are many and short."""
    redacted: list[str] = _rules().redact_many(values)
    return redacted


def optional_text(value: str | None) -> str | None:
    return text(value) if value else value


def tags(values: Iterable[str]) -> list[str]:
    """A memory's tags, redacted one by one (``cmd:PGPASSWORD=…`` keeps its name, not its value)."""
    redact = _rules().redact
    return [redact(str(tag)) for tag in values]


def mapping(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A JSON object column (metadata, properties): every string redacted, and the whole value
    of a secret's key (``{"password": "x"}``)."""
    redacted: dict[str, Any] = _rules().redact_mapping(value or {})
    return redacted
