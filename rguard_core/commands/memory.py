"""``rguard memory``: load scenarios, quarantine sources, correct claims, see what still stands, retrieve.

Every command but ``load`` works on a memory workspace (``--workspace``) or a repository graph (``--repo``).
With ``--json`` each prints one JSON document (the contract other tools parse).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from ..db import Graph, open_store
from ..errors import InvalidInput, UnknownRepository
from ..graph_state import require_complete
from ..jsontypes import JSONObject
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", help="corrections and what still stands (memory workspaces and repositories)")
    msub = p.add_subparsers(dest="memory_command", required=True, metavar="ACTION")

    load = msub.add_parser("load", help="load a scenario JSON file; replaces the workspace's previous contents")
    load.add_argument("file")
    load.add_argument("--workspace", help="workspace name (default: the file's 'workspace' field)")
    load.add_argument("--json", action="store_true")
    load.set_defaults(func=run_load)

    q = msub.add_parser("quarantine", help="quarantine a source and work out what falls")
    q.add_argument("source_id")
    q.add_argument("--reason", default="")
    q.add_argument("--by", default="")
    q.add_argument("--preview", action="store_true", help="show what would fall (the blast radius); write nothing")
    q.add_argument(
        "--revision", type=int, help="quarantine only if the source is still at this revision (from --preview)"
    )
    _target(q)
    q.set_defaults(func=run_quarantine)

    lf = msub.add_parser("lift", help="lift a source's quarantine (a new audit entry; the incident is kept)")
    lf.add_argument("source_id")
    lf.add_argument("--by", required=True, help="who lifts it")
    lf.add_argument("--reason", default="")
    lf.add_argument("--preview", action="store_true", help="show what would be restored; write nothing")
    lf.add_argument("--revision", type=int, help="lift only if the incident is still at this revision (from --preview)")
    _target(lf)
    lf.set_defaults(func=run_lift)

    rv = msub.add_parser("revert", help="undo a correction, a quarantine or guard feedback (a new audit entry)")
    rv.add_argument("correction_id", help="a Correction or Incident id from the history (Corrections page, export)")
    rv.add_argument("--by", required=True, help="who reverts it")
    rv.add_argument("--reason", default="")
    rv.add_argument("--preview", action="store_true", help="show what would change; write nothing")
    rv.add_argument("--revision", type=int, help="revert only if the entry is still at this revision (from --preview)")
    _target(rv)
    rv.set_defaults(func=run_revert)

    c = msub.add_parser("correct", help="correct a claim (preview with --preview; apply otherwise)")
    c.add_argument("claim_id")
    c.add_argument("--text", required=True, help="the corrected statement, in the reviewer's words")
    c.add_argument("--by", required=True, help="who corrects it")
    c.add_argument("--preview", action="store_true", help="show what would change; write nothing")
    c.add_argument("--revision", type=int, help="apply only if the claim is still at this revision (from --preview)")
    _target(c)
    c.set_defaults(func=run_correct)

    s = msub.add_parser("status", help="what holds: claims (with independent sources), decisions, actions")
    _target(s)
    s.set_defaults(func=run_status)

    r = msub.add_parser("retrieve", help="search what still holds (never the text of a claim that fell)")
    r.add_argument("query")
    r.add_argument("--limit", type=int, default=10)
    _target(r)
    r.set_defaults(func=run_retrieve)

    rc = msub.add_parser("recompute", help="recompute stored support from scratch (labels are kept)")
    _target(rc)
    rc.set_defaults(func=run_recompute)


def _target(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--workspace", help="memory workspace name")
    g.add_argument("--repo", help="repository OWNER/NAME (an ingested repository graph)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _graph(args: argparse.Namespace) -> Graph:
    store = open_store()
    if args.repo:
        graph = store.repo_graph(args.repo)
        if not graph.exists():
            raise UnknownRepository(args.repo)
        require_complete(graph)
        return graph
    graph = store.workspace_graph(args.workspace)
    if not graph.exists():
        raise InvalidInput(
            f"no memory workspace {args.workspace!r}; load a scenario first: "
            f"python -m rguard_core memory load FILE.json --workspace {args.workspace}"
        )
    return graph


def _emit(args: argparse.Namespace, data: Mapping[str, object], lines: list[str]) -> int:
    if args.json:
        print_json(data)
    else:
        print("\n".join(lines))
    return 0


def run_load(args: argparse.Namespace) -> int:
    from ..memory import load_scenario
    from ..memory.scenario import read_scenario_file

    # the file is read and validated first: a bad one is refused without starting the engine
    scenario = read_scenario_file(args.file)
    res = load_scenario(open_store(), scenario, workspace=args.workspace).as_dict()
    c = res["counts"]
    return _emit(
        args,
        res,
        [
            f"loaded workspace {res['workspace']} (revision {res['revision']}"
            + (f", replaced {res['replaced']} earlier nodes)" if res["replaced"] else ")"),
            f"  {c['sources']} sources, {c['claims']} claims ({res['holding']['claims']} hold), "
            f"{c['justifications']} justifications, {c['decisions']} decisions ({res['holding']['decisions']} hold), "
            f"{c['actions']} actions",
        ],
    )


def _step_lines(d: JSONObject) -> list[str]:
    restored = d.get("restored") or {}
    return [
        *([f"  claims restored: {', '.join(restored['claims'])}"] if restored.get("claims") else []),
        *([f"  decisions restored: {', '.join(restored['decisions'])}"] if restored.get("decisions") else []),
        f"  claims fell:     {', '.join(d['fell']['claims']) or '-'}",
        f"  decisions fell:  {', '.join(d['fell']['decisions']) or '-'}",
        f"  kept support:    {', '.join(d['kept']) or '-'}",
        f"  labelled:        {', '.join(f'{k}={v}' for k, v in d['labelled'].items()) or '-'}",
        f"  actions held:    {', '.join(d['held']) or '-'}",
        f"  to compensate:   {', '.join(d['compensate']) or '-'}",
    ]


def run_quarantine(args: argparse.Namespace) -> int:
    from ..memory import preview_quarantine, quarantine_source

    graph = _graph(args)
    if args.preview:
        p = preview_quarantine(graph, args.source_id)
        d = {
            **p.report.as_dict(),
            "source": p.source,
            "title": p.title,
            "revision": p.revision,
            "graph_revision": p.graph_revision,
            "fingerprint": p.fingerprint,
        }
        return _emit(
            args,
            d,
            [
                f"preview: quarantine {p.source} ({p.title}) at revision {p.revision}",
                *_step_lines(d),
                f"apply with: --revision {p.revision}",
            ],
        )
    res = quarantine_source(graph, args.source_id, reason=args.reason, by=args.by, revision=args.revision).as_dict()
    head = (
        f"{args.source_id} was already quarantined (incident {res['incident']}); nothing changed"
        if res["already_quarantined"]
        else f"quarantined {args.source_id} (incident {res['incident']})"
    )
    return _emit(args, res, [head, *_step_lines(res)])


def run_correct(args: argparse.Namespace) -> int:
    from ..memory import apply_correction, preview_correction

    graph = _graph(args)
    if args.preview:
        p = preview_correction(graph, args.claim_id, args.text, args.by).as_dict()
        return _emit(
            args,
            p,
            [
                f"preview: correct {p['claim']} (revision {p['revision']}) to {p['new_statement']!r}",
                f"  claims would fall:           {', '.join(p['claims_fall']) or '-'}",
                f"  decisions lose last support: {', '.join(p['decisions_lose_support']) or '-'}",
                f"  decisions keep other support: {', '.join(p['decisions_keep_support']) or '-'}",
                f"  actions would be held:       {', '.join(p['actions_held']) or '-'}",
                f"  actions to compensate:       {', '.join(p['actions_compensate']) or '-'}",
                f"apply with: --revision {p['revision']}",
            ],
        )
    res = apply_correction(graph, args.claim_id, args.text, args.by, args.revision).as_dict()
    return _emit(args, res, [f"{res['status']}: {res['claim']} superseded by {res['replacement']}", *_step_lines(res)])


def run_status(args: argparse.Namespace) -> int:
    from ..memory import status

    st = status(_graph(args))
    lines = [
        f"claim     {k}: {'holds' if v['holds'] else 'fell'} ({v['sources']} sources)" for k, v in st["claims"].items()
    ]
    lines += [
        f"decision  {k}: {'holds' if v['holds'] else 'fell'}{' [' + v['label'] + ']' if v['label'] else ''}"
        for k, v in st["decisions"].items()
    ]
    lines += [f"action    {k}: {v['status']}" for k, v in st["actions"].items()]
    return _emit(args, st, lines)


def run_retrieve(args: argparse.Namespace) -> int:
    from ..memory import retrieve

    res = retrieve(_graph(args), args.query, limit=args.limit).as_dict()
    lines = [f"{h['kind']:<9}{h['id']}: {h.get('statement') or h.get('summary')}" for h in res["results"]]
    if res["withheld"]:
        lines.append(f"({res['withheld']} matches withheld: they no longer hold)")
    return _emit(args, res, lines or ["no holding matches"])


def run_recompute(args: argparse.Namespace) -> int:
    from ..memory import recompute

    res = recompute(_graph(args)).as_dict()
    return _emit(args, res, [f"recomputed: {res['changed']} nodes changed, revision {res['revision']}"])


def _undo(args: argparse.Namespace, target: str | None, source: str | None = None) -> int:
    from ..memory.undo import active_incident, preview_undo, undo

    graph = _graph(args)
    target = target or active_incident(graph, source or "")
    if args.preview:
        p = preview_undo(graph, target)
        d = {
            **p.report.as_dict(),
            "target": p.target.id,
            "kind": p.target.kind,
            "about": p.target.about,
            "revision": p.revision,
            "graph_revision": p.graph_revision,
            "fingerprint": p.fingerprint,
        }
        return _emit(
            args,
            d,
            [
                f"preview: undo {p.target.kind} {p.target.id} on {p.target.about} (revision {p.revision})",
                *_step_lines(d),
                f"apply with: --revision {p.revision}",
            ],
        )
    res = undo(graph, target, args.by, args.reason, revision=args.revision).as_dict()
    verb = "reverted" if res["status"] == "reverted" else "already reverted"
    return _emit(
        args,
        res,
        [f"{verb} {res['kind']} {res['target']} on {res['about']} (audit entry {res['undo']})", *_step_lines(res)],
    )


def run_lift(args: argparse.Namespace) -> int:
    return _undo(args, None, args.source_id)


def run_revert(args: argparse.Namespace) -> int:
    return _undo(args, args.correction_id)
