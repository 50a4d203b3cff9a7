"""Builds the wheel with what a user needs beyond the code: the demo seed, the eval cases and the dashboard
(``app.py``, ``pages/``, ``ui/``) are copied into ``rguard_core/bundled/`` (rguard_core/resources.py finds them
there). Everything else about the package is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache")
PLACES = {
    "seeds": "seeds",
    "eval": "eval",
    "app.py": "dashboard/app.py",
    "pages": "dashboard/pages",
    "ui": "dashboard/ui",
}


class BuildWithBundle(build_py):
    def run(self) -> None:
        super().run()
        bundled = Path(self.build_lib) / "rguard_core" / "bundled"
        shutil.rmtree(bundled, ignore_errors=True)  # an in-tree build/ keeps files a later checkout deleted
        for source, target in PLACES.items():
            src, dst = ROOT / source, bundled / target
            if not src.exists():
                raise SystemExit(f"setup.py: {src} is missing; build the wheel from a full checkout")
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, dst, ignore=SKIP, dirs_exist_ok=True)
            else:
                shutil.copy2(src, dst)
        (bundled / "__init__.py").write_text('"""Files shipped beside the code (see rguard_core/resources.py)."""\n')


setup(cmdclass={"build_py": BuildWithBundle})
