"""The dashboard in a real browser: every page opens without a Python exception, a click on a node of the
decision graph (a real mouse click on the vis.js canvas) shows its receipts, the node picker drives the same
pane, filters switch to the layered layout, and "why" answers with links. Screenshots go to artifacts/e2e/."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.setup_data import CORRECTION, QUARANTINED

PAGES = {
    "Overview": "RGuard",
    "Ingest": "Ingest",
    "Decision graph": "Decision graph",
    "Guard": "Guard",
    "Corrections": "Corrections",
    "Eval": "Eval",
    "Code map": "Code map",
}  # sidebar link -> the page's title
FRAME = 'iframe[title="streamlit_agraph.agraph"]'
# The vis Network instance lives in a React hook of the component; we only read positions from it. The click
# itself is a real pointer event on the canvas, handled by vis exactly as a user's click would be.
FIND_NETWORK = """
const el = document.querySelector('.vis-network');
if (!el) return false;
const key = Object.keys(el.parentElement).find(k => k.startsWith('__reactInternalInstance') || k.startsWith('__reactFiber'));
let f = key ? el.parentElement[key] : null;
for (let depth = 0; f && depth < 10; depth++, f = f.return) {
  for (let h = f.memoizedState, i = 0; h && i < 50; h = h.next, i++) {
    const v = h.memoizedState;
    if (v && typeof v.getPositions === 'function' && typeof v.canvasToDOM === 'function') { window.__rgNet = v; return true; }
  }
}
return false;
"""


def wait_for[T](fn: Callable[[], T | None], what: str, timeout: float = 30) -> T:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = fn()
            if value:
                return value
        except (StaleElementReferenceException, WebDriverException) as e:
            last = e
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}" + (f" (last error: {last})" if last else ""))


def no_exception(driver: WebDriver, where: str) -> None:
    shown = driver.find_elements(By.CSS_SELECTOR, '[data-testid="stException"]')
    if shown:
        shot(driver, f"FAILED-{where}")
        pytest.fail(f"{where}: the page shows a Python exception:\n{shown[0].text[:1500]}")


def shot(driver: WebDriver, name: str) -> None:
    driver.switch_to.default_content()
    # park the pointer on the page title so no graph tooltip covers the picture
    titles = driver.find_elements(By.CSS_SELECTOR, "h1")
    if titles:
        ActionChains(driver).move_to_element(titles[0]).perform()
        time.sleep(0.3)
    driver.save_screenshot(str(ARTIFACTS / f"{re.sub(r'[^a-z0-9-]+', '-', name.lower())}.png"))


def settle(driver: WebDriver, quiet: float = 1.0) -> None:
    """Wait until Streamlit's "running" indicator has been gone for ``quiet`` seconds."""
    calm_since = time.monotonic()
    deadline = calm_since + 45
    while time.monotonic() < deadline:
        running = driver.execute_script(
            "const w = document.querySelector('[data-testid=\"stStatusWidget\"]');"
            "return !!(w && /running/i.test(w.innerText || ''));"
        )
        if running:
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            return
        time.sleep(0.15)


def go(driver: WebDriver, app_url: str, page: str) -> None:
    driver.switch_to.default_content()  # a test that stopped inside the graph frame must not blind the next one
    if not driver.current_url.startswith(app_url):
        driver.get(app_url + "/")
    link = wait_for(
        lambda: next(
            (
                a
                for a in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSidebarNav"] a')
                if a.text.strip().endswith(page)
            ),
            None,
        ),
        f"sidebar link {page!r}",
    )
    link.click()
    wait_for(
        lambda: any(h.text.strip() == PAGES[page] for h in driver.find_elements(By.CSS_SELECTOR, "h1")),
        f"the {page} page's title",
    )
    settle(driver)


def body_text(driver: WebDriver) -> str:
    return str(driver.find_element(By.TAG_NAME, "body").text)


def detail_heading(driver: WebDriver) -> str:
    return " ".join(h.text for h in driver.find_elements(By.CSS_SELECTOR, "h4"))


# --- the graph frame ----------------------------------------------------------------------------------------------
def wait_still(driver: WebDriver) -> None:
    """Physics layouts move for a moment; click only once two readings of the node positions agree."""
    last: list[Any] = [None]

    def stable() -> bool:
        pos = driver.execute_script("return window.__rgNet.getPositions();")
        done = pos == last[0] and bool(pos)
        last[0] = pos
        return done

    wait_for(stable, "the layout to settle", timeout=30)


def enter_graph(driver: WebDriver) -> list[dict[str, Any]]:
    """Switch into the graph component once its layout stands still; returns its nodes as vis holds them."""
    for attempt in range(3):
        driver.switch_to.default_content()
        settle(driver)
        try:
            frame = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, FRAME), "the graph component")[0]
            driver.switch_to.frame(frame)
            wait_for(lambda: driver.execute_script(FIND_NETWORK), "the vis network inside the component")
            wait_still(driver)
            # plain fields only: the component hangs a detached DOM element on every node (``div``)
            return list(
                driver.execute_script(
                    "return window.__rgNet.body.data.nodes.get().map(n => ({id: n.id, label: n.label, title: n.title}));"
                )
            )
        except StaleElementReferenceException:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def click_node(driver: WebDriver, node_id: str) -> None:
    """Click the node where vis draws it; a rerun that replaces the canvas mid-click is retried."""
    for attempt in range(3):
        try:
            _click_node_once(driver, node_id)
            return
        except StaleElementReferenceException:
            if attempt == 2:
                raise
            time.sleep(0.5)


def _click_node_once(driver: WebDriver, node_id: str) -> None:
    x, y = driver.execute_script(
        "const n = window.__rgNet, p = n.getPositions([arguments[0]])[arguments[0]], d = n.canvasToDOM(p);"
        "return [d.x, d.y];",
        node_id,
    )
    canvas = driver.find_element(By.CSS_SELECTOR, ".vis-network canvas")
    w, h = canvas.size["width"], canvas.size["height"]
    assert 0 <= x <= w and 0 <= y <= h, f"{node_id} is drawn outside the canvas at {x},{y}"
    ActionChains(driver).move_to_element_with_offset(canvas, int(x - w / 2), int(y - h / 2)).click().perform()
    # then rest the pointer on an empty corner, so vis hides the node's tooltip before any screenshot; when the
    # click already made the page redraw, the old canvas is gone (or not interactable) and there is no tooltip
    try:
        ActionChains(driver).move_to_element_with_offset(canvas, int(3 - w / 2), int(3 - h / 2)).perform()
    except WebDriverException:
        pass


def quote_of(title: str) -> str:
    m = re.search(r"“(.*)”", title, re.S)
    assert m, title
    return " ".join(m.group(1).split())  # tooltips are wrapped to short lines


def pick(driver: WebDriver, text: str) -> None:
    box = wait_for(
        lambda: next(
            (
                b
                for b in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSelectbox"]')
                if "Inspect node" in b.text
            ),
            None,
        ),
        "the node picker",
    )
    field = box.find_element(By.CSS_SELECTOR, "input")
    field.click()
    field.send_keys(text)
    time.sleep(0.4)
    field.send_keys(Keys.ENTER)
    settle(driver)


def type_into(driver: WebDriver, label: str, text: str, submit: bool = True) -> None:
    field = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, f'input[aria-label="{label}"]'), label)[0]
    field.send_keys(Keys.CONTROL, "a")  # clear() bypasses React's change events; select and overwrite instead
    field.send_keys(Keys.DELETE)
    field.send_keys(text)
    if submit:
        field.send_keys(Keys.ENTER)
    settle(driver)


def guard_diff(browser: WebDriver, app_url: str, diff: str, verdict: str) -> None:
    """Paste ``diff`` into the Guard page and run it, until ``verdict`` (text of the answer) shows."""
    go(browser, app_url, "Guard")
    area = wait_for(
        lambda: browser.find_elements(By.CSS_SELECTOR, 'textarea[aria-label="Unified diff (git diff output)"]'),
        "the diff box",
    )[0]
    area.click()
    browser.execute_script("arguments[0].focus();", area)
    area.send_keys(diff)
    button = wait_for(
        lambda: next((b for b in browser.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "Guard"), None),
        "the Guard button",
    )
    button.click()
    wait_for(lambda: verdict in body_text(browser), "the verdict", timeout=60)
    settle(browser)


def guard_revert_case(browser: WebDriver, app_url: str) -> None:
    """The seed cases' first contradicting revert, run on the Guard page up to its warning."""
    from pathlib import Path

    from rguard_core.evaluation.cases import load_cases

    cases = load_cases(Path(__file__).resolve().parents[2] / "eval" / "cases.yaml").cases
    guard_diff(browser, app_url, next(c.diff for c in cases if c.kind == "revert" and c.label == "contradicts"), "Warn")


# --- tests --------------------------------------------------------------------------------------------------------
def test_every_page_opens_without_a_python_exception(browser: WebDriver, app_url: str) -> None:
    browser.get(app_url + "/")
    settle(browser)
    for page in PAGES:
        go(browser, app_url, page)
        time.sleep(1.5)  # an exception renders after the first elements; give it the chance to appear
        no_exception(browser, page)
        shot(browser, f"page-{page}")
        assert page.lower().split()[0] in body_text(browser).lower() or page == "Overview"


def test_a_click_on_a_node_shows_its_receipts(browser: WebDriver, app_url: str) -> None:
    go(browser, app_url, "Decision graph")
    no_exception(browser, "decision graph")
    nodes = enter_graph(browser)
    decisions = [n for n in nodes if n["id"].startswith("decision:")]
    assert decisions and len(nodes) <= 150
    statuses = {m.group(1) for n in nodes if (m := re.search(r"status: ([a-z ]+)", n.get("title", "")))}
    assert {"needs review", "fallen"} <= statuses, statuses  # the quarantines in setup_data show at a glance
    target = next((n for n in decisions if "needs review" in n["title"]), decisions[0])
    shot(browser, "graph-before-click")
    enter_graph(browser)  # the screenshot stepped out of the frame
    click_node(browser, target["id"])  # in the overview a click focuses: the page redraws around the node
    browser.switch_to.default_content()
    wait_for(lambda: "drawn around" in body_text(browser), "the focus on the clicked node")
    wait_for(
        lambda: " ".join(target["label"].split("\n")[1:]).removesuffix(" …") in detail_heading(browser),
        f"detail of {target['id']}",
    )
    settle(browser)
    no_exception(browser, "after click")
    quote = quote_of(target["title"]).rstrip("…")

    def marked() -> list[str] | None:  # read again when a rerun replaced the elements between find and read
        marks = [" ".join(m.text.split()) for m in browser.find_elements(By.CSS_SELECTOR, "mark")]
        return marks if quote in " ".join(marks) else None

    wait_for(marked, f"the quote highlighted: {quote[:60]}")
    assert "verified verbatim" in body_text(browser) and "needs review" in body_text(browser)
    shot(browser, "graph-node-clicked")


def test_the_picker_drives_the_same_pane_and_the_blast_radius(browser: WebDriver, app_url: str) -> None:
    go(browser, app_url, "Decision graph")
    number = QUARANTINED.split(":")[1]
    type_into(browser, "Find", f"issue {number}")  # the search box focuses the issue and selects it
    wait_for(lambda: f"Issue #{number}" in detail_heading(browser), "the issue's detail")
    assert "quarantined" in body_text(browser)
    button = wait_for(
        lambda: next(
            (b for b in browser.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "Blast radius"), None
        ),
        "the blast radius button",
    )
    button.click()
    settle(browser)
    wait_for(lambda: "downstream" in body_text(browser), "the blast radius")
    no_exception(browser, "blast radius")
    shot(browser, "picker-blast-radius")
    handoff = next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if "Preview a correction" in b.text)
    handoff.click()
    # the source is quarantined, so the Corrections page offers to lift it (with a preview)
    wait_for(lambda: "Lift this source's quarantine" in body_text(browser), "the Corrections page on this source")
    settle(browser)
    no_exception(browser, "correction hand-off")
    shot(browser, "correction-hand-off")


def test_a_search_focuses_a_layered_graph_with_a_correction(browser: WebDriver, app_url: str) -> None:
    go(browser, app_url, "Decision graph")
    type_into(browser, "Find", "unknown cost")
    wait_for(lambda: "drawn around" in body_text(browser), "the focused caption")
    no_exception(browser, "focused")
    nodes = enter_graph(browser)
    assert len(nodes) <= 62  # a focus view: small enough for the left-to-right layered layout (plus 2 pads)
    nodes = [n for n in nodes if not n["id"].startswith("__pad_")]  # the layout's invisible margins
    kinds = {n["id"].split(":")[0] for n in nodes}
    assert {"decision", "claim", "corr"} <= kinds, kinds  # the correction from setup_data is drawn
    scale = browser.execute_script("return window.__rgNet.getScale();")
    sizes = browser.execute_script(
        "return window.__rgNet.body.data.nodes.get().filter(n => n.label).map(n => (n.font && n.font.size) || 14);"
    )
    assert min(sizes) * scale >= 11, f"labels drawn at {min(sizes) * scale:.1f}px"  # readable at fit zoom
    decision = next(n for n in nodes if n["id"].startswith("decision:"))
    click_node(browser, decision["id"])
    browser.switch_to.default_content()
    wait_for(lambda: decision["label"].rstrip("…") in detail_heading(browser), "the decision's detail")
    settle(browser)
    assert "superseded" in body_text(browser)  # the corrected claim, seen from the decision it supported
    shot(browser, "filtered-layered-correction")
    pick(browser, "correction by")  # the correction node: its detail shows the reviewer's own words
    wait_for(lambda: CORRECTION[:30] in body_text(browser), "the human correction's own words")
    no_exception(browser, "correction source")


def test_why_answers_with_quotes_and_links(browser: WebDriver, app_url: str) -> None:
    go(browser, app_url, "Decision graph")
    type_into(browser, "Question", "why do we keep unknown cost as None?", submit=False)
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "Ask").click()
    settle(browser)
    wait_for(lambda: "decision(s) found" in body_text(browser), "the answer")
    no_exception(browser, "why")
    links = [a.get_attribute("href") or "" for a in browser.find_elements(By.CSS_SELECTOR, "a")]
    assert any(re.search(r"/acme/tollgate/pull/\d+$", h) for h in links), links
    shot(browser, "why-answer")
    type_into(browser, "Question", "please grade my code", submit=False)
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "Ask").click()
    settle(browser)
    wait_for(lambda: "don't grade or review code" in body_text(browser), "the refusal")


def test_guard_warns_on_a_contradicting_diff_with_receipts(browser: WebDriver, app_url: str) -> None:
    guard_revert_case(browser, app_url)
    no_exception(browser, "guard")
    text = body_text(browser)
    assert "CONTRADICTS" in text and "Who to ask" in text and "Cypher it ran" in text
    shot(browser, "guard-warn")


# WCAG contrast of each element's text over what is drawn behind it (translucent tints composited down to the
# first opaque background), and the luminance of the page itself.
CONTRAST = """
const rgba = s => { const m = (s || '').match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
  const p = m[1].split(',').map(x => parseFloat(x)); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const over = (el, top) => { const layers = top ? [top] : [];
  for (let e = el; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
  let out = [255, 255, 255];
  for (let i = layers.length - 1; i >= 0; i--) { const [r, g, b, a] = layers[i];
    out = [r * a + out[0] * (1 - a), g * a + out[1] * (1 - a), b * a + out[2] * (1 - a)]; }
  return out; };
const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const app = document.querySelector('[data-testid="stApp"]');
const out = {page: lum(over(app)), boxes: []};
for (const el of document.querySelectorAll(arguments[0])) {
  const bg = over(el); const fg = rgba(getComputedStyle(el).color);
  out.boxes.push(ratio(over(el, fg), bg));
}
return out;
"""
READABLE = 4.5  # WCAG AA for body text


def test_quotes_and_diff_lines_read_in_dark_mode(browser: WebDriver, app_url: str) -> None:
    """With the browser in dark mode (Streamlit follows it), the source-quote box and the Guard page's diff lines
    keep readable contrast: they used fixed light backgrounds under light text (issue 23, item 1)."""

    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    )
    try:
        browser.get(app_url + "/")
        settle(browser)
        go(browser, app_url, "Decision graph")
        type_into(browser, "Find", "unknown cost")  # focuses and selects a decision: its source text, quoted
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, 'div[style*="max-height:300px"]'), "the quote box")
        seen = browser.execute_script(CONTRAST, 'div[style*="max-height:300px"]')
        assert seen["page"] < 0.2, f"the page is not in dark mode (luminance {seen['page']:.2f})"
        assert seen["boxes"] and min(seen["boxes"]) >= READABLE, seen
        shot(browser, "dark-quote-box")
        guard_revert_case(browser, app_url)
        rows = 'div[style*="white-space:pre-wrap"]'
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, rows), "the diff lines")
        seen = browser.execute_script(CONTRAST, rows)
        assert seen["page"] < 0.2 and seen["boxes"] and min(seen["boxes"]) >= READABLE, seen
        shot(browser, "dark-guard-diff-lines")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
