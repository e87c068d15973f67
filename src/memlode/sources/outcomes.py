"""What a shell command's output says happened, in the words a next-day question uses.

Two readings of one command and its output (stdout, stderr, or the error text of a failed
call), shared by the capture hooks (``memlode.hooks.extract``) and the transcript turns
(``memlode.sources.turns``):

- ``error_lines``: the decisive lines of a failure (compiler, linter, type checker, test and
  CI output): lines with an error marker (``error:``, ``FAIL``, ``panic:``, ``##[error]``,
  Biome's cross …) and, for a build/test/lint command, ``file:line`` diagnostics; at most a
  few, each cut short, so a long log keeps what a question about it names.
- ``outcomes``: the state the command left: a commit made (hash, branch, subject), a push
  (range and branch) or a rejected one, a tag, a release or pull request created, a merge, the
  branch ahead of or behind its upstream, and test totals (passed/failed).
- ``repeated_lines``: what a long log printed again and again (a warning per test), once each
  with its count: the middle a stored head and end of the output leave out.
- ``added_versions``: the packages and versions the added lines of a diff name (a lock file's
  ``"@ark-ui/react@5.31.0"``, a manifest's ``"react": "^18.3.1"``, ``go.mod``'s
  ``module v1.2.0``, ``Cargo.lock``'s ``name``/``version`` lines, ``pkg==1.0``): a lock file's
  diff is long, and which version came in is what a question about it asks.

Plain string methods only: this runs in a hook process, where even ``re`` is not loaded
otherwise (bench/bench_hooks.py measures the post-tool hook).
"""

from __future__ import annotations

__all__ = [
    "STATE_REPORTS",
    "added_versions",
    "error_lines",
    "failed_by_output",
    "outcomes",
    "read_output",
    "repeated_lines",
    "reported_totals",
]

# The outcome lines that report a state rather than change one (a commit, a push, a tag, a
# release, a pull request, a merge): the tests' totals, the branch against its upstream, a
# clean tree, the first commit of a ``git log`` listing, what a commit's hooks ran, a build that
# succeeded. They start with these.
STATE_REPORTS = ("tests:", "branch", "nothing", "log ", "commit hooks", "build:")

# At most this many decisive lines, each at most LINE_CHARS (a log keeps its point, not its bulk).
MAX_ERROR_LINES = 6
LINE_CHARS = 220

# A line starting (lower-cased, after indentation) with one of these reports a failure.
_STARTS = (
    "error",
    "fatal:",
    "panic:",
    "fail",
    "--- fail",
    "traceback",
    "\u00d7",  # Biome's and others' cross
    "✗",
    "✖",
    "##[error]",
    "npm err!",
    "e   ",
    "! [rejected]",
    "! [remote rejected]",
    "undefined reference",
    "thread '",
    "author identity unknown",
)
# ... and one holding one of these.
_HOLDS = (
    "error:",
    "error[",
    "error ts",
    ": error",
    "##[error]",
    "undefined:",
    "is not defined",
    "not defined",
    "cannot find",
    "command not found",
    "no such file or directory",
    "no matches found",
    "[build failed]",
    "build failed",
    "assertionerror",
    "exceeds the maximum",
    "unrecognized subcommand",
    "unrecognized argument",
    "permission denied",
    "timed out",
    "not equal",
    "failed to push",
    "rejected",
    "exit code",
)
# Words that make a ``file:line`` line a diagnostic whatever the command.
_DIAGNOSTIC_WORDS = ("error", "undefined", "cannot", "unused", "invalid", "missing", "expected")
# Commands whose ``file:line`` output lines are diagnostics (builds, tests, linters, checkers);
# a grep's or a cat's are not.
_CHECKERS = (
    "test",
    "lint",
    "check",
    "build",
    "vet",
    "tsc",
    "mypy",
    "ruff",
    "eslint",
    "biome",
    "clippy",
    "cargo",
    "go ",
    "pytest",
    "make",
    "golangci",
    "fieldalignment",
    "modernize",
    "pre-commit",
    "gradle",
    "mvn",
    "javac",
    "rustc",
    "gcc",
    "clang",
    "tox",
    "jest",
    "vitest",
    "just ",
    "compile",
    "gh run",
    "gh pr checks",
    "dotnet",
    "swift",
    "mix ",
    "elixir",
    "credo",
    "dialyzer",
)
_LISTERS = ("grep", "rg ", "git grep", "cat ", "sed ", "head ", "find ", "ls ", "awk ", "less ")
# Words after a number that make it a test total.
_PASSED = ("passed", "pass", "passing")
_FAILED = ("failed", "fail", "failing", "failures", "failure")
_SUMMARY_STARTS = ("=", "tests", "test result", "test files", "ran ", "-")


# Output longer than this is read by its start and its end (errors and totals sit at the end):
# the hook reads a command's output in well under a millisecond (bench/bench_hooks.py).
SCAN_HEAD_CHARS = 6_000
SCAN_TAIL_CHARS = 20_000


def _lines(text: str) -> list[str]:
    """The output's lines, cleaned, without blank ones; a long output by its start and end."""
    if len(text) > SCAN_HEAD_CHARS + SCAN_TAIL_CHARS:
        text = text[:SCAN_HEAD_CHARS] + "\n" + text[-SCAN_TAIL_CHARS:]
    out = []
    for raw in text.splitlines():
        line = _clean(raw)
        if line:
            out.append(line)
    return out


def _clean(line: str) -> str:
    """A log line without colour codes (ESC[…m and its caret form ^[[…m) and without the
    ``job<TAB>step<TAB>timestamp`` prefix of ``gh run view --log``."""
    if "\x1b" not in line and "^[" not in line and "\t" not in line and "\ufeff" not in line:
        line = line.strip()
        return line.split(" ", 1)[1].strip() if _stamped(line) and " " in line else line
    for esc in ("\x1b[", "^[["):
        while esc in line:
            start = line.index(esc)
            end = start + len(esc)
            while end < len(line) and (line[end].isdigit() or line[end] == ";"):
                end += 1
            line = line[:start] + line[end + 1 :]
    parts = line.split("\t", 2)
    if len(parts) == 3 and _stamped(parts[2].lstrip("\ufeff")):
        line = parts[2]
    line = line.lstrip("\ufeff").strip()
    if _stamped(line):
        line = line.split(" ", 1)[1].strip() if " " in line else ""
    return line


def _stamped(text: str) -> bool:
    """Whether ``text`` starts with an ISO timestamp (``2026-07-24T11:38:43.41Z``)."""
    return text[:4].isdigit() and text[4:5] == "-" and text[10:11] == "T"


def _is_location(token: str) -> bool:
    """``path/file.ext:12`` or ``file.ext:12:5:`` or ``file.ts(12,5):``: where a diagnostic is."""
    token = token.rstrip(":,")
    if "(" in token and token.endswith(")"):
        token = token[: token.index("(")] + ":" + token[token.index("(") + 1 : -1].split(",")[0]
    parts = token.split(":")
    if len(parts) < 2:
        return False
    if len(parts[0]) == 1 and len(parts) > 2:  # a Windows drive letter
        parts = [parts[0] + ":" + parts[1], *parts[2:]]
    return "." in parts[0] and len(parts[0]) > 2 and parts[1].isdigit()


def _checker(command: str) -> bool:
    low = command.lower().strip()
    if low.startswith(_LISTERS):
        return False
    return any(word in low for word in _CHECKERS)


def _decisive(line: str, checker: bool, lister: bool = False) -> bool:
    low = line.lower()
    first = line.split(maxsplit=1)[0] if line.split() else ""
    if lister and _is_location(first):
        return False  # a grep's or cat's file:line output is the file, not a diagnostic
    if "━━" in line:  # a diagnostic's header rule (Biome, Rome): `path[:line:col] rule ━━━`
        words = line.replace("━", " ").split()
        return any(_is_location(w) or ("." in w and "/" in w) for w in words[:3])
    if low.startswith(("at ", "warning", "hint:", "note:")):
        return False
    if low.startswith(_STARTS) or any(map(low.__contains__, _HOLDS)):
        return not low.startswith(("error: item", "0 fail")) and " 0 errors" not in low
    words = line.split()
    if words and words[0] == "-->":
        words = words[1:]
    # a location alone (a test helper's stack line) says nothing; a diagnostic has a message
    if len(words) < 2 or not _is_location(words[0]):
        return False
    said = {w.strip(".,:;()[]'\"`").lower() for w in words[1:]}
    return checker or any(w in said for w in _DIAGNOSTIC_WORDS)


def _rule_first(line: str) -> str:
    """A diagnostic ending in its rule's name (golangci-lint's ``(lll)``, mypy's
    ``[arg-type]``) with the name moved up front, where a shortened line still shows it."""
    for left, right in ("()", "[]"):
        if not line.endswith(right) or left not in line:
            continue
        start = line.rindex(left)
        rule = line[start + 1 : -1]
        named = rule and len(rule) <= 40 and all(c.isalnum() or c in "-_/." for c in rule)
        if named and start > 0 and line[start - 1] == " ":
            return f"{left}{rule}{right} {line[:start].rstrip()}"
    return line


def _ci_checks(output: str) -> str:
    """``gh pr checks`` lines (``name<TAB>state<TAB>time<TAB>url``) as CI's verdict."""
    states: dict[str, list[str]] = {}
    for raw in output.splitlines():
        parts = [p.strip() for p in raw.split("\t")]
        if len(parts) >= 2 and parts[1] in ("pass", "fail", "pending", "skipping", "cancel"):
            states.setdefault(parts[1], []).append(parts[0])
    if not states:
        return ""
    failed = states.get("fail", [])
    text = "CI checks " + ("failed: " + ", ".join(failed[:6]) if failed else "not failing")
    counts = [f"{len(v)} {k}" for k, v in states.items() if k != "fail"]
    return text + (" (" + ", ".join(counts) + ")" if counts else "")


def _ci_failure(log: str) -> str:
    """A failed job's log (``gh run view --log-failed``: ``job<TAB>step<TAB>…``): which job
    failed, at which step."""
    for raw in log.splitlines():
        parts = raw.split("\t", 2)
        if "##[error]" in raw and len(parts) == 3 and parts[0].strip() and parts[1].strip():
            return f"CI job {parts[0].strip()} failed at step {parts[1].strip()}"
    return "CI job failed"


def error_lines(text: str, command: str = "") -> list[str]:
    """The decisive lines of a failure's output, in order, without repeats."""
    return _errors_of(_lines(text), command)


def _errors_of(lines: list[str], command: str) -> list[str]:
    checker = _checker(command)
    lister = command.lower().strip().startswith(_LISTERS)
    out: list[str] = []
    seen: set[str] = set()
    for line in lines:
        if line in seen or not _decisive(line, checker, lister):
            continue
        if "exit code" in line.lower() and line.lower().rstrip(".").endswith(" 0"):
            continue
        seen.add(line)
        line = _rule_first(line.replace("━", "").strip())
        out.append(line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…")
        if len(out) >= MAX_ERROR_LINES:
            break
    return out


def reported_totals(text: str) -> tuple[int | None, int | None] | None:
    """(passed, failed) as the output's summary lines report them (None for a count it does
    not give), summed; None when it reports no test totals. A summary line starts with its
    count (``1274 pass``, ``2 failing``) or with ``=``, ``Tests``, ``test result``, ``Ran``;
    Go's per-package ``ok``/``FAIL`` lines and vitest's ``Test Files`` count files or packages,
    when no line counts the tests (``_totals_of``)."""
    return _totals_of(_lines(text))


def _totals_of(lines: list[str]) -> tuple[int | None, int | None] | None:
    """The tests' totals; the counts of files or packages (vitest's "Test Files", Go's
    ``ok``/``FAIL`` lines, which jest's ``FAIL src/a.test.ts`` also reads as) only when no line
    counts the tests themselves: that line beside "Tests: 1 failed, 4 passed" is one failure."""
    tests: list[int | None] = [None, None, 0]  # passed, failed, total ("5 tests, 1 failure")
    files: list[int | None] = [None, None, 0]
    for line in lines:
        low = line.lower()
        if low.startswith(("ok ", "ok\t")) and "/" in line:
            files[0] = (files[0] or 0) + 1
            continue
        if low.startswith(("fail ", "fail\t")) and "/" in line:
            files[1] = (files[1] or 0) + 1
            continue
        if len(low) > 120 or not (low[:1].isdigit() or low.startswith(_SUMMARY_STARTS)):
            continue
        counts = files if low.startswith("test files") else tests
        words = low.replace(",", " ").replace(";", " ").replace("|", " ").split()
        for i, word in enumerate(words[:-1]):
            if not word.isdigit():
                continue
            after = words[i + 1].rstrip(".:")
            if after in _PASSED:
                counts[0] = (counts[0] or 0) + int(word)
            elif after in _FAILED:
                counts[1] = (counts[1] or 0) + int(word)
            elif after in ("tests", "test", "examples"):
                counts[2] = (counts[2] or 0) + int(word)
    passed, failed, total = tests if tests[0] is not None or tests[1] is not None else files
    if passed is None and failed is None:
        return None
    if passed is None and total:
        passed = max(total - (failed or 0), 0)
    return passed, failed


def failed_by_output(text: str, command: str = "") -> bool:
    """Whether output a command printed says it failed, although its exit status did not (a
    test run piped into ``tail``, a linter run in a chain): failing tests, or decisive lines
    when no test totals say all passed."""
    return read_output(command, text)[2]


def read_output(
    command: str, output: str, failed: bool = False
) -> tuple[list[str], list[str], bool]:
    """One reading of a command's output: its outcomes, its decisive error lines, and whether
    it says it failed (``failed``: the call itself failed). The hooks' and the transcript
    turns' entry point (the output is cleaned and scanned once)."""
    lines = _lines(output)
    totals = _totals_of(lines)
    # a run whose totals say all passed has no failure to read (a green log is the long one)
    errors: list[str] = []
    if failed or totals is None or totals[1]:
        errors = _errors_of(lines, command)
    # failing tests say it; else decisive lines of a build, test or lint command
    said_failed = bool(totals[1]) if totals is not None else bool(errors) and _checker(command)
    return _outcomes_of(command, lines, output, failed, totals), errors, said_failed


# A message a log prints again and again, its numbers aside ("[SnippetExtractor] Line range 20-25
# exceeds file length 10, clamping to 10-10" once per test), is what a user remembers of a long
# run ("the tests kept printing clamping warnings") and what its stored head and end miss: kept
# once, with its count. A message is a line that names who logs it ("[Parser] …", after a
# timestamp or not) or its level ("warning: …"); a stack frame, a quoted source line or a dumped
# request body repeats as often and says nothing of its own.
REPEATED_MIN = 3
MAX_REPEATED = 4
_LEVELS = ("warn", "deprecat", "info", "notice", "error", "debug", "note")  # "warn" holds "warning"
# A line that opens a dump ("[EvaluationRoutes] Request body: {") says nothing of its own.
_OPENERS = ("{", "[", "(", ":")


def _message(line: str) -> bool:
    """Whether a log line is a message: tagged ``[Name]`` or opening with its level."""
    while line.startswith("[") and "]" in line:
        tag, _, rest = line[1:].partition("]")
        if any(ch.isalpha() for ch in tag):
            return bool(rest.strip())
        line = rest.lstrip()  # a timestamp: the tag may follow
    return line.lower().startswith(_LEVELS)


def _shape(line: str) -> str:
    """``line`` with each run of digits as one ``#``: the lines a loop prints share a shape."""
    out: list[str] = []
    for ch in line:
        if ch.isdigit():
            if not out or out[-1] != "#":
                out.append("#")
        else:
            out.append(ch)
    return "".join(out)


def repeated_lines(output: str, shown: str = "") -> list[tuple[str, int]]:
    """The log messages (``_message``) of ``output`` printed ``REPEATED_MIN`` times or more
    (numbers aside), most often first, each as first printed (cut to ``LINE_CHARS``) with
    its count: at most ``MAX_REPEATED``, none of a shape the part ``shown`` already holds."""
    seen = {_shape(line) for line in _lines(shown)}
    counts: dict[str, int] = {}
    first: dict[str, str] = {}
    for line in _lines(output):
        if not _message(line) or line.endswith(_OPENERS):
            continue
        shape = _shape(line)
        counts[shape] = counts.get(shape, 0) + 1
        first.setdefault(shape, line)
    often = [s for s, n in counts.items() if n >= REPEATED_MIN and s not in seen]
    often.sort(key=lambda s: -counts[s])  # stable: of equal counts, the first printed first
    return [(first[s][:LINE_CHARS], counts[s]) for s in often[:MAX_REPEATED]]


# The versions a diff adds, as one line: at most MAX_VERSIONS_CHARS; a family of packages at
# one version (a scope's forty "@zag-js/…": "1.33.1") as one item, "@zag-js/* 1.33.1 (40)".
MAX_VERSIONS_CHARS = 300
# Of a longer diff, its first this many characters are read (a 9 KB bun.lock diff whole; a
# 5 MB one in about 0.1 s rather than 2 s, in a hook).
VERSIONS_SCAN_CHARS = 200_000
_SPEC_MARKS = "^~=<>v"
_NOT_NAME = "\"',[]{}()"


def _is_version(token: str, strict: bool = False) -> bool:
    """A version or a range's bound: ``5.31.0``, ``^3.33.0``, ``v1.2.0``, ``>=2.0``;
    ``strict``, one that a setting's number is not (``timeout: 1.5``): three parts, or
    marked (``^1.5``, ``v1.5``)."""
    bare = token.lstrip(_SPEC_MARKS)
    if not (bare[:1].isdigit() and "." in bare):
        return False
    if strict and bare == token and bare.count(".") < 2:
        return False
    return all(ch.isalnum() or ch in ".-+" for ch in bare)


def _is_name(token: str) -> bool:
    return bool(token) and (token[0].isalpha() or token[0] == "@") and "://" not in token


def _pairs(line: str) -> list[tuple[str, str]]:
    """(package, version) pairs one added line names."""
    for ch in _NOT_NAME:
        line = line.replace(ch, " ")
    tokens = line.split()
    out: list[tuple[str, str]] = []
    for i, token in enumerate(tokens):
        name, sep, version = token[1:].rpartition("@") if "@" in token[1:] else ("", "", "")
        if sep and _is_version(version):  # name@version (a lock's resolved entry)
            out.append((token[0] + name, version))
            continue
        name, sep, version = token.partition("==")
        if sep and _is_name(name) and _is_version(version):  # pkg==1.0
            out.append((name, version))
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        name = token.rstrip(":")
        keyed = name != token  # "name": "1.0"
        if following in ("=", ":") and i + 2 < len(tokens):
            keyed, following = True, tokens[i + 2]  # name = "1.0"
        module = following.startswith("v") and "/" in name  # go.mod's module v1.2.0
        named = _is_name(name) and name.lower() != "version"
        if (keyed or module) and named and _is_version(following, strict=True):
            out.append((name, following))
    return out


def added_versions(output: str) -> str:
    """The packages and versions the added lines of a diff name, in the order they come, as
    one line (``MAX_VERSIONS_CHARS``); '' when none. A ``name = "x"`` line followed by a
    ``version = "1.0"`` line (Cargo.lock, uv.lock) is one pair."""
    found: dict[str, str] = {}
    named = ""
    for raw in output[:VERSIONS_SCAN_CHARS].splitlines():
        line = raw.strip()
        if not line.startswith("+") or line.startswith("+++"):
            named = ""
            continue
        body = line[1:].strip()
        key, _, value = body.partition("=")
        key, value = key.strip(), value.strip().strip("\"'")
        if key == "name":
            named = value
            continue
        if key == "version" and named and _is_version(value):
            found.setdefault(named, value)
            named = ""
            continue
        for name, version in _pairs(body):
            found.setdefault(name, version)
    return _grouped(found)


def _grouped(found: dict[str, str]) -> str:
    """``found`` as items, a scope's packages at one version as one."""
    families: dict[tuple[str, str], list[str]] = {}
    for name, version in found.items():
        scope = name.split("/", 1)[0] + "/*" if name.startswith("@") and "/" in name else name
        families.setdefault((scope, version), []).append(name)
    items = [
        f"{names[0]} {version}" if len(names) == 1 else f"{scope} {version} ({len(names)})"
        for (scope, version), names in families.items()
    ]
    line = ""
    for item in items:
        if len(line) + len(item) + 2 > MAX_VERSIONS_CHARS:
            break
        line = f"{line}, {item}" if line else item
    return line


# The ref a ``git log`` names, and where its one-line listing starts: "log origin/next:
# 9f012815 fix(pwsh): …" (what "which commit was next on before …" asks). A listing's later
# lines are older commits, which the output itself holds.
LOG_LINE_CHARS = 120
_SHELL_BREAKS = ("|", "&&", "||", ";", ">", "2>&1")


def _is_hash(token: str) -> bool:
    """A git commit hash, abbreviated or whole (a listing's first word, a commit's line)."""
    return 7 <= len(token) <= 40 and all(ch in "0123456789abcdef" for ch in token)


def _log_head(command: str, lines: list[str]) -> str:
    """``log <ref>: <hash> <subject>`` of a ``git log`` listing's first commit (``--oneline``
    or a like format: a hash, then the subject), or ''."""
    first = next((line for line in lines if _is_hash(line.split(" ", 1)[0]) and " " in line), "")
    if not first:
        return ""
    at = command.lower().find("git log")
    words = command[at + len("git log") :].split() if at >= 0 else []
    ref = "HEAD"
    for word in words:
        if word in _SHELL_BREAKS or word == "--":
            break
        if word[0].isalnum() and not word.isdigit() and not any(ch in word for ch in "'\"%"):
            ref = word
            break
    return f"log {ref}: {first}"[:LOG_LINE_CHARS]


def _git_tag(command: str) -> str:
    words = command.split()
    if "tag" not in words:
        return ""
    rest = words[words.index("tag") + 1 :]
    skip = False
    for word in rest:
        if skip:
            skip = False
            continue
        if word in ("-m", "-F", "--message", "--file", "-u"):
            skip = True
            continue
        if word in ("-l", "--list", "-d", "--delete", "-v", "--verify"):
            return ""
        if word.startswith("-"):
            continue
        if word in ("&&", "||", ";", "|"):
            return ""
        return word.strip("'\"")
    return ""


def _stat(line: str) -> str:
    """git commit's stat line (" 21 files changed, 9669 insertions(+), 10 deletions(-)"), short:
    '21 files changed, +9669 -10'; '' for any other line."""
    parts = [part.split() for part in line.split(",")]
    head = parts[0]
    if (
        len(head) != 3
        or not head[0].isdigit()
        or head[1:] not in (["file", "changed"], ["files", "changed"])
    ):
        return ""
    counts = [
        ("+" if words[1].startswith("insertion") else "-") + words[0]
        for words in parts[1:]
        if len(words) >= 2 and words[0].isdigit()
    ]
    return ", ".join([" ".join(head), " ".join(counts)] if counts else [" ".join(head)])


def _commit(line: str) -> str:
    """``[main 37016ac] subject`` (git commit's first line) as 'committed 37016ac on main'."""
    if not line.startswith("[") or "] " not in line:
        return ""
    inside, subject = line[1:].split("] ", 1)
    words = inside.split()
    if len(words) < 2:
        return ""
    sha = words[-1]
    if not _is_hash(sha):
        return ""
    return f"committed {sha} on {words[0]}: {subject.strip()}"


# What git commit's hooks ran, from the lines its output holds before the commit's own
# ("[main 37016ac] subject"): a script runner's echo of each command (bun's, yarn's and pnpm's
# "$ biome check", npm's "> eslint ." under "> app@1.0.0 lint") and the pre-commit framework's
# verdicts ("ruff.........Passed"). The commit's line says what was committed; a next-day
# question asks what the hook ran ("what does the commit hook run?", "did the pre-commit
# checks pass?"), in words the hook's output never says.
MAX_HOOK_COMMANDS = 6
HOOK_COMMAND_CHARS = 80
_VERDICTS = ("Passed", "Failed", "Skipped")


def _commit_hooks(lines: list[str]) -> str:
    """'commit hooks ran: bun test src/, tsc --noEmit' (the commands or checks a git commit's
    hooks ran, by their output before the commit line), or ''."""
    ran: list[str] = []
    for line in lines:
        if _commit(line):
            break
        said = ""
        if line.startswith(("$ ", "> ")):
            said = line[2:].strip()
            words = said.split()
            if line[0] == ">" and len(words) == 2 and "@" in words[0][1:]:
                said = ""  # npm's "> app@1.0.0 lint": the script's name, its command follows
            elif line[0] == ">" and (said[:1].isdigit() or "|" in said or "\u2502" in said):
                said = ""  # a code frame's marked line ("> 12 | const a = 1"), not a command
        elif "..." in line and line.endswith(_VERDICTS):
            name, _dots, verdict = line.rpartition("...")
            name = name.rstrip(".").strip()
            said = f"{name} {verdict.strip('.').lower()}" if name else ""
        said = said[:HOOK_COMMAND_CHARS]
        if said and said not in ran:
            ran.append(said)
    return "commit hooks ran: " + _listed(ran, MAX_HOOK_COMMANDS) if ran else ""


def _listed(names: list[str], limit: int) -> str:
    """The first ``limit`` of ``names``, comma-separated, and how many more there are."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" (+{more} more)" if more > 0 else "")


def _only_git_before(prefix: str) -> bool:
    """Whether the shell text before a ``git commit`` runs only git and cd (``git add -A &&``):
    another command's output ("bun run build && git commit") would read as the hooks'."""
    starts = True  # the next word starts a command
    for word in prefix.split():
        if word in _SHELL_BREAKS:
            starts = True
        elif starts:
            if word not in ("git", "cd"):
                return False
            starts = False
    return True


def _push(line: str) -> str:
    """A ref line of git push (``a1..b2  main -> main``, ``* [new tag] v1 -> v1``)."""
    if " -> " not in line:
        return ""
    left, dst = line.rsplit(" -> ", 1)
    words = left.split()
    dst = dst.split()[0] if dst.split() else ""
    if line.startswith("!"):
        return f"push of {dst} rejected: {line.lstrip('! ').strip()}"
    if "[new tag]" in left:
        return f"pushed new tag {dst}"
    if "[new branch]" in left:
        return f"pushed new branch {dst}"
    if words and ".." in words[0] and len(words) >= 2:
        return f"pushed {words[1]} -> {dst} ({words[0]})"
    if words and words[0] == "+" and len(words) >= 3:
        return f"force-pushed {words[2]} -> {dst} ({words[1]})"
    return ""


def _urls(text: str, part: str) -> list[str]:
    found = []
    for word in text.split():
        word = word.strip("()<>\"',")
        if word.startswith("https://") and part in word and word not in found:
            found.append(word)
    return found


# git status's long-format sections, and what each says of the files listed under it.
_STATUS_SECTIONS = {
    "changes to be committed:": "staged",
    "changes not staged for commit:": "changed, not staged",
    "untracked files:": "untracked",
}
MAX_STATUS_FILES = 6


def _status_files(output: str) -> list[str]:
    """The files of git status's sections: 'staged: a.go, b.go'; none for other output."""
    found: dict[str, list[str]] = {}
    section = ""
    for raw in output.splitlines():
        line = raw.strip()
        low = line.lower()
        if low in _STATUS_SECTIONS:
            section = _STATUS_SECTIONS[low]
            continue
        if not section or not line or line.startswith("("):
            if not line and section == "untracked":
                section = ""
            continue
        if not raw.startswith(("\t", "  ")):
            section = ""
            continue
        name = line.split(":", 1)[1].strip() if section != "untracked" and ":" in line else line
        found.setdefault(section, []).append(name)
    out = []
    for label, names in found.items():
        text = _listed(names, MAX_STATUS_FILES)
        out.append(f"{label}: {text}")
    return out


def outcomes(command: str, output: str, failed: bool = False) -> list[str]:
    """What the command changed or reported, one short line each (may be empty)."""
    return read_output(command, output, failed)[0]


def _outcomes_of(
    command: str,
    lines: list[str],
    output: str,
    failed: bool,
    totals: tuple[int | None, int | None] | None,
) -> list[str]:
    low = " ".join(command.lower().split())
    out: list[str] = []
    # git's and gh's own lines (a commit, a push, the branch's state), from their commands only
    for line in lines if "git" in low or "gh " in low else ():
        said = _commit(line) or _push(line)
        lowered = line.lower()
        if not said:
            if lowered.startswith(("your branch is ahead of", "your branch is behind")):
                said = "branch " + line[len("your branch is ") :].rstrip(".")
            elif lowered.startswith("your branch is up to date with"):
                said = "branch " + line[len("your branch is ") :].rstrip(".") + " (pushed)"
            elif lowered.startswith("your branch and") and "diverged" in lowered:
                said = "branch and " + line[len("your branch and ") :].rstrip(",.")
            elif "...origin/" in line and "[ahead" in line:
                said = "branch " + line.strip("📌 ").strip() + " (not pushed)"
            elif lowered.startswith("nothing to commit"):
                said = lowered
            elif lowered == "everything up-to-date":
                said = "push: everything up-to-date"
            elif lowered.startswith(("fast-forward", "merge made by")) and "merge" in low:
                said = "merged (" + lowered.rstrip(".") + ")"
            elif out and out[-1].startswith("committed ") and (stat := _stat(line)):
                out[-1] += f" ({stat})"  # its stat line: "how many files went into it?"
                continue
        if said and said not in out:
            out.append(said)
    if "git commit" in low and _only_git_before(low.split("git commit", 1)[0]):
        hooks = _commit_hooks(lines)
        if hooks:
            out.insert(1 if out and out[0].startswith("committed ") else 0, hooks)
    if "gh pr checks" in low or "glab ci" in low:
        verdict = _ci_checks(output)
        if verdict:
            out.append(verdict)
    elif ("gh run view" in low or "gh run watch" in low) and "##[error]" in output:
        out.append(_ci_failure(output))
    if not failed:
        if "gh pr create" in low:
            out.extend(f"opened pull request {url}" for url in _urls(output, "/pull/"))
        if "gh pr merge" in low:
            out.append("merged the pull request")
        if "gh release create" in low:
            out.extend(f"published release {url}" for url in _urls(output, "/releases/tag/"))
        elif "gh release upload" in low or "gh release edit" in low:
            out.append("updated the release" + (" assets" if "upload" in low else " notes"))
        tag = _git_tag(low) if "git tag" in low else ""
        if tag:
            out.append(f"tagged {tag}")
    if "git status" in low or "git add" in low:
        out.extend(_status_files(output))
    if "git log" in low:
        head = _log_head(" ".join(command.split()), lines)
        if head:
            out.append(head)
    if not failed and totals is None and not low.startswith(_LISTERS):
        from memlode.sources.builds import build_verdict

        built = build_verdict(lines)
        if built:
            out.append(built)
    if totals is not None:
        named = zip(totals, ("passed", "failed"), strict=True)
        counts = [f"{n} {word}" for n, word in named if n is not None]
        out.append("tests: " + ", ".join(counts))
    return out[:10]
