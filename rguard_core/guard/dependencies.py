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


def unnamed_dependencies(case: Case, j: Judgement) -> str | None:
    """Why a contradiction standing only on dependency lines the decision's words do not name is related, or None."""
    if j.label != "contradicts":
        return None
    info = case.info
    words = " ".join((info.quote, info.summary, info.source_title, *info.claims))
    packages: list[str] = []
    for path, cs in case.diff_sets.items():
        if path not in info.patches or cs.test or cs.kind == "prose":
            continue
        for line in cs.removed_lines + cs.added_lines:
            if not line.strip():
                continue
            dep = dependency(line)
            if dep is None or _named(words, *dep):
                return None
            if dep[0] not in packages:
                packages.append(dep[0])
    if not packages:
        return None
    shown = ", ".join(f"`{p}`" for p in packages[:4]) + (f" and {len(packages) - 4} more" if len(packages) > 4 else "")
    return (
        f"the diff only changes dependency versions ({shown}), and the decision's words name none of them: an "
        f"upgrade or a downgrade, not its undo"
    )
