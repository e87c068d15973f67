"""Contract: ``storage.supersession`` (the SUPERSEDES / INVALIDATED_BY pair, what replaced what,
chains, the statements detection reads) gives the same answers on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from memlode.storage import memories
from memlode.storage import supersession as s
from memlode.storage.values import NewMemory


def _rows(store: Any) -> list[str]:
    with store.write() as conn:
        out = []
        for i, (text, tags, source) in enumerate(
            (
                ("Sessions are cached in Redis", [], "memory"),
                ("Use npm to install packages", ["instruction"], "hook"),
                ("Sessions move to Memcached", [], "memory"),
                ("Sessions move to Valkey", [], "memory"),
                ("a stored prompt", ["prompt"], "hook"),
            )
        ):
            new = NewMemory(
                text,
                memory_type="decision",
                tags=tags,
                namespace="p",
                source=source,
                created_at=f"2026-03-0{i + 1}T10:00:00.000000Z",
            )
            out.append(memories.insert(conn, new)[0])
    return out


def test_links_chains_and_reads(store: Any) -> None:
    a, instr, b, c, _prompt = _rows(store)
    with store.write() as conn:
        assert s.link(conn, (b, "b", "p"), (a, "a", "p"), "2026-03-03T10:00:00Z", "rule")
        assert not s.link(conn, (b, "b", "p"), (a, "a", "p"), "2026-03-09T10:00:00Z", "x")
        assert s.link(conn, (c, "c", "p"), (b, "b", "p"), "2026-03-04T10:00:00Z", "manual")
    conn = store.conn
    replaced = s.replaced_by(conn, [a, b, c])
    assert {k: (r.new_id, r.at[:10], r.how) for k, r in replaced.items()} == {
        a: (b, "2026-03-03", "rule"),
        b: (c, "2026-03-04", "manual"),
    }
    assert [r.old_id for r in s.replacements_of(conn, [c])[c]] == [b]
    assert s.current_of(conn, [a, b, c]) == {a: c, b: c}
    assert [(r.old_id, r.new_id) for r in s.chain_members(conn, c)] == [(a, b), (b, c)]
    assert len(s.linked_pairs(conn, "p")) == 2 and s.linked_pairs(conn, "q") == []
    assert set(s.statements(conn, [a, c])) == {a, c}
    earlier = s.earlier_statements(
        conn, "p", ["memory"], ["decision"], "2026-03-04T10:00:00.000000Z", [c], 10
    )
    assert [r[0] for r in earlier] == [b, a]
    with_told = s.earlier_statements(
        conn,
        "p",
        ["memory"],
        ["decision"],
        "2026-03-09",
        [],
        10,
        ("hook", ("instruction", "asked-user")),
    )
    assert {r[0] for r in with_told} == {a, instr, b, c}
    assert (
        s.captured_after(conn, "p", ("hook", ("instruction", "asked-user")), "", 10)[0][0] == instr
    )
    seen = "2026-03-02T10:00:00.000000Z"  # the instruction's own time: read already
    assert s.captured_after(conn, "p", ("hook", ("instruction", "asked-user")), seen, 10) == []
    with store.write() as wconn:
        assert s.unlink(wconn, b, a) and not s.unlink(wconn, b, a)
    assert set(s.replaced_by(store.conn, [a, b])) == {b}
