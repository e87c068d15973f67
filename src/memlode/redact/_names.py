"""Secret names and literal values: the judgement behind ``NAME=value`` redaction.

``secret_name`` says whether a name (``DB_PASSWORD``, ``clientSecret``, ``secret_key_base``,
``x-api-key``, ``_authToken``) holds a secret; ``keep_value`` says whether the value written after
it is plainly not one (a type, a placeholder, a template, a reference to a variable, a path).
Both are plain string work, without ``re``: hooks import this on every captured text.
"""

from __future__ import annotations

__all__ = [
    "CODE",
    "LITERAL",
    "SHELL",
    "STRONG",
    "WEAK",
    "is_marker",
    "keep_value",
    "looks_random",
    "secret_name",
    "segments",
]

# How sure a name is: a WEAK name (OPENAI_KEY, DD_KEY) holds a secret only when the value looks
# random; a STRONG one (password, api_key, client_secret) whatever its value.
WEAK = 1
STRONG = 2

# A name whose last word is one of these holds a secret: db_password, GITHUB_TOKEN, basic_auth.
_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "pass",
        "pwd",
        "secret",
        "token",
        "credential",
        "credentials",
        "auth",
        "apikey",
    }
)
# The word before "key" that makes a key a secret: api_key, secret_key, APP_KEY (Laravel),
# AccountKey (Azure), client-key-data (kubeconfig). sort_key, primary_key, public_key are not.
_KEY_QUALIFIERS = frozenset(
    {
        "api",
        "secret",
        "private",
        "access",
        "session",
        "signing",
        "sign",
        "encryption",
        "encrypt",
        "decryption",
        "master",
        "client",
        "app",
        "application",
        "auth",
        "account",
        "storage",
        "service",
        "shared",
        "consumer",
        "webhook",
        "license",
        "deploy",
        "admin",
        "root",
        "hmac",
        "jwt",
        "otp",
        "totp",
        "mfa",
        "subscription",
        "nonce",
        "security",
        "crypto",
        "cipher",
        "aes",
        "integration",
        "merchant",
        "server",
        "ingest",
        "write",
    }
)
# Qualifiers that say a key is an identifier, not a credential: no redaction even when the
# value looks random (a cache key of hex digits, a public key).
_PLAIN_KEY_QUALIFIERS = frozenset(
    {
        "public",
        "pub",
        "publishable",
        "primary",
        "foreign",
        "sort",
        "partition",
        "cache",
        "lookup",
        "hash",
        "idempotency",
        "cursor",
        "row",
        "object",
        "dict",
        "map",
        "unique",
        "composite",
        "range",
        "shard",
        "routing",
        "s3",
        "file",
        "bucket",
        "index",
        "group",
        "order",
        "translation",
        "i18n",
        "message",
        "metric",
        "label",
        "tag",
        "name",
        "field",
        "column",
        "table",
        "config",
        "setting",
        "registry",
        "redis",
        "react",
        "query",
        "hot",
        "short",
        "shortcut",
        "dedup",
        "lock",
        "api_version",
        "ssh",
        "gpg",
        "pgp",
        "host",
        "known",
    }
)
# A last word that keeps the secret of the words before it: secret_key_base (Rails),
# client-key-data (kubeconfig), PASSWORD_SALT, token_value, password_confirmation.
_VALUE_SUFFIXES = frozenset(
    {
        "base",
        "value",
        "b64",
        "base64",
        "hex",
        "raw",
        "plain",
        "plaintext",
        "data",
        "hash",
        "salt",
        "pem",
        "der",
        "bytes",
        "str",
        "string",
        "enc",
        "encoded",
        "text",
        "new",
        "old",
        "confirmation",
        "confirm",
        "again",
        "current",
    }
)
# Single words that end in a secret word: PGPASSWORD, csrftoken, clientsecret.
_FUSED_ENDINGS = ("password", "passwd", "passphrase", "secret", "token")
# Whole names that are never secrets although they end in one: the shell's previous directory.
# (``PWD`` is a secret's name, ODBC's ``Pwd=``; the shell's ``PWD=/home/x`` is a path, kept.)
_NOT_SECRET_NAMES = frozenset({"oldpwd"})
# Whole names that end in "pass", which alone is too common an ending (bypass, compass).
_FUSED_NAMES = frozenset({"sshpass", "pgpass", "smbpass", "ldappass"})

# Values that are plainly not secrets: types, null words, booleans, placeholders, auth schemes.
_PLAIN_VALUES = frozenset(
    {
        "str",
        "string",
        "int",
        "integer",
        "bytes",
        "bool",
        "boolean",
        "float",
        "number",
        "object",
        "any",
        "unknown",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "undefined",
        "required",
        "optional",
        "changeme",
        "example",
        "placeholder",
        "redacted",
        "hidden",
        "masked",
        "secret",
        "password",
        "token",
        "include",
        "omit",
        "same-origin",
        "basic",
        "bearer",
        "digest",
        "oauth",
        "oauth2",
        "jwt",
        "ntlm",
        "kerberos",
        "negotiate",
        "saml",
        "oidc",
        "apikey",
        "api_key",
        "disabled",
        "enabled",
        "inherit",
        "env",
        "environment",
        "default",
        "auto",
        "stdin",
        "prompt",
        "keyring",
        "vault",
        "todo",
        "tbd",
        "n/a",
        "empty",
        "blank",
        "lambda",
    }
)
_PLACEHOLDER_PREFIXES = ("your", "<", "xxx", "***", "changeme", "placeholder", "example_")
# Words that make an identifier read as a reference to a secret (api_key = api_key), not one.
_REFERENCE_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_IDENT = _LETTERS | _DIGITS | {"_", "$"}
_TOKENISH = _LETTERS | _DIGITS | frozenset("_-+/=.~")

MARK_PREFIX = "[redacted:"
PRIVATE_MARK = "[private]"

_cache: dict[str, int] = {}
_CACHE_LIMIT = 4096  # distinct names remembered per process
_CACHED_NAME_CHARS = 64


def segments(name: str) -> list[str]:
    """The lower-cased words of a name: snake, kebab, dotted and camel case alike (``APIKey`` ->
    api, key; ``secretKeyBase`` -> secret, key, base; ``PGPASSWORD`` -> pgpassword)."""
    out: list[str] = []
    word: list[str] = []
    n = len(name)
    for i, ch in enumerate(name):
        if not ch.isalnum():
            if word:
                out.append("".join(word).lower())
                word = []
            continue
        if word and ch.isupper():
            prev = word[-1]
            nxt = name[i + 1] if i + 1 < n else ""
            if prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower()):
                out.append("".join(word).lower())
                word = []
        word.append(ch)
    if word:
        out.append("".join(word).lower())
    return out


def _word(seg: str) -> str:
    """A segment without trailing digits (password2 -> password)."""
    return seg.rstrip("0123456789") or seg


def _strength(words: list[str]) -> int:
    if not words:
        return 0
    last = _word(words[-1])
    if len(words) == 1 and last in _NOT_SECRET_NAMES:
        return 0
    if last in _SECRET_WORDS or (len(words) == 1 and last in _FUSED_NAMES):
        return STRONG
    if last == "key" and len(words) >= 2:
        before = _word(words[-2])
        if before in _KEY_QUALIFIERS:
            return STRONG
        if before in _PLAIN_KEY_QUALIFIERS:
            return 0
        return WEAK
    for ending in _FUSED_ENDINGS:
        if last.endswith(ending) and len(last) > len(ending):
            return STRONG
    if last.endswith("key") and last[:-3] in _KEY_QUALIFIERS:
        return STRONG
    if last in _VALUE_SUFFIXES and len(words) >= 2:
        return _strength(words[:-1])
    return 0


def secret_name(name: str) -> int:
    """0 (not a secret's name), ``WEAK`` or ``STRONG``."""
    cached = _cache.get(name)
    if cached is not None:
        return cached
    strength = _strength(segments(name))
    if len(name) <= _CACHED_NAME_CHARS:
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[name] = strength
    return strength


def is_marker(value: str) -> bool:
    """A redaction marker (``[redacted:kind]`` or ``[private]``): redacting again keeps it."""
    if value == PRIVATE_MARK:
        return True
    return (
        value.startswith(MARK_PREFIX)
        and value.endswith("]")
        and value[len(MARK_PREFIX) : -1].replace("_", "").isalpha()
    )


def _is_identifier_path(value: str) -> bool:
    """``name``, ``self.api_key``, ``process.env.TOKEN``, ``@password``, ``$secret``."""
    body = value[1:] if value[:1] in "@$" else value
    if not body:
        return False
    for part in body.split("."):
        if not part or part[0] in _DIGITS or not all(c in _IDENT for c in part):
            return False
    return True


def looks_random(value: str) -> bool:
    """A credential-like token: long, letters and digits mixed, no spaces, dots or slashes first."""
    if len(value) < 16 or value[0] == "/" or "." in value:
        return False
    if not all(c in _TOKENISH for c in value):
        return False
    return any(c in _DIGITS for c in value) and any(c in _LETTERS for c in value)


CODE = "code"  # x = y in a program: a bare identifier is a variable
LITERAL = "literal"  # YAML, INI, quoted strings, flags: a bare identifier is text
SHELL = "shell"  # NAME=value in a shell or an env file: everything but $VAR is text


def keep_value(value: str, *, context: str, names: str = "") -> bool:
    """True when ``value`` (written after a secret's name) is plainly not a secret.

    ``context`` is ``CODE``, ``LITERAL`` or ``SHELL`` (see above): it decides whether a bare
    identifier is a reference or the secret itself. ``names`` is the name the value was
    written after; a value that merely repeats it is a label ("password": "Password").
    """
    if len(value) < 3 or is_marker(value):
        return True
    low = value.lower()
    if low in _PLAIN_VALUES or low.startswith(_PLACEHOLDER_PREFIXES):
        return True
    first = value[0]
    if first in "${%<!" or (first in "&*" and _is_identifier_path(value[1:])):
        return True  # a variable, a template, a placeholder, a YAML tag, anchor or alias
    if value.startswith(("/", "./", "../", "~/")) or (
        value[0].isalpha() and value[1:3] in (":\\", ":/")
    ):
        return True  # a path to the secret, not the secret (C:\Users\dev)
    if value.isdigit() and len(value) < 6:
        return True
    if set(value) <= {"*", "x", "X", ".", "\u2026", "-"}:
        return True
    if names and low.strip(":") in (names.lower(), names.lower().lstrip("_-")):
        return True  # "password": "Password" is a label
    # password = hunter names a variable in code; api_key = api_key does in any file
    return (
        context != SHELL
        and _is_identifier_path(value)
        and (context == CODE or any(w in low for w in _REFERENCE_WORDS))
    )
