"""Names for the dicts that stay dicts: JSON read or written as-is, Cypher rows, parameters and property bags.

What crosses a module boundary inside RGuard is a frozen dataclass (or a TypedDict where a JSON document keeps its
shape, like the eval metrics). ``JSONObject`` marks the places where a dict *is* the contract: an ``as_dict()``
that becomes ``--json`` output, an MCP tool result, a history record, a GitHub or LLM answer before it is checked.

Three more names mark the dicts that are dynamic by nature, so every remaining untyped dict says which it is:
``Row`` is one answer row of a Cypher read (keyed by its RETURN aliases, values as the driver gives them),
``Params`` the parameters of one statement (every value travels as a parameter, never spliced into the text),
and ``Props`` a node's or edge's stored properties (a property bag read back whole, or written with ``SET n = x``).
A ``dict[str, Any]`` spelled out anywhere else is a hand-off still waiting for its type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# A plain (implicit) alias, not a ``type`` statement: the MCP SDK reads tool return annotations at runtime and
# must see ``dict[str, Any]`` itself to keep building the same output schema.
JSONObject = dict[str, Any]
# One answer row of ``Graph.query``/``Graph.read``: values are whatever the stored properties hold.
Row = dict[str, Any]
# A statement's parameter map as it is built. ``Graph.query`` (and the errors and query log that carry a statement's
# parameters) take any ``ParamsIn``, so a caller's ``dict[str, str]`` needs no widening.
Params = dict[str, object]
ParamsIn = Mapping[str, object]
# A node's or edge's properties (``n {.*}``, a returned node, a ``SET n = x`` map).
Props = dict[str, Any]

__all__ = ["JSONObject", "Params", "ParamsIn", "Props", "Row"]
