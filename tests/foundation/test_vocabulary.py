"""memlode.vocabulary: ordinary words from the shipped model's vocabulary, read without the
embedding package; and nothing to judge by when the model wheel is absent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memlode import vocabulary


def test_words_and_compounds_are_ordinary_names_are_not():
    known = vocabulary.words()
    for word in ("colour", "blew", "rejected", "tests", "lookup", "frontend", "rerun"):
        assert vocabulary.ordinary(word, known), word
    for name in ("intl", "intls", "monorepos", "pkgbuild", "kubernetes", "i18n"):
        assert not vocabulary.ordinary(name, known), name
    # a regular form of a word, or of two run together, is ordinary; a name that ends like one
    # is not ("puppeteer", "postgres", "plotly": no "-er", "-es" after a consonant, "-ly")
    for word in ("reworded", "rerunning", "autosaved", "deduplicated", "refreshes"):
        assert "reworded" not in known and vocabulary.ordinary(word, known), word
    for name in ("puppeteer", "postgres", "plotly", "grepped", "kustomized"):
        assert not vocabulary.ordinary(name, known), name
    assert not vocabulary.ordinary("ab" * 2500 + "ed", known)  # no word is that long
    assert (
        "" not in known
        and "colour" in known
        and "olou" not in known
        and "colour\nblew" not in known
    )
    assert "##ization" in known and not vocabulary.ordinary("ization", known)  # a piece: no word


def test_it_is_read_without_the_embedding_package():
    code = (
        "import sys; from memlode import vocabulary; assert vocabulary.words(); "
        "print(sorted(m for m in sys.modules if m.startswith('memlode')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "memlode.embed" not in out.stdout and "memlode.vocabulary" in out.stdout


def test_without_the_model_wheel_there_is_nothing_to_judge_by(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from memlode.hooks import _recall

    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.setattr(vocabulary, "_words", None)
    assert not vocabulary.words() and "colour" not in vocabulary.words()
    assert not _recall._names_a_new_thing(["intl"])  # the gate then judges as before
