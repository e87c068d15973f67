"""One in-memory text index per process and store (issue 16, 1M memories: the MCP server
searched from its tools' engine and from the resident it hosts, and held two copies): engines
share it, it outlives all but its last holder, and searches on several threads with writes
between them rank as FTS5 does."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from memlode.config import Settings
from memlode.engine import Engine
from memlode.search.fts import Bm25Query, bm25_terms
from memlode.storage.values import MemoryFilter

WORDS = "deploy cache queue retry migration token parser worker schema index".split()


def _engine(home: Path) -> Engine:
    return Engine(Settings.load({"home": str(home), "namespace": "n", "embed_provider": "none"}))


def _text(rng: random.Random, seed: int, i: int) -> str:
    return " ".join(rng.choices(WORDS, k=8)) + f" note{seed}-{i}"


def _fill(engine: Engine, count: int, seed: int) -> None:
    """``count`` memories, each stored on its own (a transaction and the supersession rules'
    reads each)."""
    rng = random.Random(seed)
    for i in range(count):
        engine.store(_text(rng, seed, i))


def _filled(engine: Engine, count: int, seed: int) -> None:
    """A store of ``count`` rows to start from, in one batch of documents (the supersession
    rules, which do not read documents, took ~6 s of the two tests' fills as memories)."""
    rng = random.Random(seed)
    engine.store_many([engine.new_memory(_text(rng, seed, i), source="doc") for i in range(count)])


def _ready(engine: Engine) -> None:
    engine.search("deploy")
    engine.search("cache")
    assert engine.text_index.wait(60)
    assert engine.text_index.scorer(engine.conn) is not None


def test_engines_share_it_until_the_last_one_closes(tmp_path: Path) -> None:
    first, second = _engine(tmp_path), _engine(tmp_path)
    _filled(first, 200, 1)
    assert first.text_index is second.text_index
    _ready(first)
    first.close()
    # the other engine keeps the copy (closing the first did not drop it)
    assert second.text_index.scorer(second.conn) is not None
    assert second.text_index.builds == 1
    second.close()
    third = _engine(tmp_path)
    assert third.text_index.scorer(third.conn) is None  # a new copy, not built yet
    third.close()
    elsewhere = _engine(tmp_path / "other")
    assert elsewhere.text_index is not third.text_index
    elsewhere.close()


def test_searches_on_threads_with_writes_between(tmp_path: Path) -> None:
    writer = _engine(tmp_path)
    _filled(writer, 300, 2)
    readers = [_engine(tmp_path) for _ in range(2)]
    _ready(readers[0])
    errors: list[BaseException] = []
    done = threading.Event()

    def search(engine: Engine) -> None:
        try:
            while not done.is_set():
                hits = engine.search("deploy queue retry", k=5)
                assert len(hits) == 5
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=search, args=(r,)) for r in readers]
    for thread in threads:
        thread.start()
    _fill(writer, 150, 3)  # applied through the change log by whichever search comes next
    done.set()
    for thread in threads:
        thread.join()
    assert not errors, errors
    # the shared copy, brought up to date, ranks as FTS5 does
    engine = readers[1]
    postings = engine.text_index.scorer(engine.conn)
    assert postings is not None
    terms = bm25_terms("deploy queue retry")
    scores = engine.text_index.scores(engine.conn, postings, terms)
    assert scores is not None
    flt = MemoryFilter(namespace="n")
    ours = Bm25Query(engine.conn, terms, 20, scores=scores).top(flt)
    fts5 = Bm25Query(engine.conn, terms, 20).top(flt)
    assert [h.id for h in ours] == [h.id for h in fts5]
    for engine in (writer, *readers):
        engine.close()
