"""Tree → parsed files → proven edges, with every import that did not resolve counted by reason."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .esresolve import EsResolver
from .model import OUTSIDE_TREE, Coverage, Edge, ParsedFile, Reason, Unresolved
from .parse import parse_file
from .pyresolve import PythonResolver
from .tree import Tree

EXAMPLES = 5  # unresolved imports listed per reason in the coverage report
PROGRESS_EVERY = 2000

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Analysis:
    parsed: dict[str, ParsedFile]
    edges: list[Edge]
    unresolved: list[Unresolved]
    coverage: Coverage


def parse_tree(tree: Tree, progress: Progress | None = None) -> dict[str, ParsedFile]:
    """Every source file's imports, one by one: tree-sitter holds the GIL while it parses, and two worker
    processes measured twice as slow as one on this 2-core machine (bench/codemap.py, 16 MB of source)."""
    out: dict[str, ParsedFile] = {}
    paths = sorted(tree.contents)
    for i, path in enumerate(paths, 1):
        pf = parse_file(path, tree.contents[path])
        if pf is not None:
            out[path] = pf
        if progress and i % PROGRESS_EVERY == 0:
            progress(f"codemap: parsed {i} of {len(paths)} files")
    return out


def analyse(tree: Tree, progress: Progress | None = None) -> Analysis:
    parsed = parse_tree(tree, progress)
    if progress:
        progress(f"codemap: parsed {len(parsed)} source files")
    py = PythonResolver(tree.paths)
    es = EsResolver(tree.paths, tree.read)
    cov = Coverage(files_in_tree=len(tree.paths), files_parsed=len(parsed), files_skipped=dict(tree.skipped))
    for err in es.config_errors():
        cov.files_skipped["unreadable_tsconfig"] = cov.files_skipped.get("unreadable_tsconfig", 0) + 1
        cov.examples.setdefault("unreadable_tsconfig", []).append(err[:200])
    edges: dict[tuple[str, str, str], Edge] = {}
    unresolved: list[Unresolved] = []
    for path, pf in parsed.items():
        cov.files_with_syntax_errors += pf.errors
        lang = cov.by_lang.setdefault(pf.lang, {"files": 0, "imports": 0, "resolved": 0, "internal": 0})
        lang["files"] += 1
        resolver = py if pf.lang == "python" else es
        for ref in pf.imports:
            cov.imports += 1
            lang["imports"] += 1
            got = resolver.resolve(path, ref)
            if isinstance(got, str):
                reason: Reason = got
                cov.unresolved[reason] = cov.unresolved.get(reason, 0) + 1
                if reason not in OUTSIDE_TREE:
                    lang["internal"] += 1
                ex = cov.examples.setdefault(reason, [])
                if len(ex) < EXAMPLES:
                    ex.append(f"{path}:{ref.line} {ref.specifier}")
                unresolved.append(Unresolved(path, ref.specifier, ref.line, ref.kind, reason))
                continue
            cov.resolved += 1
            lang["resolved"] += 1
            lang["internal"] += 1
            for target, spec in got:
                key = (path, target, ref.kind)
                if target != path and key not in edges:  # one edge per kind and pair: the first import
                    edges[key] = Edge(path, target, ref.kind, spec, ref.line)
    return Analysis(parsed, list(edges.values()), unresolved, cov)
