"""The hooks' edit summaries: the definition scanner finds the names a line defines in the
common languages, as the definition regex it replaced did, and patches are counted right."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlode.hooks.diffsum import (
    LEADING_COMMENT_CHARS,
    leading_comment,
    summarize_patch,
    summarize_strings,
    symbols_in,
)

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

# The regex the scanner replaced (the hooks no longer import ``re``); the scanner must agree
# with it on every single line.
REFERENCE = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:def|class|function\*?|func|fn|struct|enum|trait|interface|impl|type|module|object)"
    r"\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?"
    r"(?:function|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)"
)


def reference(line: str) -> list[str]:
    match = REFERENCE.match(line)
    return [match.group(1) or match.group(2)] if match else []


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("def login(user):", ["login"]),
        ("    async def fetch(self) -> None:", ["fetch"]),
        ("class HTTPServer(Base):", ["HTTPServer"]),
        ("export default function* walk(tree) {", ["walk"]),
        ("export const handler = async (event) => {", ["handler"]),
        ("let add = x => x + 1", ["add"]),
        ("var old = function () {}", ["old"]),
        ("const LIMIT = 10", []),
        ("pub(crate) fn parse_args() -> Args {", ["parse_args"]),
        ("pub struct Config {", ["Config"]),
        ("impl Display for Config {", ["Display"]),
        ("func (r *Reader) Read(p []byte) (int, error) {", ["Read"]),
        ("func main() {", ["main"]),
        ("export interface Props {", ["Props"]),
        ("type Alias = string", ["Alias"]),
        ("static async function go() {}", []),  # static before async: not a shape we know
        ("classify(x)", []),
        ("# def commented", []),
        ("", []),
    ],
)
def test_definition_lines(line: str, names: list[str]) -> None:
    assert symbols_in(line) == names
    assert reference(line) == names


_WORDS = [
    *["def", "class", "function", "function*", "func", "fn", "struct", "impl", "type"],
    *["export", "default", "pub", "pub(crate)", "async", "static", "const", "let", "var"],
    *["(", ")", "(r *T)", "=", "=>", "*", "$x", "_y", "Name", "9z", "é", ":", "async=>"],
    "",  # a gap alone: indentation before the first word, as in a file read whole
]
# words, each followed by a separator: keyword sequences with every kind of gap (each token
# drawn whole from the word x separator pairs: one draw instead of a tuple of two, which made
# hypothesis's own bookkeeping most of this test's time)
_TOKENS = [word + gap for word in _WORDS for gap in ("", " ", "  ", "\t")]
_LINES = st.lists(st.sampled_from(_TOKENS), max_size=7).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_LINES)
def test_scanner_agrees_with_the_reference_regex(line: str) -> None:
    assert symbols_in(line) == reference(line), line


def test_symbols_are_unique_bounded_and_in_order() -> None:
    text = "\n".join(f"def f{i}():\n    pass" for i in range(20)) + "\ndef f0():"
    assert symbols_in(text) == [f"f{i}" for i in range(12)]
    assert symbols_in(text, limit=3) == ["f0", "f1", "f2"]


def test_patch_and_string_summaries() -> None:
    patch = [
        {
            "oldStart": 9,
            "oldLines": 3,
            "newStart": 9,
            "newLines": 4,
            "lines": [" def login():", "-    exp = 1", "+    exp = 60", "+    log()", " "],
        }
    ]
    summary = summarize_patch(patch)
    assert summary is not None
    assert (summary.added, summary.removed, summary.hunks) == (2, 1, 1)
    assert summary.symbols == ["login"]
    assert summary.headline().startswith("+2 -1 lines in 1 hunk")
    changed = summarize_strings("def a():\n    return 1\n", "def a():\n    return 2\n")
    assert (changed.added, changed.removed) == (1, 1)


def test_the_excerpt_shows_what_the_code_is_now_first() -> None:
    """Nine removed lines must not hide the two that replaced them (a real config edit)."""
    removed = [f"-    old_setting_{i}: true," for i in range(9)]
    patch = [
        {
            "oldStart": 1,
            "oldLines": 9,
            "newStart": 1,
            "newLines": 2,
            "lines": [*removed, "+config :opentelemetry,", "+  traces_exporter: :none"],
        }
    ]
    summary = summarize_patch(patch)
    assert summary is not None
    assert summary.excerpt[:2] == ["+config :opentelemetry,", "+  traces_exporter: :none"]
    assert summary.excerpt[2:] == removed[:10]
    strings = summarize_strings("a = 1\nb = 2\n", "a = 10\nb = 20\n")
    assert strings.excerpt == ["+a = 10", "+b = 20", "-a = 1", "-b = 2"]


@pytest.mark.parametrize(
    ("suffix", "line", "names"),
    [
        (".rb", "  def self.find_by(attrs)", ["find_by"]),
        (".rb", "def valid?", ["valid?"]),
        (".rb", "class User < ApplicationRecord", ["User"]),
        (".rb", "module Billing", ["Billing"]),
        (".rb", "user.save!", []),
        (".rb", "class << self", []),
        (".php", "    public static function &make($a) {", ["make"]),
        (".php", "abstract class Repository", ["Repository"]),
        (".php", "trait Loggable", ["Loggable"]),
        (".php", "interface Cache", ["Cache"]),
        (".php", "$handler = function () {};", []),
        (".cs", "public async Task<int> GetUser(int id)", ["GetUser"]),
        (".cs", "    private static void Main(string[] args) {", ["Main"]),
        (".cs", "public override string ToString() => Name;", ["ToString"]),
        (".cs", "Task<IList<User>> ListAsync(CancellationToken ct);", ["ListAsync"]),
        (".cs", "int? Find(int id)", ["Find"]),
        (".cs", "public UserService(IRepository repo)", ["UserService"]),
        (".cs", "internal sealed class Repository : IRepository", ["Repository"]),
        (".cs", "public record struct Point(int X, int Y);", ["Point"]),
        (".cs", "public interface IRepository", ["IRepository"]),
        (".cs", '[HttpGet("users")] public IActionResult List()', ["List"]),
        # calls and control statements are not declarations
        (".cs", "return Compute(x);", []),
        (".cs", "await SaveAsync(user);", []),
        (".cs", "var total = Compute(items);", []),
        (".cs", "string name = GetName();", []),
        (".cs", "Console.WriteLine(name);", []),
        (".cs", "new Widget(size);", []),
        (".cs", "throw new ArgumentException(nameof(id));", []),
        (".cs", "if (count > 0) {", []),
        (".cs", "foreach (var user in users)", []),
        (".cs", "using (var stream = Open())", []),
        (".cs", "yield return Map(item);", []),
        (".kt", "suspend fun load(id: Int): User", ["load"]),
        (".kt", "fun <T> List<T>.second(): T = this[1]", ["second"]),
        (".kt", "data class User(val id: Int)", ["User"]),
        (".kt", "object Registry {", ["Registry"]),
        (".kt", "sealed interface Shape", ["Shape"]),
        (".kt", "companion object {", []),
        (".kt", "val parsed = parse(text)", []),
        (".swift", "@objc public func launch(options: Options) async throws {", ["launch"]),
        (".swift", "  convenience init?(count: Int) {", ["init"]),
        (".swift", "class func make() -> Self {", ["make"]),
        (".swift", "final class Picker: NSObject {", ["Picker"]),
        (".swift", "@available(iOS 14, *) struct Options {", ["Options"]),
        (".swift", "extension Picker: UIAdaptivePresentationControllerDelegate {", ["Picker"]),
        (".swift", "protocol PickerDelegate: AnyObject {", ["PickerDelegate"]),
        (".swift", "enum MediaType: String {", ["MediaType"]),
        (".swift", "picker.launch(options: options)", []),
        (".ex", "defmodule MyApp.Accounts.User do", ["MyApp.Accounts.User"]),
        (".ex", "  def get_user(id) when is_integer(id) do", ["get_user"]),
        (".ex", "  defp check(nil), do: :error", ["check"]),
        (".ex", "  defmacro trace(expr) do", ["trace"]),
        (".exs", "  def valid?(user), do: true", ["valid?"]),
        (".ex", "    get_user(id) |> check()", []),
        (".sh", "greet() {", ["greet"]),
        (".sh", "function helper {", ["helper"]),
        (".bash", "function bats::on_failure() {", ["bats::on_failure"]),
        (".sh", "greet world", []),
        (".sh", "files=()", []),
    ],
)
def test_definition_lines_by_language(suffix: str, line: str, names: list[str]) -> None:
    assert symbols_in(line, suffix=suffix) == names


def test_a_language_scanner_replaces_the_common_one() -> None:
    # Ruby's `def self.name` defines `name` (the common scanner would say `self`); a C# method
    # the common scanner cannot see
    assert symbols_in("def self.build", suffix=".rb") == ["build"]
    assert symbols_in("def self.build") == ["self"]
    assert symbols_in("public void Run()", suffix=".cs") == ["Run"]
    assert symbols_in("public void Run()") == []


def test_the_comment_a_new_file_opens_with() -> None:
    """What a file created whole says it is for: its opening comment block or docstring (a
    shebang, an encoding line and blank lines before it passed over), markers and rules cut."""
    rust = (
        "//! System Tray Module\n//!\n//! Implements a tray icon via the ksni crate.\nuse ksni;\n"
    )
    assert leading_comment(rust) == "System Tray Module Implements a tray icon via the ksni crate."
    shell = "#!/bin/bash\n#\n# Install the AppImage\n# =====================\nset -e\n# later\n"
    assert leading_comment(shell) == "Install the AppImage"
    python = '#!/usr/bin/env python3\n"""Fetch the wallpaper.\n\nRuns daily."""\nimport os\n'
    assert leading_comment(python) == "Fetch the wallpaper. Runs daily."
    elixir = 'defmodule App.Otel do\n  @moduledoc """\n  OpenTelemetry set-up.\n  """\n  use X\n'
    assert leading_comment(elixir) == "OpenTelemetry set-up."
    jsdoc = "/**\n * @vitest-environment happy-dom\n */\nimport { x } from 'y'\n"
    assert leading_comment(jsdoc) == "@vitest-environment happy-dom"
    assert leading_comment("import os\n# not at the top\n") == ""
    assert leading_comment("defmodule A do\n  @moduledoc false\n  use X\n") == ""
    long = "\n".join(f"# line {i} of a long header comment that goes on" for i in range(40))
    assert len(leading_comment(long)) == LEADING_COMMENT_CHARS
