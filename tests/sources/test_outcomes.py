"""Reading what a command's output says happened (memlode.sources.outcomes), on outputs
written after real sessions': git, gh, test runners, linters and CI logs."""

from __future__ import annotations

from memlode.sources.outcomes import error_lines, failed_by_output, outcomes, reported_totals


def test_git_outcomes() -> None:
    printed = (
        "[main 28882f7] Add Bing wallpaper manager for COSMIC desktop\n"
        " 21 files changed, 9669 insertions(+), 10 deletions(-)\n"
        "To https://github.com/someone/app.git\n   b08ed3d..526a132  main -> main\n"
        " * [new tag]         v0.1.1 -> v0.1.1\n"
    )
    assert outcomes("git commit -m x && git push --follow-tags", printed) == [
        "committed 28882f7 on main: Add Bing wallpaper manager for COSMIC desktop"
        " (21 files changed, +9669 -10)",
        "pushed main -> main (b08ed3d..526a132)",
        "pushed new tag v0.1.1",
    ]
    status = "On branch main\nYour branch is ahead of 'origin/main' by 21 commits.\n"
    assert outcomes("git status", status) == ["branch ahead of 'origin/main' by 21 commits"]
    rejected = " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs"
    said = outcomes("git push", rejected, failed=True)
    assert said[0].startswith("push of main rejected: [rejected]")
    assert outcomes('git tag -a v0.1.2 -m "Fix tray autostart"', "") == ["tagged v0.1.2"]
    assert outcomes("git tag -l", "v0.1.0\nv0.1.1\n") == []
    # a commit's stat line of deletions only; a merge's stat line is not a commit's
    only_removed = "[main 1549474] Drop the old icon\n 3 files changed, 4 deletions(-)\n"
    assert outcomes("git commit -am x", only_removed) == [
        "committed 1549474 on main: Drop the old icon (3 files changed, -4)"
    ]
    merged = "Merge made by the 'ort' strategy.\n 1 file changed, 2 insertions(+)\n"
    assert outcomes("git merge feature", merged) == ["merged (merge made by the 'ort' strategy)"]
    # a failed tag or release made nothing
    assert outcomes("git tag -a v1 -m x", "fatal: tag 'v1' already exists", failed=True) == []


def test_what_a_commits_hooks_ran() -> None:
    """A git commit's hooks print before its own line: bun's echo of each script's command,
    npm's "> command" under "> app@1.0.0 lint", the pre-commit framework's verdicts. The
    outcome names them, in the words a question about the hook uses."""
    bun = (
        "$ bun test src/\nbun test v1.3.5 (1e86cebd)\n 1274 pass\n 0 fail\n"
        "$ biome check --error-on-warnings\nChecked 278 files in 128ms. No fixes applied.\n"
        "$ tsc --noEmit\n[main 37016ac] Fix tree view\n 6 files changed, 379 insertions(+)\n"
    )
    assert outcomes('git add -A && git commit -m "Fix tree view"', bun) == [
        "committed 37016ac on main: Fix tree view (6 files changed, +379)",
        "commit hooks ran: bun test src/, biome check --error-on-warnings, tsc --noEmit",
        "tests: 1274 passed, 0 failed",
    ]
    framework = (
        "> app@1.0.0 lint\n> eslint .\n\n"
        "ruff.....................................................................Passed\n"
        "mypy.....................................................................Failed\n"
        "- hook id: mypy\n- exit code: 1\n"
    )
    framework += "src/a.ts:12:7 lint/style ━━━━\n  > 12 \u2502 const a = 1\n"
    said = outcomes("git commit -m x", framework, failed=True)
    assert said == ["commit hooks ran: eslint ., ruff passed, mypy failed"]
    assert outcomes("git commit -m x", "[main abc1234] no hooks") == [
        "committed abc1234 on main: no hooks"
    ]
    # another command's "$ " lines are not a commit's hooks
    assert outcomes("bun run check", "$ biome check\nChecked 3 files") == []
    built = "$ vite build\nbuilt in 2s\n[main abc1234] Build"
    assert outcomes("cd app && bun run build && git commit -m Build", built) == [
        "committed abc1234 on main: Build"
    ]
    assert outcomes("cd app && git add -A && git commit -m Build", built)[1] == (
        "commit hooks ran: vite build"
    )


def test_gh_outcomes() -> None:
    url = "https://github.com/someone/app/pull/7716"
    assert outcomes("gh pr create --fill", f"{url}\n") == [f"opened pull request {url}"]
    release = "https://github.com/someone/app/releases/tag/v0.1.3\n"
    assert outcomes("gh release create v0.1.3 --notes x", release) == [
        "published release https://github.com/someone/app/releases/tag/v0.1.3"
    ]
    checks = (
        "test (ubuntu-latest)\tfail\t1m9s\thttps://ci/1\n"
        "lint\tpass\t5s\thttps://ci/2\nbuild\tpending\t0\thttps://ci/3\n"
    )
    assert outcomes("gh pr checks 7716", checks, failed=True) == [
        "CI checks failed: test (ubuntu-latest) (1 pass, 1 pending)"
    ]


def test_test_totals_of_several_runners() -> None:
    assert reported_totals(" 1274 pass\n 0 fail\n 2760 expect() calls\n") == (1274, 0)
    assert reported_totals("===== 2 failed, 10 passed in 1.20s =====") == (10, 2)
    assert reported_totals("test result: FAILED. 3 passed; 1 failed; 0 ignored") == (3, 1)
    assert reported_totals("Finished in 0.4 seconds\n5 tests, 1 failure\n") == (4, 1)
    assert reported_totals("ok  \tex.com/a\t0.1s\nFAIL\tex.com/b\t0.2s\n") == (1, 1)
    # files or suites count only when no line counts the tests: jest, vitest
    jest = (
        "FAIL src/api/routes.test.ts\n  ● rejects an unknown job\n\n"
        "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 4 passed, 5 total\n"
    )
    assert reported_totals(jest) == (4, 1)
    assert reported_totals(
        " Test Files  1 failed | 1 passed (2)\n      Tests  1 failed | 4 passed (5)\n"
    ) == (4, 1)
    assert reported_totals(" Test Files  2 passed (2)\n") == (2, None)
    # counts inside log lines are not totals
    assert reported_totals("[Limiter] Task 2 failed: boom\nretrying 3 passed items") is None


def test_error_lines_pick_the_decisive_lines() -> None:
    lint = (
        "$ biome check --error-on-warnings\n"
        " frontend/src/components/ContextTab.tsx format ━━━━━━━━━━━━━━━\n\n"
        "  \u00d7 Formatter would have printed the following content:\n"
        "    358 358 │   {/* List view */}\n"
    )
    assert error_lines(lint, "bun run lint") == [
        "frontend/src/components/ContextTab.tsx format",
        "\u00d7 Formatter would have printed the following content:",
    ]
    golangci = (
        "color\\gradient_test.go:191:1: The line is 185 characters long, which exceeds the "
        "maximum of 180 characters. (lll)\n\tassert.Equal(t, x)\n^\n1 issues:\n* lll: 1"
    )
    [line] = error_lines(golangci, "golangci-lint run ./...")
    assert line.startswith("(lll) color\\gradient_test.go:191:1: The line is 185")
    # a grep's file:line output is not a diagnostic; a checker's is
    found = "src/app.go:12: func handleError(err error) {\n"
    assert error_lines(found, "grep -n handle src/app.go") == []
    vet = "cache/file_map.go:204:13: possible misuse of unsafe.Pointer\n"
    assert error_lines(vet, "go vet ./...") == [vet.strip()]
    # a passing run whose logs mention errors did not fail
    passing = "error: Item 3 failed\n    at runNext (src/limiter.ts:55:5)\n 12 pass\n 0 fail\n"
    assert not failed_by_output(passing, "bun run test")
    assert failed_by_output(" 11 pass\n 1 fail\n", "bun run test")


def test_git_status_names_the_files_of_each_section() -> None:
    status = (
        "On branch next\nChanges to be committed:\n"
        '  (use "git restore --staged <file>..." to unstage)\n'
        "\tmodified:   src/color/gradient.go\n\tnew file:   src/color/shade.go\n\n"
        "Untracked files:\n"
        '  (use "git add <file>..." to include in what will be committed)\n'
        "\t.husky/\n\n"
    )
    assert outcomes("git add -A src && git status", status) == [
        "staged: src/color/gradient.go, src/color/shade.go",
        "untracked: .husky/",
    ]


def test_a_successful_builds_verdict_and_time() -> None:
    """The line a build tool ends a successful build with is its outcome, with the time a line
    after it gives: what "did it build, and how long did it take?" asks of a long log."""
    swift = (
        "[838/840] Linking StratoAgent\n[839/840] Applying StratoAgent\nBuild complete! (43.50s)\n"
    )
    assert outcomes("swift build --package-path agent 2>&1", swift) == [
        "build: succeeded in 43.50s"
    ]
    cargo = (
        "   Compiling wallpaper v0.1.0 (/home/u/wallpaper)\n"
        "    Finished `release` profile [optimized] target(s) in 1m 02s\n"
    )
    assert outcomes("cargo build --release", cargo) == ["build: succeeded in 1m 02s"]
    maven = (
        "[INFO] ------------------------------------------------------------------------\n"
        "[INFO] BUILD SUCCESS\n"
        "[INFO] ------------------------------------------------------------------------\n"
        "[INFO] Total time:  12.345 s\n"
    )
    assert outcomes("mvn -q package", maven) == ["build: succeeded in 12.345 s"]
    gradle = "> Task :app:assembleDebug\n\nBUILD SUCCESSFUL in 41s\n37 actionable tasks: 37 up\n"
    assert outcomes("./gradlew assembleDebug", gradle) == ["build: succeeded in 41s"]
    dotnet = "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\n\nTime Elapsed 00:00:05.12\n"
    assert outcomes("dotnet build", dotnet) == ["build: succeeded in 00:00:05.12"]
    assert outcomes("cmake --build build", "[100%] Built target calc\n") == ["build: succeeded"]
    # a failed build, a test run (its totals say it), a grep through a log: no build verdict
    assert outcomes("swift build", swift, failed=True) == []
    cargo_test = cargo + "running 3 tests\ntest result: ok. 3 passed; 0 failed; 0 ignored\n"
    assert outcomes("cargo test", cargo_test) == ["tests: 3 passed, 0 failed"]
    assert outcomes("grep -n BUILD build.log", "12:BUILD SUCCESSFUL in 41s\n") == []
    # the verdict is among the last lines; one far above them is an earlier build's
    earlier = "Build complete! (3.43s)\n" + "".join(f"line {i}\n" for i in range(40))
    assert outcomes("sh build-all.sh", earlier) == []
