"""Secret redaction: applied to every captured text before it is stored, and again before any
stored text is injected back into an assistant's context.

Captures have stored live credentials in other tools, and recalled text is spliced straight into
a model's context, so memlode redacts on write *and* on recall. ``<private>...</private>``
regions are dropped entirely (an unclosed ``<private>`` drops the rest of the text).

L0: stdlib only, patterns compiled once at import (hooks import this on every event).
Each pattern is anchored on a distinctive prefix or a secret-looking name so that ordinary
prose and code are left alone; ``tests/hooks/test_redact.py`` holds the planted set.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

__all__ = ["PRIVATE_MARK", "redact", "redact_value", "strip_private"]

PRIVATE_MARK = "[private]"


def _mark(kind: str) -> str:
    return f"[redacted:{kind}]"


class _Rule:
    """A pattern compiled on first use, tried only when one of its trigger strings occurs.

    Compiling every pattern up front would cost a hook several milliseconds per event; most
    texts contain none of the triggers, so most patterns are never compiled at all.
    """

    __slots__ = ("_compiled", "flags", "kind", "lower", "source", "triggers")

    def __init__(
        self, kind: str, triggers: tuple[str, ...], source: str, *, lower: bool = False
    ) -> None:
        self.kind = kind
        self.triggers = triggers
        self.lower = lower  # match triggers against the lower-cased text
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re  # here, not at import: most texts never need a pattern

            self._compiled = re.compile(self.source, re.DOTALL)
        return self._compiled

    def applies(self, text: str, lowered: str) -> bool:
        haystack = lowered if self.lower else text
        return any(t in haystack for t in self.triggers)


class _BearerRule(_Rule):
    """Triggers only where "bearer"/"token" is followed by whitespace and a long token."""

    __slots__ = ()

    def applies(self, text: str, lowered: str) -> bool:
        for trigger in self.triggers:
            start = lowered.find(trigger)
            while start >= 0:
                rest = lowered[start + len(trigger) : start + len(trigger) + 64]
                words = rest.split(None, 1)
                if rest[:1].isspace() and words and len(words[0]) >= 20:
                    return True
                start = lowered.find(trigger, start + 1)
        return False


class _AssignmentRule(_Rule):
    """Triggers only where a secret-looking name is followed by ``=`` or ``:``: after the
    trigger, the rest of the word, an optional quote, whitespace, then the operator. Every
    secret name ends in a word that holds a trigger ("api_key", "clientSecret", "credentials"),
    so this never misses a match of the pattern; prose that mentions "token" or "key" and has
    a colon somewhere later ("- token expiry: 3 days") does not compile the pattern."""

    __slots__ = ()

    def applies(self, text: str, lowered: str) -> bool:
        for trigger in self.triggers:
            start = lowered.find(trigger)
            while start >= 0:
                i = start + len(trigger)
                end = min(len(lowered), i + 64)
                while i < end and lowered[i].isalnum():
                    i += 1
                if i < end and lowered[i] in "\"'":
                    i += 1
                while i < end and lowered[i].isspace():
                    i += 1
                if i < end and lowered[i] in ":=":
                    return True
                start = lowered.find(trigger, start + 1)
        return False


_PRIVATE = _Rule("private", ("<private>",), r"(?i)<private>.*?(?:</private>|\Z)", lower=True)

# Token shapes with a distinctive prefix. (?<![A-Za-z0-9_]) keeps "task-..." from matching "sk-".
_B = r"(?<![A-Za-z0-9_])"
_AWS_PREFIXES = ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA")
_TOKENS: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        ("PRIVATE KEY",),
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    _Rule("anthropic_key", ("sk-ant-",), _B + r"sk-ant-[A-Za-z0-9_\-]{16,}"),
    _Rule("openai_key", ("sk-",), _B + r"sk-(?:proj-|svcacct-|admin-|live-)?[A-Za-z0-9_\-]{20,}"),
    _Rule(
        "github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _B + r"gh[pousr]_[A-Za-z0-9]{30,}"
    ),
    _Rule("github_token", ("github_pat_",), _B + r"github_pat_[A-Za-z0-9_]{22,}"),
    _Rule("gitlab_token", ("glpat-",), _B + r"glpat-[A-Za-z0-9_\-]{20,}"),
    _Rule(
        "aws_access_key",
        _AWS_PREFIXES,
        r"(?<![A-Z0-9])(?:" + "|".join(_AWS_PREFIXES) + r")[A-Z0-9]{16}(?![A-Z0-9])",
    ),
    _Rule("slack_token", ("xox",), _B + r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    _Rule(
        "slack_webhook",
        ("hooks.slack.com",),
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+",
    ),
    _Rule("google_api_key", ("AIza",), _B + r"AIza[0-9A-Za-z_\-]{35}"),
    _Rule("stripe_key", ("_live_", "_test_"), _B + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),
    _Rule("huggingface_token", ("hf_",), _B + r"hf_[A-Za-z0-9]{30,}"),
    _Rule("npm_token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}"),
    _Rule("pypi_token", ("pypi-",), _B + r"pypi-AgE[A-Za-z0-9_\-]{40,}"),
    _Rule("sendgrid_key", ("SG.",), _B + r"SG\.[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}"),
    _Rule("jwt", ("eyJ",), _B + r"eyJ[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]*"),
    _BearerRule(
        "bearer_token",
        ("bearer", "token"),
        r"(?i:\b(?:bearer|token)\s+)(?-i:[A-Za-z0-9._~+/\-]{20,}=*)",
        lower=True,
    ),
)

# user:password@host in any URI scheme; only the password is replaced.
_URI_PASSWORD = _Rule(
    "password", ("://",), r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s/:@'\"]*:)([^\s@/'\"]+)(@)"
)

# Names that say "this value is a secret". Matched as a whole word segment, so "tokens" or
# "password_hint" do not count but "GITHUB_TOKEN", "db-password" and "clientSecret" do.
_SECRET_NAME = (
    r"(?:[A-Za-z0-9]+[_.\-])*"
    r"(?:(?i:password|passwd|passphrase|pwd|secret|secret[_\-]?key|client[_\-]?secret|"
    r"token|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|api[_\-]?key|apikey|"
    r"access[_\-]?key|private[_\-]?key|credentials?|session[_\-]?key)|"
    r"[a-z0-9]+(?:Password|Secret|Token|ApiKey|AccessKey|SecretKey|PrivateKey))"
)
_NAME_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "cred")
# An optional type annotation between the name and "=" (password: str = "...").
_ANNOTATION = r"(?:\s*:\s*[A-Za-z_][\w\[\]., |]*?)?"
# "name": "value"  /  'name': 'value'  /  name = "value"  /  name: 'value'
_QUOTED_ASSIGNMENT = _AssignmentRule(
    "secret",
    _NAME_TRIGGERS,
    r"(?<![A-Za-z0-9_])([\"']?" + _SECRET_NAME + r"[\"']?" + _ANNOTATION + r"\s*[:=]\s*)"
    r"(?P<q>[\"'])(?P<v>[^\"'\n]{3,})(?P=q)",
    lower=True,
)
# NAME=value / name: value with a bare value (env files, shell, YAML). A value followed by
# "(", "." or "[" is an expression in code (password = get_password()), not a literal.
_BARE_ASSIGNMENT = _AssignmentRule(
    "secret",
    _NAME_TRIGGERS,
    r"(?<![A-Za-z0-9_])(" + _SECRET_NAME + r"\s*[:=]\s*)"
    r"(?P<v>[^\s\"'`,;(){}\[\]<>=][^\s\"'`,;(){}\[\]<>]{3,})(?![(.\[\w])",
    lower=True,
)
# --password hunter2 / --token=abc
_FLAG = _Rule(
    "secret",
    ("-pass", "-token", "-api", "-secret", "-client"),
    r"(?i)(--?(?:password|passwd|token|api-key|apikey|secret|client-secret)(?:=|\s+))"
    r"(?P<v>[^\s\"'-][^\s\"']{2,})",
    lower=True,
)

# Values that are plainly not secrets (type names, placeholders, references to variables).
_NOT_SECRET = _Rule(
    "",
    (),
    r"(?i)^(?:str|int|bytes|bool|none|null|nil|true|false|optional\b.*|string|number|"
    r"undefined|required|changeme|example|\*+|x+|\.\.\.|<[^>]*>|\$\{?[A-Za-z_][\w.]*\}?|"
    r"%\(?[\w]*\)?s?|\{\{.*\}\}|\[redacted:[a-z_]+\])$",
)
_REFERENCE_WORD = _Rule("", (), r"(?i)pass|secret|token|key|auth|cred")


def strip_private(text: str) -> str:
    """Remove ``<private>...</private>`` regions (an unclosed tag runs to the end)."""
    if not _PRIVATE.applies(text, text.lower()):
        return text
    return _PRIVATE.pattern.sub(PRIVATE_MARK, text)


def _is_reference(value: str) -> bool:
    """A bare identifier naming a secret (api_key = api_key) is a variable, not the secret."""
    return value.isidentifier() and _REFERENCE_WORD.pattern.search(value) is not None


def _value_sub(kind: str) -> Callable[[re.Match[str]], str]:
    def sub(match: re.Match[str]) -> str:
        value = match.group("v")
        if _NOT_SECRET.pattern.match(value) or value.isdigit() or _is_reference(value):
            return match.group(0)
        start, end = match.span("v")
        whole = match.group(0)
        offset = match.start()
        return whole[: start - offset] + _mark(kind) + whole[end - offset :]

    return sub


_secret_sub = _value_sub("secret")


def redact(text: str) -> str:
    """Return ``text`` with private regions removed and secrets replaced by markers."""
    if not text:
        return text
    out = strip_private(text)
    lowered = out.lower()
    for rule in _TOKENS:
        if rule.applies(out, lowered):
            out = rule.pattern.sub(_mark(rule.kind), out)
    if _URI_PASSWORD.applies(out, lowered) and "@" in out:
        out = _URI_PASSWORD.pattern.sub(lambda m: m.group(1) + _mark("password") + m.group(3), out)
    for rule in (_QUOTED_ASSIGNMENT, _BARE_ASSIGNMENT, _FLAG):
        if rule.applies(out, lowered):
            out = rule.pattern.sub(_secret_sub, out)
    return out


def redact_value(value: object) -> object:
    """Redact every string inside a JSON-like value (dicts, lists); other values pass through."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {str(k): redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
