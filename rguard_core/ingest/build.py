"""Turn a RepoHistory plus extraction into graph rows (nodes and edges), enforcing the evidence rule.

Nothing here talks to the database: ``build_graph`` returns a ``GraphBatch`` the writer stores in
batched UNWIND statements, and a ``Coverage`` report of what was kept, dropped and why.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..evidence import RejectedQuote, Span, anchor
from ..jsontypes import JSONObject, Props
from .adr import parse_adr
from .choice import STATED, Worthiness, states_choice
from .extract.base import Candidate, Extractor, Proposal, SourceDoc
from .links import parse_links
from .mechanical import commit_rule, pull_rule
from .model import Comment, Commit, Doc, FileChange, Issue, PullRequest, RepoHistory
from .reverts import RevertIndex, RevertLink

_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,}\b")
_COMMON = frozenset(
    "self None True False return import from class def async await with pass raise else elif while for "
    "this that true false null none string print assert lambda yield global break continue".split()
)
MAX_SYMBOLS = 25
MAX_EDITORS_PER_FILE = 60

Progress = Callable[[str, int, int], None]


@dataclass
class Coverage:
    """What an ingest kept and dropped; shown at the end of every ingest."""

    pulls: int = 0
    issues: int = 0
    comments: int = 0
    docs: int = 0
    commits: int = 0
    people: int = 0
    bots: int = 0
    files: int = 0
    decisions: int = 0
    claims: int = 0
    alternatives: int = 0
    justifications: int = 0
    actions: int = 0
    quotes_kept: int = 0
    quotes_rejected: dict[str, int] = field(default_factory=dict)
    rejected_examples: list[dict[str, str]] = field(default_factory=list)
    unresolved_links: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> JSONObject:
        return dict(self.__dict__)


@dataclass
class Known:
    """What the graph already holds when PRs and commits are appended to it (incremental ingest): the numbers
    links may point at, and the changes a revert may name. Empty for a fresh ingest."""

    pr_numbers: set[int] = field(default_factory=set)
    issue_numbers: set[int] = field(default_factory=set)
    reverts: RevertIndex = field(default_factory=RevertIndex)


@dataclass
class GraphBatch:
    # each Props: a node's or an edge's properties as they are written (no nulls; writer._props drops nested maps)
    nodes: dict[tuple[str, ...], dict[str, Props]] = field(default_factory=lambda: defaultdict(dict))
    edges: dict[tuple[str, str, str], dict[tuple[str, str], Props]] = field(default_factory=lambda: defaultdict(dict))
    # incremental ingest: derived data written as increments, not absolute values (see writer.write_increments)
    incremental: bool = False
    active: dict[str, str] = field(default_factory=dict)  # person id -> latest activity in this batch
    edits: dict[tuple[str, str], tuple[int, str | None]] = field(
        default_factory=dict
    )  # (person id, file id) -> n, last
    reverts: list[RevertLink] = field(default_factory=list)  # in the order the reverting changes landed

    def node(self, node_labels: tuple[str, ...], nid: str, **props: Any) -> str:
        cur = self.nodes[node_labels].get(nid)
        if cur is None:
            self.nodes[node_labels][nid] = {k: v for k, v in props.items() if v is not None}
        else:
            cur.update({k: v for k, v in props.items() if v is not None})
        return nid

    def edge(self, rel: str, src: str, dst: str, src_label: str, dst_label: str, **props: Any) -> None:
        self.edges[(rel, src_label, dst_label)][(src, dst)] = {k: v for k, v in props.items() if v is not None}

    def count(self, label: str) -> int:
        return sum(len(v) for k, v in self.nodes.items() if label in k)


class _Builder:
    def __init__(
        self, hist: RepoHistory, extractor: Extractor, progress: Progress | None, known: Known | None = None
    ) -> None:
        self.h = hist
        self.ex = extractor
        self.progress = progress
        self.known = known
        self.b = GraphBatch(incremental=known is not None)
        self.cov = Coverage(problems=list(hist.problems))
        self.texts: dict[str, str] = {}
        self.pr_numbers = {p.number for p in hist.pulls} | (known.pr_numbers if known else set())
        self.issue_numbers = {i.number for i in hist.issues} | (known.issue_numbers if known else set())
        self.mechanical: dict[str, str] = {}  # source id -> mechanical rule id (mechanical.py)
        for p in hist.pulls:
            if rule := pull_rule(p, hist.people):
                self.mechanical[f"pr:{p.number}"] = rule
        for c in hist.commits:
            if rule := commit_rule(c, hist.people):
                self.mechanical[f"commit:{c.sha}"] = rule
        self.revert_links = self._resolve_reverts(known.reverts if known else RevertIndex())
        self.last_active: dict[str, str] = {}
        self.editors: dict[str, Counter[str]] = defaultdict(Counter)
        self.edit_last: dict[tuple[str, str], str] = {}
        self.decision_of: dict[str, str] = {}  # source id -> decision id
        self.issue_links: dict[str, list[str]] = {}  # source id -> issues it fixes or references

    # --- sources -------------------------------------------------------------------------------
    def source(
        self, kinds: tuple[str, ...], sid: str, text: str, author: str | None, when: str | None, **props: Any
    ) -> None:
        self.texts[sid] = text
        self.b.node(("Source", *kinds), sid, text=text, author=author, **props)
        if author:
            self.b.edge("AUTHORED", f"person:{author}", sid, "Person", "Source")
            if when and when > self.last_active.get(author, ""):
                self.last_active[author] = when

    def pull(self, pr: PullRequest) -> None:
        sid = f"pr:{pr.number}"
        mechanical = self.mechanical.get(sid)
        noise = mechanical is not None
        when = pr.merged_at or pr.closed_at or pr.created_at
        self.source(
            ("PR",),
            sid,
            _join(pr.title, pr.body),
            pr.author,
            when,
            kind="pr",
            number=pr.number,
            title=pr.title,
            body=pr.body,
            url=pr.url,
            state=pr.state,
            merged=pr.merged,
            merged_at=pr.merged_at,
            created_at=pr.created_at,
            closed_at=pr.closed_at,
            merge_commit_sha=pr.merge_commit_sha,
            is_noise=noise,
            mechanical=mechanical,
        )
        symbols: Counter[str] = Counter()
        for f in pr.files:
            self.touch(sid, "PR", f, pr.author if pr.merged else None, when)
            symbols.update(_identifiers(f.patch))
        for name, _ in symbols.most_common(MAX_SYMBOLS):
            self.b.node(("Symbol",), f"sym:{name}", name=name)
            self.b.edge("MENTIONS", sid, f"sym:{name}", "Source", "Symbol")
        self.links(sid, pr.title, pr.body, pr.number)
        for c in pr.comments:
            self.comment(c)
        if pr.merged and not noise:
            stated = states_choice(pr.title, pr.body, pr.files, [c.body for c in pr.comments])
            self.decision_source(
                SourceDoc(sid, "pr", self.texts[sid], "decision", pr.title), [c.id for c in pr.comments], stated
            )
            if sid in self.decision_of:
                self.action(sid, f"Merge of #{pr.number}: {pr.title}", True, [f.path for f in pr.files])

    def touch(self, sid: str, label: str, f: FileChange, editor: str | None, when: str | None) -> None:
        if not f.path:
            return
        fid = self.b.node(("File",), f"file:{f.path}", path=f.path)
        self.b.edge(
            "TOUCHES",
            sid,
            fid,
            "Source",
            "File",
            status=f.status,
            additions=f.additions,
            deletions=f.deletions,
            patch=f.patch,
            previous_path=f.previous_path,
        )
        if f.previous_path:
            self.b.node(("File",), f"file:{f.previous_path}", path=f.previous_path)
            self.b.edge(
                "TOUCHES",
                sid,
                f"file:{f.previous_path}",
                "Source",
                "File",
                status="renamed_from",
                additions=0,
                deletions=0,
                patch="",
            )
        if editor:
            self.editors[f.path][editor] += 1
            if when and when > self.edit_last.get((editor, f.path), ""):
                self.edit_last[(editor, f.path)] = when

    def issue(self, issue: Issue) -> None:
        sid = f"issue:{issue.number}"
        self.source(
            ("Issue",),
            sid,
            _join(issue.title, issue.body),
            issue.author,
            issue.closed_at or issue.created_at,
            kind="issue",
            number=issue.number,
            title=issue.title,
            body=issue.body,
            url=issue.url,
            state=issue.state,
            state_reason=issue.state_reason,
            created_at=issue.created_at,
            closed_at=issue.closed_at,
            labels=issue.labels,
        )
        self.links(sid, "", issue.body, issue.number, only_refs=True)
        for c in issue.comments:
            self.comment(c)

    def comment(self, c: Comment) -> None:
        self.source(
            ("Comment",),
            c.id,
            c.body,
            c.author,
            c.created_at,
            kind="comment",
            body=c.body,
            url=c.url,
            path=c.path,
            created_at=c.created_at,
            parent=c.parent,
            is_review=c.is_review,
        )
        self.b.edge("ON", c.id, c.parent, "Source", "Source")
        for n in parse_links(c.body).references:
            self._link("REFERENCES", c.id, n)

    def doc(self, d: Doc) -> None:
        adr = parse_adr(d.path, d.text)
        sid = f"doc:{d.path}"
        self.source(
            ("Doc",),
            sid,
            d.text,
            None,
            None,
            kind="doc",
            path=d.path,
            title=adr.title,
            status=adr.status,
            url=d.url,
            adr_number=adr.number,
        )
        if d.added_by_pr is not None and d.added_by_pr in self.pr_numbers:
            self.b.edge("ADDS", f"pr:{d.added_by_pr}", sid, "Source", "Source")
        self.decision_source(SourceDoc(sid, "doc", d.text, "decision", adr.title), [])
        if sid in self.decision_of and d.added_by_pr in self.pr_numbers:
            self.b.edge("DERIVED_FROM", self.decision_of[sid], f"pr:{d.added_by_pr}", "Decision", "Source")

    def commit(self, c: Commit) -> None:
        sid = f"commit:{c.sha}"
        self.source(
            ("Commit",),
            sid,
            c.message,
            c.author,
            c.date,
            kind="commit",
            sha=c.sha,
            message=c.message,
            date=c.date,
            pr_number=c.pr_number,
            url=c.url,
            mechanical=self.mechanical.get(sid),
        )
        if c.pr_number is not None and c.pr_number in self.pr_numbers:
            self.b.edge("PART_OF", sid, f"pr:{c.pr_number}", "Source", "Source")
            return
        for f in c.files:
            self.touch(sid, "Commit", f, c.author, c.date)
        title = c.message.split("\n", 1)[0]
        self.links(sid, title, c.message, None)
        if sid not in self.mechanical and not c.branch_merge:  # a branch merge's lines are its commits' choices
            stated = states_choice(title, c.message.partition("\n")[2], c.files)
            self.decision_source(SourceDoc(sid, "commit", c.message, "decision", title), [], stated)
            if sid in self.decision_of:
                self.action(sid, f"Commit {c.sha[:10]}: {title}", True, [f.path for f in c.files])

    # --- links -----------------------------------------------------------------------------------
    def links(self, sid: str, title: str, body: str, own: int | None, only_refs: bool = False) -> None:
        ln = parse_links(body, title, own)
        for n in ln.references:
            self._link("REFERENCES", sid, n)
        if only_refs:
            return
        for n in ln.fixes:
            self._link("FIXES", sid, n)
        for n in ln.depends_on:
            self._link("DEPENDS_ON", sid, n)
        for rv in self.revert_links.get(sid, []):
            self.b.edge("REVERTS", sid, rv.target, "Source", "Source", form=rv.form)

    def _resolve_reverts(self, index: RevertIndex) -> dict[str, list[RevertLink]]:
        """Reverts of every PR and commit in landing order, each resolved against the changes before it (so a
        re-done change with the same title is not taken for what an earlier revert undid)."""
        items: list[tuple[str, str, str, str, tuple[str, ...], int | None]] = []
        messages = {c.sha: c.message for c in self.h.commits}
        for p in self.h.pulls:
            if p.merged or p.state == "open":
                # a PR read from git: its merge commit's own message (subject, branch) is evidence too
                merge_msg = messages.get(p.merge_commit_sha or "")
                body = f"{p.body}\n{merge_msg}" if merge_msg else p.body
                items.append(
                    (
                        p.merged_at or p.created_at or "",
                        f"pr:{p.number}",
                        p.title,
                        body,
                        (p.merge_commit_sha or "",),
                        p.number,
                    )
                )
        for c in self.h.commits:
            title = c.message.split("\n", 1)[0].strip()
            if c.pr_number is not None and c.pr_number in self.pr_numbers:
                index.add(f"pr:{c.pr_number}", None, (c.sha,))  # a commit of a PR: its sha names the PR
                continue
            items.append((c.date or "", f"commit:{c.sha}", title, c.message, (c.sha,), None))
        out: dict[str, list[RevertLink]] = {}  # in landing order (mark_reverted applies them so)
        for _, sid, title, body, shas, number in sorted(items, key=lambda x: x[0]):
            links = index.resolve(sid, title, body)
            if links:
                out[sid] = links
                if sid not in self.mechanical and any(rv.target in index.mechanical for rv in links):
                    self.mechanical[sid] = "M8"  # undoing a bump is as mechanical as the bump
            index.add(sid, title, shas, number)
            if sid in self.mechanical:
                index.mechanical.add(sid)
        return out

    def _link(self, rel: str, sid: str, n: int) -> None:
        if n in self.issue_numbers:
            self.b.edge(rel, sid, f"issue:{n}", "Source", "Source")
            if rel in ("FIXES", "REFERENCES"):
                self.issue_links.setdefault(sid, []).append(f"issue:{n}")
        elif n in self.pr_numbers:
            self.b.edge(rel, sid, f"pr:{n}", "Source", "Source")
        else:
            self.cov.unresolved_links.append(f"{sid} {rel} #{n}")

    # --- extraction ------------------------------------------------------------------------------
    def decision_source(self, doc: SourceDoc, comment_ids: list[str], stated: Worthiness = STATED) -> None:
        """The decision ``doc`` proposes, its alternatives and claims. ``stated``: whether its text states a
        choice (choice.py); one that does not is kept, marked, and the guard warns on it only for a revert."""
        prop = self.ex.extract(doc)
        dspan = self.keep(doc.id, prop.decision) if prop.decision else None
        if not isinstance(dspan, Span) or prop.decision is None:
            return
        did = f"decision:{doc.id}"
        self.quoted(
            ("Decision",),
            did,
            dspan,
            summary=prop.decision.summary,
            extractor=self.ex.name,
            extracted_because=prop.why or self.ex.name,
            stated=stated.stated,
            stated_rule=stated.rule,
            explained=stated.explained,
        )
        self.b.edge("DERIVED_FROM", did, doc.id, "Decision", "Source")
        self.decision_of[doc.id] = did
        self.alternatives(doc.id, prop, did)
        claim_ids = self.claims(doc.id, prop.claims)
        for cid in comment_ids:
            cprop = self.ex.extract(SourceDoc(cid, "comment", self.texts[cid], "claims"))
            claim_ids += self.claims(cid, cprop.claims)
            self.alternatives(cid, cprop, did)
        for issue_id in self.issue_links.get(doc.id, []):
            claim_ids += self.issue_claims(issue_id)
        for cid in dict.fromkeys(claim_ids):
            jid = f"just:{did}:{cid}"
            self.b.node(("Justification",), jid)
            self.b.edge("PREMISE", jid, cid, "Justification", "Claim")
            self.b.edge("JUSTIFIES", jid, did, "Justification", "Decision")

    def issue_claims(self, issue_id: str) -> list[str]:
        key = f"_claims:{issue_id}"
        if issue_id not in self.texts:
            return []  # an issue already in the graph that this batch does not carry: its claims are there
        if key not in self.texts:
            prop = self.ex.extract(
                SourceDoc(
                    issue_id,
                    "issue",
                    self.texts[issue_id],
                    "claims",
                    self.b.nodes[("Source", "Issue")][issue_id].get("title", ""),
                )
            )
            self.texts[key] = "\n".join(self.claims(issue_id, prop.claims))
        return [c for c in self.texts[key].split("\n") if c]

    def claims(self, sid: str, cands: list[Candidate]) -> list[str]:
        out = []
        for c in cands:
            span = self.keep(sid, c)
            if isinstance(span, Span):
                cid = f"claim:{sid}:{span.start}:{span.end}"
                self.quoted(
                    ("Claim",), cid, span, statement=c.summary or span.text, kind=c.kind, extractor=self.ex.name
                )
                out.append(cid)
        return out

    def alternatives(self, sid: str, prop: Proposal, did: str) -> None:
        for a in prop.alternatives:
            span = self.keep(sid, a)
            if isinstance(span, Span):
                aid = f"alt:{sid}:{span.start}:{span.end}"
                self.quoted(("Alternative",), aid, span, text=a.summary or span.text)
                self.b.edge("REJECTED_FOR", aid, did, "Alternative", "Decision")

    def keep(self, sid: str, cand: Candidate | None) -> Span | RejectedQuote | None:
        if cand is None:
            return None
        res = anchor(sid, self.texts[sid], cand.quote)
        if isinstance(res, RejectedQuote):
            self.cov.quotes_rejected[res.reason] = self.cov.quotes_rejected.get(res.reason, 0) + 1
            if len(self.cov.rejected_examples) < 20:
                self.cov.rejected_examples.append({"source": sid, "quote": res.quote[:200], "reason": res.reason})
        return res

    def quoted(self, labels: tuple[str, ...], nid: str, span: Span, **props: Any) -> None:
        fid = f"frag:{span.source_id}:{span.start}:{span.end}"
        self.b.node(("Fragment",), fid, source_id=span.source_id, start=span.start, end=span.end, text=span.text)
        self.b.edge("HAS_FRAGMENT", span.source_id, fid, "Source", "Fragment")
        self.b.node(labels, nid, quote=span.text, source_id=span.source_id, start=span.start, end=span.end, **props)
        self.b.edge("EVIDENCED_BY", nid, fid, labels[0], "Fragment")

    def action(self, sid: str, summary: str, executed: bool, paths: list[str]) -> None:
        aid = f"action:{sid}"
        self.b.node(("Action",), aid, summary=summary, executed=executed)
        self.b.edge("IMPLEMENTS", aid, self.decision_of[sid], "Action", "Decision")
        for p in paths:
            self.b.edge("CHANGES", aid, f"file:{p}", "Action", "File")

    # --- docs, people ----------------------------------------------------------------------------
    def supersessions(self) -> None:
        by_num = {parse_adr(d.path, d.text).number: d for d in self.h.docs}
        for d in self.h.docs:
            adr = parse_adr(d.path, d.text)
            for n in adr.supersedes:
                old = by_num.get(n)
                if old is not None and old is not d:
                    self._supersede(f"doc:{d.path}", f"doc:{old.path}")
            for n in adr.superseded_by:
                new = by_num.get(n)
                if new is not None and new is not d:
                    self._supersede(f"doc:{new.path}", f"doc:{d.path}")

    def _supersede(self, new_doc: str, old_doc: str) -> None:
        self.b.edge("SUPERSEDES", new_doc, old_doc, "Source", "Source")
        new_d, old_d = self.decision_of.get(new_doc), self.decision_of.get(old_doc)
        if new_d and old_d:
            self.b.edge("SUPERSEDES", new_d, old_d, "Decision", "Decision")

    def people(self) -> None:
        if self.b.incremental:
            self._people_increments()
            return
        for login, p in self.h.people.items():
            self.b.node(
                ("Person",),
                f"person:{login}",
                login=login,
                is_bot=p.is_bot,
                name=p.name,
                last_active=self.last_active.get(login),
            )
        pair_weight: Counter[tuple[str, str]] = Counter()
        for path, eds in self.editors.items():
            humans = [e for e, _ in eds.most_common(MAX_EDITORS_PER_FILE) if not self.h.people[e].is_bot]
            for e in humans:
                self.b.edge(
                    "EDITED",
                    f"person:{e}",
                    f"file:{path}",
                    "Person",
                    "File",
                    count=eds[e],
                    last_at=self.edit_last.get((e, path)),
                )
            for i, a in enumerate(humans):
                for c in humans[i + 1 :]:
                    pair_weight[(min(a, c), max(a, c))] += 1  # one key per pair, whatever the files' order
        for (a, c), w in pair_weight.items():
            self.b.edge("COLLABORATED", f"person:{a}", f"person:{c}", "Person", "Person", weight=w)
            self.b.edge("COLLABORATED", f"person:{c}", f"person:{a}", "Person", "Person", weight=w)

    def _people_increments(self) -> None:
        """Appending: last activity and edit counts become increments the writer adds to what is stored, so
        the cost follows the batch, not the history (COLLABORATED follows from new EDITED pairs there)."""
        for login, p in self.h.people.items():
            self.b.node(("Person",), f"person:{login}", login=login, is_bot=p.is_bot, name=p.name)
            if login in self.last_active:
                self.b.active[f"person:{login}"] = self.last_active[login]
        for path, eds in self.editors.items():
            for e, n in eds.items():
                if not self.h.people[e].is_bot:
                    self.b.edits[(f"person:{e}", f"file:{path}")] = (n, self.edit_last.get((e, path)))


def build_graph(
    hist: RepoHistory, extractor: Extractor, progress: Progress | None = None, known: Known | None = None
) -> tuple[GraphBatch, Coverage]:
    """Every node and edge for ``hist``; quotes that are not verbatim are dropped and counted.

    With ``known`` the batch is an append to a graph that already holds those PRs and issues: links may
    point at them, and people's activity and edit counts are written as increments."""
    bd = _Builder(hist, extractor, progress, known)
    for login in list(hist.people):
        hist.person(login)
    for i, issue in enumerate(hist.issues):
        bd.issue(issue)
        if progress:
            progress("extract issues", i + 1, len(hist.issues))
    for i, pr in enumerate(sorted(hist.pulls, key=lambda p: p.number)):
        bd.pull(pr)
        if progress and (i % 25 == 0 or i + 1 == len(hist.pulls)):
            progress("extract pull requests", i + 1, len(hist.pulls))
    for d in hist.docs:
        bd.doc(d)
    for c in hist.commits:
        bd.commit(c)
    bd.supersessions()
    bd.b.reverts = [
        rv
        for sid, links in bd.revert_links.items()
        for rv in links
        if ("REVERTS", "Source", "Source") in bd.b.edges
        and (sid, rv.target) in bd.b.edges[("REVERTS", "Source", "Source")]
    ]
    bd.people()
    _fill_coverage(bd, hist)
    return bd.b, bd.cov


def _fill_coverage(bd: _Builder, hist: RepoHistory) -> None:
    c, b = bd.cov, bd.b
    c.pulls, c.issues, c.docs, c.commits = len(hist.pulls), len(hist.issues), len(hist.docs), len(hist.commits)
    c.comments = b.count("Comment")
    c.people = sum(1 for p in hist.people.values() if not p.is_bot)
    c.bots = sum(1 for p in hist.people.values() if p.is_bot)
    c.files, c.decisions, c.claims = b.count("File"), b.count("Decision"), b.count("Claim")
    c.alternatives, c.justifications, c.actions = b.count("Alternative"), b.count("Justification"), b.count("Action")
    c.quotes_kept = c.decisions + c.claims + c.alternatives


def _join(title: str, body: str) -> str:
    return f"{title}\n\n{body}" if body else title


def _identifiers(patch: str) -> Counter[str]:
    out: Counter[str] = Counter()
    for line in patch.splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            for m in _IDENT.findall(line[1:]):
                if m not in _COMMON:
                    out[m] += 1
    return out
