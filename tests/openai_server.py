"""A local server speaking the OpenAI chat-completions HTTP protocol, with replies scripted by the test.

Use as a context manager (``with OpenAIServer() as srv``) or through the ``openai_server`` fixture; to make the
fixture available to every test file, add ``from tests.openai_server import openai_server  # noqa: F401`` to
tests/conftest.py. A reply is one of:
  - a string: the assistant message content, wrapped in a proper chat.completion body;
  - (status, body) or (status, body, headers): a raw HTTP answer (body dict → JSON, str → as is);
  - RESET: the connection is dropped without an answer;
  - HANG: the request is read and never answered (until the server stops), like an endpoint that hangs;
  - TRICKLE: a 200 whose body arrives one space every 0.2 s and never ends (defeats a per-read timeout).
Script replies with ``srv.reply(a, b, ...)`` (a queue, one per request) or ``srv.respond_with(fn)`` where
``fn(request_json) -> reply``. Every request body is kept in ``srv.requests``.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

RESET = "RESET"
HANG = "HANG"
TRICKLE = "TRICKLE"
Reply = str | tuple[int, Any] | tuple[int, Any, dict[str, str]]
Script = Callable[[dict[str, Any]], Reply]
PATHS = ("/v1/chat/completions", "/chat/completions")


class OpenAIServer:
    """A ThreadingHTTPServer on 127.0.0.1 (free port) answering chat completions from a script."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._queue: deque[Reply] = deque()
        self._script: Script | None = None
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # a short poll interval so shutdown() returns quickly at the end of each test
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-server", daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def reply(self, *replies: Reply) -> None:
        """Queue replies, one consumed per request, ahead of any ``respond_with`` function."""
        with self._lock:
            self._queue.extend(replies)

    def respond_with(self, script: Script) -> None:
        """Answer every request (once the queue is empty) with ``script(request_json)``."""
        self._script = script

    def next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        if self._script is not None:
            return self._script(request)
        return (500, {"error": {"message": "test server: no scripted reply left", "type": "server_error"}})

    def start(self) -> OpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out or dropped the connection is a scripted scenario, not a server fault.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def completion_body(content: str, model: str) -> dict[str, Any]:
    """A chat.completion response body the way the OpenAI API shapes it."""
    return {
        "id": f"chatcmpl-test{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": max(1, len(content) // 4),
            "total_tokens": 1 + len(content) // 4,
        },
    }


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects from real endpoints

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path not in PATHS:
                self._send(404, {"error": {"message": f"unknown path {self.path}", "type": "invalid_request_error"}})
                return
            try:
                request = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                return
            reply = server.next_reply(request)
            if reply == HANG:
                server.stopping.wait()
                self.close_connection = True
                return
            if reply == TRICKLE:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "100000000")
                self.end_headers()
                while not server.stopping.wait(0.2):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                self.close_connection = True
                return
            if reply == RESET:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if isinstance(reply, str):
                self._send(200, completion_body(reply, str(request.get("model", ""))))
                return
            status, body, *rest = reply
            self._send(status, body, rest[0] if rest else {})

        def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain" if isinstance(body, str) else "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

    return Handler


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A running OpenAIServer for one test; point LLMClient(base_url=openai_server.base_url) at it."""
    with OpenAIServer() as srv:
        yield srv
