"""What a manifest or settings file says, kept with its read or its writing.

A Read stores the path and the names a file defines, never its body (``hooks.extract``). For a
project's manifest or a settings file that keeps nothing: ``package.json``, ``Cargo.toml`` and
``go.mod`` define no symbols, and their path answers none of what a next-day question asks of
them ("which React version is the frontend on?", "what licence does Cargo.toml declare?", "which
release-profile settings do we have?"), nor does a unit file the Write tool creates ("does
systemd restart the tray when it crashes?"). Such a read, or a Write of the whole file, keeps
its lines, compacted: no blank lines, comments, indentation, or lines of brackets alone; each
line kept as it was written, so the redaction that runs on every stored text reads a
``password = "…"`` line as it would in the file. A lock file (``Cargo.lock``,
``package-lock.json``, ``go.sum``) is a list of hashes and is left out; so is a large settings
file of another name (a JSON schema, a fixture) and an ``.env`` file.
"""

from __future__ import annotations

from memlode.project import PROJECT_MARKERS

__all__ = ["digest", "is_settings_file"]

# The digest's length: a 50-line Cargo.toml, or a 40-line package.json with long scripts, fits.
DIGEST_CHARS = 2400
# A settings file of a name not below, read past this many characters, is data, not settings.
MAX_SETTINGS_CHARS = 6000
# A longer line (an inlined hash, a minified blob) is cut to this many characters.
MAX_LINE_CHARS = 200

# The files that mark a project's root (``memlode.project.PROJECT_MARKERS``: package.json,
# Cargo.toml, go.mod, pyproject.toml, pom.xml, a Makefile, …) and these besides, whatever their
# size.
MANIFEST_NAMES = frozenset(
    {
        *(name.lower() for name in PROJECT_MARKERS),
        *["setup.cfg", "requirements.txt", "pipfile", "mix.exs", "build.gradle.kts"],
        *["settings.gradle.kts", "pubspec.yaml", "deno.json", "tsconfig.json", "dockerfile"],
        *["docker-compose.yml", "compose.yaml"],
    }
)
SETTINGS_SUFFIXES = (
    *[".toml", ".json", ".jsonc", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".mod"],
    *[".service", ".timer", ".socket", ".path", ".desktop"],  # systemd units, desktop entries
)
_LOCK_NAMES = frozenset({"package-lock.json", "go.sum", "npm-shrinkwrap.json", "composer.lock"})
_COMMENT_OPENERS = ("#", "//", ";", "<!--", "/*", "*")
_BRACKETS = frozenset("{}[](),")


def is_settings_file(path: str, read_chars: int) -> bool:
    """Whether a read of ``read_chars`` characters of ``path`` keeps a digest."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name in _LOCK_NAMES or name.endswith(".lock") or name.startswith(".env"):
        return False
    if name in MANIFEST_NAMES:
        return True
    return name.endswith(SETTINGS_SUFFIXES) and 0 < read_chars <= MAX_SETTINGS_CHARS


def digest(text: str, limit: int = DIGEST_CHARS) -> str:
    """The lines of ``text`` that say something, stripped, one per line, at most ``limit``
    characters (cut at a line's end); a ``"key": {`` line loses its opening bracket."""
    if "\x00" in text:  # a binary file under a settings file's name says nothing readable
        return ""
    kept: list[str] = []
    size = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(_COMMENT_OPENERS):
            continue
        line = line.rstrip(",").rstrip("{[").rstrip()
        if not line or set(line) <= _BRACKETS:
            continue
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + "…"
        if size + len(line) > limit:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)
