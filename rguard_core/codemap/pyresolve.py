"""Python import resolution over a tree of paths, the way ``importlib``'s PathFinder/FileFinder look.

In one search location a regular package (``x/__init__.py``) beats a module (``x.py``), which beats a
namespace portion (a directory without ``__init__.py``); portions count only when no location holds a
regular package or module, and then the next name is looked up in all of them. ``import a.b.c`` is an
edge to the deepest module; ``from P import n`` an edge to submodule ``P.n`` when it is a file, and to P
itself for names that are not submodules. Search roots: the tree root, ``src/`` folders and folders with
a ``pyproject.toml``/``setup.py``/``setup.cfg``, and a script's own folder when it is not in a package
(``sys.path[0]`` when it runs). The roots that hold the importer are searched first, deepest first (a nested
project sees its own packages before the outer tree's), then the others.
"""

from __future__ import annotations

import posixpath
import sys

from .model import ImportRef, Reason

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
INTERPRETER_MODULES = frozenset({"__main__", "__mp_main__"})
MAX_ROOT_DEPTH = 4  # deeper ``src`` folders are fixtures and vendored copies more often than source roots

Found = tuple[str | None, list[str]]  # (file, the package folders it searches next: [] for a plain module)


class PythonResolver:
    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.dirs = _dirs(files)
        self.roots = source_roots(files, self.dirs)
        # C extensions: ``pkg/_speedups.cpython-312-x86_64-linux-gnu.so`` -> ``pkg/_speedups``
        self.compiled = {
            posixpath.join(posixpath.dirname(f), posixpath.basename(f).split(".", 1)[0])
            for f in files
            if f.endswith((".so", ".pyd"))
        }
        self._roots_cache: dict[str, list[str]] = {}

    def roots_for(self, importer: str) -> list[str]:
        """The script's folder (outside a package), the roots that hold the importer (deepest first), the rest."""
        cached = self._roots_cache.get(importer)
        if cached is not None:
            return cached
        here = posixpath.dirname(importer)
        own = [here] if here not in self.roots and not self._is_file(posixpath.join(here, "__init__.py")) else []
        holding = sorted((r for r in self.roots if not r or importer.startswith(r + "/")), key=lambda r: -len(r))
        out = own + holding + [r for r in self.roots if r not in holding]
        self._roots_cache[importer] = out
        return out

    def resolve(self, importer: str, ref: ImportRef) -> list[tuple[str, str]] | Reason:
        """``[(target path, specifier)]`` for a proven import, else the reason it is not an edge."""
        if not ref.literal or not (ref.specifier.strip(".") or ref.level):
            return "unsupported_syntax"
        if ref.level:
            return self._relative(importer, ref)
        parts = ref.specifier.split(".")
        if parts[0] in INTERPRETER_MODULES:
            return "stdlib"  # the running program itself: no file of the tree
        roots = self.search_path(importer, parts[0])
        found = self.find(parts, roots)
        if ref.kind == "DYNAMIC_IMPORT" or not ref.names:
            return self._outcome(found, parts, roots, [(found[0], ref.specifier)] if found and found[0] else [], ref)
        return self._outcome(found, parts, roots, self._from_edges(found, ref) if found else [], ref)

    def search_path(self, importer: str, top: str) -> list[str]:
        """The roots an absolute import of ``top`` searches. The stdlib sits on sys.path before installed
        projects, so only the script's own folder or the tree root can shadow a stdlib name."""
        roots = self.roots_for(importer)
        if top in sys.stdlib_module_names:
            here = posixpath.dirname(importer)
            return [r for r in roots if r == "" or (r == here and r not in self.roots)]
        return roots

    def _relative(self, importer: str, ref: ImportRef) -> list[tuple[str, str]] | Reason:
        base = posixpath.dirname(importer)
        for _ in range(ref.level - 1):
            if not base:
                return "missing_file"  # beyond the top-level package
            base = posixpath.dirname(base)
        module = ref.specifier.lstrip(".")
        if module:
            found = self.find(module.split("."), [base])
        else:
            init = posixpath.join(base, "__init__.py")
            found = (init if self._is_file(init) else None, [base])
        if found is None:
            return "compiled_module" if self._compiled(module.split("."), [base]) else "missing_file"
        edges = self._from_edges(found, ref)
        if edges:
            return edges
        if (module and self._compiled(module.split("."), [base])) or self._names_compiled(found, ref):
            return "compiled_module"  # an extension module beats a namespace folder of the same name
        return "namespace_package" if found[1] and found[0] is None else "missing_file"

    def _from_edges(self, found: Found, ref: ImportRef) -> list[tuple[str, str]]:
        file, locations = found
        edges: list[tuple[str, str]] = []
        attrs = False
        prefix = ref.specifier if ref.specifier.endswith(".") else ref.specifier + "."
        for name in ref.names:
            sub = self.find([name], locations) if name != "*" and locations else None
            if sub is not None and sub[0] is not None:
                edges.append((sub[0], prefix + name))
            elif not (name != "*" and self._compiled([name], locations)):
                attrs = True  # a name the package itself defines (a compiled submodule is none of ours)
        if (attrs or not ref.names) and file is not None:
            edges.insert(0, (file, ref.specifier))
        return edges

    def _outcome(
        self, found: Found | None, parts: list[str], roots: list[str], edges: list[tuple[str, str]], ref: ImportRef
    ) -> list[tuple[str, str]] | Reason:
        if edges:
            return edges
        if self._compiled(parts, roots) or (found is not None and self._names_compiled(found, ref)):
            return "compiled_module"  # an extension module beats a namespace folder of the same name
        top = self.find(parts[:1], roots)
        if parts[0] in sys.stdlib_module_names and (top is None or top[0] is None):
            return "stdlib"  # a folder named like a stdlib module is only a namespace portion: the stdlib wins
        if found is not None:
            return "namespace_package"
        if top is not None:
            return "missing_file"  # the top-level package is ours, the module is not there
        return "stdlib" if parts[0] in sys.stdlib_module_names else "external"

    def find(self, parts: list[str], locations: list[str]) -> Found | None:
        """Where ``a.b.c`` is: (file or None for a namespace package, folders searched for its submodules)."""
        found: Found | None = None
        for i, part in enumerate(parts):
            portions: list[str] = []
            found = None
            for loc in locations:
                base = posixpath.join(loc, part) if loc else part
                init = base + "/__init__.py"
                if self._is_file(init):
                    found = (init, [base])
                    break
                if self._is_file(base + ".py"):
                    found = (base + ".py", [])
                    break
                if base in self.dirs:
                    portions.append(base)
            if found is None and portions:
                found = (None, portions)
            if found is None or (not found[1] and i < len(parts) - 1):
                return None
            locations = found[1]
        return found

    def _names_compiled(self, found: Found, ref: ImportRef) -> bool:
        return bool(found[1]) and any(n != "*" and self._compiled([n], found[1]) for n in ref.names)

    def _compiled(self, parts: list[str], locations: list[str]) -> bool:
        """Whether ``a.b.c`` is a C extension file of the tree (its package found as source, or not)."""
        if not self.compiled:
            return False
        parent = self.find(parts[:-1], locations) if len(parts) > 1 else (None, locations)
        folders = parent[1] if parent is not None else []
        return any((posixpath.join(d, parts[-1]) if d else parts[-1]) in self.compiled for d in folders)

    def _is_file(self, path: str) -> bool:
        return path in self.files


def _dirs(files: set[str]) -> set[str]:
    out: set[str] = set()
    for f in files:
        d = posixpath.dirname(f)
        while d and d not in out:
            out.add(d)
            d = posixpath.dirname(d)
    return out


def source_roots(files: set[str], dirs: set[str]) -> list[str]:
    """The tree root first, then project folders and ``src`` folders (shallow first, then by name)."""
    found: set[str] = set()
    for f in files:
        d, name = posixpath.split(f)
        if name in PROJECT_MARKERS and d and d.count("/") < MAX_ROOT_DEPTH:
            found.add(d)
    for d in dirs:
        if posixpath.basename(d) == "src" and d.count("/") < MAX_ROOT_DEPTH:
            found.add(d)
    return [""] + sorted(found, key=lambda d: (d.count("/"), d))
