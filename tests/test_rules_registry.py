"""The rule registry (guard/registry.py), its fixtures (guard/fixtures/<ID>.yaml) and ``rguard rules``.

Ids are unique across every family of rules a reader meets (the registry's four, who to ask H1-H4, the premise
rules R1-R7/P1-P3, the import hop's I1); every entry is documented and the guard README's index is the generated
one; ``rules --check`` passes on the fixtures present. Rules whose fixtures another branch writes may have no
file yet: ``AWAITED`` lists them (every registry id outside ``WRITTEN_HERE``), and only those may be missing."""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from pathlib import Path

import pytest

from rguard_core.commands.main import main
from rguard_core.guard import experts, fixtures, premises, registry
from rguard_core.guard.judge_offline import POLICY, RULES
from rguard_core.ingest import choice, mechanical

ROOT = Path(__file__).resolve().parent.parent
GUARD_README = ROOT / "rguard_core" / "guard" / "README.md"
WRITTEN_HERE = frozenset(r.id for r in registry.RULES)  # every rule has its fixtures: each file present and passing
AWAITED: frozenset[str] = frozenset()  # rules allowed to have no file yet: none
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
KINDS = fixtures.KINDS


def test_ids_are_unique_across_every_family_of_rules() -> None:
    ids = [r.id for r in registry.RULES] + list(experts.RULES) + [r.id for r in premises.RULES] + ["I1"]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, f"rule ids used twice: {dupes}"
    names = [r.name for r in registry.RULES]
    assert len(set(names)) == len(names), sorted({n for n in names if names.count(n) > 1})
    assert all(KEBAB.match(n) for n in names), [n for n in names if not KEBAB.match(n)]


def test_the_registry_lists_every_rule_of_its_modules_and_documents_each() -> None:
    by_family = {f: [r.id for r in registry.RULES if r.family == f] for f in registry.FAMILIES}
    assert by_family["judge"] == [r.id for r in RULES] and set(POLICY) == set(by_family["judge"])
    assert by_family["policy"] == [f"S{i}" for i in range(1, 17)]
    assert by_family["choice"] == list(choice.RULES) and by_family["mechanical"] == list(mechanical.RULES)
    for r in registry.RULES:
        assert r.summary.strip() and r.name, r
        assert r.label == (POLICY[r.id] if r.family == "judge" else "related" if r.family == "policy" else "-"), r
        module = importlib.import_module(r.module)  # the module it names exists
        assert module.__file__ and Path(module.__file__).is_file()
    assert registry.find("rev1") is registry.find("exact-revert") is registry.BY_ID["REV1"]
    assert registry.find("nope") is None


def test_the_guard_readme_holds_the_generated_index_and_explains_every_judge_and_policy_rule() -> None:
    text = GUARD_README.read_text(encoding="utf-8")
    begin, end = text.find(registry.MARKDOWN_BEGIN), text.find(registry.MARKDOWN_END)
    assert begin >= 0 and end > begin, "the guard README lost its rule index markers"
    shown = text[begin : end + len(registry.MARKDOWN_END)] + "\n"
    assert shown == registry.markdown(), (
        "rguard_core/guard/README.md's rule index differs from the registry; replace the block between the "
        "markers with the output of\npython -m rguard_core rules --markdown\n\n" + registry.markdown()
    )
    details = text[end:]
    for r in registry.RULES:
        if r.family in ("judge", "policy"):
            assert f"\n| {r.id} | " in details, f"{r.id} has no row saying what fires it and why"


def test_rules_check_passes_on_the_fixtures_present() -> None:
    present = {p.stem for p in fixtures.FIXTURES_DIR.glob("*.yaml")}
    assert WRITTEN_HERE <= present, sorted(WRITTEN_HERE - present)
    failures, ran = fixtures.check(allow_missing=AWAITED)
    assert not failures, "\n".join(map(str, failures))
    assert ran >= 2 * len(WRITTEN_HERE)
    for rid in WRITTEN_HERE:
        fx = fixtures.load(rid)
        assert fx is not None and fx.count("fires") >= 1 and fx.count("quiet") >= 1, rid


def _write(directory: Path, rule: str, body: str) -> None:
    (directory / f"{rule}.yaml").write_text(f"rule: {rule}\n{body}", encoding="utf-8")


def test_check_reports_each_failure_with_the_case_what_was_expected_and_what_the_judgement_said(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        "D4",
        """fires:
  - name: a rewording fires nothing
    decision:
      quote: We decided this.
      files:
        svc/t.py: {old: "def f(x):\\n    return x\\n", new: "def f(x):\\n    if not x:\\n        raise E('missing token')\\n    return x\\n"}
    diff:
      svc/t.py: {old: "def f(x):\\n    if not x:\\n        raise E('missing token')\\n    return x\\n", new: "def f(x):\\n    if not x:\\n        raise E('the request carries no bearer token')\\n    return x\\n"}
quiet:
  - {name: no decision, diff: {a.py: {new: "x = 1\\n"}}}
  - {name: a typo, expcet: related}
""",
    )
    _write(tmp_path, "REV1", "fires: not a list\n")
    (tmp_path / "ZZ9.yaml").write_text("rule: ZZ9\n", encoding="utf-8")
    failures, _ = fixtures.check(directory=tmp_path, allow_missing=AWAITED)
    lines = [str(f) for f in failures]
    fired = next(f for f in failures if f.rule == "D4" and f.kind == "fires")
    assert fired.case == "a rewording fires nothing" and "D4 among the rules" in fired.expected
    assert fired.got.startswith("label unrelated, rules [none]")
    assert any(f.rule == "D4" and f.kind == "quiet" and "decision must be a mapping" in f.got for f in failures)
    assert any(f.case == "a typo" and "unknown keys ['expcet']" in f.got for f in failures), lines
    assert any(f.rule == "REV1" and "must be a list" in f.got for f in failures), lines
    missing = {f.rule for f in failures if f.got == "no file"}
    assert missing == WRITTEN_HERE - {"D4", "REV1"}, lines
    assert any(f.rule == "ZZ9" and "names no rule" in f.got for f in failures), lines


def test_text_rules_run_through_choice_and_mechanical(tmp_path: Path) -> None:
    """Choice and mechanical cases are a change's text: fires = the function returns the id (M8: a revert of a
    change mechanical_rule finds mechanical)."""
    _write(
        tmp_path,
        "Q1",
        """fires:
  - {name: a bare merge, title: "Merge branch 'main' into feature", body: ""}
quiet:
  - {name: a merge that says why, title: "Merge branch 'x'", body: "We keep the old parser because the new one rejects valid input."}
misses:
  - {name: a plain title, title: "Use Decimal for prices so totals add up"}
""",
    )
    _write(
        tmp_path,
        "M8",
        """fires:
  - name: a revert of a dependency bump
    title: Revert the pin
    files: [{path: app/x.py, patch: "@@ -1 +1 @@\\n-a = 1\\n+a = 2\\n"}]
    reverts: {title: "Bump requests from 2.31 to 2.32", files: [{path: requirements.txt}]}
quiet:
  - {name: a revert of a feature, title: Revert the pin, reverts: {title: "Use Decimal for prices"}}
""",
    )
    rules = [registry.BY_ID["Q1"], registry.BY_ID["M8"]]
    failures, ran = fixtures.check(rules, tmp_path)
    assert not failures and ran == 5, "\n".join(map(str, failures))


def test_rules_cli_lists_every_rule_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert isinstance(rows, list) and [x["id"] for x in rows] == [r.id for r in registry.RULES]
    keys = {"id", "name", "family", "label", "summary", "module", "fires", "quiet", "misses"}
    assert all(set(x) == keys for x in rows)
    rev1 = next(x for x in rows if x["id"] == "REV1")
    assert rev1["name"] == "exact-revert" and rev1["family"] == "judge" and rev1["label"] == "contradicts"
    assert rev1["fires"] >= 1 and rev1["quiet"] >= 1 and all(isinstance(x[k], int) for x in rows for k in KINDS)
    assert main(["rules", "--rule", "exact-revert", "--json"]) == 0
    assert [x["id"] for x in json.loads(capsys.readouterr().out)] == ["REV1"]


def test_rules_cli_table_check_and_an_unknown_rule(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:5] == ["id", "name", "family", "label", "fires/quiet/misses"]
    assert re.search(r"^E1 +lazy-import-made-eager +judge +contradicts +\d+/\d+/\d+ +an import", out, re.M)
    assert main(["rules", "--check", "--rule", "REV1"]) == 0
    assert "0 failure(s)" in capsys.readouterr().out
    assert main(["rules", "--rule", "NOPE"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown rule 'NOPE'") and len(err.strip().splitlines()) == 1


def test_rules_cli_check_exits_1_and_prints_each_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fixtures, "FIXTURES_DIR", tmp_path)
    _write(tmp_path, "D2", "fires: []\nquiet: []\n")
    assert main(["rules", "--check", "--rule", "D2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL D2 file: expected at least one fires case; got no fires case" in out
    assert "1 rule(s), 0 case(s): 2 failure(s)" in out


def test_the_fixtures_are_package_data() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["rguard_core.guard.fixtures"]
    assert "*.yaml" in globs
    assert (fixtures.FIXTURES_DIR / "__init__.py").is_file()  # a package, so find() ships it and its data
