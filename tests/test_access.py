"""Who may write from the dashboard (rguard_core/access.py), and the pages honouring it: a dashboard reachable
from the network with no sign-in is read-only; a signed-in reviewer on the allowlist writes under their own
name, whatever a text field says; one off the list is refused."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from rguard_core.access import Request, decide, is_loopback
from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.errors import ConfigError
from rguard_core.memory import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "seeds" / "memory" / "forged_invoice.json"


def _req(**kw: object) -> Request:
    base: dict[str, object] = {
        "bind_address": "127.0.0.1",
        "trusted_header": None,
        "header_value": None,
        "oidc_configured": False,
        "oidc_user": None,
        "reviewers": (),
    }
    base.update(kw)
    return Request(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("address", "loop"),
    [("127.0.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True), ("127.0.0.2", True),
     ("0.0.0.0", False), ("", False), (None, False), ("::", False), ("10.1.2.3", False), ("example.org", False)],
)  # fmt: skip
def test_loopback_addresses(address: str | None, loop: bool) -> None:
    assert is_loopback(address) is loop


def test_loopback_types_a_name_and_every_interface_is_read_only() -> None:
    local = decide(_req())
    assert local.mode == "local" and local.can_write and local.typed_name and local.reviewer is None
    exposed = decide(_req(bind_address="0.0.0.0"))
    assert exposed.mode == "read_only" and not exposed.can_write
    assert "0.0.0.0" in exposed.why and "RGUARD_REVIEWERS" in exposed.why
    assert decide(_req(bind_address=None)).mode == "read_only"  # Streamlit's own default: every interface


def test_proxy_header_names_the_reviewer_only_when_listed() -> None:
    header = {"trusted_header": "X-Forwarded-User", "bind_address": "0.0.0.0", "reviewers": ("ann",)}
    ok = decide(_req(**header, header_value="Ann"))
    assert ok.mode == "header" and ok.reviewer == "Ann" and ok.can_write and not ok.typed_name
    unlisted = decide(_req(**header, header_value="mallory"))
    assert unlisted.mode == "read_only" and "mallory" in unlisted.why
    missing = decide(_req(**header))
    assert missing.mode == "read_only" and "X-Forwarded-User" in missing.why
    # behind a proxy on this machine the bind is loopback, but a request without the header is still refused
    assert decide(_req(trusted_header="X-Forwarded-User", reviewers=("ann",))).mode == "read_only"


def test_streamlit_login_names_the_reviewer_only_when_listed() -> None:
    oidc = {"oidc_configured": True, "bind_address": "0.0.0.0", "reviewers": ("ann@example.com",)}
    assert decide(_req(**oidc)).why == "read-only until you sign in"
    ok = decide(_req(**oidc, oidc_user="Ann@Example.com"))
    assert ok.mode == "oidc" and ok.reviewer == "Ann@Example.com"
    assert decide(_req(**oidc, oidc_user="eve@example.com")).mode == "read_only"


def test_settings_read_the_allowlist_and_refuse_a_bad_header_name() -> None:
    s = Settings.from_env({"RGUARD_REVIEWERS": "Ann, bob@x.org  carol", "RGUARD_TRUSTED_HEADER": "X-Forwarded-User"})
    assert s.reviewers == ("ann", "bob@x.org", "carol") and s.trusted_header == "X-Forwarded-User"
    with pytest.raises(ConfigError, match="RGUARD_TRUSTED_HEADER"):
        Settings.from_env({"RGUARD_TRUSTED_HEADER": "X-User: admin"})


@pytest.fixture
def workspace(store: Store) -> str:
    name = f"acc-{uuid.uuid4().hex[:8]}"
    load_scenario(store, json.loads(SCENARIO.read_text()), workspace=name)
    return name


@pytest.fixture
def exposed() -> Iterator[None]:
    """The dashboard as `make run HOST=0.0.0.0` starts it (the AppTests read .streamlit/config.toml: loopback)."""
    before = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    yield
    st_config.set_option("server.address", before)


def _corrections(ws: str, at: AppTest) -> tuple[AppTest, list[str]]:
    """The Corrections page on the portal source, and the sidebar's warnings (read before switch_page: AppTest
    draws no sidebar after it)."""
    at.run()
    banner = [w.value for w in at.sidebar.warning]
    at.switch_page("pages/corrections.py").run()
    at.selectbox(key="corr_scope").set_value(f"workspace · {ws}").run()
    at.text_input(key="corr_query").input("portal-page").run()
    return at, banner


def test_exposed_dashboard_without_sign_in_is_read_only(store: Store, workspace: str, exposed: None) -> None:
    at, banner = _corrections(workspace, AppTest.from_file(str(ROOT / "app.py"), default_timeout=60))
    assert not at.exception
    assert any("read-only" in w and "0.0.0.0" in w for w in banner)
    assert any("Quarantining a source is turned off here" in i.value for i in at.info)
    assert not [t for t in at.text_input if t.key == "q_by"] and not [b for b in at.button if b.key == "q_btn"]
    g = store.workspace_graph(workspace)
    assert g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q") == [{"q": False}]


def _signed_in(email: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.secrets["auth"] = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32}
    at.user = {"is_logged_in": True, "email": email, "name": "Ann"}
    return at


def test_signed_in_reviewer_writes_under_their_own_name(
    store: Store, workspace: str, exposed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RGUARD_REVIEWERS", "ann@example.com")
    at, banner = _corrections(workspace, _signed_in("ann@example.com"))
    assert not at.exception
    assert not [t for t in at.text_input if t.key == "q_by"]  # no name field to type someone else's name into
    assert any("Recorded as **ann@example.com**" in c.value for c in at.caption)
    at.text_input(key="q_reason").input("forged")
    at.button(key="q_preview_btn").click().run()
    at.button(key="q_btn").click().run()
    assert not at.exception and any("Quarantined portal-page" in s.value for s in at.success)
    g = store.workspace_graph(workspace)
    assert g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q, s.quarantined_by AS by") == [
        {"q": True, "by": "ann@example.com"}
    ]


def test_signed_in_user_off_the_allowlist_is_refused(
    store: Store, workspace: str, exposed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RGUARD_REVIEWERS", "ann@example.com")
    at, banner = _corrections(workspace, _signed_in("eve@example.com"))
    assert not at.exception
    assert any("eve@example.com is not on RGUARD_REVIEWERS" in w for w in banner)
    assert not [b for b in at.button if b.key == "q_preview_btn"]
