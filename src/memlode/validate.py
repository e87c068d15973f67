"""Input coercion shared by the engine and every interface: one rule, one message.

L0: stdlib only. Each function accepts what a user or a model plausibly sends (a string from a
flag, a JSON value from MCP) and returns the canonical value, or raises ``InvalidInput`` with a
message that says what to send instead.

Hostile input is bounded here too: text that is not UTF-8 (Python hands undecodable argv and
stdin bytes over as lone surrogates, which SQLite cannot store), JSON nested past what the json
module can parse without exhausting the recursion limit, non-finite numbers, and whole numbers
outside SQLite's 64-bit integers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memlode.errors import InvalidInput
from memlode.types import MemoryType, Relationship, format_ts, parse_ts

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_JSON_DEPTH",
    "SQLITE_MAX_INT",
    "content",
    "json_text",
    "memory_changes",
    "memory_type",
    "memory_types",
    "metadata",
    "namespace",
    "relationship",
    "stored_by",
    "tags",
    "timestamp",
    "unit_interval",
    "utf8_text",
    "whole_number",
]

MAX_CONTENT_CHARS = 1_000_000
# JSON options (metadata, tags, edge properties) nest a few levels at most (memlode's own
# metadata: 3). The json module recurses once per level and raises RecursionError near 1000, so
# deeper input is refused before parsing.
MAX_JSON_DEPTH = 64
# The same bound as content: one JSON option is never larger than a memory.
MAX_JSON_CHARS = MAX_CONTENT_CHARS
# SQLite stores integers in 64 bits; a larger Python int raises OverflowError when bound.
SQLITE_MAX_INT = 2**63 - 1
# A namespace is a name or a project key, never long prose (project keys are ~40 characters).
MAX_NAMESPACE_CHARS = 200

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def utf8_text(value: str, name: str) -> str:
    """``value`` unchanged if it can be stored as UTF-8, else InvalidInput naming the bad byte.

    Python decodes argv, and stdin in the C locale, with surrogate escapes: a byte that is not
    UTF-8 arrives as a lone surrogate (0xE9 -> U+DCE9), which cannot be encoded again.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = value[exc.start]
        code = ord(bad)
        what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        raise InvalidInput(
            f"{name} is not valid UTF-8 text ({what} at character {exc.start}); "
            "memlode stores text as UTF-8"
        ) from None
    return value


def content(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput("content must be text")
    utf8_text(value, "content")
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
            parsed = json_text(text, "tags")
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
            raise InvalidInput(f"each tag must be a string, got {_short(item)}")
        tag = utf8_text(item, "a tag").strip()
        if tag:
            out.setdefault(tag, None)
    return list(out)


def metadata(value: object, name: str = "metadata") -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        value = json_text(value, name)
    if not isinstance(value, dict):
        raise InvalidInput(f'{name} must be a JSON object, e.g. {{"file": "auth.py"}}')
    _check_json_value(value, name)
    return value


def _short(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _reject_constant(token: str) -> Any:
    raise InvalidInput(f"{token} is not a number JSON allows; give a finite number")


def _finite_float(token: str) -> float:
    number = float(token)
    if not math.isfinite(number):
        raise InvalidInput(f"the number {_short(token, 30)} is too large; give a finite number")
    return number


def _bounded_int(token: str) -> int:
    if len(token.lstrip("-")) > len(str(SQLITE_MAX_INT)):
        raise InvalidInput(f"the integer {_short(token, 30)} does not fit in 64 bits")
    return int(token)


_PLURAL = {"tags", "properties"}  # for "tags are", "metadata is"
# A JSON string (or an unterminated one, to the end) or a bracket. The possessive quantifiers
# never backtrack, so one pass is linear whatever the input.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]', re.DOTALL)


def _too_deep(text: str) -> bool:
    """Does ``text`` nest arrays and objects deeper than MAX_JSON_DEPTH? One linear pass
    (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return False
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def json_text(text: str, name: str, *, max_chars: int | None = MAX_JSON_CHARS) -> Any:
    """Parse JSON given as text: bounded size and depth, finite numbers, UTF-8 strings."""
    utf8_text(text, name)
    if max_chars is not None and len(text) > max_chars:
        raise InvalidInput(f"{name} is longer than {max_chars} characters")
    if _too_deep(text):
        raise InvalidInput(f"{name} nests deeper than {MAX_JSON_DEPTH} levels; flatten it")
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except json.JSONDecodeError as exc:
        verb = "are" if name in _PLURAL else "is"
        raise InvalidInput(f"{name} {verb} not valid JSON: {exc.msg} at char {exc.pos}") from None
    except InvalidInput as exc:
        raise InvalidInput(f"{name}: {exc}") from None
    except (ValueError, RecursionError) as exc:  # the checks above leave none; a last guard
        raise InvalidInput(f"{name} cannot be read: {exc}") from None
    _check_json_value(value, name)
    return value


def _check_json_value(value: Any, name: str) -> None:
    """A parsed JSON value (or one an MCP client sent) that memlode can store and export:
    bounded depth, string keys, finite numbers, UTF-8 strings."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise InvalidInput(f"{name} nests deeper than {MAX_JSON_DEPTH} levels; flatten it")
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise InvalidInput(f"{name} keys must be strings, got {_short(key)}")
                    utf8_text(key, f"a key of {name}")
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            utf8_text(item, f"a string in {name}")
        elif isinstance(item, float) and not math.isfinite(item):
            raise InvalidInput(f"{name} holds {item}; give finite numbers")
        elif isinstance(item, int) and not -SQLITE_MAX_INT - 1 <= item <= SQLITE_MAX_INT:
            raise InvalidInput(f"{name} holds an integer beyond 64 bits")
        elif not (item is None or isinstance(item, bool | int | float)):
            raise InvalidInput(f"{name} must be plain JSON, not {type(item).__name__}")


def whole_number(value: object, name: str, minimum: int, maximum: int = SQLITE_MAX_INT) -> int:
    """An int in ``minimum..maximum`` (text of one is accepted; bools and floats are not)."""
    if isinstance(value, bool):
        raise InvalidInput(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise InvalidInput(f"{name} must be a whole number, got {_short(value)}") from None
    if not isinstance(value, int):
        raise InvalidInput(f"{name} must be a whole number, got {_short(value)}")
    if value < minimum:
        raise InvalidInput(f"{name} must be at least {minimum}, got {value}")
    if value > maximum:
        raise InvalidInput(f"{name} must be at most {maximum}, got {_short(value, 30)}")
    return value


def namespace(value: object, *, allow_all: bool = False) -> str:
    """A namespace as given (a readable name or a project key; "" is the global one).

    ``*`` means every namespace and is refused where one namespace is needed (a write).
    """
    if not isinstance(value, str):
        raise InvalidInput(f"namespace must be text, got {_short(value)}")
    text = utf8_text(value, "namespace").strip()
    if text == "*" and not allow_all:
        raise InvalidInput("give one namespace, not '*'")
    if len(text) > MAX_NAMESPACE_CHARS:
        raise InvalidInput(f"namespace is longer than {MAX_NAMESPACE_CHARS} characters")
    if _CONTROL.search(text):
        raise InvalidInput(f"namespace {_short(text)} holds control characters")
    return text


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


def memory_changes(fields: Mapping[str, object]) -> dict[str, Any]:
    """The validated values of an update's given fields (those not None, checked in order);
    InvalidInput when none is given."""
    checks: dict[str, Callable[[Any], Any]] = {
        "content": content,
        "memory_type": memory_type,
        "importance": lambda v: unit_interval(v, "importance"),
        "confidence": lambda v: unit_interval(v, "confidence"),
        "tags": lambda v: tags(list(v) if isinstance(v, tuple) else v),
        "metadata": metadata,
    }
    changes = {name: checks[name](value) for name, value in fields.items() if value is not None}
    if not changes:
        raise InvalidInput("nothing to update; give at least one field to change")
    return changes


def stored_by(name: str | None, *, team: bool) -> str | None:
    """A filter by who stored a memory (``memories.created_by``), which only a team store
    (PostgreSQL) records; None when not asked."""
    if name is None:
        return None
    if not team:
        raise InvalidInput("a SQLite store records no author; --stored-by needs a team store")
    name = utf8_text(name, "stored_by").strip()
    if not name:
        raise InvalidInput("stored_by is empty; give a user or machine name (created_by)")
    return name
