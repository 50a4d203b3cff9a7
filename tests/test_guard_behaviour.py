"""The behaviour rules (guard/behaviour.py): G2 a decision line gated by a new flag that is off, X2 the failure
the decision handles caught to go on anyway, B1 a choice the decision made conditional applied regardless.
Each is shown firing on its shape and staying quiet on the benign shapes beside it."""

from __future__ import annotations

from rguard_core.guard.fixtures import diff, info, patch
from tests.test_guard_paraphrase import ids, run
from tests.test_guard_refactors import DISPATCH_DEC, DISPATCH_OLD

SEND_OLD = (
    "class File:\n    size = 10\n\n    def send(self, scope):\n        use_fast = False\n        return use_fast\n"
)
SEND_DEC = (
    "class File:\n    size = 10\n\n    def send(self, scope):\n"
    '        use_fast = scope["type"] == "http" and "fast.send" in scope.get("ext", {})\n'
    "        return use_fast\n"
)


def test_a_decision_line_gated_by_a_new_flag_that_is_off_is_g2() -> None:
    dec = info({"app/file.py": patch(SEND_OLD, SEND_DEC)}, quote="Use the fast send extension when offered.")
    line = '"fast.send" in scope.get("ext", {})'
    gated = SEND_DEC.replace("    size = 10\n", "    size = 10\n    allow_fast = False\n").replace(
        f'use_fast = scope["type"] == "http" and {line}',
        f'use_fast = self.allow_fast and scope["type"] == "http" and {line}',
    )
    j = run(diff("app/file.py", SEND_DEC, gated), dec)
    assert j.label == "contradicts" and "G2" in ids(j), j
    # on by default: an opt-out, the decision still acts
    on = gated.replace("allow_fast = False", "allow_fast = True")
    assert "G2" not in ids(run(diff("app/file.py", SEND_DEC, on), dec))
    # `not flag and ...`: the decision acts unless someone opts out
    negated = gated.replace("self.allow_fast and", "not self.allow_fast and")
    assert "G2" not in ids(run(diff("app/file.py", SEND_DEC, negated), dec))


def test_a_flag_that_gates_a_new_alternative_leaves_the_decision_acting() -> None:
    old = "def save(session, headers):\n    if session:\n        headers.append('x')\n"
    new = "def save(session, headers):\n    if session.modified and session:\n        headers.append('x')\n"
    dec = info({"app/s.py": patch(old, new)}, quote="Only send the cookie when the session changed.")
    opt_in = (
        "def save(session, headers, refresh=False):\n"
        "    if session and (session.modified or (refresh and session.accessed)):\n        headers.append('x')\n"
    )
    assert "G2" not in ids(run(diff("app/s.py", new, opt_in), dec))


def test_decision_lines_wrapped_in_if_flag_are_g2() -> None:
    old = "def render(doc):\n    return doc\n"
    new = "def render(doc):\n    doc = escape_html(doc)\n    return doc\n"
    dec = info({"app/r.py": patch(old, new)}, quote="Escape documents before rendering.")
    wrapped = "def render(doc, escape=False):\n    if escape:\n        doc = escape_html(doc)\n    return doc\n"
    j = run(diff("app/r.py", new, wrapped), dec)
    assert j.label == "contradicts" and "G2" in ids(j), j
    opt_out = "def render(doc, raw=False):\n    if not raw:\n        doc = escape_html(doc)\n    return doc\n"
    assert "G2" not in ids(run(diff("app/r.py", new, opt_out), dec))


LOAD_OLD = "def load(raw):\n    data = signer.unsign(raw)\n    return parse(decode(data))\n"
LOAD_DEC = (
    "def load(raw):\n    try:\n        data = signer.unsign(raw, max_age=AGE)\n        return parse(decode(data))\n"
    "    except (BadSignature, Expired):\n        return {}\n"
)


def test_the_failure_the_decision_handles_caught_to_go_on_anyway_is_x2() -> None:
    dec = info({"app/load.py": patch(LOAD_OLD, LOAD_DEC)}, quote="Expire sessions after max_age.")
    accept = LOAD_DEC.replace(
        "    except (BadSignature, Expired):\n",
        "    except Expired as exc:\n        return parse(decode(exc.payload))\n    except (BadSignature, Expired):\n",
    )
    j = run(diff("app/load.py", LOAD_DEC, accept), dec)
    assert j.label == "contradicts" and "X2" in ids(j), j
    # logging the expiry and still resetting is not going on anyway
    logged = LOAD_DEC.replace(
        "    except (BadSignature, Expired):\n",
        "    except Expired:\n        log.info('expired')\n        return {}\n    except (BadSignature, Expired):\n",
    )
    assert "X2" not in ids(run(diff("app/load.py", LOAD_DEC, logged), dec))
    # re-raising as another error keeps the refusal
    wrapped = LOAD_DEC.replace(
        "    except (BadSignature, Expired):\n",
        "    except Expired as exc:\n        parse(decode(exc.payload))\n        raise SessionError() from exc\n"
        "    except (BadSignature, Expired):\n",
    )
    assert "X2" not in ids(run(diff("app/load.py", LOAD_DEC, wrapped), dec))


PATH_OLD = "def lookup(d, p):\n    full = realpath(join(d, p))\n    return full\n"
PATH_DEC = (
    "def lookup(d, p):\n    joined = join(d, p)\n    if follow:\n        full = abspath(joined)\n"
    "    else:\n        full = realpath(joined)\n    return full\n"
)


def test_a_choice_made_conditional_applied_regardless_is_b1() -> None:
    dec = info({"app/look.py": patch(PATH_OLD, PATH_DEC)}, quote="Follow links when asked to.")
    after = PATH_DEC.replace(
        "    return full\n", "    if not inside(realpath(full), d):\n        return None\n    return full\n"
    )
    j = run(diff("app/look.py", PATH_DEC, after), dec)
    assert j.label == "contradicts" and "B1" in ids(j), j
    # renaming inside the arms keeps the choice
    renamed = PATH_DEC.replace("joined", "candidate")
    assert "B1" not in ids(run(diff("app/look.py", PATH_DEC, renamed), dec))
    # the other arm's input, not the chosen result: a new check on the raw path
    raw = PATH_DEC.replace(
        "    return full\n", "    if not inside(realpath(joined), d):\n        return None\n    return full\n"
    )
    assert "B1" not in ids(run(diff("app/look.py", PATH_DEC, raw), dec))


GUARD_OLD = "def lookup(d, full):\n    for x in d:\n        if not full.startswith(x):\n            continue\n        return x\n"
GUARD_DEC = GUARD_OLD.replace("if not full.startswith(x):", "if common(full, x) != x:")


def test_a_condition_the_decision_wrote_narrowed_is_k3() -> None:
    dec = info({"app/look.py": patch(GUARD_OLD, GUARD_DEC)}, quote="Never serve outside the directory.")
    narrowed = GUARD_DEC.replace("if common(full, x) != x:", "if common(full, x) != x and not islink(full):")
    j = run(diff("app/look.py", GUARD_DEC, narrowed), dec)
    assert j.label == "contradicts" and "K3" in ids(j), j
    # `or`: a stricter guard, not a narrower one
    stricter = GUARD_DEC.replace("if common(full, x) != x:", "if common(full, x) != x or hidden(full):")
    assert "K3" not in ids(run(diff("app/look.py", GUARD_DEC, stricter), dec))


def test_a_new_branch_before_the_decisions_condition_is_k3() -> None:
    old = "def preflight(self, headers, origin):\n    if self.any_origin:\n        headers['allow'] = '*'\n"
    new = "def preflight(self, headers, origin):\n    if self.explicit:\n        headers['allow'] = origin\n"
    dec = info({"app/cors.py": patch(old, new)}, quote="Echo the origin when credentials are allowed.")
    first = new.replace(
        "    if self.explicit:\n", "    if self.any_origin:\n        headers['allow'] = '*'\n    elif self.explicit:\n"
    )
    j = run(diff("app/cors.py", new, first), dec)
    assert j.label == "contradicts" and "K3" in ids(j), j
    after = new + "    elif origin is None:\n        headers['allow'] = 'null'\n"
    assert "K3" not in ids(run(diff("app/cors.py", new, after), dec))


ENV_OLD = "def make(loader):\n    return Environment(loader=loader)\n"
ENV_DEC = "def make(loader):\n    return Environment(loader=loader, autoescape=select_autoescape())\n"


def test_a_keyword_the_decision_added_passed_as_false_in_a_new_call_is_w2() -> None:
    dec = info({"app/env.py": patch(ENV_OLD, ENV_DEC)}, quote="Escape templates by default.")
    off = ENV_DEC + "\n\ndef plain(loader):\n    return Environment(loader=loader, autoescape=False)\n"
    j = run(diff("app/env.py", ENV_DEC, off), dec)
    assert j.label == "contradicts" and "W2" in ids(j), j
    # passing it on keeps the decision's default where it is chosen
    passed = (
        ENV_DEC + "\n\ndef custom(loader, autoescape):\n    return Environment(loader=loader, autoescape=autoescape)\n"
    )
    assert "W2" not in ids(run(diff("app/env.py", ENV_DEC, passed), dec))
    # another keyword of the same call set off is not the decision's
    other = (
        ENV_DEC
        + "\n\ndef strict(loader):\n    return Environment(loader=loader, autoescape=select_autoescape(), cache=None)\n"
    )
    assert "W2" not in ids(run(diff("app/env.py", ENV_DEC, other), dec))


SEND_COOKIE_OLD = "def send(scope, headers):\n    if scope['session']:\n        headers.append(cookie(scope))\n"
SEND_COOKIE_DEC = "def send(scope, headers):\n    session = scope['session']\n    if session.modified and session:\n        headers.append(cookie(session))\n"


def test_a_restriction_the_decision_added_put_in_an_or_is_k4() -> None:
    dec = info({"app/s.py": patch(SEND_COOKIE_OLD, SEND_COOKIE_DEC)}, quote="Only send the cookie when it changed.")
    rolling = SEND_COOKIE_DEC.replace(
        "    if session.modified and session:\n",
        "    rolling = bool(max_age) and not was_empty\n    if session and (session.modified or rolling):\n",
    )
    j = run(diff("app/s.py", SEND_COOKIE_DEC, rolling), dec)
    assert j.label == "contradicts" and "K4" in ids(j), j
    # the alternative only under a new flag that is off: an opt-in
    opt_in = SEND_COOKIE_DEC.replace("def send(scope, headers):", "def send(scope, headers, refresh=False):").replace(
        "    if session.modified and session:\n",
        "    if session and (session.modified or (refresh and session.accessed)):\n",
    )
    assert "K4" not in ids(run(diff("app/s.py", SEND_COOKIE_DEC, opt_in), dec))
    # before a guard, an alternative makes it stricter
    guard_dec = SEND_COOKIE_DEC.replace("        headers.append(cookie(session))\n", "        return None\n")
    stricter = guard_dec.replace("if session.modified and session:", "if session and (session.modified or expired):")
    guard = info({"app/s.py": patch(SEND_COOKIE_OLD, guard_dec)}, quote="Only send the cookie when it changed.")
    assert "K4" not in ids(run(diff("app/s.py", guard_dec, stricter), guard))


NM_OLD = (
    "def fresh(req, res):\n    try:\n        if res['etag'] in req['if-none-match']:\n            return True\n"
    "    except KeyError:\n        pass\n    return req.get('since', 0) >= res['modified']\n"
)
NM_DEC = (
    "def fresh(req, res):\n    if tags := req.get('if-none-match'):\n        return res['etag'] in tags.split(',')\n"
    "    return req.get('since', 0) >= res['modified']\n"
)


def test_a_result_the_decision_returned_at_once_made_not_final_is_f2() -> None:
    dec = info(
        {"app/static.py": patch(NM_OLD, NM_DEC)}, quote="Ignore if-modified-since when if-none-match is present."
    )
    combined = (
        "def fresh(req, res):\n    matched = False\n    if tags := req.get('if-none-match'):\n"
        "        matched = res['etag'] in tags.split(',')\n    return matched or req.get('since', 0) >= res['modified']\n"
    )
    j = run(diff("app/static.py", NM_DEC, combined), dec)
    assert j.label == "contradicts" and "F2" in ids(j), j
    one_sided = NM_DEC.replace(
        "        return res['etag'] in tags.split(',')\n",
        "        if res['etag'] in tags.split(','):\n            return True\n",
    )
    assert "F2" in ids(run(diff("app/static.py", NM_DEC, one_sided), dec))
    # stored, logged, then returned as it is: still final
    logged = NM_DEC.replace(
        "        return res['etag'] in tags.split(',')\n",
        "        hit = res['etag'] in tags.split(',')\n        log.debug('etag %s', hit)\n        return hit\n",
    )
    assert "F2" not in ids(run(diff("app/static.py", NM_DEC, logged), dec))


GZ_OLD = "class Responder:\n    def start(self, headers):\n        self.skip = False\n"
GZ_DEC = (
    'EXCLUDED = ("text/event-stream",)\n\n\nclass Responder:\n    def start(self, headers):\n'
    '        self.skip = headers.get("content-type", "").startswith(EXCLUDED)\n'
)


def test_the_decisions_value_swapped_for_a_new_setting_that_holds_nothing_is_g3() -> None:
    dec = info({"app/gz.py": patch(GZ_OLD, GZ_DEC)}, quote="Don't compress server-sent events.")
    option = GZ_DEC.replace(
        "class Responder:\n",
        "class Responder:\n    def __init__(self, excluded: tuple[str, ...] = ()) -> None:\n        self.excluded = excluded\n\n",
    ).replace(".startswith(EXCLUDED)", ".startswith(self.excluded)")
    j = run(diff("app/gz.py", GZ_DEC, option), dec)
    assert j.label == "contradicts" and "G3" in ids(j), j
    # the decision's value fed into the setting: an opt-in on top of it
    on_top = option.replace("self.excluded = excluded", "self.excluded = EXCLUDED + tuple(excluded)")
    assert "G3" not in ids(run(diff("app/gz.py", GZ_DEC, on_top), dec))
    defaulted = option.replace("excluded: tuple[str, ...] = ()", "excluded: tuple[str, ...] = EXCLUDED")
    assert "G3" not in ids(run(diff("app/gz.py", GZ_DEC, defaulted), dec))


def test_a_restriction_the_decision_added_dropped_is_k4_unless_it_moved_outward() -> None:
    dec = info({"app/s.py": patch(SEND_COOKIE_OLD, SEND_COOKIE_DEC)}, quote="Only send the cookie when it changed.")
    dropped = SEND_COOKIE_DEC.replace("    if session.modified and session:\n", "    if session:\n")
    j = run(diff("app/s.py", SEND_COOKIE_DEC, dropped), dec)
    assert j.label == "contradicts" and "K4" in ids(j), j
    nested = SEND_COOKIE_DEC.replace(
        "    if session.modified and session:\n        headers.append(cookie(session))\n",
        "    if session.modified:\n        if session:\n            headers.append(cookie(session))\n",
    )
    assert "K4" not in ids(run(diff("app/s.py", SEND_COOKIE_DEC, nested), dec))


def test_t1_follows_the_line_names_the_diff_renamed_or_extended() -> None:
    old = "def allowed(self, origin):\n    if self.origin_regex is not None and self.origin_regex.match(origin):\n        return True\n"
    new = old.replace(".match(origin)", ".fullmatch(origin)")
    dec = info({"app/cors.py": patch(old, new)}, quote="Use a full regex match for origins.")
    many = (
        "def allowed(self, origin):\n    if any(r.match(origin) for r in self.origin_regexes):\n        return True\n"
    )
    j = run(diff("app/cors.py", new, many), dec)
    assert j.label == "contradicts" and "T1" in ids(j), j
    kept = "def allowed(self, origin):\n    if any(r.fullmatch(origin) for r in self.origin_regexes):\n        return True\n"
    assert "T1" not in ids(run(diff("app/cors.py", new, kept), dec))


def test_a_value_the_decision_bound_emptied_is_g3() -> None:
    dec = info({"app/gz.py": patch(GZ_OLD, GZ_DEC)}, quote="Don't compress server-sent events.")
    emptied = GZ_DEC.replace('EXCLUDED = ("text/event-stream",)', "EXCLUDED: tuple[str, ...] = ()")
    j = run(diff("app/gz.py", GZ_DEC, emptied), dec)
    assert j.label == "contradicts" and "G3" in ids(j), j
    more = GZ_DEC.replace(
        'EXCLUDED = ("text/event-stream",)', 'EXCLUDED = ("text/event-stream", "application/x-ndjson")'
    )
    assert "G3" not in ids(run(diff("app/gz.py", GZ_DEC, more), dec))


def test_a_new_branch_doing_what_the_decisions_branch_does_before_its_else_is_k4() -> None:
    dec = info({"app/ep.py": patch(DISPATCH_OLD, DISPATCH_DEC)}, quote="Only dispatch allowed verbs.")
    second = DISPATCH_DEC.replace(
        "    else:\n",
        "    elif name.isalpha() and hasattr(self, name):\n        handler = getattr(self, name)\n    else:\n",
    )
    j = run(diff("app/ep.py", DISPATCH_DEC, second), dec)
    assert j.label == "contradicts" and "K4" in ids(j), j
    other = DISPATCH_DEC.replace(
        "    else:\n", "    elif name == 'trace':\n        handler = self.trace_denied\n    else:\n"
    )
    assert "K4" not in ids(run(diff("app/ep.py", DISPATCH_DEC, other), dec))


def test_the_decisions_guarded_action_done_by_a_new_elif_is_k4() -> None:
    old = (
        "def headers(self, out, body):\n    if body is not None:\n        out.append((b'content-length', len(body)))\n"
    )
    new = (
        "def headers(self, out, body):\n    if (\n        body is not None\n        and not (self.code < 200 or self.code in (204, 304))\n"
        "    ):\n        out.append((b'content-length', len(body)))\n"
    )
    dec = info({"app/r.py": patch(old, new)}, quote="No content-length on 1xx, 204 and 304.")
    zero = new + "    elif body is not None and not body:\n        out.append((b'content-length', b'0'))\n"
    j = run(diff("app/r.py", new, zero), dec)
    assert j.label == "contradicts" and "K4" in ids(j), j
    other = new + "    elif body is None:\n        out.append((b'transfer-encoding', b'chunked'))\n"
    assert "K4" not in ids(run(diff("app/r.py", new, other), dec))


def test_a_new_exit_before_a_line_the_decision_wrote_is_k3() -> None:
    old = "def start(size, end):\n    first = size - end\n    return first\n"
    new = "def start(size, end):\n    first = max(size - end, 0)\n    return first\n"
    dec = info({"app/r.py": patch(old, new)}, quote="Clamp oversized suffix ranges.")
    early = new.replace("    first = max", "    if end > size:\n        raise NotSatisfiable(size)\n    first = max")
    j = run(diff("app/r.py", new, early), dec)
    assert j.label == "contradicts" and "K3" in ids(j), j
    guard_old = "def look(path):\n    return open(path)\n"
    guard_new = "def look(path):\n    if path.startswith('/'):\n        return None\n    return open(path)\n"
    gdec = info({"app/f.py": patch(guard_old, guard_new)}, quote="Reject absolute paths.")
    nul = guard_new.replace(
        "    if path.startswith('/'):", "    if '\\0' in path:\n        return None\n    if path.startswith('/'):"
    )
    assert "K3" not in ids(run(diff("app/f.py", guard_new, nul), gdec))


def test_a_fallback_branch_doing_the_decisions_work_before_the_next_branch_is_k4() -> None:
    old = (
        "def host(host_header, server):\n    if host_header is not None:\n        netloc = host_header\n"
        "    elif server:\n        netloc = server\n    return netloc\n"
    )
    new = old.replace("if host_header is not None:", "if host_header is not None and VALID.fullmatch(host_header):")
    dec = info({"app/url.py": patch(old, new)}, quote="Ignore malformed Host headers.")
    fallback = new.replace(
        "    elif server:", "    elif host_header:\n        netloc = host_header.strip()\n    elif server:"
    )
    j = run(diff("app/url.py", new, fallback), dec)
    assert j.label == "contradicts" and "K4" in ids(j), j


def test_a_decision_condition_spread_over_lines_by_a_formatter_is_read_as_one() -> None:
    from rguard_core.guard.behaviour import logical

    assert logical(
        [("+", "if ("), ("+", 'ct.startswith("text/")'), ("+", 'and "charset=" not in ct'), ("+", "):")]
    ) == [("+", 'if (ct.startswith("text/") and "charset=" not in ct):')]
    old = 'def ctype(ct):\n    if ct.startswith("text/"):\n        ct += "; charset=utf-8"\n    return ct\n'
    new = old.replace(
        '    if ct.startswith("text/"):\n',
        '    if (\n        ct.startswith("text/")\n        and "charset=" not in ct.lower()\n    ):\n',
    )
    dec = info({"app/r.py": patch(old, new)}, quote="Do not add a second charset.")
    helper = (
        "def ctype(ct):\n    return _render(ct)\n\n\n"
        'def _render(ct):\n    if ct.startswith("text/"):\n        return ct + "; charset=utf-8"\n    return ct\n'
    )
    # the file as it stands now, reformatted onto one line since the decision
    head = old.replace('if ct.startswith("text/"):', 'if ct.startswith("text/") and "charset=" not in ct.lower():')
    j = run(diff("app/r.py", head, helper), dec)
    assert j.label == "contradicts" and "K4" in ids(j), j


def test_f2_in_typescript_reads_early_returns_and_leaves_a_methods_last_return() -> None:
    old = "export class S {\n  fresh(req: Req): boolean {\n    return req.since >= this.modified;\n  }\n}\n"
    new = (
        "export class S {\n  fresh(req: Req): boolean {\n    if (req.tags) {\n      return req.tags.includes(this.etag);\n"
        "    }\n    return req.since >= this.modified;\n  }\n}\n"
    )
    dec = info({"src/s.ts": patch(old, new)}, quote="Ignore the date when tags are sent.")
    combined = new.replace(
        "    if (req.tags) {\n      return req.tags.includes(this.etag);\n    }\n    return req.since >= this.modified;\n",
        "    let hit = false;\n    if (req.tags) {\n      hit = req.tags.includes(this.etag);\n    }\n"
        "    return hit || req.since >= this.modified;\n",
    )
    j = run(diff("src/s.ts", new, combined), dec)
    assert j.label == "contradicts" and "F2" in ids(j), j
    last_old = (
        "export class S {\n  ok(a: A): boolean {\n    return true;\n  }\n\n  other(): number {\n    return 1;\n  }\n}\n"
    )
    last_new = last_old.replace("    return true;\n", "    return a.ready && a.valid(this.rules);\n")
    last = info({"src/s.ts": patch(last_old, last_new)}, quote="Ready and valid.")
    split = last_new.replace(
        "    return a.ready && a.valid(this.rules);\n",
        "    if (!a.ready) {\n      return false;\n    }\n    return a.valid(this.rules) || a.forced;\n",
    )
    assert "F2" not in ids(run(diff("src/s.ts", last_new, split), last))


def test_g2_and_k3_read_typescript() -> None:
    old = "export class File {\n  size = 10;\n\n  send(scope: Scope): boolean {\n    const fast = false;\n    return fast;\n  }\n}\n"
    new = old.replace(
        "    const fast = false;\n", '    const fast = scope.type === "http" && "fast.send" in scope.ext;\n'
    )
    dec = info({"src/file.ts": patch(old, new)}, quote="Use the fast send extension when offered.")
    gated = new.replace("  size = 10;\n", "  size = 10;\n  private allowFast = false;\n").replace(
        '    const fast = scope.type === "http"', '    const fast = this.allowFast && scope.type === "http"'
    )
    j = run(diff("src/file.ts", new, gated), dec)
    assert j.label == "contradicts" and "G2" in ids(j), j
    r_old = "function start(size: number, end: number): number {\n  const first = size - end;\n  return first;\n}\n"
    r_new = r_old.replace("size - end;", "Math.max(size - end, 0);")
    rdec = info({"src/range.ts": patch(r_old, r_new)}, quote="Clamp oversized suffix ranges.")
    early = r_new.replace(
        "  const first", "  if (end > size) {\n    throw new NotSatisfiable(size);\n  }\n  const first"
    )
    j = run(diff("src/range.ts", r_new, early), rdec)
    assert j.label == "contradicts" and "K3" in ids(j), j


def test_f2_reads_the_early_return_moved_into_a_helper_whose_result_is_combined() -> None:
    dec = info(
        {"app/static.py": patch(NM_OLD, NM_DEC)}, quote="Ignore if-modified-since when if-none-match is present."
    )
    # written as git shows such a move (the return leaves its block and comes back inside the helper)
    helpers = (
        "diff --git a/app/static.py b/app/static.py\n--- a/app/static.py\n+++ b/app/static.py\n"
        "@@ -1,4 +1,10 @@\n def fresh(req, res):\n"
        "-    if tags := req.get('if-none-match'):\n-        return res['etag'] in tags.split(',')\n"
        "-    return req.get('since', 0) >= res['modified']\n"
        "+    return _tags(req, res) or _since(req, res)\n+\n+\n+def _tags(req, res):\n"
        "+    tags = req.get('if-none-match')\n+    if not tags:\n+        return False\n"
        "+    return res['etag'] in tags.split(',')\n+\n+\n"
    )
    j = run(helpers, dec)
    assert j.label == "contradicts" and "F2" in ids(j), j


def test_taking_out_all_a_one_token_decision_did_is_focused_in_a_larger_diff() -> None:
    old = "def allowed(self, origin):\n    return self.regex is not None and self.regex.match(origin)\n"
    new = old.replace(".match(origin)", ".fullmatch(origin)")
    dec = info({"app/cors.py": patch(old, new)}, quote="Use a full regex match.")
    helper = (
        "def allowed(self, origin):\n    return self.regex is not None and self._matches(origin)\n\n\n"
        "def _matches(self, origin: str) -> bool:\n    # Users write patterns without anchors, so look anywhere.\n"
        "    assert self.regex is not None\n    found = self.regex.search(origin)\n    return found is not None\n"
    )
    j = run(diff("app/cors.py", new, helper), dec)
    assert j.label == "contradicts", j


def test_a_new_exit_before_a_try_around_the_decisions_line_is_k3() -> None:
    old = "def start(size, end):\n    try:\n        first = size - end\n    except ValueError:\n        return None\n    return first\n"
    new = old.replace("first = size - end", "first = max(size - end, 0)")
    dec = info({"app/r.py": patch(old, new)}, quote="Clamp oversized suffix ranges.")
    early = new.replace("    try:\n", "    if end > size:\n        raise NotSatisfiable(size)\n\n    try:\n", 1)
    j = run(diff("app/r.py", new, early), dec)
    assert j.label == "contradicts" and "K3" in ids(j), j


def test_a_boolean_the_decision_passed_replaced_by_a_setting_defaulting_the_other_way_is_g3() -> None:
    old = "class Socket:\n    def send_json(self, data):\n        return json.dumps(data, separators=(',', ':'))\n"
    new = old.replace("separators=(',', ':'))", "separators=(',', ':'), ensure_ascii=False)")
    dec = info({"app/ws.py": patch(old, new)}, quote="Send non-ASCII text as is.")
    flipped = new.replace("class Socket:\n", "class Socket:\n    json_ensure_ascii: bool = True\n\n").replace(
        "ensure_ascii=False)", "ensure_ascii=self.json_ensure_ascii)"
    )
    j = run(diff("app/ws.py", new, flipped), dec)
    assert j.label == "contradicts" and "G3" in ids(j), j
    kept = flipped.replace("json_ensure_ascii: bool = True", "json_ensure_ascii: bool = False")
    assert "G3" not in ids(run(diff("app/ws.py", new, kept), dec))
