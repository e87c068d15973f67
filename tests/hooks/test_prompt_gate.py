"""The UserPromptSubmit gate and what it injects, through the real hook process.

- a prompt whose distinctive words nothing stored holds gets nothing, even when its generic
  words ("add", "page", "test") match many memories;
- a long memory is shown by the passage about the prompt, not by its first lines;
- the same text stored twice (a transcript chunk and a doc chunk of one summary) is one item;
- a stored prompt is never injected (a question is not an answer);
- an instruction needs words and vector in one memory; a one-word question about a stored
  statement is answered by it, on the lean path too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.engine import Engine
from memlode.hooks.injection import WORD_TAIL, excerpt
from memlode.storage.values import NewMemory
from memlode.textutil import stem


def _prompt(project: Path, text: str, session: str = "next-day") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(project / f"{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def _injected(result: Any) -> str:
    if not result.stdout.strip():
        return ""
    return str(result.context()["hookSpecificOutput"]["additionalContext"])


def _store_project_history(engine: Engine) -> None:
    filler = " ".join(f"Step {i}: add the page test and run the suite again." for i in range(40))
    engine.store(
        f"{filler} The fix for the flaky login test was to start the sandbox owner with "
        "start_owner! and shared: true in the ConnCase setup. " + filler,
        "insight",
        source="transcript",
    )
    for i in range(12):
        engine.store(f"Add the page {i} test; the page test suite passed", "context")


def test_unrelated_prompt_gets_nothing(hook, project: Path, proj_engine: Engine):
    _store_project_history(proj_engine)
    result = hook("prompt", _prompt(project, "Add two-factor TOTP login to the settings page"))
    assert result.returncode == 0
    assert _injected(result) == ""


def test_long_memory_is_shown_by_its_relevant_passage(hook, project: Path, proj_engine: Engine):
    _store_project_history(proj_engine)
    result = hook(
        "prompt", _prompt(project, "what fixed the flaky login test with the sandbox owner?")
    )
    text = _injected(result)
    assert "start_owner!" in text and "shared: true" in text


def test_duplicates_count_once_and_prompts_are_not_answers(
    hook, project: Path, proj_engine: Engine
):
    summary = (
        "Compaction summary: the annotations migration was hand-written because SQLite cannot "
        "ALTER a column; the generated one rebuilt the whole table."
    )
    proj_engine.store(summary, "context", source="transcript")
    proj_engine.store("MEMORY.md > " + summary, "context", source="doc")
    hook("prompt", _prompt(project, "why was the annotations migration hand-written?", "old"))
    text = _injected(
        hook("prompt", _prompt(project, "why was the annotations migration hand-written?"))
    )
    assert "SQLite cannot" in text
    assert text.count("SQLite cannot") == 1
    assert "why was the annotations migration hand-written?" not in text


def test_excerpt_keeps_the_matching_window():
    content = "intro " * 300 + "the answer is ReviewTokenStore one-time token " + "outro " * 300
    shown = excerpt(content, frozenset({"reviewtokenstor", "token"}), 200)
    assert "ReviewTokenStore" in shown and len(shown) <= 202 + WORD_TAIL
    assert shown.startswith("…") and shown.endswith("…")
    assert shown[:-1].endswith("outro")  # never cut in the middle of a word
    assert excerpt("short text", frozenset({"short"}), 200) == "short text"


def test_an_excerpt_runs_on_to_the_end_of_the_word_it_would_cut():
    """A passage cut inside a path or a command ("print prima…") loses what it names: whatever
    the room, the passage ends on a whole word of the memory."""
    content = "x " * 200 + "against the real config: ran /tmp/omp print primary --config a.json"
    content += " trailing" * 50
    whole = set(content.split())
    for limit in range(60, 100):
        shown = excerpt(content, frozenset({"config", "real"}), limit)
        assert shown.rstrip("…").split()[-1] in whole, (limit, shown)


def test_one_memory_whose_passage_overruns_its_share_is_still_shown():
    """A passage runs on to the end of its last word, past its share; a single memory's line
    then overruns the room, is clipped into it, and is shown, not dropped with the block."""
    from memlode.hooks._recall import Recalled
    from memlode.hooks.injection import prompt_context

    filler = " ".join(f"step {i} of the run went through without a report." for i in range(90))
    content = f"User: build the AppImage. {filler} AppImage built (9.5 MB). {filler} {filler}"
    memory = Recalled("m1", content, "context", "2026-12-01T10:00:00Z", 1.0, source="hook")
    memory.terms = {"appimag": 1.0, "built": 1.0}
    for budget in range(7990, 8010):
        shown = prompt_context([memory], budget)
        assert "9.5 MB" in shown and len(shown) <= budget, budget


def test_an_excerpt_shows_the_two_places_that_hold_the_prompts_words():
    """ "How did you pull the failing part of the CI log?" over a turn that names the CI check
    early and runs `gh run view --log-failed` late: one window cannot hold both, so the best
    one is cut down to its words and what follows them, and the words it leaves out get a
    passage of their own."""
    content = (
        "asked about the CI check that failed on PR 7716: "
        + "filler " * 60
        + "then ran gh run view --job 42 --log-failed to read only the failing steps "
        + "trailing " * 60
    )
    terms = {"ci": 3.8, "pr": 3.6, "fail": 1.7, "log": 2.1}
    shown = excerpt(content, terms, 400)
    assert "CI check" in shown and "PR 7716" in shown and "--log-failed" in shown
    first, second = shown.rstrip("…").split("…")[:2]
    assert "CI check" in first and "--log-failed" in second
    assert len(shown) <= 400 + 2 * WORD_TAIL
    # one place holds every word: one passage, as before
    together = "filler " * 80 + "the CI log of PR 7716 failed " + "trailing " * 80
    assert excerpt(together, terms, 400).count("…") == 2


def test_a_passage_at_the_end_of_a_memory_takes_its_room_before_the_match():
    content = "words " * 200 + "the last line names the answer"
    shown = excerpt(content, {"answer": 1.0}, 200)
    assert shown.endswith("the answer") and len(shown) >= 190


def _gate(engine: Engine, prompt: str, content: str, cosine: float) -> list[str]:
    from memlode.hooks._recall import Recalled, choose

    memory_id = engine.store(content, "insight").id
    hits = choose(
        engine.conn,
        prompt,
        [(Recalled(memory_id, content, "insight", "2026-11-24T10:00:00Z", 1.0), cosine)],
        8,
        rerank=False,
    )
    return [h.id for h in hits]


def _unseen_share(engine: Engine, prompt: str) -> float:
    """The share of ``prompt``'s information carried by words no memory holds."""
    from memlode.hooks import _recall

    unseen: dict[str, str] = {}
    weights = _recall._idf_weights(engine.conn, _recall._gate_terms(prompt), "", None, unseen)
    return sum(weights[t] for t in unseen) / sum(weights.values())


def test_weak_words_and_a_weak_vector_together_pass_the_gate(proj_engine: Engine):
    """A paraphrase ("blew up", "first time round") leaves words unmatched: the words alone
    and the vector alone are too weak, the two together answer."""
    from memlode.hooks import _recall

    _store_project_history(proj_engine)
    prompt = "The controller tests blew up on with_span the first time round; what was wrong?"
    fix = "with_span became a defmacro"
    below = _recall.MIN_VECTOR_SCORE - 0.02
    weights = _recall._idf_weights(proj_engine.conn, _recall._gate_terms(prompt))
    coverage = (weights["with_span"] + weights["span"]) / sum(weights.values())
    # the premise: the words alone are too weak, the words and the vector together enough
    assert coverage < _recall.MIN_IDF_COVERAGE
    assert coverage + below >= _recall.MIN_JOINT_SCORE
    assert _gate(proj_engine, prompt, fix, 0.0) == []
    assert _gate(proj_engine, prompt, fix, below) != []
    # the same vector with no words in common stays out
    assert _gate(proj_engine, prompt, "Bumped the esbuild version in assets", below) == []


def test_a_name_the_store_never_saw_is_no_paraphrase(proj_engine: Engine):
    """The weaker rules (a vector alone, words plus vector) stand for a paraphrase; a prompt
    that names something no memory holds and no dictionary knows ("react-intl", "monorepos")
    is about something new, and only the coverage rule opens the gate for it. An unmatched
    ordinary word ("blew", "colour", "lookup") is still a paraphrase."""
    from memlode.hooks import _recall
    from memlode.vocabulary import words

    _store_project_history(proj_engine)
    page = "The page test suite runs every page test against the staging login page"
    strong = _recall.MIN_VECTOR_SCORE
    assert "staging" in words() and "colour" in words()
    assert "intl" not in words() and "monorepos" not in words()
    named = "How do I add i18n to the login page tests with react-intl?"
    plain = "Why did the login page tests go a funny colour on staging?"
    for prompt in (named, plain):  # the premise: the words alone do not answer either
        weights = _recall._idf_weights(proj_engine.conn, _recall._gate_terms(prompt))
        matched = {"login", "page", "test", "staging"} & set(weights)
        assert sum(weights[t] for t in matched) / sum(weights.values()) < _recall.MIN_IDF_COVERAGE
    assert _gate(proj_engine, plain, page, strong) != []
    assert _gate(proj_engine, named, page, strong) == []
    # unseen words carrying less than MAX_UNSEEN_SHARE of the question (see the next test)
    name, word = (
        f"Why is the staging page flaky with the sandbox in {w}?" for w in ("monorepos", "projects")
    )
    for prompt in (name, word):
        assert 0 < _unseen_share(proj_engine, prompt) < _recall.MAX_UNSEEN_SHARE
    assert _gate(proj_engine, name, page, strong) == []
    assert _gate(proj_engine, word, page, strong) != []
    # two ordinary words written as one ("lookup", "frontend") are ordinary too
    assert "lookup" not in words() and "frontend" not in words()
    lookup = "Why is the staging page lookup flaky with the sandbox?"
    assert _gate(proj_engine, lookup, page, strong) != []


def test_a_prompt_mainly_about_a_new_name_is_not_answered_by_its_other_words(
    proj_engine: Engine,
):
    """When names no memory holds carry MAX_NAME_SHARE of a prompt's information, a memory
    covering its other words answers another question; and an instruction naming something
    new is new work, whatever its vector. Below that share, the other words still answer."""
    from memlode.hooks import _recall
    from memlode.vocabulary import words

    def name_share(prompt: str) -> float:
        weights = _recall._idf_weights(proj_engine.conn, _recall._gate_terms(prompt))
        return weights["pagination"] / sum(weights.values())

    _store_project_history(proj_engine)
    page = "The page test suite runs every page test against the staging login page"
    proj_engine.store(page, "insight")
    assert "pagination" not in words() and "sorting" in words() and "puppeteer" not in words()
    new = "How do I add pagination to the staging page?"
    weights = _recall._idf_weights(proj_engine.conn, _recall._gate_terms(new))
    # the premise: the other words alone cover enough; the new name weighs at least the share
    matched = set(weights) - {"pagination", "add"}
    assert sum(weights[t] for t in matched) / sum(weights.values()) >= _recall.MIN_IDF_COVERAGE
    assert name_share(new) >= _recall.MAX_UNSEEN_SHARE
    assert _gate(proj_engine, new, page, 0.0) == []
    assert _gate(proj_engine, "How do I add sorting to the staging page?", page, 0.0) != []
    # a third of the question is enough to be about the new name, not the known words
    third = "How do the staging login page tests run under pagination?"
    assert _recall.MAX_NAME_SHARE <= name_share(third) < _recall.MAX_UNSEEN_SHARE
    assert _gate(proj_engine, third, page, 0.0) == []
    # a lighter new name among heavier known words: the question is about them
    lighter = (
        "How do the flaky staging login page tests with the sandbox owner run under pagination?"
    )
    assert name_share(lighter) < _recall.MAX_NAME_SHARE
    assert _gate(proj_engine, lighter, page, 0.0) != []
    # an instruction: words and a strong vector in one memory, but it names something new
    strong = _recall.MIN_VECTOR_SCORE
    assert _gate(proj_engine, "Run the staging login page tests with puppeteer", page, strong) == []
    assert _gate(proj_engine, "Run the staging login page tests in a loop", page, strong) != []


def test_a_word_written_as_a_name_is_one(proj_engine: Engine):
    """An ordinary word that a prompt writes with a capital inside a sentence ("Discord") is a
    name: carrying MAX_NAME_SHARE of the question, the question is about it, not about the
    known words a memory covers. Written small, it is an ordinary word and they answer. A
    capital at the start of a sentence says nothing."""
    from memlode.hooks import _recall

    _store_project_history(proj_engine)
    page = "The page test suite runs every page test against the staging login page"
    proj_engine.store(page, "insight")
    assert not _recall._new_names({"discord": "discord"})  # an ordinary word to the vocabulary
    named = "How do the staging login page tests run under Discord?"
    weights = _recall._idf_weights(proj_engine.conn, _recall._gate_terms(named))
    share = weights["discord"] / sum(weights.values())
    assert _recall.MAX_NAME_SHARE <= share < _recall.MAX_UNSEEN_SHARE
    assert _gate(proj_engine, named, page, 0.0) == []
    assert _gate(proj_engine, named.replace("Discord", "discord"), page, 0.0) != []
    said = "Discord runs it. Then: Slack (Redis) 'Quoted' and the Celery workers on CI"
    assert _recall._capitalised(said) == {"celery"}


def test_a_question_in_british_spelling_is_answered_by_american_output(proj_engine: Engine):
    """Tool output writes "canceled" and "color"; a person may ask about "cancelled" "colour"
    jobs: the words are the same ones, and cover the question."""
    _store_project_history(proj_engine)
    output = "The color jobs were canceled by the scheduler"
    assert _gate(proj_engine, "Were the colour jobs cancelled?", output, 0.0) != []
    assert _gate(proj_engine, "Were the font jobs retried?", output, 0.0) == []


def test_a_question_naming_its_own_project_is_about_its_memories(
    hook, project: Path, proj_engine: Engine
):
    """The project's name (its namespace, here "proj"), when no memory says it, is no word of
    the gate: a question that names it ("Where is the Proj site hosted?") is about the
    project's memories, not about a name never stored. Another project's name still is."""
    from memlode.project import readable_name

    _store_project_history(proj_engine)
    assert readable_name(proj_engine.namespace) == "proj"
    proj_engine.store("The marketing site's hosting moved to Vercel instead of Netlify", "decision")
    text = _injected(hook("prompt", _prompt(project, "Where is the Proj site hosted?")))
    assert "moved to Vercel" in text
    assert _injected(hook("prompt", _prompt(project, "Where is the Ferrox site hosted?"))) == ""


def test_a_question_mostly_of_unseen_words_needs_a_stored_name_for_a_weak_match(
    proj_engine: Engine,
):
    """Words no memory holds, ordinary ones, carrying MAX_UNSEEN_SHARE of a question: the
    vector (or words plus vector) of a memory that shares only the project's ordinary words
    does not answer it; one that shares a name the store holds does (the rest is paraphrase).
    """
    from memlode.hooks import _recall

    _store_project_history(proj_engine)
    page = "The page test suite runs every page test against the staging login page"
    strong = _recall.MIN_VECTOR_SCORE
    assert not _recall._new_names({w: w for w in ("flicker", "resize", "browser")})  # ordinary
    new = "Why does the staging page flicker when I resize the browser?"
    assert _unseen_share(proj_engine, new) >= _recall.MAX_UNSEEN_SHARE
    assert _gate(proj_engine, new, page, strong) == []
    # the same words with a name the store holds: about it, in other words
    proj_engine.store("Bumped credo and dialyxir in mix.lock", "context")
    owner = "Why does dialyxir flicker when I resize the browser?"
    fix = "dialyxir keeps its PLT in priv/plts"
    assert _unseen_share(proj_engine, owner) >= _recall.MAX_UNSEEN_SHARE
    weights = _recall._idf_weights(proj_engine.conn, _recall._gate_terms(owner))
    have = {stem(t) for t in _recall._content_terms(fix)}
    matched = sum(w for t, w in weights.items() if t in have)
    assert matched < _recall.MIN_IDF_COVERAGE * sum(weights.values())  # a weak match
    assert _gate(proj_engine, owner, fix, strong) != []
    assert _gate(proj_engine, owner, fix, 0.0) == []  # (the words alone do not answer)
    # a statement the user stored answers a direct question in other words, as before
    from memlode.hooks._recall import Recalled, choose

    stored = "Events older than 400 days are deleted."
    memory_id = proj_engine.store(stored, "decision").id
    asked = "How long are events retained?"
    assert _unseen_share(proj_engine, asked) >= _recall.MAX_UNSEEN_SHARE
    for source, opened in (("memory", True), ("hook", False)):
        told = Recalled(memory_id, stored, "decision", "2026-11-24T10:00:00Z", 1.0, source=source)
        assert bool(choose(proj_engine.conn, asked, [(told, strong)], 8, rerank=False)) is opened
    # fewer unseen words: answered as before
    fewer = "Why does the staging page test fail on login?"
    assert _unseen_share(proj_engine, fewer) < _recall.MAX_UNSEEN_SHARE
    assert _gate(proj_engine, fewer, page, strong) != []


def test_an_instruction_is_recalled_and_a_question_is_not(hook, project: Path, proj_engine: Engine):
    _store_project_history(proj_engine)
    told = "Start the phoenix server in the background with mix phx.server"
    asked = "How do I start the phoenix server in the background?"
    for text in (told, asked, "continue"):
        assert hook("prompt", _prompt(project, text, "old")).returncode == 0
    rows = {m.content: m.tags for m in proj_engine.list_memories(limit=None)}
    assert rows[told] == ["instruction"]
    assert rows[asked] == ["prompt"] and rows["continue"] == ["prompt"]
    text = _injected(hook("prompt", _prompt(project, "how did we run the phoenix server?")))
    assert "mix phx.server" in text and asked not in text


def test_near_duplicates_count_once_but_siblings_of_one_summary_both_stay(
    hook, project: Path, proj_engine: Engine
):
    """Two chunks of one summary section share most of their words and say different things;
    the same text stored twice is one item."""
    head = "Session summary · Errors and Fixes: the dialyzer pre-commit check failed because"
    first = f"{head} the trace helper returned a tuple; fixed with hex_trace_id."
    second = f"{head} the span context was not unwrapped; fixed by matching otel_span records."
    for content in (first, second, first + " "):
        proj_engine.store(content, "insight", source="transcript")
    text = _injected(
        hook("prompt", _prompt(project, "why did the dialyzer pre-commit check fail?"))
    )
    assert "hex_trace_id" in text and "otel_span" in text
    assert text.count("hex_trace_id") == 1


def test_excerpt_keeps_a_short_head_line_and_weighs_rare_terms():
    plan = (
        "Plan approved by the user:\n"
        + "context " * 80
        + "keep render/1 as it is "
        + ("filler " * 80)
    )
    shown = excerpt(plan, {"render": 3.0, "keep": 0.5}, 200)
    assert shown.startswith("Plan approved by the user: …") and "render/1" in shown
    # the window with the rarer term wins over one with more common ones
    text = "common common common " * 30 + "unusual " + "other " * 60
    shown = excerpt(text, {"common": 0.1, "unusual": 5.0}, 100)
    assert "unusual" in shown


def test_short_items_hand_their_share_to_long_ones():
    from memlode.hooks.injection import _shares

    shares = _shares([50, 2000, 60, 3000], 1000)
    assert shares[0] == 50 and shares[2] == 60
    assert shares[1] == shares[3] > 1000 // 4
    assert sum(shares) <= 1000


def test_the_state_at_an_old_compaction_is_not_injected(hook, project: Path, proj_engine: Engine):
    """A compaction summary's "Pending Tasks" (tag history) said what was still to do then."""
    _store_project_history(proj_engine)
    proj_engine.store(
        "Session summary · Pending Tasks: fix the dialyzer false positive in the trace helper",
        "context",
        tags=["history"],
        source="transcript",
    )
    proj_engine.store(
        "The dialyzer false positive in the trace helper went away with :otel_span.hex_trace_id",
        "insight",
        source="transcript",
    )
    text = _injected(
        hook("prompt", _prompt(project, "how did we fix the dialyzer false positive?"))
    )
    assert "hex_trace_id" in text and "Pending Tasks" not in text


def test_a_consolidation_summary_is_not_injected(hook, project: Path, proj_engine: Engine):
    """A summary says how often ("ran 6 times"), not what: the memory that answers goes in."""
    from memlode.storage import memories

    with proj_engine.db.write() as conn:
        memories.insert(
            conn,
            NewMemory(
                "Ran `mix test test/billing_test.exs` 6 times in 2 sessions; billing refund"
                " rounding tests failed 4 times, then passed",
                tags=["summary", "cluster:command"],
                namespace=proj_engine.namespace,
                source="consolidation",
            ),
        )
    proj_engine.store(
        "Fixed the billing refund rounding tests: refunds were rounded per line; now rounded"
        " once on the total with Decimal.round(2)",
        "insight",
    )
    result = hook("prompt", _prompt(project, "how did we fix the billing refund rounding tests?"))
    text = _injected(result)
    assert "Decimal.round(2)" in text
    assert "6 times" not in text


def test_an_instruction_needs_words_and_vector_in_one_memory(proj_engine: Engine):
    """An instruction shares the project's everyday words with its memory ("add", "flag",
    "command"): words alone, or a vector alone, that answer a question open nothing for it;
    one memory with both does."""
    from memlode.hooks import _recall

    help_text = "Flags: --json print as json; the version command prints the version"
    told = "Add a --json flag to the version command"
    asked = "Which flag of the version command prints json?"
    strong, weak = _recall.MIN_VECTOR_SCORE, _recall.MIN_VECTOR_SCORE - 0.1
    assert _gate(proj_engine, asked, help_text, 0.0) != []  # the words answer a question
    assert _gate(proj_engine, told, help_text, 0.0) == []
    assert _gate(proj_engine, told, help_text, weak) == []
    assert _gate(proj_engine, told, "Bumped the esbuild version in assets", strong) == []
    assert _gate(proj_engine, told, help_text, strong) != []  # both in one memory


def test_contractions_and_requests_to_be_told_are_questions_requests_for_work_not():
    from memlode.hooks._recall import asks

    for question in (
        "what's left on the branch",
        "didn't the CI pass",
        "remind me of the port",
        "could you tell me why the build broke",
        "Can we drop Redis?",
        "In the tests, what colour does it end on? I think your first guess was wrong.",
    ):
        assert asks(question), question
    for told in (
        "let's call it a day",
        "don't push yet",
        "Add a flag",
        "Can you add an export?",
        "Can you add an export? It should be CSV.",
        "Open http://localhost:3000/evals?page=2 and fix the pager",
    ):
        assert not asks(told), told


STATED = "Application logs go to journald; the file logger was removed in March."


def test_a_one_word_question_about_a_stored_statement_is_answered_without_a_resident(
    hook, project: Path, proj_engine: Engine
) -> None:
    """The lean path's candidates carry their source: one word of a statement a user stored
    answers a question about it ("where do the logs go?") with no resident."""
    proj_engine.store(STATED, "decision", 0.8, source="memory")
    assert "journald" in _injected(hook("prompt", _prompt(project, "where do the logs go?")))


def test_the_same_word_opens_nothing_for_a_captured_observation_or_a_statement(
    hook, project: Path, proj_engine: Engine
) -> None:
    proj_engine.store(STATED, "context", 0.5, source="hook")
    assert _injected(hook("prompt", _prompt(project, "where do the logs go?"))) == ""
    proj_engine.store(STATED.replace("March", "April"), "decision", 0.8, source="memory")
    assert _injected(hook("prompt", _prompt(project, "the logs go"))) == ""


def test_a_near_duplicate_that_holds_the_first_and_goes_on_takes_its_place():
    """Of two near-duplicates the better ranked stays, unless the other holds all of it and
    more of the prompt's words: the turn's longer chunk, whose answer follows the part the
    shorter chunk shares. A chunk that only shortens a command does not take its place."""
    from memlode.hooks._recall import Recalled, _distinct, _Words

    said = "User: better. It results in a different icon than if installed as AppImage. " * 3
    short = Recalled("s", said, "context", "", 1.0, {"icon": 1.8, "appimag": 1.6, "install": 1.4})
    longer = Recalled(
        "l",
        said + "Assistant: the desktop file names the icon io.github.bing but the installer"
        " copies it as bing.png, so the installed build shows a different icon.",
        "context",
        "",
        0.9,
        {"icon": 1.8, "appimag": 1.6, "install": 1.4, "build": 1.2, "show": 2.4},
    )
    other = Recalled("o", "The tray starts with the desktop session.", "context", "", 0.8)
    chosen = _distinct([(h, _Words(h.content)) for h in (short, longer, other)], 5)
    assert [h.id for h in chosen] == ["l", "o"]

    command = "$ gh release upload v0.1.1 ./install-appimage.sh --clobber # replace the asset"
    upload = Recalled("c", command, "context", "", 1.0, {"upload": 2.0, "releas": 1.0})
    retold = Recalled(
        "t",
        "$ gh release upload v0.1.1 ./install-appimage.sh # replace the asset, then the user"
        " asked whether the release needs updating too and the upload went through",
        "context",
        "",
        0.9,
        {"upload": 2.0, "releas": 1.0, "updat": 1.5},
        source="transcript",
    )
    chosen = _distinct([(h, _Words(h.content)) for h in (upload, retold)], 5)
    assert [h.id for h in chosen] == ["c", "t"]  # beside it (it says more), not in its place


def test_a_near_duplicate_that_mostly_says_something_else_is_kept_beside_it():
    """The user's pasted status of a service and the assistant's own run of the same command
    share their opening lines, but most of the paste is not in the run (the process's exit
    status): both are kept (the shape of a real cosmic-bing-wallpaper session). So is a
    transcript turn that holds a hook's memory and much more (a turn's chunk ends with the next
    prompt, which the hook stored, and holds before it what the assistant did). A transcript
    chunk beside another chunk that it retells with more words is left out: chunks overlap one
    another by construction."""
    from memlode.hooks._recall import Recalled, _distinct, _Words

    status = (
        "systemctl --user status wallpaper-tray.service\n"
        "wallpaper-tray.service - Wallpaper system tray for the desktop\n"
        "Loaded: loaded (/home/me/.config/systemd/user/wallpaper-tray.service; enabled)\n"
        "Active: inactive (dead)"
    )
    ran = Recalled("r", f"Failed: $ {status}\nExit code 3", "context", "", 1.0)
    paste = Recalled(
        "p",
        f"{status} since Sat 2026-01-17 11:02:41 NZDT; 4min ago\n"
        "Duration: 2h 13min 7.411s\n"
        "Process: 1517 ExecStart=/home/me/.local/bin/wallpaper --tray (code=exited,"
        " status=0/SUCCESS)\nMain PID: 1517 (code=exited, status=0/SUCCESS)\n"
        "Mem peak: 39.6M, CPU: 2.307s in the tray before it was stopped by the session",
        "context",
        "",
        0.9,
        source="hook",
    )
    chosen = _distinct([(h, _Words(h.content)) for h in (ran, paste)], 5)
    assert [h.id for h in chosen] == ["r", "p"]
    retold = Recalled("t", paste.content, "context", "", 0.9, source="transcript")
    chosen = _distinct([(h, _Words(h.content)) for h in (ran, retold)], 5)
    assert [h.id for h in chosen] == ["r", "t"]
    chunk = Recalled("c", ran.content, "context", "", 1.0, source="transcript")
    chosen = _distinct([(h, _Words(h.content)) for h in (chunk, retold)], 5)
    assert [h.id for h in chosen] == ["c"]
    # one no longer than the one kept is left out, though two of its five triples are new
    first = Recalled("f", "ls pkg mod github colorful shows versions", "context", "", 1.0)
    second = Recalled("s", "ls pkg mod github colorful lists three", "context", "", 0.9)
    chosen = _distinct([(h, _Words(h.content)) for h in (first, second)], 5)
    assert [h.id for h in chosen] == ["f"]


def test_two_runs_of_one_long_command_that_printed_different_things_are_both_kept():
    """A command observation is a near-duplicate of another only when what it printed is alike
    too, not just the heredoc both ran (the rest of the command, after ``[command]``): a probe
    that timed out, then the same probe that could not start, are two answers (the shape of a
    real oh-my-posh session's retries). The same run stored twice is one."""
    from memlode.hooks._recall import Recalled, _distinct, _Words

    body = "\n".join(f"\tresult := GradientCells(cells, {i}, resolver, true)" for i in range(30))
    rest = f"\n[command]\npackage color\n\nfunc TestProbeWidths(t *testing.T) {{\n{body}\n}}"
    timed_out = Recalled(
        "t",
        "Failed: $ cd /repo/src && cat > color/zzz_probe_test.go <<'EOF' package color …\n"
        f"Exit code 143\nCommand timed out after 30s{rest}",
        "context",
        "",
        1.0,
    )
    no_start = Recalled(
        "n",
        "Failed: $ cat > color/zzz_probe_test.go <<'EOF' package color …\nExit code 1\n"
        "color/zzz_probe_test.go: No such file or directory\nFAIL ./color/... [setup failed]"
        f"{rest}",
        "context",
        "",
        0.9,
    )
    again = Recalled("a", timed_out.content, "context", "", 0.8)
    chosen = _distinct([(h, _Words(h.content)) for h in (timed_out, no_start, again)], 5)
    assert [h.id for h in chosen] == ["t", "n"]


def test_a_question_for_a_version_a_commit_or_a_port_is_shown_the_value(
    hook, project: Path, proj_engine: Engine
):
    """ "Which … version", "which commit", "which port", "how big" are answered by a value of
    that shape,
    which none of the question's words match: the passage shown holds it, not only the one
    with the most of the question's words. (The port case passes on the code before too: its
    two passages tie there. It guards that a stack trace's "file.js:12:24" is no port.)"""
    filler = " ".join(
        f"step {i} of the run went through without anything to report." for i in range(60)
    )
    lint = " ".join(f"colors.mdx:{i}:81 error MD013 line length in the doc" for i in range(30))
    log = " ".join(f"modified: src/color/file{i}.go, not staged for commit" for i in range(30))
    trace = " ".join(f"at renderWithHooks (chunk-z33mq3ks.js:{i}:24)" for i in range(30))
    asked = {
        "Which markdownlint version did the colors doc get linted with?": (
            f"Failed: $ npx markdownlint docs/colors.mdx\n{filler} linter v0.23.1 {filler} {lint}",
            "v0.23.1",
        ),
        "Which commit was origin/next sitting on before the color file changes?": (
            f"$ git log --oneline origin/next -3\n{log} {filler} 9f012815 fix(pwsh) {filler}",
            "9f012815",
        ),
        "Which port was the frontend running on when the tree view crashed?": (
            f"The tree view crashed the frontend: {trace} {filler} {filler} the tree view"
            f" crashed the frontend at (http://localhost:3000/) {filler}",
            "localhost:3000",
        ),
        "How big did the AppImage build come out?": (
            f"User: build the AppImage and tag a release. {filler} AppImage built successfully"
            f" (9.5 MB). {filler} {trace} The AppImage build is in appimage/build {filler}",
            "9.5 MB",
        ),
    }
    for other in (
        "The version of each linter is pinned in package.json; docs are linted in CI.",
        "Run the frontend with bun run dev; it reloads on every commit checkout.",
        "The port of the API server is read from the PORT variable.",
        "The tree view sits on the Context tab.",
    ):
        proj_engine.store(other, "context")
    missed = []
    for question, (content, value) in asked.items():
        stored = proj_engine.store(content, "context")
        if value not in _injected(hook("prompt", _prompt(project, question))):
            missed.append(value)
        proj_engine.delete(stored.id)
    assert missed == []


def test_the_shape_of_a_size():
    from memlode.hooks.injection import _shaped_hits

    text = (
        "built successfully (9.5 MB). The log is 2.3MB, a block 512 KiB, 1,024 bytes;"
        " not 3 files, MB alone, v1.2, 20px or 8 GBP"
    )
    found = [text[at:end] for at, key, end in _shaped_hits(text, ["#size"]) if key == "#size"]
    assert found == ["(9.5 MB).", "2.3MB,", "512 KiB,", "1,024 bytes;"]


def test_the_shapes_of_versions_commits_and_ports():
    from memlode.hooks.injection import _shaped_hits

    text = (
        "linter v0.23.1 (core 0.38.0) and @ark-ui/react@5.31.0, commit 9f012815, at 14:28:50.642"
        " in chunk-z33mq3ks.js:35506:15, served on http://localhost:3000/ and :5173, deadbeef,"
        " 1234567 and 127.0.0.1:8080"
    )
    found = {
        key: [text[at:end].strip("(),") for at, k, end in _shaped_hits(text, [key]) if k == key]
        for key in ("#version", "#commit", "#port")
    }
    assert found["#version"] == ["v0.23.1", "0.38.0", "@ark-ui/react@5.31.0", "127.0.0.1:8080"]
    assert found["#commit"] == ["9f012815"]  # all letters or all digits is no hash
    assert found["#port"] == ["http://localhost:3000/", ":5173", "127.0.0.1:8080"]


def test_a_number_said_in_words_meets_its_digits(hook, project: Path, proj_engine: Engine):
    """ "A few minutes past eight" asks about what a memory holds as "8:00": the word counts
    as its digits, not as a word no memory holds (which weighed like a name the store never
    saw and kept the gate shut). "Which one" stays a word."""
    from memlode.hooks._recall import _gate_terms

    _store_project_history(proj_engine)
    proj_engine.store(
        "Subagent Explore reported: the timer runs daily at 8:00 AM, and RandomizedDelaySec=300"
        " delays each run by up to 5 minutes.",
        "context",
        source="hook",
    )
    prompt = "why does the timer run a few minutes past eight each day on my laptop?"
    assert "8" in _gate_terms(prompt) and "eight" not in _gate_terms(prompt)
    assert "RandomizedDelaySec=300" in _injected(hook("prompt", _prompt(project, prompt)))
    assert _gate_terms("which one of the two jobs failed?") == ["one", "2", "jobs", "failed"]
    assert _gate_terms("does it run at 8 on day x of k8s?") == ["run", "8", "day", "k8s"]


def test_a_settings_file_does_not_open_a_why_question(
    hook, read_payload, project: Path, proj_engine: Engine
):
    """A read package.json keeps its lines (tag settings): "what does bun run dev start?" is
    answered by its scripts, but "why is the Bun server using so much memory?" asks for a
    cause, which a settings file's lines never give: they open no gate for a "why" question."""
    _store_project_history(proj_engine)
    for i in range(6):
        proj_engine.store(
            f"Load test {i} ran using the staging data; memory stayed flat", "context"
        )
    manifest = '{\n  "scripts": {\n    "dev": "bun run css:build && bun --hot server.ts"\n  }\n}\n'
    hook("post", read_payload(str(project / "frontend" / "package.json"), manifest))
    said = _injected(
        hook("prompt", _prompt(project, "What does bun run dev start in the frontend?"))
    )
    assert "bun --hot server.ts" in said
    why = "Why is the Bun server using so much memory under load?"
    assert _injected(hook("prompt", _prompt(project, why))) == ""
