"""Everyday refactors of a decision's own lines stay quiet: code extracted into a helper the diff defines, an
attribute renamed where it is bound and read, a new helper whose keyword defaults to None. Each sits beside
the undo of the same lines, which still warns (found on blind4/blind5's false warnings)."""

from __future__ import annotations

from rguard_core.guard.fixtures import diff, info, patch
from tests.test_guard_paraphrase import ids, run

OLD = "class Endpoint:\n    def dispatch(self, request):\n        if request.method in self.allowed:\n            return self.handle(request)\n        return self.refuse(request)\n"
DEC = OLD.replace(
    "if request.method in self.allowed:",
    'if request.method in self.allowed or (request.method == "HEAD" and "GET" in self.allowed):',
)


def test_a_decision_condition_extracted_into_a_helper_is_no_undo() -> None:
    dec = info({"app/ep.py": patch(OLD, DEC)}, quote="HEAD falls back to GET.")
    helper = DEC.replace(
        '        if request.method in self.allowed or (request.method == "HEAD" and "GET" in self.allowed):\n',
        "        if self._dispatchable(request.method):\n",
    ) + (
        '\n    def _dispatchable(self, method):\n        return method in self.allowed or (method == "HEAD" and "GET" in self.allowed)\n'
    )
    j = run(diff("app/ep.py", DEC, helper), dec)
    assert j.label != "contradicts", j
    undo = DEC.replace(' or (request.method == "HEAD" and "GET" in self.allowed)', "")
    assert run(diff("app/ep.py", DEC, undo), dec).label == "contradicts"


def test_an_attribute_renamed_where_bound_and_read_is_a_rename() -> None:
    old = "class R:\n    def start(self, headers):\n        self.started = True\n\n    def body(self, msg):\n        return msg\n"
    new = (
        "class R:\n    def start(self, headers):\n        self.started = True\n"
        '        self.encoded = "content-encoding" in headers\n\n'
        "    def body(self, msg):\n        if self.encoded:\n            return msg\n        return compress(msg)\n"
    )
    dec = info({"app/r.py": patch(old, new)}, quote="Never encode a body twice.")
    renamed = new.replace("self.encoded", "self.already_encoded")
    assert run(diff("app/r.py", new, renamed), dec).label != "contradicts"
    dropped = new.replace("        if self.encoded:\n            return msg\n", "")
    assert run(diff("app/r.py", new, dropped), dec).label == "contradicts"


def test_a_new_helpers_keyword_defaulting_to_none_does_not_switch_a_limit_off() -> None:
    old = "class M:\n    def __init__(self, app):\n        self.app = app\n"
    new = "class M:\n    def __init__(self, app, max_age: int = 1209600):\n        self.app = app\n        self.max_age = max_age\n"
    dec = info({"app/m.py": patch(old, new)}, quote="Expire sessions after a maximum age.")
    helper = new + "\n    def _cookie(self, value: str, *, max_age: int | None = None) -> str:\n        return value\n"
    assert "W1" not in ids(run(diff("app/m.py", new, helper), dec))
    off = new.replace("max_age: int = 1209600", "max_age: int | None = None")
    assert "W1" in ids(run(diff("app/m.py", new, off), dec))


LOOKUP_OLD = "def lookup(path):\n    for d in dirs:\n        yield d\n"
LOOKUP_DEC = 'def lookup(path):\n    if path.startswith(("/", "\\\\")):\n        return None\n    for d in dirs:\n        yield d\n'


def test_a_guard_the_decision_added_extended_in_place_is_no_revert() -> None:
    dec = info({"app/f.py": patch(LOOKUP_OLD, LOOKUP_DEC)}, quote="Reject absolute paths.")
    stricter = LOOKUP_DEC.replace(
        'if path.startswith(("/", "\\\\")):', 'if path.startswith(("/", "\\\\")) or drive(path):'
    )
    j = run(diff("app/f.py", LOOKUP_DEC, stricter), dec)
    assert j.label != "contradicts", j
    # deleted, it is the decision's revert
    assert "REV1" in ids(run(diff("app/f.py", LOOKUP_DEC, LOOKUP_OLD), dec))


def test_code_the_decision_replaced_moved_into_a_helper_is_no_revert() -> None:
    old = "def send(self, code, body, populate):\n    if body is not None and populate:\n        self.length(body)\n"
    new = (
        "def send(self, code, body, populate):\n    if (\n        body is not None\n        and populate\n"
        "        and not (code < 200 or code in (204, 304))\n    ):\n        self.length(body)\n"
    )
    dec = info({"app/r.py": patch(old, new)}, quote="No content length on 1xx, 204 and 304.")
    helper = (
        "def _no_body(code):\n    return code < 200 or code in (204, 304)\n\n\n"
        "def send(self, code, body, populate):\n    if body is not None and populate and not _no_body(code):\n"
        "        self.length(body)\n"
    )
    assert run(diff("app/r.py", new, helper), dec).label != "contradicts"
    assert "REV1" in ids(run(diff("app/r.py", new, old), dec))


def test_a_bare_value_the_words_put_on_the_losing_side_is_written_back_when_the_winner_goes() -> None:
    old = "def deny(url):\n    return Redirect(url)\n"
    new = "def deny(url):\n    return Redirect(url, status_code=303)\n"
    dec = info({"app/auth.py": patch(old, new)}, quote="Redirect with 303 status_code instead of 307.")
    helper = "def _go(url):\n    return Redirect(url, status_code=307)\n\n\ndef deny(url):\n    return _go(url)\n"
    j = run(diff("app/auth.py", new, helper), dec)
    assert j.label == "contradicts" and "X1" in ids(j), j
    # 307 elsewhere, with the decision's 303 kept, is not the swap
    beside = new + "\n\ndef moved(url):\n    return Redirect(url, status_code=307)\n"
    assert "X1" not in ids(run(diff("app/auth.py", new, beside), dec))


def test_a_grant_given_one_more_way_in_is_wider_not_stricter() -> None:
    from rguard_core.guard.conditions import widens_guard
    from rguard_core.guard.diffparse import parse_diff
    from rguard_core.guard.judge_offline import diff_change_sets

    grant = "def ok(user):\n    if user.admin:\n        return True\n    return False\n"
    refuse = "def ok(user):\n    if user.banned:\n        return None\n    return user\n"
    for text, stricter in ((grant, False), (refuse, True)):
        cond = "if user.admin:" if text is grant else "if user.banned:"
        after = cond[:-1] + " or user.locked:"
        cs = diff_change_sets(parse_diff(diff("app/u.py", text, text.replace(cond, after))).files)["app/u.py"]
        assert widens_guard(cs, cond, after) is stricter


DISPATCH_OLD = "def dispatch(self, name):\n    handler = getattr(self, name, self.not_allowed)\n    return handler()\n"
DISPATCH_DEC = (
    "def dispatch(self, name):\n    if name in self.allowed:\n        handler = getattr(self, name)\n"
    "    else:\n        handler = self.not_allowed\n    return handler()\n"
)


def test_a_line_the_decision_took_out_written_again_is_rev4() -> None:
    dec = info({"app/ep.py": patch(DISPATCH_OLD, DISPATCH_DEC)}, quote="Only dispatch allowed verbs.")
    back = DISPATCH_DEC.replace(
        "        handler = self.not_allowed\n", "        handler = getattr(self, name, self.not_allowed)\n"
    )
    j = run(diff("app/ep.py", DISPATCH_DEC, back), dec)
    assert j.label == "contradicts" and "REV4" in ids(j), j
    # what a line the decision wrote says too is no old line
    again = DISPATCH_DEC.replace("        handler = self.not_allowed\n", "        handler = getattr(self, name)\n")
    assert "REV4" not in ids(run(diff("app/ep.py", DISPATCH_DEC, again), dec))


def test_a2_reads_decision_records_and_leaves_a_readme_edited_in_passing() -> None:
    text = "# Notes\n\nWe keep every event append only so that invoices can be rebuilt.\nOther notes.\n"
    quote = "We keep every event append only so that invoices can be rebuilt from the log."
    edited = text.replace("We keep every event append only so that invoices can be rebuilt.\n", "Events are kept.\n")
    record = info({"docs/adr/0003-events.md": patch("", text)}, quote=quote)
    j = run(diff("docs/adr/0003-events.md", text, edited), record)
    assert j.label == "contradicts" and "A2" in ids(j), j
    readme = info({"README.md": patch("", text)}, quote=quote + " Also faster replays, smaller backups and audits.")
    reworded = text.replace("every event append only so that invoices can be rebuilt.", "the history.")
    assert "A2" not in ids(run(diff("README.md", text, reworded), readme))


def test_g3_leaves_a_field_that_was_empty_by_construction() -> None:
    old = "@dataclass\nclass Detail:\n    name: str\n"
    new = "@dataclass\nclass Detail:\n    name: str\n    links: list[str] = field(default_factory=list)\n"
    dec = info({"app/d.py": patch(old, new)}, quote="Node details list their links.")
    local = new + "\n\ndef build(name):\n    links: list[str] = []\n    return Detail(name, links)\n"
    assert "G3" not in ids(run(diff("app/d.py", new, local), dec))


def test_g3_leaves_locals_that_start_empty_and_keywords_passed_explicitly() -> None:
    old = "def cancel(files):\n    for giver in files:\n        pass\n"
    new = "def cancel(files):\n    for giver in files:\n        for taker in files:\n            move(giver, taker)\n"
    dec = info({"app/m.py": patch(old, new)}, quote="Code moved between files is moved.")
    indexed = (
        "def cancel(files):\n    adders: dict[str, list[str]] = {}\n    for giver in files:\n"
        "        for taker in adders[giver]:\n            move(giver, taker)\n"
    )
    assert "G3" not in ids(run(diff("app/m.py", new, indexed), dec))


def test_f2_leaves_a_function_whose_last_return_is_split() -> None:
    old = "def holds(line, wanted):\n    return True\n\n\ndef other():\n    return 1\n"
    new = "def holds(line, wanted):\n    return all(t in line for t in wanted) and bool(line & wanted)\n\n\ndef other():\n    return 1\n"
    dec = info({"app/h.py": patch(old, new)}, quote="A line holds all the wanted tokens.")
    split = (
        "def holds(line, wanted):\n    if not all(t in line for t in wanted):\n        return False\n"
        "    return bool(line & wanted) or extra(line)\n\n\ndef other():\n    return 1\n"
    )
    assert "F2" not in ids(run(diff("app/h.py", new, split), dec))


HOST_OLD = "def host(headers):\n    value = headers.get('host')\n    if value is not None:\n        return value\n    return None\n"
HOST_DEC = HOST_OLD.replace("if value is not None:", "if value is not None and HOST_RE.fullmatch(value):")


def test_a_check_moved_into_a_helper_leaving_the_old_line_is_no_revert() -> None:
    dec = info({"app/url.py": patch(HOST_OLD, HOST_DEC)}, quote="Ignore malformed Host headers.")
    helper = "def _valid(value):\n    return value if HOST_RE.fullmatch(value) else None\n\n\n" + HOST_OLD.replace(
        "    value = headers.get('host')\n", "    value = _valid(headers.get('host'))\n"
    )
    j = run(diff("app/url.py", HOST_DEC, helper), dec)
    assert j.label != "contradicts", j
    assert run(diff("app/url.py", HOST_DEC, HOST_OLD), dec).label == "contradicts"


def test_a_keyword_the_decision_added_moved_into_defaults_keeps_the_line() -> None:
    old = "def make(loader):\n    return Environment(loader=loader)\n"
    new = "def make(loader):\n    return Environment(loader=loader, autoescape=select_autoescape())\n"
    dec = info({"app/t.py": patch(old, new)}, quote="Enable autoescape by default.")
    defaults = (
        "def make(loader, **options):\n    options = {'autoescape': select_autoescape(), **options}\n"
        "    return Environment(loader=loader, **options)\n"
    )
    assert "REV3" not in ids(run(diff("app/t.py", new, defaults), dec))


def test_a_condition_named_as_a_local_is_no_revert_of_a_multiline_decision_line() -> None:
    old = "def send(self, body, populate):\n    if body is not None and populate:\n        self.length(body)\n"
    new = (
        "def send(self, body, populate):\n    if (\n        body is not None\n        and populate\n"
        "        and not (self.code < 200 or self.code in (204, 304))\n    ):\n        self.length(body)\n"
    )
    dec = info({"app/r.py": patch(old, new)}, quote="No content length on 1xx, 204 and 304.")
    named = (
        "def send(self, body, populate):\n    forbids = self.code < 200 or self.code in (204, 304)\n"
        "    if body is not None and populate and not forbids:\n        self.length(body)\n"
    )
    assert run(diff("app/r.py", new, named), dec).label != "contradicts"


def test_a_new_local_named_like_code_the_decision_removed_puts_nothing_back() -> None:
    from rguard_core.guard.diffparse import parse_diff
    from rguard_core.guard.judge_bag import overlap
    from rguard_core.guard.judge_case import patch_set
    from rguard_core.guard.judge_offline import diff_change_sets

    old = "def find(d, p):\n    full = Path(d, p).resolve()\n    return full\n"
    new = "def find(d, p):\n    full = realpath(join(d, p))\n    return full\n"
    chooser = "def find(d, p):\n    resolve = realpath if FOLLOW else abspath\n    full = resolve(join(d, p))\n    return full\n"
    cs = diff_change_sets(parse_diff(diff("app/f.py", new, chooser)).files)["app/f.py"]
    assert "resolve" in cs.new_locals
    undo = overlap(cs, patch_set(patch(old, new), "app/f.py")).undo
    assert "resolve" not in undo, undo
