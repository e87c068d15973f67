"""``json.loads``/``json.dumps`` without importing ``json`` (L0, import-light).

Importing ``json`` costs a hook process more than its whole database write (it pulls in ``re``
and ``enum``). The C accelerator behind it (``_json``) is built into CPython and loads for free,
so this module drives it directly and falls back to ``json`` when it is missing (other
interpreters) or to report a syntax error. ``tests/foundation/test_fastjson.py`` holds both
functions to ``json``'s output and errors.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dumps", "loads"]

_WS = " \t\n\r"

try:
    import _json as _cjson
except ImportError:  # pragma: no cover - CPython always has it
    _cjson = None  # type: ignore[assignment]


class _ScanContext:
    """The attributes ``_json.make_scanner`` reads (as ``json.JSONDecoder`` has them)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, Any] = {}  # noqa: RUF012 - read once by the C scanner

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


_scan: Callable[[str, int], tuple[Any, int]] | None = (
    _cjson.make_scanner(_ScanContext()) if _cjson is not None else None  # type: ignore[arg-type]
)


def loads(text: str) -> Any:
    """``json.loads`` for a str; raises ValueError on anything that is not one JSON value."""
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("not JSON") from None
    except SystemError:
        # The C scanner reports a syntax error through json.decoder.JSONDecodeError and fails
        # this way when json.decoder was never imported; the public parser gives the error.
        import json

        return json.loads(text)
    if text[end:].strip(_WS):
        raise ValueError("extra data after the JSON value")
    return value


def _default(value: object) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


_encoders: dict[tuple[bool, bool], Callable[[Any, int], Any]] = {}


def dumps(value: Any, *, sort_keys: bool = False, ensure_ascii: bool = True) -> str:
    """``json.dumps(value, sort_keys=..., ensure_ascii=...)`` with the default separators."""
    if _cjson is None:  # pragma: no cover
        import json

        return json.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    key = (sort_keys, ensure_ascii)
    encoder = _encoders.get(key)
    if encoder is None:
        quote = _cjson.encode_basestring_ascii if ensure_ascii else _cjson.encode_basestring
        encoder = _cjson.make_encoder({}, _default, quote, None, ": ", ", ", sort_keys, False, True)
        _encoders[key] = encoder
    if isinstance(value, str):
        return str(
            (_cjson.encode_basestring_ascii if ensure_ascii else _cjson.encode_basestring)(value)
        )
    return "".join(encoder(value, 0))
