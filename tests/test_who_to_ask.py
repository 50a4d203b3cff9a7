"""One "who to ask": the Guard's finding, the Decision graph's detail pane, ``who-knows`` and the MCP tool rank
people with the same function (guard/experts.ranked), so they name the same people in the same order. Who to ask
about a decision is the decision's (``experts.for_decisions``, over every file it changed), whichever of its
files a diff touches; ``who-knows PATH`` asks about files."""

from __future__ import annotations

import re

import pytest

from rguard_core.db import Store
from rguard_core.explore.node_detail import node_detail
from rguard_core.guard import experts, run_guard
from tests.agents_seed import load_seed, seed_diff


@pytest.fixture(scope="module")
def seed(store: Store) -> str:
    return load_seed(store)


def revert_of(store: Store, repo: str, pr: int, only: str | None = None) -> str:
    """A diff that undoes the whole of a PR (or only its change to file ``only``), from the patches stored on its
    TOUCHES edges."""
    rows = store.repo_graph(repo).read(
        "MATCH (:PR {number: $n})-[t:TOUCHES]->(f:File) RETURN f.path AS path, t.status AS status, t.patch AS patch "
        "ORDER BY path",
        {"n": pr},
    )
    out = []
    for r in rows:
        path = r["path"]
        if only is not None and path != only:
            continue
        old, new = (f"a/{path}", "/dev/null") if r["status"] == "added" else (f"a/{path}", f"b/{path}")
        out.append(f"diff --git a/{path} b/{path}\n" + ("deleted file mode 100644\n" if r["status"] == "added" else ""))
        out.append(f"--- {old}\n+++ {new}\n")
        for line in (r["patch"] or "").splitlines():
            if line.startswith("@@"):
                m = re.match(r"@@ -(\S+) \+(\S+) @@(.*)", line)
                assert m, line
                line = f"@@ -{m[2]} +{m[1]} @@{m[3]}"
            elif line[:1] in "+-":
                line = {"+": "-", "-": "+"}[line[0]] + line[1:]
            out.append(line + "\n")
    return "".join(out)


# decisions whose change reached beyond one file, with different editors on each (the detail pane once differed)
REVERTED = (17, 20, 32, 11, 34, 9)


def test_guard_and_node_detail_name_the_same_people_in_the_same_order(store: Store, seed: str) -> None:
    """The same decision, the same files (a diff that undoes the whole decision): the same people, same order."""
    for pr in REVERTED:
        did = f"decision:pr:{pr}"
        findings = {f.decision_id: f for f in run_guard(store, seed, revert_of(store, seed, pr)).findings}
        assert did in findings, (pr, sorted(findings))
        guard = [e["login"] for e in findings[did].experts]
        detail = node_detail(store, seed, did).who_to_ask
        assert [e.login for e in detail] == guard and guard, pr
    # each is named with why: the seed's PR #17 author wrote it; everyone here edited its files
    d = node_detail(store, seed, "decision:pr:17")
    author = store.repo_graph(seed).read("MATCH (p:Person)-[:AUTHORED]->(:PR {number: 17}) RETURN p.login AS login")
    assert [e.login for e in d.who_to_ask] == ["jdelacroix", "pnair", "tkowalski"]
    assert all("edited these files" in e.reason for e in d.who_to_ask)
    assert all(("wrote PR #17" in e.reason) == (e.login == author[0]["login"]) for e in d.who_to_ask)


def test_a_decision_nobody_edited_files_for_is_asked_of_its_discussion(store: Store, seed: str) -> None:
    """Rule H4: no human editor of the files, so the source's authors, then its commenters, are named (score 0)."""
    people = experts.People([], {"alice": 1.0}, {}, None)
    who, bus = experts.ranked(people, ["a.py"], ["carol", "bob", "carol"], 365)
    assert [(e.login, e.score, e.edits) for e in who] == [("carol", 0.0, 0), ("bob", 0.0, 0)] and bus == 0
    # an issue touches no file: its author, then who commented on it, most comments first
    g = store.repo_graph(seed)
    rows = g.read(
        "MATCH (s:Source {kind: 'issue'})<-[:AUTHORED]-(p:Person) WHERE p.is_bot = false AND NOT (s)-[:TOUCHES]->() "
        "AND (s)<-[:ON]-(:Comment) RETURN s.id AS id, p.login AS login ORDER BY id LIMIT 1"
    )
    assert rows, "the seed has a discussed issue"
    d = node_detail(store, seed, rows[0]["id"])
    assert d.who_to_ask[0].login == rows[0]["login"] and d.who_to_ask[0].reason.startswith("wrote Issue #")
    assert [e.login for e in d.who_to_ask] == experts.source_voices(g, [rows[0]["id"]])[: experts.MAX_EXPERTS]
    assert any("commented" in e.reason for e in d.who_to_ask[1:]) or len(d.who_to_ask) == 1


def test_voices_rank_an_editor_who_wrote_the_decision_higher() -> None:
    """Rule H2: among editors with equal standing, the one who wrote or discussed the decision comes first."""
    people = experts.People(
        [{"login": "bob", "path": "a.py", "edits": 2}, {"login": "zed", "path": "a.py", "edits": 2}], {}, {}, None
    )
    assert [e.login for e in experts.ranked(people, ["a.py"], [], 365)[0]] == ["bob", "zed"]
    assert [e.login for e in experts.ranked(people, ["a.py"], ["zed"], 365)[0]] == ["zed", "bob"]


def test_a_diff_touching_some_of_a_decisions_files_names_the_decisions_people(store: Store, seed: str) -> None:
    """Who to ask is a property of the decision: a diff that undoes one file of a multi-file decision names the
    same people, in the same order, as the decision's detail pane (not the editors of that one file)."""
    g = store.repo_graph(seed)
    days = store.settings.inactive_days
    checked, differs = 0, 0
    for pr in REVERTED:
        did = f"decision:pr:{pr}"
        files = experts.decision_files(g, [did])[did]
        assert len(files) > 1, pr
        detail = [e.login for e in node_detail(store, seed, did).who_to_ask]
        for path in files:
            findings = {f.decision_id: f for f in run_guard(store, seed, revert_of(store, seed, pr, path)).findings}
            if did not in findings:
                continue  # this file alone does not reach the decision (a test file, say)
            checked += 1
            assert [e["login"] for e in findings[did].experts] == detail, (pr, path)
            assert findings[did].bus_factor == experts.for_decisions(g, [did], days)[did].bus_factor
            # the one file's own editors (the question ``who-knows PATH`` answers) would name others
            people = experts.People(experts.editors(g, [path]), *experts.centrality(g), experts.latest_activity(g))
            differs += [e.login for e in experts.ranked(people, [path], [], days)[0]] != detail
    assert checked >= len(REVERTED) and differs, (checked, differs)
    # the issue's example: the idle-8h edit touches sessions.py only, one of PR #17's three files
    finding = next(
        f for f in run_guard(store, seed, seed_diff("idle-8h")).findings if f.decision_id == "decision:pr:17"
    )
    assert [e["login"] for e in finding.experts] == ["jdelacroix", "pnair", "tkowalski"]
