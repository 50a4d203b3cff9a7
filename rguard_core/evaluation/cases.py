"""Labelled guard cases: load a YAML cases file and validate every case before anything runs.

A cases file is ``{repo: OWNER/NAME, cases: [{id, label, kind, expect_source, why, diff, ...}]}``.
``label`` is ``contradicts`` or ``benign``; a contradicting case names the source it undoes in
``expect_source`` (a PR/issue number, or a doc path / ADR id / decision id). Extra keys (``base``,
``source_commit``) are kept but not used. Any bad case fails the whole load with a message naming it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..db import validate_repo
from ..errors import DiffParseError, InvalidInput
from ..files import read_regular
from ..jsontypes import JSONObject

LABELS = ("contradicts", "benign")
# The kinds the issue asks for; other kinds are accepted (a repository may define its own).
KNOWN_KINDS = ("cue-word", "paraphrase", "multi-file", "revert", "benign-same-file", "benign-other-file")


@dataclass(frozen=True)
class GuardCase:
    """One labelled diff."""

    id: str
    label: str
    kind: str
    diff: str
    why: str = ""
    expect_source: int | str | None = None
    extra: JSONObject = field(default_factory=dict)  # the case's other fields in the file, kept as written


@dataclass(frozen=True)
class CaseSet:
    """A validated cases file: the repository it targets and its cases in file order."""

    repo: str
    cases: list[GuardCase]
    path: str = ""

    def kinds(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cases:
            out[c.kind] = out.get(c.kind, 0) + 1
        return out


def load_cases(path: str | Path, *, check_diffs: bool = True) -> CaseSet:
    """Read and validate a cases YAML file; InvalidInput names the file and the case that is wrong."""
    p = Path(path)
    try:
        raw = yaml.safe_load(read_regular(p, "cases file").decode("utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"cases file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"cannot read cases file {p}: {e}") from None
    except yaml.YAMLError as e:
        raise InvalidInput(f"cases file {p} is not valid YAML: {e}") from None
    return parse_cases(raw, where=str(p.resolve()), check_diffs=check_diffs)


def parse_cases(raw: Any, *, where: str = "cases", check_diffs: bool = True) -> CaseSet:
    """Validate decoded YAML (a dict with ``repo`` and ``cases``) into a CaseSet."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where}: expected a mapping with 'repo' and 'cases'")
    repo = raw.get("repo")
    if not isinstance(repo, str) or not repo.strip():
        raise InvalidInput(f"{where}: missing 'repo: OWNER/NAME' (the repository the cases were written against)")
    repo = validate_repo(repo)
    items = raw.get("cases")
    if not isinstance(items, list) or not items:
        raise InvalidInput(f"{where}: 'cases' must be a non-empty list")
    cases: list[GuardCase] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        case = _case(item, f"{where}: cases[{i}]")
        if case.id in seen:
            raise InvalidInput(f"{where}: duplicate case id {case.id!r}")
        seen.add(case.id)
        if check_diffs:
            _check_parses(case, where)
        cases.append(case)
    return CaseSet(repo, cases, where)


def _case(item: Any, where: str) -> GuardCase:
    if not isinstance(item, dict):
        raise InvalidInput(f"{where} must be a mapping")
    cid = item.get("id")
    if not isinstance(cid, str) or not cid.strip():
        raise InvalidInput(f"{where}: 'id' must be a non-empty string")
    where = f"{where} ({cid})"
    label = item.get("label")
    if label not in LABELS:
        raise InvalidInput(f"{where}: 'label' must be one of {', '.join(LABELS)}, got {label!r}")
    kind = item.get("kind")
    if not isinstance(kind, str) or not kind.strip():
        raise InvalidInput(f"{where}: 'kind' must be a non-empty string such as {', '.join(KNOWN_KINDS)}")
    diff = item.get("diff")
    if not isinstance(diff, str) or not diff.strip():
        raise InvalidInput(f"{where}: 'diff' must be a non-empty unified diff")
    why = item.get("why", "")
    if not isinstance(why, str):
        raise InvalidInput(f"{where}: 'why' must be a string")
    expect = _expect(item.get("expect_source"), label, where)
    known = {"id", "label", "kind", "diff", "why", "expect_source"}
    extra = {k: v for k, v in item.items() if k not in known}
    return GuardCase(cid.strip(), label, kind.strip(), diff, why, expect, extra)


def _expect(value: Any, label: str, where: str) -> int | str | None:
    if value is None or value == "":
        if label == "contradicts":
            raise InvalidInput(f"{where}: a contradicting case needs 'expect_source' (PR/issue number, doc path or id)")
        return None
    if isinstance(value, bool):
        raise InvalidInput(f"{where}: 'expect_source' must be a number or a string, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip().lstrip("#")
        return int(text) if text.isdigit() else value.strip()
    raise InvalidInput(f"{where}: 'expect_source' must be a number or a string, got {value!r}")


def _check_parses(case: GuardCase, where: str) -> None:
    from ..guard.diffparse import parse_diff  # late: the guard package is heavy and not needed to read YAML

    try:
        parse_diff(case.diff)
    except DiffParseError as e:
        raise InvalidInput(f"{where}: case {case.id!r} has a diff that does not parse: {e}") from None


def check_applies(case_set: CaseSet, tree: str | Path) -> dict[str, str]:
    """Which cases' diffs do not apply to the files under ``tree`` (``git apply --check``): {id: reason}."""
    root = Path(tree)
    if not root.is_dir():
        raise InvalidInput(f"no such folder: {root}")
    failures: dict[str, str] = {}
    # A copy outside any repository: inside one, git apply would resolve paths against that repository's top.
    with tempfile.TemporaryDirectory(prefix="rguard-apply-") as tmp:
        work = Path(tmp) / "tree"
        shutil.copytree(root, work)
        env = {**os.environ, "GIT_CEILING_DIRECTORIES": tmp}
        for case in case_set.cases:
            diff = case.diff if case.diff.endswith("\n") else case.diff + "\n"
            try:
                res = subprocess.run(
                    ["git", "apply", "--check", "--recount", "-"],
                    input=diff.encode(),
                    cwd=work,
                    env=env,
                    capture_output=True,
                    timeout=30,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as e:
                raise InvalidInput(f"cannot run git apply to check case {case.id!r}: {e}") from None
            if res.returncode != 0:
                failures[case.id] = res.stderr.decode("utf-8", errors="replace").strip() or "git apply failed"
    return failures
