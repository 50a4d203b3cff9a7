"""What crosses a module boundary has a type: these modules spell no raw ``dict[str, Any]``.

A dict that is dynamic by nature says which kind it is (``rguard_core/jsontypes.py``): ``JSONObject`` (a JSON
contract), ``Row`` (a Cypher answer row), ``Params``/``ParamsIn`` (a statement's parameters) or ``Props`` (a node's
stored properties). A record with known fields is a frozen dataclass, or a ``TypedDict`` when it is stored or
printed as-is. The modules below were brought there (issue 16); a new ``dict[str, Any]`` in one of them fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "rguard_core"
TYPED = [
    "db.py",
    "errors.py",
    "review.py",
    "guard/lookups.py",
    "guard/decisions.py",
    "guard/model.py",
    "guard/experts.py",
    "guard/run.py",
    *(str(p.relative_to(CORE)) for p in sorted((CORE / "explore").glob("*.py"))),
    *(str(p.relative_to(CORE)) for p in sorted((CORE / "memory").glob("*.py"))),
    *(str(p.relative_to(CORE)) for p in sorted((CORE / "engine").glob("*.py"))),
]


def raw_dicts(tree: ast.AST) -> list[int]:
    """Lines where ``dict[str, Any]`` is spelled (annotations, aliases, casts: anywhere in code, not in text)."""
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "dict"
            and isinstance(node.slice, ast.Tuple)
            and [getattr(e, "id", None) for e in node.slice.elts] == ["str", "Any"]
        ):
            out.append(node.lineno)
    return out


@pytest.mark.parametrize("module", TYPED)
def test_no_raw_dict_any(module: str) -> None:
    path = CORE / module
    lines = raw_dicts(ast.parse(path.read_text(encoding="utf-8")))
    assert not lines, (
        f"{module} spells dict[str, Any] on line(s) {lines}: use a frozen dataclass or TypedDict for a record, "
        "or name the dynamic kind (JSONObject, Row, Params, Props from rguard_core/jsontypes.py)"
    )


def test_the_finder_sees_one() -> None:
    # the check above can fail: the finder recognises the spelling in an annotation and in an alias
    src = "from typing import Any\nX = dict[str, Any]\ndef f(a: dict[str, Any]) -> None: ...\n"
    assert raw_dicts(ast.parse(src)) == [2, 3]
    assert raw_dicts(ast.parse("def f(a: dict[str, object]) -> None: ...\n")) == []


def test_the_aliases_are_defined_once() -> None:
    tree = ast.parse((CORE / "jsontypes.py").read_text(encoding="utf-8"))
    names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert {"JSONObject", "Row", "Params", "ParamsIn", "Props"} <= names
