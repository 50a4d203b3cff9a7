"""RGuard as a user installs it: the wheel built from this checkout, installed with its declared dependencies into
a fresh venv outside the repository, then seed, guard, rules, the MCP server (SDK client) and the dashboard run
from another directory. Plus the checks that keep pyproject.toml honest."""

from __future__ import annotations

import ast
import asyncio
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from importlib.metadata import packages_distributions, requires
from pathlib import Path
from typing import Any

import pytest
import requests
from mcp import Client, StdioServerParameters

from tests.agents_seed import seed_diff
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def _name(requirement: str) -> str:
    for sep in "<>=!~[ ;":
        requirement = requirement.split(sep, 1)[0]
    return requirement.strip().lower().replace("_", "-")


def _requirements_txt() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        spec = line.split("#", 1)[0].strip()
        if spec:
            out[_name(spec)] = spec.replace(" ", "")
    return out


def test_requirements_txt_is_the_declared_set() -> None:
    """`make setup` installs requirements.txt; a user installs pyproject's dependencies. Same packages, same pins."""
    declared = {_name(r): r.replace(" ", "") for r in PROJECT["dependencies"]}
    for extra in PROJECT["optional-dependencies"].values():
        declared.update({_name(r): r.replace(" ", "") for r in extra if not r.startswith("rguard")})
    pinned = _requirements_txt()
    assert declared == pinned


def _third_party_imports(folder: Path) -> set[str]:
    names: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("rguard_core", "ui", "tests")}


def test_every_module_the_core_imports_is_a_declared_dependency() -> None:
    declared = {_name(r) for r in PROJECT["dependencies"]}
    # what a declared dependency itself requires comes with it (mcp brings pydantic, anyio and uvicorn)
    declared |= {_name(r) for d in list(declared) for r in (requires(d) or []) if "extra ==" not in r}
    ui = {_name(r) for r in PROJECT["optional-dependencies"]["ui"]}
    dists = packages_distributions()
    # the core may import only what a plain `pip install rguard` brings (streamlit only behind `rguard ui`)
    missing = {
        m: dists.get(m)
        for m in _third_party_imports(ROOT / "rguard_core")
        if not {_name(d) for d in dists.get(m, [m])} & declared
    }
    missing.pop("streamlit", None)  # commands/ui.py checks for it by name and says to install rguard[ui]
    assert not missing, f"imported by rguard_core but not in [project] dependencies: {missing}"
    page_missing = {
        m
        for m in _third_party_imports(ROOT / "ui") | _third_party_imports(ROOT / "pages")
        if not {_name(d) for d in dists.get(m, [m])} & (declared | ui)
    }
    assert not page_missing, f"imported by the dashboard but not in the ui extra: {page_missing}"


def _venv_python() -> str:
    found = subprocess.run(
        [str(ROOT / "scripts" / "find_python312.sh")], capture_output=True, text=True, check=True
    ).stdout.strip()
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], Path]]:
    """(the venv's bin folder, the environment to run it in, a working directory outside the checkout)."""
    base = tmp_path_factory.mktemp("wheel")
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # an in-tree build/ from earlier would add stale modules
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(ROOT), "-w", str(base)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = base.glob("rguard-*.whl")
    venv = base / "venv"
    subprocess.run([_venv_python(), "-m", "venv", str(venv)], check=True, timeout=120)
    # the user's command, dependencies resolved from the package index (pip's cache keeps a warm machine fast)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"{wheel}[ui]"],
        check=True,
        capture_output=True,
        timeout=900,
    )
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("RGUARD_", "FALKORDB_", "OPENAI_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(XDG_DATA_HOME=str(base / "xdg"), HOME=str(base / "home"), PATH=f"{venv / 'bin'}:{env.get('PATH', '')}")
    yield venv / "bin", env, elsewhere
    subprocess.run([str(venv / "bin" / "rguard"), "engine", "stop"], env=env, cwd=elsewhere, capture_output=True)


def _run(
    installed: tuple[Path, dict[str, str], Path], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    bin_dir, env, cwd = installed
    return subprocess.run(
        [str(bin_dir / "rguard"), *args], env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_the_wheel_works_outside_the_checkout(installed: tuple[Path, dict[str, str], Path]) -> None:
    bin_dir, env, cwd = installed
    version = _run(installed, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"rguard {PROJECT['version']}"
    seeded = _run(installed, "seed")
    assert seeded.returncode == 0, seeded.stderr
    assert "acme/tollgate: loaded" in seeded.stdout
    # the user data folder, not ./.rguard of wherever the command ran
    assert (Path(env["XDG_DATA_HOME"]) / "rguard" / "appendonlydir").is_dir() and not (cwd / ".rguard").exists()
    guard = _run(installed, "guard", "--repo", "acme/tollgate", "--diff", "-", stdin=seed_diff("hmac-eq"))
    assert guard.returncode == 0 and "WARN" in guard.stdout.upper(), guard.stdout + guard.stderr
    assert _run(installed, "rules", "--check").returncode == 0
    cases = _run(installed, "eval", "guard", "--no-save", "--json")
    assert cases.returncode == 0, cases.stderr  # the shipped eval cases are found

    async def mcp_calls() -> dict[str, Any]:
        params = StdioServerParameters(command=str(bin_dir / "rguard"), args=["mcp"], env=env, cwd=str(cwd))
        async with Client(params) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            res = await client.call_tool("guard_diff", {"repo": "acme/tollgate", "diff": seed_diff("hmac-eq")})
            return {"tools": tools, "verdict": (res.structured_content or {}).get("verdict")}

    got = asyncio.run(mcp_calls())
    assert "guard_diff" in got["tools"] and got["verdict"] == "warn"  # the MCP server sees the CLI's graphs


@pytest.mark.slow
def test_the_installed_dashboard_starts_and_renders(installed: tuple[Path, dict[str, str], Path]) -> None:
    bin_dir, env, cwd = installed
    script = (
        "from streamlit.testing.v1 import AppTest; from rguard_core.resources import dashboard_app;"
        "at = AppTest.from_file(str(dashboard_app()), default_timeout=120).run();"
        "assert not at.exception, [e.value for e in at.exception]; print(at.title[0].value)"
    )
    render = subprocess.run(
        [str(bin_dir / "python"), "-c", script], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert render.returncode == 0, render.stderr[-2000:]
    assert "site-packages" in subprocess.run(
        [str(bin_dir / "python"), "-c", "from rguard_core.resources import dashboard_app; print(dashboard_app())"],
        env=env, cwd=cwd, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [str(bin_dir / "rguard"), "ui", "--port", str(port)],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline, health = time.monotonic() + 90, None
        while time.monotonic() < deadline and health is None:
            try:
                health = requests.get(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
            except requests.ConnectionError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.3)
        assert health is not None and health.text == "ok"
        listening = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout
        assert f"127.0.0.1:{port}" in listening and f"0.0.0.0:{port}" not in listening and f"*:{port}" not in listening
    finally:
        proc.terminate()
        proc.wait(timeout=20)
