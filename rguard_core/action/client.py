"""The GitHub REST calls the Action makes, and nothing else (requests; errors as GitHubError / RateLimited)."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

import requests

from ..errors import GitHubError, RateLimited
from ..guard.request import decode_diff
from ..ingest.github import next_link
from ..jsontypes import JSONObject

Json = JSONObject  # GitHub's answers and the payloads sent to it
TIMEOUT_S = 30
GET_ATTEMPTS = 3
MAX_COMMENT_PAGES = 30  # 3,000 comments: far beyond any pull request a human reads
USER_AGENT = "rguard-action"
API_VERSION = "2022-11-28"
WRITE_PERMISSIONS = ("admin", "maintain", "write")


class ActionClient:
    """``ActionClient(api_url, "owner/name", token)``: pull request, comments, check runs, permissions."""

    def __init__(self, api_url: str, repo: str, token: str | None, session: requests.Session | None = None) -> None:
        self.api = api_url.rstrip("/")
        self.repo = repo
        self.token = token
        self.session = session or requests.Session()

    def _url(self, suffix: str) -> str:
        return f"{self.api}/repos/{self.repo}{suffix}"

    def _headers(self, accept: str = "application/vnd.github+json") -> dict[str, str]:
        h = {"Accept": accept, "User-Agent": USER_AGENT, "X-GitHub-Api-Version": API_VERSION}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        return h

    def _send(
        self,
        method: str,
        url: str,
        *,
        accept: str | None = None,
        json: Any = None,
        params: dict[str, str | int] | None = None,
    ) -> requests.Response:
        attempts = GET_ATTEMPTS if method == "GET" else 1  # a write is never sent twice
        for attempt in range(1, attempts + 1):
            try:
                resp = self.session.request(
                    method,
                    url,
                    headers=self._headers(accept or "application/vnd.github+json"),
                    json=json,
                    params=params,
                    timeout=TIMEOUT_S,
                )
            except requests.RequestException as e:
                if attempt == attempts:
                    raise GitHubError(f"{method} {url} failed: {type(e).__name__}: {e}", None, url) from e
                time.sleep(0.5 * attempt)
                continue
            if resp.status_code in (403, 429) and (
                resp.headers.get("X-RateLimit-Remaining") == "0" or resp.headers.get("Retry-After")
            ):
                reset = resp.headers.get("X-RateLimit-Reset")
                wait = resp.headers.get("Retry-After")
                raise RateLimited(float(reset) if reset else time.time() + float(wait or 60), url)
            if resp.status_code >= 500 and attempt < attempts:
                time.sleep(0.5 * attempt)
                continue
            if resp.status_code >= 400:
                raise GitHubError(
                    f"GitHub answered {resp.status_code} to {method} {url}: {_message(resp)}", resp.status_code, url
                )
            return resp
        raise AssertionError("unreachable")  # the loop returns or raises

    def _json[T](self, resp: requests.Response, want: type[T]) -> T:
        try:
            data = resp.json()
        except ValueError:
            raise GitHubError(
                f"GitHub answered {resp.url} with a body that is not JSON", resp.status_code, resp.url
            ) from None
        if not isinstance(data, want):
            raise GitHubError(
                f"expected a {want.__name__} from {resp.url}, got {type(data).__name__}", resp.status_code, resp.url
            )
        return data

    def pull(self, number: int) -> Json:
        return self._json(self._send("GET", self._url(f"/pulls/{number}")), dict)

    def pull_diff(self, number: int) -> str:
        resp = self._send("GET", self._url(f"/pulls/{number}"), accept="application/vnd.github.diff")
        # the guard's one input limit (guard/request.py); a larger diff fails the step with a clear error
        return decode_diff(resp.content, f"pull request #{number}'s diff", "split the pull request into smaller ones")

    def issue_comments(self, number: int) -> list[Json]:
        out: list[Json] = []
        url: str | None = self._url(f"/issues/{number}/comments")
        params: dict[str, str | int] | None = {"per_page": 100}
        for _ in range(MAX_COMMENT_PAGES):
            if url is None:
                break
            resp = self._send("GET", url, params=params)
            out += [c for c in self._json(resp, list) if isinstance(c, dict)]
            url, params = _same_origin(next_link(resp.headers.get("Link")), self.api), None
        return out

    def create_comment(self, number: int, body: str) -> Json:
        return self._json(self._send("POST", self._url(f"/issues/{number}/comments"), json={"body": body}), dict)

    def update_comment(self, comment_id: int, body: str) -> Json:
        return self._json(
            self._send("PATCH", self._url(f"/issues/comments/{int(comment_id)}"), json={"body": body}), dict
        )

    def create_check_run(self, payload: Json) -> Json:
        return self._json(self._send("POST", self._url("/check-runs"), json=payload), dict)

    def update_check_run(self, check_run_id: int, payload: Json) -> Json:
        return self._json(self._send("PATCH", self._url(f"/check-runs/{int(check_run_id)}"), json=payload), dict)

    def permission(self, login: str) -> str:
        """``admin``, ``maintain``, ``write``, ``triage``, ``read`` or ``none`` (404: not a collaborator)."""
        try:
            resp = self._send("GET", self._url(f"/collaborators/{quote(login, safe='')}/permission"))
        except GitHubError as e:
            if e.status == 404:
                return "none"
            raise
        data = self._json(resp, dict)
        role = str(data.get("role_name") or "")
        return role if role in WRITE_PERMISSIONS else str(data.get("permission") or "none")


def _same_origin(link: str | None, api: str) -> str | None:
    """Follow a pagination link only to the API we were given (a token never goes elsewhere)."""
    if link is None:
        return None
    if not link.startswith(api + "/"):
        raise GitHubError(f"pagination link {link!r} leaves {api}; refusing to follow it", None, link)
    return link


def _message(resp: requests.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return (resp.text or resp.reason or "no message")[:200]
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])[:200]
    return resp.reason or "no message"
