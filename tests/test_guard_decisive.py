"""The offline judge's line-level rules (guard/decisive.py) on small hand-made diffs of a made-up service.

Each test builds a decision's own change (a stored patch) and a later diff, and runs the real parser, token
code and OfflineJudge on them; the graph is not involved (run_guard's tests cover that path)."""

from __future__ import annotations

from rguard_core.guard.decisive import decision_lines, decisive_edits, fine_tokens
from rguard_core.guard.diffparse import parse_diff
from rguard_core.guard.fixtures import diff, info, patch
from rguard_core.guard.judge_offline import OfflineJudge, diff_change_sets, patch_hunks
from rguard_core.guard.model import DecisionInfo
from rguard_core.guard.tokens import code_string, weight


def judge(diff_text: str, dec: DecisionInfo, *others: DecisionInfo) -> tuple[str, str]:
    off = OfflineJudge()
    off.prepare([dec, *others])
    j = off.judge(diff_change_sets(parse_diff(diff_text).files), dec, True)
    return j.label, j.reason


CACHE_OLD = "import time\n\n\ndef fetch(store, key):\n    return store.get(key, 0)\n"
CACHE_DEC = "import time\n\nTTL_SECONDS = 60\n\n\ndef fetch(store, key):\n    return store.get(key)\n"


def test_a_literal_the_decision_wrote_is_changed() -> None:
    dec = info({"svc/cache.py": patch(CACHE_OLD, CACHE_DEC)})
    label, reason = judge(diff("svc/cache.py", CACHE_DEC, CACHE_DEC.replace("= 60", "= 3600")), dec)
    assert label == "contradicts" and "`60`" in reason
    quiet = CACHE_DEC.replace("TTL_SECONDS = 60\n", "TTL_SECONDS = 60\nMAX_ENTRIES = 500\n")
    assert judge(diff("svc/cache.py", CACHE_DEC, quiet), dec)[0] != "contradicts"


def test_regrowing_what_the_decision_cut_is_a_reversal_but_extending_elsewhere_is_not() -> None:
    dec = info({"svc/cache.py": patch(CACHE_OLD, CACHE_DEC)})
    back = CACHE_DEC.replace("store.get(key)", "store.get(key, empty_value())")
    label, reason = judge(diff("svc/cache.py", CACHE_DEC, back), dec)
    assert label == "contradicts" and "where the decision cut code" in reason
    wrapped = CACHE_DEC.replace("return store.get(key)", "return normalise(store.get(key))")
    assert judge(diff("svc/cache.py", CACHE_DEC, wrapped), dec)[0] != "contradicts"


AUTH_OLD = "def allowed(user):\n    return True\n"
AUTH_DEC = "def allowed(user):\n    if user.is_admin:\n        return True\n    return False\n"


def test_a_term_added_to_a_condition_the_decision_wrote() -> None:
    dec = info({"svc/auth.py": patch(AUTH_OLD, AUTH_DEC)})
    wider = AUTH_DEC.replace("if user.is_admin:", "if user.is_admin or user.is_staff:")
    label, reason = judge(diff("svc/auth.py", AUTH_DEC, wider), dec)
    assert label == "contradicts" and "to a condition the decision wrote" in reason
    param = AUTH_DEC.replace("def allowed(user):", "def allowed(user, audit=None):")
    assert judge(diff("svc/auth.py", AUTH_DEC, param), dec)[0] == "unrelated"


TOKEN_OLD = "def bearer(headers):\n    token = headers.get('authorization')\n    return token\n"
TOKEN_DEC = (
    "def bearer(headers):\n    token = headers.get('authorization')\n    if not token:\n"
    "        raise AuthError('missing token')\n    return token\n"
)


def test_a_guard_the_decision_wrote_that_no_longer_stops_anything() -> None:
    dec = info({"svc/token.py": patch(TOKEN_OLD, TOKEN_DEC)})
    soft = TOKEN_DEC.replace("        raise AuthError('missing token')\n", "        token = ANONYMOUS\n")
    label, _ = judge(diff("svc/token.py", TOKEN_DEC, soft), dec)
    assert label == "contradicts"
    message = TOKEN_DEC.replace("'missing token'", "'the request carries no bearer token'")
    assert judge(diff("svc/token.py", TOKEN_DEC, message), dec)[0] != "contradicts"


QUERY_OLD = "def rows(cur):\n    cur.execute('SELECT a FROM log')\n"
QUERY_DEC = "def rows(cur):\n    cur.execute('SELECT a, b FROM log WHERE id > %s ORDER BY id')\n"


def test_a_query_extended_is_not_taken_but_a_query_rewritten_is() -> None:
    dec = info({"svc/query.py": patch(QUERY_OLD, QUERY_DEC)})
    extended = QUERY_DEC.replace("a, b FROM", "a, b, c FROM")
    assert judge(diff("svc/query.py", QUERY_DEC, extended), dec)[0] != "contradicts"
    offset = QUERY_DEC.replace("WHERE id > %s ORDER BY id", "ORDER BY id OFFSET %s")
    assert judge(diff("svc/query.py", QUERY_DEC, offset), dec)[0] == "contradicts"


SIG_DEC = "import hmac_a\n\n\ndef same(a, b):\n    return hmac_a.equal(a, b)\n"


def test_the_same_attribute_from_another_module_is_a_drop_in() -> None:
    dec = info({"svc/sig.py": patch("def same(a, b):\n    return a == b\n", SIG_DEC)})
    swapped = SIG_DEC.replace("return hmac_a.equal", "return hmac_b.equal").replace(
        "import hmac_a\n", "import hmac_a\nimport hmac_b\n"
    )
    assert judge(diff("svc/sig.py", SIG_DEC, swapped), dec)[0] != "contradicts"
    plain = SIG_DEC.replace("return hmac_a.equal(a, b)", "return a == b")
    assert judge(diff("svc/sig.py", SIG_DEC, plain), dec)[0] == "contradicts"


def test_a_rename_made_where_the_name_is_defined_is_followed_in_other_files() -> None:
    caller = "from svc.calc import compute_total\n\n\ndef bill(items):\n    return compute_total(items)\n"
    dec = info({"svc/bill.py": patch("def bill(items):\n    return sum(items)\n", caller)})
    calc = "def compute_total(items):\n    return sum(items)\n"
    text = diff("svc/calc.py", calc, calc.replace("compute_total", "total_of")) + diff(
        "svc/bill.py", caller, caller.replace("compute_total", "total_of")
    )
    assert judge(text, dec)[0] != "contradicts"


def test_a_decision_line_edited_by_a_later_change_is_still_followed() -> None:
    lines = decision_lines(patch_hunks(patch("LIMIT = 10\n", "LIMIT = per_minute(600)\n")), "svc/limits.py")
    head = "LIMIT = per_minute(600, burst=True)\n"
    text = diff("svc/limits.py", head, head.replace("600", "6000"))
    cs = diff_change_sets(parse_diff(text).files)["svc/limits.py"]
    edits = decisive_edits(cs, lines)
    assert [e.taken for e in edits] == [["600"]] and edits[0].replaced_by == ["6000"]


STORE_CTX = (
    "class Log:\n    def __init__(self, conn):\n        self.conn = conn\n\n"
    "    def count(self):\n        with self.conn.cursor() as cur:\n            cur.execute('SELECT 1')\n"
)
PURGE = "\n    def purge(self):\n        with self.conn.cursor() as cur:\n            cur.execute('DELETE FROM log')\n"


def test_the_files_vocabulary_is_not_a_reversal_but_the_removed_statement_is() -> None:
    removed = info({"svc/log.py": patch(STORE_CTX + PURGE, STORE_CTX)}, sid="pr:7")
    others = [
        info({"svc/log.py": patch(STORE_CTX, STORE_CTX.replace("'SELECT 1'", f"'SELECT {n}'"))}, sid=f"pr:{n}")
        for n in (2, 3, 4)
    ]
    reader = "\n    def size(self):\n        with self.conn.cursor() as cur:\n            cur.execute('SELECT COUNT(*) FROM log')\n"
    assert judge(diff("svc/log.py", STORE_CTX, STORE_CTX + reader), removed, *others)[0] != "contradicts"
    assert judge(diff("svc/log.py", STORE_CTX, STORE_CTX + PURGE), removed, *others)[0] == "contradicts"


ADR = "# ADR-0009: Keep audit rows forever\n\nStatus: accepted\n\n## Decision\n\nAudit rows are kept forever and never\ndeleted by the retention job.\n"


def test_adr_status_withdrawn_and_its_decision_text_rewritten() -> None:
    dec = info(
        {"docs/adr/0009-audit.md": patch("", ADR)},
        quote="Audit rows are kept forever and never deleted by the retention job.",
    )
    path = "docs/adr/0009-audit.md"
    assert judge(diff(path, ADR, ADR.replace("Status: accepted", "Status: deprecated")), dec)[0] == "contradicts"
    rewritten = ADR.replace(
        "Audit rows are kept forever and never\ndeleted by the retention job.", "Audit rows are pruned after one year."
    )
    assert judge(diff(path, ADR, rewritten), dec)[0] == "contradicts"
    reflowed = ADR.replace("forever and never\ndeleted", "forever\nand never deleted")
    assert judge(diff(path, ADR, reflowed), dec)[0] == "unrelated"


def test_a_new_line_holding_a_named_literal_flips_nothing() -> None:
    base = "def price(x):\n    if x is None:\n        return None\n    return x\n"
    dec = info(
        {"svc/price.py": patch("def price(x):\n    return x or 0\n", base)},
        quote="An unknown price stays None and is never coerced to 0.",
    )
    guarded = base.replace("    return x\n", "    if x < 0:\n        raise ValueError('negative')\n    return x\n")
    assert judge(diff("svc/price.py", base, guarded), dec)[0] != "contradicts"


def test_code_strings_weigh_as_data_and_messages_as_prose() -> None:
    assert code_string("WHERE account = %s AND id > %s ORDER BY id") and weight("'WHERE a = %s AND b > %s'") == 1.5
    assert not code_string("the request carries no bearer token") and weight("'no bearer token here'") == 0.2
    assert fine_tokens("x.get(k, 0) >= 10") == ["x", ".", "get", "(", "k", ",", "0", ")", ">=", "10"]


GRANTS = "CREATE TABLE audit (id BIGINT);\nREVOKE UPDATE, DELETE ON audit FROM app_role;\n"


def test_a_new_file_that_says_the_opposite_of_a_decision_line() -> None:
    dec = info({"db/002_lock_audit.sql": patch("CREATE TABLE audit (id BIGINT);\n", GRANTS)})
    new = (
        "diff --git a/db/003_fix.sql b/db/003_fix.sql\nnew file mode 100644\n--- /dev/null\n+++ b/db/003_fix.sql\n"
        "@@ -0,0 +1,2 @@\n+-- support edits rows by hand\n+GRANT UPDATE, DELETE ON audit TO app_role;\n"
    )
    label, reason = judge(new, dec)
    assert label == "contradicts" and "`REVOKE` -> `GRANT`" in reason
    other = new.replace("GRANT UPDATE, DELETE ON audit TO app_role", "GRANT SELECT ON reports TO bi_role")
    assert judge(other, dec)[0] != "contradicts"


FLAGS_OLD = "class Cfg:\n    def __init__(self):\n        self.name = 'x'\n"
FLAGS_DEC = "class Cfg:\n    def __init__(self):\n        self.name = 'x'\n        self.verify_tls = True\n"


def test_the_opposite_value_for_another_attribute_is_not_a_negation() -> None:
    dec = info({"svc/cfg.py": patch(FLAGS_OLD, FLAGS_DEC)})
    other = FLAGS_DEC + "        self.debug = False\n"
    assert judge(diff("svc/cfg.py", FLAGS_DEC, other), dec)[0] != "contradicts"


WINDOW_DEC = (
    "def check(sig, expected):\n    return equal_digest(sig, expected)\n\n\ndef touch(s, now):\n    s.seen = now\n"
)


def test_a_number_or_a_fallback_inserted_into_a_decision_line_changes_what_it_does() -> None:
    dec = info(
        {
            "svc/win.py": patch(
                "def check(sig, expected):\n    return sig == expected\n\n\ndef touch(s, now):\n    pass\n", WINDOW_DEC
            )
        }
    )
    sliced = WINDOW_DEC.replace("equal_digest(sig, expected)", "equal_digest(sig[:8], expected[:8])")
    assert judge(diff("svc/win.py", WINDOW_DEC, sliced), dec)[0] == "contradicts"
    sticky = WINDOW_DEC.replace("s.seen = now", "s.seen = s.seen or now")
    assert judge(diff("svc/win.py", WINDOW_DEC, sticky), dec)[0] == "contradicts"
    param = WINDOW_DEC.replace("def touch(s, now):", "def touch(s, now, grace=30):")
    assert judge(diff("svc/win.py", WINDOW_DEC, param), dec)[0] == "unrelated"


COOKIE_OLD = "def header(v):\n    return 'v=%s; path=/' % (v,)\n"
COOKIE_DEC = "def header(v, age):\n    return 'v=%s; path=/; max-age=%d' % (v, age)\n"


def test_a_string_the_decision_edited_changed_elsewhere_is_not_taken() -> None:
    dec = info({"svc/cookie.py": patch(COOKIE_OLD, COOKIE_DEC)})
    elsewhere = COOKIE_DEC.replace("path=/;", "path=/app;")
    assert judge(diff("svc/cookie.py", COOKIE_DEC, elsewhere), dec)[0] != "contradicts"
    its_part = COOKIE_DEC.replace("; max-age=%d' % (v, age)", "' % (v,)")
    assert judge(diff("svc/cookie.py", COOKIE_DEC, its_part), dec)[0] == "contradicts"


ORDERS_OLD = (
    "def set_qty(order, sku, qty):\n    for item in order.items:\n        if item.sku == sku:\n"
    "            item.qty = qty\n    order.total = price(order.items)\n"
)
ORDERS_DEC = ORDERS_OLD.replace(
    "def set_qty(order, sku, qty):\n",
    "def set_qty(order, sku, qty):\n    if order.shipped:\n        raise OrderShipped(order.id)\n",
)


def test_guarded_code_written_again_without_its_guard() -> None:
    dec = info({"svc/orders.py": patch(ORDERS_OLD, ORDERS_DEC)})
    copy = (
        ORDERS_DEC + "\n\ndef fix_qty(order, sku, qty):\n    for item in order.items:\n        if item.sku == sku:\n"
        "            item.qty = qty\n"
    )
    label, reason = judge(diff("svc/orders.py", ORDERS_DEC, copy), dec)
    assert label == "contradicts" and "without the guard" in reason
    reader = (
        ORDERS_DEC + "\n\ndef qty_of(order, sku):\n    for item in order.items:\n        if item.sku == sku:\n"
        "            return item.qty\n"
    )
    assert judge(diff("svc/orders.py", ORDERS_DEC, reader), dec)[0] != "contradicts"
