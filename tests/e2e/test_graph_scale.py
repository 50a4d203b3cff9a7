"""The decision graph at 1600×1000 on real and big repositories: starlette (all 39 decisions drawn, grouped by
directory) and a generated 5,000-decision repository (directories only, the list holds the decisions). On both,
every drawn label is at least 11 px on screen, a search focuses the node it names, and the browser console shows
no vis "groups" errors. Screenshots: artifacts/e2e/scale-*.png."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.setup_data import BIG, REALDATA, STARLETTE
from tests.e2e.test_browser import FRAME, body_text, enter_graph, go, no_exception, settle, type_into, wait_for

MIN_LABEL_PX = 11
# each drawn label's on-screen size: vis font size (canvas units) × the view's zoom
LABEL_PX = """
const net = window.__rgNet, scale = net.getScale();
return net.body.data.nodes.get().filter(n => n.label && !String(n.id).startsWith('__pad_'))
  .map(n => ({id: n.id, px: ((n.font && n.font.size) || 14) * scale}));
"""


@pytest.fixture
def screen(browser: WebDriver) -> Iterator[WebDriver]:
    size = browser.get_window_size()
    browser.set_window_size(1600, 1000)
    try:
        yield browser
    finally:
        browser.set_window_size(size["width"], size["height"])


def choose_repo(driver: WebDriver, repo: str) -> None:
    box = wait_for(
        lambda: next(
            (b for b in driver.find_elements(By.CSS_SELECTOR, '[data-testid="stSelectbox"]') if "Repository" in b.text),
            None,
        ),
        "the repository picker",
    )
    field = box.find_element(By.CSS_SELECTOR, "input")
    field.click()
    field.send_keys(repo)
    time.sleep(0.4)
    field.send_keys(Keys.ENTER)
    settle(driver)


def picture(driver: WebDriver, name: str) -> None:
    """A screenshot with the graph in view (shot() scrolls to the title) and no tooltip over it."""
    driver.switch_to.default_content()
    frame = driver.find_elements(By.CSS_SELECTOR, FRAME)
    if frame:
        driver.execute_script("arguments[0].scrollIntoView({block: 'end'}); window.scrollBy(0, 120);", frame[0])
        ActionChains(driver).move_to_element_with_offset(frame[0], 0, -frame[0].size["height"] // 2 - 40).perform()
        time.sleep(0.5)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def readable(driver: WebDriver) -> list[dict[str, object]]:
    labels = list(driver.execute_script(LABEL_PX))
    assert labels, "no labelled node on the canvas"
    small = [x for x in labels if float(x["px"]) < MIN_LABEL_PX]  # type: ignore[arg-type]
    if small:
        picture(driver, "FAILED-small-labels")
    assert not small, f"{len(small)} of {len(labels)} labels under {MIN_LABEL_PX}px, e.g. {small[:3]}"
    return labels


# each drawn node's box and each vis corner button, in the frame's CSS pixels
BOXES = """
const net = window.__rgNet, out = {};
for (const id of net.body.data.nodes.getIds()) {
  if (String(id).startsWith('__pad_')) continue;
  const b = net.getBoundingBox(id), a = net.canvasToDOM({x: b.left, y: b.top}), z = net.canvasToDOM({x: b.right, y: b.bottom});
  out[id] = [a.x, a.y, z.x, z.y];
}
const buttons = [...document.querySelectorAll('.vis-button')].map(e => e.getBoundingClientRect())
  .filter(r => r.width > 0).map(r => [r.left, r.top, r.right, r.bottom]);
return {nodes: out, buttons: buttons};
"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def tellable_apart(driver: WebDriver, nodes: list[dict[str, object]]) -> None:
    """The overview's decision boxes: each label unique, naming its source, and its status in words when it is not
    ``holds`` (not by colour alone); the summary cut only where it runs past two lines; no box under another box or
    under a canvas button."""
    decisions = [n for n in nodes if str(n["id"]).startswith("decision:")]
    labels = [str(n["label"]) for n in decisions]
    assert len(set(labels)) == len(labels), sorted(x for x in labels if labels.count(x) > 1)[:4]
    for n in decisions:
        head, *summary = str(n["label"]).split("\n")
        status = re.search(r"status: ([a-z ]+)", str(n["title"]))
        assert status, n
        assert head.endswith(f" · {status.group(1)}") if status.group(1) != "holds" else " · " not in head, head
        said = " ".join(summary).replace("&", "＆").replace("<", "‹").replace(">", "›")  # as the tooltip escapes it
        full = " ".join(str(n["title"]).split("\nstatus:")[0].removeprefix("Decision: ").split())
        squeezed, whole = said.removesuffix(" …").replace(" ", ""), full.replace(" ", "")  # a long word may break
        assert squeezed == whole or (said.endswith(" …") and whole.startswith(squeezed)), (said, full)
        assert re.search(r"(PR|Issue) #\d+|Commit [0-9a-f]{7}|\.md", head), head
    got = driver.execute_script(BOXES)
    boxes = got["nodes"]
    ids = sorted(boxes)
    crowded = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :] if _overlap(boxes[a], boxes[b])]
    covered = [i for i in ids for button in got["buttons"] if _overlap(boxes[i], button)]
    if crowded or covered:
        picture(driver, "FAILED-overview-overlap")
    assert not crowded, crowded[:3]
    assert not covered, covered[:3]


def no_groups_errors(driver: WebDriver) -> None:
    try:
        logs = driver.get_log("browser")
    except Exception:  # noqa: BLE001 — a driver without console logs has nothing to check
        return
    bad = [entry["message"] for entry in logs if "groups" in entry.get("message", "")]
    assert not bad, bad[:3]


def open_repo(driver: WebDriver, app_url: str, repo: str) -> None:
    go(driver, app_url, "Decision graph")
    choose_repo(driver, repo)
    try:
        wait_for(lambda: "drawn by directory" in body_text(driver), f"the overview of {repo}", timeout=60)
    except AssertionError:
        picture(driver, f"FAILED-overview-{repo.replace('/', '-')}")
        raise
    no_exception(driver, f"overview {repo}")


def focus_by_search(driver: WebDriver, text: str, node_id: str) -> None:
    type_into(driver, "Find", text)
    wait_for(lambda: "drawn around" in body_text(driver), f"the focus on {text}")
    no_exception(driver, f"search {text}")
    nodes = enter_graph(driver)
    assert node_id in {n["id"] for n in nodes}, f"{node_id} not drawn after searching {text!r}"
    size = driver.execute_script("const n = window.__rgNet.body.nodes[arguments[0]]; return n.options.size;", node_id)
    others = driver.execute_script(
        "return window.__rgNet.body.data.nodes.get().filter(n => n.id.startsWith("
        "'decision:') && n.id !== arguments[0]).map(n => n.size);",
        node_id,
    )
    assert not others or size > max(others), "the focused decision is drawn larger than its neighbours"
    readable(driver)


def test_starlette_all_decisions_readable_and_search_focuses(screen: WebDriver, app_url: str) -> None:
    if not REALDATA.is_dir():
        pytest.skip(f"../shared/realdata not present at {REALDATA}")
    open_repo(screen, app_url, STARLETTE)
    # every decision of the snapshot is drawn (38 since version bumps and their reverts are sources, not decisions)
    m = re.search(r"(\d+) of (\d+) decision\(s\) drawn by directory", body_text(screen))
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 35, m and m.group(0)
    nodes = enter_graph(screen)
    assert len([n for n in nodes if n["id"].startswith("decision:")]) == int(m.group(2))
    readable(screen)
    tellable_apart(screen, nodes)
    picture(screen, "scale-starlette-overview")
    screen.switch_to.default_content()
    focus_by_search(screen, "#1387", "decision:pr:1387")
    no_groups_errors(screen)
    picture(screen, "scale-starlette-focus-1387")


def test_five_thousand_decisions_readable_and_search_focuses(screen: WebDriver, app_url: str) -> None:
    open_repo(screen, app_url, BIG)
    text = body_text(screen)
    assert "decisions in" in text and "0 of" in text  # directories only: 5,000 diamonds would be confetti
    nodes = enter_graph(screen)
    assert 0 < len(nodes) <= 60 and all(n["id"].startswith("dir:") for n in nodes)
    readable(screen)
    picture(screen, "scale-5000-overview")
    screen.switch_to.default_content()
    focus_by_search(screen, "pr:4000", "decision:pr:4000")
    no_groups_errors(screen)
    picture(screen, "scale-5000-focus")
