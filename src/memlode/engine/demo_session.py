"""The demo's synthetic coding session: a small project and the hook payloads of one session
on it, shaped as Claude Code sends them (../shared/INTEGRATION.md), with the transcript it writes.

The story: login fails for passwords with accents; the assistant reads the code, a test fails
with a UnicodeEncodeError, it fixes the encoding, the tests pass, and the user states a
decision. ``memlode.engine.demo`` feeds these payloads to the real hooks, one process each.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["NEXT_SESSION_ID", "SESSION_ID", "Step", "session_steps", "write_project"]

SESSION_ID = "demo-session-1"
NEXT_SESSION_ID = "demo-session-2"

AUTH_BEFORE = '''"""Logins: password hashing and checking."""

import hashlib


def hash_password(password: str, salt: str) -> str:
    """The stored hash of a password."""
    return hashlib.sha256((salt + password).encode("ascii")).hexdigest()


def login(users: dict[str, tuple[str, str]], name: str, password: str) -> bool:
    """True when the password matches the user's stored hash."""
    salt, stored = users[name]
    return hash_password(password, salt) == stored
'''

AUTH_AFTER = AUTH_BEFORE.replace(
    """import hashlib
""",
    """import hashlib
import unicodedata
""",
).replace(
    """    return hashlib.sha256((salt + password).encode("ascii")).hexdigest()""",
    """    normalised = unicodedata.normalize("NFKC", password)
    return hashlib.sha256((salt + normalised).encode("utf-8")).hexdigest()""",
)

TESTS = """from shop.auth import hash_password, login


def test_login_ascii():
    users = {"ann": ("s1", hash_password("secret", "s1"))}
    assert login(users, "ann", "secret")


def test_login_unicode():
    users = {"zoe": ("s2", hash_password("mot de passé", "s2"))}
    assert login(users, "zoe", "mot de passé")
"""

PROMPTS = (
    "Login fails with a 500 for users whose password has accents, like é or ü. Find out why.",
    "Good. From now on we normalise passwords with NFKC before hashing, and hash UTF-8 bytes, "
    "everywhere. That is the decision for every service.",
)
ANSWER = (
    "hash_password encoded the salted password as ASCII, so any accented character raised "
    "UnicodeEncodeError and login answered 500. It now normalises the password with NFKC and "
    "hashes its UTF-8 bytes; both tests pass."
)


@dataclass(frozen=True, slots=True)
class Step:
    event: str  # the hook's command name (`python -m memlode.hooks EVENT`)
    what: str  # one line for the progress output
    payload: dict[str, Any]


def write_project(root: Path) -> None:
    """The project before the session: a package, its tests, a marker."""
    (root / "shop").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "0.1.0"\n')
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "auth.py").write_text(AUTH_BEFORE)
    (root / "tests" / "test_auth.py").write_text(TESTS)


def _base(root: Path, transcript: Path, event: str, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "hook_event_name": event,
    }


def _tool(root: Path, transcript: Path, name: str, tool_input: dict[str, Any],
          response: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    return {
        **_base(root, transcript, "PostToolUse", SESSION_ID),
        "tool_name": name,
        "tool_input": tool_input,
        "tool_response": response,
    }


def session_steps(root: Path, transcript: Path) -> Iterator[Step]:
    """The session, step by step; the Edit step changes ``shop/auth.py`` on disk first (the
    caller applies ``AUTH_AFTER`` when it reaches it)."""
    auth = str(root / "shop" / "auth.py")
    yield Step(
        "session-start",
        "SessionStart",
        {**_base(root, transcript, "SessionStart", SESSION_ID), "source": "startup"},
    )
    yield Step(
        "prompt",
        "UserPromptSubmit: the bug report",
        {**_base(root, transcript, "UserPromptSubmit", SESSION_ID), "prompt": PROMPTS[0]},
    )
    yield Step(
        "post-tool",
        "Read shop/auth.py",
        _tool(root, transcript, "Read", {"file_path": auth}, {
            "type": "text",
            "file": {"filePath": auth, "content": AUTH_BEFORE, "numLines": 14, "startLine": 1,
                     "totalLines": 14},
        }),
    )  # fmt: skip
    yield Step(
        "post-tool-failure",
        "Bash pytest: fails with UnicodeEncodeError",
        {
            **_base(root, transcript, "PostToolUseFailure", SESSION_ID),
            "tool_name": "Bash",
            "tool_input": {"command": "pytest tests/test_auth.py", "description": "Run tests"},
            "error": "Exit code 1\nFAILED tests/test_auth.py::test_login_unicode - "
            "UnicodeEncodeError: 'ascii' codec can't encode character '\\xe9' in position 11",
        },
    )
    yield Step(
        "post-tool",
        "Edit shop/auth.py: NFKC, then UTF-8",
        _tool(
            root,
            transcript,
            "Edit",
            {"file_path": auth, "old_string": AUTH_BEFORE, "new_string": AUTH_AFTER},
            {"filePath": auth, "oldString": AUTH_BEFORE, "newString": AUTH_AFTER,
             "originalFile": AUTH_BEFORE, "structuredPatch": [], "userModified": False,
             "replaceAll": False},
        ),
    )  # fmt: skip
    yield Step(
        "post-tool",
        "Bash pytest: 2 passed",
        _tool(root, transcript, "Bash", {"command": "pytest tests/test_auth.py"}, {
            "stdout": "tests/test_auth.py ..\n2 passed in 0.02s", "stderr": "",
            "interrupted": False, "isImage": False,
        }),
    )  # fmt: skip
    yield Step(
        "prompt",
        "UserPromptSubmit: the decision",
        {**_base(root, transcript, "UserPromptSubmit", SESSION_ID), "prompt": PROMPTS[1]},
    )
    yield Step(
        "stop",
        "Stop",
        {**_base(root, transcript, "Stop", SESSION_ID), "stop_hook_active": False,
         "last_assistant_message": ANSWER},
    )  # fmt: skip
    yield Step(
        "session-end",
        "SessionEnd",
        {**_base(root, transcript, "SessionEnd", SESSION_ID), "reason": "prompt_input_exit"},
    )


def write_transcript(path: Path, root: Path) -> None:
    """The session's transcript: the two prompts and the assistant's answers, one line each."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    stamp = "2026-11-24T09:{:02d}:00.000Z"
    answers = (ANSWER, "Noted: NFKC, then UTF-8, for every password hash.")
    for i, (prompt, answer) in enumerate(zip(PROMPTS, answers, strict=True)):
        for role, text in (("user", prompt), ("assistant", answer)):
            uuid = f"demo-{i}-{role}"
            line: dict[str, Any] = {
                "type": role,
                "uuid": uuid,
                "parentUuid": parent,
                "timestamp": stamp.format(i * 10 + (5 if role == "assistant" else 0)),
                "sessionId": SESSION_ID,
                "isSidechain": False,
                "userType": "external",
                "cwd": str(root),
            }
            if role == "user":
                line["message"] = {"role": "user", "content": text}
            else:
                line["message"] = {
                    "id": f"msg-{i}",
                    "role": "assistant",
                    "model": "claude-demo",
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                }
            lines.append(line)
            parent = uuid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
