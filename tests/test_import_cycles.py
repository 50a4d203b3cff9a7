"""rguard_core's modules import each other without a cycle.

A cycle held together by function-local imports still means no module of it can be understood, tested or
moved on its own, so every import counts: module level and inside functions (only ``if TYPE_CHECKING:``
blocks are skipped, they never run). ``from pkg import name`` where ``name`` is a submodule imports that
submodule; importing a package imports its ``__init__``. ``importlib.import_module`` of our own modules hides
an edge from readers and tools, so it is refused outright.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "rguard_core"


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (a package is its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``node``, except the bodies of ``if TYPE_CHECKING:`` (their ``else`` runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:
                yield stmt
                yield from _walk(stmt)
            continue
        yield child
        yield from _walk(child)


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` refers to: itself, or the nearest enclosing module (``pkg.mod.func`` -> ``pkg.mod``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> tuple[set[str], list[str]]:
    """The package's modules ``module`` imports, and any ``import_module`` calls naming our modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    dynamic: list[str] = []
    for node in _walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (target := _owner(alias.name, modules)) is not None:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                target = sub if sub in modules else _owner(base, modules)
                if target is not None:
                    found.add(target)
        elif isinstance(node, ast.Call) and _is_import_module(node.func):
            arg = node.args[0] if node.args else None
            text = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            if text is None or text.startswith((PACKAGE, ".")):
                dynamic.append(f"{_shown(path)}:{node.lineno} import_module({ast.unparse(arg or node)})")
    found.discard(module)
    return found, dynamic


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module"
    )


def import_graph() -> tuple[dict[str, set[str]], list[str]]:
    modules = module_files()
    graph: dict[str, set[str]] = {}
    dynamic: list[str] = []
    for name, path in modules.items():
        graph[name], dyn = imports_of(name, path, modules)
        dynamic += dyn
    return graph, dynamic


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted, plus one path
    around each so the failure shows how the modules hold each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _loop(graph: dict[str, set[str]], comp: list[str]) -> list[str]:
    """One import path from the component's first module back to itself, inside the component."""
    start, members = comp[0], set(comp)
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [start, *reversed(path[:-1]), start] if v != start else [start, start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def test_the_checker_sees_function_local_and_from_package_imports(tmp_path: Path) -> None:
    """The checker itself: a cycle closed by a late import, or by ``from . import sub``, is found."""
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n\ndef f():\n    from .a import g\n"
    )
    (pkg / "c.py").write_text("from .b import f\n")
    modules = {"p": pkg / "__init__.py", "p.a": pkg / "a.py", "p.b": pkg / "b.py", "p.c": pkg / "c.py"}
    graph = {m: imports_of(m, path, modules)[0] for m, path in modules.items()}
    assert graph == {"p": set(), "p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": {"p.b"}}
    assert cycles(graph) == [["p.a", "p.b"]]
    (pkg / "d.py").write_text("import importlib\nimportlib.import_module('.a', 'p')\n")
    modules["p.d"] = pkg / "d.py"
    assert imports_of("p.d", pkg / "d.py", modules)[1]


def test_rguard_core_has_no_import_cycle() -> None:
    graph, _ = import_graph()
    assert len(graph) > 100  # the walk found the package
    found = cycles(graph)
    report = "\n".join(f"  {len(c)} modules: {' -> '.join(_loop(graph, c))}\n    ({', '.join(c)})" for c in found)
    assert not found, f"import cycles in {PACKAGE}:\n{report}"


def test_no_dynamic_import_of_our_own_modules() -> None:
    _, dynamic = import_graph()
    assert not dynamic, "importlib.import_module hides an import of our own modules:\n" + "\n".join(dynamic)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
