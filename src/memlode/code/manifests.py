"""Package manifests -> a package and what it depends on.

pyproject.toml (PEP 621 and Poetry), package.json, Cargo.toml, go.mod and pom.xml. A package
becomes a graph node ``pkg:<ecosystem>:<name>``; the id is the same whoever mentions it, so a
project that depends on another indexed project is linked to it without further work.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

__all__ = ["Dependency", "Package", "normalize_name", "package_id", "parse_manifest"]

_PEP508_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(slots=True)
class Dependency:
    name: str
    spec: str = ""
    scope: str = "runtime"  # runtime, dev, optional, build, peer


@dataclass(slots=True)
class Package:
    ecosystem: str  # pypi, npm, cargo, go, maven
    name: str
    version: str = ""
    path: str = ""  # the manifest, relative to the project root
    dependencies: list[Dependency] = field(default_factory=list)
    provides: list[str] = field(default_factory=list)  # import roots other code uses

    @property
    def node_id(self) -> str:
        return package_id(self.ecosystem, self.name)


def normalize_name(ecosystem: str, name: str) -> str:
    if ecosystem == "pypi":
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem == "cargo":
        return name.replace("_", "-")
    return name


def package_id(ecosystem: str, name: str) -> str:
    return f"pkg:{ecosystem}:{normalize_name(ecosystem, name)}"


def parse_manifest(kind: str, path: str, data: bytes) -> Package | None:
    """Parse one manifest (``kind`` as in ``walk.MANIFEST_NAMES``); None if it names no package.

    A malformed manifest raises ``ValueError``.
    """
    text = data.decode("utf-8", "replace")
    parser = _PARSERS.get(kind)
    if parser is None:
        return None
    package = parser(text)
    if package is not None:
        package.path = path
        seen: set[str] = set()
        unique = []
        for dep in package.dependencies:
            key = normalize_name(package.ecosystem, dep.name)
            if key not in seen and key != normalize_name(package.ecosystem, package.name):
                seen.add(key)
                unique.append(dep)
        package.dependencies = unique
    return package


def _toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None


def _pep508(items: Any, scope: str) -> list[Dependency]:
    out = []
    for item in items if isinstance(items, list) else []:
        match = _PEP508_NAME.match(str(item))
        if match:
            out.append(Dependency(match.group(1), str(item)[match.end() :].strip(), scope))
    return out


def _pyproject(text: str) -> Package | None:
    doc = _toml(text)
    project = doc.get("project") or {}
    poetry = (doc.get("tool") or {}).get("poetry") or {}
    name = project.get("name") or poetry.get("name")
    if not isinstance(name, str) or not name:
        return None
    version = str(project.get("version") or poetry.get("version") or "")
    deps = _pep508(project.get("dependencies"), "runtime")
    for group in sorted((project.get("optional-dependencies") or {}).items()):
        deps += _pep508(group[1], "optional")
    for dep_name, spec in (poetry.get("dependencies") or {}).items():
        if dep_name.lower() != "python":
            deps.append(Dependency(dep_name, spec if isinstance(spec, str) else "", "runtime"))
    for dep_name, spec in (poetry.get("dev-dependencies") or {}).items():
        deps.append(Dependency(dep_name, spec if isinstance(spec, str) else "", "dev"))
    return Package("pypi", name, version, dependencies=deps)


def _package_json(text: str) -> Package | None:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        return None
    name = doc.get("name")
    if not isinstance(name, str) or not name:
        return None
    deps: list[Dependency] = []
    for key, scope in (
        ("dependencies", "runtime"),
        ("peerDependencies", "peer"),
        ("optionalDependencies", "optional"),
        ("devDependencies", "dev"),
    ):
        table = doc.get(key)
        if isinstance(table, dict):
            deps += [Dependency(n, str(v), scope) for n, v in sorted(table.items())]
    return Package("npm", name, str(doc.get("version") or ""), dependencies=deps, provides=[name])


def _cargo(text: str) -> Package | None:
    doc = _toml(text)
    package = doc.get("package") or {}
    name = package.get("name")
    if not isinstance(name, str) or not name:
        return None
    version = package.get("version")
    deps: list[Dependency] = []
    for key, scope in (
        ("dependencies", "runtime"),
        ("build-dependencies", "build"),
        ("dev-dependencies", "dev"),
    ):
        for dep_name, spec in sorted((doc.get(key) or {}).items()):
            real = spec.get("package", dep_name) if isinstance(spec, dict) else dep_name
            version_spec = (
                spec
                if isinstance(spec, str)
                else str((spec or {}).get("version", "") if isinstance(spec, dict) else "")
            )
            deps.append(Dependency(real, version_spec, scope))
    return Package(
        "cargo",
        name,
        version if isinstance(version, str) else "",
        dependencies=deps,
        provides=[name.replace("-", "_")],
    )


_GO_REQUIRE = re.compile(r"^\s*([^\s()]+)\s+(v[^\s]+)(\s*//\s*indirect)?", re.MULTILINE)


def _gomod(text: str) -> Package | None:
    module = re.search(r"^\s*module\s+(\S+)", text, re.MULTILINE)
    if not module:
        return None
    name = module.group(1).strip('"')
    deps: list[Dependency] = []
    in_block = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("require ("):
            in_block = True
            continue
        if in_block and stripped.startswith(")"):
            in_block = False
            continue
        if stripped.startswith("require ") or in_block:
            body = stripped[len("require ") :] if stripped.startswith("require ") else stripped
            match = _GO_REQUIRE.match(body)
            if match:
                scope = "indirect" if match.group(3) else "runtime"
                deps.append(Dependency(match.group(1), match.group(2), scope))
    return Package("go", name, dependencies=deps, provides=[name])


def _strip_ns(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _pom(text: str) -> Package | None:
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise ValueError(f"not valid XML: {exc}") from None

    def child(node: ElementTree.Element, name: str) -> ElementTree.Element | None:
        return next((c for c in node if _strip_ns(c.tag) == name), None)

    def value(node: ElementTree.Element | None, name: str) -> str:
        found = child(node, name) if node is not None else None
        return (found.text or "").strip() if found is not None else ""

    parent = child(root, "parent")
    group = value(root, "groupId") or value(parent, "groupId")
    artifact = value(root, "artifactId")
    if not artifact:
        return None
    deps: list[Dependency] = []
    holder = child(root, "dependencies")
    for dep in list(holder) if holder is not None else []:
        dep_group, dep_artifact = value(dep, "groupId"), value(dep, "artifactId")
        if dep_artifact:
            scope = value(dep, "scope") or "runtime"
            deps.append(Dependency(f"{dep_group}:{dep_artifact}", value(dep, "version"), scope))
    return Package(
        "maven",
        f"{group}:{artifact}",
        value(root, "version") or value(parent, "version"),
        dependencies=deps,
        provides=[group] if group else [],
    )


_PARSERS = {
    "pyproject": _pyproject,
    "npm": _package_json,
    "cargo": _cargo,
    "gomod": _gomod,
    "maven": _pom,
}
