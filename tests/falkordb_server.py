"""A standalone FalkorDB server for tests: the bundled redis-server binary and FalkorDB module on a loopback port."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rguard_core.engine.paths import server_binaries

CAP = 50


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int, within_s: float = 15) -> bool:
    """Whether something accepts connections on the loopback ``port`` within ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Server:
    def __init__(
        self,
        tmp: Path,
        *,
        cap: int | None = CAP,
        password: str | None = None,
        replica_of: int | None = None,
        timeout_max: int = 0,
        cluster: bool = False,
        redis_args: Sequence[str] = (),
        module_args: Sequence[str] | None = None,
    ) -> None:
        server, module = server_binaries()
        self.port = free_port()
        self.dir = tmp / f"server-{self.port}"
        self.dir.mkdir(parents=True)
        mod_args = ["TIMEOUT_MAX", str(timeout_max)] + (["RESULTSET_SIZE", str(cap)] if cap is not None else [])
        if module_args is not None:
            mod_args = list(module_args)
        args = [
            str(server),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.dir),
            *(redis_args or ["--save", "", "--appendonly", "no"]),
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
        self.bus_port = 0
        if cluster:
            # the bus port must be given: its default, port + 10000, is past 65535 for most ephemeral ports
            args += ["--cluster-enabled", "yes", "--cluster-config-file", str(self.dir / "nodes.conf")]
            self.bus_port = free_port()
            args += ["--cluster-port", str(self.bus_port)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not _listening(self.port):
            self.stop()
            raise RuntimeError("standalone FalkorDB server did not start")

    def url(self, password: str | None = None) -> str:
        return f"redis://:{password}@127.0.0.1:{self.port}" if password else f"redis://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


class Cluster:
    """A Redis Cluster of FalkorDB nodes on loopback: ``primaries`` primaries splitting the 16,384 slots evenly,
    and ``replicas`` replicas, each following one primary in turn. Built with CLUSTER commands (no redis-cli)."""

    SLOTS = 16384

    def __init__(self, tmp: Path, *, primaries: int = 3, replicas: int = 0, cap: int | None = None) -> None:
        import redis

        self.primaries: list[Server] = []
        self.replicas: list[Server] = []
        try:
            self.primaries = [Server(tmp, cap=cap, cluster=True) for _ in range(primaries)]
            self.replicas = [Server(tmp, cap=cap, cluster=True) for _ in range(replicas)]
            conns = [redis.Redis(port=s.port, decode_responses=True) for s in self.primaries + self.replicas]
            step = self.SLOTS // primaries
            for i, c in enumerate(conns[:primaries]):
                last = self.SLOTS - 1 if i == primaries - 1 else (i + 1) * step - 1
                c.execute_command("CLUSTER", "ADDSLOTSRANGE", i * step, last)
            for s in self.primaries[1:] + self.replicas:
                conns[0].execute_command("CLUSTER", "MEET", "127.0.0.1", s.port, s.bus_port)
            ids = [c.execute_command("CLUSTER", "MYID") for c in conns[:primaries]]
            self._wait(conns, lambda c: len(_known(c)) == len(conns), "nodes did not meet")
            for i, c in enumerate(conns[primaries:]):
                c.execute_command("CLUSTER", "REPLICATE", ids[i % primaries])
            self._wait(
                conns, lambda c: "cluster_state:ok" in c.execute_command("CLUSTER", "INFO"), "cluster did not come up"
            )
            for c in conns:
                c.close()
        except BaseException:
            self.stop()
            raise

    @staticmethod
    def _wait(conns: list[Any], ok: Callable[[Any], bool], what: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(ok(c) for c in conns):
                return
            time.sleep(0.1)
        raise RuntimeError(f"test cluster: {what} within 30 s")

    def url(self, node: int = 0) -> str:
        return (self.primaries + self.replicas)[node].url()

    def graphs_by_node(self) -> dict[int, list[str]]:
        """Each primary's port and the graphs it holds (GRAPH.LIST asked of that node alone)."""
        import redis

        out = {}
        for s in self.primaries:
            with redis.Redis(port=s.port, decode_responses=True) as c:
                out[s.port] = sorted(c.execute_command("GRAPH.LIST") or [])
        return out

    def stop(self) -> None:
        for s in self.replicas + self.primaries:
            s.stop()


def _known(conn: Any) -> list[str]:
    return [line for line in conn.execute_command("CLUSTER", "NODES").splitlines() if line.strip()]


class Sentinel:
    """A Redis Sentinel on loopback watching one FalkorDB server as ``service`` (quorum 1)."""

    def __init__(self, tmp: Path, primary: Server, service: str = "falkordb") -> None:
        server, _module = server_binaries()
        self.port = free_port()
        self.dir = tmp / f"sentinel-{self.port}"
        self.dir.mkdir(parents=True)
        conf = self.dir / "sentinel.conf"  # a sentinel rewrites its config file, so it must be its own
        conf.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {self.dir}\nsentinel monitor {service} 127.0.0.1 {primary.port} 1\n"
        )
        self.proc = subprocess.Popen(
            [str(server), str(conf), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if not _listening(self.port):
            self.stop()
            raise RuntimeError("sentinel did not start")

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
