"""Every setting and every CLI command is documented in the README."""

from __future__ import annotations

from pathlib import Path

from rguard_core.commands.main import build_parser
from rguard_core.config import SETTINGS, SETTINGS_DOC, Settings, settings_table

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_readme() -> None:
    missing = [name for name in SETTINGS_DOC if f"`{name}`" not in README]
    assert not missing, f"settings missing from README's configuration table: {missing}"


def test_the_readme_configuration_table_is_the_one_settings_writes() -> None:
    """The table under "## Configuration" is exactly ``settings_table()``: defaults and wording live in config.py."""
    section = README.split("## Configuration", 1)[1]
    start = section.index("| variable |")
    shown = section[start : section.index("\n\n", start) + 1]
    assert shown == settings_table(), (
        "README's configuration table differs from rguard_core/config.py; replace it with the output of\n"
        "python -c 'from rguard_core.config import settings_table; print(settings_table(), end=\"\")'\n\n"
        + settings_table()
    )


def test_settings_defaults_are_the_dataclass_defaults_and_what_an_empty_environment_gives() -> None:
    assert Settings.from_env({}) == Settings()
    assert len({s.env for s in SETTINGS}) == len(SETTINGS)
    unset = {s.env: "" for s in SETTINGS}
    assert Settings.from_env(unset) == Settings()  # an empty variable counts as unset


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


def test_every_markdown_code_fence_is_closed() -> None:
    # An unclosed ``` turns the rest of a page into one code block (README's architecture diagram once did).
    skip = {".venv", ".git", "seeds", "artifacts", "node_modules"}
    docs = [p for p in ROOT.rglob("*.md") if not skip & set(p.relative_to(ROOT).parts[:2]) and ".rguard" not in str(p)]
    for doc in docs:
        fences = [
            n
            for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
            if line.lstrip().startswith("```")
        ]
        assert len(fences) % 2 == 0, f"{doc.relative_to(ROOT)}: unclosed code fence (fence lines {fences})"


def test_every_mcp_client_config_in_the_docs_starts_the_server(tmp_path: Path) -> None:
    """Each JSON config in docs/integrations.md, run as the client would (its command and args) with the SDK
    client: the server starts and lists its tools. `rguard` is this venv's console script."""
    import asyncio
    import json
    import os
    import re
    import shutil
    import sys

    from mcp import Client, StdioServerParameters

    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    configs = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    assert len(configs) == 3
    rguard = shutil.which("rguard", path=str(Path(sys.executable).parent))
    assert rguard, "the rguard console script is missing from this venv (make setup installs it)"
    env = {k: v for k, v in os.environ.items() if k != "FALKORDB_URL"}
    env["RGUARD_DATA_DIR"] = str(tmp_path)  # listing tools opens no graph; keep any engine out of the user folder

    async def tools(entry: dict[str, object]) -> set[str]:
        assert entry["command"] == "rguard"
        args = [str(a) for a in entry["args"]]  # type: ignore[attr-defined]
        extra = {str(k): str(v) for k, v in dict(entry.get("env") or {}).items()}  # type: ignore[call-overload]
        params = StdioServerParameters(command=rguard, args=args, env={**env, **extra})
        async with Client(params) as c:
            return {t.name for t in (await c.list_tools()).tools}

    for config in configs:
        (entry,) = (config.get("mcpServers") or config.get("servers")).values()
        assert "guard_diff" in asyncio.run(tools(entry))
