"""The offline judge's rule registry: exact and partial reverts (REV1/REV2), the focus gates (S3/S4), the
paraphrase rules (E1, C1), and the guard finding a reverted change that the recency limits would drop.

Pure tests run the real parser, token code and OfflineJudge on hand-made diffs; the retrieval test ingests a
made-up history into the real embedded FalkorDB."""

from __future__ import annotations

import re
from pathlib import Path

from rguard_core.db import Store
from rguard_core.guard import candidates as cands
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import parse_diff
from rguard_core.guard.fixtures import diff, info, patch
from rguard_core.guard.judge_offline import POLICY, RULES, OfflineJudge, diff_change_sets
from rguard_core.guard.model import Judgement
from rguard_core.ingest.extract.offline import OfflineExtractor
from rguard_core.ingest.model import FileChange, Person, PullRequest, RepoHistory
from rguard_core.ingest.pipeline import ingest_history

ROOT = Path(__file__).resolve().parent.parent

OLD = (
    "import json\n\n\ndef load(raw):\n    data = json.loads(raw)\n    return data\n\n\n"
    "def save(obj):\n    return json.dumps(obj)\n"
)
NEW = (
    "import json\n\n\ndef load(raw):\n    data = json.loads(raw, parse_float=Decimal)\n    check_schema(data)\n"
    "    return data\n\n\ndef save(obj):\n    return json.dumps(obj, default=str, sort_keys=True)\n"
)


def run(diff_text: str, *decs, standing: bool = True) -> Judgement:  # type: ignore[no-untyped-def]
    off = OfflineJudge()
    off.prepare(list(decs))
    return off.judge(diff_change_sets(parse_diff(diff_text).files), decs[0], standing)


def ids(j: Judgement) -> list[str]:
    return [r for r, _ in j.rules]


def test_exact_revert_is_rev1_whatever_the_decision_says() -> None:
    dec = info({"svc/codec.py": patch(OLD, NEW)}, quote="Tidy up.")
    j = run(diff("svc/codec.py", NEW, OLD), dec)
    assert j.label == "contradicts" and "REV1" in ids(j) and j.score == 1.0
    assert "put back as they were" in dict(j.rules)["REV1"]


def test_code_moved_to_another_file_is_no_revert() -> None:
    old = "def keep():\n    return 1\n"
    new = old + "\n\ndef helper(raw):\n    parsed = parse_strict(raw, schema=SCHEMA)\n    return parsed\n"
    dec = info({"svc/a.py": patch(old, new)})
    moved = diff("svc/a.py", new, old) + diff("svc/b.py", "", new[len(old) + 2 :])
    assert not {"REV1", "REV2"} & set(ids(run(moved, dec)))
    assert "REV1" in ids(run(diff("svc/a.py", new, old), dec))  # the same deletion alone takes it out


def test_a_decision_line_extracted_into_a_helper_in_another_file_is_moved_not_undone() -> None:
    """The decision's call and keywords leave its line for a helper another file of the diff defines: the
    tokens are moved, as a move within one file would be. Without the helper the same edit takes them out."""
    dec = info({"svc/codec.py": patch(OLD, NEW)})
    extracted = NEW.replace("    data = json.loads(raw, parse_float=Decimal)\n", "    data = decode_exact(raw)\n")
    edit = diff("svc/codec.py", NEW, extracted)
    assert run(edit, dec).label == "contradicts"  # parse_float=Decimal taken out
    helper = "import json\n\n\ndef decode_exact(raw):\n    return json.loads(raw, parse_float=Decimal)\n"
    j = run(edit + diff("svc/decoding.py", "", helper), dec)
    assert j.label != "contradicts", j


def test_a_swap_the_decisions_words_name_turned_back_in_new_code_is_t1() -> None:
    """The decision swapped ``match`` for ``fullmatch`` and says so; a rewrite that loops over patterns with
    ``match`` again undoes it whatever else it changes. Unnamed by the words, or without the line's names, no T1."""
    old = "def allowed(self, origin):\n    if self.origin_regex is not None and self.origin_regex.match(origin):\n        return True\n    return False\n"
    new = old.replace(".match(origin)", ".fullmatch(origin)")
    dec = info({"svc/cors.py": patch(old, new)}, quote="Use a full regex match for the allowed origins.")
    loop = new.replace(
        "    if self.origin_regex is not None and self.origin_regex.fullmatch(origin):\n        return True\n",
        "    if self.origin_regex is not None:\n        # each pattern anchored at the start\n"
        "        if any(p.match(origin) for p in self.origin_regex):\n            return True\n"
        "    if self.origin_list and origin in self.origin_list:\n        return True\n"
        "    log_rejected(origin, reason=self.reason_for(origin), level=self.level)\n",
    )
    j = run(diff("svc/cors.py", new, loop), dec)
    assert j.label == "contradicts" and "T1" in ids(j), j
    quiet = info({"svc/cors.py": patch(old, new)}, quote="Tidy the origin check.")
    assert "T1" not in ids(run(diff("svc/cors.py", new, loop), quiet))
    # the old name written again on a line that shares nothing with the decision's line is no swap back
    elsewhere = (
        new.replace(
            "    if self.origin_regex is not None and self.origin_regex.fullmatch(origin):\n        return True\n",
            "    if origin in ALLOWED:\n        return True\n",
        )
        + "\n\ndef first_word(text):\n    found = WORD_RE.match(text)\n    return found\n"
    )
    assert "T1" not in ids(run(diff("svc/cors.py", new, elsewhere), dec))


def test_one_more_value_in_a_list_the_decision_wrote_is_no_undo() -> None:
    """``in (204, 304)`` -> ``in (204, 205, 304)`` extends the decision's enumeration; taking 304 out undoes it."""
    old = "def sized(status):\n    if status < 200:\n        return False\n    return True\n"
    new = "def sized(status):\n    if status < 200 or status in (204, 304):\n        return False\n    return True\n"
    dec = info({"svc/http.py": patch(old, new)}, quote="No Content-Length for 1xx, 204 and 304 responses.")
    more = new.replace("(204, 304)", "(204, 205, 304)")
    assert run(diff("svc/http.py", new, more), dec).label != "contradicts"
    less = new.replace("(204, 304)", "(204,)")
    assert run(diff("svc/http.py", new, less), dec).label == "contradicts"


def test_a_line_edit_whose_new_code_the_diff_keeps_nearby_is_not_turned_back() -> None:
    """REV3 needs what the decision's edit put in to leave the file: moved into a fallback, it stays."""
    old = "def setup(self, loader):\n    self.env = jinja2.Environment(loader=loader)\n"
    new = "def setup(self, loader):\n    self.env = jinja2.Environment(loader=loader, autoescape=jinja2.select_autoescape())\n"
    dec = info({"svc/tpl.py": patch(old, new)}, quote="Autoescape templates by default.")
    option = (
        "def setup(self, loader, autoescape=None):\n    if autoescape is None:\n"
        "        autoescape = jinja2.select_autoescape()\n    self.env = jinja2.Environment(loader=loader, autoescape=autoescape)\n"
    )
    assert "REV3" not in ids(run(diff("svc/tpl.py", new, option), dec))
    back = new.replace(
        "Environment(loader=loader, autoescape=jinja2.select_autoescape())", "Environment(loader=loader)"
    )
    assert run(diff("svc/tpl.py", new, back), dec).label == "contradicts"


def test_partial_revert_of_one_hunk_is_rev2() -> None:
    dec = info({"svc/codec.py": patch(OLD, NEW)})
    half = NEW.replace("json.dumps(obj, default=str, sort_keys=True)", "json.dumps(obj)")
    j = run(diff("svc/codec.py", NEW, half), dec)
    assert j.label == "contradicts" and "REV2" in ids(j)


def test_a_line_edit_turned_back_after_the_line_was_retouched_is_rev3() -> None:
    dec = info({"svc/codec.py": patch(OLD, NEW)}, quote="Tidy up.")
    later = NEW.replace("default=str, sort_keys=True", "default=repr, sort_keys=True")  # retouched since
    more = later.replace("sort_keys=True)", "sort_keys=True, indent=2)")
    assert "REV3" not in ids(run(diff("svc/codec.py", later, more), dec))  # extended, not turned back
    undo = later.replace("return json.dumps(obj, default=repr, sort_keys=True)", "return json.dumps(obj)")
    j = run(diff("svc/codec.py", later, undo), dec)
    assert j.label == "contradicts" and "REV3" in ids(j), j


def test_a_hunk_starting_inside_a_docstring_is_read_as_code_after_it_closes() -> None:
    from rguard_core.guard.tokens import code_lines

    hunk = [
        (" ", "        Given the headers, return `True` when"),
        (" ", '        """'),
        ("-", "        x = 1"),
        ("+", "        x = 2"),
    ]
    assert code_lines(hunk, "hash") == [("-", "x = 1"), ("+", "x = 2")]
    opening = [(" ", "def f():"), (" ", '    """'), (" ", "    text"), (" ", '    """'), ("+", "    y = 3")]
    assert code_lines(opening, "hash") == [(" ", "def f():"), ("+", "y = 3")]


def test_editing_the_decisions_code_is_no_revert() -> None:
    dec = info({"svc/codec.py": patch(OLD, NEW)})
    more = NEW.replace("    check_schema(data)\n", "    check_schema(data)\n    log_load(data, source=raw_origin)\n")
    j = run(diff("svc/codec.py", NEW, more), dec)
    assert j.label != "contradicts" and not {"REV1", "REV2"} & set(ids(j))


def test_a_few_decision_lines_in_a_large_change_are_related_not_contradicts() -> None:
    """S3: the evidence is a small share of the whole diff (a feature that also rewrites the decision's lines)."""
    dec = info({"svc/codec.py": patch(OLD, NEW)})
    rewrite = NEW.replace(
        "    data = json.loads(raw, parse_float=Decimal)\n    check_schema(data)\n",
        "    data = decoder_for(raw).decode(raw, strict_mode=True)\n    validate_with(data, registry)\n",
    )
    alone = diff("svc/codec.py", NEW, rewrite)
    assert run(alone, dec).label == "contradicts"  # on its own the rewrite is most of the diff
    feature = "".join(
        f"def handler_{i}(event_{i}, ctx):\n    return dispatch_{i}(event_{i}, ctx.route_{i}, retries={i})\n\n\n"
        for i in range(12)
    )
    j = run(alone + diff("svc/handlers.py", "", feature), dec)
    assert j.label == "related" and "S3" in ids(j), j


def test_a_few_lines_of_a_change_that_wrote_a_whole_module_are_related_as_s4() -> None:
    """S4: the evidence is all of the diff but a small share of the decision's own change (a module it wrote):
    reported under its own id, not S3's."""
    handlers = "".join(
        f"def handler_{i}(event_{i}, ctx):\n    return dispatch_{i}(event_{i}, ctx.route_{i}, retries={i})\n\n\n"
        for i in range(40)
    )
    old = "import json\n"
    new = old + "\n\ndef load(raw):\n    return json.loads(raw, parse_float=Decimal)\n\n\n" + handlers
    dec = info({"svc/mod.py": patch(old, new)}, quote="Add the handlers module.")
    j = run(diff("svc/mod.py", new, new.replace("json.loads(raw, parse_float=Decimal)", "json.loads(raw)")), dec)
    assert j.label == "related" and "S4" in ids(j) and "S3" not in ids(j), j


def test_a_number_the_decision_set_retuned_is_related_unless_its_words_name_it() -> None:
    """S5: the decision retuned 100 -> 500, the diff retunes 500 -> 800: a setting changed again, not the
    decision undone; named by its words, it warns (a value the decision introduced: test_guard_decisive)."""
    old, new = "def page(q):\n    return q.take(100)\n", "def page(q):\n    return q.take(500)\n"
    tuned = "def page(q):\n    return q.take(800)\n"
    j = run(diff("svc/page.py", new, tuned), info({"svc/page.py": patch(old, new)}, quote="Pages hold more rows."))
    assert j.label == "related" and "S5" in ids(j), j
    named = info({"svc/page.py": patch(old, new)}, quote="A page holds exactly 500 rows, never more.")
    assert run(diff("svc/page.py", new, tuned), named).label == "contradicts"


def test_policy_table_covers_every_rule_and_records_why() -> None:
    assert set(POLICY) == {r.id for r in RULES} and len(RULES) == len(POLICY)
    assert all(POLICY[r] in ("contradicts", "related") for r in POLICY)
    dec = info({"svc/codec.py": patch(OLD, NEW)})
    j = run(diff("svc/codec.py", NEW, OLD), dec, standing=False)
    assert j.label == "related" and ids(j)[-1] == "S1"  # a decision that no longer stands is not warned on


LAZY_OLD = "import numpy\n\n\ndef mean(xs):\n    return numpy.mean(xs)\n"
LAZY_DEC = "def mean(xs):\n    import numpy\n\n    return numpy.mean(xs)\n"


def test_eager_import_of_a_lazy_one_is_e1() -> None:
    dec = info({"lib/stats.py": patch(LAZY_OLD, LAZY_DEC)}, quote="Import numpy lazily: start-up time.")
    eager = "import numpy\n\n\ndef mean(xs):\n    return numpy.mean(xs)\n\n\ndef total(xs):\n    return numpy.sum(xs)\n"
    j = run(diff("lib/stats.py", LAZY_DEC, eager), dec)
    assert j.label == "contradicts" and "E1" in ids(j)
    # an import the decision never moved is nothing
    other = LAZY_DEC + "\n\nimport json\n"
    assert "E1" not in ids(run(diff("lib/stats.py", LAZY_DEC, other), dec))


STR_OLD = "def coerce(v):\n    return int(v)\n"
STR_DEC = "def coerce(v):\n    if isinstance(v, str):\n        v = v.strip()\n    return int(v)\n"


def test_rejecting_what_the_decision_allows_is_c1() -> None:
    dec = info({"lib/num.py": patch(STR_OLD, STR_DEC)}, quote="Accept `str` input as well as numbers.")
    strict = STR_DEC.replace(
        "    if isinstance(v, str):\n        v = v.strip()\n",
        "    if isinstance(v, str):\n        raise TypeError('numbers only')\n",
    )
    j = run(diff("lib/num.py", STR_DEC, strict), dec)
    assert j.label == "contradicts" and "C1" in ids(j)
    other = STR_DEC.replace(
        "    return int(v)\n", "    if v is None:\n        raise TypeError('no value')\n    return int(v)\n"
    )
    assert "C1" not in ids(run(diff("lib/num.py", STR_DEC, other), dec))


def _history(repo: str, later: int) -> RepoHistory:
    """PR #1 decides how core.py loads; then ``later`` PRs each append a handler to the same (hot) file."""
    hist = RepoHistory(repo=repo, url=f"https://github.com/{repo}")
    hist.people["dev"] = Person("dev")
    first = PullRequest(
        1,
        "Load with a checked decoder",
        "We use the checked decoder because raw loads accept garbage.",
        "dev",
        "closed",
        True,
        created_at="2020-01-01T00:00:00Z",
        merged_at="2020-01-01T00:00:00Z",
        files=[FileChange("app/core.py", "modified", 2, 1, patch(OLD, NEW))],
    )
    hist.pulls.append(first)
    for k in range(2, later + 2):
        body = f"HANDLER_{k} = register('handler_{k}', priority={k})\n"
        p = f"@@ -{100 + k},0 +{100 + k},1 @@\n+{body.rstrip()}"
        hist.pulls.append(
            PullRequest(
                k,
                f"Register handler {k}",
                f"We register handler {k} so that route {k} works.",
                "dev",
                "closed",
                True,
                created_at=f"2021-{1 + k // 28 % 12:02d}-{1 + k % 28:02d}T00:00:00Z",
                merged_at=f"2021-{1 + k // 28 % 12:02d}-{1 + k % 28:02d}T00:00:00Z",
                files=[FileChange("app/core.py", "modified", 1, 0, p)],
            )
        )
    return hist


def test_an_old_change_reverted_on_a_hot_file_is_found_and_warned(store: Store, repo_name: str) -> None:
    later = cands.TOUCH_SCAN + 10  # more newer changes to the file than the recency scan reads
    ingest_history(store, _history(repo_name, later), OfflineExtractor(), "test")
    try:
        report = run_guard(store, repo_name, diff("app/core.py", NEW, OLD))
        assert report.verdict == "warn"
        f = report.findings[0]
        assert f.decision_id == "decision:pr:1" and f.label == "contradicts"
        assert "REV1" in [r["id"] for r in f.as_dict()["rules"]]
        assert "candidates.reverted" in {q["name"] for q in report.cypher}
        # an ordinary edit next to the old change is not a revert of it
        edit = NEW.replace("    return data\n", "    return freeze(data)\n", 1)
        assert run_guard(store, repo_name, diff("app/core.py", NEW, edit)).verdict != "warn"
    finally:
        store.repo_graph(repo_name).delete()


def test_readme_rule_table_lists_every_registered_rule() -> None:
    text = (ROOT / "rguard_core" / "guard" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| ([A-Z]+[0-9]) ", text, re.M))
    assert {r.id for r in RULES} <= listed, sorted({r.id for r in RULES} - listed)
    for rid in ("S1", "S3", "S4"):
        assert f"| {rid} " in text
