"""Secret redaction: the storage layer applies it to every text it stores
(``memlode.storage.scrub``), and context injection applies it again to stored text before it
reaches an assistant (rows written by older versions, rules added since).

What goes, replaced by ``[redacted:kind]``:

- ``<private>...</private>`` regions (an unclosed ``<private>`` drops the rest of the text);
- credentials known by their shape (PEM private keys, vendor tokens, JWTs: _tokens.py);
- credentials known by where they stand (URL passwords, HTTP authorization and cookies,
  command lines, SQL, .netrc, .pgpass: _context.py);
- the value of any secret's name in any notation (``NAME=value``, ``name: value``,
  ``"name": "value"``, ``<name>value</name>``, ``--name value``: _assign.py, _names.py).

A value named by its key (password, passwd, pwd, secret, token, api_key, access_key,
client_secret, private_key, auth_token, …) goes whatever its entropy: ``password: sunflower`` in
YAML, TOML, INI, ``.env``, JSON and properties, and code defaults (``def f(password="x")``,
``PASSWORD: str = "x"``, ``{password: "x"}``, ``Config{Password: "x"}``). So do custom auth
headers (``X-Api-Key: x`` raw, in ``curl -H``/``--header`` and in a quoted header string; a
dashed name is never a variable, so its bare value is the secret), a session cookie's value of
any length from 3 characters (``sid=abc``; other cookies from 6: ``theme=dark`` stays), and a
URL's password of any length (``postgresql://user:pw@host``).

What stays, decided on purpose (``secrets_corpus.json``, class ``lookalike``):

- names whose last word is not a secret's: ``password_hash_algorithm``, ``password_min_length``,
  ``token_count``, ``max_tokens``, ``secret_santa.py``, ``password_file``, ``secret_name``
  (a key ending in a value word keeps its secret: ``password_hash``, ``token_value``);
- placeholders and references: ``${DB_PASSWORD}``, ``{{ secrets.X }}``, ``<your password>``,
  ``changeme``, ``********``, ``os.environ[...]``, a variable in code, a type
  (``password: str = None``), a path (``/run/secrets/x``, ``C:/Users``: the shell's ``PWD``);
- values under 3 characters (``password: ""``, ``token: x``), except in a URL;
- a short lower-case word quoted after a name in running prose (``that token: "cat"``), unless
  the name opens a line or a field of a literal or a call.

Pure standard library, import-light: hooks import it on every event. A pattern is compiled only
when a cheap probe says the text may hold its match, so most texts never import ``re``. Every
pattern runs in linear time (see _rules.py); ``redact`` is idempotent.
``tests/e2e/safety/secrets_corpus.json`` holds the planted secrets and look-alikes it is measured
on.
"""

from __future__ import annotations

from memlode.redact._assign import find_assignments
from memlode.redact._context import CONTEXT_RULES
from memlode.redact._names import LITERAL, PRIVATE_MARK, WEAK, keep_value, looks_random
from memlode.redact._names import secret_name as _secret_name
from memlode.redact._rules import Rule, has_lower, mark
from memlode.redact._tokens import PEM_RULES, TOKEN_RULES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "PRIVATE_MARK",
    "RULES",
    "redact",
    "redact_many",
    "redact_mapping",
    "redact_value",
    "strip_private",
]

_PRIVATE = Rule(
    "private",
    r"(?i)<private>.*?(?:</private>|\Z)",
    has_lower("<private>"),
    action=lambda match: PRIVATE_MARK,
)
# Order matters only for readability of the markers: a PEM block goes whole before any rule
# could take a piece of it, vendor tokens before the names they are assigned to.
RULES: tuple[Rule, ...] = (_PRIVATE, *PEM_RULES, *TOKEN_RULES, *CONTEXT_RULES)
# Which rules each needle (lower case) may set off: one pass of ``in`` over the needles finds
# the few rules worth a closer look; most texts hold none of them.
_by_needle: dict[str, list[int]] = {}
for _i, _rule in enumerate(RULES):
    for _needle in _rule.probe.needles:
        _by_needle.setdefault(_needle, []).append(_i)
_NEEDLES: tuple[tuple[str, tuple[int, ...]], ...] = tuple(
    (needle, tuple(rules)) for needle, rules in _by_needle.items()
)
del _by_needle, _i, _rule, _needle
# A pass can expose a match to an earlier rule (rarely); passes repeat until nothing changes.
_MAX_PASSES = 4
_SECRET_MARK = mark("secret")


def _lower(text: str) -> str:
    """``text.lower()`` with every index kept (a few characters lower to two, such as "İ")."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return lowered


# Texts looked at together by ``redact_many``: a needle absent from their joined text is
# absent from each (measured on the stdlib's 29k signatures and docstrings, 70 characters on
# average: 0.43 s for the needle loop one text at a time, 0.23 s in batches of 32 to 256).
_BATCH = 64
_JOIN = "\x00"  # in no needle, so a needle never straddles two texts unseen
Needles = tuple[tuple[str, tuple[int, ...]], ...]


def _candidates(lowered: str, needles: Needles = _NEEDLES) -> list[Rule]:
    """The rules one of whose needles ``lowered`` holds, in order."""
    hit: set[int] = set()
    for needle, rules in needles:
        if needle in lowered:
            hit.update(rules)
    return [RULES[i] for i in sorted(hit)]


def _one_pass(text: str, lowered: str | None = None, needles: Needles = _NEEDLES) -> str:
    """One pass of every rule. ``lowered`` is ``_lower(text)`` when the caller has it;
    ``needles`` may leave out needles known not to occur in ``text``."""
    out = text
    if lowered is None:
        lowered = _lower(out)
    for rule in _candidates(lowered, needles):
        changed = rule.apply(out, lowered)
        if changed is not out:
            out = changed
            lowered = _lower(out)
    spans = find_assignments(out, lowered)
    if not spans:
        return out
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces.append(out[last:start])
        pieces.append(_SECRET_MARK)
        last = end
    pieces.append(out[last:])
    return "".join(pieces)


def strip_private(text: str) -> str:
    """Remove ``<private>...</private>`` regions (an unclosed tag runs to the end)."""
    lowered = _lower(text)
    return _PRIVATE.apply(text, lowered) if _PRIVATE.probe(text, lowered) else text


def redact(text: str) -> str:
    """``text`` with private regions removed and secrets replaced by markers."""
    if not text:
        return text
    return _passes(text, _one_pass(text))


def _passes(text: str, first: str) -> str:
    """Passes after the first (``first`` is its result) until nothing changes."""
    out = text
    again = first
    for _ in range(_MAX_PASSES - 1):
        if again == out:
            return out
        out = again
        again = _one_pass(out)
    return again


def redact_many(texts: Sequence[str]) -> list[str]:
    """``[redact(t) for t in texts]``, cheaper for many short texts (a project's signatures
    and docstrings): each needle is looked for once in a batch of texts joined, then only the
    needles found are looked for in each text of the batch; a repeated text is redacted once."""
    out: list[str] = []
    done: dict[str, str] = {}
    for start in range(0, len(texts), _BATCH):
        batch = texts[start : start + _BATCH]
        lowered = [_lower(text) for text in batch]
        joined = _JOIN.join(lowered)
        found = tuple(item for item in _NEEDLES if item[0] in joined)
        for text, low in zip(batch, lowered, strict=True):
            result = done.get(text)
            if result is None:
                result = _passes(text, _one_pass(text, low, found)) if text else text
                done[text] = result
            out.append(result)
    return out


def _secret_string(value: str, strength: int) -> str:
    """A string stored under a secret's name ({"password": "..."}): the whole of it goes."""
    out = redact(value)
    if out.startswith("[redacted:") or keep_value(out, context=LITERAL):
        return out
    if strength == WEAK and not looks_random(out):
        return out
    return _SECRET_MARK


def _key(key: object) -> tuple[str, int]:
    """A JSON key redacted, and how surely it names a secret. The strength is judged on the
    redacted key without its markers, so that redacting twice judges the same words."""
    text = redact(str(key))
    words = text
    while "[redacted:" in words:
        start = words.index("[redacted:")
        end = words.find("]", start)
        words = words[:start] + " " + (words[end + 1 :] if end >= 0 else "")
    return text, _secret_name(words)


def _object(value: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in value.items():
        key, strength = _key(k)
        out[key] = _value(v, strength)
    return out


def _value(value: object, strength: int) -> object:
    if isinstance(value, str):
        return _secret_string(value, strength) if strength else redact(value)
    if isinstance(value, dict):
        return _object(value)
    if isinstance(value, list | tuple):
        out: list[object] = []
        flag = 0  # the previous item was a secret's flag: ["--password", "x"]
        for item in value:
            out.append(_value(item, strength or flag))
            flag = (
                _secret_name(item)
                if isinstance(item, str) and item.startswith("-") and "=" not in item
                else 0
            )
        return out
    return value


def redact_value(value: object) -> object:
    """Redact every string inside a JSON-like value (dicts, lists); a string stored under a
    secret's name (``{"password": "x"}``) goes whole; other values pass through."""
    return _value(value, 0)


def redact_mapping(value: Mapping[str, Any]) -> dict[str, Any]:
    """``redact_value`` for a JSON object (a memory's or a session's metadata)."""
    return _object(value)
