"""Seed story and eval cases are data with one shared edit format; the engines reproduce the committed outputs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def edits() -> ModuleType:
    return _load("edits", ROOT / "seeds" / "edits.py")


@pytest.mark.slow
def test_make_cases_reproduces_the_committed_cases(tmp_path: Path) -> None:
    out = tmp_path / "cases.yaml"
    run = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "make_cases.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert out.read_text(encoding="utf-8") == (ROOT / "eval" / "cases.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"sub": "a.py", "old": "x"}, "takes exactly the keys"),
        ({"paste": "a.py", "text": "x"}, "unknown edit 'paste'"),
        ({"put": "a.py", "text": 3}, "must be a string"),
        ("sub a.py", "must be a mapping"),
    ],
)
def test_malformed_edits_name_what_is_wrong(edits: ModuleType, raw: object, message: str) -> None:
    with pytest.raises(edits.EditError, match=message):
        edits.parse_edit(raw, "case x")


def test_edits_apply_in_order_and_refuse_what_does_not_fit(edits: ModuleType) -> None:
    tree = {"a.py": "one\ntwo\n"}
    parsed = edits.parse_edits(
        [
            {"sub": "a.py", "old": "two", "new": "three"},
            {"rename": "a.py", "to": "b.py"},
            {"create": "c.py", "text": "new\n"},
        ],
        "case y",
    )
    renames: dict[str, str] = {}
    assert edits.apply_edits(tree, parsed, renames=renames) == {"b.py": "one\nthree\n", "c.py": "new\n"}
    assert renames == {"b.py": "a.py"} and tree == {"a.py": "one\ntwo\n"}  # the input tree is left alone
    for bad, message in [
        ({"sub": "a.py", "old": "o", "new": "x"}, "found it 2 times"),
        ({"create": "a.py", "text": "x"}, "already exists"),
        ({"remove": "zz.py"}, "no such file"),
        ({"revert": "pr_1"}, "only the seed history"),
    ]:
        with pytest.raises(edits.EditError, match=message):
            edits.apply_edits({"a.py": "one\ntwo\n"}, [edits.parse_edit(bad, "case z")])


def test_story_loader_names_the_bad_record(tmp_path: Path) -> None:
    model = _load("story_model", ROOT / "seeds" / "story_model.py")
    story = tmp_path / "story"
    (story / "events").mkdir(parents=True)
    for name in ("repo.yaml", "people.yaml", "initial_tree.yaml", "stories.yaml", "special.yaml"):
        (story / name).write_text((ROOT / "seeds" / "story" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (story / "events" / "2024.yaml").write_text(
        "- pr: pr_x\n  title: X\n  author: mlindqvist\n  created: 2024-01-08 09:12\n  body: b\n"
        "  edits:\n  - sub: README.md\n    old: a\n",
        encoding="utf-8",
    )
    with pytest.raises(model.StoryError, match="PR pr_x: a 'sub' edit takes exactly the keys"):
        model.load_story(story)
