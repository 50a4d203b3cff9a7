"""Every setting and every CLI command is documented in the README."""

from __future__ import annotations

from pathlib import Path

from rguard_core.cli import build_parser
from rguard_core.config import SETTINGS_DOC

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_readme() -> None:
    missing = [name for name in SETTINGS_DOC if f"`{name}`" not in README]
    assert not missing, f"settings missing from README's configuration table: {missing}"


def _commands() -> list[str]:
    parser = build_parser()
    out = []
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for name, sub in action.choices.items():
            nested = [a for a in sub._actions if a.__class__.__name__ == "_SubParsersAction"]
            if nested:
                out += [f"{name} {child}" for child in nested[0].choices]
            else:
                out.append(name)
    return out


def test_every_cli_command_is_in_the_readme() -> None:
    missing = [c for c in _commands() if f"python -m rguard_core {c}" not in README]
    assert not missing, f"CLI commands missing from README: {missing}"


def test_readme_has_the_two_commands_and_ci_calls_the_test_one() -> None:
    assert "make run" in README and "make test" in README
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "make test" in ci
