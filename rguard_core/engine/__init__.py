"""The embedded FalkorDB engine: one durable server process per data dir, shared by every user of it."""

from .manager import EngineStatus, engine_status, ensure_engine, stop_engine
from .paths import EnginePaths

__all__ = ["EnginePaths", "EngineStatus", "engine_status", "ensure_engine", "stop_engine"]
