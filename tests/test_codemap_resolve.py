"""Code map parsing and resolution on small real trees written here (no graph needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rguard_core.codemap.analyse import Analysis, analyse
from rguard_core.codemap.parse import parse_file
from rguard_core.codemap.tree import tree_from_folder
from rguard_core.codemap.tsconfig import strip_jsonc


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def edges(a: Analysis) -> set[tuple[str, str, str, int]]:
    return {(e.source, e.target, e.kind, e.line) for e in a.edges}


def unresolved(a: Analysis) -> set[tuple[str, str, str]]:
    return {(u.source, u.specifier, u.reason) for u in a.unresolved}


PY_TREE = {
    "app/__init__.py": "from .core import engine\nfrom . import util\n",
    "app/core/__init__.py": "from .engine import run\n",
    "app/core/engine.py": "import os\nfrom ..util import helper\nfrom app.models import user as u, group\n",
    "app/util.py": "import json\nimport app.core.engine\n",
    "app/models/__init__.py": "",
    "app/models/user.py": "from __future__ import annotations\nfrom . import group\n",
    "app/models/group.py": "from .user import User  # a cycle with user.py\n",
    "app/plugins.py": "import importlib\nimportlib.import_module('app.util')\nimportlib.import_module(name)\n",
    "app/broken.py": "from .missing import x\nfrom app.nothere import y\nfrom .... import z\nimport requests\n",
    "src/libpkg/__init__.py": "from libpkg.inner import thing\n",
    "src/libpkg/inner.py": "",
    "ns/part/mod.py": "import ns.part\nfrom ns import part\n",
    "scripts/run.py": "import helper_mod\nimport app\n",
    "scripts/helper_mod.py": "",
    "app/_speedups.cpython-312-x86_64-linux-gnu.so": "",
    "app/fast.py": "from . import _speedups\nimport app._speedups\nimport __main__\nimport io\nimport other_pkg\n",
    "other/pyproject.toml": "",
    "other/io/__init__.py": "",
    "other/other_pkg/__init__.py": "",
}


@pytest.fixture
def py(tmp_path: Path) -> Analysis:
    return analyse(tree_from_folder(write(tmp_path, PY_TREE)))


def test_python_relative_package_and_init_edges(py: Analysis) -> None:
    e = edges(py)
    assert ("app/__init__.py", "app/core/engine.py", "IMPORTS", 1) in e  # from .core import engine: a submodule
    assert ("app/__init__.py", "app/util.py", "IMPORTS", 2) in e  # from . import util
    assert ("app/core/__init__.py", "app/core/engine.py", "IMPORTS", 1) in e
    assert ("app/core/engine.py", "app/util.py", "IMPORTS", 2) in e  # ..util
    assert ("app/core/engine.py", "app/models/user.py", "IMPORTS", 3) in e
    assert ("app/core/engine.py", "app/models/group.py", "IMPORTS", 3) in e
    assert ("app/util.py", "app/core/engine.py", "IMPORTS", 2) in e  # import a.b.c -> the deepest module
    assert ("app/models/user.py", "app/models/group.py", "IMPORTS", 2) in e
    assert ("app/models/group.py", "app/models/user.py", "IMPORTS", 1) in e  # the other half of the cycle
    assert ("app/plugins.py", "app/util.py", "DYNAMIC_IMPORT", 2) in e


def test_python_source_roots_and_script_folders(py: Analysis) -> None:
    e = edges(py)
    assert ("src/libpkg/__init__.py", "src/libpkg/inner.py", "IMPORTS", 1) in e  # src/ is a source root
    assert ("scripts/run.py", "scripts/helper_mod.py", "IMPORTS", 1) in e  # a script's own folder
    assert ("scripts/run.py", "app/__init__.py", "IMPORTS", 2) in e


def test_python_compiled_modules_stdlib_names_and_other_projects(py: Analysis) -> None:
    u = unresolved(py)
    assert ("app/fast.py", ".", "compiled_module") in u and ("app/fast.py", "app._speedups", "compiled_module") in u
    assert ("app/fast.py", "__main__", "stdlib") in u
    assert ("app/fast.py", "io", "stdlib") in u  # another project's io/ does not shadow the stdlib
    assert ("app/fast.py", "other/other_pkg/__init__.py", "IMPORTS", 5) in edges(py)  # a project folder is a root
    assert py.coverage.unresolved["compiled_module"] == 2


def test_python_unresolved_counted_by_reason_never_edges(py: Analysis) -> None:
    u = unresolved(py)
    assert ("app/broken.py", ".missing", "missing_file") in u
    assert ("app/broken.py", "app.nothere", "missing_file") in u  # our package, absent module
    assert ("app/broken.py", "....", "missing_file") in u  # beyond the top-level package
    assert ("app/broken.py", "requests", "external") in u
    assert ("app/core/engine.py", "os", "stdlib") in u
    assert ("app/plugins.py", "name", "unsupported_syntax") in u
    assert ("ns/part/mod.py", "ns.part", "namespace_package") in u  # a folder without __init__.py has no file
    assert not any(e.source == "app/broken.py" for e in py.edges)
    cov = py.coverage
    assert cov.unresolved["missing_file"] == 3 and cov.unresolved["unsupported_syntax"] == 1
    assert cov.imports == cov.resolved + sum(cov.unresolved.values())
    assert cov.internal == cov.imports - sum(
        cov.unresolved.get(r, 0) for r in ("external", "stdlib", "compiled_module")
    )
    assert 0 < cov.resolved_ratio < 1
    # __future__ is not an import of a module
    assert not any(u.specifier == "__future__" for u in py.unresolved)


TS_TREE = {
    "tsconfig.json": """{
      // comments and trailing commas, as tsc accepts them
      "compilerOptions": {
        "baseUrl": ".",
        "paths": { "@/*": ["src/*"], "@ui": ["src/ui/index.ts"], "~lib/*": ["vendor/lib/*", "src/lib/*"], },
        /* block comment with "@/*" inside */
      },
    }""",
    "src/main.ts": (
        "import { a } from './a';\nimport type { B } from '@/types';\nimport ui from '@ui';\n"
        "export * from './reexp';\nexport { c } from '../src/c.js';\n"
        "const lazy = await import('./lazy');\nconst d = import(`./dyn/${name}`);\n"
        "import fs from 'node:fs';\nimport path from 'path';\nimport React from 'react';\n"
        "import { x } from '@/nothere';\nimport lib from '~lib/tool';\nimport cfg from 'src/config';\n"
        "import './styles.css';\n"
    ),
    "src/a.ts": "import { b } from './b';\nexport const a = 1;\n",
    "src/b.ts": "import { a } from './a';  // a cycle a <-> b\nexport const b = 2;\n",
    "src/types/index.ts": "export type B = number;\n",
    "src/ui/index.ts": "export default {};\n",
    "src/reexp/index.tsx": "export const R = () => <div/>;\n",
    "src/c.ts": "export const c = 3;\n",
    "src/lazy.ts": "export default 1;\n",
    "src/lib/tool.ts": "export default 1;\n",
    "src/config.ts": "export default {};\n",
    "src/styles.css": "body {}\n",
    "web/jsconfig.json": '{"extends": "../tsconfig", "compilerOptions": {"checkJs": true}}',
    "web/app/index.js": "const h = require('./helper');\nconst m = require(modName);\nconst s = require('@/c');\n",
    "web/app/helper.cjs": "module.exports = {};\n",
    "web/app/shared.mjs": "export default 1;\n",
    "packages/utils/package.json": '{"name": "@acme/utils", "main": "dist/index.js", "types": "src/main.ts"}',
    "packages/utils/src/main.ts": "export const u = 1;\n",
    "packages/utils/src/deep/x.ts": "export const x = 1;\n",
    "packages/ui/package.json": '{"name": "acme-ui"}',
    "packages/ui/index.tsx": "import { u } from '@acme/utils';\nimport { x } from '@acme/utils/deep/x';\n"
    "import gone from 'acme-ui/nothere';\nexport default u + x;\n",
}


@pytest.fixture
def ts(tmp_path: Path) -> Analysis:
    return analyse(tree_from_folder(write(tmp_path, TS_TREE)))


def test_typescript_aliases_index_files_reexports_dynamic(ts: Analysis) -> None:
    e = edges(ts)
    assert ("src/main.ts", "src/a.ts", "IMPORTS", 1) in e
    assert ("src/main.ts", "src/types/index.ts", "IMPORTS", 2) in e  # @/* alias to a folder's index file
    assert ("src/main.ts", "src/ui/index.ts", "IMPORTS", 3) in e  # an exact alias
    assert ("src/main.ts", "src/reexp/index.tsx", "RE_EXPORTS", 4) in e
    assert ("src/main.ts", "src/c.ts", "RE_EXPORTS", 5) in e  # ./c.js written for c.ts
    assert ("src/main.ts", "src/lazy.ts", "DYNAMIC_IMPORT", 6) in e
    assert ("src/main.ts", "src/lib/tool.ts", "IMPORTS", 12) in e  # second substitution of ~lib/*
    assert ("src/main.ts", "src/config.ts", "IMPORTS", 13) in e  # baseUrl
    assert ("src/main.ts", "src/styles.css", "IMPORTS", 14) in e  # any file of the tree
    assert ("src/a.ts", "src/b.ts", "IMPORTS", 1) in e and ("src/b.ts", "src/a.ts", "IMPORTS", 1) in e


def test_javascript_require_and_extended_config(ts: Analysis) -> None:
    e = edges(ts)
    assert ("web/app/index.js", "web/app/helper.cjs", "REQUIRES", 1) in e
    # the nearest config extends the root one: its paths, relative to the inherited baseUrl
    assert ("web/app/index.js", "src/c.ts", "REQUIRES", 3) in e


def test_workspace_packages_by_package_json_name(ts: Analysis) -> None:
    e = edges(ts)
    assert ("packages/ui/index.tsx", "packages/utils/src/main.ts", "IMPORTS", 1) in e  # "types" entry
    assert ("packages/ui/index.tsx", "packages/utils/src/deep/x.ts", "IMPORTS", 2) in e  # a subpath, under src/
    assert ("packages/ui/index.tsx", "acme-ui/nothere", "missing_file") in unresolved(ts)


def test_typescript_unresolved_reasons(ts: Analysis) -> None:
    u = unresolved(ts)
    assert ("src/main.ts", "`./dyn/${name}`", "unsupported_syntax") in u
    assert ("src/main.ts", "node:fs", "stdlib") in u and ("src/main.ts", "path", "stdlib") in u
    assert ("src/main.ts", "react", "external") in u
    assert ("src/main.ts", "@/nothere", "missing_file") in u  # a specific alias that finds nothing
    assert ("web/app/index.js", "modName", "unsupported_syntax") in u
    assert ts.coverage.by_lang["typescript"]["imports"] == 19 and ts.coverage.by_lang["javascript"]["imports"] == 3


def test_jsonc_keeps_comment_like_strings() -> None:
    text = '{"a": "@/*", // x\n "b": [1, 2,], "c": "//not a comment", /* y */}'
    assert json.loads(strip_jsonc(text)) == {"a": "@/*", "b": [1, 2], "c": "//not a comment"}


def test_parse_every_import_form() -> None:
    pf = parse_file("m.py", b"import a.b as c, d\nfrom ..p.q import (x, y as z)\nfrom m import *\n")
    assert pf is not None
    assert [(r.specifier, r.line, r.names, r.level) for r in pf.imports] == [
        ("a.b", 1, (), 0),
        ("d", 1, (), 0),
        ("..p.q", 2, ("x", "y"), 2),
        ("m", 3, ("*",), 0),
    ]
    ts_file = parse_file("x.ts", b"import x = require('./h');\nconst y = <T>(v);\n")
    assert ts_file is not None and [(r.kind, r.specifier) for r in ts_file.imports] == [("REQUIRES", "./h")]
    assert parse_file("types.d.ts", b"export {}") is None and parse_file("README.md", b"# x") is None
    bad = parse_file("bad.py", b"import ok\ndef broken(:\n    pass\nimport also_ok\n")
    assert bad is not None and bad.errors and [r.specifier for r in bad.imports][:1] == ["ok"]
