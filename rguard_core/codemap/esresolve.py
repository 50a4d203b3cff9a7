"""TypeScript/JavaScript specifier resolution over a tree of paths (TypeScript's ``node``/``bundler`` rules).

Relative specifiers resolve against the importer's folder; bare ones through the nearest tsconfig's
``paths`` (longest matching prefix first, each substitution in order) and then its ``baseUrl``; what is left
is a package of this repository by its package.json ``name`` (a monorepo workspace: its ``source``/``types``/
``module``/``main`` entry, else ``src/index`` or ``index``), a package from elsewhere (``external``) or a
Node builtin (``stdlib``). A base path becomes a file by: the exact file,
the base plus an extension, a ``.js``-family extension swapped for its TypeScript twin (ESM-style
``import "./x.js"`` of ``x.ts``), then ``index`` files in the folder.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable

from .model import ImportRef, Reason
from .tsconfig import TsConfig, _norm, load_configs, nearest

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json")
TS_TWIN = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
NODE_BUILTINS = frozenset(
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns "
    "domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring "
    "readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads "
    "zlib".split()
)


PACKAGE_ENTRIES = ("source", "types", "typings", "module", "main")


class EsResolver:
    def __init__(self, files: set[str], read: Callable[[str], bytes | None]) -> None:
        self.files = files
        self.configs = load_configs(files, read)
        self.packages = _workspace_packages(files, read)

    def config_errors(self) -> list[str]:
        return [c.error for c in self.configs.values() if c.error]

    def resolve(self, importer: str, ref: ImportRef) -> list[tuple[str, str]] | Reason:
        spec = ref.specifier
        if not ref.literal or not spec or spec.startswith("/"):
            return "unsupported_syntax"
        if spec.startswith((".", "..")) and (spec in (".", "..") or spec.startswith(("./", "../"))):
            base = _norm(posixpath.join(posixpath.dirname(importer), spec))
            target = self.file_for(base) if base is not None else None
            return [(target, spec)] if target else "missing_file"
        head = spec.split("/", 1)[0]
        if spec.startswith("node:") or head in NODE_BUILTINS:
            return "stdlib"
        if ":" in head:
            return "external"  # a URL or a bundler scheme (``virtual:``, ``https:``)
        cfg = nearest(self.configs, importer)
        if cfg is None:
            return self._workspace(spec)
        target, alias = self._aliased(cfg, spec)
        if target:
            return [(target, spec)]
        if cfg.base_url is not None:
            target = self.file_for(_norm(posixpath.join(cfg.base_url, spec)) if cfg.base_url else spec)
            if target:
                return [(target, spec)]
        return "missing_file" if alias else self._workspace(spec)

    def _workspace(self, spec: str) -> list[tuple[str, str]] | Reason:
        """A package of this repository by its package.json ``name`` (monorepo workspaces), else external."""
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        pkg = self.packages.get(name)
        if pkg is None:
            return "external"
        folder, entries = pkg
        sub = spec[len(name) :].lstrip("/")
        if sub:
            target = self.file_for(_join(folder, sub)) or self.file_for(_join(folder, "src/" + sub))
        else:
            target = next((t for t in (self.file_for(_norm(_join(folder, e))) for e in entries) if t), None)
            target = target or self.file_for(_join(folder, "src/index")) or self.file_for(_join(folder, "index"))
        return [(target, spec)] if target else "missing_file"

    def _aliased(self, cfg: TsConfig, spec: str) -> tuple[str | None, bool]:
        """(file, whether a specific alias pattern — not the catch-all ``*`` — matched)."""
        best: tuple[int, str, tuple[str, ...]] | None = None
        for pattern, subs in cfg.paths:
            if "*" not in pattern:
                if pattern == spec:
                    best = (len(pattern) + 1, "", subs)
                    break
                continue
            pre, _, post = pattern.partition("*")
            if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
                if best is None or len(pre) > best[0]:
                    best = (len(pre), spec[len(pre) : len(spec) - len(post)], subs)
        if best is None:
            return None, False
        for sub in best[2]:
            rel = sub.replace("*", best[1], 1)
            base = _norm(posixpath.join(cfg.paths_base, rel) if cfg.paths_base else rel)
            target = self.file_for(base) if base is not None else None
            if target:
                return target, True
        return None, best[0] > 0

    def file_for(self, base: str | None) -> str | None:
        """The file a base path names: exact, plus an extension, a TypeScript twin, or a folder's index."""
        if base is None:
            return None
        files = self.files
        name = posixpath.basename(base)
        if base in files and "." in name:
            return base
        for ext in EXTENSIONS:
            if base + ext in files:
                return base + ext
        stem, ext = posixpath.splitext(base)
        for twin in TS_TWIN.get(ext, ()):
            if stem + twin in files:
                return stem + twin
        prefix = base + "/index" if base else "index"
        for ext in EXTENSIONS:
            if prefix + ext in files:
                return prefix + ext
        return None


def _join(folder: str, rel: str) -> str:
    return posixpath.normpath(posixpath.join(folder, rel)) if folder else posixpath.normpath(rel)


def _workspace_packages(files: set[str], read: Callable[[str], bytes | None]) -> dict[str, tuple[str, list[str]]]:
    """package.json ``name`` -> (its folder, entry files named by source/types/module/main, in that order)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for f in sorted(files):
        if posixpath.basename(f) != "package.json":
            continue
        data = read(f)
        try:
            doc = json.loads(data.decode("utf-8-sig")) if data else None
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("name"), str) and doc["name"] not in out:
            entries = [doc[k] for k in PACKAGE_ENTRIES if isinstance(doc.get(k), str)]
            out[doc["name"]] = (posixpath.dirname(f), entries)
    return out
