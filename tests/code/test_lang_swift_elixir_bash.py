"""Swift, Elixir and Bash extraction, and how their references resolve across files."""

from __future__ import annotations

from pathlib import Path

from memlode.code.extract import extract_file
from memlode.code.resolve import Target, build_resolver

ELIXIR = '''\
defmodule MyApp.Accounts do
  @moduledoc """
  The accounts context.
  """
  alias MyApp.Repo
  alias MyApp.Accounts.{User, Token}
  import MyApp.Util
  use GenServer
  @behaviour MyApp.Store

  defmodule Helper do
    def norm(x), do: String.downcase(x)
  end

  @doc "Gets a user."
  @spec get_user(integer) :: User.t()
  def get_user(id) when is_integer(id) do
    Repo.get(User, id) |> check() |> Helper.norm()
  end

  defp check(nil), do: pad("x")
  defp check(u), do: u

  defmacro trace(a), do: a
  def zero, do: MyApp.Accounts.Helper.norm("y")
end

defprotocol MyApp.Shape do
  def area(shape)
end

defimpl MyApp.Shape, for: MyApp.Square do
  def area(s), do: s
end
'''

ELIXIR_TEST = """\
defmodule MyApp.AccountsTest do
  use ExUnit.Case
  describe "get_user/1" do
    test "finds a user" do
      assert MyApp.Accounts.get_user(1)
    end
  end
  test "zero" do
    MyApp.Accounts.zero()
  end
end
"""


def test_elixir(extract, symbols, refs):
    ex = extract("lib/my_app/accounts.ex", ELIXIR)
    assert symbols(ex) == [
        ("module", "MyApp.Accounts", "MyApp"),
        ("module", "MyApp.Accounts.Helper", "MyApp.Accounts"),
        ("function", "MyApp.Accounts.Helper.norm", "MyApp.Accounts.Helper"),
        ("function", "MyApp.Accounts.get_user", "MyApp.Accounts"),
        ("function", "MyApp.Accounts.check", "MyApp.Accounts"),
        ("function", "MyApp.Accounts.trace", "MyApp.Accounts"),
        ("function", "MyApp.Accounts.zero", "MyApp.Accounts"),
        ("interface", "MyApp.Shape", "MyApp"),
        ("method", "MyApp.Shape.area", "MyApp.Shape"),
        ("module", "MyApp.Shape.MyApp.Square", "MyApp.Shape.MyApp"),
        ("function", "MyApp.Shape.MyApp.Square.area", "MyApp.Shape.MyApp.Square"),
    ]
    by = {s.qualified: s for s in ex.symbols}
    assert by["MyApp.Accounts"].doc == "The accounts context."
    assert by["MyApp.Accounts.get_user"].doc == "Gets a user."
    assert by["MyApp.Accounts.get_user"].signature == "def get_user(id) when is_integer(id)"
    assert str(by["MyApp.Accounts.check"].visibility) == "private"
    assert by["MyApp.Accounts.trace"].properties == {"form": "defmacro"}
    assert refs(ex, "import") == {
        ("import", "MyApp", "Repo", None),
        ("import", "MyApp.Accounts", "User", None),
        ("import", "MyApp.Accounts", "Token", None),
        ("import", "MyApp.Util", "*", None),
        ("import", "GenServer", "", None),
    }
    assert refs(ex, "implement") == {
        ("implement", "MyApp", "Store", "MyApp.Accounts"),
        ("implement", "MyApp", "Shape", "MyApp.Shape.MyApp.Square"),
    }
    # the typespec names get_user and User.t without calling them; `@doc` is no call
    assert refs(ex, "call") == {
        ("call", "String", "downcase", "MyApp.Accounts.Helper.norm"),
        ("call", "", "is_integer", "MyApp.Accounts.get_user"),
        ("call", "Repo", "get", "MyApp.Accounts.get_user"),
        ("call", "", "check", "MyApp.Accounts.get_user"),
        ("call", "Helper", "norm", "MyApp.Accounts.get_user"),
        ("call", "", "pad", "MyApp.Accounts.check"),
        ("call", "MyApp.Accounts.Helper", "norm", "MyApp.Accounts.zero"),
    }


def test_exunit_tests(extract, symbols):
    ex = extract("test/my_app/accounts_test.exs", ELIXIR_TEST)
    assert symbols(ex) == [
        ("module", "MyApp.AccountsTest", "MyApp"),
        ("test", "MyApp.AccountsTest.test get_user/1 finds a user", "MyApp.AccountsTest"),
        ("test", "MyApp.AccountsTest.test zero", "MyApp.AccountsTest"),
    ]


def _resolved(files: dict[str, str]) -> set[tuple[str, str, str]]:
    """(kind, source, target node id) of every reference of the files that resolves."""
    extracts = [extract_file(path, text.encode()) for path, text in files.items()]
    resolver = build_resolver(extracts, lambda q: q, lambda p: f"file:{p}")
    out: set[tuple[str, str, str]] = set()
    for ex in extracts:
        for ref in ex.references:
            target = resolver.resolve(ex.path, ref)
            if isinstance(target, Target):
                out.add((str(ref.kind), ref.source or ex.path, target.node_id))
    return out


def test_elixir_resolves_modules_aliases_imports_and_local_calls():
    util = "defmodule MyApp.Util do\n  def pad(s), do: s\nend\n"
    repo = "defmodule MyApp.Repo do\n  def get(m, id), do: {m, id}\nend\n"
    store = "defmodule MyApp.Store do\n  @callback put(term) :: :ok\nend\n"
    found = _resolved(
        {
            "lib/accounts.ex": ELIXIR,
            "lib/util.ex": util,
            "lib/repo.ex": repo,
            "lib/store.ex": store,
            "test/accounts_test.exs": ELIXIR_TEST,
        }
    )
    assert {
        ("call", "MyApp.Accounts.get_user", "MyApp.Repo.get"),  # through `alias MyApp.Repo`
        ("call", "MyApp.Accounts.get_user", "MyApp.Accounts.check"),  # a local call
        ("call", "MyApp.Accounts.get_user", "MyApp.Accounts.Helper.norm"),  # a nested module
        ("call", "MyApp.Accounts.check", "MyApp.Util.pad"),  # through `import MyApp.Util`
        ("call", "MyApp.Accounts.zero", "MyApp.Accounts.Helper.norm"),  # written in full
        ("call", "MyApp.AccountsTest.test zero", "MyApp.Accounts.zero"),
        ("import", "lib/accounts.ex", "MyApp.Repo"),
        ("import", "lib/accounts.ex", "MyApp.Util"),
        ("implement", "MyApp.Accounts", "MyApp.Store"),
        ("implement", "MyApp.Shape.MyApp.Square", "MyApp.Shape"),
    } <= found
    # `String.downcase` is the standard library's, never a project function of that name
    assert not any(target.endswith(".downcase") for _, _, target in found)


SWIFT = """\
import Foundation
import ExpoModulesCore

/// Picks images.
/// From the library.
public class ImagePicker: NSObject, PickerDelegate {
  private var count = 0
  static let limit = 5

  init(count: Int) {
    self.count = count
    super.init()
  }

  /// Launches it.
  func launch(options: Options) async throws -> Result {
    let handler = MediaHandler(options: options)
    handler.handle()
    helper()
    return try await self.pick(options)
  }

  private func pick(_ o: Options) -> Result { Result() }
}

struct Options: Record {
  var quality: Double = 1.0
}

enum MediaType: String {
  case image
  case video
}

protocol PickerDelegate: AnyObject {
  func didPick(_ r: Options)
}

func helper() {}
"""

SWIFT_EXTENSION = """\
extension ImagePicker: UIAdaptivePresentationControllerDelegate {
  func dismissed() { launch(options: Options()) }
}
"""


def test_swift(extract, symbols, refs):
    ex = extract("ios/ImagePicker.swift", SWIFT)
    p = "ios."
    assert symbols(ex) == [
        ("class", p + "ImagePicker", None),
        ("constant", p + "ImagePicker.limit", p + "ImagePicker"),
        ("method", p + "ImagePicker.init", p + "ImagePicker"),
        ("method", p + "ImagePicker.launch", p + "ImagePicker"),
        ("method", p + "ImagePicker.pick", p + "ImagePicker"),
        ("class", p + "Options", None),
        ("type", p + "MediaType", None),
        ("constant", p + "MediaType.image", p + "MediaType"),
        ("constant", p + "MediaType.video", p + "MediaType"),
        ("interface", p + "PickerDelegate", None),
        ("method", p + "PickerDelegate.didPick", p + "PickerDelegate"),
        ("function", p + "helper", None),
    ]
    by = {s.qualified.removeprefix(p): s for s in ex.symbols}
    assert by["ImagePicker"].doc == "Picks images.\nFrom the library."
    assert by["ImagePicker.launch"].doc == "Launches it."
    assert by["ImagePicker.launch"].signature == (
        "func launch(options: Options) async throws -> Result"
    )
    assert str(by["ImagePicker"].visibility) == "public"
    assert str(by["ImagePicker.pick"].visibility) == "private"
    assert str(by["helper"].visibility) == "internal"
    assert refs(ex, "import") == {
        ("import", "Foundation", "", None),
        ("import", "ExpoModulesCore", "", None),
    }
    assert refs(ex, "inherit", "implement", "extend") == {
        ("inherit", "", "NSObject", p + "ImagePicker"),
        ("inherit", "", "PickerDelegate", p + "ImagePicker"),
        ("implement", "", "Record", p + "Options"),
        ("implement", "", "String", p + "MediaType"),
        ("extend", "", "AnyObject", p + "PickerDelegate"),
    }
    assert refs(ex, "call") == {
        ("call", "super", "init", p + "ImagePicker.init"),
        ("call", "", "MediaHandler", p + "ImagePicker.launch"),
        ("call", "handler", "handle", p + "ImagePicker.launch"),
        ("call", "", "helper", p + "ImagePicker.launch"),
        ("call", "self", "pick", p + "ImagePicker.launch"),
    }


def test_swift_extension_methods_belong_to_the_extended_type(extract, symbols, refs):
    ex = extract("ios/ImagePicker+Dismiss.swift", SWIFT_EXTENSION)
    assert symbols(ex) == [("method", "ios.ImagePicker.dismissed", "ios.ImagePicker")]
    assert refs(ex, "implement") == {
        ("implement", "", "UIAdaptivePresentationControllerDelegate", "ios.ImagePicker")
    }
    found = _resolved(
        {"ios/ImagePicker.swift": SWIFT, "ios/ImagePicker+Dismiss.swift": SWIFT_EXTENSION}
    )
    assert {
        ("call", "ios.ImagePicker.dismissed", "ios.ImagePicker.launch"),  # across files
        ("call", "ios.ImagePicker.dismissed", "ios.Options"),
        ("call", "ios.ImagePicker.launch", "ios.ImagePicker.pick"),
        ("call", "ios.ImagePicker.launch", "ios.helper"),
        ("inherit", "ios.ImagePicker", "ios.PickerDelegate"),
    } <= found


def test_xctest_methods_are_tests(extract, symbols):
    source = "import XCTest\nclass PickerTests: XCTestCase {\n  func testLaunch() {}\n}\n"
    ex = extract("Tests/PickerTests/PickerTests.swift", source)
    assert symbols(ex) == [
        ("class", "PickerTests.PickerTests", None),
        ("test", "PickerTests.PickerTests.testLaunch", "PickerTests.PickerTests"),
    ]


BASH = """\
#!/usr/bin/env bash
source "$ROOT/lib/common.bash"
. ./util.sh

# Prints a greeting.
greet() {
  local name=$1
  echo "hi $name"
  helper "$name" | tr a-z A-Z
}

function helper {
  printf '%s\\n' "$1"
}

function both() {
  greet x && shared_log y
  out=$(helper q)
}
greet world
"""


def test_bash(extract, symbols, refs):
    ex = extract("bin/run.sh", BASH)
    p = "bin/run.sh:"
    assert symbols(ex) == [
        ("function", p + "greet", None),
        ("function", p + "helper", None),
        ("function", p + "both", None),
    ]
    by = {s.name: s for s in ex.symbols}
    assert by["greet"].doc == "Prints a greeting."
    assert by["greet"].signature == "greet()"
    assert by["helper"].signature == "function helper"
    assert refs(ex, "import") == {
        ("import", "lib/common.bash", "*", None),
        ("import", "util.sh", "*", None),
    }
    assert {r for r in refs(ex, "call") if r[2] not in ("echo", "printf", "tr", "source", ".")} == {
        ("call", "", "helper", p + "greet"),
        ("call", "", "greet", p + "both"),
        ("call", "", "shared_log", p + "both"),
        ("call", "", "helper", p + "both"),
        ("call", "", "greet", None),
    }


def test_bash_resolves_sourced_files_by_their_tail():
    common = 'shared_log() {\n  echo "$@"\n}\n'
    found = _resolved(
        {"bin/run.sh": BASH, "lib/common.bash": common, "bin/util.sh": "u() { :; }\n"}
    )
    assert {
        ("call", "bin/run.sh:both", "lib/common.bash:shared_log"),
        ("call", "bin/run.sh:greet", "bin/run.sh:helper"),
        ("import", "bin/run.sh", "file:lib/common.bash"),
        ("import", "bin/run.sh", "file:bin/util.sh"),
    } <= found


def test_the_walker_takes_executable_shell_scripts_without_a_suffix(tmp_path: Path):
    from memlode.code.walk import walk_project

    (tmp_path / "bin").mkdir()
    scripts = {
        "bin/deploy": "#!/usr/bin/env bash\nrun() { :; }\n",
        "bin/setup": "#!/bin/sh\nx() { :; }\n",
        "bin/tool": "#!/usr/bin/env python3\nprint(1)\n",
        "bin/notes": "#!/bin/bash\n",  # not executable: not a script
        "LICENSE": "MIT\n",
    }
    for name, text in scripts.items():
        path = tmp_path / name
        path.write_text(text)
        path.chmod(0o644 if name in ("bin/notes", "LICENSE") else 0o755)
    found = {f.path: f.language for f in walk_project(tmp_path)}
    assert found == {"bin/deploy": "bash", "bin/setup": "bash"}
