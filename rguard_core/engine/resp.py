"""A tiny RESP2 client over the engine's unix socket: enough for PING, INFO, CONFIG and SHUTDOWN.

The engine manager and its supervisor use this instead of redis-py so that checking "is the engine up?"
costs a socket connect and one round trip, not a driver import.
"""

from __future__ import annotations

import socket
from pathlib import Path


class RespError(Exception):
    """The server answered with an error reply (``-ERR ...``, ``-LOADING ...``)."""


def _encode(*args: str) -> bytes:
    out = [f"*{len(args)}\r\n".encode()]
    for a in args:
        b = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


class RespConnection:
    def __init__(self, path: Path, timeout_s: float = 2.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        try:
            self.sock.connect(str(path))
        except OSError:
            self.sock.close()
            raise
        self._buf = b""

    def __enter__(self) -> RespConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def _line(self) -> bytes:
        while b"\r\n" not in self._buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("engine closed the connection")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\r\n")
        return line

    def _exact(self, n: int) -> bytes:
        while len(self._buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("engine closed the connection")
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n + 2 :]
        return data

    def _reply(self) -> object:
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n).decode(errors="replace")
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ConnectionError(f"unexpected reply from engine: {line[:40]!r}")

    def call(self, *args: str) -> object:
        self.sock.sendall(_encode(*args))
        return self._reply()

    def info(self, section: str = "everything") -> dict[str, str]:
        text = str(self.call("INFO", section))
        out: dict[str, str] = {}
        for line in text.splitlines():
            if ":" in line and not line.startswith("#"):
                k, _, v = line.partition(":")
                out[k] = v.strip()
        return out


def ping(path: Path, timeout_s: float = 2.0) -> bool:
    """True when a server answers PONG on this socket (not while it is still loading its data)."""
    try:
        with RespConnection(path, timeout_s) as c:
            return c.call("PING") == "PONG"
    except (OSError, RespError, ConnectionError):
        return False
