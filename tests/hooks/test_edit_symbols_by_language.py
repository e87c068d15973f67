"""The symbols an edit touched, for the languages beyond the common scanner (Ruby, PHP, C#,
Kotlin, Swift, Elixir, Bash): a real PostToolUse hook process fed an Edit payload as Claude
Code sends it, then the observation the hook stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memlode.engine import Engine

# (file, old text, new text, the symbols the edit touched: changed lines, then context)
EDITS = {
    "lib/my_app/accounts.ex": (
        "defmodule MyApp.Accounts do\n  def get_user(id) do\n    Repo.get(User, id)\n  end\n",
        "defmodule MyApp.Accounts do\n  def get_user(id) do\n    Repo.get!(User, id)\n  end\n"
        "\n  defp check(nil), do: :error\nend\n",
        ["check", "MyApp.Accounts", "get_user"],
    ),
    "app/models/user.rb": (
        "class User < ApplicationRecord\n  def self.find_by_email(e)\n    where(e)\n  end\n",
        "class User < ApplicationRecord\n  def self.find_by_email(e)\n    find_by(email: e)\n"
        "  end\n\n  def admin?\n    role == 'admin'\n  end\n",
        ["admin?", "User", "find_by_email"],
    ),
    "src/Repository.php": (
        "final class Repository\n{\n    public function find($id)\n    {\n        return 1;\n",
        "final class Repository\n{\n    public static function &find($id)\n    {\n"
        "        return 2;\n",
        ["find", "Repository"],
    ),
    "Services/UserService.cs": (
        "public class UserService\n{\n    public async Task<User> GetUser(int id)\n    {\n"
        "        return await _repo.Find(id);\n",
        "public class UserService\n{\n    public async Task<User> GetUser(int id)\n    {\n"
        "        var user = await _repo.Find(id);\n        return Validate(user);\n",
        ["UserService", "GetUser"],
    ),
    "src/main/kotlin/Users.kt": (
        "data class User(val id: Int)\n\nfun String.slug(): String = lowercase()\n",
        "data class User(val id: Int, val name: String)\n\n"
        "fun String.slug(): String = lowercase()\n\n"
        "suspend fun load(id: Int): User = api.get(id)\n",
        ["User", "slug", "load"],
    ),
    "ios/ImagePicker.swift": (
        "extension ImagePicker: PickerDelegate {\n  func didPick(_ r: Result) {\n    handle(r)\n",
        "extension ImagePicker: PickerDelegate {\n  func didPick(_ r: Result) {\n    handle(r)\n"
        "    dismiss()\n  }\n\n  convenience init?(options: Options) {\n",
        ["init", "ImagePicker", "didPick"],
    ),
    "scripts/deploy.sh": (
        "deploy() {\n  build\n  upload\n}\n",
        "deploy() {\n  build\n  upload --force\n}\n\nfunction rollback {\n  restore\n}\n",
        ["rollback", "deploy"],
    ),
}


def _patch(old: str, new: str) -> list[dict[str, Any]]:
    """One hunk over the whole snippet, as Claude Code's structuredPatch writes it."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    lines = [" " + line for line in old_lines[:head]]
    lines += ["-" + line for line in old_lines[head:]]
    lines += ["+" + line for line in new_lines[head:]]
    return [
        {
            "oldStart": 1,
            "oldLines": len(old_lines),
            "newStart": 1,
            "newLines": len(new_lines),
            "lines": lines,
        }
    ]


def _edit_payload(project: Path, name: str, old: str, new: str) -> dict[str, Any]:
    path = str(project / name)
    return {
        "session_id": "lang-edits",
        "transcript_path": str(project / "lang.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_use_id": "toolu_lang",
        "tool_input": {"file_path": path, "old_string": old, "new_string": new},
        "tool_response": {
            "filePath": path,
            "oldString": old,
            "newString": new,
            "originalFile": old,
            "structuredPatch": _patch(old, new),
            "userModified": False,
            "replaceAll": False,
        },
    }


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edit_reports_the_symbols_it_touched(
    name: str, hook: Any, project: Path, proj_engine: Engine
) -> None:
    old, new, expected = EDITS[name]
    assert hook("post-tool", _edit_payload(project, name, old, new)).returncode == 0
    edits = [m for m in proj_engine.list_memories(sources=["hook"], limit=None) if "edit" in m.tags]
    assert len(edits) == 1
    assert edits[0].metadata["diff"]["symbols"] == expected
    assert "symbols: " + ", ".join(expected) in edits[0].content


def test_a_csharp_edit_of_calls_names_no_symbol(hook: Any, project: Path, proj_engine: Engine):
    """Calls, object creation and control statements are not read as method declarations."""
    old = "        return Compute(x);\n"
    new = (
        "        if (x > 0) {\n            var y = Compute(x);\n            await SaveAsync(y);\n"
        "            throw new InvalidOperationException(nameof(x));\n        }\n"
    )
    payload = _edit_payload(project, "Services/Calc.cs", old, new)
    assert hook("post-tool", payload).returncode == 0
    edits = [m for m in proj_engine.list_memories(sources=["hook"], limit=None) if "edit" in m.tags]
    assert edits[0].metadata["diff"]["symbols"] == []
