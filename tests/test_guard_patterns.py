"""patterns.narrows reads whether an edited regular expression accepts less (a validation tightened) or more
(loosened), and the judge's S6 keeps a tightened pattern from reading as the decision's literal taken out."""

from __future__ import annotations

import re

from rguard_core.guard.fixtures import diff, info, patch
from rguard_core.guard.patterns import looks_like_pattern, narrows, samples
from tests.test_guard_paraphrase import ids, run

HOST = r"^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(?::[0-9]+)?$"


def test_a_port_limited_to_five_digits_narrows_and_any_visible_character_loosens() -> None:
    assert narrows(HOST, HOST.replace("[0-9]+", "[0-9]{1,5}"), re.IGNORECASE) is True
    assert narrows(HOST, r"^\S+$", re.IGNORECASE) is False
    # one more character allowed is looser, however small the edit
    assert narrows(HOST, HOST.replace("[a-z0-9.-]+", "[a-z0-9._-]+"), re.IGNORECASE) is False
    assert narrows(r"https://.*\.example\.org", r"https://[a-z]+\.example\.org") is True


def test_what_the_generator_does_not_model_is_not_known() -> None:
    assert narrows(r"(a)\1", r"(a)\1b") is None  # a back-reference
    assert narrows("[", "[a]") is None  # the old pattern does not compile
    assert samples("(?=x)x") is None  # a look-ahead
    assert looks_like_pattern(HOST) and not looks_like_pattern("utf-8")


OLD = "import re\n\n_HOST = re.compile(r'^.+$')\n"
DEC = f"import re\n\n_HOST = re.compile(r'{HOST}', re.IGNORECASE)\n"


def test_s6_a_pattern_made_stricter_is_related_and_a_looser_one_warns() -> None:
    dec = info({"app/url.py": patch(OLD, DEC)}, quote="Ignore malformed Host headers.")
    tighter = DEC.replace("[0-9]+", "[0-9]{1,5}")
    j = run(diff("app/url.py", DEC, tighter), dec)
    assert j.label == "related" and "S6" in ids(j), j
    looser = DEC.replace(HOST, r"^\S+$")
    assert run(diff("app/url.py", DEC, looser), dec).label == "contradicts"
