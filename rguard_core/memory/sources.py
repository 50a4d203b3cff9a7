"""Independent sources: distinct lineage roots behind a holding claim, never the number of paths."""

from __future__ import annotations

from collections import defaultdict

from .engine import Holds, lineage_roots, observation_holds
from .model import SupportGraph


def independent_sources(graph: SupportGraph, holds: Holds) -> dict[str, int]:
    """For every claim: how many distinct lineage roots its holding support rests on (0 if it does not hold).

    The holding support of a node is itself when it is a holding observation, plus the holding support of
    the premises of its holding justifications. Strongly connected parts share one support set.
    """
    roots_of = lineage_roots(graph.lineage)
    deps: dict[str, set[str]] = defaultdict(set)
    for j in graph.justs.values():
        if holds.justs.get(j.id):
            for c in j.conclusions:
                deps[c].update(j.premises)
    holding = [n for n in graph.node_ids() if holds.nodes.get(n)]
    own: dict[str, frozenset[str]] = {}
    for cid in holding:
        claim = graph.claims.get(cid)
        if claim is not None and observation_holds(claim, graph.quarantined) and claim.source_id:
            own[cid] = roots_of.get(claim.source_id, frozenset({claim.source_id}))
    support = _support_roots(holding, deps, own)
    return {cid: (len(support[cid]) if holds.nodes.get(cid) else 0) for cid in graph.claims}


def _support_roots(
    nodes: list[str], deps: dict[str, set[str]], own: dict[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """Union of ``own`` over everything reachable through ``deps``, one strongly connected component at a time."""
    result: dict[str, frozenset[str]] = {}
    for component in _tarjan(nodes, deps):
        members = set(component)
        acc: set[str] = set()
        for n in component:
            acc |= own.get(n, frozenset())
            for d in deps.get(n, ()):
                if d not in members and d in result:
                    acc |= result[d]
        frozen = frozenset(acc)
        for n in component:
            result[n] = frozen
    return result


def _tarjan(nodes: list[str], deps: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components, each emitted after every component it depends on (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    allowed = set(nodes)
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(deps.get(start, set()) & allowed)))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(deps.get(nxt, set()) & allowed))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(comp)
    return out
