"""The code map's MCP tools through the SDK's own client, in process, on a repository built here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client

from rguard_core.codemap import build_from_git
from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.ingest.pipeline import ingest_git
from rguard_core.mcp_server import ServerConfig, build_server
from rguard_core.untrusted import unquote as unq

from .test_codemap_graph import APP
from .test_ingest_git import GitRepo


def call(server: Any, fn: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await fn(client)

    return asyncio.run(go())


def test_walks_as_tools_and_errors(store: Store, settings: Settings, tmp_path: Path, repo_name: str) -> None:
    gr = GitRepo(tmp_path / "clone")
    gr.commit("Initial import", APP)
    ingest_git(store, gr.root, repo_name)
    server = build_server(ServerConfig(allow_writes=False, reviewer=None, settings=settings), store)

    async def before(c: Client) -> Any:
        return await c.call_tool("code_neighbours", {"repo": repo_name, "path": "app/api.py"})

    res = call(server, before)
    assert res.is_error and "no code map" in res.content[0].text
    build_from_git(store, repo_name, gr.root)

    async def go(c: Client) -> dict[str, Any]:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools}
        for name, args in (
            ("code_neighbours", {"path": "app/api.py"}),
            ("code_walk", {"path": "app/cli.py", "depth": 1}),
            ("code_blast_radius", {"path": "app/auth.py"}),
            ("code_chain", {"a": "app/cli.py", "b": "app/auth.py"}),
        ):
            r = await c.call_tool(name, {"repo": repo_name, **args})
            assert not r.is_error, r.content
            out[name] = r.structured_content
        out["bad"] = await c.call_tool("code_walk", {"repo": repo_name, "path": "app/cli.py", "depth": 99})
        out["missing"] = await c.call_tool("code_neighbours", {"repo": repo_name, "path": "nope.py"})
        return out

    r = call(server, go)
    assert all(r["tools"][t].annotations.read_only_hint for t in ("code_neighbours", "code_walk", "code_chain"))
    # paths and specifiers come from the repository's files: handed out as quoted data
    assert [unq(s["target"]) for s in r["code_neighbours"]["imports"]] == ["app/auth.py", "app/store.py"]
    assert all(isinstance(s["specifier"], dict) for s in r["code_neighbours"]["imports"] if s["specifier"])
    assert [unq(f["path"]) for f in r["code_walk"]["files"]] == ["app/api.py"]
    assert [(unq(f["path"]), f["depth"]) for f in r["code_blast_radius"]["files"]] == [
        ("app/api.py", 1),
        ("app/cli.py", 2),
    ]
    assert [unq(x) for x in r["code_chain"]["files"]] == ["app/cli.py", "app/api.py", "app/auth.py"]
    assert r["bad"].is_error and r["missing"].is_error and "not a source file" in r["missing"].content[0].text
