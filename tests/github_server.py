"""A local server speaking GitHub's REST protocol over a snapshot folder, with injectable faults.

It serves ``<root>/repos/<owner>/<name>/`` (the layout ``SnapshotSource`` reads) on 127.0.0.1 so the
real ``requests``-based client runs unchanged: Link pagination honouring ``per_page``/``page``, the
issues list including PRs (with a ``pull_request`` key, as GitHub does), the contents API (base64),
404s for anything unknown, rate-limit headers, and faults (5xx, rate-limit windows, dropped sockets).
Every request is logged so tests can assert what the client called.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

NOT_FOUND = {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}


@dataclass
class Faults:
    """What to break. Request numbers count from 1 over the server's lifetime."""

    fail_every: int = 0  # answer ``fail_status`` to every Nth request
    fail_status: int = 502
    fail_always: int | None = None  # answer this status to every request
    fail_message: str = "Server Error"
    reset_every: int = 0  # drop the connection (TCP reset, no answer) on every Nth request
    rate_limit_after: int = -1  # after this many requests ...
    rate_limit_requests: int = 1  # ... this many get a rate-limit answer
    rate_limit_status: int = 403
    rate_limit_reset_in: float = 2.0  # seconds until X-RateLimit-Reset on limited / low answers
    retry_after: int | None = None  # send Retry-After (a secondary limit: quota not spent)
    low_remaining_on: frozenset[int] = frozenset()  # these requests report X-RateLimit-Remaining: 1
    non_json: bool = False  # answer 200 with an HTML page
    max_per_page: int = 100  # GitHub caps per_page at 100; lower it to force many pages
    link_base: str | None = None  # put this scheme://host in Link headers (a hostile server)


@dataclass(frozen=True)
class Logged:
    n: int
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int  # 0 when the connection was dropped


@dataclass
class _State:
    root: Path
    faults: Faults
    count: int = 0
    log: list[Logged] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class GitHubServer:
    """``with GitHubServer(root, Faults(...)) as gh: GitHubSource(repo, api_url=gh.url)``."""

    def __init__(self, root: Path, faults: Faults | None = None) -> None:
        self.state = _State(Path(root), faults or Faults())
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self.state))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), name="github-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def log(self) -> list[Logged]:
        with self.state.lock:
            return list(self.state.log)

    @property
    def count(self) -> int:
        with self.state.lock:
            return self.state.count

    def statuses(self) -> list[int]:
        return [r.status for r in self.log]

    def start(self) -> GitHubServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> GitHubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _load(p: Path) -> Any:
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None


def _numbered(d: Path) -> list[dict[str, Any]]:
    items = [_load(p) for p in d.glob("*.json") if p.stem.isdigit()] if d.is_dir() else []
    return [i for i in items if i is not None]


def _pr_as_issue(pr: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "url",
        "id",
        "number",
        "title",
        "user",
        "labels",
        "state",
        "created_at",
        "updated_at",
        "closed_at",
        "body",
        "html_url",
    )
    issue = {k: pr.get(k) for k in keys}
    issue["pull_request"] = {"url": pr.get("url"), "html_url": pr.get("html_url"), "merged_at": pr.get("merged_at")}
    return issue


def _contents(base: Path, rel: str) -> Any:
    p = base / "contents" / rel
    if p.is_file():
        raw = p.read_bytes()
        b64 = base64.b64encode(raw).decode()
        # GitHub wraps the base64 at 60 columns; clients must cope with the newlines.
        wrapped = "\n".join(b64[i : i + 60] for i in range(0, len(b64), 60)) + "\n"
        return {"type": "file", "encoding": "base64", "size": len(raw), "name": p.name, "path": rel, "content": wrapped}
    if p.is_dir():
        return [
            {"type": "dir" if c.is_dir() else "file", "name": c.name, "path": f"{rel}/{c.name}".strip("/")}
            for c in sorted(p.iterdir())
        ]
    return None


class _Router:
    """Maps a parsed GET to (status, body) or (200, list) for paginated endpoints."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def route(self, parts: list[str], q: dict[str, str]) -> tuple[int, Any, bool]:
        """(status, body, paginate)."""
        if parts == ["rate_limit"]:
            return 200, {"resources": {"core": {"limit": 5000}}}, False
        if len(parts) < 3 or parts[0] != "repos":
            return 404, NOT_FOUND, False
        base = self.root / "repos" / parts[1] / parts[2]
        if not base.is_dir():
            return 404, NOT_FOUND, False
        rest = parts[3:]
        if not rest:
            return self._found(_load(base / "repo.json"))
        if rest[0] == "contents":
            return self._found(_contents(base, "/".join(rest[1:])))
        if rest[0] in ("pulls", "issues") and len(rest) == 1:
            return 200, self._list(base, rest[0], q), True
        if rest[0] in ("pulls", "issues") and rest[1].isdigit():
            return self._item(base, rest[0], rest[1], rest[2:])
        return 404, NOT_FOUND, False

    @staticmethod
    def _found(body: Any) -> tuple[int, Any, bool]:
        return (200, body, False) if body is not None else (404, NOT_FOUND, False)

    def _list(self, base: Path, kind: str, q: dict[str, str]) -> list[dict[str, Any]]:
        pulls = _numbered(base / "pulls")
        items = pulls if kind == "pulls" else _numbered(base / "issues") + [_pr_as_issue(p) for p in pulls]
        state = q.get("state", "open")
        if state != "all":
            items = [i for i in items if i.get("state") == state]
        key = "updated_at" if q.get("sort") == "updated" else "created_at"
        items.sort(key=lambda i: (i.get(key) or "", i["number"]), reverse=q.get("direction", "desc") == "desc")
        return items

    def _item(self, base: Path, kind: str, num: str, sub: list[str]) -> tuple[int, Any, bool]:
        pr = _load(base / "pulls" / f"{num}.json")
        if not sub:
            item = _load(base / kind / f"{num}.json")
            if item is None and kind == "issues" and pr is not None:
                item = _pr_as_issue(pr)
            return self._found(item)
        exists = pr is not None or (kind == "issues" and (base / "issues" / f"{num}.json").is_file())
        if not exists or len(sub) != 1 or sub[0] not in ("files", "comments", "reviews", "commits"):
            return 404, NOT_FOUND, False
        return 200, _load(base / kind / num / f"{sub[0]}.json") or [], True


def _make_handler(st: _State) -> type[BaseHTTPRequestHandler]:
    router = _Router(st.root)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as GitHub; a dropped socket then hits a pooled connection
        disable_nagle_algorithm = True  # headers and body go out in two writes; avoid the 40 ms delayed-ACK stall

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            with st.lock:
                st.count += 1
                n = st.count
            f = st.faults
            u = urlsplit(self.path)
            q = dict(parse_qsl(u.query))
            if f.reset_every and n % f.reset_every == 0:
                return self._drop(n, u.path, q)
            if f.rate_limit_after >= 0 and f.rate_limit_after < n <= f.rate_limit_after + f.rate_limit_requests:
                return self._rate_limited(n, u.path, q)
            if f.fail_always is not None:
                return self._send(n, u.path, q, f.fail_always, {"message": f.fail_message})
            if f.fail_every and n % f.fail_every == 0:
                return self._send(n, u.path, q, f.fail_status, {"message": f.fail_message})
            if f.non_json:
                return self._send(n, u.path, q, 200, "<html><body>Unicorn! This page is taking too long</body></html>")
            parts = [unquote(p) for p in u.path.split("/") if p]
            status, body, paginate = router.route(parts, q)
            if paginate:
                return self._page(n, u.path, q, body)
            self._send(n, u.path, q, status, body)

        def _page(self, n: int, path: str, q: dict[str, str], items: list[Any]) -> None:
            per = max(1, min(st.faults.max_per_page, int(q.get("per_page", "30"))))
            page = max(1, int(q.get("page", "1")))
            last = max(1, -(-len(items) // per))
            base = st.faults.link_base or f"http://{self.headers.get('Host')}"

            def link(p: int, rel: str) -> str:
                return f'<{base}{path}?{urlencode({**q, "per_page": per, "page": p})}>; rel="{rel}"'

            links = []
            if page > 1:
                links += [link(page - 1, "prev")]
            if page < last:
                links += [link(page + 1, "next"), link(last, "last")]
            if page > 1:
                links += [link(1, "first")]
            extra = {"Link": ", ".join(links)} if links else {}
            body = items[(page - 1) * per : page * per]
            # GitHub's weak ETag on list pages: the same answer gets the same tag, and If-None-Match with it is
            # answered 304 with no body (and costs the client no quota)
            extra["ETag"] = 'W/"' + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:32] + '"'
            if self.headers.get("If-None-Match") == extra["ETag"]:
                self._record(n, path, q, 304)
                self.send_response(304)
                self.send_header("ETag", extra["ETag"])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._send(n, path, q, 200, body, extra)

        def _rate_limited(self, n: int, path: str, q: dict[str, str]) -> None:
            f = st.faults
            extra = {"X-RateLimit-Reset": str(int(time.time() + f.rate_limit_reset_in))}
            if f.retry_after is not None:
                extra["Retry-After"] = str(f.retry_after)
                msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
            else:
                extra["X-RateLimit-Remaining"] = "0"
                msg = "API rate limit exceeded for 127.0.0.1."
            self._send(n, path, q, f.rate_limit_status, {"message": msg}, extra)

        def _drop(self, n: int, path: str, q: dict[str, str]) -> None:
            self._record(n, path, q, 0)
            # Linger 0 makes close() send a TCP RST instead of an orderly FIN: a real "connection reset".
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

        def _send(
            self, n: int, path: str, q: dict[str, str], status: int, body: Any, extra: dict[str, str] | None = None
        ) -> None:
            self._record(n, path, q, status)
            is_text = isinstance(body, str)
            data = (body if is_text else json.dumps(body)).encode()
            low = n in st.faults.low_remaining_on
            headers = {
                "Content-Type": "text/html" if is_text else "application/json; charset=utf-8",
                "Content-Length": str(len(data)),
                "X-RateLimit-Limit": "5000",
                "X-RateLimit-Remaining": "1" if low else str(max(1, 5000 - n)),
                "X-RateLimit-Reset": str(int(time.time() + (st.faults.rate_limit_reset_in if low else 3600))),
                **(extra or {}),
            }
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _record(self, n: int, path: str, q: dict[str, str], status: int) -> None:
            entry = Logged(n, path, q, {k.lower(): v for k, v in self.headers.items()}, status)
            with st.lock:
                st.log.append(entry)

    return Handler
