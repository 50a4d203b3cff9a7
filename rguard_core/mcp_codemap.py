"""The code map's walks as MCP tools (registered by mcp_server.build_server): the same functions and JSON as
``codemap neighbours|walk|blast|chain``. Read-only; a repository without a code map is a tool error saying
how to build one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from .codemap import walks
from .db import Graph
from .jsontypes import JSONObject

Repo = Annotated[
    str | None,
    Field(
        description="repository OWNER/NAME as ingested (see list_repos); default: the server's --repo", max_length=201
    ),
]
FilePath = Annotated[
    str, Field(description="a file path relative to the repository root, like 'src/app/db.py'", max_length=1000)
]
Tool = tuple[Callable[..., JSONObject], str, ToolAnnotations]


def codemap_tools(
    resolve: Callable[[str | None], str],
    graph: Callable[[str | None], Graph],
    wrap: Callable[[Callable[..., JSONObject]], Any],
    hints: Callable[..., ToolAnnotations],
) -> list[Tool]:
    """(tool, description, annotations) for each walk; ``graph`` opens a repository's graph (None: the server's
    default repository) or raises; ``resolve`` names the repository a call means; ``hints(title, read=True)`` makes the annotations."""

    @wrap
    def code_neighbours(path: FilePath, repo: Repo = None) -> JSONObject:
        g, repo = graph(repo), resolve(repo)
        return walks.neighbours(g, repo, path).as_dict()

    @wrap
    def code_walk(
        path: FilePath,
        depth: Annotated[int, Field(ge=1, le=walks.MAX_DEPTH, description="import hops")] = 2,
        direction: Annotated[
            Literal["in", "out"], Field(description="out: what it imports; in: who imports it")
        ] = "out",
        repo: Repo = None,
    ) -> JSONObject:
        g, repo = graph(repo), resolve(repo)
        return walks.walk(g, repo, path, depth, direction).as_dict()

    @wrap
    def code_blast_radius(path: FilePath, repo: Repo = None) -> JSONObject:
        g, repo = graph(repo), resolve(repo)
        return walks.blast_radius(g, repo, path).as_dict()

    @wrap
    def code_chain(a: FilePath, b: FilePath, repo: Repo = None) -> JSONObject:
        g, repo = graph(repo), resolve(repo)
        return walks.chain(g, repo, a, b).as_dict()

    return [
        (
            code_neighbours,
            "What a file imports and which files import it (proven import edges, with line and specifier).",
            hints("Import neighbours", read=True),
        ),
        (
            code_walk,
            "Files within N import hops of a file: out = what it imports, in = who imports it.",
            hints("Import walk", read=True),
        ),
        (
            code_blast_radius,
            "Every file that imports this one, directly or transitively, each with its depth: what "
            "an edit to it can break.",
            hints("Blast radius", read=True),
        ),
        (
            code_chain,
            "The shortest import chain between two files, in whichever direction exists.",
            hints("Import chain", read=True),
        ),
    ]
