"""The one name for a JSON object that is read or written as-is.

What crosses a module boundary inside RGuard is a frozen dataclass (or a TypedDict where a JSON document keeps its
shape, like the eval metrics). ``JSONObject`` marks the places where a dict *is* the contract: an ``as_dict()``
that becomes ``--json`` output, an MCP tool result, a history record, a GitHub or LLM answer before it is checked.
A ``dict[str, Any]`` spelled out anywhere else is a hand-off still waiting for its type.
"""

from __future__ import annotations

from typing import Any

# A plain (implicit) alias, not a ``type`` statement: the MCP SDK reads tool return annotations at runtime and
# must see ``dict[str, Any]`` itself to keep building the same output schema.
JSONObject = dict[str, Any]

__all__ = ["JSONObject"]
