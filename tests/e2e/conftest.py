"""Browser test fixtures: the real app on a throwaway data dir with the demo seed, and a headless Chromium.

These tests run only with RGUARD_E2E=1 (``make e2e`` sets it, and installs Chromium when it is missing);
under ``make test`` they are skipped with that reason.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM = Path(os.environ.get("RGUARD_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("RGUARD_CHROMEDRIVER", "/usr/bin/chromedriver"))
START_TIMEOUT_S = 60


def require_e2e() -> None:
    if os.environ.get("RGUARD_E2E") != "1":
        pytest.skip("browser tests run with `make e2e` (RGUARD_E2E=1)")
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(
            f"browser test needs {', '.join(missing)}: apt-get install -y chromium chromium-driver "
            "(`make e2e` does this)"
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _app_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "FALKORDB_URL"))}
    env.update(RGUARD_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    return env


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard, started with `streamlit run app.py` on a free port over the demo seed."""
    require_e2e()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    data = tmp_path_factory.mktemp("e2e-data")
    env = _app_env(data)
    subprocess.run([sys.executable, "-m", "tests.e2e.setup_data"], cwd=ROOT, env=env, check=True, timeout=180)
    port = _free_port()
    log = (ARTIFACTS / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        _stop(proc)
        log.close()


def _wait_healthy(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}; see {ARTIFACTS / 'streamlit.log'}")
        try:
            if requests.get(f"{url}/_stcore/health", timeout=1).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    pytest.fail(f"streamlit did not answer within {START_TIMEOUT_S}s; see {ARTIFACTS / 'streamlit.log'}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    # SIGTERM lets streamlit exit normally, so the embedded engine it started is shut down (and saved) too
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Headless Debian Chromium, no network chatter, fresh profile."""
    require_e2e()
    import tempfile

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    profile = tempfile.mkdtemp(prefix="rguard-e2e-profile-")
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--window-size=1600,1500",
        f"--user-data-dir={profile}",
    ):
        opts.add_argument(arg)
    opts.set_capability(
        "goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"}
    )  # requests (no-remote check) and console errors (graph tests)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
