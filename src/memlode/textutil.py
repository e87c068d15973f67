"""Text helpers shared by storage, search and the hooks: hashing and code-aware word splitting.

L0, import-light: the hooks use this module on every tool call, so it imports neither ``re``
(the regex compiler costs a hook process several milliseconds) nor ``hashlib`` (which loads
OpenSSL). A process that has ``re`` loaded already (every long-lived one) splits with the
regular expressions, which are faster on long texts; a hook splits with plain loops that give
the same result on any text, ASCII or not (a clipped command output ends in "…"; tested on both
paths). SHA-256 comes from the C module CPython builds in.

FTS5 (unicode61) already splits ``snake_case`` on the underscore; what it cannot do is split
``getUserName`` or ``HTTPServer``. ``identifier_parts`` produces those parts, which storage
indexes in a side column so that ``user name`` finds ``getUserName`` while the whole
identifier stays searchable too.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "STOPWORDS",
    "command_key",
    "content_hash",
    "date_words",
    "identifier_parts",
    "one_line",
    "query_terms",
    "search_terms",
    "stem",
    "words",
]

# Function words that carry no topic. Dropping them from OR-queries measurably helps BM25 on
# LoCoMo (turn recall@5 0.489 -> 0.549 in the reference runs).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t don didn doesn isn wasn weren won wouldn shouldn couldn ll re ve d m o y""".split()
)

_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(name: str) -> re.Pattern[str]:
    """The regular expressions, compiled on first use."""
    if not _PATTERNS:
        import re

        _PATTERNS["word"] = re.compile(r"\w+", re.UNICODE)
        _PATTERNS["camel"] = re.compile(
            r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+"
        )
    return _PATTERNS[name]


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
    """SHA-256 of the UTF-8 text, hex."""
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
    """The camel-case pieces of ``chunk``, lower-cased, without ``re``: what ``findall`` of the
    ``camel`` pattern finds, on any text. Its alternatives, tried in order at each position: an
    acronym's plural, two or more ASCII capitals and an "s" that no lower-case letter follows
    (``[A-Z]{2,}s(?![a-z])``: "VMs", "APIs", "URLs" are one word, not "v" and "ms", "ap" and
    "is", "ur" and "ls", parts that match unrelated text); a run of ASCII capitals that leaves
    its last one to a following lower-case run (``[A-Z]+(?=[A-Z][a-z])``), a capital and its
    lower-case run, a lower-case run, a run of capitals, a run of decimal digits (``\\d``: any
    script's); a character none of them starts (``ß``, ``é``) is skipped."""
    parts: list[str] = []
    i, n = 0, len(chunk)
    while i < n:
        ch = chunk[i]
        j = i + 1
        if "A" <= ch <= "Z":
            while j < n and "A" <= chunk[j] <= "Z":
                j += 1
            plural = j - i >= 2 and chunk[j : j + 1] == "s"
            if plural and not (j + 1 < n and "a" <= chunk[j + 1] <= "z"):
                j += 1  # "VMs": an acronym's plural
            elif j < n and "a" <= chunk[j] <= "z":
                if j - i >= 2:
                    j -= 1  # "HTTPServer": "HTTP", then "Server"
                else:
                    while j < n and "a" <= chunk[j] <= "z":
                        j += 1
        elif "a" <= ch <= "z":
            while j < n and "a" <= chunk[j] <= "z":
                j += 1
        elif ch.isdecimal():
            while j < n and chunk[j].isdecimal():
                j += 1
        else:
            i = j
            continue
        parts.append(chunk[i:j].lower())
        i = j
    return parts


def _loops() -> bool:
    """Whether to split with the loops: in a process without ``re`` loaded (a hook)."""
    return "re" not in sys.modules


def identifier_parts(token: str) -> list[str]:
    """Split one identifier into lower-case parts; [] when it has only one part."""
    if not _loops():
        camel = _pattern("camel")
        found = [p.lower() for chunk in token.split("_") if chunk for p in camel.findall(chunk)]
        return found if len(found) >= 2 else []
    return _identifier_parts_loop(token)


def _identifier_parts_loop(token: str) -> list[str]:
    pieces: list[str] = []
    for chunk in token.split("_"):
        if chunk:
            pieces.extend(_camel_parts(chunk))
    return pieces if len(pieces) >= 2 else []


def words(text: str) -> list[str]:
    """The runs of word characters (``\\w+``) of ``text``."""
    if not _loops():
        found: list[str] = _pattern("word").findall(text)
        return found
    return _words_loop(text)


def _words_loop(text: str) -> list[str]:
    """``\\w+`` without ``re``: ``\\w`` is ``str.isalnum()`` or ``_``, in every script."""
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
    """Extra FTS tokens for the camelCase identifiers in ``text`` (bounded, de-duplicated)."""
    if _loops() and not _may_split(text):
        return ""
    seen: dict[str, None] = {}
    for word in words(text):
        if "_" in word or word.islower() or word.isupper() or word.isdigit():
            continue  # unicode61 handles these already
        for part in identifier_parts(word):
            seen.setdefault(part, None)
            if len(seen) >= limit:
                return " ".join(seen)
    return " ".join(seen)


# What ``re.sub(r"(?:ies|es|s|ed|ing|ly)$", "", term)`` strips: the longest of these endings
# (then a final "e" or "y", see ``stem``).
_SUFFIXES = ("ies", "es", "s", "ing", "ed", "ly")
# The consonants whose doubling an "-ing" or "-ed" adds ("stopped", "planning"): not l, s or z,
# which words keep doubled ("fill", "pass", "buzz").
_DOUBLED = frozenset("bcdfghjkmnpqrtvwx")


def stem(term: str) -> str:
    """A crude stem of a lower-cased word (``_stem``), British spellings of common words as
    American ones: "cancelled" meets "canceled", "colour" "color", "initialise" "initialize",
    "centre" "center" (``_spellings``). Tool output is mostly American English and the people
    asking often are not: "were they just cancelled?" asks about "The strategy configuration was
    canceled" (replay, bench/RESULTS.md, "Session 37")."""
    base = _stem(term)
    return (_SPELLINGS or _spellings()).get(base, base)


def _stem(term: str) -> str:
    """A crude stem of a lower-cased word, enough to match a prompt's word with a memory's or
    one statement's subject with another's: the longest of ``_SUFFIXES`` cut from words over
    four letters, a plural "s" from words of four, then a final "e" or "y" from what is left of
    four letters or more (so that "close", "closes", "closed" and "closing" meet at "clos",
    "query" and "queries" at "quer", "rule" and "rules" at "rul", "day" and "days" at "day",
    "worktree" and "worktrees" at "worktre"),
    and one of a final doubled consonant but l, s or z ("committed" and "commit" meet at
    "commit", "running" and "run" at "run", "added" and "add" at "ad"; "fill", "pass" and
    "buzz" keep theirs). The prompt gate (``memlode.hooks._recall``) and the supersede rules
    (``memlode.engine.supersede_rules``) share it; FTS5 has its own (porter)."""
    if len(term) > 4:
        for suffix in _SUFFIXES:
            if term.endswith(suffix):
                if suffix == "es" and term.endswith("ees"):
                    suffix = "s"  # "worktrees" is "worktree" and an s, not "worktr" and "es"
                term = term[: -len(suffix)]
                break
    elif len(term) == 4 and term[3] == "s" and term[2] != "s":
        term = term[:3]
    if len(term) > 3 and term[-1] in "ey":
        term = term[:-1]
    if len(term) > 2 and term[-1] == term[-2] and term[-1] in _DOUBLED:
        term = term[:-1]
    return term


def _spellings() -> dict[str, str]:
    """The stems of British forms of common words -> the stems of their American forms
    (``_SPELLINGS``), built on the first ``stem``: it takes about a millisecond, which most
    hook processes, that never stem a word, need not spend."""
    pairs: list[tuple[str, str]] = []
    for root in _ISE_ROOTS.split():  # initialise / initialize, analyse / analyze
        us = root[:-1] + "z"
        for end in ("e", "ed", "es", "ing", "ation", "ations", "er", "ers"):
            pairs.append((root + end, us + end))
    for uk in _OUR_WORDS.split():  # colour / color
        us = uk[:-2] + "r"
        for end in ("", "s", "ed", "ing", "ful", "ite", "ites", "al", "less"):
            pairs.append((uk + end, us + end))
    for root in _DOUBLED_L_ROOTS.split():  # cancelled / canceled
        for end in ("ed", "ing", "er", "ers"):
            pairs.append((root + "l" + end, root + end))
    for uk in _RE_WORDS.split():  # centre / center
        us = uk[:-2] + "er"
        for end in ("", "s", "d"):
            pairs.append((uk + end, us + end))
    pairs += [tuple(pair.split("/")) for pair in _OTHER_SPELLINGS.split()]  # type: ignore[misc]
    out: dict[str, str] = {}
    for uk, us in pairs:
        a, b = _stem(uk), _stem(us)
        if a != b:
            out[a] = b
    _SPELLINGS.update(out)  # at once: another thread never meets half of it
    return _SPELLINGS


_SPELLINGS: dict[str, str] = {}
# The words whose British spellings _spellings reads as American (common in software and its
# talk); a rule for every "-ise" or "-our" would meet "four" with "for".
_ISE_ROOTS = (
    "initialis normalis serialis deserialis optimis customis organis recognis summaris"
    " authoris synchronis minimis maximis prioritis sanitis tokenis visualis finalis categoris"
    " utilis realis specialis standardis memoris parameteris containeris localis capitalis"
    " virtualis modernis randomis stabilis centralis generalis personalis vectoris quantis"
    " characteris criticis apologis emphasis analys paralys catalys"
)
_OUR_WORDS = (
    "colour behaviour flavour favour honour labour neighbour humour rumour harbour armour"
    " vapour parlour endeavour savour odour rigour vigour tumour splendour"
)
_DOUBLED_L_ROOTS = (
    "cancel label model travel level signal channel fuel total tunnel marshal dial panel"
    " counsel funnel shovel unravel rival pedal"
)
_RE_WORDS = "centre metre litre fibre theatre calibre lustre spectre sabre"
_OTHER_SPELLINGS = (
    "licence/license licences/licenses defence/defense offence/offense analogue/analog"
    " catalogue/catalog catalogues/catalogs dialogue/dialog dialogues/dialogs"
    " programme/program programmes/programs grey/gray judgement/judgment"
    " acknowledgement/acknowledgment artefact/artifact artefacts/artifacts"
    " aluminium/aluminum sceptical/skeptical whilst/while centred/centered"
)


def query_terms(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """Lower-cased search terms: words, plus the parts of camelCase/snake_case identifiers;
    without ``STOPWORDS`` unless that leaves nothing."""
    terms: dict[str, None] = {}
    for token in words(text):
        if not any(ch.isalnum() for ch in token):
            continue
        terms.setdefault(token.lower(), None)
        for part in identifier_parts(token):
            terms.setdefault(part, None)
    out = list(terms)
    if drop_stopwords:
        kept = [t for t in out if t not in STOPWORDS]
        if kept:
            return kept
    return out


_MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]


def date_words(timestamp: str) -> str:
    """Words for the calendar date of a stored timestamp: '2023-05-08T…' -> '8 may 2023'.

    Indexed with conversation turns so that 'what did we do in May 2023' finds them by date.
    """
    try:
        year, month, day = int(timestamp[0:4]), int(timestamp[5:7]), int(timestamp[8:10])
    except (ValueError, IndexError):
        return ""
    if not 1 <= month <= 12:
        return ""
    return f"{day} {_MONTH_NAMES[month - 1]} {year}"


def command_key(command: str) -> str:
    """A command's program and subcommand (``git add``, ``mix test``), after any leading
    ``cd <dir> &&``; the program alone when the next word is an option or a path."""
    parts = [p.strip() for p in command.split("&&")]
    while parts and parts[0].startswith("cd "):
        parts.pop(0)
    words = parts[0].split() if parts else []
    if not words:
        return ""
    if len(words) > 1 and words[1][:1].isalpha() and "/" not in words[1]:
        return f"{words[0]} {words[1]}"
    return words[0]


def one_line(text: str, width: int) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to ``width`` characters with
    "…" when longer: how a listing shows a memory."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
