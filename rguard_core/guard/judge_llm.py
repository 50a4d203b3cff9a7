"""The LLM judge: any OpenAI-compatible endpoint labels the candidates the graph returned, nothing else.

It gets each decision's verbatim quote and the hunks (the diff's and the decision's own change) and must
answer in a validated JSON shape; an unknown or missing decision id, a wrong label or a bad confidence is
an LLMError, and so is any endpoint failure. There is no silent fallback to the offline judge.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from ..config import Settings
from ..llm import LLMClient
from .model import Candidate, DecisionInfo, Judgement, ParsedDiff

LABELS = ("contradicts", "related", "unrelated")
BATCH = 10
MAX_CANDIDATES = 30
MAX_DIFF_CHARS = 12_000
MAX_PATCH_CHARS = 3_000
MAX_REASON = 1_000

SYSTEM_PROMPT = """You review a code change against earlier decisions recorded in a repository's history.
For each decision you get its verbatim quote, where it came from, and the hunks of the change that made it.
Label each decision:
- "contradicts": the new diff undoes or goes against that decision (re-adds what it removed, removes what it
  added, flips a literal or condition it relied on, brings back an option it rejected).
- "related": the diff touches the same code or topic but does not go against the decision.
- "unrelated": the diff has nothing to do with it (comments, docs wording, unrelated code).
Answer with one JSON object and nothing else:
{"labels": [{"decision_id": "...", "label": "contradicts|related|unrelated", "confidence": 0.0-1.0,
             "reason": "one sentence"}]}
Label every decision you were given exactly once, using the decision_id exactly as given, and no others."""


class LLMJudge:
    """Labels candidates in batches through ``LLMClient.complete_json``; raises LLMError on any failure."""

    name = "llm"

    def __init__(self, settings: Settings | None = None, client: LLMClient | None = None) -> None:
        self.client = client or LLMClient(settings or Settings.from_env())

    def judge_all(
        self, diff: ParsedDiff, items: list[tuple[Candidate, DecisionInfo]], standing: dict[str, bool]
    ) -> dict[str, Judgement]:
        out: dict[str, Judgement] = {}
        shown = items[:MAX_CANDIDATES]
        for c, _ in items[MAX_CANDIDATES:]:
            out[c.decision_id] = Judgement("unrelated", 0.0, "not sent to the LLM judge (candidate limit)")
        diff_text = render_diff(diff)
        for i in range(0, len(shown), BATCH):
            batch = shown[i : i + BATCH]
            ids = [c.decision_id for c, _ in batch]
            user = user_prompt(diff_text, batch)
            answer = self.client.complete_json(SYSTEM_PROMPT, user, partial(parse_labels, ids=ids))
            out.update(answer)
        for did, j in out.items():
            if not standing.get(did, True) and j.label == "contradicts":
                out[did] = Judgement(
                    "related",
                    min(j.score, 0.45),
                    j.reason + " (the decision no longer stands)",
                    (*j.rules, ("S1", "the decision no longer stands")),
                )
        return out


def render_diff(diff: ParsedDiff) -> str:
    parts: list[str] = []
    for f in diff.files:
        head = f"--- {f.old_path or f.path} -> {f.path} ({f.status}{', binary' if f.binary else ''})"
        parts.append(head)
        for h in f.hunks:
            parts.append(h.header)
            parts += [k + t for k, t in h.lines]
    text = "\n".join(parts)
    return text if len(text) <= MAX_DIFF_CHARS else text[:MAX_DIFF_CHARS] + "\n[… diff cut …]"


def user_prompt(diff_text: str, batch: list[tuple[Candidate, DecisionInfo]]) -> str:
    blocks = []
    for c, info in batch:
        patches = "\n".join(f"--- {p}\n{x[:MAX_PATCH_CHARS]}" for p, x in list(info.patches.items())[:3])
        blocks.append(
            json.dumps(
                {
                    "decision_id": c.decision_id,
                    "quote": info.quote,
                    "summary": info.summary,
                    "source": info.source_id,
                    "found_by": c.hops,
                },
                ensure_ascii=False,
            )
            + ("\nITS CHANGE:\n" + patches if patches else "\n(no stored hunks for this decision)")
        )
    return "NEW DIFF:\n" + diff_text + "\n\nDECISIONS:\n" + "\n\n".join(blocks)


def parse_labels(data: Any, ids: list[str]) -> dict[str, Judgement]:
    """Check the model's answer: every given id labelled once, known labels, confidence in [0, 1]."""
    if not isinstance(data, dict) or not isinstance(data.get("labels"), list):
        raise ValueError('expected {"labels": [...]}')
    out: dict[str, Judgement] = {}
    for item in data["labels"]:
        if not isinstance(item, dict):
            raise ValueError("each label must be an object")
        did = item.get("decision_id")
        if did not in ids:
            raise ValueError(f"labelled a decision the graph did not return: {did!r}")
        if did in out:
            raise ValueError(f"labelled {did} twice")
        label = item.get("label")
        if label not in LABELS:
            raise ValueError(f"label for {did} must be one of {LABELS}, got {label!r}")
        conf = item.get("confidence")
        if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
            raise ValueError(f"confidence for {did} must be a number in [0, 1], got {conf!r}")
        reason = item.get("reason", "")
        if not isinstance(reason, str):
            raise ValueError(f"reason for {did} must be a string")
        out[did] = Judgement(
            label,
            float(conf) if label != "unrelated" else 0.0,
            reason[:MAX_REASON],
            (("LLM", reason[:MAX_REASON]),) if label != "unrelated" else (),
        )
    missing = [i for i in ids if i not in out]
    if missing:
        raise ValueError(f"no label for {', '.join(missing)}")
    return out
