"""A local server for GitHub's tarball endpoint: ``GET /repos/{o}/{r}/tarball/{ref}`` answers 302 to an archive
URL on the same server (as GitHub redirects to its archive host), which streams the bytes, chunked or with a
Content-Length. Faults: a 404 for unknown refs, a spent rate limit, a lying (absent) length."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit

from .loopback import LoopbackServer


@dataclass
class TarballState:
    archives: dict[tuple[str, str], bytes] = field(default_factory=dict)  # (owner/name, ref) -> .tar.gz bytes
    rate_limited: bool = False
    chunked: bool = False  # send no Content-Length (the size bound must hold while streaming)
    log: list[tuple[str, dict[str, str]]] = field(default_factory=list)


class TarballServer(LoopbackServer):
    def __init__(self, state: TarballState | None = None) -> None:
        self.state = state or TarballState()
        super().__init__(_handler(self.state))


def _handler(st: TarballState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            st.log.append((path, {k.lower(): v for k, v in self.headers.items()}))
            parts = [unquote(p) for p in path.split("/") if p]
            if st.rate_limited:
                return self._send(
                    403,
                    b'{"message": "API rate limit exceeded"}',
                    {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 60)},
                )
            if len(parts) >= 5 and parts[0] == "repos" and parts[3] == "tarball":
                key = (f"{parts[1]}/{parts[2]}", "/".join(parts[4:]))
                if key not in st.archives:
                    return self._send(404, b'{"message": "Not Found"}')
                return self._send(302, b"", {"Location": f"/codeload/{key[0]}/tar.gz/{key[1]}"})
            if len(parts) >= 5 and parts[0] == "codeload":
                key = (f"{parts[1]}/{parts[2]}", "/".join(parts[4:]))
                data = st.archives.get(key)
                if data is None:
                    return self._send(404, b"Not Found")
                return (
                    self._stream(data) if st.chunked else self._send(200, data, {"Content-Type": "application/x-gzip"})
                )
            self._send(404, b'{"message": "Not Found"}')

        def _send(self, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _stream(self, data: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-gzip")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for i in range(0, len(data), 16384):
                    chunk = data[i : i + 16384]
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its size bound

    return Handler
