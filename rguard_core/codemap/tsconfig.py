"""tsconfig.json / jsconfig.json: ``compilerOptions.baseUrl`` and ``paths``, following relative ``extends``.

The files are JSON with comments and trailing commas (JSONC); both are dropped outside strings before
``json.loads`` (a naive comment strip would break ``"@/*"``). Each source file uses the nearest config in
its folder or above. ``paths`` resolve against ``baseUrl`` when one is set, else against the folder of the
config that declares them (TypeScript 4.1+).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
MAX_EXTENDS = 5


@dataclass(frozen=True)
class TsConfig:
    path: str
    base_url: str | None = None  # tree path of baseUrl ("" is the tree root)
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    paths_base: str = ""
    error: str | None = None


@dataclass
class _Raw:
    base_url: str | None = None
    paths: dict[str, list[str]] | None = None
    paths_base: str = ""
    seen: list[str] = field(default_factory=list)


def strip_jsonc(text: str) -> str:
    """JSON with ``//`` and ``/* */`` comments and trailing commas → plain JSON."""
    return _scan(_scan(text, comments=True), comments=False)


def _scan(text: str, comments: bool) -> str:
    """One string-aware pass: drop comments (``comments=True``) or commas before ``}``/``]``."""
    out: list[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            in_str = c != '"'
            i += 1
            continue
        if c == '"':
            in_str = True
        elif comments and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif comments and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        elif not comments and c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma
                continue
        out.append(c)
        i += 1
    return "".join(out)


def load_configs(files: set[str], read: Callable[[str], bytes | None]) -> dict[str, TsConfig]:
    """Every config in the tree, keyed by its folder (tsconfig.json wins over jsconfig.json in one folder)."""
    out: dict[str, TsConfig] = {}
    for name in reversed(CONFIG_NAMES):
        for f in sorted(files):
            if posixpath.basename(f) == name:
                out[posixpath.dirname(f)] = _load(f, files, read)
    return out


def nearest(configs: dict[str, TsConfig], importer: str) -> TsConfig | None:
    d = posixpath.dirname(importer)
    while True:
        if d in configs:
            return configs[d]
        if not d:
            return None
        d = posixpath.dirname(d)


def _load(path: str, files: set[str], read: Callable[[str], bytes | None]) -> TsConfig:
    raw = _Raw()
    try:
        _merge(path, files, read, raw, 0)
    except (ValueError, UnicodeDecodeError) as e:
        return TsConfig(path, error=f"{path}: {e}")
    paths = tuple((k, tuple(v)) for k, v in (raw.paths or {}).items())
    paths_base = raw.base_url if raw.base_url is not None else raw.paths_base
    return TsConfig(path, raw.base_url, paths, paths_base)


def _merge(path: str, files: set[str], read: Callable[[str], bytes | None], raw: _Raw, depth: int) -> None:
    """Fill ``raw`` from ``path`` after its ``extends`` chain (the child's settings win)."""
    if depth > MAX_EXTENDS or path in raw.seen:
        return
    raw.seen.append(path)
    data = read(path)
    if data is None:
        return
    doc = json.loads(strip_jsonc(data.decode("utf-8-sig")))
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    here = posixpath.dirname(path)
    parents = doc.get("extends")
    for parent in [parents] if isinstance(parents, str) else parents if isinstance(parents, list) else []:
        if isinstance(parent, str) and parent.startswith("."):
            target = _norm(posixpath.join(here, parent))
            if target is not None:
                target = target if target in files or target.endswith(".json") else target + ".json"
                _merge(target, files, read, raw, depth + 1)
    opts = doc.get("compilerOptions")
    if not isinstance(opts, dict):
        return
    if isinstance(opts.get("baseUrl"), str):
        raw.base_url = _norm(posixpath.join(here, opts["baseUrl"]))
    if isinstance(opts.get("paths"), dict):
        raw.paths = {
            k: [t for t in v if isinstance(t, str)]
            for k, v in opts["paths"].items()
            if isinstance(k, str) and isinstance(v, list)
        }
        raw.paths_base = here


def _norm(path: str) -> str | None:
    """A tree-relative normalised path, or None when it climbs out of the tree."""
    p = posixpath.normpath(path)
    if p == ".":
        return ""
    if p.startswith("../") or p == ".." or p.startswith("/"):
        return None
    return p
