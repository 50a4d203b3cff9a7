"""Where the files RGuard ships beside its code live: the demo seed, the eval cases and the dashboard.

In a checkout they are the repository's own ``seeds/``, ``eval/``, ``app.py`` with ``pages/`` and ``ui/``. A
wheel cannot hold files outside its packages, so ``setup.py`` copies them into ``rguard_core/bundled/`` when it
builds one; an installed RGuard reads them from there. The checkout wins when both exist (an editable install
then sees edits at once).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # the repository root, when this is a checkout
BUNDLED = PACKAGE / "bundled"
SHIPPED = ("seeds", "eval", "app.py", "pages", "ui")  # what setup.py copies into BUNDLED / "dashboard" and beside it


def _home(checkout: Path, bundled: Path) -> Path:
    return checkout if checkout.exists() else bundled


def seeds_dir() -> Path:
    return _home(CHECKOUT / "seeds", BUNDLED / "seeds")


def eval_dir() -> Path:
    return _home(CHECKOUT / "eval", BUNDLED / "eval")


def dashboard_app() -> Path:
    """The dashboard's ``app.py``; ``pages/`` and ``ui/`` sit beside it (Streamlit puts its folder on sys.path)."""
    return _home(CHECKOUT / "app.py", BUNDLED / "dashboard" / "app.py")
