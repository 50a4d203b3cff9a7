"""``rguard why --repo OWNER/NAME "QUESTION" [--synthesize] --json``: why-answers with quotes and links."""

from __future__ import annotations

import argparse

from ..db import open_store
from ..explore.why import WhyAnswer, why
from ..llm import LLMClient
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("why", help="answer a why-question from the repository's decisions, with receipts")
    p.add_argument("--repo", required=True, help="OWNER/NAME")
    p.add_argument("question", help='for example "why do we keep unknown prices as null?"')
    p.add_argument(
        "--synthesize",
        action="store_true",
        help="add a short LLM synthesis that may cite only retrieved receipts (needs OPENAI_BASE_URL/KEY)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = open_store()
    llm = LLMClient(store.settings) if args.synthesize else None
    ans = why(store, args.repo, args.question, llm=llm)
    if args.json:
        print_json(ans.as_dict())
    else:
        print(render_text(ans))
    return 0


def render_text(ans: WhyAnswer) -> str:
    """The answer as plain text: the message, an optional synthesis, then each decision with its quotes."""
    lines = [ans.message]
    if ans.synthesis:
        lines += ["", ans.synthesis, f"  (cites: {', '.join(ans.cited)})"]
    for d in ans.decisions:
        r = d.receipt
        lines += ["", f"{r.text}  [{r.status}]  {r.id}", f"  “{r.quote}” — {r.source} {r.url or ''}".rstrip()]
        lines += [f"  because: “{c.quote}” — {c.source} {c.url or ''}".rstrip() for c in d.because]
        if d.context is not None:
            lines.append(f"  context: “{d.context.quote}” — {d.context.source} {d.context.url or ''}".rstrip())
        if d.note:
            lines.append(f"  ({d.note})")
    if ans.withheld:
        lines += [
            "",
            f"{ans.withheld} match(es) withheld: the claim no longer holds, its source is quarantined, "
            "or its quote is no longer verbatim",
        ]
    return "\n".join(lines)
