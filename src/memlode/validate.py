"""Input coercion shared by the engine and every interface: one rule, one message.

L0: stdlib only. Each function accepts what a user or a model plausibly sends (a string from a
flag, a JSON value from MCP) and returns the canonical value, or raises ``InvalidInput`` with a
message that says what to send instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from memlode.errors import InvalidInput
from memlode.types import MemoryType, Relationship, format_ts, parse_ts

__all__ = [
    "content",
    "memory_type",
    "memory_types",
    "metadata",
    "relationship",
    "tags",
    "timestamp",
    "unit_interval",
]

MAX_CONTENT_CHARS = 1_000_000


def content(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput("content must be text")
    if not value.strip():
        raise InvalidInput("content is empty; give the text to remember")
    if len(value) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"content is longer than {MAX_CONTENT_CHARS} characters; split it")
    return value


def memory_type(value: object) -> MemoryType:
    if isinstance(value, MemoryType):
        return value
    text = str(value).strip().lower()
    try:
        return MemoryType(text)
    except ValueError:
        valid = ", ".join(t.value for t in MemoryType)
        raise InvalidInput(f"unknown memory type {value!r}; use one of: {valid}") from None


def memory_types(values: Sequence[object] | str | None) -> list[MemoryType]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [v for v in values.split(",") if v.strip()]
    return [memory_type(v) for v in values]


def unit_interval(value: object, name: str) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidInput(f"{name} must be a number between 0 and 1, got {value!r}") from None
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidInput(f"{name} must be between 0 and 1, got {value!r}")
    return number


def tags(value: object) -> list[str]:
    """Tags from a list, a JSON array or a comma-separated string; trimmed, de-duplicated."""
    if value is None:
        return []
    items: list[Any]
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"tags are not valid JSON: {exc.msg}") from None
            if not isinstance(parsed, list):
                raise InvalidInput("tags JSON must be an array of strings")
            items = parsed
        else:
            items = text.split(",")
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise InvalidInput("tags must be a list of strings or 'a,b,c'")
    out: dict[str, None] = {}
    for item in items:
        if not isinstance(item, str):
            raise InvalidInput(f"each tag must be a string, got {item!r}")
        tag = item.strip()
        if tag:
            out.setdefault(tag, None)
    return list(out)


def metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"metadata is not valid JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(value, dict):
        raise InvalidInput('metadata must be a JSON object, e.g. {"file": "auth.py"}')
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"metadata must be JSON-serialisable: {exc}") from None
    return value


def relationship(value: object) -> Relationship:
    if isinstance(value, Relationship):
        return value
    text = str(value).strip().upper().replace("-", "_").replace(" ", "_")
    try:
        return Relationship(text)
    except ValueError:
        valid = ", ".join(r.value for r in Relationship)
        raise InvalidInput(f"unknown relationship {value!r}; use one of: {valid}") from None


def timestamp(value: object, name: str = "time") -> str:
    """A stored-format timestamp from ISO-8601 text (a date alone means midnight UTC)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} must be an ISO-8601 date or time, e.g. 2026-11-02T10:00:00")
    try:
        return format_ts(parse_ts(value))
    except ValueError:
        raise InvalidInput(f"{name} {value!r} is not an ISO-8601 date or time") from None
