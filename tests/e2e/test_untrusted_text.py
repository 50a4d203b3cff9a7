"""Untrusted text stays text in a real browser: a poisoned snapshot (external image markdown and HTML, Streamlit
colour directives, icons, LaTeX, right-to-left override and zero-width characters in a PR's title and body) is
ingested through the Ingest page; then the Corrections, Guard and Decision graph pages show it. Nothing renders
(no image, no colour, no formula), the controls show as visible markers, and the Chromium performance log shows
no request leaving 127.0.0.1 (not even the favicon)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.e2e.test_browser import body_text, go, guard_diff, no_exception, settle, shot, type_into, wait_for

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "tests" / "fixtures" / "snapshot" / "repos" / "acme" / "ledger"
REPO = "evil/ledger"
PIXEL = "http://203.0.113.7/pixel.png"  # TEST-NET-3: never routable, so a leak shows up as an attempted request
POISON = (
    f'![pixel]({PIXEL}) <img src="{PIXEL}"> :red[ALERT] :material/warning: $\\alpha^2$ \u202eevil\u202c zero\u200bwidth'
)
LOCAL = {"127.0.0.1", "localhost"}


def poisoned_snapshot(root: Path) -> Path:
    """The ledger fixture under evil/ledger, with the poison inside the sentence the decision quotes."""
    dest = root / "repos" / "evil" / "ledger"
    shutil.copytree(LEDGER, dest)
    meta = json.loads((dest / "repo.json").read_text())
    meta.update(full_name=REPO, html_url="https://github.com/evil/ledger")
    (dest / "repo.json").write_text(json.dumps(meta))
    pr = json.loads((dest / "pulls" / "10.json").read_text())
    pr["title"] = f"Keep unknown prices as None {POISON}"
    pr["body"] = (
        f"Fixes #1\n\nUnknown cost stays None {POISON} and is never coerced to 0, because 0 means free "
        "and would under-bill."
    )
    (dest / "pulls" / "10.json").write_text(json.dumps(pr))
    return root


def requests_seen(driver: WebDriver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def assert_nothing_rendered(driver: WebDriver, where: str) -> None:
    no_exception(driver, where)
    images = driver.execute_script("return [...document.querySelectorAll('img')].map(i => i.src)")
    assert not [s for s in images if PIXEL in s or "203.0.113.7" in s], (where, images)
    assert not driver.find_elements(By.CSS_SELECTOR, ".katex, .katex-display, math"), f"{where}: LaTeX rendered"
    text = body_text(driver)
    assert "⟦U+202E⟧" in text and "⟦U+200B⟧" in text, f"{where}: the controls are not shown"
    assert "\u202e" not in text, f"{where}: a raw right-to-left override reached the page"
    assert ":red[ALERT]" in text and "$\\alpha^2$" in text, f"{where}: directives did not stay literal"
    red = driver.execute_script(
        "return [...document.querySelectorAll('span,div,p')].filter(e => e.childElementCount === 0 && "
        "e.textContent.trim() === 'ALERT').length"
    )
    assert red == 0, f"{where}: :red[ALERT] rendered as coloured text"


def test_a_poisoned_snapshot_renders_as_text_and_loads_nothing_remote(
    browser: WebDriver, app_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = poisoned_snapshot(tmp_path_factory.mktemp("poison"))
    requests_seen(browser)  # drain what earlier tests left in the log
    browser.get(app_url + "/")  # a fresh load: the favicon and every asset are requested again
    settle(browser)
    go(browser, app_url, "Ingest")
    wait_for(
        lambda: next(
            (
                e
                for e in browser.find_elements(By.CSS_SELECTOR, "label")
                if e.text.strip().startswith("Snapshot folder")
            ),
            None,
        ),
        "the snapshot choice",
    ).click()
    type_into(browser, "Repository (OWNER/NAME), PR URL, or folder path", str(root), submit=False)
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "Ingest").click()
    wait_for(lambda: "Coverage report" in body_text(browser), "the coverage report", timeout=90)
    settle(browser)
    picker = (
        'const b = document.querySelector(\'[data-testid="stSidebar"] [data-testid="stSelectbox"]\');'
        "return b ? b.innerText + ' ' + [...b.querySelectorAll('input')].map(i => i.value).join(' ') : '';"
    )
    wait_for(lambda: REPO in browser.execute_script(picker), "the sidebar picker to follow the fresh ingest")
    assert "repo=evil" in browser.current_url  # and the URL names it, so a reload keeps it

    go(browser, app_url, "Corrections")
    type_into(browser, "Find a claim, decision or source (words or an exact id)", "pr:10")
    wait_for(lambda: "Quarantine this source" in body_text(browser), "the source form")
    assert_nothing_rendered(browser, "corrections")
    shot(browser, "poison-corrections")

    guard_diff(
        browser,
        app_url,
        "diff --git a/ledger/pricing.py b/ledger/pricing.py\n--- a/ledger/pricing.py\n+++ b/ledger/pricing.py\n"
        "@@ -10,3 +10,3 @@ def price_for(sku):\n     row = feed.lookup(sku)\n"
        "-    return row.price if row.price is not None else None\n+    return row.price or 0\n",
        "the pasted diff",
    )
    assert_nothing_rendered(browser, "guard")
    shot(browser, "poison-guard")

    go(browser, app_url, "Decision graph")
    settle(browser, 2.0)
    no_exception(browser, "decision graph")

    seen = requests_seen(browser)
    assert seen, "the performance log recorded no requests at all"
    remote = [
        u for u in seen if urlsplit(u).scheme in ("http", "https", "ws", "wss") and urlsplit(u).hostname not in LOCAL
    ]
    assert not remote, f"requests left 127.0.0.1: {remote[:10]}"
