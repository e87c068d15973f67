"""The rules that decide, without a model, whether a new statement replaces an earlier one.

A statement (a decision, a preference, an instruction, a state) replaces an earlier one when
both are about the same subject and the new one changes its value. Six rules, each a plain
reading of the two texts; the best-scored candidate wins:

- ``names-old``: the new text carries a replacement cue and names a value of the old one as
  what goes ("sessions move to Memcached; Redis is dropped", "use Vitest instead of Jest",
  "replace Moment with date-fns"), and the two share a subject word besides that value
  (sessions, unit tests). The shared subject is what keeps "Redis is dropped for sessions"
  from touching "rate-limit counters live in Redis".
- ``cue-same-subject``: a cue ("from now on", "switch to", "no longer", "resolved") and most
  of the subject words of the shorter text in the other (``CUE_OVERLAP``).
- ``changed-value``: no cue, the same sentence with a value changed ("the API timeout is 30
  seconds" -> "the API timeout is 60 seconds"): ``SAME_FRAME`` of the words shared and only a
  few (``MAX_CHANGED``) differing on each side, a number or version among them on both (not
  a label's number: "step 3", "page 4" are other steps and pages).
- ``same-opening``: the same subject and verb ("the base image for services is ...",
  "database backups run ..."), or the same subject when the new one has a cue ("stand-up moved
  to ..."), at least ``MIN_SUBJECT_WORDS`` words of it.
- ``resolves-blocker``: a resolution ("fixed:", "works again", "no longer fails") of a blocker
  (a failure, something broken) with less shared wording (``RESOLVED_OVERLAP``).
- ``answers-again``: a later answer to the same question, in the form the prompt hook keeps
  the user's answers to the assistant's questions (``Q: …`` then ``A (user): …``), with
  another answer.

Readings that keep any rule from linking: a statement whose first clause says it adds ("also",
"a second", "Added …": ``search.statements.adds``) replaces nothing, and one that names what it
replaces ("switched the unit tests from Mocha to Vitest") replaces only a statement that holds
that value, not another on its subject ("the coverage job runs nyc over the unit tests"); both
were the false links of the training update sets (``bench/update_train_*.json``, session 29).
Nor does one that holds for a while only ("for the launch weekend only"), in another
environment or platform than the earlier one, or decides nothing ("we are considering …"), nor
a bump of another package (``bumps_another``): training sets C, D and E, session 32.

Words are compared as crude stems without stopwords and without the generic words of how
decisions are phrased (``GENERIC``); a subject word weighs its rarity among the statements
compared (a word every decision holds says nothing about which one is meant).

Pure functions over text: ``memlode.engine.supersession`` picks the candidates and writes.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memlode.search.statements import adds, other_scope, temporary, undecided
from memlode.storage.capture import ANSWER_LINE, QUESTION_LINE
from memlode.textutil import STOPWORDS, stem, words

__all__ = [
    "Match",
    "Statement",
    "answers",
    "best_match",
    "has_cue",
    "kept_apart",
    "negated",
    "opening",
    "terms",
    "values",
]

# "switch" and "drop" are nouns too: "the kill switch is exercised every Monday", "Monday's kill
# switch test took 38 us", "right after the vendor errata drop." As a cue, a bare "switch" says
# what it switches to or from within a few words ("switch sessions to Memcached", "the switch to
# Postgres"), and a bare "drop" goes on to what it drops, not straight to a verb, a preposition
# of a noun ("a drop in latency") or the end of the sentence. "Switched" and "dropped" are verbs
# wherever they stand ("Redis is dropped.").
_NOUN_AFTER = (
    r"(?!\s*(?:[.,;:!?)]|$|is\b|are\b|was\b|were\b|has\b|had\b|gets?\b|got\b|must\b"
    r"|should\b|can\b|will\b|would\b|needs?\b|stays?\b|lives?\b|sits?\b|in\b|of\b))"
)
# ... nor the first word of a noun's name that a verb follows ("Drop rates must be shown in the
# info screen": training update set G).
_COMPOUND_AFTER = (
    r"(?!\s+[\w-]+\s+(?:is|are|was|were|must|should|can|will|need|needs|stay|stays|come|comes"
    r"|live|lives)\b)"
)
_SWITCH = (
    r"switch(?:ed|ing)\b|switch(?:es)?\b(?=(?:\s+\S+){0,3}?\s+(?:to|from|for|over|back|off)\b)"
)
_DROP = r"drop(?:ped|ping)\b|drops?\b" + _NOUN_AFTER + _COMPOUND_AFTER
# Cues that a statement replaces something (looked for in the lower-cased new text).
_CUES = re.compile(
    r"\b(?:instead|no longer|not any ?more|anymore|from now on|going forward|henceforth"
    r"|" + _SWITCH + r"|mov(?:e|ed|es|ing) (?:to|from|off|away|over|back)"
    r"|migrat(?:e|ed|es|ing)\b|replac(?:e|ed|es|ing)\b|rather than|"
    + _DROP
    + r"|revert(?:ed|ing|s)?\b|roll(?:ed)? back|deprecat(?:e|ed|es|ing)\b|retir(?:e|ed|es|ing)\b"
    r"|abandon(?:ed|ing|s)?\b|ditch(?:ed|ing|es)?\b|stop(?:ped)? (?:using|doing|running)"
    r"|changed? (?:to|from)"
    r"|resolved|unblocked|fixed now|works now|is fixed|was fixed|are fixed|passes now"
    r"|no more\b|moving (?:to|away|off)|superseded?|scrap(?:ped)?|undo"
    r"|revers(?:ed|es)\b|reverse (?:the|that|this|our|it|course)\b"
    r"|update:|correction:|actually\b|turn(?:ed)? off|disabled?\b|removed?\b|gone\b"
    r"|renam(?:e|ed|es|ing)\b|\bnow\b|(?:works?|pass(?:es)?|runs?|builds?|succeeds?) again"
    r"|(?:went|go|going|are|is|we're|we are) back (?:on|to)\b|\bback on\b|\bis complete\b"
    r"|\b(?:is|are|was|were|got|been) merged\b|\bbump(?:ed|s)?\b|\b(?:was|were) deleted\b"
    r"|\b(?:raised|lowered|increased|decreased|reduced|upgraded|downgraded) (?:to|from)\b"
    r"|\bsince (?:the|we|it|they|v?\d)\b|\b(?:took|taken|takes) over\b"
    r"|^(?:fixed|resolved|solved|done|unblocked)\b)"
)
# Where the new text names what goes: (pattern, group of the words it names).
_NEGATED = (
    r"instead of ([\w.+#/-]+(?: [\w.+#/-]+){0,2})",
    r"rather than ([\w.+#/-]+(?: [\w.+#/-]+){0,2})",
    r"no longer (?:use |using |uses |need |needs |run |runs |on |in |with |via |require )?"
    r"([\w.+#/-]+(?: [\w.+#/-]+){0,1})",
    r"(?:drop|dropped|dropping|drops|ditch|ditched|retire|retired|abandon|abandoned|remove"
    r"|removed|deprecate|deprecated|scrap|scrapped) (?!for |in |from |to |on |at |by |with |as )"
    r"(?:the |our |all )?([\w.+#/-]+(?: [\w.+#/-]+)?)",
    r"(?:replace|replaced|replacing|replaces) (?:the |our )?([\w.+#/-]+(?: [\w.+#/-]+)?)"
    r"(?: with| by|:)",
    r"(?:from|off|away from) ([\w.+#/-]+(?: [\w.+#/-]+)?) (?:to|onto|in favou?r of)\b",
    r"(?:switch|switched|switching|move|moved|moving|migrate|migrated|migrating) "
    r"(?:away )?(?:from|off) (?:the |our )?([\w.+#/-]+(?: [\w.+#/-]+)?)",
    r"stop(?:ped)? using (?:the |our )?([\w.+#/-]+(?: [\w.+#/-]+)?)",
    r"not ([\w.+#/-]+) any ?more",
    r"([\w.+#/-]+) (?:is|are|was|were|gets|got|has been|have been) (?:now )?(?:dropped|removed"
    r"|gone|retired|deprecated|replaced|renamed|abandoned|scrapped|disabled|turned off)",
    r"([\w.+#/-]+) (?:goes|go) away",
    r"renamed? (?:the |our )?(?:[\w.+#/-]+ ){0,2}?([\w.+#/-]+) to\b",
    r"([\w.+#/-]+)(?: [\w.+#/-]+)? (?:is|are) no longer",
)
_NEGATED_RE = tuple(re.compile(p) for p in _NEGATED)
# "The old /v1/tracking/push endpoint was removed", "F7 boards are dropped": a name before the
# noun that goes names which one, and a statement must hold both (training update set G, session
# 33: "the anon throttle was removed" held "endpoint" alone).
_NAMED_GONE_RE = re.compile(
    r"((?<![\w.+#/-])[\w+#]*[\d./_-][\w.+#/-]*) ([a-z][\w-]*)"
    r" (?:is|are|was|were|has been|have been)"
    r" (?:now )?(?:dropped|removed|gone|retired|deprecated|replaced|disabled|turned off)"
)
# Where a statement says what its subject is not ("stored in room_members, not in presence"):
# that word is not a value it holds, so a later one that drops it replaces something else.
_EXCLUDED_RE = re.compile(
    r"\b(?:not|never) (?:in |on |at |with |via |using |from |through |by |to )?(?:the |a |an )?"
    r"([\w.+#/-]+)"
)

# How decisions are phrased, not what they are about: never a subject word.
GENERIC = frozenset(
    """use uses used using usage we our us let lets now new old going go goes decided decide
    decision prefer preferred preference always never should must want wants need needs
    project team everyone please make sure keep kept instead switch switched moving move moved
    migrate migrated replace replaced rather drop dropped longer anymore more from now on
    forward onward henceforth also just still actually update updated correction change
    changed changes done stop stopped start started via per one two get got set like way
    things thing stuff today later earlier back again will would can could shall blocked
    block fixed fix resolved resolve solved unblocked""".split()
)
# Words after "no longer" that say what stopped, not what went ("YAML config is no longer
# read": the value is before it, which ``_NEGATED`` reads too).
_NOT_VALUES = frozenset(
    """read used needed supported required run kept allowed built shipped done be work works
    working happen happens exist exists apply applies matter matters fail fails""".split()
)
# A blocker (a failure, something broken) and its resolution: a resolved blocker replaces the
# blocker with less shared wording than other statements need (RESOLVED_OVERLAP).
_BLOCKER = re.compile(
    r"\b(?:blocked|blocker|fail(?:s|ed|ing)?|broken|crash(?:es|ed|ing)?|error|errors|can't"
    r"|cannot|does not|doesn't|do not|don't|won't|not work(?:ing)?|keeps? \w+ing)\b"
)
_RESOLVED = re.compile(
    r"^\s*(?:fixed|resolved|solved|unblocked|done)\b|\b(?:fixed|resolved|solved|unblocked"
    r"|no longer (?:fail|crash)\w*|(?:works?|pass(?:es)?|runs?|builds?|succeeds?) again"
    r"|works now|passes now)\b"
)
RESOLVED_OVERLAP = 0.3
# What a fix can replace: a statement of a problem (a blocker, or something flaky, hanging,
# leaking, stale, wrong). The report of a fix ("Fixed restic-backups failing on hermes: …",
# "Fixed a connection leak in …") whose only change word is that it fixes replaces nothing that
# states how something is set up ("Offsite backups: restic to B2 nightly"): training update set
# F (session 33). Not a statement that something works now ("Pricing revalidation works now
# that …"), which says what changed in other words (training set A).
_FIX_REPORT = re.compile(r"(?:we |i )?fix(?:ed)?\b(?!:)")
_PROBLEM = re.compile(
    _BLOCKER.pattern + r"|\b(?:flaky|flakes?|hang(?:s|ing)?|leak(?:s|ing)?|bug|bugs|issue|issues"
    r"|problem|problems|wrong|slow|stale|times? out|timeouts?|regress(?:ion|ed)|stuck|missing)\b"
)
# "Switched the refund worker from polling Postgres to Kafka": what is switched (the refund
# worker), or all of what it is switched from (polling Postgres), is what a replaced statement
# holds (training update set F: it was linked to how payment events are published, which is
# polled too).
_SWITCHED = re.compile(
    r"^(?:we |i )?(?:switch|switched|move|moved|migrate|migrated|port|ported|convert|converted)"
    r" (?:the |our |all )?((?:[\w.+#/'-]+ ){1,5}?)(?:from|off) (?:the |our )?"
    r"([\w.+#/-]+(?: (?!to\b|onto\b|into\b)[\w.+#/-]+)?)"
)

# An opening is a statement's subject and its verb ("the base image for services is",
# "database backups run"): the words before the first of these verbs, within OPENING_WORDS.
_VERBS = frozenset(
    """is are was were run runs use uses need needs live lives go goes hold holds target
    targets ship ships come comes happen happens move moves moved sit sits stay stays point
    points require requires""".split()
)
# Labels and function words a statement may open with before its subject.
_LEAD = frozenset("the a an our we all blocked fixed resolved solved update note".split())
OPENING_WORDS = 8
MIN_SUBJECT_WORDS = 2

# Rule thresholds (chosen on the rules' own reading of short statements, before the update
# evaluation's cases were scored; bench/RESULTS.md "Current, not just relevant" records both).
CUE_OVERLAP = 0.5  # cue-same-subject: share of the shorter side's subject words in the other
CUE_MIN_SHARED = 2
SAME_FRAME = 0.6  # changed-value: share of the shorter side's words in the other
FRAME_MIN_SHARED = 3
MAX_CHANGED = 3  # changed-value: words only in one side, at most, on each side
NAMES_OLD_MIN_SUBJECT = 1  # names-old: subject words shared besides the value that goes


# The texts whose reading (terms, values, opening) is kept: each new statement is read against
# up to supersession.CANDIDATES earlier ones, mostly the same ones from one store to the next,
# so a process storing many reads each earlier text once (300 stores into one namespace: 2.5 s
# of rules without it, measured in session 18).
ANALYSED_TEXTS = 4096


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def terms(text: str) -> frozenset[str]:
    """The subject words of ``text``: stems of its words without stopwords and ``GENERIC``."""
    out = set()
    for token in words(text.lower()):
        if token in STOPWORDS or token in GENERIC or (len(token) < 2 and not token.isdigit()):
            continue
        out.add(stem(token))
    return frozenset(out)


def has_cue(text: str) -> bool:
    return _CUES.search(text.lower()) is not None


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def negated(text: str) -> frozenset[str]:
    """The subject words the text names as what goes ("instead of Jest" -> {"jest"})."""
    return frozenset(t for group in _gone(text) for t in group)


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def _gone(text: str) -> tuple[frozenset[str], ...]:
    """Each value the text names as what goes, as the subject words of its first word: one
    word ("jest"), or the parts of a compound name together ("json-server": "json", "server"),
    which a statement holds only when it holds them all (``named_in``)."""
    lowered = " ".join(text.lower().split())
    out: list[frozenset[str]] = []
    whole = {
        m.start(2): terms(m.group(1)) | terms(m.group(2)) for m in _NAMED_GONE_RE.finditer(lowered)
    }
    for pattern in _NEGATED_RE:
        for found in pattern.finditer(lowered):
            if found.start(1) in whole:  # the name and its noun, together
                out.append(whole[found.start(1)])
                continue
            phrase = [w for w in found.group(1).split() if w not in _NOT_VALUES]
            named = [t for t in (terms(w) for w in phrase) if t]
            if named:  # the phrase's first subject word: "absolute" of "absolute paths"
                out.append(named[0])
    return tuple(out)


def named_in(new: str, held: frozenset[str]) -> frozenset[str]:
    """The subject words of what ``new`` names as going that a statement holding ``held``
    holds: a compound name only when all of its parts are there ("Switched the mock server
    from json-server to MSW" names nothing "The dev server runs on port 5173" holds; training
    update set C, session 32)."""
    return frozenset(t for group in _gone(new) if group <= held for t in group)


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def excluded(text: str) -> frozenset[str]:
    """The subject words the text says its subject is not ("not in presence" -> {"presenc"})."""
    lowered = " ".join(text.lower().split())
    return frozenset(t for m in _EXCLUDED_RE.finditer(lowered) for t in terms(m.group(1)))


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def opening(text: str) -> tuple[tuple[str, ...], str]:
    """(subject words, verb) of the statement's opening, or ((), '') when no verb comes early."""
    tokens, at = _verb_of(text)
    return (tuple(stem(t) for t in tokens[:at]), tokens[at]) if at >= 0 else ((), "")


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def _verb_of(text: str) -> tuple[tuple[str, ...], int]:
    """The statement's words without its lead-in ("we", "note:"), and where its opening's verb
    is among them (-1: none comes early)."""
    tokens = words(text.lower())
    start = 0
    while start < len(tokens) and tokens[start] in _LEAD:
        start += 1
    rest = tuple(tokens[start:])
    return rest, next((i for i, t in enumerate(rest[:OPENING_WORDS]) if t in _VERBS), -1)


@dataclass(slots=True, frozen=True)
class Statement:
    """A memory as the rules read it."""

    id: str
    text: str
    created_at: str
    superseded: bool = False  # a later memory already replaced it


@dataclass(slots=True, frozen=True)
class Match:
    old_id: str
    rule: str
    score: float


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def answers(text: str) -> dict[str, str]:
    """The questions the text answers, each (lower-cased, spaces collapsed) with its answer
    (the same); empty unless it holds ``Q: …`` / ``A (user): …`` pairs."""
    out: dict[str, str] = {}
    question = ""
    for line in text.splitlines():
        if line.startswith(QUESTION_LINE):
            question = " ".join(line[len(QUESTION_LINE) :].lower().split())
        elif line.startswith(ANSWER_LINE) and question:
            out[question] = " ".join(line[len(ANSWER_LINE) :].lower().split())
            question = ""
    return out


def _answers_again(new: dict[str, str], old_text: str) -> bool:
    """A question both answer, answered otherwise now."""
    old = answers(old_text)
    return any(q in old and old[q] != a for q, a in new.items())


def best_match(new: Statement, earlier: Sequence[Statement]) -> Match | None:
    """The earlier statement ``new`` replaces, if a rule says so; the best-scored when several
    do (one that is still current before one already replaced)."""
    new_terms = terms(new.text)
    if not new_terms or not earlier or adds(new.text) or temporary(new.text):
        return None
    if undecided(new.text):  # a plan still open, a question asked
        return None
    new_answers = answers(new.text)
    cue = has_cue(new.text)
    gone = negated(new.text) if cue else frozenset()
    read = [(s, terms(s.text)) for s in earlier if s.id != new.id]
    weight = _rarity([t for _s, t in read], new_terms)
    new_opening = opening(new.text)
    new_values = values(new.text)
    resolves = _RESOLVED.search(new.text.lower()) is not None
    best: Match | None = None
    for old, old_terms in read:
        if not (old_terms & new_terms):  # every rule needs a subject word in common
            continue
        held = old_terms - excluded(old.text) if gone else old_terms
        named = named_in(new.text, held) if gone else frozenset()
        if gone and not named and not new_answers:
            continue  # it names what it replaces, and this one does not hold it
        if (cue and restates(new.text, old.text)) or other_scope(new.text, old.text):
            continue
        if bumps_another(new.text, old_terms) or _apart(new.text, old.text, old_terms):
            continue
        found = _judge(new_terms, held, cue, (gone, named), weight, (new_values, values(old.text)))
        if (
            found is None
            and _same_opening(new_opening, opening(old.text), cue)
            and (cue or not _other_action(new.text, old.text))
        ):
            found = "same-opening", 2.5 + len(new_terms & old_terms) / len(old_terms)
        if found is None and new_answers and _answers_again(new_answers, old.text):
            found = "answers-again", 4.0  # the same question: more certain than any wording
        if found is None and resolves and _BLOCKER.search(old.text.lower()):
            shared = len(new_terms & old_terms)
            overlap = shared / min(len(new_terms), len(old_terms))
            if shared >= CUE_MIN_SHARED and overlap >= RESOLVED_OVERLAP:
                found = "resolves-blocker", 2.0 + overlap
        if found is None:
            continue
        rule, score = found
        if not old.superseded:
            score += 0.5  # the current one is what a new statement replaces
        if best is None or score > best.score:
            best = Match(old.id, rule, score)
    return best


def _judge(
    new_terms: frozenset[str],
    old_terms: frozenset[str],
    cue: bool,
    going: tuple[frozenset[str], frozenset[str]],
    weight: dict[str, float],
    found_values: tuple[frozenset[str], frozenset[str]],
) -> tuple[str, float] | None:
    """``going``: what the new text names as going, and of that what the old one holds."""
    values_new, values_old = found_values
    gone, named = going
    shared = new_terms & old_terms
    if not shared:
        return None
    subject = shared - gone
    smaller = min(len(new_terms), len(old_terms))
    overlap = len(shared) / smaller
    if cue and named and len(subject) >= NAMES_OLD_MIN_SUBJECT:
        return "names-old", 3.0 + sum(weight.get(t, 1.0) for t in subject | named)
    if cue and len(shared) >= CUE_MIN_SHARED and overlap >= CUE_OVERLAP:
        return "cue-same-subject", 2.0 + overlap
    only_new, only_old = new_terms - old_terms, old_terms - new_terms
    if (
        len(shared) >= FRAME_MIN_SHARED
        and overlap >= SAME_FRAME
        and 0 < len(only_new) <= MAX_CHANGED
        and 0 < len(only_old) <= MAX_CHANGED
        and only_new & values_new
        and only_old & values_old
    ):
        return "changed-value", 1.0 + overlap
    return None


# Words after which a number is a label, not a value: "fact number 2", "step 3", "page 4" are
# other facts, steps and pages, not a changed setting.
_LABELS = frozenset(
    """number no step page item part phase task case issue ticket chapter section round row
    line stage sprint pr bug story epic milestone test fact point question example option rule
    figure table""".split()
)


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def values(text: str) -> frozenset[str]:
    """The statement's values: its numbers and versions ("30", "v1", "0"), as ``terms`` stems
    them, but a number that labels something ("step 3")."""
    tokens = words(text.lower())
    out = set()
    for i, token in enumerate(tokens):
        if any(ch.isdigit() for ch in token) and not (i and tokens[i - 1] in _LABELS):
            out.add(stem(token))
    return frozenset(out)


# A value a change goes to: "to 3.12", "to v2", "to 16 GB".
_DESTINATION = re.compile(r"\bto (v?\d[\w.]*)")


def restates(new: str, old: str) -> bool:
    """The new text changes a value to what the old one says already, and names nothing it
    drops: "Bumped Python in the backend container to 3.12" after "The backend targets Python
    3.12" confirms it and replaces nothing of it (training update sets, session 31)."""
    lowered = " ".join(new.lower().split())
    goes_to = {v for m in _DESTINATION.finditer(lowered) for v in values(m.group(1))}
    return bool(goes_to) and goes_to <= values(old) and not negated(new)


def kept_apart(new: str, old: str) -> bool:
    """What keeps the meaning rule (``memlode.engine.supersession.plan_by_meaning``) from
    linking two near statements, as it keeps the wording rules: the new one confirms the old
    one's value (``restates``), holds for a while only (``temporary``) or elsewhere
    (``other_scope``), decides nothing (``undecided``), or changes the version of another
    package (``bumps_another``). Not the wording rules' reading of what goes: the meaning rule
    links what is said in other words (session 32: that guard lost a held-out link)."""
    if restates(new, old) or temporary(new) or other_scope(new, old) or undecided(new):
        return True
    held = terms(old)
    return bumps_another(new, held) or _apart(new, old, held)


def _apart(new: str, old: str, held: frozenset[str]) -> bool:
    """Readings of the two texts that keep every rule from linking them: ``new`` reports a fix
    and ``old`` states no problem (``_PROBLEM``), or ``new`` switches a subject ``old`` does
    not hold, from something ``old`` does not hold whole (``_SWITCHED``)."""
    fix, switched, source = _fix_or_switch(new)
    if fix and not _states_problem(old):
        return True
    return bool(switched) and not (switched & held) and not source <= held


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def _fix_or_switch(text: str) -> tuple[bool, frozenset[str], frozenset[str]]:
    """Read once per text (``best_match`` asks it of one new statement against every earlier
    one): whether it reports a fix and says nothing else changed (but "now": "it now locks the
    row"), and the subject words of what it says it switched ("the refund worker") and of what
    from ("polling postgres"), if it opens so. A statement that holds all of the latter is what
    it replaces whatever it calls the former ("We migrated all topics from Avro to Protobuf"
    after "Event payloads are Avro": training update set G)."""
    lowered = " ".join(text.lower().split())
    rest = _RESOLVED.sub(" ", lowered).replace(" now ", " ")
    fix = _FIX_REPORT.match(lowered) is not None and not _CUES.search(rest)
    found = _SWITCHED.search(lowered)
    if not found:
        return fix, frozenset(), frozenset()
    return fix, terms(found.group(1)), terms(found.group(2))


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def _states_problem(text: str) -> bool:
    return _PROBLEM.search(text.lower()) is not None


# What a version change names as changed: "Bumped delta-spark to 3.2.0", "upgraded the
# aws provider from 4.67": the package, as one name.
_BUMPED = re.compile(
    r"\b(?:bump(?:ed|s)?|upgrad(?:ed|es|e)|downgrad(?:ed|es|e)|pinn?(?:ed|s)?)\s+(?:the\s+)?"
    r"([\w.@/+-]+)\s+(?:to|from|at|back)\b"
)


def bumps_another(new: str, held: frozenset[str]) -> bool:
    """``new`` changes the version of a package that a statement holding ``held`` does not
    name whole ("Bumped delta-spark to 3.2.0" changes nothing of "build.sbt targets Spark
    3.3.2": training update set D, session 32)."""
    named = _bumped(new)
    return bool(named) and not any(n <= held for n in named)


@functools.lru_cache(maxsize=ANALYSED_TEXTS)
def _bumped(text: str) -> tuple[frozenset[str], ...]:
    """The subject words of each package whose version ``text`` changes (read once per text:
    ``best_match`` asks it of one new statement against every earlier one)."""
    found = (terms(m.group(1)) for m in _BUMPED.finditer(" ".join(text.lower().split())))
    return tuple(n for n in found if n)


def _other_action(new: str, old: str) -> bool:
    """The two openings go on with different words, one of them a participle ("user samples
    are limited to 60 seconds" / "user samples are decoded by JUCE", "tiles are served by
    Tegola" / "tiles are generated down to zoom 14", "the staging models are materialized as
    views" / "are one per source table"): two things said of one subject, both true, not one
    value changed ("the base image is Ubuntu" / "is Debian", "the model is retrained monthly" /
    "weekly"). Held-out update cases, session 27: both false links of this rule; training update
    set E, session 32: two more, one of them a participle written with a hyphen ("sub-cycled")."""
    after = [_word_after_verb(text) for text in (new, old)]
    return any(w.endswith(("ed", "en")) for w in after) and after[0] != after[1]


def _word_after_verb(text: str) -> str:
    """The word after the opening's verb, as written ("sub-cycled", not "sub")."""
    tokens, at = _verb_of(text)
    if not 0 <= at < len(tokens) - 1:
        return ""
    written = [w.strip(_PUNCTUATION) for w in text.lower().split()]
    # the verb's place among the written words: the first of them that is the verb, after
    # the words before it (a written word may hold several of ``tokens``: "sub-cycled")
    seen = 0
    for i, word in enumerate(written):
        if word == tokens[at] and seen >= at:
            return written[i + 1] if i + 1 < len(written) else ""
        seen += max(1, len(words(word)))
    return tokens[at + 1]


_PUNCTUATION = ".,;:!?()[]\"'`"


def _same_opening(
    new: tuple[tuple[str, ...], str], old: tuple[tuple[str, ...], str], cue: bool
) -> bool:
    """The same subject (at least MIN_SUBJECT_WORDS words, one of them a subject word) with the
    same verb, or any verb when the new one says it replaces something."""
    subject, verb = new
    if len(subject) < MIN_SUBJECT_WORDS or subject != old[0]:
        return False
    if not terms(" ".join(subject)):
        return False
    return verb == old[1] or cue


def _rarity(others: Sequence[frozenset[str]], new_terms: frozenset[str]) -> dict[str, float]:
    """Each of ``new_terms``' weight: 1 for a word only a few statements hold, less for one
    many hold (a smoothed inverse document frequency, at most 1)."""
    total = len(others) + 1
    out: dict[str, float] = {}
    for term in new_terms:
        count = 1 + sum(1 for t in others if term in t)
        out[term] = min(1.0, math.log((total + 1) / count) / math.log(total + 1) + 0.2)
    return out
