"""``NAME=value`` in every notation, found without regular expressions.

Env files and shell (``export DB_PASSWORD=x``, ``PGPASSWORD=x psql``), YAML (``password: x``),
JSON (``"api_key": "x"``), TOML and INI (``token = "x"``), code (``SECRET_KEY = 'x'``,
``password: str = "x"``, ``'password' => 'x'``, ``config['SECRET_KEY'] = 'x'``), XML
(``<password>x</password>``), calls (``define('AUTH_KEY', 'x')``), argument lists
(``["--password", "x"]``) and flags (``--token x``, ``-storepass x``).

The scan looks up each place where a stem of a secret word occurs (pass, pwd, secret, token, key,
cred, auth, sig, salt), takes the whole name around it, asks ``secret_name`` whether it holds a
secret, and if so reads the value after the operator and asks ``keep_value`` whether to keep it.

Linear in the length of the text: each name is read once (later stems inside it are skipped),
the value after a name is read by that name only, and no value read is longer than
``_MAX_JUDGED`` characters before it is either replaced whole (and skipped) or kept.
"""

from __future__ import annotations

from memlode.redact._names import (
    CODE,
    LITERAL,
    MARK_PREFIX,
    SHELL,
    STRONG,
    WEAK,
    keep_value,
    looks_random,
    secret_name,
    segments,
)

__all__ = ["find_assignments"]

_STEMS = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "sig", "salt")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_BLANKS = " \t"
# Where a bare value ends: whitespace, quotes, and the separators of lists and statements.
_BARE_STOP = frozenset(" \t\r\n\f\v\"'`,;")
# In a URL's query (?api_key=x&format=json) a value also ends at "&" or "#".
_QUERY_STOP = _BARE_STOP | {"&", "#"}
_OPENERS = {")": "(", "]": "[", "}": "{", ">": "<"}
# A quoted value after an unquoted name in running text ('token: "cat"') shorter than this and
# made of lower-case letters only is prose, not a credential.
_MIN_QUOTED_CREDENTIAL = 8
# A bare value is judged on at most this many characters; a longer one is a blob and goes whole.
_MAX_JUDGED = 4096
# An annotation between a name and its "=" (password: Optional[str] = "x") is at most this long.
_MAX_ANNOTATION = 80
# Names of calls whose first argument names a WordPress-style constant: define('AUTH_SALT', 'x').
_DEFINE_CALLS = frozenset({"define", "const_set", "putenv", "setenv", "setdefault"})
_DEFINE_WORDS = frozenset({"key", "salt"})
# Flags whose argument is an HTTP header (curl, wget, httpie's --header, xh).
_HEADER_FLAGS = ("-H", "--header")

Span = tuple[int, int]


def _stem_hits(lowered: str) -> list[int]:
    hits: list[int] = []
    for stem in _STEMS:
        i = lowered.find(stem)
        while i >= 0:
            hits.append(i)
            i = lowered.find(stem, i + 1)
    hits.sort()
    return hits


def find_assignments(text: str, lowered: str) -> list[Span]:
    """Spans of ``text`` holding the values of secret names, in order, not overlapping."""
    spans: list[Span] = []
    n = len(text)
    done = 0  # everything before this index has been read
    for hit in _stem_hits(lowered):
        if hit < done:
            continue
        start = hit
        while start > done and text[start - 1] in _NAME_CHARS:
            start -= 1
        end = hit
        while end < n and text[end] in _NAME_CHARS:
            end += 1
        done = end
        name = text[start:end]
        strength = secret_name(name)
        if not strength:
            strength = _other_strength(text, start, end, name)
        if not strength:
            continue
        span = _value_after(text, start, end, name, strength)
        if span is not None:
            spans.append(span)
            done = max(done, span[1])
    return spans


def _other_strength(text: str, start: int, end: int, name: str) -> int:
    """Names that hold a secret only where they stand: a flag ending in "pass" (keytool's
    ``-storepass``), a WordPress-style constant in ``define('LOGGED_IN_SALT', ...)``, ``sig`` in
    a URL's query (an Azure SAS signature; elsewhere "sig" is a signal or a signature)."""
    if name.lower() == "sig":
        return STRONG if start > 0 and text[start - 1] in "?&" else 0
    if name.startswith("-"):
        words = segments(name)
        return STRONG if words and words[-1].endswith("pass") else 0
    return STRONG if _is_define_pair(text, start, end, name) else 0


def _skip_blanks(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _BLANKS:
        i += 1
    return i


def _line_start(text: str, start: int) -> bool:
    """Only blanks, ``export`` or a YAML list dash between the line's start and ``start``."""
    i = start
    while i > 0 and text[i - 1] in _BLANKS:
        i -= 1
    if text.endswith("export", 0, i):
        i -= len("export")
        while i > 0 and text[i - 1] in _BLANKS:
            i -= 1
    elif i > 0 and text[i - 1] == "-":
        i -= 1
        while i > 0 and text[i - 1] in _BLANKS:
            i -= 1
    return i == 0 or text[i - 1] in "\r\n"


def _closing(text: str, start: int, quote: str, *, escapes: bool) -> int:
    """Where the string opened before ``start`` closes on its line; the line's end if it
    does not (an unterminated value runs to the end of the line)."""
    n = len(text)
    i = start
    while True:
        close = text.find(quote, i)
        newline = text.find("\n", i, close if close >= 0 else n)
        if newline >= 0:
            return newline
        if close < 0:
            return n
        if escapes:
            slashes = 0
            while close - slashes - 1 >= start and text[close - slashes - 1] == "\\":
                slashes += 1
            if slashes % 2:
                i = close + 1
                continue
        return close


def _quoted(text: str, k: int) -> tuple[int, int] | None:
    """The span of the string that starts at ``k`` (``"x"``, ``'x'``, ```x```, ``\\"x\\"``, with
    an optional ``b``/``r``/``u``/``f`` prefix); None when no string starts there."""
    n = len(text)
    prefix = 0
    while prefix < 2 and k + prefix < n and text[k + prefix] in "bBrRuUfF":
        prefix += 1
    i = k + prefix
    if i >= n:
        return None
    if text[i] == "\\" and i + 1 < n and text[i + 1] in "\"'":
        vs = i + 2
        return vs, _closing(text, vs, "\\" + text[i + 1], escapes=False)
    if text[i] in "\"'`" and (prefix == 0 or text[k] in "bBrRuUfF"):
        vs = i + 1
        return vs, _closing(text, vs, text[i], escapes=True)
    return None


def _strip_closers(value: str) -> str:
    """Drop trailing brackets the value never opened, and a sentence's full stop."""
    while value:
        last = value[-1]
        opener = _OPENERS.get(last)
        if (opener is not None and value.count(last) > value.count(opener)) or last in ".:":
            value = value[:-1]
        else:
            break
    return value


def _is_call_prefix(value: str) -> bool:
    """``get_password(``, ``os.environ[``: an identifier path opening a call or a subscript."""
    cut = min((i for i in (value.find("("), value.find("[")) if i >= 0), default=-1)
    if cut < 0:
        return False
    head = value[:cut]
    if cut == 0:
        return True  # a tuple or a list: a structure, not a secret
    parts = head.lstrip("@$").split(".")
    return all(p and not p[0].isdigit() and all(c in _IDENT_CHARS for c in p) for p in parts)


def _call_before(text: str, start: int) -> str | None:
    """The name of the call whose first argument is the string opening just before ``start``."""
    i = start - 1  # the opening quote
    if i < 0 or text[i] not in "\"'":
        return None
    i -= 1
    while i >= 0 and text[i] in _BLANKS:
        i -= 1
    if i < 0 or text[i] != "(":
        return None
    end = i
    while i > 0 and end - i < 40 and text[i - 1] in _IDENT_CHARS:
        i -= 1
    return text[i:end] if i < end else None


def _is_define_pair(text: str, start: int, end: int, name: str) -> bool:
    """define('LOGGED_IN_SALT', '...'): constants whose last word is key or salt."""
    words = segments(name)
    if not words or words[-1] not in _DEFINE_WORDS:
        return False
    call = _call_before(text, start)
    return call is not None and call.lower() in _DEFINE_CALLS


def _judge(value: str, strength: int, context: str, name: str) -> bool:
    """True when ``value`` must go."""
    if value.startswith(MARK_PREFIX):
        return False  # already replaced by a token rule
    if keep_value(value, context=context, names=name):
        return False
    return strength == STRONG or (strength == WEAK and looks_random(value))


def _value_after(text: str, start: int, end: int, name: str, strength: int) -> Span | None:
    n = len(text)
    i = end
    quoted_name = False
    if text.startswith(('\\"', "\\'"), i):
        i += 2
        quoted_name = True
    elif i < n and text[i] in "\"'`":
        i += 1
        quoted_name = True
    if i < n and text[i] == "]":
        i += 1
    j = _skip_blanks(text, i)
    if j >= n:
        return None
    c = text[j]
    if c == ">" and j == end and start > 0 and text[start - 1] == "<":
        return _xml_value(text, start, end, name, strength)
    if c == "," and quoted_name:
        return _pair_value(text, start, j, name, strength)
    if c not in "=:":
        if name.startswith("-") and j > i and not quoted_name:
            return _flag_value(text, j, name, strength)
        return None
    if text.startswith(("==", "::"), j):
        return None
    op = "=>" if text.startswith("=>", j) else ":=" if text.startswith(":=", j) else c
    op_end = j + len(op)
    k = _skip_blanks(text, op_end)
    if k >= n:
        return None
    tight = j == i and k == op_end
    if op == ":":
        after = _annotation_end(text, k)
        if after is not None:
            op, tight = "=", False
            k = _skip_blanks(text, after)
            if k >= n:
                return None
    span = _quoted(text, k)
    if span is not None:
        vs, ve = span
        value = text[vs:ve]
        if text[k] in "fF" and "{" in value:
            return None  # an f-string: a template
        if op == ":" and not quoted_name and _word(value) and not _field_start(text, start):
            return None  # prose: 'the state of that token: "cat"'
        return (vs, ve) if _judge(value, strength, LITERAL, name) else None
    if text[k] in "\r\n":
        return None
    stop = _QUERY_STOP if start > 0 and text[start - 1] in "?&" else _BARE_STOP
    ve = _bare_end(text, k, stop)
    if ve - k >= _MAX_JUDGED:  # a blob: take it whole
        while ve < n and text[ve] not in stop:
            ve += 1
        return k, ve
    value = text[k:ve]
    if _is_call_prefix(value):
        return None
    value = _strip_closers(value)
    if not value:
        return None
    ve = k + len(value)
    line_start = _line_start(text, start)
    context = CODE
    if op == "=" and tight and not _is_keyword_argument(text, start):
        context = SHELL
    elif line_start and op in ":=":
        rest = _skip_blanks(text, ve)
        if rest >= n or text[rest] in "\r\n#":
            context = LITERAL
        elif op == ":" and text[ve : ve + 1] in _BLANKS:  # YAML: the rest of the line
            context = LITERAL
            ve = _line_value_end(text, ve)
            value = text[k:ve]
    elif op == ":" and not quoted_name and _header_like(text, start, ve, name):
        context = LITERAL  # 'X-Api-Key: v' in curl -H, a header list, a dashed name in prose
    if op == "=>" and context != LITERAL:
        context = CODE
    return (k, ve) if _judge(value, strength, context, name) else None


def _header_like(text: str, start: int, ve: int, name: str) -> bool:
    """``name: value`` written as an HTTP header, where a bare word is the value itself, not a
    variable: a dashed name (``X-Api-Key``: no program names a variable so), a string that holds
    just the header (``'apikey: v'``), or the argument of ``-H``/``--header``."""
    if "-" in name.strip("-") and name[0].isalpha():
        return True
    i = start
    quote = text[i - 1] if i > 0 and text[i - 1] in "\"'" else ""
    if quote:
        if text[ve : ve + 1] == quote:
            return True
        i -= 1
    while i > 0 and text[i - 1] in "= \t":
        i -= 1
    for flag in _HEADER_FLAGS:
        j = i - len(flag)
        if text.startswith(flag, j) and (j == 0 or text[j - 1] in " \t\n"):
            return True
    return False


def _word(value: str) -> bool:
    """A short lower-case word, as prose quotes one ("cat"); no credential looks like that."""
    return len(value) < _MIN_QUOTED_CREDENTIAL and value.isalpha() and value.islower()


def _bare_end(text: str, k: int, stop: frozenset[str]) -> int:
    """Where a bare value starting at ``k`` ends: at a stop character, or at a bracket it did
    not open (``f(password=pw)``, ``{token: t}``); at most ``_MAX_JUDGED`` characters on."""
    n = len(text)
    limit = min(n, k + _MAX_JUDGED)
    depth = 0
    i = k
    while i < limit:
        c = text[i]
        if c in stop:
            break
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        i += 1
    return i


def _line_value_end(text: str, i: int) -> int:
    """The end of a YAML value: the end of the line, before a ``#`` comment and trailing blanks."""
    end = text.find("\n", i)
    if end < 0:
        end = len(text)
    comment = text.find(" #", i, end)
    if comment >= 0:
        end = comment
    while end > i and text[end - 1] in " \t\r":
        end -= 1
    return end


def _field_start(text: str, start: int) -> bool:
    """The name starts a line, or a field of a literal or a call (``{password: "x"``,
    ``Config{Password: "x"``, ``new(api_key: "x"``): code, where a word in quotes is a value."""
    return _line_start(text, start) or _is_keyword_argument(text, start, "({,")


def _is_keyword_argument(text: str, start: int, openers: str = "(,") -> bool:
    """``f(a, password=pw)``: the name follows ``(`` or ``,`` (maybe on the line before)."""
    i = start
    while i > 0 and text[i - 1] in " \t\r\n":
        i -= 1
    return i > 0 and text[i - 1] in openers


def _annotation_end(text: str, k: int) -> int | None:
    """After ``name:``, a type annotation then ``=`` (``password: str | None = "x"``): the index
    after that ``=``; None when what follows the colon is the value itself."""
    n = len(text)
    if k >= n or not (text[k].isalpha() or text[k] == "_"):
        return None
    i = k
    limit = min(n, k + _MAX_ANNOTATION)
    while i < limit and (text[i] in _IDENT_CHARS or text[i] in ".[]|, \t"):
        i += 1
    if i < n and text[i] == "=" and not text.startswith("==", i):
        return i + 1
    return None


def _xml_value(text: str, start: int, end: int, name: str, strength: int) -> Span | None:
    """``<password>x</password>``."""
    vs = end + 1
    close = text.find("<", vs)
    if close < 0 or not text.startswith("</" + name + ">", close):
        return None
    value = text[vs:close]
    if "\n" in value:
        return None
    return (vs, close) if _judge(value.strip(), strength, LITERAL, name) else None


def _pair_value(text: str, start: int, comma: int, name: str, strength: int) -> Span | None:
    """``define('DB_PASSWORD', 'x')``, ``setdefault("SECRET_KEY", "x")``, ``["--token", "x"]``:
    a string naming a secret, a comma, the secret, as a call's first arguments or an argv."""
    if not name.startswith("-") and _call_before(text, start) is None:
        return None  # ("username", "password", "email") lists names, it sets nothing
    span = _quoted(text, _skip_blanks(text, comma + 1))
    if span is None:
        return None
    value = text[span[0] : span[1]]
    return span if _judge(value, strength, LITERAL, name) else None


def _flag_value(text: str, k: int, name: str, strength: int) -> Span | None:
    """``--password hunter2``, ``-storepass changeit``: the next word, unless it is a flag."""
    span = _quoted(text, k)
    if span is None:
        ve = k
        n = len(text)
        while ve < n and not text[ve].isspace():
            ve += 1
        span = (k, ve)
    value = text[span[0] : span[1]]
    if not value or value.startswith("-"):
        return None
    return span if _judge(value, strength, LITERAL, name) else None
