"""JSON, SHA-256 and search terms for hooks, without importing ``json``, ``re`` or ``hashlib``.

Those three modules cost a hook more than its whole database write (``json`` and ``re`` pull in
``enum`` and the regex compiler; ``hashlib`` loads OpenSSL). The C accelerators behind them
(``_json``, ``_sha256``/``_sha2``) are built into CPython and load for free, so this module
drives them directly and falls back to the public modules when they are missing (other
interpreters) or when a text needs the full rules. ``tests/hooks/test_parity.py`` checks every
function here against its public counterpart.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["content_hash", "dumps", "loads", "search_terms"]

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


def _sha256_factory() -> Callable[[bytes], Any]:
    for name in ("_sha256", "_sha2"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        factory = getattr(module, "sha256", None)
        if factory is not None:
            return factory  # type: ignore[no-any-return]
    import hashlib  # pragma: no cover

    return hashlib.sha256  # pragma: no cover


_sha256 = _sha256_factory()


def content_hash(text: str) -> str:
    """``memlode.textutil.content_hash``: SHA-256 of the UTF-8 text, hex."""
    return str(_sha256(text.encode("utf-8")).hexdigest())


def _may_split(text: str) -> bool:
    """False only when no word of ``text`` can split into identifier parts (so the extra
    search terms are certainly empty): ASCII, no capital inside a word, no letter-digit seam."""
    if not text.isascii():
        return True
    prev_alnum = prev_alpha = prev_digit = False
    for ch in text:
        alpha = ch.isalpha()
        digit = ch.isdigit()
        if alpha and ch.isupper() and prev_alnum:
            return True
        if (alpha and prev_digit) or (digit and prev_alpha):
            return True
        prev_alpha, prev_digit = alpha, digit
        prev_alnum = alpha or digit
    return False


def _camel_parts(chunk: str) -> list[str]:
    """``textutil._CAMEL.findall`` of an ASCII alphanumeric chunk, lower-cased, without ``re``:
    a run of capitals (leaving its last one to a following lower-case run), a capital and its
    lower-case run, a lower-case run, a digit run."""
    parts: list[str] = []
    i, n = 0, len(chunk)
    while i < n:
        j = i + 1
        if chunk[i].isupper():
            while j < n and chunk[j].isupper():
                j += 1
            if j < n and chunk[j].islower():
                if j - i >= 2:
                    j -= 1  # "HTTPServer": "HTTP", then "Server"
                else:
                    while j < n and chunk[j].islower():
                        j += 1
        elif chunk[i].islower():
            while j < n and chunk[j].islower():
                j += 1
        else:
            while j < n and chunk[j].isdigit():
                j += 1
        parts.append(chunk[i:j].lower())
        i = j
    return parts


def identifier_parts(token: str) -> list[str]:
    """``memlode.textutil.identifier_parts``; ASCII tokens without importing ``re``."""
    if not token.isascii():
        from memlode.textutil import identifier_parts as full

        return full(token)
    pieces: list[str] = []
    for chunk in token.split("_"):
        if chunk:
            pieces.extend(_camel_parts(chunk))
    return pieces if len(pieces) >= 2 else []


def words(text: str) -> list[str]:
    """``memlode.textutil.words`` (runs of word characters); ASCII text without ``re``."""
    if not text.isascii():
        from memlode.textutil import words as full

        return full(text)
    out: list[str] = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isalnum() or ch == "_":
            if start < 0:
                start = i
        elif start >= 0:
            out.append(text[start:i])
            start = -1
    if start >= 0:
        out.append(text[start:])
    return out


def search_terms(text: str, limit: int = 2000) -> str:
    """``memlode.textutil.search_terms``; ASCII text without importing ``re`` (importing it
    costs a hook process several milliseconds)."""
    if not _may_split(text):
        return ""
    if not text.isascii():
        from memlode.textutil import search_terms as full

        return full(text, limit)
    seen: dict[str, None] = {}
    for word in words(text):
        if "_" in word or word.islower() or word.isupper() or word.isdigit():
            continue  # unicode61 handles these already
        for part in identifier_parts(word):
            seen.setdefault(part, None)
            if len(seen) >= limit:
                return " ".join(seen)
    return " ".join(seen)
