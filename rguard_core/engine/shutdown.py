"""A clean stop that leaves nothing to replay: the append-only log is folded into a fresh RDB base first.

FalkorDB can crash replaying its own append-only log (GRAPH.EFFECT entries after a GRAPH.DELETE, FalkorDB issue
#2201: ``GraphContext_GetSchemaByID`` on a schema the replay never created). We hit it after an ordinary
seed + ingest + eval session and a clean ``engine stop``: the next start crashed on every try, and the data dir
could not be opened. A start after a clean stop now loads the snapshot instead of replaying statements; only a
start after a kill replays the statements since the last rewrite (at most ~8 MB, auto-aof-rewrite).
"""

from __future__ import annotations

import contextlib
import time

from .resp import RespConnection, RespError

REWRITE_TIMEOUT_S = 120.0  # a 5,000-PR graph rewrites in a few seconds; past this, stop without it


def rewrite_log(conn: RespConnection, timeout_s: float = REWRITE_TIMEOUT_S) -> bool:
    """BGREWRITEAOF and wait for it; True when the log was rewritten (False: AOF off, failed or too slow)."""
    info = conn.info("persistence")
    if info.get("aof_enabled") != "1":
        return False
    with contextlib.suppress(RespError):  # one may already be running or scheduled: wait for that one
        conn.call("BGREWRITEAOF")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = conn.info("persistence")
        if info.get("aof_rewrite_in_progress") == "0" and info.get("aof_rewrite_scheduled") == "0":
            return info.get("aof_last_bgrewrite_status") == "ok"
        time.sleep(0.02)
    return False


def shutdown(conn: RespConnection) -> None:
    """Rewrite the log, then SHUTDOWN (which fsyncs it); errors mean the server is already gone."""
    with contextlib.suppress(OSError, ConnectionError, RespError):
        rewrite_log(conn)
        conn.call("SHUTDOWN")  # success closes the connection without a reply
