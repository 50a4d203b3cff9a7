"""Everyday refactors of a decision's own lines stay quiet: code extracted into a helper the diff defines, an
attribute renamed where it is bound and read, a new helper whose keyword defaults to None. Each sits beside
the undo of the same lines, which still warns (found on blind4/blind5's false warnings)."""

from __future__ import annotations

from tests.test_guard_decisive import diff, info, patch
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
