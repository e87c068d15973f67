"""POST JSON, read JSON: the one HTTP exchange of the embedding providers (``memlode.embed``)
and the language-model providers (``memlode.llm``).

Standard library only (``urllib``). Each request has a timeout; an overload (429, 502-504) or a
dropped connection is tried again after a pause that doubles each time; every other failure (an
HTTP error, a timeout, an unreachable or broken server, an answer that is not JSON) raises the
caller's error type with a message that names the server and says what to change (the
caller's hints, :class:`JsonEndpoint`).
"""

from __future__ import annotations

import http.client
import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ERROR_BODY_CHARS", "RETRY_STATUSES", "JsonEndpoint", "post_json", "server_words"]

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 502, 503, 504})
ERROR_BODY_CHARS = 300  # how much of a server's error text goes into a message


def server_words(raw: bytes) -> str:
    """The server's own explanation in an error body: Ollama's ``{"error": "..."}``, OpenAI's
    and Anthropic's ``{"error": {"message": "..."}}``, or the start of whatever text came back."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:ERROR_BODY_CHARS] or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return str(error)[:ERROR_BODY_CHARS] if error else text[:ERROR_BODY_CHARS]


@dataclass(frozen=True)
class JsonEndpoint:
    """Where to post, how, and what to tell the user when it fails."""

    url: str
    where: str  # "ollama server at http://127.0.0.1:11434/api/embed": no key, no password
    headers: Mapping[str, str]
    timeout: float
    retries: int  # extra attempts after an overload or a dropped connection
    backoff: float  # seconds before the first retry, doubled on each
    error: type[Exception]
    status_hint: Callable[[int, str], str]  # (HTTP status, the server's words) -> what to do
    unreachable_hint: str  # after "cannot reach the <where> (<reason>); "
    not_json_hint: str  # after "answered with something that is not JSON (...); "
    timeout_hint: str = ""  # after "did not answer within N s; " (none: no "; ")
    broken_hint: str = ""  # after "sent a broken HTTP reply (...); "
    words: Callable[[bytes], str] = server_words  # the server's words in an error body


def post_json(endpoint: JsonEndpoint, payload: Any) -> Any:
    """POST ``payload`` and return the decoded JSON answer, retrying overloads."""
    body = json.dumps(payload).encode("utf-8")
    for attempt in range(endpoint.retries + 1):
        try:
            raw = _send(endpoint, body)
        except _Retryable as exc:
            if attempt == endpoint.retries:
                raise exc.error from None
            delay = endpoint.backoff * 2**attempt
            log.info("%s; retrying in %.1f s", exc.error, delay)
            time.sleep(delay)
            continue
        try:
            return json.loads(raw)
        except ValueError:
            snippet = raw[:ERROR_BODY_CHARS].decode("utf-8", "replace")
            raise endpoint.error(
                f"{endpoint.where} answered with something that is not JSON ({snippet!r}); "
                f"{endpoint.not_json_hint}"
            ) from None
    raise AssertionError("unreachable")  # the last attempt returns or raises


class _Retryable(Exception):
    """A failure worth another attempt; carries the error to raise when attempts run out."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _with_hint(text: str, hint: str) -> str:
    return f"{text}; {hint}" if hint else text


def _send(endpoint: JsonEndpoint, body: bytes) -> bytes:
    """One request. Raises the endpoint's error, or ``_Retryable`` wrapping one for conditions
    that may pass (an overload status, a dropped connection)."""
    where, error = endpoint.where, endpoint.error
    request = urllib.request.Request(
        endpoint.url, data=body, headers=dict(endpoint.headers), method="POST"
    )
    timed_out = error(
        _with_hint(f"{where} did not answer within {endpoint.timeout:g} s", endpoint.timeout_hint)
    )
    try:
        with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
            raw: bytes = response.read()
            return raw
    except urllib.error.HTTPError as exc:
        message = endpoint.words(exc.read())
        hint = endpoint.status_hint(exc.code, message)
        failed = error(f"{where} answered HTTP {exc.code}: {message}; {hint}")
        if exc.code in RETRY_STATUSES:
            raise _Retryable(failed) from None
        raise failed from None
    except TimeoutError:
        raise timed_out from None
    except (urllib.error.URLError, ConnectionError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise timed_out from None
        failed = error(f"cannot reach the {where} ({reason}); {endpoint.unreachable_hint}")
        if isinstance(reason, ConnectionResetError):  # includes RemoteDisconnected
            raise _Retryable(failed) from None
        raise failed from None
    except http.client.HTTPException as exc:  # a reply cut short, or not HTTP at all
        raise error(
            _with_hint(
                f"{where} sent a broken HTTP reply ({type(exc).__name__})", endpoint.broken_hint
            )
        ) from None
