"""A tiny, deliberately naive reference for the memory semantics, written from the issue text alone.

It shares no code with rguard_core.memory: holds by repeated sweeps until nothing changes, support by plain
backward search, lineage roots by plain recursion. Tests compare the real engine (on FalkorDB) with it.
"""

from __future__ import annotations

from typing import Any

RANK = {None: 0, "review": 1, "correction": 2, "compensation": 3}


class Oracle:
    def __init__(self, scenario: dict[str, Any]) -> None:
        self.derived = {s["id"]: list(s.get("derived_from") or []) for s in scenario.get("sources", [])}
        self.claim_source = {
            c["id"]: (c["source"] if c.get("source") is not None and c.get("quote") is not None else None)
            for c in scenario.get("claims", [])
        }
        self.decisions = [d["id"] for d in scenario.get("decisions", [])]
        self.justs = [(j["conclusion"], list(j["premises"])) for j in scenario.get("justifications", [])]
        self.actions = {a["id"]: (a["decision"], bool(a.get("executed", False))) for a in scenario.get("actions", [])}
        self.quarantined: set[str] = set()
        self.superseded: set[str] = set()
        self.labels: dict[str, str | None] = {d: None for d in self.decisions}

    # --- semantics -------------------------------------------------------------------------------------
    def is_holding_observation(self, c: str) -> bool:
        src = self.claim_source.get(c)
        return src is not None and src not in self.quarantined and c not in self.superseded

    def holds(self) -> dict[str, bool]:
        h = {c: self.is_holding_observation(c) for c in self.claim_source}
        h.update({d: False for d in self.decisions})
        changed = True
        while changed:
            changed = False
            for concl, prem in self.justs:
                if prem and all(h[p] for p in prem) and not h[concl] and concl not in self.superseded:
                    h[concl] = True
                    changed = True
        return h

    def support(self, node: str, h: dict[str, bool]) -> set[str]:
        """Holding observations reachable from ``node`` through justifications whose premises all hold."""
        seen: set[str] = set()
        found: set[str] = set()

        def walk(n: str) -> None:
            if n in seen:
                return
            seen.add(n)
            if n in self.claim_source and self.is_holding_observation(n):
                found.add(n)
            for concl, prem in self.justs:
                if concl == n and prem and all(h[p] for p in prem):
                    for p in prem:
                        walk(p)

        if h[node]:
            walk(node)
        return found

    def roots(self, sid: str) -> set[str]:
        parents = self.derived.get(sid, [])
        if not parents:
            return {sid}
        out: set[str] = set()
        for p in parents:
            out |= self.roots(p)
        return out

    def status(self) -> dict[str, Any]:
        h = self.holds()
        claims = {}
        for c in self.claim_source:
            roots: set[str] = set()
            for obs in self.support(c, h):
                roots |= self.roots(self.claim_source[obs])  # type: ignore[arg-type]
            claims[c] = {"holds": h[c], "sources": len(roots)}
        decisions = {d: {"holds": h[d], "label": self.labels[d]} for d in self.decisions}
        actions = {}
        for a, (d, executed) in self.actions.items():
            actions[a] = {"status": "active" if h[d] else ("compensate" if executed else "held")}
        return {
            "claims": dict(sorted(claims.items())),
            "decisions": dict(sorted(decisions.items())),
            "actions": dict(sorted(actions.items())),
        }

    # --- steps -----------------------------------------------------------------------------------------
    def _step(self, change: Any, taken: Any, review_kept: bool) -> dict[str, Any]:
        before = self.holds()
        touched = {d for d in self.decisions if before[d] and taken(self.support(d, before), before, d)}
        change()
        after = self.holds()
        kept = []
        for d in self.decisions:
            if not before[d]:
                continue
            new = None
            if not after[d]:
                executed = any(e for (dd, e) in self.actions.values() if dd == d)
                new = "compensation" if executed else "correction"
            elif d in touched:
                kept.append(d)
                new = "review" if review_kept else None
            if RANK[new] > RANK[self.labels[d]]:
                self.labels[d] = new
        return {
            "fell_claims": sorted(c for c in self.claim_source if before[c] and not after[c]),
            "fell_decisions": sorted(d for d in self.decisions if before[d] and not after[d]),
            "kept": sorted(kept),
        }

    def quarantine(self, sid: str) -> dict[str, Any]:
        def taken(support: set[str], before: dict[str, bool], d: str) -> bool:
            return any(self.claim_source[o] == sid for o in support)

        return self._step(lambda: self.quarantined.add(sid), taken, review_kept=True)

    def correct(self, claim: str, replacement: str, new_source: str) -> dict[str, Any]:
        def taken(support: set[str], before: dict[str, bool], d: str) -> bool:
            # the corrected claim is in d's holding support when d reaches it through holding justifications
            return before[claim] and self._reaches(d, claim, before)

        def change() -> None:
            self.superseded.add(claim)

        out = self._step(change, taken, review_kept=False)
        self.claim_source[replacement] = new_source
        self.derived[new_source] = []
        return out

    def _reaches(self, node: str, target: str, h: dict[str, bool]) -> bool:
        seen: set[str] = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n == target:
                return True
            if n in seen:
                continue
            seen.add(n)
            for concl, prem in self.justs:
                if concl == n and prem and all(h[p] for p in prem):
                    stack.extend(prem)
        return False
