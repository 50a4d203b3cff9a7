"""Dataclasses that cross the code map's module boundaries: imports as parsed, edges as proven, coverage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EdgeKind = Literal["IMPORTS", "RE_EXPORTS", "DYNAMIC_IMPORT", "REQUIRES"]
EDGE_KINDS: tuple[EdgeKind, ...] = ("IMPORTS", "RE_EXPORTS", "DYNAMIC_IMPORT", "REQUIRES")
Lang = Literal["python", "typescript", "javascript"]

# Why an import is not an edge. ``external``/``stdlib``/``compiled_module`` are not source of the tree; the others are
# imports that look internal but could not be proven (they count against the resolved ratio).
# ``compiled_module`` is a C extension of the tree (``_x.cpython-312-….so``): ours, but no source to map.
Reason = Literal["external", "stdlib", "compiled_module", "missing_file", "namespace_package", "unsupported_syntax"]
REASONS: tuple[Reason, ...] = (
    "external",
    "stdlib",
    "compiled_module",
    "missing_file",
    "namespace_package",
    "unsupported_syntax",
)
OUTSIDE_TREE: frozenset[str] = frozenset({"external", "stdlib", "compiled_module"})


@dataclass(frozen=True)
class ImportRef:
    """One import as written. ``names`` are a Python ``from X import a, b`` list (``*`` for a wildcard);
    ``level`` the leading dots of a relative Python import; ``literal`` False when the specifier is computed."""

    kind: EdgeKind
    specifier: str
    line: int  # 1-based
    names: tuple[str, ...] = ()
    level: int = 0
    literal: bool = True


@dataclass(frozen=True)
class ParsedFile:
    path: str
    lang: Lang
    imports: tuple[ImportRef, ...]
    errors: bool = False  # the parser had to recover from a syntax error somewhere in the file


@dataclass(frozen=True)
class Edge:
    """A proven import: ``source`` imports ``target`` (both tree paths) at ``line`` via ``specifier``."""

    source: str
    target: str
    kind: EdgeKind
    specifier: str
    line: int


@dataclass(frozen=True)
class Unresolved:
    source: str
    specifier: str
    line: int
    kind: EdgeKind
    reason: Reason


@dataclass
class Coverage:
    """What the parser saw and what resolved; ``resolved_ratio`` is over imports that are not external."""

    files_in_tree: int = 0
    files_parsed: int = 0
    files_skipped: dict[str, int] = field(default_factory=dict)  # reason -> count (too large, not utf-8 …)
    files_with_syntax_errors: int = 0
    imports: int = 0
    resolved: int = 0
    unresolved: dict[str, int] = field(default_factory=dict)  # reason -> count
    by_lang: dict[str, dict[str, int]] = field(default_factory=dict)  # lang -> {imports, resolved, internal}
    examples: dict[str, list[str]] = field(default_factory=dict)  # reason -> a few "path:line specifier"

    @property
    def internal(self) -> int:
        return self.imports - sum(n for r, n in self.unresolved.items() if r in OUTSIDE_TREE)

    @property
    def resolved_ratio(self) -> float:
        return round(self.resolved / self.internal, 4) if self.internal else 1.0

    def as_dict(self) -> dict[str, object]:
        return {
            "files_in_tree": self.files_in_tree,
            "files_parsed": self.files_parsed,
            "files_skipped": dict(self.files_skipped),
            "files_with_syntax_errors": self.files_with_syntax_errors,
            "imports": self.imports,
            "resolved": self.resolved,
            "internal": self.internal,
            "resolved_ratio": self.resolved_ratio,
            "unresolved": dict(self.unresolved),
            "by_lang": {k: dict(v) for k, v in self.by_lang.items()},
            "examples": {k: list(v) for k, v in self.examples.items()},
        }


@dataclass(frozen=True)
class TreeInfo:
    """Where a tree came from: ``source`` git|tarball, the commit (full or GitHub's short sha) and ref."""

    source: str
    commit: str
    ref: str | None = None
    location: str = ""


@dataclass(frozen=True)
class BuildResult:
    repo: str
    tree: TreeInfo
    files: int
    edges: int
    edges_by_kind: dict[str, int]
    coverage: Coverage
    timings_ms: dict[str, float]

    def as_dict(self) -> dict[str, object]:
        return {
            "repo": self.repo,
            "source": self.tree.source,
            "commit": self.tree.commit,
            "ref": self.tree.ref,
            "files": self.files,
            "edges": self.edges,
            "edges_by_kind": dict(self.edges_by_kind),
            "coverage": self.coverage.as_dict(),
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
        }
