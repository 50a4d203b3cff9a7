"""``who-knows`` and ``premises``: the guard's expert ranking and premise rules, asked directly (CLI)."""

from __future__ import annotations

import json

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.guard import run_guard
from tests.agents_seed import load_seed, seed_diff


@pytest.fixture(scope="module")
def seed(store: Store) -> str:
    return load_seed(store)


def test_who_knows_matches_the_guards_experts(store: Store, seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["who-knows", "--repo", seed, "tollgate/sessions.py", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    finding = next(
        f for f in run_guard(store, seed, seed_diff("idle-8h")).findings if f.decision_id == "decision:pr:17"
    )
    # who-knows is about the file: sessions.py's editors (hyamamoto inactive since 2025-03, so bus factor 1)
    assert [e["login"] for e in res["experts"]] == ["jdelacroix", "hyamamoto"] and res["bus_factor"] == 1
    # the guard asks about the decision: asked about PR #17's files, who-knows names the guard's people; only
    # the order differs, by the guard's H2 voice bonus (pnair commented on PR #17)
    files = ["tests/test_sessions.py", "tollgate/api.py", "tollgate/sessions.py"]
    assert main(["who-knows", "--repo", seed, *files, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert [e["login"] for e in res["experts"]] == ["jdelacroix", "tkowalski", "pnair"]
    assert [e["login"] for e in finding.experts] == ["jdelacroix", "pnair", "tkowalski"]
    assert res["bus_factor"] == finding.bus_factor == 3
    assert main(["who-knows", "--repo", seed, "tollgate/sessions.py", "docs/none.md"]) == 0
    out = capsys.readouterr().out
    assert "ask jdelacroix" in out and "docs/none.md: file not in the graph" in out


def test_premises(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["premises", "--repo", seed, "decision:pr:23", "decision:pr:11", "decision:nope"]) == 0
    out = capsys.readouterr().out
    assert "decision:pr:23: no longer stands" in out and "R7 broken: reverted by" in out
    assert "decision:pr:11: stands" in out and "R2 stale" in out and "decision:nope: no such decision" in out
    assert main(["premises", "--repo", "nobody/nothing", "decision:pr:1"]) == 2
    assert "no graph for repository" in capsys.readouterr().err
