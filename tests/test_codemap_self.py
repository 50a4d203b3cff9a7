"""The code map of this project's own clone, checked edge by edge against Python's own resolution.

Python's view of each file: ``ast`` for the imports, ``importlib.util.resolve_name`` for relative ones and
``importlib.machinery.PathFinder`` (the finder ``import`` uses, without executing anything) on the search path
the file runs with: its own folder when it is a script outside a package, the nearest folder holding a
``pyproject.toml`` above it, and the repository root.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import io
import os
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest

from rguard_core.codemap.analyse import analyse
from rguard_core.codemap.model import TreeInfo
from rguard_core.codemap.tree import Tree, tree_from_git

from .conftest import ROOT

Found = tuple[str | None, list[str] | None]


_LOADERS = (
    (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
    (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES),
    (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
)


def _find(fullname: str, path: list[str]) -> Found | None:
    """PathFinder._get_spec's loop with Python's own FileFinder: the first location holding a module or
    regular package wins; namespace portions count only when none does (PathFinder itself needs the parent
    package imported to build a namespace path, and nothing may run here)."""
    portions: list[str] = []
    for entry in path:
        spec = importlib.machinery.FileFinder(entry, *_LOADERS).find_spec(fullname)
        if spec is None:
            continue
        if spec.loader is not None:
            sub = spec.submodule_search_locations
            return spec.origin, (list(sub) if sub is not None else None)
        portions += list(spec.submodule_search_locations or [])
    return (None, portions) if portions else None


def _spec(name: str, path: list[str]) -> Found | None:
    """One dotted part at a time, each searched in its parent's locations."""
    parts = name.split(".")
    locations: list[str] | None = path
    found: Found | None = None
    for i in range(len(parts)):
        if locations is None:
            return None
        found = _find(".".join(parts[: i + 1]), locations)
        if found is None:
            return None
        locations = found[1]
    return found


def _search_path(root: Path, rel: str, top: str) -> list[str]:
    """sys.path as the file runs: its folder when it is a script, the project folder holding it (installed,
    so after the stdlib: not searched for stdlib names), the repository root."""
    here = (root / rel).parent
    path = [] if (here / "__init__.py").is_file() else [str(here)]
    d = here
    while d != root and d != d.parent and top not in sys.stdlib_module_names:
        if (d / "pyproject.toml").is_file():
            path.append(str(d))
            break
        d = d.parent
    return [*path, str(root)]


def _rel(root: Path, origin: str | None) -> str | None:
    """The tree path of a module's file. A module compiled next to its source (mypyc builds ship both) is
    loaded from the extension; the code map points at the source, and so does this."""
    if origin and not origin.endswith(".py") and origin.endswith((".so", ".pyd")):
        ext = Path(origin)
        source = ext.with_name(ext.name.split(".", 1)[0] + ".py")
        origin = str(source) if source.is_file() else origin
    if not origin or not origin.endswith(".py"):
        return None
    p = Path(origin).resolve()
    return p.relative_to(root).as_posix() if p.is_relative_to(root) else None


def python_edges(root: Path, rel: str) -> set[tuple[str, int]]:
    """(target file, line) for every import of ``rel`` that Python resolves to a file under ``root``."""
    tree = ast.parse((root / rel).read_bytes())

    def _sp(name: str) -> list[str]:
        return _search_path(root, rel, name.split(".")[0])

    package = ".".join(Path(rel).parent.parts)
    out: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found = _spec(alias.name, _sp(alias.name))
                if found and _rel(root, found[0]):
                    out.add((_rel(root, found[0]) or "", node.lineno))
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            try:
                name = (
                    importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                    if node.level
                    else node.module or ""
                )
            except ImportError:
                continue
            path = _sp(name)
            found = _spec(name, path)
            if not found:
                continue
            attrs = False
            for alias in node.names:
                sub = _spec(f"{name}.{alias.name}", path) if alias.name != "*" and found[1] is not None else None
                if sub and _rel(root, sub[0]):
                    out.add((_rel(root, sub[0]) or "", node.lineno))
                elif sub is None or sub[0] is None:
                    attrs = True  # not a submodule (or a namespace one): a name the package defines
            if attrs and _rel(root, found[0]):
                out.add((_rel(root, found[0]) or "", node.lineno))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and not node.args[0].value.startswith(".")
            and (
                (isinstance(node.func, ast.Name) and node.func.id in ("__import__", "import_module"))
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            found = _spec(node.args[0].value, _sp(node.args[0].value))
            if found and _rel(root, found[0]):
                out.add((_rel(root, found[0]) or "", node.lineno))
    return {(t, line) for t, line in out if t != rel}


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """The code map of HEAD, and HEAD's files checked out beside it (the work tree may hold edits)."""
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git clone")
    out = tmp_path_factory.mktemp("own-head")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(out, filter="data")
    return out.resolve(), analyse(tree_from_git(ROOT))


@pytest.mark.slow
def test_every_edge_agrees_with_pythons_resolution(own: tuple[Path, object]) -> None:
    root, analysis = own
    py_files = [p for p, pf in analysis.parsed.items() if pf.lang == "python"]  # type: ignore[attr-defined]
    assert len(py_files) > 100
    ours: dict[str, set[tuple[str, int]]] = {}
    for e in analysis.edges:  # type: ignore[attr-defined]
        ours.setdefault(e.source, set()).add((e.target, e.line))
    disagree, missed = [], []
    for rel in py_files:
        python = python_edges(root, rel)
        mine = ours.get(rel, set())
        disagree += [f"{rel}:{line} -> {t}" for t, line in mine - python]
        # we keep the first line per (file, target, kind): every target Python finds must be an edge
        missed += sorted({f"{rel} -> {t}" for t, _ in python} - {f"{rel} -> {t}" for t, _ in mine})
    assert not disagree, f"edges Python does not resolve that way: {disagree[:10]}"
    assert not missed, f"imports Python resolves to a file of the tree, missing as edges: {missed[:10]}"


def test_coverage_report_states_the_resolved_ratio(own: tuple[Path, object]) -> None:
    _, analysis = own
    cov = analysis.coverage  # type: ignore[attr-defined]
    print(
        f"\nown clone: {cov.imports} imports, {cov.internal} internal, {cov.resolved} resolved "
        f"({cov.resolved_ratio:.1%}), unresolved {cov.unresolved}"
    )
    assert cov.resolved_ratio >= 0.98, cov.as_dict()
    assert os.environ.get("RGUARD_CODEMAP_SELF_STRICT") != "1" or cov.resolved_ratio == 1.0


INSTALLED = ("requests", "urllib3", "idna", "yaml", "redis", "falkordb", "hypothesis", "jinja2", "pygments")


@pytest.mark.slow
def test_installed_packages_agree_with_pythons_resolution() -> None:
    """The same check on real code of other projects: packages installed beside us, their whole site-packages
    folder as the tree (so imports between packages resolve), only those packages' files compared."""
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    present = [p for p in INSTALLED if (site / p / "__init__.py").is_file()]
    if len(present) < 3:
        pytest.skip(f"too few of {INSTALLED} installed in {site}")
    tree = Tree(TreeInfo("folder", "", None, str(site)))
    for dirpath, _, names in os.walk(site):  # every path (imports between packages resolve) ...
        rel_dir = os.path.relpath(dirpath, site).replace(os.sep, "/")
        tree.paths.update(n if rel_dir == "." else f"{rel_dir}/{n}" for n in names)
    for rel in tree.paths:  # ... but only these packages' sources are read
        if rel.split("/", 1)[0] in present and rel.endswith(".py"):
            tree.contents[rel] = (site / rel).read_bytes()
    analysis = analyse(tree)
    ours: dict[str, set[tuple[str, int]]] = {}
    for e in analysis.edges:
        ours.setdefault(e.source, set()).add((e.target, e.line))
    files = [p for p, pf in analysis.parsed.items() if pf.lang == "python"]
    assert len(files) > 300
    disagree, missed, edges = [], [], 0
    for rel in files:
        python = python_edges(site, rel)
        mine = ours.get(rel, set())
        edges += len(mine)
        disagree += [f"{rel}:{line} -> {t}" for t, line in mine - python]
        missed += sorted({f"{rel} -> {t}" for t, _ in python} - {f"{rel} -> {t}" for t, _ in mine})
    print(
        f"\ninstalled {present}: {len(files)} files, {edges} edges, {analysis.coverage.resolved_ratio:.1%} of "
        f"internal imports resolved, unresolved {analysis.coverage.unresolved}"
    )
    assert edges > 1000
    assert not disagree, disagree[:10]
    assert not missed, missed[:10]
