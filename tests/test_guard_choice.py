"""Decision-worthiness end to end, on a real git history in the real embedded FalkorDB: what ingest stores on each
Decision (``stated``, ``stated_rule``, ``explained``; ingest/choice.py) and what the guard then says (S7, S8).

A terse commit ("Truckin' on") that changes a value is a record of a change: an edit of its lines is no undo,
an exact revert of it still warns. A decision with a body and a reason is guarded as before."""

from __future__ import annotations

from pathlib import Path

from rguard_core.db import Store
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import parse_diff
from rguard_core.ingest.pipeline import ingest_git
from tests.test_ingest_git import GitRepo

NET = "def fetch(url, client):\n    return client.get(url, timeout=30, retries=2)\n"
TERSE = NET.replace("timeout=30, retries=2", "timeout=5, retries=4")
PRICE = "def unit_price(row):\n    return row.get('price') or 0\n"
REASONED = PRICE.replace("row.get('price') or 0", "row.get('price')")


def _diff(path: str, old: str, new: str) -> str:
    import difflib

    body = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}", n=3))
    return f"diff --git a/{path} b/{path}\n{body}"


def _history(tmp_path: Path) -> tuple[GitRepo, dict[str, str]]:
    gr = GitRepo(tmp_path / "hist")
    shas = {"init": gr.commit("Initial layout", {"app/net.py": NET, "app/prices.py": PRICE})}
    shas["terse"] = gr.commit("Truckin' on", {"app/net.py": TERSE})
    shas["reasoned"] = gr.commit(
        "Keep unknown prices as None\n\nAn unknown price is not a free item: callers must be able to tell a "
        "missing price from zero, so we no longer coerce it to 0.",
        {"app/prices.py": REASONED},
    )
    shas["tidy"] = gr.commit("refactor: tidy the client module", {"app/net.py": TERSE + "\n\nUSER_AGENT = 'x'\n"})
    return gr, shas


def _decision(store: Store, repo: str, sha: str) -> dict[str, object]:
    rows = store.repo_graph(repo).read(
        "MATCH (d:Decision {id: $id}) RETURN d.stated AS stated, d.stated_rule AS rule, d.explained AS explained",
        {"id": f"decision:commit:{sha}"},
    )
    assert rows, f"no decision for {sha}"
    return rows[0]


def test_ingest_marks_what_each_commit_states(store: Store, repo_name: str, tmp_path: Path) -> None:
    gr, shas = _history(tmp_path)
    ingest_git(store, gr.root, repo_name)
    assert _decision(store, repo_name, shas["terse"]) == {"stated": False, "rule": "Q3", "explained": False}
    assert _decision(store, repo_name, shas["tidy"]) == {"stated": False, "rule": "Q2", "explained": False}
    assert _decision(store, repo_name, shas["reasoned"]) == {"stated": True, "rule": None, "explained": True}


def test_a_terse_commit_warns_only_when_reverted(store: Store, repo_name: str, tmp_path: Path) -> None:
    gr, shas = _history(tmp_path)
    now = TERSE + "\n\nUSER_AGENT = 'x'\n"
    ingest_git(store, gr.root, repo_name)
    # an edit of the terse commit's line (a value set again, as refactors and retunes do): at most related, S7
    edit = run_guard(store, repo_name, _diff("app/net.py", now, now.replace("timeout=5, retries=4", "timeout=8")))
    assert edit.verdict != "warn", [f.as_dict() for f in edit.findings]
    terse = [f for f in edit.findings if f.decision_id == f"decision:commit:{shas['terse']}"]
    assert not terse or any(r["id"] == "S7" for r in terse[0].as_dict()["rules"]), terse
    # the exact revert of the same commit: a revert is its own evidence
    back = run_guard(store, repo_name, _diff("app/net.py", now, now.replace(TERSE, NET)))
    assert back.verdict == "warn"
    assert back.findings[0].decision_id == f"decision:commit:{shas['terse']}"
    assert "REV1" in [r["id"] for r in back.findings[0].as_dict()["rules"]]


def test_a_reasoned_decision_is_guarded_as_before(store: Store, repo_name: str, tmp_path: Path) -> None:
    gr, shas = _history(tmp_path)
    ingest_git(store, gr.root, repo_name)
    undo = _diff("app/prices.py", REASONED, REASONED.replace("row.get('price')", "row.get('price', 0) or 0"))
    parse_diff(undo)  # a real diff
    report = run_guard(store, repo_name, undo)
    assert report.verdict == "warn", [f.as_dict() for f in report.findings]
    assert report.findings[0].decision_id == f"decision:commit:{shas['reasoned']}"
