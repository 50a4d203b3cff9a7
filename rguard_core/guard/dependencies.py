"""S15: dependency versions changed again, where the decision's words name none of them, are not its undo.

A manifest's dependency lines (``"typescript": "^2.8.1",`` in package.json, ``"httpx>=0.23",`` in
pyproject.toml) move with every upgrade. axios reverted "fix: update a bunch of dependencies" and later raised
typescript, webpack and a few dev packages again, one by one, as the revert had planned; line by line each step
turns back the revert (REV3, D1). A blind reader: "only typescript is raised again, one piece of the reverted bulk
upgrade, as that revert planned". A decision that pinned a package on purpose names it ("Fixing Mocha tests by
locking follow-redirects version to 1.5.10"; zod's "Roll back to 4.3"), and setting that pin back still contradicts.

The test: every line the diff changes in the product files it shares with the decision is a dependency line, and
the decision's words (quote, summary, title, premises) name none of those packages and none of their versions.
"""

from __future__ import annotations

import re

from .diffparse import patch_hunks
from .judge_case import Case
from .model import Judgement

DEPENDENCY_RULE = "S15"
_JSON_DEP = re.compile(
    r'^\s*"(@?[\w.-]+(?:/[\w.-]+)?)"\s*:\s*"(?:[~^<>=!]*\s*v?\d[\w.+*-]*(?:[\s|<>=~^,]+v?\d[\w.+*-]*)*)"\s*,?\s*$'
)
_PEP508 = re.compile(
    r"""^\s*["']([A-Za-z0-9][\w.-]*)(?:\[[\w,\s-]*\])?\s*(?:[<>=!~]=?|===)\s*[\w.*+-]+[^"']*["']\s*,?\s*$"""
)
_TOML_DEP = re.compile(r"""^\s*([A-Za-z0-9][\w.-]*)\s*=\s*["'][~^<>=!]*\s*\d[\w.*+-]*["']\s*$""")


def dependency(line: str) -> tuple[str, str] | None:
    """(package, version text) when ``line`` only states a dependency's version, else None."""
    for pattern in (_JSON_DEP, _PEP508, _TOML_DEP):
        m = pattern.match(line)
        if m:
            rest = line[m.end(1) :]
            versions = re.findall(r"\d+(?:\.\d+)+|\d+", rest)
            return m.group(1), " ".join(versions)
    return None


def _named(words: str, package: str, versions: str) -> bool:
    low = words.lower()
    name = package.lower().rsplit("/", 1)[-1]
    if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", low):
        return True
    return any(re.search(r"(?<![\w.])" + re.escape(v) + r"(?![\w])", low) for v in versions.split() if "." in v)


# a decision that holds a version where it is ("locking follow-redirects version to 1.5.10") is undone by any move
_PIN = re.compile(
    r"\b(?:lock(?:s|ed|ing)?|pin(?:s|ned|ning)?|freez(?:e|es|ing)|frozen|hold(?:s|ing)?|exact(?:ly)?)\b", re.I
)


def _version(text: str) -> tuple[int, ...] | None:
    m = re.search(r"\d+(?:\.\d+)*", text)
    return tuple(int(x) for x in m.group(0).split(".")) if m else None


def _moves(removed: list[str], added: list[str]) -> dict[str, int]:
    """Per package, which way its version moved between a removed and an added line: +1 up, -1 down."""
    old = {d[0]: _version(d[1]) for x in removed if (d := dependency(x))}
    new = {d[0]: _version(d[1]) for x in added if (d := dependency(x))}
    out = {}
    for name, before in old.items():
        after = new.get(name)
        if before is not None and after is not None and before != after:
            out[name] = 1 if after > before else -1
    return out


def unnamed_dependencies(case: Case, j: Judgement) -> str | None:
    """Why a contradiction standing only on dependency lines is related, or None: each package the diff moves is one
    the decision's words do not name, or one it moved the same way (axios's "[Updated] follow-redirects version"
    raised it to ^1.13.3; "follow-redirects to the latest version" raised it again: blind round 10, wrong)."""
    if j.label != "contradicts":
        return None
    info = case.info
    words = " ".join((info.quote, info.summary, info.source_title, *info.claims))
    packages: list[str] = []
    onward: list[str] = []
    for path, cs in case.diff_sets.items():
        if path not in info.patches or cs.test or cs.kind == "prose":
            continue
        lines = [(k, x) for h in patch_hunks(info.patches[path]) for k, x in h]
        theirs = _moves([x for k, x in lines if k == "-"], [x for k, x in lines if k == "+"])
        ours = _moves(cs.removed_lines, cs.added_lines)
        for line in cs.removed_lines + cs.added_lines:
            if not line.strip():
                continue
            dep = dependency(line)
            if dep is None:
                return None
            if _named(words, *dep):
                if dep[0] not in theirs or ours.get(dep[0]) != theirs[dep[0]] or _PIN.search(words):
                    return None  # a pin the words name, set back (or moved where the decision did not go)
                if dep[0] not in onward:
                    onward.append(dep[0])
            elif dep[0] not in packages:
                packages.append(dep[0])
    if not packages and not onward:
        return None
    if onward:
        return (
            f"the diff only changes dependency versions, and moves {_shown(onward)} the way the decision did: "
            f"the same upgrade (or downgrade) taken further, not its undo"
        )
    return (
        f"the diff only changes dependency versions ({_shown(packages)}), and the decision's words name none of "
        f"them: an upgrade or a downgrade, not its undo"
    )


def _shown(packages: list[str]) -> str:
    return ", ".join(f"`{p}`" for p in packages[:4]) + (f" and {len(packages) - 4} more" if len(packages) > 4 else "")
