"""``rguard engine status|stop|start``: the data dir's embedded FalkorDB engine."""

from __future__ import annotations

import argparse

from ..config import Settings
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("engine", help="the embedded FalkorDB engine of this data dir: status, start, stop")
    esub = p.add_subparsers(dest="engine_command", required=True, metavar="ACTION")
    for name, fn, text in (
        ("status", _status, "what runs, where, since when, with which persistence"),
        ("start", _start, "start the engine now (every command starts it when needed)"),
        ("stop", _stop, "stop the engine cleanly (its append-only file is synced first)"),
    ):
        q = esub.add_parser(name, help=text)
        q.add_argument("--json", action="store_true", help="print JSON")
        q.set_defaults(func=fn)


def _status(args: argparse.Namespace) -> int:
    from ..engine import engine_status

    st = engine_status(Settings.from_env())
    if args.json:
        print_json(st.as_dict())
        return 0
    print(f"engine     {'running' if st.running else 'not running'}")
    print(f"data dir   {st.data_dir}")
    print(f"socket     {st.socket}")
    if st.running:
        print(f"pid        {st.pid} (supervisor {st.supervisor_pid})")
        print(f"since      {st.since}")
    print(f"data file  {st.aof_dir} (append-only file)")
    if st.appendfsync:
        print(f"durability appendonly yes, appendfsync {st.appendfsync}")
    if st.idle_stop_s:
        print(f"idle stop  after {st.idle_stop_s:.0f} s without a client")
    for k, v in st.live.items():
        print(f"{k:<10} {v}")
    print(f"log        {st.log}")
    return 0


def _start(args: argparse.Namespace) -> int:
    from ..engine import engine_status, ensure_engine

    settings = Settings.from_env()
    ensure_engine(settings)
    st = engine_status(settings)
    if args.json:
        print_json(st.as_dict())
    else:
        print(f"engine running, pid {st.pid}, socket {st.socket}")
    return 0


def _stop(args: argparse.Namespace) -> int:
    from ..engine import stop_engine

    stopped = stop_engine(Settings.from_env())
    if args.json:
        print_json({"stopped": stopped})
    else:
        print("engine stopped" if stopped else "no engine was running")
    return 0
