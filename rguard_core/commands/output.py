"""What every command prints for ``--json``: one JSON document on stdout (the contract other tools parse)."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    """Write one JSON document to stdout (the contract other tools parse)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
