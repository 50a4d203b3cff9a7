"""``rguard codemap build|status|neighbours|walk|blast|chain``: the repository's import graph."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..codemap import walks
from ..codemap.build import build_from_git, build_from_github, build_from_tree
from ..codemap.tree import tree_from_folder
from ..db import Graph, open_store, validate_repo
from ..errors import UnknownRepository
from ..graph_state import require_complete
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("codemap", help="the import graph of a repository's code (proven edges only)")
    csub = p.add_subparsers(dest="codemap_command", required=True, metavar="COMMAND")

    b = csub.add_parser("build", help="parse a commit's files and replace the repository's code map")
    b.add_argument("--repo", required=True, help="OWNER/NAME whose graph holds the map")
    src = b.add_mutually_exclusive_group(required=True)
    src.add_argument("--git", type=Path, metavar="PATH", help="a local clone (its HEAD, or --rev)")
    src.add_argument("--ref", help="a branch, tag or sha: the GitHub tarball of that ref")
    src.add_argument("--dir", type=Path, metavar="PATH", help="a plain folder (no commit recorded), e.g. the demo tree")
    b.add_argument("--rev", default="HEAD", help="with --git: the commit to map (default HEAD)")
    b.add_argument("--api-url", help="with --ref: REST base URL (default GITHUB_API_URL)")
    b.add_argument("--force", action="store_true", help="take over from a build that looks still running")
    b.add_argument("--json", action="store_true", help="print the result and coverage report as JSON")
    b.add_argument("--quiet", action="store_true", help="no progress on stderr")
    b.set_defaults(func=run_build)

    s = csub.add_parser("status", help="the commit mapped and the coverage report")
    s.add_argument("--repo", required=True)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run_status)

    n = csub.add_parser("neighbours", help="what a file imports and who imports it")
    n.add_argument("--repo", required=True)
    n.add_argument("path", help="a file path relative to the repository root")
    n.add_argument("--json", action="store_true")
    n.set_defaults(func=run_neighbours)

    w = csub.add_parser("walk", help="files within N import hops of a file (out: what it imports, in: importers)")
    w.add_argument("--repo", required=True)
    w.add_argument("path")
    w.add_argument("--depth", type=int, default=2, help=f"hops, 1..{walks.MAX_DEPTH} (default 2)")
    w.add_argument("--direction", choices=("in", "out"), default="out")
    w.add_argument("--json", action="store_true")
    w.set_defaults(func=run_walk)

    r = csub.add_parser("blast", help="blast radius: every file that imports this one, transitively, with depth")
    r.add_argument("--repo", required=True)
    r.add_argument("path")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=run_blast)

    c = csub.add_parser("chain", help="the shortest import chain between two files")
    c.add_argument("--repo", required=True)
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=run_chain)


def _graph(repo: str) -> Graph:
    graph = open_store().repo_graph(validate_repo(repo))
    if not graph.exists():
        raise UnknownRepository(repo)
    require_complete(graph)  # a half-written history graph is not served (graph_state.py)
    return graph


def run_build(args: argparse.Namespace) -> int:
    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    progress = None if args.quiet else say
    store = open_store()
    if args.git is not None:
        res = build_from_git(store, args.repo, args.git, args.rev, progress, force=args.force)
    elif args.dir is not None:
        res = build_from_tree(store, args.repo, tree_from_folder(args.dir), progress, force=args.force)
    else:
        res = build_from_github(store, args.repo, args.ref, api_url=args.api_url, progress=progress, force=args.force)
    if args.json:
        print_json(res.as_dict())
        return 0
    cov = res.coverage
    print(
        f"{res.repo}: {res.files} files, {res.edges} import edges at {res.tree.source} "
        f"{res.tree.commit[:12] or res.tree.location}"
    )
    print(
        f"imports {cov.imports}: {cov.resolved} resolved of {cov.internal} internal "
        f"({cov.resolved_ratio:.1%}); unresolved by reason: "
        + (", ".join(f"{k} {v}" for k, v in sorted(cov.unresolved.items())) or "none")
    )
    return 0


def run_status(args: argparse.Namespace) -> int:
    st = walks.status(_graph(args.repo))
    if st is None:
        walks.require_map(_graph(args.repo), args.repo)  # raises the "build one first" error
        return 2
    if args.json:
        print_json(st.as_dict())
    else:
        print(
            f"{args.repo}: code map {st.status} at {st.source} {st.commit[:12]} ({st.built_at}); "
            f"{st.files} files, {st.edges} edges, resolved {st.resolved_ratio:.1%} of internal imports"
        )
    return 0


def run_neighbours(args: argparse.Namespace) -> int:
    res = walks.neighbours(_graph(args.repo), args.repo, args.path)
    if args.json:
        print_json(res.as_dict())
        return 0
    print(f"{res.file.path}  (fan-in {res.file.fan_in}, fan-out {res.file.fan_out})")
    for s in res.imports:
        print(f"  imports      {s.target}  [{s.kind} line {s.line}: {s.specifier}]")
    for s in res.imported_by:
        print(f"  imported by  {s.source}  [{s.kind} line {s.line}: {s.specifier}]")
    return 0


def _print_walk(res: walks.Walk, what: str) -> None:
    print(
        f"{res.start}: {len(res.files)} {what} within depth {res.reached_depth}"
        + ("" if res.complete else " (cut: more lie beyond)")
    )
    for r in res.files:
        print(f"  {r.depth}  {r.path}  [via {r.via.source} -> {r.via.target}, line {r.via.line}]")


def run_walk(args: argparse.Namespace) -> int:
    res = walks.walk(_graph(args.repo), args.repo, args.path, args.depth, args.direction)
    if args.json:
        print_json(res.as_dict())
    else:
        _print_walk(res, "files it imports" if args.direction == "out" else "importers")
    return 0


def run_blast(args: argparse.Namespace) -> int:
    res = walks.blast_radius(_graph(args.repo), args.repo, args.path)
    if args.json:
        print_json(res.as_dict())
    else:
        _print_walk(res, "files that import it")
    return 0


def run_chain(args: argparse.Namespace) -> int:
    res = walks.chain(_graph(args.repo), args.repo, args.a, args.b)
    if args.json:
        print_json(res.as_dict())
        return 0
    if not res.steps:
        print(f"no import chain between {res.a} and {res.b}")
        return 0
    print(" -> ".join([res.steps[0].source] + [s.target for s in res.steps]))
    return 0
