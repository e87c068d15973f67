"""Pattern rules: a regular expression compiled on first use, tried only when a cheap probe of
the text says it may match, and what replaces its match.

Every pattern here runs in time linear in the text, by construction:

- a match may start only where a run of the characters it consumes starts: the pattern opens
  with a literal, or with a lookbehind that refuses a start inside such a run, so two starts
  never read the same run;
- every unbounded repetition is possessive (``*+``, ``++``, ``{n,}+``) or runs over characters
  that the next element cannot match, so a failed attempt never backtracks into a run;
- bounded repetitions are small (at most a few dozen characters).

``tests/e2e/safety/test_redaction_linear.py`` runs each family on adversarial inputs and
``bench/bench_redact.py`` times them at 1 MB.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator

    Test = Callable[[str, str], bool]
    Action = Callable[[re.Match[str]], str]

__all__ = [
    "WORD_CHARS",
    "Probe",
    "Rule",
    "after",
    "bounded",
    "has",
    "has_lower",
    "mark",
    "word_starts",
]


def mark(kind: str) -> str:
    return f"[redacted:{kind}]"


class Probe:
    """When a rule may change a text: one of ``needles`` (lower case) occurs in the lower-cased
    text, and then ``test(text, lowered)``, if given, is true. Both are necessary conditions of
    a replacement (``tests/hooks/test_redact.py`` checks that they never skip one), checked with
    string methods only, so that most texts never compile a pattern or import ``re``."""

    __slots__ = ("needles", "test")

    def __init__(self, needles: tuple[str, ...], test: Test | None = None) -> None:
        self.needles = tuple(map(str.lower, needles))
        self.test = test

    def __call__(self, text: str, lowered: str) -> bool:
        if not any(n in lowered for n in self.needles):
            return False
        return self.test is None or self.test(text, lowered)


class Rule:
    """One pattern: compiled on first use, applied only where its probe says it may match.

    What replaces a match: ``action(match)`` when given; else the group ``group`` (the value
    after a name) or, without a group, the whole match, becomes ``[redacted:kind]``.
    ``when`` narrows on purpose where the rule applies at all (``password x`` only in a .netrc).
    """

    __slots__ = ("_compiled", "action", "group", "kind", "probe", "source", "when")

    def __init__(
        self,
        kind: str,
        source: str,
        probe: Probe,
        *,
        group: str | None = None,
        action: Action | None = None,
        when: Test | None = None,
    ) -> None:
        self.kind = kind
        self.source = source
        self.probe = probe
        self.group = group
        self.action = action
        self.when = when
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re  # here, not at import: most texts never need a pattern

            self._compiled = re.compile(self.source, re.DOTALL)
        return self._compiled

    def _replace(self, match: re.Match[str]) -> str:
        if self.action is not None:
            return self.action(match)
        if self.group is None:
            return mark(self.kind)
        start, end = match.span(self.group)
        if start < 0 or start == end:
            return match.group(0)
        whole = match.group(0)
        offset = match.start()
        return whole[: start - offset] + mark(self.kind) + whole[end - offset :]

    def rewrite(self, text: str) -> str:
        """Every match of the pattern replaced, without asking the probe first."""
        return self.pattern.sub(self._replace, text)

    def apply(self, text: str, lowered: str) -> str:
        """``rewrite`` where the probe (whose needles the caller has seen) and ``when`` allow."""
        test = self.probe.test
        if test is not None and not test(text, lowered):
            return text
        if self.when is not None and not self.when(text, lowered):
            return text
        return self.rewrite(text)


def has(*needles: str) -> Probe:
    """The text holds one of ``needles`` (case-sensitive)."""
    return Probe(needles, lambda text, lowered: any(n in text for n in needles))


def has_lower(*needles: str) -> Probe:
    """The lower-cased text holds one of ``needles``."""
    return Probe(needles)


WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def word_starts(text: str, needle: str, *, not_after: str = "") -> Iterator[int]:
    """Where ``needle`` occurs at the start of a word in ``text``: not after a letter, digit,
    ``_`` or ``-`` (nor after a character of ``not_after``)."""
    i = text.find(needle)
    while i >= 0:
        if i == 0 or (text[i - 1] not in WORD_CHARS and text[i - 1] not in not_after):
            yield i
        i = text.find(needle, i + 1)


def bounded(*needles: str, lower: bool = False) -> Probe:
    """One of ``needles`` occurs at the start of a word (not after a letter, digit, ``_``, ``-``):
    "task-runner" does not make the ``sk-`` rule compile."""

    def test(text: str, lowered: str) -> bool:
        haystack = lowered if lower else text
        return any(next(word_starts(haystack, n), None) is not None for n in needles)

    return Probe(needles, test)


def _token_chars(chunk: str) -> bool:
    return chunk.replace("_", "a").replace("-", "a").isalnum()


def after(needle: str, count: int, *, then: str = "") -> Probe:
    """``needle`` at the start of a word, followed by ``count`` token characters (letters,
    digits, ``_``, ``-``) and then by ``then``: the shape of a vendor token, checked with
    string methods only. Use it only for patterns whose runs are made of those characters."""
    size = len(needle)

    def test(text: str, lowered: str) -> bool:
        for i in word_starts(text, needle):
            j = i + size
            chunk = text[j : j + count]
            shaped = len(chunk) == count and _token_chars(chunk)
            if shaped and (not then or text.startswith(then, j + count)):
                return True
        return False

    return Probe((needle,), test)
