"""A standalone FalkorDB server for tests: the bundled redis-server binary and FalkorDB module on a loopback port."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from rguard_core.engine.paths import server_binaries

CAP = 50


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(
        self,
        tmp: Path,
        *,
        cap: int | None = CAP,
        password: str | None = None,
        replica_of: int | None = None,
        timeout_max: int = 0,
    ) -> None:
        server, module = server_binaries()
        self.port = free_port()
        self.dir = tmp / f"server-{self.port}"
        self.dir.mkdir(parents=True)
        mod_args = ["TIMEOUT_MAX", str(timeout_max)] + (["RESULTSET_SIZE", str(cap)] if cap is not None else [])
        args = [
            str(server),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.dir),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--loadmodule",
            str(module),
            *mod_args,
        ]
        if password:
            args += ["--requirepass", password]
        if replica_of:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("standalone FalkorDB server did not start")

    def url(self, password: str | None = None) -> str:
        return f"redis://:{password}@127.0.0.1:{self.port}" if password else f"redis://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
