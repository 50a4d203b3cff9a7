"""Paraphrased undos read from the decision's words (rejected.py: X1, W1, K1; paraphrase.py: E1, C1) on
hand-made diffs through the real parser, token code and OfflineJudge; each rule with a look-alike that must
stay quiet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rguard_core.db import Store
from rguard_core.evaluation import load_cases, run_guard_eval
from rguard_core.guard.diffparse import parse_diff
from rguard_core.guard.fixtures import diff, info, patch
from rguard_core.guard.judge_offline import OfflineJudge, diff_change_sets
from rguard_core.guard.model import DecisionInfo, Judgement
from rguard_core.guard.rejected import judged_bad, losing_side


def run(diff_text: str, dec: DecisionInfo) -> Judgement:
    off = OfflineJudge()
    off.prepare([dec])
    return off.judge(diff_change_sets(parse_diff(diff_text).files), dec, True)


def ids(j: Judgement) -> list[str]:
    return [r for r, _ in j.rules]


def test_losing_side_of_polarity_phrases() -> None:
    def code(text: str) -> tuple[str, ...]:
        return losing_side(text)[0].code

    assert code("use `quote` instead of `quote_plus` for `RedirectResponse`") == ("quote_plus",)
    assert code("We considered OFFSET/LIMIT paging, but rejected it") == ("OFFSET", "LIMIT")
    assert code("redirect with 303 instead of 307 #927") == ("307",)
    assert code("Switch from `requests` to `httpx`") == ("requests",)
    assert code("instead of defaulting to the ASGI 'root_path'") == ("root_path",)
    assert losing_side("Use orjson instead of json")[0].weak == {"json"}  # plain: only where the change took it out
    assert losing_side("We keep the cache warm instead of rebuilding it again") == []  # no code named
    assert code("Please don't use `eval` on request data") == ("eval",)
    assert judged_bad("`datetime.utcnow()` is deprecated, so we pass a zone")[0].code == ("datetime.utcnow",)


PAGE_OLD = "def rows(db, n):\n    return db.query('SELECT * FROM t OFFSET %s', n)\n"
PAGE_DEC = "def rows(db, after):\n    return db.query('SELECT * FROM t WHERE id > %s LIMIT 100', after)\n"


def test_rejected_alternative_written_again_is_x1() -> None:
    dec = info({"app/pages.py": patch(PAGE_OLD, PAGE_DEC)}, quote="Keyset paging.")
    dec.rejected = ["We considered OFFSET paging, but rejected it because it rescans rows."]
    new = PAGE_DEC + "\n\ndef page(db, k):\n    return db.query('SELECT * FROM t LIMIT 100 OFFSET %s', k * 100)\n"
    j = run(diff("app/pages.py", PAGE_DEC, new), dec)
    assert j.label == "contradicts" and "X1" in ids(j), j
    # a log line's words are a message, not the rejected code
    logged = PAGE_DEC + "\n\ndef trace(k):\n    logger.debug('no OFFSET paging for page %s', k)\n"
    assert "X1" not in ids(run(diff("app/pages.py", PAGE_DEC, logged), dec))
    # the chosen side (LIMIT, which the decision wrote) is no rejected code
    other = PAGE_DEC + "\n\ndef first(db):\n    return db.query('SELECT * FROM t LIMIT 1')\n"
    assert "X1" not in ids(run(diff("app/pages.py", PAGE_DEC, other), dec))
    # nor is a name the decision's change left in use around it without removing it
    kept = info({"app/pages.py": patch("x = OFFSET_BASE\n" + PAGE_OLD, "x = OFFSET_BASE\n" + PAGE_DEC)})
    kept.rejected = ["We considered `OFFSET_BASE` paging, but rejected it"]
    more = "x = OFFSET_BASE\n" + PAGE_DEC + "y = OFFSET_BASE + 1\n"
    assert "X1" not in ids(run(diff("app/pages.py", "x = OFFSET_BASE\n" + PAGE_DEC, more), kept))


def test_a_number_on_the_losing_side_counts_only_where_the_decision_took_it_out() -> None:
    old = "def fail(e):\n    return respond(status=500)\n"
    new = "def fail(e):\n    return respond(status=404)\n"
    dec = info({"app/err.py": patch(old, new)}, quote="Send 404 instead of 500 for a missing file.")
    back = new + "\n\ndef crash(e):\n    return respond(status=500)\n"
    assert "X1" in ids(run(diff("app/err.py", new, back), dec))
    implicit = info({"app/err.py": patch("def fail(e):\n    return respond()\n", new)}, quote=dec.quote)
    chunk = new + "\n\nCHUNK = 500\n"  # the decision never wrote 500: another 500 is just a number
    assert "X1" not in ids(run(diff("app/err.py", new, chunk), implicit))


def test_a_plain_module_name_counts_where_the_decision_took_it_out() -> None:
    old = "import json\n\n\ndef dump(x):\n    return json.dumps(x)\n"
    new = "import orjson\n\n\ndef dump(x):\n    return orjson.dumps(x)\n"
    dec = info({"app/io.py": patch(old, new)}, quote="Use orjson instead of json: it is ten times faster.")
    back = "import json\n\nimport orjson\n\n\ndef dump(x):\n    return orjson.dumps(x)\n\n\ndef pretty(x):\n"
    back += "    return json.dumps(x, indent=2)\n"
    assert "X1" in ids(run(diff("app/io.py", new, back), dec))
    kept = info({"app/io.py": patch(new, new + "\n\ndef load(b):\n    return orjson.loads(b)\n")}, quote=dec.quote)
    assert "X1" not in ids(run(diff("app/io.py", new, back), kept))  # json was never the decision's to drop


CALL_OLD = "def get(client, url):\n    return client.fetch(url)\n"
CALL_DEC = "def get(client, url):\n    return client.fetch(url, timeout=10)\n"


def test_a_limit_switched_off_is_w1_and_left_out_is_k1() -> None:
    dec = info(
        {"app/net.py": patch(CALL_OLD, CALL_DEC)}, quote="Every fetch has a timeout so a stuck peer cannot hang us."
    )
    off = CALL_DEC + "\n\ndef slow(client, url):\n    return client.fetch(url, timeout=None)\n"
    j = run(diff("app/net.py", CALL_DEC, off), dec)
    assert j.label == "contradicts" and "W1" in ids(j), j
    bare = CALL_DEC + "\n\ndef head(client, url):\n    return client.fetch(\n        url, method='HEAD'\n    )\n"
    j = run(diff("app/net.py", CALL_DEC, bare), dec)
    assert j.label == "contradicts" and "K1" in ids(j), j
    # a longer timeout, or a call passing the keyword on, is no bypass
    longer = CALL_DEC + "\n\ndef slow(client, url):\n    return client.fetch(url, timeout=60)\n"
    passed = CALL_DEC + "\n\ndef slow(client, url, **kw):\n    return client.fetch(url, **kw)\n"
    for text in (longer, passed):
        assert not {"W1", "K1"} & set(ids(run(diff("app/net.py", CALL_DEC, text), dec)))
    # without a limit in the decision's words neither rule reads the code
    plain = info({"app/net.py": patch(CALL_OLD, CALL_DEC)}, quote="Tidy up the client.")
    assert not {"W1", "K1"} & set(ids(run(diff("app/net.py", CALL_DEC, bare), plain)))


LAZY_OLD = "import numpy.linalg\n\n\ndef inv(m):\n    return numpy.linalg.inv(m)\n"
LAZY_DEC = "def inv(m):\n    import numpy.linalg\n\n    return numpy.linalg.inv(m)\n"


def test_e1_follows_parts_of_the_module_and_optional_imports() -> None:
    dec = info({"lib/m.py": patch(LAZY_OLD, LAZY_DEC)}, quote="Import numpy lazily.")
    eager = "from numpy.linalg import inv as _inv\n\n\n" + LAZY_DEC
    assert "E1" in ids(run(diff("lib/m.py", LAZY_DEC, eager), dec))
    optional = "try:\n    import numpy.linalg\nexcept ImportError:\n    numpy = None\n\n\n" + LAZY_DEC
    assert "E1" in ids(run(diff("lib/m.py", LAZY_DEC, optional), dec))
    typing_only = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import numpy.linalg\n\n\n" + LAZY_DEC
    assert "E1" not in ids(run(diff("lib/m.py", LAZY_DEC, typing_only), dec))


JS_OLD = "import { parse } from 'heavy-md';\n\nexport function render(s) {\n  return parse(s);\n}\n"
JS_DEC = "export async function render(s) {\n  const { parse } = await import('heavy-md');\n  return parse(s);\n}\n"


def test_e1_reads_javascript_imports() -> None:
    dec = info({"src/md.ts": patch(JS_OLD, JS_DEC)}, quote="Load heavy-md lazily: it doubled start-up time.")
    eager = "import { parse } from 'heavy-md';\n\n" + JS_DEC
    assert "E1" in ids(run(diff("src/md.ts", JS_DEC, eager), dec))
    other = "import { clamp } from './util';\n\n" + JS_DEC
    assert "E1" not in ids(run(diff("src/md.ts", JS_DEC, other), dec))


PATH_OLD = "def load(p: Path):\n    return p.read_text()\n"
PATH_DEC = "def load(p: str | Path):\n    return Path(p).read_text()\n"


def test_c1_a_negated_type_check_that_leaves_the_allowed_type_out() -> None:
    dec = info({"lib/io.py": patch(PATH_OLD, PATH_DEC)}, quote="Accept `str` paths as well as Path objects.")
    strict = PATH_DEC.replace(
        "    return Path(p)",
        "    if not isinstance(p, Path):\n        raise TypeError('a Path, please')\n    return Path(p)",
    )
    j = run(diff("lib/io.py", PATH_DEC, strict), dec)
    assert j.label == "contradicts" and "C1" in ids(j), j
    other = PATH_DEC.replace(
        "    return Path(p)",
        "    if not isinstance(p, (str, Path)):\n        raise TypeError('a path')\n    return Path(p)",
    )
    assert "C1" not in ids(run(diff("lib/io.py", PATH_DEC, other), dec))


ROOT = Path(__file__).resolve().parent.parent


def test_make_tuning_reproduces_the_committed_tuning_cases(tmp_path: Path) -> None:
    out = tmp_path / "tuning.yaml"
    run = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "make_tuning.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert out.read_text(encoding="utf-8") == (ROOT / "eval" / "tuning_cases.yaml").read_text(encoding="utf-8")


def test_the_seed_tuning_cases_the_paraphrase_rules_were_fitted_on(store: Store) -> None:
    """eval/tuning_cases.yaml (tuned, not held out): every undo warned citing its decision, no benign warned."""
    from rguard_core.seed import load_demo

    load_demo(store)
    m = run_guard_eval(store, load_cases(ROOT / "eval" / "tuning_cases.yaml")).metrics
    print(f"seed tuning cases: {m['counts']} by rule {m['by_rule']}")
    assert m["recall"] == 1.0 and m["attribution"] == 1.0 and m["false_positive_rate"] == 0.0
    assert m["by_rule"]["X1"]["hits"] >= 3 and m["by_rule"]["W1"]["hits"] >= 1 and m["by_rule"]["K2"]["hits"] >= 1


TS_OLD = "export function label(v: number): string {\n  return v.toFixed(2);\n}\n"
TS_DEC = "export function label(v: number | string): string {\n  return Number(v).toFixed(2);\n}\n"


def test_c1_reads_typescript_type_checks_and_inline_throws() -> None:
    dec = info({"src/label.ts": patch(TS_OLD, TS_DEC)}, quote="Labels take the raw cell value.")
    strict = TS_DEC.replace(
        "  return Number", '  if (typeof v !== "number") throw new TypeError("a number");\n  return Number'
    )
    j = run(diff("src/label.ts", TS_DEC, strict), dec)
    assert j.label == "contradicts" and "C1" in ids(j), j
    guard = TS_DEC.replace("  return Number", '  if (v === "") throw new TypeError("empty");\n  return Number')
    assert "C1" not in ids(run(diff("src/label.ts", TS_DEC, guard), dec))


CHK_OLD = "def save(doc):\n    store.put(doc)\n"
CHK_DEC = "def save(doc):\n    validate_schema(doc)\n    store.put(doc)\n"


def test_a_check_the_decision_wrote_put_under_a_new_condition_is_k2() -> None:
    dec = info(
        {"app/save.py": patch(CHK_OLD, CHK_DEC)},
        quote="Every document is checked against the schema before it is stored.",
    )
    skip = "def save(doc, trusted=False):\n    if not trusted:\n        validate_schema(doc)\n    store.put(doc)\n"
    j = run(diff("app/save.py", CHK_DEC, skip), dec)
    assert j.label == "contradicts" and "K2" in ids(j), j
    # wrapping the whole body in a block (a with, a try) is no condition
    wrapped = "def save(doc):\n    with lock:\n        validate_schema(doc)\n        store.put(doc)\n"
    assert "K2" not in ids(run(diff("app/save.py", CHK_DEC, wrapped), dec))
    # a new condition before the check that leaves it as it was is nothing either
    early = "def save(doc):\n    if doc is None:\n        return\n    validate_schema(doc)\n    store.put(doc)\n"
    assert "K2" not in ids(run(diff("app/save.py", CHK_DEC, early), dec))
