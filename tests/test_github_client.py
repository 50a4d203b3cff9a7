"""GitHubSource against a local server speaking GitHub's REST protocol (tests/github_server.py)."""

from __future__ import annotations

import datetime as dt
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from rguard_core.errors import GitHubError, InvalidInput, InvalidRepoName, RateLimited, RepoNotFound
from rguard_core.ingest.github import GitHubSource, next_link
from rguard_core.ingest.rest import SnapshotSource
from rguard_core.pr_url import parse_pr_url
from tests.conftest import REALDATA, SHARED
from tests.github_server import Faults, GitHubServer

FIXTURE = Path(__file__).parent / "fixtures" / "github"
REPO = "acme/widgets"
ADR = "docs/adr/0001-use-postgresql-for-widget-store.md"


@pytest.fixture
def serve() -> Iterator[Callable[..., GitHubServer]]:
    """Start fixture servers on demand: ``serve(fail_every=3)``; all are stopped afterwards."""
    started: list[GitHubServer] = []

    def start(root: Path = FIXTURE, **faults: Any) -> GitHubServer:
        srv = GitHubServer(root, Faults(**faults)).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


class Sleeps(list[float]):
    """An injected sleep that records instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


class RefusingPort:
    """A loopback port that refuses connections (bound, never listening) while in use."""

    def __enter__(self) -> int:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return int(self.sock.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def source(srv: GitHubServer, **kw: Any) -> GitHubSource:
    kw.setdefault("token", "")
    kw.setdefault("sleep", Sleeps())
    return GitHubSource(REPO, api_url=srv.url, **kw)


def everything(src: Any) -> dict[str, Any]:
    """All data the ingest pipeline reads from a RestSource, for equality checks."""
    pulls = list(src.list_pulls(100))
    numbers = [p["number"] for p in pulls]
    return {
        "repo": src.repo_info(),
        "pulls": pulls,
        "pull": {n: src.pull(n) for n in numbers},
        "files": {n: src.pull_files(n) for n in numbers},
        "reviews": {n: src.pull_review_comments(n) for n in numbers},
        "issues": {n: src.issue(n) for n in (12, 15, 18)},
        "comments": {n: src.issue_comments(n) for n in (12, 15, 18, 20, 24)},
        "adr": src.file_text(ADR),
    }


# ---- pagination and endpoints --------------------------------------------------------------


def test_pulls_paginate_newest_first_across_pages(serve: Callable[..., GitHubServer]) -> None:
    srv = serve()
    said: list[str] = []
    pulls = list(source(srv, per_page=2, progress=said.append).list_pulls(100))
    assert [p["number"] for p in pulls] == [25, 24, 23, 22, 21, 20]
    calls = [r for r in srv.log if r.path.endswith("/pulls")]
    assert [r.query.get("page", "1") for r in calls] == ["1", "2", "3"]
    assert all(
        r.query["state"] == "all"
        and r.query["sort"] == "created"
        and r.query["direction"] == "desc"
        and r.query["per_page"] == "2"
        for r in calls
    )
    assert any("fetched page 3 of pulls" in m for m in said)


def test_server_forced_small_pages_are_merged(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(max_per_page=2)
    files = source(srv).pull_files(20)
    assert [f["filename"] for f in files] == [f["filename"] for f in SnapshotSource(FIXTURE).pull_files(20)]
    assert len(files) == 6 and srv.count == 3


def test_list_pulls_stops_at_max_prs(serve: Callable[..., GitHubServer]) -> None:
    srv = serve()
    pulls = list(source(srv, per_page=2).list_pulls(3))
    assert [p["number"] for p in pulls] == [25, 24, 23]
    assert srv.count == 2  # the third page is never fetched


def test_item_endpoints_and_missing_items(serve: Callable[..., GitHubServer]) -> None:
    src = source(serve())
    snap = SnapshotSource(FIXTURE)
    assert src.repo_info()["full_name"] == REPO
    assert src.pull(22) == snap.pull(22)
    assert src.pull_review_comments(23) == snap.pull_review_comments(23)
    assert src.issue(12) == snap.issue(12)
    pr_issue = src.issue(20)
    assert pr_issue is not None and pr_issue["pull_request"]["html_url"].endswith("/pull/20")
    assert src.issue(999) is None and src.pull(999) is None
    assert src.issue_comments(12) == snap.issue_comments(12)
    assert src.file_text(ADR) == snap.file_text(ADR)
    assert src.file_text("docs/adr/9999-missing.md") is None
    assert src.file_text("docs/adr") is None  # a directory is not a file


def test_unsafe_content_path_is_rejected(serve: Callable[..., GitHubServer]) -> None:
    with pytest.raises(InvalidInput, match="invalid repository file path"):
        source(serve()).file_text("../../etc/passwd")


def test_unknown_repo_raises_before_anything_is_written(serve: Callable[..., GitHubServer], tmp_path: Path) -> None:
    srv = serve()
    src = GitHubSource("acme/nope", api_url=srv.url, token="", record_dir=tmp_path / "rec")
    with pytest.raises(RepoNotFound, match="acme/nope") as err:
        src.repo_info()
    assert err.value.status == 404 and err.value.url is not None and err.value.url.endswith("/repos/acme/nope")
    assert not (tmp_path / "rec").exists()


def test_bad_repo_name_is_rejected() -> None:
    with pytest.raises(InvalidRepoName):
        GitHubSource("not a repo", api_url="http://127.0.0.1:9")


# ---- rate limits ---------------------------------------------------------------------------


def test_short_rate_limit_waits_then_succeeds(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(rate_limit_after=1, rate_limit_requests=1, rate_limit_reset_in=3)
    sleeps, said = Sleeps(), list[str]()
    src = source(srv, sleep=sleeps, progress=said.append)
    src.repo_info()
    assert src.pull(21) == SnapshotSource(FIXTURE).pull(21)
    assert srv.statuses() == [200, 403, 200]
    assert len(sleeps) == 1 and 1.0 <= sleeps[0] <= 5.0  # until the reset, plus a second of margin
    assert any(m.startswith("waiting") and "rate limit" in m for m in said)


def test_long_rate_limit_raises_with_reset_time(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(rate_limit_after=0, rate_limit_requests=99, rate_limit_reset_in=3600)
    sleeps = Sleeps()
    with pytest.raises(RateLimited) as err:
        source(srv, sleep=sleeps, max_wait_s=60).repo_info()
    assert sleeps == [] and srv.count == 1
    assert 3590 < err.value.reset_at - time.time() <= 3600
    when = dt.datetime.fromtimestamp(err.value.reset_at, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    assert when in str(err.value) and "retry after" in str(err.value)


def test_secondary_limit_honours_retry_after(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(rate_limit_after=0, rate_limit_requests=1, rate_limit_status=429, retry_after=7)
    sleeps = Sleeps()
    assert source(srv, sleep=sleeps).repo_info()["full_name"] == REPO
    assert srv.statuses() == [429, 200]
    assert len(sleeps) == 1 and 7.0 <= sleeps[0] <= 8.5


def test_endless_rate_limit_gives_up(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(rate_limit_after=0, rate_limit_requests=99, rate_limit_reset_in=2)
    with pytest.raises(RateLimited):
        source(srv, retries=2).repo_info()
    assert srv.count == 4  # the first answer plus retries + 1 waits, then it stops


def test_low_remaining_waits_before_the_next_request(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(low_remaining_on=frozenset({1}), rate_limit_reset_in=4)
    waits: list[tuple[float, int]] = []
    src = source(srv, sleep=lambda s: waits.append((s, srv.count)))
    src.repo_info()
    src.pull(20)
    assert srv.statuses() == [200, 200]
    assert len(waits) == 1 and waits[0][1] == 1 and 1.0 <= waits[0][0] <= 6.0


# ---- server and network failures -----------------------------------------------------------


def test_502s_are_retried_and_data_is_complete(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(fail_every=3)
    sleeps = Sleeps()
    got = everything(source(srv, per_page=2, sleep=sleeps))
    assert got == everything(SnapshotSource(FIXTURE))
    assert srv.statuses().count(502) >= 5 and set(sleeps) == {0.2}  # every failure was followed by a success


def test_connection_resets_are_retried(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(reset_every=2)
    src = source(srv, per_page=2)
    assert [p["number"] for p in src.list_pulls(100)] == [25, 24, 23, 22, 21, 20]
    assert src.pull_files(20) == SnapshotSource(FIXTURE).pull_files(20)
    assert 0 in srv.statuses()


def test_persistent_500_raises_github_error(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(fail_always=500)
    sleeps = Sleeps()
    with pytest.raises(GitHubError) as err:
        source(srv, retries=2, sleep=sleeps).pull(20)
    assert err.value.status == 500 and err.value.url is not None and "/repos/acme/widgets/pulls/20" in err.value.url
    assert "500" in str(err.value) and "3 attempts" in str(err.value)
    assert srv.count == 3 and sleeps == pytest.approx([0.2, 0.6])


def test_unreachable_server_raises_github_error() -> None:
    with RefusingPort() as port:
        src = GitHubSource(REPO, api_url=f"http://127.0.0.1:{port}", token="", retries=1, sleep=Sleeps())
        with pytest.raises(GitHubError, match="connection failed") as err:
            src.repo_info()
    assert err.value.status is None
    # said in the user's words: which host, what to do; no urllib3 internals
    assert str(err.value).startswith(
        f"cannot reach 127.0.0.1:{port}: check the network, set a GitHub API URL or ingest a snapshot"
    )
    assert "HTTPConnectionPool" not in str(err.value) and "Errno" not in str(err.value)


def test_client_error_carries_githubs_message(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(fail_always=401, fail_message="Bad credentials")
    with pytest.raises(GitHubError, match="Bad credentials") as err:
        source(srv).repo_info()
    assert err.value.status == 401 and srv.count == 1  # a 4xx is not retried


def test_non_json_body_raises(serve: Callable[..., GitHubServer]) -> None:
    with pytest.raises(GitHubError, match="not JSON"):
        source(serve(non_json=True)).repo_info()


def test_pagination_link_to_another_host_is_refused(serve: Callable[..., GitHubServer]) -> None:
    srv = serve(link_base="http://evil.example")
    with pytest.raises(GitHubError, match="refusing"):
        list(source(srv, per_page=2).list_pulls(100))
    assert srv.count == 1


# ---- headers, settings, recording ----------------------------------------------------------


def test_token_and_github_headers_are_sent(serve: Callable[..., GitHubServer]) -> None:
    srv = serve()
    source(srv, token="t0ken").repo_info()
    source(srv, token="").repo_info()
    with_token, without = srv.log
    assert with_token.headers["authorization"] == "Bearer t0ken"
    assert "authorization" not in without.headers
    for r in (with_token, without):
        assert r.headers["accept"] == "application/vnd.github+json"
        assert r.headers["user-agent"].startswith("rguard/")


def test_api_url_and_token_default_to_settings(
    serve: Callable[..., GitHubServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = serve()
    monkeypatch.setenv("GITHUB_API_URL", srv.url + "/")
    monkeypatch.setenv("GITHUB_TOKEN", "from-env")
    assert GitHubSource(REPO).repo_info()["full_name"] == REPO
    assert srv.log[0].headers["authorization"] == "Bearer from-env"


def test_record_dir_replays_as_the_same_snapshot(serve: Callable[..., GitHubServer], tmp_path: Path) -> None:
    srv = serve(fail_every=4)
    live = everything(source(srv, per_page=2, record_dir=tmp_path))
    live["issues"][20] = source(srv, record_dir=tmp_path).issue(20)  # a PR read as an issue is kept too
    replay = SnapshotSource(tmp_path)
    assert replay.repo == REPO
    again = everything(replay)
    again["issues"][20] = replay.issue(20)
    assert again == live
    assert len(SnapshotSource(tmp_path).pull_files(20)) == 6  # three pages merged into one file
    assert not list(tmp_path.rglob("*.part"))


# ---- parse_pr_url and Link parsing ---------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/acme/widgets/pull/20", ("acme/widgets", 20)),
        ("https://github.com/acme/widgets/pull/20/files", ("acme/widgets", 20)),
        ("https://github.com/Kludex/starlette/pull/1147#discussion_r1", ("Kludex/starlette", 1147)),
        ("  https://ghe.corp.example:8443/team/my.repo/pull/7/  ", ("team/my.repo", 7)),
    ],
)
def test_parse_pr_url_accepts_pull_request_links(url: str, expected: tuple[str, int]) -> None:
    assert parse_pr_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/widgets/issues/20",
        "https://github.com/acme/widgets",
        "github.com/acme/widgets/pull/20",
        "https://github.com/acme/widgets/pull/abc",
        "https://github.com/acme/widgets/pull/0",
        "ftp://github.com/acme/widgets/pull/2",
        "",
    ],
)
def test_parse_pr_url_rejects_other_links(url: str) -> None:
    with pytest.raises(InvalidInput):
        parse_pr_url(url)


def test_next_link_is_found_anywhere_in_the_header() -> None:
    header = (
        '<https://api.github.com/x?page=1>; rel="prev", <https://api.github.com/x?page=3>; rel="next", '
        '<https://api.github.com/x?page=9>; rel="last"'
    )
    assert next_link(header) == "https://api.github.com/x?page=3"
    assert next_link('<https://api.github.com/x?page=1>; rel="first"') is None
    assert next_link(None) is None


# ---- the shared replay tool over the real-data snapshot ------------------------------------


def test_against_shared_replay_tool_with_faults() -> None:
    tool = SHARED / "tools" / "github_replay.py"
    if not tool.is_file() or not (REALDATA / "github").is_dir():
        pytest.skip(f"/work/shared replay tool or real data not present ({tool}, {REALDATA / 'github'})")
    snap = SnapshotSource(REALDATA / "github")
    expected = sorted(int(p.stem) for p in (snap.dir / "pulls").glob("*.json") if p.stem.isdigit())
    proc = subprocess.Popen(
        [sys.executable, str(tool), str(REALDATA / "github"), "--fail-every", "5"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("listening "), f"replay tool did not start: {line!r}"
        sleeps = Sleeps()
        src = GitHubSource(snap.repo, api_url=line.split()[1], token="", sleep=sleeps)
        listed = [p["number"] for p in src.list_pulls(1000)]
        assert sorted(listed) == expected
        for n in listed:
            assert src.pull(n) == snap.pull(n)
            assert src.pull_files(n) == snap.pull_files(n)
            assert src.pull_review_comments(n) == snap.pull_review_comments(n)
        assert len(sleeps) > 0  # the 502s happened and were retried
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_session_can_be_injected(serve: Callable[..., GitHubServer]) -> None:
    srv = serve()
    session = requests.Session()
    session.headers["X-Test"] = "yes"
    GitHubSource(REPO, api_url=srv.url, token="", session=session).repo_info()
    assert srv.log[0].headers["x-test"] == "yes"


def test_the_action_client_shares_the_transport_reads_retried_writes_sent_once(
    serve: Callable[..., GitHubServer],
) -> None:
    """One REST client: the Action's reads get ingest's retries (every other request fails with 502 here) and
    its writes are never sent twice (the server refuses POST; one attempt, one clear error)."""
    from rguard_core.action.client import ActionClient
    from rguard_core.errors import GitHubError

    srv = serve(fail_every=2)
    sleeps: list[float] = []
    client = ActionClient(srv.url, REPO, "t", sleep=sleeps.append)
    assert client.http is not None and type(client.http).__name__ == "GitHubHttp"
    number = int(sorted(p.stem for p in (FIXTURE / "repos" / REPO / "pulls").glob("*.json"))[0])
    for _ in range(3):
        assert client.pull(number)["number"] == number
    assert 502 in srv.statuses() and sleeps  # retried, with the shared backoff
    before = client.http.requests_made  # the server does not log a method it refuses: count our attempts
    with pytest.raises(GitHubError, match="501"):
        client.create_comment(number, "hello")
    assert client.http.requests_made == before + 1
