"""Supersession through the engine: what a stored statement replaces is linked at write time
(SUPERSEDES / INVALIDATED_BY, with the new one's time), unrelated neighbours are not, search
ranks the replaced row below its replacement, and the manual link and its undo check their ids.
A real SQLite store in the test's home, the deterministic embedder of the test settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine, supersession
from memlode.engine.supersede_rules import Statement, answers, best_match, has_cue, kept_apart
from memlode.errors import InvalidInput, NotFound
from memlode.search.statements import adds
from memlode.storage import supersession as links


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = Engine(Settings.load({"namespace": "shop"}))
    try:
        yield eng
    finally:
        eng.close()


def _at(day: int) -> str:
    return f"2026-03-{day:02d}T10:00:00Z"


def _decided(eng: Engine, text: str, day: int) -> str:
    """The id of ``text`` stored as a decision on March ``day``."""
    return eng.store(text, "decision", created_at=_at(day)).id


def test_a_replacement_is_linked_and_its_neighbours_are_not(engine: Engine) -> None:
    old = engine.store("We cache user sessions in Redis.", "decision", created_at=_at(1)).id
    counters = engine.store("Rate-limit counters are kept in Redis.", "decision", created_at=_at(2))
    cdn = engine.store("The CDN caches product images for a day.", "decision", created_at=_at(3))
    new = engine.store(
        "Sessions move to Memcached; Redis is dropped for sessions.", "decision", created_at=_at(9)
    ).id
    made = links.linked_pairs(engine.conn, "shop")
    assert [(r.old_id, r.new_id) for r in made] == [(old, new)]
    assert made[0].at.startswith("2026-03-09") and made[0].how == "names-old"
    replaced = links.replaced_by(engine.conn, [old, counters.id, cdn.id, new])
    assert set(replaced) == {old}
    chain = supersession.decision_chain(engine.conn, new)["chain"]
    assert [(m["id"], m["current"]) for m in chain] == [(old, False), (new, True)]
    assert chain[0]["until"].startswith("2026-03-09")


def test_search_ranks_the_replaced_row_below_its_replacement(engine: Engine) -> None:
    engine.store("We cache user sessions in Redis; the session cache is Redis.", "decision")
    new = engine.store("Sessions move to Memcached instead of Redis.", "decision").id
    hits = engine.search("which cache holds user sessions, Redis?")
    ids = [h.memory.id for h in hits]
    assert ids[0] == new and len(ids) == 2
    assert hits[1].signals["superseded"] < 0  # the penalty shows in --explain
    # and the replaced hit says what replaced it, in JSON as in the listing
    assert hits[0].replaced is None and "replaced_by" not in hits[0].to_dict()
    at = engine.get(new, touch=False).created_at
    assert hits[1].to_dict()["replaced_by"] == new and hits[1].to_dict()["replaced_at"] == at


def test_a_replacement_stands_where_the_statement_it_replaced_would_have(engine: Engine) -> None:
    """A query in the replaced statement's words asks what is current on its subject: the
    replacement takes the replaced one's score (``replacing`` in --explain) and goes before a
    neighbour that shares the query's words, the replaced one just below it."""
    old = _decided(
        engine,
        "Priya owns the pre-trade risk checks; ask her before changing any position limits.",
        1,
    )
    beside = _decided(
        engine, "Pre-trade position limits are loaded from risk_limits.yaml at startup.", 2
    )
    new = _decided(engine, "Tomasz took over from Priya when she moved to the options desk.", 20)
    supersession.supersede(engine.db, old, new)
    hits = engine.search("Who signs off before I change the pre-trade position limits?", 5)
    assert [h.memory.id for h in hits] == [new, old, beside]
    assert hits[0].signals["replacing"] > 0 and hits[1].signals["superseded"] < 0
    # undone, the query's words decide again: the new one is not among the first two
    supersession.unsupersede(engine.db, old, new)
    again = engine.search("Who signs off before I change the pre-trade position limits?", 5)
    assert [h.memory.id for h in again][:2] == [old, beside]


def test_a_chain_replaces_the_current_one_and_reads_in_order(engine: Engine) -> None:
    first = engine.store("The API timeout is 30 seconds.", "decision", created_at=_at(1)).id
    second = engine.store("The API timeout is 10 seconds.", "decision", created_at=_at(5)).id
    third = engine.store("The API timeout is 20 seconds.", "decision", created_at=_at(8)).id
    pairs = {(r.old_id, r.new_id) for r in links.linked_pairs(engine.conn, "shop")}
    assert pairs == {(first, second), (second, third)}
    assert links.current_of(engine.conn, [first]) == {first: third}
    chain = supersession.decision_chain(engine.conn, first)["chain"]
    assert [m["id"] for m in chain] == [first, second, third]
    assert [m["current"] for m in chain] == [False, False, True]


def test_the_rules_leave_unrelated_statements_alone() -> None:
    earlier = [
        Statement("a", "Frontend unit tests run with Jest.", _at(1)),
        Statement("b", "End-to-end tests run with Playwright against staging.", _at(1)),
        Statement("c", "Dates are formatted with Moment.js.", _at(1)),
    ]
    switch = Statement("n", "Switch unit tests to Vitest instead of Jest.", _at(2))
    found = best_match(switch, earlier)
    assert found is not None and found.old_id == "a"
    assert best_match(Statement("m", "Icons come from the Lucide set.", _at(2)), earlier) is None
    # a label's number is another item, not a changed value; a setting's number is a change
    steps = [Statement("s1", "Step 1 of the release is tagging the commit.", _at(1))]
    assert (
        best_match(Statement("s2", "Step 2 of the release is tagging the commit.", _at(2)), steps)
        is None
    )
    retries = [Statement("r1", "Webhooks are retried 3 times per event.", _at(1))]
    found = best_match(Statement("r2", "Webhooks are retried 8 times per event.", _at(2)), retries)
    assert found is not None and found.rule == "changed-value"
    # a cue and a shared head noun are not enough: "absolute paths" is not "code path"
    earlier = [Statement("d", "Rendering goes through a separate code path.", _at(1))]
    shown = Statement("e", "Relative paths are shown instead of absolute paths.", _at(2))
    assert best_match(shown, earlier) is None


def test_a_word_of_four_letters_meets_its_plural_in_the_rules() -> None:
    """The rules stem words as the prompt gate does (``memlode.textutil.stem``): "file" and
    "files" are one subject."""
    earlier = [Statement("o", "Each file gets one owner.", _at(1))]
    found = best_match(Statement("n", "Files get two owners from now on.", _at(2)), earlier)
    assert found is not None and found.old_id == "o"


def test_a_later_answer_to_the_same_question_replaces_the_first() -> None:
    """The user's answers to the assistant's questions, as the hook keeps them: the same
    question answered otherwise replaces the first answer; the same answer again, or another
    question of the same dialog, does not."""

    def asked(memory_id: str, day: int, *pairs: tuple[str, str]) -> Statement:
        body = "\n".join(f"Q: {q}\nA (user): {a}" for q, a in pairs)
        return Statement(memory_id, "User decided:\n" + body, _at(day))

    syntax = "Syntax for the single-color gradient keyword?"
    shading = "Shading algorithm: how should the single color spread across the segment?"
    first = asked("a", 1, (syntax, "linear-gradient(#color), single stop"), (shading, "Symmetric"))
    again = asked("b", 2, (syntax, "dark-gradient(#color) and light-gradient(#color)"))
    found = best_match(again, [first])
    assert found is not None and (found.old_id, found.rule) == ("a", "answers-again")
    same = asked("c", 2, (syntax, "linear-gradient(#color), single stop"))
    assert best_match(same, [first]) is None
    other = asked("d", 2, ("Where should the shaded cells start?", "at the configured colour"))
    assert best_match(other, [first]) is None
    # the options turned down, on their own line, are no part of the answer
    offered = Statement("e", first.text.replace("Symmetric", "Symmetric\nOther options: x"), _at(1))
    assert answers(offered.text) == answers(first.text)


def test_manual_link_undo_and_bad_ids(engine: Engine, tmp_path: Path) -> None:
    a = engine.store("Tickets are tracked in Jira.", "decision").id
    b = engine.store("Documentation lives in Notion.", "decision").id
    done = supersession.supersede(engine.db, a, b)
    assert done["created"] and links.replaced_by(engine.conn, [a])[a].how == "manual"
    assert not supersession.supersede(engine.db, a, b)["created"]
    with pytest.raises(InvalidInput, match="undo that first"):
        supersession.supersede(engine.db, b, a)
    supersession.unsupersede(engine.db, a, b)
    assert links.replaced_by(engine.conn, [a]) == {}
    with pytest.raises(NotFound, match="nothing to undo"):
        supersession.unsupersede(engine.db, a, b)
    with pytest.raises(NotFound, match="no memory with id 'nope'"):
        supersession.supersede(engine.db, "nope", b)
    with pytest.raises(InvalidInput, match="cannot replace itself"):
        supersession.supersede(engine.db, a, a)
    other = engine.store("Tickets are tracked in Linear.", "decision", namespace="elsewhere").id
    with pytest.raises(InvalidInput, match="namespace"):
        supersession.supersede(engine.db, a, other)


def test_the_dashboard_marks_a_replaced_memory(engine: Engine) -> None:
    from memlode.engine import dashboard

    old = engine.store("Tickets are tracked in Jira.", "decision", created_at=_at(1)).id
    new = engine.store("Tickets moved from Jira to Linear.", "decision", created_at=_at(4)).id
    items = {i["id"]: i for i in dashboard.browse(engine)["items"]}
    assert items[old]["replaced_by"] == new
    assert items[old]["replaced_at"].startswith("2026-03-04")
    assert "replaced_by" not in items[new]
    assert dashboard.memory_detail(engine, old)["memory"]["replaced_by"] == new


def test_the_meaning_rule_links_a_changed_statement_its_wording_rules_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model: a statement that says it changes something, in other words than the
    earlier one's, is linked once it is embedded; its neighbours, and a new statement with no
    change in it, are not."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    with Engine(Settings.load({"namespace": "climate"})) as eng:
        old = _decided(
            eng,
            "Long runs are checkpointed to disk every 6 simulated hours.",
            1,
        )
        eng.store("Output is written as netCDF-4 files by rank 0.", "decision", created_at=_at(2))
        eng.store("Unit tests run with pFUnit in CI.", "decision", created_at=_at(3))
        plain = eng.store(
            "Restart files are written every simulated month.", "decision", created_at=_at(4)
        ).id
        new = _decided(
            eng,
            "Checkpoints are taken once per simulated day now, to cut the I/O load.",
            9,
        )
        assert links.linked_pairs(eng.conn, "climate") == []  # no wording rule reads it
        eng.embed_pending()
        made = links.linked_pairs(eng.conn, "climate")
        assert [(r.old_id, r.new_id, r.how) for r in made] == [(old, new, "same-meaning")]
        assert plain not in links.replaced_by(eng.conn, [plain])
        hits = eng.search("how often do long runs checkpoint?")
        assert hits[0].memory.id == new


def test_the_meaning_rule_needs_a_clear_nearest_statement(engine: Engine) -> None:
    """Two earlier statements about as near as each other: neither is linked."""
    first = _decided(
        engine,
        "Nightly jobs are scheduled by Jenkins on the build01 agent with a two hour timeout.",
        1,
    )
    second = _decided(
        engine,
        "Release jobs are triggered from Jenkins after a tag is pushed.",
        2,
    )
    new = _decided(
        engine,
        "GitHub Actions now runs the nightly jobs from a cron workflow with a matrix of runners.",
        9,
    )
    assert links.linked_pairs(engine.conn, "shop") == []  # no wording rule reads it
    table = {first: 0.7, second: 0.68}

    def cosines(_memory_id: str, others: list[str]) -> list[float]:
        return [table[o] for o in others]

    assert supersession.plan_by_meaning(engine.conn, [new], cosines) == []
    table[second] = 0.5
    found = supersession.plan_by_meaning(engine.conn, [new], cosines)
    assert [(r.old_id, r.new_id) for r in found] == [(first, new)]


def test_same_opening_does_not_link_two_things_done_to_one_subject() -> None:
    limited = Statement("o", "User samples are limited to 60 seconds.", _at(1))
    decoded = Statement("n", "User samples are decoded by JUCE's AudioFormatManager.", _at(2))
    assert best_match(decoded, [limited]) is None
    weekly = Statement("w", "The churn model is retrained weekly.", _at(2))
    monthly = Statement("m", "The churn model is retrained monthly.", _at(1))
    found = best_match(weekly, [monthly])
    assert found is not None and found.rule == "same-opening"
    # a participle written with a hyphen, and a participle beside a noun: two things said
    cycled = Statement("c", "The barotropic mode is sub-cycled 30 times per step.", _at(1))
    solved = Statement("s", "The barotropic mode is solved with our own CG solver.", _at(2))
    assert best_match(solved, [cycled]) is None
    views = Statement("v", "The staging models are materialized as views.", _at(1))
    named = Statement("n", "The staging models are one per source table.", _at(2))
    assert best_match(named, [views]) is None
    tables = Statement("t", "The staging models are materialized as tables.", _at(2))
    found = best_match(tables, [views])
    assert found is not None and found.old_id == "v"


def test_replaced_followed_by_a_colon_names_what_goes() -> None:
    """ "Replaced the quickfix output: …" names the quickfix output as what goes, so it does not
    replace a statement about the floating window it mentions afterwards."""
    window = Statement(
        "w", "The floating summary window uses the FloatBorder highlight for its border.", _at(1)
    )
    quickfix = Statement("q", "Test failures are listed in the quickfix window.", _at(1))
    replaced = (
        "Replaced the quickfix output: failures are now diagnostics on the test buffer, plus a "
        "floating summary window."
    )
    assert _replaced(replaced, window) is None
    assert _replaced(replaced, window, quickfix) == "q"


def test_search_puts_a_later_statement_on_the_same_subject_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model: a later statement on the same subject as an earlier one goes before it
    even where no rule linked them and the question's words score the earlier one higher; a
    later one that says it adds ("also") stays where its score puts it."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    with Engine(Settings.load({"namespace": "shop"})) as eng:
        old = _decided(
            eng,
            "Background jobs run on Sidekiq, with Redis holding the queues.",
            1,
        )
        eng.store(
            "Emails are sent through Postmark from the mailers in app/mailers.",
            "decision",
            created_at=_at(2),
        )
        adds = _decided(
            eng,
            "Background jobs on Sidekiq also retry five times, with Redis holding the dead set.",
            20,
        )
        new = _decided(
            eng,
            "GoodJob processes the background jobs, with the queues held in Postgres.",
            21,
        )
        eng.embed_pending()
        assert links.linked_pairs(eng.conn, "shop") == []  # no rule links them
        hits = eng.search("Which Sidekiq queue should the export job go on?", 5)
        order = [h.memory.id for h in hits]
        score = {h.memory.id: h.score for h in hits}
        assert order[:3] == [new, old, adds]
        assert score[new] < score[old]  # by its score alone it came after the earlier one
        assert score[adds] < score[old]


def test_statements_of_one_sitting_keep_their_places_by_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model: the same two statements as above, the second stored ten minutes after
    the first (several decisions stored in one go): neither is the later answer to the other's
    question, so search leaves them where their scores put them; an hour apart, the later one
    goes first again."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    question = "Which Sidekiq queue should the export job go on?"
    for gap, later_first in (("10:10", False), ("11:00", True)):
        with Engine(Settings.load({"namespace": f"shop {gap}"})) as eng:
            old = _decided(eng, "Background jobs run on Sidekiq, with Redis holding the queues.", 1)
            new = eng.store(
                "GoodJob processes the background jobs, with the queues held in Postgres.",
                "decision",
                created_at=f"2026-03-01T{gap}:00Z",
            ).id
            eng.embed_pending()
            assert eng.embeddings.cosines(new, [old])[0] >= links.SAME_SUBJECT_COSINE
            order = [h.memory.id for h in eng.search(question, 5)]
            assert order[:2] == ([new, old] if later_first else [old, new]), gap


def test_a_later_statement_in_other_words_goes_first_when_the_question_asks_both_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model: a replacement said in other words is less alike to what it replaces
    than SAME_SUBJECT_COSINE (0.67 here); it still goes first when the question matches it
    nearly as well as the earlier one (0.10 apart, within ASKED_GAP), and keeps its place by
    score when the question is worded like the earlier one far more (0.19 apart)."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    with Engine(Settings.load({"namespace": "till (Django shop)"})) as eng:
        old = _decided(eng, "Invoices are numbered by a counter in Redis, one per shop.", 1)
        eng.store(
            "Order confirmation emails are sent through Postmark from the orders app.",
            "decision",
            created_at=_at(2),
        )
        new = _decided(
            eng,
            "Billing documents take nextval from a Postgres sequence of their shop in the"
            " INSERT trigger.",
            22,
        )
        eng.embed_pending()
        assert links.linked_pairs(eng.conn, "till (Django shop)") == []  # no rule links them
        alike = eng.embeddings.cosines(new, [old])[0]
        assert links.ASKED_SUBJECT_COSINE <= alike < links.SAME_SUBJECT_COSINE
        hits = eng.search("Which store hands out invoice numbers?", 5)
        order = [h.memory.id for h in hits]
        score = {h.memory.id: h.score for h in hits}
        assert order[:2] == [new, old] and score[new] < score[old]
        worded_like_old = [h.memory.id for h in eng.search("How do invoices get their numbers?", 5)]
        assert worded_like_old.index(old) < worded_like_old.index(new)


def test_of_several_later_statements_on_an_earlier_ones_subject_the_latest_goes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model: a neighbouring statement stored a day after the earlier one and the one
    that replaces it a month later are both on its subject, and both go before it; the month-old
    one goes first, though the neighbour scored higher (after a training update case)."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    project = "kestrel (C++ low-latency trading engine)"
    with Engine(Settings.load({"namespace": project})) as eng:
        old = _decided(eng, "The engine restarts every night at 22:15 UTC to reset the books.", 1)
        beside = _decided(
            eng, "Restarts of the engine are driven by a systemd timer on each trading host.", 2
        )
        new = _decided(
            eng, "Nightly book-reset restart happens at 23:30 UTC, to fit the new CME window.", 28
        )
        eng.embed_pending()
        assert links.linked_pairs(eng.conn, project) == []  # no rule links them
        hits = eng.search("When does the engine do its daily restart?", 5)
        order = [h.memory.id for h in hits]
        score = {h.memory.id: h.score for h in hits}
        assert order[:3] == [new, beside, old]
        assert score[old] > score[beside] > score[new]  # by score alone: the other way round


def test_a_statement_that_adds_is_told_from_one_that_changes() -> None:
    assert adds("We now also upload the final checkpoint as an artifact.")
    assert adds("Switched on OpenTelemetry metrics as well; durations go to the collector.")
    assert adds("From now on we run a second Celery worker for the imports queue.")
    assert not adds("State estimation moved to the fuse smoother; it also takes the RTK fixes.")
    assert not adds("Reverted to the single-pass filter - the extra pass doubled the time.")
    assert not adds("Grover renders the invoice PDFs now.")
    assert adds("Added a safelist in rack_attack.rb for the uptime monitor's IP range.")
    assert adds("We added a retry interceptor in interceptors.ts for idempotent GETs.")
    assert not adds("Added Redis for the sessions instead of Memcached.")
    assert not adds("Added up the costs: the build now takes 40 minutes.")


def test_the_rules_link_nothing_to_a_statement_that_adds_or_names_another_value() -> None:
    """A statement that says it adds replaces nothing, whatever its change words; one that names
    what it replaces ("from Mocha to Vitest") replaces only a statement that holds that value,
    not another on the same subject ("the unit tests")."""
    pool = Statement("p", "The worker pool uses 4 threads per core.", _at(1))
    also = Statement("q", "The image pool now also uses 4 threads per core.", _at(2))
    assert best_match(also, [pool]) is None
    coverage = Statement("c", "The coverage job runs nyc over the unit tests.", _at(1))
    runner = Statement("r", "The unit tests run with Mocha.", _at(1))
    switched = "Switched the unit tests from Mocha to Vitest."
    assert _replaced(switched, coverage) is None
    assert _replaced(switched, coverage, runner) == "r"


def _replaced(new: str, *earlier: Statement) -> str | None:
    """The id of the one of ``earlier`` that ``new`` (stated after them) replaces, if any."""
    found = best_match(Statement("new", new, _at(28)), list(earlier))
    return found.old_id if found is not None else None


def _only_the_change_replaces(old: Statement, change: str, *beside: str) -> None:
    """Each of ``beside`` replaces nothing of ``old``; ``change`` replaces it."""
    for text in beside:
        assert _replaced(text, old) is None, text
    assert _replaced(change, old) == old.id


def test_a_change_to_the_value_a_statement_holds_or_away_from_one_it_excludes_replaces_nothing(
    engine: Engine,
) -> None:
    """ "Bumped Node to 20" after "targets Node 20" confirms it (by any rule, the meaning rule
    too); "switched the bus from Kafka" replaces the statement that the bus is Kafka, not one
    that says its logs are "not in Kafka"."""
    bumped = "Bumped Node in the gateway image to 20."
    same = Statement("s", "The gateway image targets Node 20.", _at(1))
    older = Statement("o", "The gateway image runs Node 18.", _at(1))
    assert _replaced(bumped, same) is None
    assert _replaced(bumped, older) == "o"
    audit = Statement("a", "Audit events are kept in the audit_events table, not in Kafka.", _at(1))
    bus = Statement("b", "The event bus between the services is Kafka.", _at(1))
    switched = "Switched the event bus from Kafka to NATS."
    assert _replaced(switched, audit) is None
    assert _replaced(switched, audit, bus) == "b"

    first = _decided(engine, "The gateway image targets Node 20.", 1)
    new = _decided(engine, "Bumped Node in the gateway image to 20.", 3)
    assert links.linked_pairs(engine.conn, "shop") == []
    assert supersession.plan_by_meaning(engine.conn, [new], lambda _m, o: [0.9] * len(o)) == []
    assert first


def test_switch_and_drop_as_nouns_are_no_change_words() -> None:
    """ "the kill switch", "a switch test", "the errata drop", "a drop in latency" name things; a
    verb "switch" says what to or from, and "dropped" is a verb wherever it stands."""
    for text in (
        "The circuit switch is tested every Friday.",
        "Friday's circuit switch test took 40 ms, inside the budget.",
        "Maintenance starts right after the monthly firmware drop.",
        "A drop in latency followed the index change.",
    ):
        assert not has_cue(text), text
    for text in (
        "We switch the cache to Memcached.",
        "The switch to Postgres is done.",
        "Redis is dropped.",
        "We drop Redis for sessions.",
    ):
        assert has_cue(text), text
    # two things done to one subject, which a change word would have linked
    tested = Statement("o", "The circuit switch is wired through the admin port.", _at(1))
    again = Statement("n", "The circuit switch is tested every Friday.", _at(2))
    assert best_match(again, [tested]) is None


def test_replacing_names_what_was_linked_and_offers_what_may_be_replaced(engine: Engine) -> None:
    """``Engine.replacing``, the MCP store answer's source: what the rules linked (the wording
    rules at store time, the meaning rule once embedded), then the earlier statements of the
    same type on the same subject that nothing linked, nearest first; never a statement of
    another type, a replaced one (history), or anything for a statement that says it adds."""
    kong = _decided(engine, "Kong fronts every public API route of the shop.", 1)
    engine.store("Kong fronts every public API route of the shop, as a note.", created_at=_at(2))
    _decided(engine, "The checkout page is rendered on the server.", 3)
    envoy = _decided(engine, "Envoy fronts every public API route of the shop, with limits.", 4)
    linked, maybe = engine.replacing(envoy)
    assert linked == [] and [m.id for m in maybe] == [kong]  # not the context note
    supersession.supersede(engine.db, kong, envoy)
    linked, maybe = engine.replacing(envoy)
    assert [m.id for m in linked] == [kong] and maybe == []
    also = _decided(engine, "Also, Envoy fronts every public API route of the shop for admins.", 5)
    assert engine.replacing(also) == ([], [])  # it adds; and Kong is history now anyway
    later = _decided(engine, "Traefik fronts every public API route of the shop, with limits.", 6)
    offered = [m.id for m in engine.replacing(later)[1]]
    assert offered[0] == envoy and kong not in offered  # not Kong: replaced already


_TOKENS = "Production API tokens expire after 30 days."


def test_an_exception_for_a_while_or_elsewhere_and_another_compound_name_replace_nothing() -> None:
    """A time-boxed exception ("for the Black Friday weekend only") and a statement about
    another environment or kind of build leave the rule beside them current; a compound name
    that goes ("json-server") is held only by a statement that holds all of it. The meaning rule
    keeps the first two apart as well."""
    free = Statement("f", "Shipping is free on orders over 50 EUR.", _at(1))
    friday = "For the Black Friday weekend only, free shipping now starts at 30 EUR."
    assert _replaced(friday, free) is None
    golden = Statement("g", "Golden tests are required on every branch before merge.", _at(1))
    _only_the_change_replaces(
        golden,
        "Golden tests are no longer required on the release branch.",
        "Golden tests are no longer required on the release branch until Friday.",
        "During the renderer migration, golden tests are no longer required on release branches.",
        "For this week, golden tests are no longer required on the release branch.",
    )
    assert _replaced("Free shipping now starts at 30 EUR.", free) == "f"
    release = Statement("r", "Release builds report crashes to Crashlytics.", _at(1))
    assert (
        _replaced("Debug builds have Crashlytics disabled; crashes go to Logcat.", release) is None
    )
    assert (
        _replaced("Release builds no longer report to Crashlytics; Sentry instead.", release) == "r"
    )
    dev = Statement("d", "The dev server runs on port 5173 with HTTPS via mkcert.", _at(1))
    mock = Statement("m", "The mock API server is json-server with db.json.", _at(1))
    switched = "Switched the dev mock server from json-server to MSW handlers."
    assert _replaced(switched, dev) is None
    assert _replaced(switched, dev, mock) == "m"
    # through the engine, each beside the rule in a namespace of its own: neither the wording
    # rules nor the meaning rule (its nearest statement is the rule) link an exception, and a
    # change of the rule itself is linked
    for number, (text, replaces) in enumerate(
        [
            ("For the launch weekend only, API tokens no longer expire.", False),
            ("Staging API tokens are now rotated every night by a cron job.", False),
            ("Production API tokens now last a whole quarter.", True),
        ]
    ):
        with Engine(Settings.load({"namespace": f"tokens{number}"})) as eng:
            rule = _decided(eng, _TOKENS, 1)
            later = _decided(eng, text, 2)
            planned = supersession.plan_by_meaning(
                eng.conn, [later], lambda _m, others: [0.9] * len(others)
            )
            made = links.linked_pairs(eng.conn, f"tokens{number}") + planned
            assert [(r.old_id, r.new_id) for r in made] == ([(rule, later)] if replaces else [])
    assert not kept_apart("Production API tokens now last a whole quarter.", _TOKENS)


def test_search_keeps_a_rule_before_its_exception_for_a_while_or_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model: a later statement on an earlier one's subject that holds for one release
    only, or on another platform or environment, is no later answer to its question: search
    leaves the earlier one first, and no rule links the two (before, the first two went first,
    moved there as later answers, and the third was linked as a changed value)."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    pairs = [
        (
            "Deploys go out every Tuesday after the release review.",
            "For the 4.2 release only, deploys go out on Thursday because of the conference.",
            "Which day do deploys go out?",
        ),
        (
            "On Linux, the indexer watches files with inotify.",
            "On macOS, the indexer watches files with FSEvents through a small Swift helper.",
            "How does the indexer watch files on Linux?",
        ),
        (
            "Production logs are shipped to Loki and kept for 30 days.",
            "Staging logs are shipped to Loki too but kept for 3 days only.",
            "How long are production logs kept?",
        ),
    ]
    with Engine(Settings.load({"namespace": "shop"})) as eng:
        stored = [
            (_decided(eng, rule, 1 + i), _decided(eng, other, 20 + i), question)
            for i, (rule, other, question) in enumerate(pairs)
        ]
        eng.embed_pending()
        assert links.linked_pairs(eng.conn, "shop") == []
        for rule, other, question in stored:
            order = [h.memory.id for h in eng.search(question, 5)]
            assert order.index(rule) < order.index(other), question


def test_a_stated_pattern_is_a_statement_a_detected_one_is_not(engine: Engine) -> None:
    """A pattern a user stores is replaced like a decision; a pattern consolidation detected
    (source ``consolidation``, a count over sessions) is never read by the rules."""
    old = engine.store(
        "Data access goes through one repository class per aggregate.",
        "pattern",
        created_at=_at(1),
    ).id
    new = engine.store(
        "Dropped the repository classes; data access goes through Ecto contexts now.",
        "pattern",
        created_at=_at(5),
    ).id
    made = links.linked_pairs(engine.conn, "shop")
    assert [(r.old_id, r.new_id) for r in made] == [(old, new)]
    detected = engine.store(
        "Repeated search across 3 sessions: repository classes per aggregate.",
        "pattern",
        created_at=_at(2),
        source="consolidation",
    ).id
    engine.store(
        "Dropped the repeated searches for repository classes per aggregate.",
        "pattern",
        created_at=_at(6),
    )
    assert detected not in {r.old_id for r in links.linked_pairs(engine.conn, "shop")}


def test_a_plan_a_question_a_reverse_proxy_and_another_package_bump_replace_nothing() -> None:
    """ "We are considering …", "… proposed …; nothing is decided", "might", "asked whether"
    decide nothing; "reverse proxy" is a noun, not "reversed"; a bump of "delta-spark" changes
    nothing of a statement on Spark itself. The same statements, changed, are linked."""
    scaling = Statement(
        "s", "Autoscaling is a KEDA ScaledObject on request queue length, 20 per pod.", _at(1)
    )
    assert (
        _replaced("We are considering scaling on GPU utilisation instead of queue length.", scaling)
        is None
    )
    assert (
        _replaced("Autoscaling now uses GPU utilisation instead of queue length.", scaling) == "s"
    )
    analytics = Statement("a", "Gameplay analytics go to GameAnalytics in batches.", _at(1))
    for plan in (
        "We might switch gameplay analytics to Firebase next quarter.",
        "Someone asked whether we could switch gameplay analytics to Firebase.",
    ):
        assert _replaced(plan, analytics) is None, plan
    assert _replaced("Gameplay analytics moved to Firebase.", analytics) == "a"
    assert not has_cue("The reverse proxy adds the security headers.")
    # a new owner, and a fix since a version, say that something changed
    assert has_cue("Marcus took over the timetable module in March.")
    assert has_cue("Network-drive vaults on Windows work since 3.2.0.")
    assert not has_cue("The timetable module is owned by Priya.")
    assert has_cue("We reversed the decision on the proxy.")
    spark = Statement("k", "build.sbt targets Spark 3.3.2 with Scala 2.12.17.", _at(1))
    assert _replaced("Bumped delta-spark to 3.2.0 for deletion vectors.", spark) is None
    assert kept_apart("Bumped delta-spark to 3.2.0 for deletion vectors.", spark.text)
    assert not kept_apart("Bumped Spark to 3.5.1 in build.sbt.", spark.text)


def test_a_detail_a_reminder_an_open_question_a_dated_span_an_unrelated_fix_replace_nothing() -> (
    None
):
    """Labelled details and reminders add to or repeat a rule; "Idea: …?", "Question from …",
    "parked", "not agreed" decide nothing; a span of dates ("Jan 1-14") holds for a while; the
    report of a fix replaces only a statement of a problem; "switched the refund worker from …"
    replaces only a statement about the refund worker. The same statements, changed, are
    linked (training update set F, session 33)."""
    paywall = Statement("p", "Paywall: free users get 3 workout plans; others need Plus.", _at(1))
    campaign = (
        "For the New Year campaign (Jan 1-14) all plans are unlocked for free users; the 3-plan"
        " limit is back on Jan 15."
    )
    assert kept_apart(campaign, paywall.text)
    assert _replaced(campaign.replace("(Jan 1-14) ", "").split(";")[0] + " from now on.", paywall)
    opam = Statement("o", "Release binaries go to GitHub only; Tarn is not on opam.", _at(1))
    plans = (
        "Idea: publish tarn to opam once the CLI stabilises? Jules wants it; parked for now.",
        "Question from Discourse: should tarn be published to opam instead of GitHub only?",
        "Publishing tarn to opam instead of GitHub only: not agreed yet.",
    )
    _only_the_change_replaces(opam, "Tarn is published to opam now instead of GitHub only.", *plans)
    assert all(kept_apart(plan, opam.text) for plan in plans)
    rule = "Examples use the mutating f!(du,u,p,t) form."
    assert adds("Reminder for doc writers: examples use the mutating f!(du,u,p,t) form.")
    assert adds("KenCarp4 controller detail: the step ratio is clamped to [0.2, 10].")
    assert not adds("Examples no longer use the mutating form: " + rule)
    backups = Statement("b", "Offsite backups: restic to B2 nightly at 03:30 on hermes.", _at(1))
    failing = Statement("f", "restic backups on hermes are failing since the sops move.", _at(1))
    fix = "Fixed restic backups failing on hermes: the environmentFile pointed at the old path."
    assert _replaced(fix, backups) is None
    assert kept_apart(fix, backups.text)
    assert _replaced(fix, backups, failing) == "f"
    outbox = Statement(
        "e", "Payment events go to Kafka through an outbox table polled every 500 ms.", _at(1)
    )
    refunds = Statement("r", "The refund worker polls Postgres for refund requests.", _at(1))
    switched = "Switched the refund worker from polling Postgres to consuming Kafka."
    assert _replaced(switched, outbox) is None
    assert kept_apart(switched, outbox.text)
    assert _replaced(switched, outbox, refunds) == "r"
    # what it switched from, held whole, is what a statement holds, whatever the subject's name
    avro = Statement("a", "Event payloads are Avro with the Confluent Schema Registry.", _at(1))
    migrated = "We migrated all topics from Avro to Protobuf; the schema registry stays."
    assert _replaced(migrated, avro) == "a"


def test_the_meaning_rule_reads_one_sitting_as_one_account(engine: Engine) -> None:
    """A statement stored minutes after another near one is read as a second part of one
    account, not as an answer that replaces it; the same statement a day later is linked. The
    wording rules keep no such gap: a change of mind that says what it drops is linked at once
    (training update set G, session 33)."""
    route = engine.store(
        "Route optimisation runs as a Celery task on the heavy queue, concurrency 2.",
        "decision",
        created_at="2026-03-01T10:00:00Z",
    ).id
    scaling = "Celery autoscaling was removed; worker counts are fixed per queue."

    def near(_memory_id: str, others: list[str]) -> list[float]:
        return [0.85 if o == route else 0.3 for o in others]

    soon = engine.store(scaling, "decision", created_at="2026-03-01T10:02:00Z").id
    assert links.linked_pairs(engine.conn, "shop") == []  # no wording rule reads it
    assert supersession.plan_by_meaning(engine.conn, [soon], near) == []
    engine.delete(soon)
    later = engine.store(scaling, "decision", created_at="2026-03-02T10:00:00Z").id
    found = supersession.plan_by_meaning(engine.conn, [later], near)
    assert [(r.old_id, r.new_id) for r in found] == [(route, later)]
    old = engine.store("Unit tests run with Jest.", "decision", created_at="2026-03-03T10:00:00Z")
    new = engine.store(
        "Unit tests run with Vitest instead of Jest.", "decision", created_at="2026-03-03T10:05:00Z"
    )
    made = {(r.old_id, r.new_id) for r in links.linked_pairs(engine.conn, "shop")}
    assert (old.id, new.id) in made


def test_a_named_noun_that_goes_an_open_question_and_a_noun_drop_replace_nothing() -> None:
    """ "The old /v1/tracking/push endpoint was removed" names which endpoint: a statement must
    hold the name too; "Does anyone know if … instead of Parquet? Asking for Priya." and
    "Should we …?" decide nothing, but "Do we …? No, …" does; "Drop rates must be shown" is no
    change word; the report of a fix that "now locks the row" replaces no statement of how
    numbers look (training update set G, session 33)."""
    throttle = Statement(
        "t", "Carrier endpoints are throttled at 600 req/min; the anon throttle is off.", _at(1)
    )
    push = Statement(
        "p", "Carriers post tracking events to the /v1/tracking/push endpoint.", _at(1)
    )
    removed = "The old /v1/tracking/push endpoint was removed in March; carriers post to /v2."
    assert _replaced(removed, throttle) is None
    assert _replaced(removed, throttle, push) == "p"
    parquet = Statement("q", "The IO manager writes Parquet to s3://lake/<asset>.", _at(1))
    asked = "Does anyone know if the IO manager should write Delta instead of Parquet? Asking."
    assert _replaced(asked, parquet) is None
    assert _replaced("Should the IO manager write Delta instead of Parquet?", parquet) is None
    assert (
        _replaced(
            "Does the IO manager still write Parquet? No, Delta instead of Parquet now.", parquet
        )
        == "q"
    )
    assert not has_cue("Drop rates must be shown in the in-game info screen.")
    assert has_cue("Drop the cached drop rates table.")
    numbers = Statement("n", "Order numbers look like SF-<year>-<sequence>.", _at(1))
    fixed = "Fixed the race in the order number generator; it now locks the sequence row."
    assert _replaced(fixed, numbers) is None
    assert kept_apart(fixed, numbers.text)


def test_a_label_of_details_tells_a_change_in_full() -> None:
    """ "<subject> detail:" adds to its subject; "Migration details:" tells a change in full."""
    told = "Migration details: sessions moved to Memcached; Redis is dropped for sessions."
    assert not adds(told)
    assert _replaced(told, Statement("r", "We cache user sessions in Redis.", _at(1))) == "r"


_FERRY = [
    "The ferry API is served by chi routers behind Caddy.",
    "ferry keeps its tickets in Postgres 15 on the managed cluster.",
    "Ticket prices are computed in cents as int64, never floats.",
    "ferry logs JSON lines through zerolog to stdout.",
    "Background work in ferry runs on River queues in the same Postgres.",
    "ferry's CI runs golangci-lint and go test -race on every push.",
    "Sailings are imported nightly from the port authority's CSV feed.",
    "ferry sends booking confirmations by email through Postmark.",
    "Feature flags in ferry are read from environment variables at start.",
    "ferry deploys to Fly.io with two machines in Amsterdam.",
]


def test_a_later_statement_alike_only_in_its_project_keeps_its_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The real model: ten decisions of one Go service, one a subject, each a day apart. The
    feature-flag one is as alike to the logging one as ASKED_SUBJECT_COSINE by what every
    statement of the project shares, and nothing else; asked about logging, the question
    matches both about as well: the logging decision stays first. A replacement is still put
    before what it replaces."""
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")
    with Engine(Settings.load({"namespace": "ferry (Go booking service)"})) as eng:
        ids = [_decided(eng, text, day) for day, text in enumerate(_FERRY, start=1)]
        hetzner = _decided(
            eng, "ferry runs on Hetzner now: three VMs behind a load balancer in Falkenstein.", 20
        )
        eng.embed_pending()
        logging, flags, fly = ids[3], ids[8], ids[9]
        assert eng.embeddings.cosines(flags, [logging])[0] >= links.ASKED_SUBJECT_COSINE
        assert eng.search("How does ferry do logging?", 5)[0].memory.id == logging
        order = [h.memory.id for h in eng.search("Where is ferry deployed?", 5)]
        assert order.index(hetzner) < order.index(fly)
