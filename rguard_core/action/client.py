"""The GitHub REST calls the Action makes, and nothing else (requests; errors as GitHubError / RateLimited)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import requests

from ..errors import GitHubError
from ..github_http import GitHubHttp, message, next_link
from ..guard.request import decode_diff
from ..jsontypes import JSONObject

Json = JSONObject  # GitHub's answers and the payloads sent to it
TIMEOUT_S = 30
GET_RETRIES = 2  # three attempts in all
MAX_COMMENT_PAGES = 30  # 3,000 comments: far beyond any pull request a human reads
USER_AGENT = "rguard-action"
WRITE_PERMISSIONS = ("admin", "maintain", "write")


class ActionClient:
    """``ActionClient(api_url, "owner/name", token)``: pull request, comments, check runs, permissions. Requests go
    through ``github_http.GitHubHttp``, ingest's transport too: reads retried and rate limits waited for, writes
    sent once."""

    def __init__(
        self,
        api_url: str,
        repo: str,
        token: str | None,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api = api_url.rstrip("/")
        self.repo = repo
        self.token = token
        self.http = GitHubHttp(
            self.api, token, session=session, retries=GET_RETRIES, sleep=sleep, user_agent=USER_AGENT
        )

    def _url(self, suffix: str) -> str:
        return f"{self.api}/repos/{self.repo}{suffix}"

    def _send(
        self,
        method: str,
        url: str,
        *,
        accept: str | None = None,
        json: Any = None,
        params: dict[str, str | int] | None = None,
    ) -> requests.Response:
        resp = self.http.send(method, url, params=params, json=json, accept=accept)
        if resp.status_code >= 400:
            raise GitHubError(
                f"GitHub answered {resp.status_code} to {method} {url}: {message(resp)}", resp.status_code, url
            )
        return resp

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
        visited: set[str] = set()
        for _ in range(MAX_COMMENT_PAGES):
            if url is None:
                break
            resp = self._send("GET", url, params=params)
            out += [c for c in self._json(resp, list) if isinstance(c, dict)]
            url, params = self.http.follow(next_link(resp.headers.get("Link")), visited), None
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
