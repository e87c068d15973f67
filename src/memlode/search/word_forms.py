"""The other forms of an irregular verb, so that a query for one finds the others.

FTS5's porter stemmer joins regular forms ("visit", "visited", "visiting") but not irregular
ones: "went" and "go", "bought" and "buy", "met" and "meet" stay different terms, and a question
asked in one tense ("Where did she go?") misses the memory told in another ("I went to Rio").
BM25 therefore ORs the other forms of each irregular verb in the query (``with_word_forms``).
The index is untouched, so stores written before this need no rebuild.

Measured on LoCoMo (bench/locomo_research.py, "lq"): turn recall@5 +0.008, @10 +0.003,
@25 +0.001, better on both halves of the data. Forms that are mostly another word in chat
("bit", "rose") are left out, and so are those that are stop words ("won").
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

__all__ = ["forms_of", "with_word_forms"]

# Base form first, then the irregular past forms. About 75 of the commonest English verbs.
_IRREGULAR = """go went gone|make made|take took taken|get got gotten|see saw seen|come came
|know knew known|think thought|tell told|say said|give gave given|find found|feel felt
|leave left|bring brought|begin began begun|keep kept|hold held|write wrote written|stand stood
|hear heard|mean meant|meet met|run ran|pay paid|sit sat|speak spoke spoken|lead led
|grow grew grown|lose lost|fall fell fallen|send sent|build built|understand understood
|draw drew drawn|break broke broken|spend spent|drive drove driven|buy bought
|wear wore worn|choose chose chosen|throw threw thrown|catch caught|teach taught
|eat ate eaten|drink drank drunk|sing sang sung|swim swam swum|fly flew flown|ride rode ridden
|sell sold|fight fought|forget forgot forgotten|sleep slept|feed fed|hide hid hidden
|shoot shot|steal stole stolen|bite bitten|blow blew blown|dig dug|freeze froze frozen
|hang hung|shake shook shaken|tear tore torn|wake woke woken|lend lent|flee fled"""


def _inflections(base: str) -> set[str]:
    """The regular forms of a base that FTS5 stems back to it: goes, going, making, running."""
    vowels = "aeiou"
    third = base + "es" if base.endswith(("o", "s", "sh", "ch", "x", "z")) else base + "s"
    if base.endswith("e") and not base.endswith("ee"):
        participle = base[:-1] + "ing"  # make -> making
    elif (
        len(base) >= 3
        and base[-1] not in vowels + "wy"
        and base[-2] in vowels
        and base[-3] not in vowels
    ):
        participle = base + base[-1] + "ing"  # run -> running, swim -> swimming
    else:
        participle = base + "ing"
    return {base, third, participle}


def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for group in _IRREGULAR.replace("\n", " ").split("|"):
        forms = group.split()
        base = forms[0]
        for word in _inflections(base) | set(forms[1:]):
            # The forms a query word does not already stand for (the base's own inflections
            # stem to the base, so the base stands for them all).
            others = forms if word not in forms else [f for f in forms if f != word]
            table[word] = tuple(f for f in others if f != word)
    return table


_FORMS = _table()


def forms_of(word: str) -> tuple[str, ...]:
    """The other forms of ``word`` (lower case) if it is an irregular verb, else ()."""
    return _FORMS.get(word, ())


def with_word_forms(terms: Iterable[str], exclude: Collection[str] = ()) -> list[str]:
    """``terms`` followed by the other forms of its irregular verbs, each once, none of
    ``exclude`` (the stop words)."""
    out: dict[str, None] = dict.fromkeys(terms)
    for term in list(out):
        for form in forms_of(term):
            if form not in exclude:
                out.setdefault(form, None)
    return list(out)
