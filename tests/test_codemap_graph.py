"""The code map in a real repository graph: build from a clone and from a tarball served locally, walks,
rebuilds on a new commit that keep decisions, and the CLI."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from rguard_core.codemap import blast_radius, build_from_git, build_from_github, chain, neighbours, walk
from rguard_core.codemap import walks as walks_mod
from rguard_core.codemap.tree import tree_from_github
from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.errors import ConflictError, GitHubError, InvalidInput, RateLimited, SourceError, UnknownRepository
from rguard_core.ingest.pipeline import ingest_git

from .tarball_server import TarballServer, TarballState
from .test_ingest_git import GitRepo

APP = {
    "app/__init__.py": "",
    "app/auth.py": "import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n",
    "app/api.py": "from .auth import check\nfrom . import store\n\ndef handle(req):\n    return check(req.token, 'k')\n",
    "app/store.py": "from app import models\n",
    "app/models.py": "from .store import *  # a cycle store <-> models\n",
    "app/cli.py": "from app.api import handle\n",
    "web/tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}',
    "web/src/index.ts": "export * from './lib';\nimport('@/lazy');\n",
    "web/src/lib/index.ts": "import { x } from '../util';\nexport const y = x;\n",
    "web/src/util.ts": "export const x = 1;\n",
    "web/src/lazy.ts": "export default 2;\n",
}


@pytest.fixture
def clone(tmp_path: Path) -> GitRepo:
    gr = GitRepo(tmp_path / "clone")
    gr.commit("Initial import", APP)
    gr.commit(
        "Use constant-time comparison for tokens (#1)\n\nWe compare tokens with hmac.compare_digest "
        "because == leaks timing.\n",
        {"app/auth.py": APP["app/auth.py"] + "\nTIMING_SAFE = True\n"},
    )
    return gr


def _edge_rows(store: Store, repo: str) -> set[tuple[str, str, str]]:
    rows = store.repo_graph(repo).read(
        "MATCH (a:File)-[e:IMPORTS|RE_EXPORTS|DYNAMIC_IMPORT|REQUIRES]->(b:File) "
        "RETURN a.path AS a, b.path AS b, type(e) AS k",
        name="test.edges",
    )
    return {(r["a"], r["b"], r["k"]) for r in rows}


def test_build_from_clone_writes_proven_edges_and_fans(store: Store, clone: GitRepo, repo_name: str) -> None:
    res = build_from_git(store, repo_name, clone.root)
    assert res.tree.source == "git" and len(res.tree.commit) == 40
    edges = _edge_rows(store, repo_name)
    assert ("app/api.py", "app/auth.py", "IMPORTS") in edges and ("app/api.py", "app/store.py", "IMPORTS") in edges
    assert ("app/store.py", "app/models.py", "IMPORTS") in edges and (
        "app/models.py",
        "app/store.py",
        "IMPORTS",
    ) in edges
    assert ("web/src/index.ts", "web/src/lib/index.ts", "RE_EXPORTS") in edges
    assert ("web/src/index.ts", "web/src/lazy.ts", "DYNAMIC_IMPORT") in edges
    assert res.edges == len(edges) == 8
    assert res.coverage.unresolved == {"stdlib": 1}  # import hmac
    n = neighbours(store.repo_graph(repo_name), repo_name, "app/auth.py")
    assert n.file.fan_in == 1 and n.file.fan_out == 0 and [s.source for s in n.imported_by] == ["app/api.py"]
    assert n.imported_by[0].line == 1 and n.imported_by[0].specifier == ".auth"
    st = walks_mod.status(store.repo_graph(repo_name))
    assert st is not None and st.status == "complete" and st.commit == res.tree.commit
    assert st.coverage["resolved_ratio"] == 1.0


def test_walks_chain_and_blast_radius(store: Store, clone: GitRepo, repo_name: str) -> None:
    build_from_git(store, repo_name, clone.root)
    g = store.repo_graph(repo_name)
    out = walk(g, repo_name, "app/cli.py", depth=2, direction="out")
    assert [(r.path, r.depth) for r in out.files] == [("app/api.py", 1), ("app/auth.py", 2), ("app/store.py", 2)]
    assert not out.complete  # models.py lies one hop further
    assert walk(g, repo_name, "app/cli.py", depth=3).complete
    blast = blast_radius(g, repo_name, "app/auth.py")
    assert [(r.path, r.depth) for r in blast.files] == [("app/api.py", 1), ("app/cli.py", 2)]
    assert blast.reached_depth == 2 and blast.complete
    cyc = blast_radius(g, repo_name, "app/models.py")  # the cycle is walked once
    assert sorted(r.path for r in cyc.files) == ["app/api.py", "app/cli.py", "app/store.py"]
    c = chain(g, repo_name, "app/cli.py", "app/models.py")
    assert c.direction == "a_imports_b" and c.as_dict()["files"] == [
        "app/cli.py",
        "app/api.py",
        "app/store.py",
        "app/models.py",
    ]
    back = chain(g, repo_name, "app/auth.py", "app/cli.py")
    assert back.direction == "b_imports_a" and len(back.steps) == 2
    assert chain(g, repo_name, "app/auth.py", "web/src/util.ts").direction == "none"
    with pytest.raises(InvalidInput, match="not a source file"):
        neighbours(g, repo_name, "app/nothere.py")
    with pytest.raises(InvalidInput, match="depth"):
        walk(g, repo_name, "app/cli.py", depth=0)


def test_rebuild_on_new_commit_replaces_edges_and_keeps_decisions(store: Store, clone: GitRepo, repo_name: str) -> None:
    ingest_git(store, clone.root, repo_name)
    g = store.repo_graph(repo_name)
    first = build_from_git(store, repo_name, clone.root)

    def counts() -> dict[str, int]:
        return {
            lbl: g.read(f"MATCH (n:{lbl}) RETURN count(n) AS n", name="test.count")[0]["n"]
            for lbl in ("Decision", "Claim", "Source", "Correction")
        } | {"touches": g.read("MATCH ()-[t:TOUCHES]->() RETURN count(t) AS n", name="test.count")[0]["n"]}

    g.query("MATCH (d:Decision) SET d.label = 'review'", name="test.mark")
    before = counts()
    assert before["Decision"] >= 1 and before["touches"] >= 1
    # the decision's file and the code map's file are one node
    both = g.read(
        "MATCH (p:Source)-[:TOUCHES]->(f:File {path: 'app/auth.py'})<-[:IMPORTS]-(:File) RETURN count(p) AS n",
        name="test.meet",
    )
    assert both[0]["n"] >= 1
    (clone.root / "app/cli.py").unlink()
    sha = clone.commit("Split the API", {"app/api.py": "from .auth import check\n", "app/extra.py": "import app.api\n"})
    second = build_from_git(store, repo_name, clone.root)
    assert second.tree.commit == sha != first.tree.commit
    edges = _edge_rows(store, repo_name)
    assert ("app/api.py", "app/store.py", "IMPORTS") not in edges and ("app/extra.py", "app/api.py", "IMPORTS") in edges
    assert not any(a == "app/cli.py" for a, _, _ in edges)
    gone = g.read("MATCH (f:File {id: 'file:app/cli.py'}) RETURN f.in_tree AS t", name="test.gone")
    assert gone == [] or gone[0]["t"] is False  # kept only when history points at it
    assert counts() == before
    assert g.read("MATCH (d:Decision) RETURN collect(DISTINCT d.label) AS l", name="test.l")[0]["l"] == ["review"]


def _tarball(files: dict[str, str], top: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo(f"{top}/evil")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    return buf.getvalue()


def test_build_from_github_tarball(store: Store, repo_name: str) -> None:
    state = TarballState({(repo_name, "main"): _tarball(APP, f"{repo_name.replace('/', '-')}-abc1234")})
    with TarballServer(state) as srv:
        res = build_from_github(store, repo_name, "main", api_url=srv.url, token="t0ken")
        assert res.tree.source == "tarball" and res.tree.ref == "main" and res.tree.commit == "abc1234"
        assert res.edges == 8 and res.coverage.files_skipped == {"link_or_unsafe_path": 1}
        assert state.log[0][1].get("authorization") == "Bearer t0ken"
        with pytest.raises(GitHubError, match="no tarball"):
            build_from_github(store, repo_name, "nope", api_url=srv.url)
        state.chunked = True
        with pytest.raises(SourceError, match="larger than"):
            tree_from_github(repo_name, "main", srv.url, limit=200)
        with pytest.raises(InvalidInput, match="invalid ref"):
            tree_from_github(repo_name, "../x", srv.url)
        state.rate_limited = True
        with pytest.raises(RateLimited):
            build_from_github(store, repo_name, "main", api_url=srv.url)
    st = walks_mod.status(store.repo_graph(repo_name))
    assert st is not None and st.commit == "abc1234" and st.status == "complete"


def test_cli_build_neighbours_walk_chain_json(
    store: Store, clone: GitRepo, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["codemap", "build", "--repo", repo_name, "--git", str(clone.root), "--json", "--quiet"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["edges"] == 8 and built["coverage"]["resolved_ratio"] == 1.0
    assert main(["codemap", "neighbours", "--repo", repo_name, "app/api.py", "--json"]) == 0
    n = json.loads(capsys.readouterr().out)
    assert [s["target"] for s in n["imports"]] == ["app/auth.py", "app/store.py"]
    assert [s["source"] for s in n["imported_by"]] == ["app/cli.py"]
    assert (
        main(["codemap", "walk", "--repo", repo_name, "app/auth.py", "--direction", "in", "--depth", "1", "--json"])
        == 0
    )
    w = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in w["files"]] == ["app/api.py"] and w["complete"] is False
    assert main(["codemap", "chain", "--repo", repo_name, "app/cli.py", "app/auth.py", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == ["app/cli.py", "app/api.py", "app/auth.py"]
    assert main(["codemap", "blast", "--repo", repo_name, "app/auth.py", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reached_depth"] == 2
    assert main(["codemap", "neighbours", "--repo", "nobody/none", "a.py", "--json"]) == 2
    assert "no graph for repository" in capsys.readouterr().err


def test_unfinished_or_missing_map_is_refused(
    store: Store, clone: GitRepo, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest_git(store, clone.root, repo_name)
    g = store.repo_graph(repo_name)
    with pytest.raises(InvalidInput, match="no code map"):
        neighbours(g, repo_name, "app/api.py")
    assert main(["codemap", "status", "--repo", repo_name]) == 2
    assert "build one first: codemap build" in capsys.readouterr().err
    build_from_git(store, repo_name, clone.root)
    g.query("MATCH (c:CodeMap) SET c.status = 'building'", name="test.crash")  # a build still running, or dead
    with pytest.raises(InvalidInput, match="unfinished"):
        walk(g, repo_name, "app/api.py")
    with pytest.raises(ConflictError, match="another code map build"):
        build_from_git(store, repo_name, clone.root)  # one build at a time
    g.query("MATCH (c:CodeMap) SET c.started_at = '2020-01-01T00:00:00+00:00'", name="test.stale")
    build_from_git(store, repo_name, clone.root)  # a build that died long ago is taken over
    assert walk(g, repo_name, "app/api.py").files
    g.query("MATCH (c:CodeMap) SET c.status = 'building'", name="test.crash2")
    assert main(["codemap", "build", "--repo", repo_name, "--git", str(clone.root), "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["codemap", "build", "--repo", repo_name, "--git", str(clone.root), "--quiet", "--force"]) == 0
    with pytest.raises(UnknownRepository):
        from rguard_core.commands.codemap import _graph

        _graph("nobody/none")


def test_cli_build_from_a_folder_and_text_output(
    store: Store, tmp_path: Path, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for rel, text in APP.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert main(["codemap", "build", "--repo", repo_name, "--dir", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "8 import edges" in out and "8 resolved of 8 internal (100.0%)" in out
    assert main(["codemap", "status", "--repo", repo_name]) == 0
    assert "complete" in capsys.readouterr().out
    assert main(["codemap", "build", "--repo", repo_name, "--dir", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_broken_archives_fail_clearly_and_write_nothing(store: Store, repo_name: str) -> None:
    good = _tarball(APP, "o-r-abc1234")
    state = TarballState({(repo_name, "cut"): good[: len(good) // 2], (repo_name, "html"): b"<html>busy</html>"})
    with TarballServer(state) as srv:
        for ref in ("cut", "html"):
            with pytest.raises(SourceError, match="not a readable tar archive"):
                build_from_github(store, repo_name, ref, api_url=srv.url)
    assert not store.repo_graph(repo_name).exists()  # nothing was written
