"""A local server speaking GitHub's REST protocol for the endpoints the Action uses, over in-memory state.

  GET   /repos/{o}/{r}/pulls/{n}                        JSON, or the diff with Accept: application/vnd.github.diff
  GET   /repos/{o}/{r}/issues/{n}/comments              paginated (per_page, page, Link rel="next")
  POST  /repos/{o}/{r}/issues/{n}/comments              201 with the new comment (author: the token's identity)
  PATCH /repos/{o}/{r}/issues/comments/{id}             only the author may edit (403 otherwise)
  POST  /repos/{o}/{r}/check-runs                       201; 403 when the token lacks checks: write
  GET   /repos/{o}/{r}/collaborators/{user}/permission  404 for a user who is not a collaborator
Requests without ``Authorization: Bearer <token>`` get 401, as GitHub does for writes. Every request is logged.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .loopback import LoopbackServer

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}


@dataclass
class PullState:
    number: int
    head_sha: str
    diff: str
    title: str = "a change"


@dataclass
class RepoState:
    full_name: str
    token: str
    pulls: dict[int, PullState] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # issue number -> comments
    permissions: dict[str, str] = field(default_factory=dict)  # login -> admin|maintain|write|triage|read
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    checks_writable: bool = True
    comments_writable: bool = True  # False: a fork's read-only token
    identity: dict[str, Any] = field(default_factory=lambda: dict(BOT))  # who the token is (a personal token: a User)
    log: list[tuple[str, str]] = field(default_factory=list)
    next_id: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_comment(self, number: int, login: str, body: str, user_type: str = "User") -> dict[str, Any]:
        with self.lock:
            self.next_id += 1
            c = {
                "id": self.next_id,
                "body": body,
                "user": {"login": login, "type": user_type},
                "html_url": f"https://github.com/{self.full_name}/pull/{number}#issuecomment-{self.next_id}",
            }
            self.comments.setdefault(number, []).append(c)
            return c


class GitHubActionServer(LoopbackServer):
    """``with GitHubActionServer(RepoState(...)) as gh: ActionClient(gh.url, repo, token)``."""

    def __init__(self, state: RepoState, per_page_cap: int = 100) -> None:
        self.state = state
        self.per_page_cap = per_page_cap
        super().__init__(_handler(self))


def _handler(server: GitHubActionServer) -> type[BaseHTTPRequestHandler]:
    st = server.state
    prefix = f"/repos/{st.full_name}"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(
            self,
            status: int,
            body: Any,
            headers: dict[str, str] | None = None,
            content_type: str = "application/json; charset=utf-8",
        ) -> None:
            data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("X-RateLimit-Remaining", "4999")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> Any:
            n = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(n) or b"null")

        def _route(self, method: str) -> None:
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query))
            with st.lock:
                st.log.append((method, parts.path))
            if self.headers.get("Authorization") != f"Bearer {st.token}":
                return self._send(401, {"message": "Bad credentials"})
            if not parts.path.startswith(prefix + "/"):
                return self._send(404, {"message": "Not Found"})
            rest = parts.path[len(prefix) :]
            for pattern, want, fn in ROUTES:
                m = re.fullmatch(pattern, rest)
                if m and method == want:
                    return fn(self, m, query)
            self._send(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PATCH(self) -> None:
            self._route("PATCH")

        def pull(self, m: re.Match[str], _q: dict[str, str]) -> None:
            p = st.pulls.get(int(m["n"]))
            if p is None:
                return self._send(404, {"message": "Not Found"})
            if "application/vnd.github.diff" in (self.headers.get("Accept") or ""):
                return self._send(200, p.diff, content_type="text/x-diff; charset=utf-8")
            self._send(
                200,
                {
                    "number": p.number,
                    "title": p.title,
                    "state": "open",
                    "head": {"sha": p.head_sha, "ref": "feature"},
                    "base": {"ref": "main"},
                    "html_url": f"https://github.com/{st.full_name}/pull/{p.number}",
                },
            )

        def list_comments(self, m: re.Match[str], q: dict[str, str]) -> None:
            items = list(st.comments.get(int(m["n"]), []))
            per = min(int(q.get("per_page", 30)), server.per_page_cap)
            page = int(q.get("page", 1))
            chunk = items[(page - 1) * per : page * per]
            headers = {}
            if page * per < len(items):
                headers["Link"] = (
                    f'<{server.url}{prefix}/issues/{m["n"]}/comments?per_page={per}&page={page + 1}>; rel="next"'
                )
            self._send(200, chunk, headers)

        def create_comment(self, m: re.Match[str], _q: dict[str, str]) -> None:
            if not st.comments_writable:
                return self._send(403, {"message": "Resource not accessible by integration"})
            body = self._body()
            c = st.add_comment(int(m["n"]), st.identity["login"], str(body["body"]), st.identity["type"])
            self._send(201, c)

        def update_comment(self, m: re.Match[str], _q: dict[str, str]) -> None:
            cid = int(m["id"])
            for cs in st.comments.values():
                for c in cs:
                    if c["id"] == cid:
                        if c["user"]["login"] != st.identity["login"]:
                            return self._send(403, {"message": "Resource not accessible by integration"})
                        c["body"] = str(self._body()["body"])
                        return self._send(200, c)
            self._send(404, {"message": "Not Found"})

        def create_check_run(self, _m: re.Match[str], _q: dict[str, str]) -> None:
            if not st.checks_writable:
                return self._send(403, {"message": "Resource not accessible by integration"})
            run = {**self._body(), "id": len(st.check_runs) + 1}
            st.check_runs.append(run)
            self._send(201, run)

        def permission(self, m: re.Match[str], _q: dict[str, str]) -> None:
            perm = st.permissions.get(m["user"])
            if perm is None:
                return self._send(404, {"message": f"{m['user']} is not a user"})
            legacy = {"maintain": "write", "triage": "read"}.get(perm, perm)
            self._send(200, {"permission": legacy, "role_name": perm, "user": {"login": m["user"]}})

    ROUTES = [
        (r"/pulls/(?P<n>\d+)", "GET", Handler.pull),
        (r"/issues/(?P<n>\d+)/comments", "GET", Handler.list_comments),
        (r"/issues/(?P<n>\d+)/comments", "POST", Handler.create_comment),
        (r"/issues/comments/(?P<id>\d+)", "PATCH", Handler.update_comment),
        (r"/check-runs", "POST", Handler.create_check_run),
        (r"/collaborators/(?P<user>[^/]+)/permission", "GET", Handler.permission),
    ]
    return Handler
