"""``build_codemap``: a tree (local clone or GitHub tarball) → parsed, resolved, written, with coverage."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ..db import Store, validate_repo
from .analyse import analyse
from .model import BuildResult
from .tree import Tree, tree_from_git, tree_from_github
from .write import write_codemap

Progress = Callable[[str], None]


def build_from_tree(
    store: Store, repo: str, tree: Tree, progress: Progress | None = None, read_ms: float = 0.0, force: bool = False
) -> BuildResult:
    repo = validate_repo(repo)
    t0 = time.perf_counter()
    analysis = analyse(tree, progress)
    t1 = time.perf_counter()
    if progress:
        progress(f"codemap: writing {len(analysis.edges)} edges for {len(analysis.parsed)} files")
    counts = write_codemap(store.repo_graph(repo), tree.info, analysis, force)
    t2 = time.perf_counter()
    timings = {"read": read_ms, "parse_resolve": (t1 - t0) * 1000, "write": (t2 - t1) * 1000}
    return BuildResult(repo, tree.info, len(analysis.parsed), sum(counts.values()), counts, analysis.coverage, timings)


def build_from_git(
    store: Store, repo: str, path: str | Path, rev: str = "HEAD", progress: Progress | None = None, force: bool = False
) -> BuildResult:
    repo = validate_repo(repo)
    t0 = time.perf_counter()
    tree = tree_from_git(path, rev)
    return build_from_tree(store, repo, tree, progress, (time.perf_counter() - t0) * 1000, force)


def build_from_github(
    store: Store,
    repo: str,
    ref: str,
    api_url: str | None = None,
    token: str | None = None,
    progress: Progress | None = None,
    force: bool = False,
) -> BuildResult:
    repo = validate_repo(repo)
    settings = store.settings
    t0 = time.perf_counter()
    if progress:
        progress(f"codemap: downloading the tarball of {repo}@{ref}")
    tree = tree_from_github(
        repo, ref, api_url or settings.github_api_url, token if token is not None else settings.github_token
    )
    return build_from_tree(store, repo, tree, progress, (time.perf_counter() - t0) * 1000, force)
