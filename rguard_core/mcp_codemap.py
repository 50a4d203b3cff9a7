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

Repo = Annotated[str, Field(description="repository OWNER/NAME as ingested (see list_repos)", max_length=201)]
FilePath = Annotated[
    str, Field(description="a file path relative to the repository root, like 'src/app/db.py'", max_length=1000)
]
Tool = tuple[Callable[..., JSONObject], str, ToolAnnotations]


def codemap_tools(
    graph: Callable[[str], Graph], wrap: Callable[[Callable[..., JSONObject]], Any], read: ToolAnnotations
) -> list[Tool]:
    """(tool, description, annotations) for each walk; ``graph`` opens a repository's graph or raises."""

    @wrap
    def code_neighbours(repo: Repo, path: FilePath) -> JSONObject:
        return walks.neighbours(graph(repo), repo, path).as_dict()

    @wrap
    def code_walk(
        repo: Repo,
        path: FilePath,
        depth: Annotated[int, Field(ge=1, le=walks.MAX_DEPTH, description="import hops")] = 2,
        direction: Annotated[
            Literal["in", "out"], Field(description="out: what it imports; in: who imports it")
        ] = "out",
    ) -> JSONObject:
        return walks.walk(graph(repo), repo, path, depth, direction).as_dict()

    @wrap
    def code_blast_radius(repo: Repo, path: FilePath) -> JSONObject:
        return walks.blast_radius(graph(repo), repo, path).as_dict()

    @wrap
    def code_chain(repo: Repo, a: FilePath, b: FilePath) -> JSONObject:
        return walks.chain(graph(repo), repo, a, b).as_dict()

    return [
        (
            code_neighbours,
            "What a file imports and which files import it (proven import edges, with line and specifier).",
            read,
        ),
        (code_walk, "Files within N import hops of a file: out = what it imports, in = who imports it.", read),
        (
            code_blast_radius,
            "Every file that imports this one, directly or transitively, each with its depth: what "
            "an edit to it can break.",
            read,
        ),
        (code_chain, "The shortest import chain between two files, in whichever direction exists.", read),
    ]
