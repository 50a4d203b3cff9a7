"""The one GitHub REST transport: headers, rate limits, retries, pagination links. Ingest's ``GitHubSource`` and
the Action's ``ActionClient`` both send through it, so they share one policy:

- a GET is retried on 5xx answers and dropped connections (0.2, 0.6, 1.8, 5.4 s … at most 30 s apart), and on a
  rate limit waits for the reset (or ``Retry-After``) when that is within ``max_wait_s``, else raises RateLimited;
  before spending the last requests of the quota it waits for the reset;
- a write (POST, PATCH, PUT, DELETE) is sent once: never twice, whatever happened; a rate limit raises RateLimited;
- a pagination link is followed only to the API's own origin (the token goes with every request), never twice.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

from .errors import GitHubError, RateLimited

USER_AGENT = "rguard/0.1 (decision memory; +https://github.com)"
API_VERSION = "2022-11-28"
# GitHub's advice for a 403/429 that carries neither Retry-After nor a spent quota.
SECONDARY_LIMIT_WAIT_S = 60.0
LOW_REMAINING = 2
MAX_BACKOFF_S = 30.0
BASE_BACKOFF_S = 0.2  # transient 502s usually clear at once; 0.2, 0.6, 1.8, 5.4 s

_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


@dataclass(frozen=True)
class RateState:
    """What the last answer said about the quota: requests left and when it refills (epoch seconds)."""

    remaining: int | None = None
    reset_at: float | None = None

    @classmethod
    def from_headers(cls, headers: Any) -> RateState:
        return cls(_int_header(headers, "X-RateLimit-Remaining"), _float_header(headers, "X-RateLimit-Reset"))


def _int_header(headers: Any, name: str) -> int | None:
    raw = headers.get(name)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _float_header(headers: Any, name: str) -> float | None:
    raw = headers.get(name)
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def next_link(link_header: str | None) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, or None on the last page."""
    for part in (link_header or "").split(","):
        m = _NEXT_LINK.search(part)
        if m:
            return m.group(1).strip()
    return None


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def message(resp: requests.Response) -> str:
    """GitHub's own ``message`` of an answer, else its text or reason (at most 200 characters)."""
    try:
        body = resp.json()
    except ValueError:
        return (resp.text or resp.reason or "no message")[:200]
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])[:200]
    return resp.reason or "no message"


def is_rate_limited(resp: requests.Response) -> bool:
    """A 403/429 is a rate limit when the quota is spent, Retry-After is set, or the message says so."""
    if resp.status_code not in (403, 429):
        return False
    if resp.headers.get("Retry-After") is not None or resp.headers.get("X-RateLimit-Remaining") == "0":
        return True
    return resp.status_code == 429 or "rate limit" in message(resp).lower()


class GitHubHttp:
    """``GitHubHttp(api_url, token)``: ``send`` one request under the policy above; ``follow`` a page link."""

    def __init__(
        self,
        api_url: str,
        token: str | None,
        *,
        session: requests.Session | None = None,
        retries: int = 4,
        max_wait_s: float = 60,
        sleep: Callable[[float], None] = time.sleep,
        progress: Callable[[str], None] | None = None,
        timeout_s: float = 30,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.token = token
        self.origin = origin(self.api_url)
        self.session = session or requests.Session()
        self.retries = max(0, retries)
        self.max_wait_s = max_wait_s
        self.sleep = sleep
        self.progress = progress
        self.timeout_s = timeout_s
        self.user_agent = user_agent
        self.rate = RateState()
        self.requests_made = 0

    def headers(self, accept: str = "application/vnd.github+json") -> dict[str, str]:
        h = {"Accept": accept, "User-Agent": self.user_agent, "X-GitHub-Api-Version": API_VERSION}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        return h

    def send(
        self,
        method: str,
        url: str,
        *,
        params: dict[str, str | int] | None = None,
        json: Any = None,
        accept: str | None = None,
        extra_headers: dict[str, str] | None = None,
        stream: bool = False,
    ) -> requests.Response:
        """The answer, whatever its status (callers read 404 or 304 as they need); see the module's policy."""
        reading = method == "GET"
        failures = 0
        limited = 0
        while True:
            if reading:
                self._wait_if_low(url)
            headers = {**self.headers(accept or "application/vnd.github+json"), **(extra_headers or {})}
            try:
                self.requests_made += 1
                resp = self.session.request(
                    method, url, params=params, json=json, headers=headers, timeout=self.timeout_s, stream=stream
                )
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError, requests.Timeout) as e:
                host = urlsplit(url).netloc or url
                # the user's words, not urllib3's: what failed and what they can do about it
                what = (
                    f"cannot reach {host}: check the network, set a GitHub API URL or ingest a snapshot "
                    f"(connection failed: {type(e).__name__})"
                )
                if not reading:
                    raise GitHubError(f"{method} {url} failed: {what}", None, url) from e
                failures += 1
                self._retry_or_raise(failures, url, None, what)
                continue
            self.rate = RateState.from_headers(resp.headers)
            if stream and (is_rate_limited(resp) or (resp.status_code >= 500 and reading)):
                resp.close()  # a streamed answer that will not be read holds its connection until closed
            if is_rate_limited(resp):
                if not reading:
                    raise RateLimited(self._reset_of(resp), url)
                limited += 1
                self._wait_for_limit(resp, url, limited)
                continue
            if resp.status_code >= 500 and reading:
                failures += 1
                self._retry_or_raise(failures, url, resp.status_code, f"GitHub answered {resp.status_code}")
                continue
            return resp

    def follow(self, link: str | None, visited: set[str]) -> str | None:
        """The next page's URL, or None; a link to another host or back to a page already read is refused."""
        if link is None:
            return None
        if origin(link) != self.origin:
            raise GitHubError(f"pagination link {link!r} leaves {self.origin}; refusing to follow it", None, link)
        if link in visited:
            raise GitHubError(f"pagination loops back to {link}", None, link)
        visited.add(link)
        return link

    def _retry_or_raise(self, failures: int, url: str, status: int | None, what: str) -> None:
        if failures > self.retries:
            raise GitHubError(f"{what}; gave up after {failures} attempts at {url}", status, url)
        delay = min(MAX_BACKOFF_S, BASE_BACKOFF_S * 3 ** (failures - 1))
        self._say(f"{what} for {url}; retry {failures}/{self.retries} in {delay:g}s")
        self.sleep(delay)

    def _reset_of(self, resp: requests.Response) -> float:
        retry_after = _float_header(resp.headers, "Retry-After")
        if retry_after is not None:
            return time.time() + retry_after
        if self.rate.remaining == 0 and self.rate.reset_at is not None:
            return self.rate.reset_at
        return time.time() + SECONDARY_LIMIT_WAIT_S

    def _wait_if_low(self, url: str) -> None:
        """Wait for the reset before spending the last requests of the quota."""
        r = self.rate
        if r.remaining is None or r.remaining >= LOW_REMAINING or r.reset_at is None:
            return
        self._wait_until(r.reset_at, url, f"only {r.remaining} requests left")
        self.rate = RateState()

    def _wait_for_limit(self, resp: requests.Response, url: str, attempt: int) -> None:
        if attempt > self.retries + 1:
            raise RateLimited(self.rate.reset_at or time.time() + SECONDARY_LIMIT_WAIT_S, url)
        self._wait_until(self._reset_of(resp), url, f"rate limited ({resp.status_code})")
        self.rate = RateState()

    def _wait_until(self, reset_at: float, url: str, why: str) -> None:
        # One spare second, because GitHub's reset is whole seconds and clocks drift.
        wait = max(0.0, reset_at - time.time()) + 1.0
        if wait > self.max_wait_s + 1.0:
            raise RateLimited(reset_at, url)
        self._say(f"waiting {wait:.0f}s for rate limit: {why}")
        self.sleep(wait)

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)
