"""A guard report read like a review: findings grouped by file, the diff lines that triggered each, what was
considered and cleared, scores in words, rejected alternatives the diff implements, the Cypher with its parameter
values (ready for FalkorDB Browser), and the whole as a Markdown PR comment with untrusted text escaped.
No Streamlit here; ui/guard_review.py draws it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TypedDict

from .errors import RGuardError
from .guard.diffparse import parse_diff
from .guard.model import Finding, GuardReport, ParsedDiff
from .jsontypes import JSONObject, ParamsIn
from .untrusted import safe_url, strip_controls

MAX_LINES = 12  # triggering lines shown per finding and file
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_BACKTICK = re.compile(r"`([^`]{2,80})`")
_COMMON = frozenset(
    """the and for with that this from not are was were but have has had you your our use used uses
into over when then than else return self none true false import def class pass elif while with def str int
list dict none null test tests""".split()
)
SCORE_WORDS = (
    (0.8, "strong: the diff rewrites what the decision's own lines did"),
    (0.5, "moderate: the diff changes lines the decision touched, in a way its words cover"),
    (0.0, "weak: the diff is near what the decision touched; worth a look, not a contradiction"),
)


@dataclass(frozen=True)
class DiffLine:
    kind: str  # '+' or '-'
    text: str
    hit: bool  # uses an identifier or phrase from the decision, its quote or its rejected alternatives


@dataclass
class ReviewItem:
    finding: Finding
    file: str
    lines: list[DiffLine] = field(default_factory=list)
    implemented: list[str] = field(default_factory=list)  # rejected alternatives whose words the diff adds


class ReviewRow(TypedDict):
    """One line of the summary table (a DataFrame on the Guard page, a Markdown table in the PR comment)."""

    file: str
    finding: str
    score: float
    decision: str
    source: str
    link: str


@dataclass
class Review:
    verdict: str
    by_file: dict[str, list[ReviewItem]]
    cleared: list[dict[str, str]]
    notes: list[str]

    def rows(self) -> list[ReviewRow]:
        """The summary table: one row per finding, grouped by file."""
        return [
            {
                "file": f,
                "finding": i.finding.label,
                "score": round(i.finding.score, 2),
                "decision": i.finding.summary,
                "source": source_name(i.finding.source),
                "link": safe_url(i.finding.source_url) or "",
            }
            for f, items in self.by_file.items()
            for i in items
        ]


def source_name(src: JSONObject) -> str:
    """A finding's ``source`` object (decisions.source_ref) in words: "PR #12", "Issue #3", a path or its kind."""
    kind, number = src.get("kind"), src.get("number")
    if kind in ("pr", "issue") and number is not None:
        return f"{'PR' if kind == 'pr' else 'Issue'} #{number}"
    return str(src.get("title") or src.get("path") or kind or "source")


def score_words(score: float) -> str:
    return next(text for floor, text in SCORE_WORDS if score >= floor)


def finding_files(f: Finding, diff_paths: list[str]) -> list[str]:
    """The diff's files this finding reached (its reasoning path names them), else the diff's first file."""
    named = [p.split(":", 1)[1] for p in f.path if p.startswith("file:")]
    hit = [p for p in diff_paths if p in named]
    return hit or named[:1] or diff_paths[:1] or ["(no file)"]


def _words(*texts: str) -> set[str]:
    out: set[str] = set()
    for t in texts:
        out |= {w.lower() for w in _IDENT.findall(t or "") if w.lower() not in _COMMON}
    return out


def build_review(report: GuardReport, diff_text: str | None) -> Review:
    """Group the findings by file and mark the lines of ``diff_text`` that triggered each (no diff: no lines)."""
    parsed: ParsedDiff | None = None
    if diff_text and diff_text.strip():
        try:
            parsed = parse_diff(diff_text)
        except RGuardError:
            parsed = None  # the report stands; only the line view is lost
    paths = parsed.paths if parsed else []
    by_file: dict[str, list[ReviewItem]] = {}
    for f in report.findings:
        symbols = {p.split(":", 1)[1].lower() for p in f.path if p.startswith("sym:")}
        vocab = _words(f.quote, f.summary) | symbols
        for path in finding_files(f, paths):
            item = ReviewItem(f, path)
            if parsed is not None:
                item.lines = _lines(parsed, path, vocab)
                item.implemented = implemented_alternatives(parsed, f.alternatives, f.quote)
            by_file.setdefault(path, []).append(item)
    return Review(report.verdict, by_file, list(report.cleared), list(report.notes))


def _lines(parsed: ParsedDiff, path: str, vocab: set[str]) -> list[DiffLine]:
    out: list[DiffLine] = []
    for fd in parsed.files:
        if path not in fd.paths:
            continue
        for h in fd.hunks:
            for kind, text in h.lines:
                if kind in "+-" and text.strip():
                    out.append(DiffLine(kind, text, bool(_words(text) & vocab)))
    hits = [x for x in out if x.hit]
    return (hits or out)[:MAX_LINES]


def implemented_alternatives(parsed: ParsedDiff, alternatives: list[dict[str, str]], decision_quote: str) -> list[str]:
    """Rejected alternatives the diff appears to implement: code the alternative names (in backticks, or
    identifiers the decision's own quote does not use) appears on added lines and not on removed ones."""
    added = " ".join(t for fd in parsed.files for h in fd.hunks for k, t in h.lines if k == "+").lower()
    removed = " ".join(t for fd in parsed.files for h in fd.hunks for k, t in h.lines if k == "-").lower()
    own = _words(decision_quote)
    out = []
    for a in alternatives:
        text = a.get("quote") or a.get("text") or ""
        code = {c.lower() for c in _BACKTICK.findall(text)}
        code |= {w for w in _words(text) - own if "_" in w or "." in w}
        if any(c in added and c not in removed for c in code if len(c) > 2):
            out.append(text)
    return out


def inline_cypher(query: str, params: ParamsIn) -> str:
    """The statement with its parameters as a ``CYPHER name=value …`` header, as FalkorDB Browser runs it."""
    if not params:
        return query.strip()
    head = " ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in sorted(params.items()))
    return f"CYPHER {head}\n{query.strip()}"


def escape_md(text: str) -> str:
    """Untrusted text made inert in GitHub Markdown: control and bidi characters dropped (untrusted.py), punctuation
    escaped, mentions and HTML defused, one line. Prose stays readable, unlike a code span."""
    text = " ".join(strip_controls(str(text)).split())
    text = re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~])", r"\\\1", text)
    return text.replace("@", "@\u200b")


def pr_comment(report: GuardReport, review: Review) -> str:
    """The review as one Markdown PR comment; every repository-derived string goes through ``escape_md``."""
    head = {
        "warn": "⚠️ **RGuard: this change contradicts earlier decisions**",
        "note": "🔎 **RGuard: related earlier decisions**",
        "pass": "✅ **RGuard: no earlier decision touched**",
    }
    lines = [head.get(report.verdict, "**RGuard**"), ""]
    if review.by_file:
        lines += ["| file | finding | decision | source |", "|---|---|---|---|"]
        for row in review.rows():
            link = row["link"] if str(row["link"]).startswith(("https://", "http://")) else ""
            src = f"[{escape_md(row['source'])}]({link})" if link else escape_md(row["source"])
            path = row["file"].replace("`", "").replace("|", "\\|")
            lines.append(f"| `{path}` | {row['finding']} ({row['score']}) | {escape_md(row['decision'])} | {src} |")
        lines.append("")
    for items in review.by_file.values():
        for i in items:
            f = i.finding
            lines += [
                f"**{escape_md(f.summary)}** — {f.label}, {score_words(f.score).split(':')[0]}",
                f"> {escape_md(f.quote)}",
            ]
            if f.experts:
                lines.append("Who to ask: " + ", ".join(escape_md(e["login"]) for e in f.experts))
            for alt in i.implemented:
                lines.append(f"- ⚠️ this diff implements a rejected alternative: {escape_md(alt)}")
            lines.append("")
    if review.cleared:
        lines.append(f"<details><summary>{len(review.cleared)} candidate(s) considered and cleared</summary>\n")
        lines += [f"- {escape_md(c.get('summary') or '')}: {escape_md(c.get('why') or '')}" for c in review.cleared]
        lines.append("\n</details>")
    return "\n".join(lines).strip() + "\n"
