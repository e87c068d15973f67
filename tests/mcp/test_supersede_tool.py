"""The supersession tools through the SDK's real stdio client: ``supersede_memory`` links two
memories (and undoes it), ``memory_history`` reads the chain with its dates, bad ids come back
as isError results the model can read, and ``get_decision_chain`` says what was replaced. Every
tool that hands over linked memories (an expansion, a walk) marks the replaced one too."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.anyio


async def _decision(harness, session, text: str) -> str:
    """The id of ``text`` stored as a decision through the tool."""
    result = await session.call_tool("store_memory", {"content": text, "memory_type": "decision"})
    return str(harness.ok(result)["id"])


async def test_supersede_undo_history_and_bad_ids(harness) -> None:
    async with harness.session() as session:
        old = await _decision(harness, session, "Deploys go out from Jenkins every evening.")
        # a statement the rules find replacing another says so, with the undo to call
        changed = await session.call_tool(
            "store_memory",
            {
                "content": "We no longer deploy from Jenkins; GitLab CI deploys.",
                "memory_type": "decision",
            },
        )
        said = harness.ok(changed)
        assert [(r["id"], r["content"]) for r in said["replaces"]] == [
            (old, "Deploys go out from Jenkins every evening.")
        ]
        text = changed.content[0].text  # type: ignore[union-attr]
        assert f"it replaces {old} (" in text
        assert f"old_id={old}, new_id={said['id']}, undo=true" in text
        # the structured part says it too: Claude Code hands its model only that JSON
        undo = f"supersede_memory(old_id='{old}', new_id='{said['id']}', undo=true)"
        assert undo in said["next_step"]
        harness.ok(
            await session.call_tool(
                "supersede_memory", {"old_id": old, "new_id": said["id"], "undo": True}
            )
        )
        harness.ok(await session.call_tool("delete_memory", {"memory_id": said["id"]}))
        # one on the same subject with no change word is linked to nothing: the answer offers
        # the earlier one, for the assistant to judge and link
        kong = await _decision(harness, session, "Kong fronts every public API route of the shop.")
        plain = await session.call_tool(
            "store_memory",
            {"content": "The checkout page is rendered on the server.", "memory_type": "decision"},
        )
        assert harness.ok(plain)["next_step"] is None  # nothing to judge
        maybe = await session.call_tool(
            "store_memory",
            {
                "content": "Envoy fronts every public API route of the shop, with its rate limits.",
                "memory_type": "decision",
            },
        )
        offered = harness.ok(maybe)
        assert offered["replaces"] == []
        assert [m["id"] for m in offered["may_replace"]] == [kong]
        assert f"new_id='{offered['id']}')" in offered["next_step"]
        assert "may_replace" in offered["next_step"] and "undo" not in offered["next_step"]
        text = maybe.content[0].text  # type: ignore[union-attr]
        assert f"new_id={offered['id']}:\n- {kong} (" in text
        linked = await session.call_tool(
            "supersede_memory", {"old_id": kong, "new_id": offered["id"]}
        )
        assert harness.ok(linked)["at"] and harness.ok(linked)["undone"] is False
        new = await _decision(harness, session, "Evening releases are cut by hand on Fridays.")
        done = harness.ok(
            await session.call_tool("supersede_memory", {"old_id": old, "new_id": new})
        )
        assert done["old"] == old and done["new"] == new and done["at"]
        history = harness.ok(await session.call_tool("memory_history", {"memory_id": old}))
        assert [(m["id"], m["current"]) for m in history["chain"]] == [(old, False), (new, True)]
        assert history["chain"][0]["until"] == done["at"]
        chain = await session.call_tool("get_decision_chain", {"topic": "Jenkins"})
        text = chain.content[0].text  # type: ignore[union-attr]
        assert f"(replaced {done['at'][:10]} by {new}: history, not current)" in text
        # the structured part, which Claude Code hands its model instead of the text, says so
        decisions = {d["id"]: d for d in harness.ok(chain)["decisions"]}
        assert (decisions[old]["replaced_by"], decisions[old]["replaced_at"]) == (new, done["at"])
        assert decisions[new]["replaced_by"] is None
        # recall says which hit is history: the replaced one carries what replaced it, and when
        recalled = await session.call_tool("recall_memory", {"query": "Jenkins evening deploys"})
        hits = {h["id"]: h for h in harness.ok(recalled)["hits"]}
        assert (hits[old]["replaced_by"], hits[old]["replaced_at"]) == (new, done["at"])
        assert hits[new]["replaced_by"] is None and hits[new]["replaced_at"] is None
        shown = recalled.content[0].text  # type: ignore[union-attr]
        assert f"(replaced {done['at'][:10]} by {new}: history, not current)" in shown
        got = await session.call_tool("get_memory", {"memory_id": old})
        assert (harness.ok(got)["replaced_by"], harness.ok(got)["replaced_at"]) == (new, done["at"])
        assert f"by {new}: history, not current)" in got.content[0].text  # type: ignore[union-attr]
        read = await session.read_resource(f"memory://{old}")  # type: ignore[arg-type]
        assert f"replaced: {done['at']} by {new}" in read.contents[0].text  # type: ignore[union-attr]
        # the recap prompt asks to keep new work consistent with the decisions it lists: the
        # replaced one is listed as history, the current one without a mark
        recap = await session.get_prompt("recent_decisions", {})
        lines = recap.messages[0].content.text.splitlines()  # type: ignore[union-attr]
        (old_line,) = [line for line in lines if f"({old})" in line]
        (new_line,) = [line for line in lines if f"({new})" in line]
        assert f"(replaced {done['at'][:10]} by {new}: history, not current)" in old_line
        assert "replaced" not in new_line
        undone = harness.ok(
            await session.call_tool(
                "supersede_memory", {"old_id": old, "new_id": new, "undo": True}
            )
        )
        assert undone["undone"] is True
        recalled = await session.call_tool("recall_memory", {"query": "Jenkins evening deploys"})
        assert all(h["replaced_by"] is None for h in harness.ok(recalled)["hits"])
        for args, expected in (
            ({"old_id": old, "new_id": new, "undo": True}, "nothing to undo"),
            ({"old_id": "missing", "new_id": new}, "no memory with id 'missing'"),
            ({"old_id": old, "new_id": old}, "cannot replace itself"),
        ):
            failed = await session.call_tool("supersede_memory", args)
            assert expected in harness.error_text(failed)
        assert "Traceback" not in harness.server_stderr()


async def test_linked_memories_handed_over_say_which_is_history(harness) -> None:
    """A replaced decision reached through another link (here a RELATES_TO from a note that
    mentions it) is history wherever it is handed over: an expansion of a hit and a walk of
    the graph carry what replaced it, in the text and in the structured part."""
    async with harness.session() as session:
        old = await _decision(harness, session, "We cache sessions in Redis.")
        new = await _decision(
            harness, session, "Sessions move to Memcached; Redis is dropped for sessions."
        )
        note = await _decision(harness, session, "Session cookies expire after 14 days.")
        linked = await session.call_tool(
            "supersede_memory", {"old_id": old, "new_id": new}
        )  # the rules linked them already: linking again keeps the one link
        at = harness.ok(linked)["at"]
        harness.ok(
            await session.call_tool(
                "associate_memories",
                {"source_id": note, "target_id": old, "relationship": "RELATES_TO"},
            )
        )
        expanded = await session.call_tool(
            "recall_with_expansion", {"query": "session cookies expire", "k": 1}
        )
        (hit,) = harness.ok(expanded)["hits"]
        assert hit["id"] == note
        reached = {m["id"]: m for m in hit["expanded"]}
        assert (reached[old]["replaced_by"], reached[old]["replaced_at"]) == (new, at)
        # a linked memory is a lean listing, like a hit: get_memory has the whole row
        assert "metadata" not in reached[old] and "access_count" not in reached[old]
        text = expanded.content[0].text  # type: ignore[union-attr]
        (old_line,) = [line for line in text.splitlines() if old in line]
        assert f"(replaced {at[:10]} by {new}: history, not current)" in old_line
        walked = await session.call_tool("graph_traverse", {"memory_id": note, "depth": 2})
        nodes = {n["node_id"]: n for n in harness.ok(walked)["nodes"]}
        assert nodes[old]["memory"]["replaced_by"] == new
        assert nodes[new]["memory"]["replaced_by"] is None
        assert nodes[note]["memory"]["replaced_by"] is None
        text = walked.content[0].text  # type: ignore[union-attr]
        (old_line,) = [line for line in text.splitlines() if line.strip().startswith(old)]
        assert f"(replaced {at[:10]} by {new}: history, not current)" in old_line
        (new_line,) = [line for line in text.splitlines() if line.strip().startswith(new)]
        assert "replaced" not in new_line
