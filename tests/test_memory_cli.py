"""The CLI contract: ``python -m rguard_core memory ...`` with the JSON shapes an independent checker parses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Store

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "seeds" / "memory" / "forged_invoice.json"


@pytest.fixture
def ws(store: Store) -> Iterator[str]:
    name = f"cli-{uuid.uuid4().hex[:8]}"
    yield name
    store.workspace_graph(name).delete()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    data = json.loads(out) if "--json" in argv and code == 0 else out
    return code, data, err


def test_load_quarantine_status_retrieve(capsys: pytest.CaptureFixture[str], ws: str) -> None:
    code, out, _ = run(capsys, "memory", "load", str(SEED), "--workspace", ws)
    assert code == 0 and f"loaded workspace {ws}" in out
    code, st, _ = run(capsys, "memory", "status", "--workspace", ws, "--json")
    assert set(st) == {"claims", "decisions", "actions"}
    assert st["claims"]["inv1002-settled"] == {"holds": True, "sources": 2}
    assert st["decisions"]["close-march-billing"] == {"holds": True, "label": None}
    assert st["actions"]["ship-1001"] == {"status": "active"}
    code, q, _ = run(
        capsys, "memory", "quarantine", "portal-page", "--workspace", ws, "--reason", "forged", "--by", "al", "--json"
    )
    assert code == 0 and q["incident"].startswith("inc:") and q["source"] == "portal-page"
    assert q["fell"] == {
        "claims": ["inv1001-paid-portal", "inv1001-settled", "inv1002-paid-portal"],
        "decisions": ["release-1001-goods"],
    }
    assert q["labelled"] == {"close-march-billing": "review", "release-1001-goods": "compensation"}
    assert q["compensate"] == ["ship-1001"] and q["held"] == []
    code, st, _ = run(capsys, "memory", "status", "--workspace", ws, "--json")
    assert st["decisions"]["close-march-billing"] == {"holds": True, "label": "review"}
    assert st["actions"]["ship-1001"] == {"status": "compensate"}
    code, r, _ = run(capsys, "memory", "retrieve", "INV-1001 paid", "--workspace", ws, "--json")
    assert code == 0 and "status PAID" not in json.dumps(r) and r["withheld"] >= 1
    assert all(h["id"] not in q["fell"]["claims"] for h in r["results"])


def test_correct_preview_apply_again_and_stale(capsys: pytest.CaptureFixture[str], ws: str) -> None:
    assert run(capsys, "memory", "load", str(SEED), "--workspace", ws, "--json")[0] == 0
    text = "The bank received EUR 4,100 for INV-1002."
    code, p, _ = run(
        capsys,
        "memory",
        "correct",
        "inv1002-paid-bank",
        "--text",
        text,
        "--by",
        "bo",
        "--workspace",
        ws,
        "--preview",
        "--json",
    )
    assert code == 0 and p["revision"] == 0
    assert p["claims_fall"] == ["inv1002-paid-bank"] and p["decisions_keep_support"] == ["close-march-billing"]
    assert p["decisions_lose_support"] == [] and p["actions_held"] == []
    code, st, _ = run(capsys, "memory", "status", "--workspace", ws, "--json")
    assert st["claims"]["inv1002-paid-bank"]["holds"] is True  # a preview writes nothing
    code, a, _ = run(
        capsys,
        "memory",
        "correct",
        "inv1002-paid-bank",
        "--text",
        text,
        "--by",
        "bo",
        "--workspace",
        ws,
        "--revision",
        "0",
        "--json",
    )
    assert code == 0 and a["status"] == "applied" and a["replacement"].startswith("claim:src:hc:")
    code, again, _ = run(
        capsys, "memory", "correct", "inv1002-paid-bank", "--text", text, "--by", "bo", "--workspace", ws, "--json"
    )
    assert again["status"] == "already_applied" and again["replacement"] == a["replacement"]
    code, _, err = run(
        capsys,
        "memory",
        "correct",
        "inv1001-amount",
        "--text",
        "x",
        "--by",
        "bo",
        "--workspace",
        ws,
        "--revision",
        "7",
        "--json",
    )
    assert code == 2 and "preview again" in err


def test_errors_are_clear_and_exit_2(capsys: pytest.CaptureFixture[str], ws: str, tmp_path: Path) -> None:
    bad = json.loads(SEED.read_text())
    bad["claims"][0]["quote"] = "Invoice INV-1001: status PAID on 2026-03-03."
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, _, err = run(capsys, "memory", "load", str(path), "--workspace", ws)
    assert code == 2 and "inv1001-paid-portal" in err and "verbatim" in err
    code, _, err = run(capsys, "memory", "status", "--workspace", ws, "--json")
    assert code == 2 and "no memory workspace" in err
    code, _, err = run(capsys, "memory", "status", "--repo", "nobody/nothing", "--json")
    assert code == 2 and "nobody/nothing" in err
    assert run(capsys, "memory", "load", str(SEED), "--workspace", ws)[0] == 0
    code, _, err = run(capsys, "memory", "quarantine", "no-such-source", "--workspace", ws, "--json")
    assert code == 2 and "no-such-source" in err


def test_real_process_speaks_the_contract(store: Store, ws: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = [sys.executable, "-m", "rguard_core", "memory"]
    load = subprocess.run(
        [*base, "load", str(SEED), "--workspace", ws, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert load.returncode == 0, load.stderr
    assert json.loads(load.stdout)["counts"]["claims"] == 6
    st = subprocess.run(
        [*base, "status", "--workspace", ws, "--json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert st.returncode == 0 and json.loads(st.stdout)["decisions"]["release-1001-goods"] == {
        "holds": True,
        "label": None,
    }
