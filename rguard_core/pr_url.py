"""A pull request named by its URL: ``https://<host>/<owner>/<name>/pull/<n>`` → repository and number.

Ingest (``ingest github URL``) and the guard (``GuardRequest``, the Guard page's PR box) both take one.
"""

from __future__ import annotations

import re

from .db import validate_repo
from .errors import InvalidInput

_PR_URL = re.compile(
    r"^https?://(?P<host>[A-Za-z0-9.-]+(?::\d+)?)/(?P<owner>[^/\s]+)/(?P<name>[^/\s]+)/pulls?/(?P<num>\d+)"
    r"(?:/[^\s?#]*)?/?(?:[?#]\S*)?$"
)


def parse_pr_url(url: str) -> tuple[str, int]:
    """``https://<host>/<owner>/<name>/pull/<n>`` → ``("owner/name", n)``; anything else raises InvalidInput."""
    m = _PR_URL.match((url or "").strip())
    if not m or int(m["num"]) <= 0:
        raise InvalidInput(
            f"not a pull request URL: {url!r}; expected https://github.com/<owner>/<name>/pull/<number> "
            "(or the same path on a GitHub Enterprise host)"
        )
    return validate_repo(f"{m['owner']}/{m['name']}"), int(m["num"])
