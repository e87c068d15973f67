"""Symbol embeddings for semantic code search: what is embedded, the cache that keeps unchanged
symbols from being embedded again, and the fused ranking with its explanation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import run_memlode
from tests.embed.test_embed_pending import Recording

from memlode.code.symbol_text import body_slice, split_words, symbol_text
from memlode.engine import Engine, code
from memlode.engine.code import embed_symbols, pending_symbols

APP = '''\
"""Shipping costs."""


def weigh_parcel(parcel):
    """Total weight in grams."""
    return sum(item.grams for item in parcel.items)


def quote(parcel, zone):
    grams = weigh_parcel(parcel)
    # surcharge for remote islands and mountain villages
    return grams * RATES[zone] + remote_surcharge(zone)


def remote_surcharge(zone):
    return 500 if zone in ("islands", "mountains") else 0


RATES = {"eu": 2, "world": 5}
'''

TESTS = """\
from app import quote


def test_quote():
    assert quote(None, "eu") == 0
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (root / "app.py").write_text(APP)
    (root / "tests" / "test_app.py").write_text(TESTS)
    return root


def _index(engine: Engine, root: Path, namespace: str = "shop") -> dict[str, object]:
    stats = code.index(engine, root, namespace=namespace)
    embedding = stats["embedding"]
    assert isinstance(embedding, dict)
    return embedding


def test_every_symbol_but_test_code_is_embedded_once(engine: Engine, project: Path) -> None:
    recording = Recording()
    engine.embeddings.use_embedder(recording)
    first = _index(engine, project)
    names = ["weigh_parcel", "quote", "remote_surcharge", "RATES"]
    assert first["embedded"] == len(recording.texts) == len(names)
    assert first["skipped"] == 1  # tests/test_app.py's test_quote
    assert all(any(split_words(n) in t for t in recording.texts) for n in names)
    assert pending_symbols(engine) == 0

    # nothing changed: nothing is embedded, nothing read
    recording.texts.clear()
    again = embed_symbols(engine, "shop")
    assert (again.embedded, again.unchanged, recording.texts) == (0, 5, [])

    # one body changed: only that symbol's text changed
    (project / "app.py").write_text(APP.replace("else 0", "else 100"))
    changed = _index(engine, project)
    assert changed["embedded"] == 1
    assert recording.texts == [t for t in recording.texts if "remote surcharge" in t]
    assert "100" in recording.texts[0]

    # a function gone: its vector goes too
    (project / "app.py").write_text(APP.replace("+ remote_surcharge(zone)", ""))
    _index(engine, project)
    (project / "app.py").write_text(
        APP.replace("+ remote_surcharge(zone)", "").split("def remote_surcharge")[0]
        + 'RATES = {"eu": 2}\n'
    )
    gone = _index(engine, project)
    assert gone["removed"] == 1
    stored = {r[0] for r in engine.conn.execute("SELECT node_id FROM code_symbol_vectors")}
    assert "sym:shop:app.remote_surcharge" not in stored


def test_a_text_embedded_for_one_symbol_is_lent_to_its_twin(
    engine: Engine, project: Path, tmp_path: Path
) -> None:
    recording = Recording()
    engine.embeddings.use_embedder(recording)
    _index(engine, project, "shop")
    recording.texts.clear()
    twin = _index(engine, project, "shop-copy")  # same code, another namespace
    assert twin["reused"] == 4 and twin["embedded"] == 0
    assert recording.texts == []


def test_enriched_text_names_neighbours_and_body() -> None:
    lines = APP.splitlines()
    text = symbol_text(
        kind="function",
        qualified_name="app.quote",
        signature="def quote(parcel, zone)",
        doc="",
        path="src/shop/app.py",
        module="shop.app",
        callees=["app.weigh_parcel", "app.remote_surcharge"],
        callers=["cli.main"],
        body=body_slice(lines, 9, 12),  # quote: lines 9-12
    )
    assert text.startswith("function app quote. def quote parcel zone. in src shop app")
    assert "calls app weigh parcel, app remote surcharge" in text
    assert "called by cli main" in text
    assert "surcharge remote islands mountain villages" in text  # the comment in its body
    assert "return" not in text.split("called by")[1]  # syntax words dropped


def test_search_finds_a_function_by_its_body_and_explains(
    project: Path, memlode_home: Path
) -> None:
    done = run_memlode("index", str(project), "--namespace", "shop", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["embedding"]["embedded"] == 4
    # "islands" and "villages" are only in quote's body (a comment), not in any name or doc
    got = run_memlode("symbols", "islands villages", "--namespace", "shop", "--explain", "--json")
    assert got.returncode == 0, got.stderr
    hits = json.loads(got.stdout)
    assert hits[0]["qualified_name"] == "app.quote"
    signals = hits[0]["signals"]
    assert signals["name"] == signals["words"] == 0 and signals["vector"] > 0
    added = sum(v for k, v in signals.items() if k != "factor") * signals["factor"]
    assert abs(added - hits[0]["score"]) < 1e-3
    # without --explain there are no signals; with --no-embed the body is not searchable
    plain = json.loads(run_memlode("symbols", "quote", "-n", "shop", "--json").stdout)
    assert plain[0]["signals"] is None
    run_memlode("index", str(project), "--namespace", "bare", "--no-embed")
    bare = run_memlode("symbols", "islands villages", "--namespace", "bare", "--json")
    assert json.loads(bare.stdout) == []


def test_impact_of_a_function_described_in_words(project: Path, memlode_home: Path) -> None:
    assert run_memlode("index", str(project), "--namespace", "shop").returncode == 0
    got = run_memlode(
        "impact", "the extra cost for remote islands", "--namespace", "shop", "--json"
    )
    assert got.returncode == 0, got.stderr
    result = json.loads(got.stdout)
    assert result["symbol"]["qualified_name"] == "app.remote_surcharge"
    assert result["resolved"]["candidates"][0]["qualified_name"] == "app.remote_surcharge"
    # the dependants of the best three matches in turn, each naming its match
    assert result["hits"][0]["node_id"] == "sym:shop:app.quote"
    assert result["hits"][0]["via"] == "app.remote_surcharge"
    vias = [h["via"] for h in result["hits"]]
    assert set(vias) <= {c["qualified_name"] for c in result["resolved"]["candidates"][:3]}
    text = run_memlode("impact", "the extra cost for remote islands", "--namespace", "shop")
    assert "resolved to app.remote_surcharge" in text.stdout
    missing = run_memlode("impact", "no such words zzz qqq", "--namespace", "shop")
    assert missing.returncode != 0 and "no symbol matches" in missing.stderr


def test_a_long_lived_process_sees_new_vectors(engine: Engine, project: Path) -> None:
    """The vectors kept in memory between searches are reloaded when the store's change in."""
    code.index(engine, project, namespace="shop")
    first = code.search_symbols(engine, "glaciers fjords", namespace="shop")
    assert "app.remote_surcharge" not in [h["qualified_name"] for h in first[:1]]
    (project / "app.py").write_text(
        APP.replace('("islands", "mountains")', '("islands", "mountains", "glaciers fjords")')
    )
    code.index(engine, project, namespace="shop")
    again = code.search_symbols(engine, "glaciers fjords", namespace="shop", explain=True)
    assert again[0]["qualified_name"] == "app.remote_surcharge"
    assert again[0]["signals"]["vector"] > 0


def test_memlode_embed_fills_symbols_indexed_without_vectors(project: Path) -> None:
    assert run_memlode("index", str(project), "-n", "shop", "--no-embed").returncode == 0
    first = run_memlode("embed", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["symbols_embedded"] == 4
    assert json.loads(run_memlode("embed", "--json").stdout)["symbols_embedded"] == 0


def test_a_file_edited_through_the_assistant_lifts_its_symbols(project: Path) -> None:
    from tests.conftest import edit_payload, run_hook

    assert run_memlode("index", "--json", cwd=project).returncode == 0
    before = json.loads(run_memlode("symbols", "parcel", "--explain", "--json", cwd=project).stdout)
    assert all("recent_edit" not in h["signals"] for h in before)  # no edits seen yet
    payload = edit_payload(project / "app.py", "else 0", "else 1", project, "edit-session")
    assert run_hook("post-tool", payload, cwd=project).returncode == 0
    after = json.loads(run_memlode("symbols", "parcel", "--explain", "--json", cwd=project).stdout)
    lifted = {h["qualified_name"]: h["signals"].get("recent_edit", 0) for h in after}
    assert lifted["app.weigh_parcel"] > 0  # in the edited file
    assert lifted.get("tests.test_app.test_quote", 0) == 0


def test_batches_embed_what_is_left_and_read_no_further(engine: Engine, project: Path) -> None:
    """The background embedder goes a batch at a time: each pass stops planning at its limit."""
    recording = Recording()
    engine.embeddings.use_embedder(recording)
    code.index(engine, project, namespace="shop", embed=False)
    first = embed_symbols(engine, "shop", limit=3)
    assert (first.embedded, len(recording.texts)) == (3, 3)
    assert first.left >= 1 and first.removed == 0
    assert pending_symbols(engine) == 2  # app.RATES, and the test not looked at yet
    second = embed_symbols(engine, "shop", limit=3)
    assert (second.embedded, second.left) == (1, 0)
    assert pending_symbols(engine) == 0 and len(recording.texts) == 4


def test_neighbours_named_by_path_are_said_by_name(engine: Engine, tmp_path: Path) -> None:
    """TypeScript and Rust qualify a symbol by its file ('lib/util.ts:parseHeader'): the text
    of its caller names the function, not the file's extension."""
    root = tmp_path / "web"
    (root / "lib").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "web"}')
    (root / "lib" / "util.ts").write_text(
        "export function parseHeader(raw: string): string {\n  return raw.trim();\n}\n"
    )
    (root / "lib" / "main.ts").write_text(
        'import { parseHeader } from "./util";\n\n'
        "export function run(raw: string): string {\n  return parseHeader(raw);\n}\n"
    )
    recording = Recording()
    engine.embeddings.use_embedder(recording)
    _index(engine, root, "web")
    (run,) = [t for t in recording.texts if t.startswith("function run.")]
    assert "calls parse header" in run
    (parse,) = [t for t in recording.texts if t.startswith("function parse header.")]
    assert "called by run" in parse
    assert " ts " not in f" {run} {parse} "


DURATIONS = '''\
def parse_duration_strict(text):
    """Parse a duration like 5m or 2h, rejecting anything else."""
    return int(text[:-1])


def parse_duration_loose(text):
    """Parse a duration like 5m or 2h, or a bare number of seconds."""
    return int(text.rstrip("mh"))


def parse_duration_iso(text):
    """Parse a duration like PT5M or PT2H."""
    return int(text[2:-1])


def parse_duration(text):
    """Read a duration."""
    return int(text[:-1])


def schedule(spec):
    return parse_duration(spec)
'''


def test_impact_by_description_passes_over_matches_nothing_calls(
    engine: Engine, tmp_path: Path
) -> None:
    """ "Who calls the function that ..." presumes callers: the best matches that nothing
    calls are passed over, down the candidates, until one that something calls."""
    root = tmp_path / "timer"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'timer'\n")
    (root / "durations.py").write_text(DURATIONS)
    code.index(engine, root, namespace="timer")
    result = code.impact(
        engine, "who calls the function that parses a duration like 5m or 2h", namespace="timer"
    )
    order = [c["qualified_name"] for c in result["resolved"]["candidates"]]
    assert order.index("durations.parse_duration") >= 3, order  # not among the best three
    assert [(h["node_id"], h["via"]) for h in result["hits"]] == [
        ("sym:timer:durations.schedule", "durations.parse_duration")
    ]
