"""The `myteam.node` handler module: class `NodePackageHandler` for the
`myteam/node-package` type, written in Python and built with componentize-py.

A Node.js package is a directory holding a `package.json` with a `name`.
This module owns what that means for the registry: which arguments are
valid (`validate`), which children a package has (the workspace packages
its `workspaces` patterns match, each a `myteam/node-package` itself), when
it changed (a hash over the manifests `validate` and `discover` read) and
how it is described (`inspect`).

Two ways out of a call, deliberately both shown:
* an answer the handler decides is an error: `raise Err(HandlerError_…)`,
  e.g. `validate` refusing a directory without a usable package.json (the
  host prints `refused validate: invalid arguments: …`);
* any other exception escapes and traps the call: after registration a
  package.json that no longer parses raises `ValueError`, and the host's
  error quotes its last traceback line (`ValueError: …/package.json is not
  valid JSON: …`).

It sees the host filesystem only through the sandbox: the resource's
location, preopened read-only at its own absolute path.
"""

# componentize-py runs this module's top-level code once, at build time,
# and snapshots the interpreter: the component holds exactly the modules
# imported by then. Import everything here, at the top. An `import json`
# inside a function fails at call time with `ModuleNotFoundError: No
# module named 'json'`: the sandbox gives the handler no filesystem to load
# a module from.
import fnmatch
import hashlib
import json
import posixpath
from typing import Dict, List, Optional

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host
from wit_world.imports.types import (
    ClassInfo,
    Discovered,
    HandlerError_InvalidArgs,
    HandlerError_NotFound,
    HandlerError_Unsupported,
    Inspection,
    PluginInfo,
    Property,
    ResourceView,
)

MODULE = "myteam.node"
VERSION = "0.1.0"
TYPE = "myteam/node-package"
MANIFEST = "package.json"
S_IFMT, S_IFDIR, S_IFREG = 0o170000, 0o040000, 0o100000


class NodePackageHandler:
    DESCRIPTION = "A Node.js package (package.json); discovers its workspace packages"

    @staticmethod
    def validate(args: Dict[str, str]) -> List[Property]:
        path = args.get("path")
        if not path:
            raise Err(HandlerError_InvalidArgs("missing argument `path`"))
        if not is_file(join(path, MANIFEST)):
            raise Err(HandlerError_InvalidArgs(
                f"{path} has no package.json; point --path at the package root"))
        try:
            manifest = read_manifest(path)
        except ValueError as e:
            raise Err(HandlerError_InvalidArgs(str(e)))
        props = [Property("path", path)] + summary(manifest)
        host.log(host.LogLevel.DEBUG, f"validated {path}: {manifest['name']}")
        return props

    @staticmethod
    def discover(r: ResourceView) -> List[Discovered]:
        root = location(r)
        children = []
        for rel in workspace_packages(root, read_manifest(root)):
            path = join(root, rel)
            child = read_manifest(path)
            # Its hash, too: the host then need not ask for it.
            digest = package_hash(path, child)
            children.append(Discovered(TYPE, name_path(rel), rel, summary(child), digest))
        host.log(host.LogLevel.INFO, f"{len(children)} workspace packages under {root}")
        return children

    @staticmethod
    def content_hash(r: ResourceView) -> str:
        root = location(r)
        return package_hash(root, read_manifest(root))

    @staticmethod
    def inspect(r: ResourceView, file: Optional[str]) -> Inspection:
        root = location(r)
        if file is not None:
            return inspect_file(root, file)
        m = read_manifest(root)
        facts = [("package", f"{m['name']}@{m.get('version', '(no version)')}")]
        for key in ("description", "license", "packageManager"):
            if isinstance(m.get(key), str):
                facts.append((key, m[key]))
        scripts = m.get("scripts")
        if isinstance(scripts, dict) and scripts:
            facts.append(("scripts", ", ".join(sorted(scripts))))
        for key in ("dependencies", "devDependencies", "peerDependencies"):
            if isinstance(m.get(key), dict):
                facts.append((key, str(len(m[key]))))
        members = workspace_packages(root, m)
        if members:
            facts.append(("workspace-packages", ", ".join(members)))
        return Inspection(
            "\n".join(f"{k} {v}" for k, v in facts), [Property(k, v) for k, v in facts])


CLASSES = {"NodePackageHandler": NodePackageHandler}


class Handler(exports.Handler):
    """The contract's `handler` interface: routes each call to its class."""

    def describe(self) -> PluginInfo:
        return PluginInfo(MODULE, VERSION,
                          [ClassInfo(name, c.DESCRIPTION) for name, c in CLASSES.items()])

    def validate(self, class_: str, args: List[Property]) -> List[Property]:
        return handler_class(class_).validate({p.key: p.value for p in args})

    def discover(self, class_: str, r: ResourceView) -> List[Discovered]:
        return handler_class(class_).discover(r)

    def content_hash(self, class_: str, r: ResourceView) -> str:
        return handler_class(class_).content_hash(r)

    def inspect(self, class_: str, r: ResourceView, file: Optional[str]) -> Inspection:
        return handler_class(class_).inspect(r, file)


def handler_class(name: str):
    if name not in CLASSES:
        raise Err(HandlerError_Unsupported(
            f"module {MODULE} has no class {name!r}; it provides: {', '.join(CLASSES)}"))
    return CLASSES[name]


def location(r: ResourceView) -> str:
    if not r.location:
        raise Err(HandlerError_NotFound(f"resource {r.name or r.id} has no location"))
    return r.location


def read_manifest(directory: str) -> dict:
    """The package.json of `directory`, parsed; `ValueError` saying what is
    wrong with it otherwise."""
    path = join(directory, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise Err(HandlerError_NotFound(f"{path} does not exist (any more)")) from None
    except ValueError as e:  # json.JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise ValueError(f"{path} is not a JSON object")
    name = manifest.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f'{path} has no "name"; add one, e.g. "name": "my-package"')
    return manifest


def summary(m: dict) -> List[Property]:
    """The properties a package is stored with."""
    props = [Property("name", m["name"])]
    if isinstance(m.get("version"), str):
        props.append(Property("version", m["version"]))
    if isinstance(m.get("private"), bool):
        props.append(Property("private", str(m["private"]).lower()))
    return props


def workspace_patterns(m: dict) -> List[str]:
    """`workspaces` as npm and yarn write it: a list, or `{packages: [...]}`."""
    w = m.get("workspaces")
    if isinstance(w, dict):
        w = w.get("packages")
    return [p for p in w if isinstance(p, str)] if isinstance(w, list) else []


def workspace_packages(root: str, m: dict) -> List[str]:
    """Directories under `root` matched by the workspace patterns and
    holding a package.json, relative to `root`, sorted. Each path segment
    may be a glob (`packages/*`, `apps/web-?`); `**` and negations are
    skipped with a warning. Symlinks are never followed."""
    found = set()
    for pattern in workspace_patterns(m):
        segments = [s for s in pattern.strip().split("/") if s not in ("", ".")]
        if pattern.startswith(("/", "!")) or not segments or any(
                s == ".." or "**" in s for s in segments):
            host.log(host.LogLevel.WARN, f"workspace pattern {pattern!r} not supported; skipped")
            continue
        dirs = [""]
        for segment in segments:
            dirs = [posixpath.join(d, e) for d in dirs for e in subdirs(join(root, d))
                    if fnmatch.fnmatchcase(e, segment)]
        found.update(d for d in dirs if is_file(join(join(root, d), MANIFEST)))
    return sorted(found)


def package_hash(root: str, m: dict) -> str:
    """What validate and discover read: this manifest, and the manifests
    of the workspace packages its patterns match now."""
    h = hashlib.sha256()
    for rel in ["."] + workspace_packages(root, m):
        digest = host.sha256_file(join(join(root, rel), MANIFEST))
        h.update(f"{rel}\0{digest}\n".encode())
    return "sha256:" + h.hexdigest()


def inspect_file(root: str, file: str) -> Inspection:
    rel = posixpath.normpath(file)
    if rel.startswith(("/", "..")):
        raise Err(HandlerError_InvalidArgs(f"{file} is not a path inside the package"))
    st = host.lstat(join(root, rel))
    if st is None:
        raise Err(HandlerError_NotFound(f"{rel} does not exist in {root}"))
    facts = [("file", rel), ("size", str(st.size))]
    if st.mode & S_IFMT == S_IFREG:
        facts.append(("digest", host.sha256_file(join(root, rel))))
    return Inspection(
        "\n".join(f"{k} {v}" for k, v in facts), [Property(k, v) for k, v in facts])


def subdirs(directory: str) -> List[str]:
    """Names of the real directories in `directory` (none if it is missing)."""
    try:
        entries = host.read_dir(directory)
    except Err:
        return []
    return [e.name for e in entries if e.stat.mode & S_IFMT == S_IFDIR]


def is_file(path: str) -> bool:
    st = host.lstat(path)
    return st is not None and st.mode & S_IFMT == S_IFREG


def join(directory: str, rel: str) -> str:
    return directory if rel in ("", ".") else posixpath.join(directory, rel)


def _shown(c: str) -> bool:
    n = ord(c)
    control = n < 0x20 or 0x7F <= n <= 0x9F or n in (0x2028, 0x2029)
    invisible = n in (0x061C, 0x2060, 0xFEFF) or 0x200B <= n <= 0x200F \
        or 0x202A <= n <= 0x202E or 0x2066 <= n <= 0x2069
    nonchar = 0xFDD0 <= n <= 0xFDEF or (n & 0xFFFE) == 0xFFFE
    return not (control or invisible or nonchar or n >= 0x10FF00 or c in "/%")


def name_part(text: str) -> str:
    """`text` as one resource-name part, as the Rust SDK's `name_part`
    makes it: the text as it is, except what cannot be shown or typed
    (control and invisible characters, noncharacters), `/` and `%`, which
    become `%XX` per UTF-8 byte; one to one."""
    out = []
    for c in text:
        if _shown(c):
            out.append(c)
        elif ord(c) >= 0x10FF00:
            out.append(f"%{ord(c) - 0x10FF00:02X}")
        else:
            out.extend(f"%{b:02X}" for b in c.encode())
    s = "".join(out)
    return {"": "%", ".": "%2E", "..": "%2E%2E"}.get(s, s)


def name_path(text: str) -> str:
    return "/".join(name_part(s) for s in text.split("/"))
