"""Project identity: which project a folder belongs to, and the namespace key that names it.

A namespace is a project's identity, not its folder's name (DESIGN.md, "Namespaces"):

- The project root of a folder is its git top level (a ``.git`` folder or file), else the
  nearest folder holding a project marker; outside any project there is no namespace ("").
- A git project is identified by the normalised URL of its ``origin`` remote, read from the
  repository's config file (for worktrees and submodules, where ``.git`` is a file naming the
  real git folder, through ``gitdir:`` and ``commondir``). Two clones of one repository share
  it, on one machine or on a team's. Without ``origin`` it is the resolved path of the main
  worktree, so the worktrees of one repository share it too. The root commit would survive a
  move, but reading it means walking the history through packed objects, which is not cheap
  enough for a hook, and the reflog's first line (which names it cheaply) expires.
- A project found by a marker is identified by its resolved path.
- The key is readable *and* unique: the repository's (or folder's) name, a dash and the first
  8 hex digits of the SHA-256 of the identity, e.g. ``app-1a2b3c4d``. Two repositories both
  called ``app`` get two keys; ``readable_name`` gives ``app`` back for display.

L0: stdlib only and import-light, because every hook calls ``detect_namespace`` (no pathlib,
re or hashlib at import time; no subprocess; at most two small file reads per call).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "PROJECT_MARKERS",
    "ProjectIdentity",
    "detect_namespace",
    "find_project_root",
    "identity_at",
    "is_identity_key",
    "make_key",
    "namespace_for_path",
    "normalise_remote",
    "origin_url",
    "project_identity",
    "project_root",
    "readable_name",
]

PROJECT_MARKERS = (
    "pyproject.toml",
    "setup.py",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "Gemfile",
    "composer.json",
    "CMakeLists.txt",
    "Makefile",
)

# 8 hex digits (32 bits) of the identity's SHA-256 after the name: two projects that share a
# name collide with odds of about 1 in 4 billion, and the key stays short enough to type.
KEY_HASH_CHARS = 8
# Longer names are cut (the hash keeps the key unique).
MAX_NAME_CHARS = 40
# Hosts whose repository paths are case-insensitive (github.com/Foo/App is github.com/foo/app);
# elsewhere the path's case is kept, as git servers in general treat it as significant.
CASE_INSENSITIVE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org"})
# Git's config and ``.git`` files are small; a bigger file is not read past this.
_MAX_READ = 1 << 20
_HEX = frozenset("0123456789abcdef")


class ProjectIdentity:
    """Where a project's namespace comes from: its root, readable name, identity and key."""

    __slots__ = ("identity", "key", "kind", "name", "root")

    def __init__(self, root: str, name: str, identity: str, kind: str) -> None:
        self.root = root  # the project root (git top level or marker folder), resolved
        self.name = name  # readable: the repository's or folder's name
        self.identity = identity  # normalised remote URL, or a resolved path
        self.kind = kind  # "remote" or "path"
        self.key = make_key(name, identity)

    def __repr__(self) -> str:
        return f"ProjectIdentity({self.key!r}, {self.kind}: {self.identity!r})"


# ---- the project root -------------------------------------------------------------------------


def _chain(start: str) -> list[str]:
    here = os.path.realpath(os.path.expanduser(start))
    chain = [here]
    while True:
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return chain
        chain.append(parent)


def project_root(start: str) -> str | None:
    """The git top level above ``start``, else the nearest folder with a project marker
    (resolved); None outside any project. The file system root is never a project."""
    try:
        chain = _chain(str(start))
    except (OSError, ValueError):
        return None
    root = next((f for f in chain if os.path.exists(os.path.join(f, ".git"))), None)
    if root is None:
        root = next(
            (f for f in chain if any(os.path.isfile(os.path.join(f, m)) for m in PROJECT_MARKERS)),
            None,
        )
    if root is None or os.path.dirname(root) == root:
        return None
    return root


def find_project_root(start: Path | str) -> Path | None:
    """``project_root`` as a ``Path``, for callers that work with paths."""
    from pathlib import Path

    root = project_root(str(start))
    return Path(root) if root is not None else None


# ---- identity ---------------------------------------------------------------------------------


def _resolve(path: str) -> str:
    """The absolute path with symlinks resolved (as far as they exist)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.normpath(path)


def _read(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(_MAX_READ).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def _git_dirs(root: str) -> tuple[str, str] | None:
    """(git folder, common git folder) of the repository whose top level is ``root``.

    ``.git`` is a folder, or (worktrees, submodules) a file ``gitdir: PATH``; a worktree's git
    folder holds a ``commondir`` file naming the main repository's, where its config lives.
    """
    dotgit = os.path.join(root, ".git")
    if os.path.isdir(dotgit):
        gitdir = dotgit
    else:
        first = _read(dotgit).split("\n", 1)[0].strip()
        if not first.startswith("gitdir:"):
            return None
        gitdir = os.path.normpath(os.path.join(root, first[len("gitdir:") :].strip()))
    common = _read(os.path.join(gitdir, "commondir")).strip()
    return gitdir, os.path.normpath(os.path.join(gitdir, common)) if common else gitdir


def _unquote(value: str) -> str:
    """A git config value: quotes removed, escapes applied, a trailing comment dropped."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def _section(header: str) -> tuple[str, str]:
    """``remote "origin"`` -> ("remote", "origin"); the old ``remote.origin`` form too."""
    name, _, sub = header.strip().partition(" ")
    if sub:
        return name.lower(), _unquote(sub.strip())
    name, _, sub = name.partition(".")
    return name.lower(), sub.lower()


def origin_url(config_text: str) -> str:
    """The first ``url`` of ``[remote "origin"]`` in a git config file's text, or ""."""
    section = ("", "")
    for raw in config_text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            end = line.find("]")
            if end < 0:
                section = ("", "")
                continue
            section = _section(line[1:end])
            line = line[end + 1 :].strip()  # git allows "[section] key = value" on one line
            if not line:
                continue
        if section != ("remote", "origin"):
            continue
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "url":
            url = _unquote(value)
            if url:
                return url
    return ""


def _strip_git_suffix(path: str) -> str:
    path = path.rstrip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")].rstrip("/")
    return path


def _local_remote(path: str, base: str) -> str:
    full = _resolve(os.path.join(base, os.path.expanduser(path)))
    return _strip_git_suffix(full) or full


def normalise_remote(url: str, base: str = "/") -> str:
    """A remote URL in one form, so that every way of naming a repository names it alike:
    ``https://user:token@GitHub.com:443/x/App.git/``, ``ssh://git@github.com/x/app``,
    ``git@github.com:x/app.git`` and ``git://github.com/x/app`` all give ``github.com/x/app``.

    Scheme, credentials, port and a trailing ``.git`` go; the host is lower case (the path
    too on ``CASE_INSENSITIVE_HOSTS``). A local path or ``file://`` URL becomes a resolved
    absolute path (relative to ``base``, the repository's top level)."""
    text = url.strip()
    if not text:
        return ""
    scheme, sep, rest = text.partition("://")
    if sep:
        if scheme.lower() == "file":
            return _local_remote(rest, base)
        slash = rest.find("/")
        authority, path = (rest[:slash], rest[slash:]) if slash >= 0 else (rest, "")
        host = authority.rpartition("@")[2]
        host = host[: host.find("]") + 1] if host.startswith("[") else host.partition(":")[0]
    else:
        colon, slash = text.find(":"), text.find("/")
        is_drive = colon == 1 and text[0].isalpha()  # C:/repo is a path, not host "C"
        if colon <= 0 or is_drive or (0 <= slash < colon):
            return _local_remote(text, base)
        host, path = text[:colon].rpartition("@")[2], text[colon + 1 :]  # [user@]host:path
    host = host.lower().rstrip(".")
    parts = [p for p in path.split("/") if p]
    path = _strip_git_suffix("/".join(parts))
    if host in CASE_INSENSITIVE_HOSTS:
        path = path.lower()
    return f"{host}/{path}" if path else host


def _git_identity(root: str) -> ProjectIdentity | None:
    dirs = _git_dirs(root)
    if dirs is None:
        return None
    common = dirs[1]
    url = origin_url(_read(os.path.join(common, "config")))
    if url:
        identity = normalise_remote(url, root)
        if identity:
            name = identity.rstrip("/").rsplit("/", 1)[-1] or os.path.basename(root)
            return ProjectIdentity(root, name, identity, "remote")
    # No origin: the main worktree's path (a worktree's common folder is main/.git), else the
    # common folder itself (a bare repository, a submodule's folder under .git/modules).
    if os.path.basename(common) == ".git":
        main = os.path.dirname(common)
        name = os.path.basename(main)
    else:
        main, name = common, os.path.basename(root)
    return ProjectIdentity(root, name or os.path.basename(root), _resolve(main), "path")


def identity_at(root: str) -> ProjectIdentity:
    """The identity of the project whose root is ``root`` (not looking further up). A folder
    that does not exist (any more) is identified by its path."""
    resolved = _resolve(root)
    found = _git_identity(resolved) if os.path.exists(os.path.join(resolved, ".git")) else None
    return found or ProjectIdentity(resolved, os.path.basename(resolved), resolved, "path")


def project_identity(start: str | Path) -> ProjectIdentity | None:
    """The identity of the project ``start`` belongs to; None outside any project."""
    root = project_root(str(start))
    return identity_at(root) if root is not None else None


def detect_namespace(start: str | Path) -> str:
    """The namespace key of the project ``start`` belongs to; "" outside any project."""
    found = project_identity(start)
    return found.key if found is not None else ""


def namespace_for_path(path: str) -> str:
    """The key of the project at or above ``path``; a folder outside any project, or one that
    no longer exists (a transcript from another machine), is keyed by its own path."""
    if os.path.isdir(path):
        found = project_identity(path)
        if found is not None:
            return found.key
    full = os.path.normpath(os.path.join("/", os.path.expanduser(path)))
    return identity_at(full).key if os.path.basename(full) else ""


# ---- keys -------------------------------------------------------------------------------------


def _slug(name: str) -> str:
    """Lower case letters, digits, '.', '_' and '-' (anything else becomes '-')."""
    out: list[str] = []
    for ch in name.lower():
        ok = ch.isascii() and (ch.isalnum() or ch in "._")
        if ok:
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    slug = "".join(out)[:MAX_NAME_CHARS].strip("-.")
    return slug or "project"


def _sha256_hex(text: str) -> str:
    # The C module behind hashlib.sha256 (``_sha256``; ``_sha2`` from Python 3.12): importing
    # hashlib loads OpenSSL, which costs a hook more than its whole namespace detection.
    data = text.encode("utf-8", "surrogateescape")
    for name in ("_sha256", "_sha2"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        return str(module.sha256(data).hexdigest())
    import hashlib  # pragma: no cover - an interpreter without either

    return hashlib.sha256(data).hexdigest()  # pragma: no cover


def make_key(name: str, identity: str) -> str:
    """``<name>-<first 8 hex digits of SHA-256(identity)>``."""
    return f"{_slug(name)}-{_sha256_hex(identity)[:KEY_HASH_CHARS]}"


def is_identity_key(namespace: str) -> bool:
    """True for keys shaped like ``make_key``'s (``app-1a2b3c4d``)."""
    cut = len(namespace) - KEY_HASH_CHARS - 1
    return cut > 0 and namespace[cut] == "-" and set(namespace[cut + 1 :]) <= _HEX


def readable_name(namespace: str) -> str:
    """``app-1a2b3c4d`` -> ``app``; any other namespace is its own readable name."""
    if is_identity_key(namespace):
        return namespace[: len(namespace) - KEY_HASH_CHARS - 1]
    return namespace
