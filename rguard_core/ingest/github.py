"""The GitHub REST source for ingest: pagination, rate limits, retries, and optional recording.

``GitHubSource`` satisfies ``rest.RestSource``. With ``record_dir`` every answer is also written in
the layout ``rest.SnapshotSource`` reads, so a live run can be replayed offline.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from ..config import Settings
from ..db import validate_repo
from ..errors import ConfigError, GitHubError, InvalidInput, RepoNotFound
from ..github_http import USER_AGENT, GitHubHttp, RateState, message, next_link
from . import records
from .rest import Json

# The transport (headers, rate limits, retries, page links) is github_http's, shared with the Action's client.
__all__ = ["USER_AGENT", "GitHubSource", "RateState", "next_link"]


class SnapshotRecorder:
    """Writes answers under ``<root>/repos/<owner>/<name>/`` exactly as SnapshotSource reads them."""

    def __init__(self, root: Path, repo: str) -> None:
        self.dir = Path(root) / "repos" / repo

    def write_json(self, rel: str, data: Any) -> None:
        text = json.dumps(data, ensure_ascii=False, indent=1)
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate GitHub sent as \ud800: keep it escaped
                text = json.dumps(data, indent=1)
        self._write(rel, text)

    def write_text(self, rel: str, text: str) -> None:
        self._write(rel, text)

    def _write(self, rel: str, text: str) -> None:
        path = self.dir / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".part")
            # Written beside the target then renamed, so an interrupted run never leaves half a file.
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as e:
            raise InvalidInput(
                f"--record: cannot write {path}: {e.strerror or e}; give a folder you can write to"
            ) from e


def check_api_url(url: str) -> str:
    """The GitHub REST base URL, which must be http(s)://host[/path]; ConfigError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"GitHub API URL {url!r} is not an http(s) URL; set GITHUB_API_URL (or --api-url) to "
            "one like https://api.github.com or https://ghe.example.com/api/v3"
        )
    return url


def check_record_dir(path: Path | str) -> Path:
    """``--record DIR`` must be a folder (created when missing), not a file."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InvalidInput(f"--record {p} is a file; give a folder to write the snapshot into (created if missing)")
    return p


def _safe_content_path(path: str) -> str:
    p = (path or "").strip().lstrip("/")
    parts = p.split("/")
    if not p or any(s in ("", ".", "..") for s in parts) or "\\" in p or "\x00" in p:
        raise InvalidInput(f"invalid repository file path {path!r}; expected a relative path like docs/adr/0001.md")
    return p


class GitHubSource:
    """A repository read live from the GitHub REST API (or any server speaking it)."""

    def __init__(
        self,
        repo: str,
        api_url: str | None = None,
        token: str | None = None,
        record_dir: Path | str | None = None,
        session: requests.Session | None = None,
        max_wait_s: float = 60,
        retries: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        progress: Callable[[str], None] | None = None,
        per_page: int = 100,
        timeout_s: float = 30,
    ) -> None:
        self.repo = validate_repo(repo)
        settings = Settings.from_env() if api_url is None or token is None else None
        self.api_url = check_api_url(api_url or (settings.github_api_url if settings else "")).rstrip("/")
        self.token = token if token is not None else (settings.github_token if settings else None)
        self.http = GitHubHttp(
            self.api_url,
            self.token,
            session=session,
            retries=retries,
            max_wait_s=max_wait_s,
            sleep=sleep,
            progress=progress,
            timeout_s=timeout_s,
        )
        self.progress = progress
        self.per_page = max(1, min(100, per_page))
        self.recorder = SnapshotRecorder(check_record_dir(record_dir), self.repo) if record_dir is not None else None
        # Incremental listing (``ingest github --since``): only PRs updated after ``updated_since``, newest update
        # first, the first page asked with ``If-None-Match: list_etag`` (a 304 costs no quota and means nothing
        # changed). What the listing saw is kept for the next run's sync point.
        self.updated_since: str | None = None
        self.list_etag: str | None = None
        self.not_modified = False
        self.first_etag: str | None = None
        self.newest_update: str | None = None

    # ---- RestSource -------------------------------------------------------------------------

    def repo_info(self) -> Json:
        """GET /repos/{o}/{n}; a 404 raises RepoNotFound before anything is recorded."""
        url = self._url("")
        data = self._get_json(url)
        if data is None:
            raise RepoNotFound(self.repo, url)
        if not isinstance(data, dict):
            raise GitHubError(f"expected a repository object from {url}, got {type(data).__name__}", 200, url)
        records.repo_info(data, url)
        self._record_json("repo.json", data)
        return data

    def list_pulls(self, max_prs: int) -> Iterator[Json]:
        """PRs newest first (state=all, sort=created desc), at most ``max_prs``, page by page."""
        if max_prs <= 0:
            return
        since = self.updated_since
        sort = "created" if since is None else "updated"
        params: dict[str, str | int] = {"state": "all", "sort": sort, "direction": "desc"}
        seen = 0
        per_page = self.per_page if since is not None else min(self.per_page, max_prs)  # the ETag's page, every run
        for page in self._pages("/pulls", params, "pulls", per_page=per_page, etag=self.list_etag):
            for pr in page:
                if not isinstance(pr, dict) or not isinstance(pr.get("number"), int):
                    raise GitHubError(f"the pull request list of {self.repo} holds an item without a number", 200)
                updated = str(pr.get("updated_at") or "")
                if updated and (self.newest_update is None or updated > self.newest_update):
                    self.newest_update = updated
                if since is not None and updated <= since:
                    return  # sorted by update, newest first: everything after this was seen by an earlier run
                records.pull(pr, self._url("/pulls"))
                self._record_json(f"pulls/{int(pr['number'])}.json", pr)
                yield pr
                seen += 1
                if seen >= max_prs:
                    return

    def pull(self, number: int) -> Json | None:
        return self._get_item(f"/pulls/{int(number)}", f"pulls/{int(number)}.json", records.pull)

    def pull_files(self, number: int) -> list[Json]:
        return self._get_list(f"/pulls/{int(number)}/files", f"pulls/{int(number)}/files.json", records.files)

    def pull_review_comments(self, number: int) -> list[Json]:
        return self._get_list(f"/pulls/{int(number)}/comments", f"pulls/{int(number)}/comments.json", records.comments)

    def issue(self, number: int) -> Json | None:
        """GET /issues/{n}; None when missing or deleted. A PR answers too (it has ``pull_request``)."""
        return self._get_item(f"/issues/{int(number)}", f"issues/{int(number)}.json", records.issue)

    def issue_comments(self, number: int) -> list[Json]:
        return self._get_list(
            f"/issues/{int(number)}/comments", f"issues/{int(number)}/comments.json", records.comments
        )

    def file_text(self, path: str) -> str | None:
        """A file at the default branch, decoded from the contents API; None when missing or not text."""
        rel = _safe_content_path(path)
        data = self._get_json(self._url("/contents/" + quote(rel, safe="/")))
        text = _decode_content(data)
        if text is not None:
            self._record_text(f"contents/{rel}", text)
        return text

    # ---- fetching ---------------------------------------------------------------------------

    def _url(self, suffix: str) -> str:
        return f"{self.api_url}/repos/{self.repo}{suffix}"

    def _get_item(self, suffix: str, rel: str, check: Callable[[Any, str], Json]) -> Json | None:
        url = self._url(suffix)
        data = self._get_json(url)
        if data is not None and not isinstance(data, dict):
            raise GitHubError(f"expected an object from {url}, got {type(data).__name__}", 200, url)
        if data is not None:
            check(data, url)
            self._record_json(rel, data)
        return data

    def _get_list(self, suffix: str, rel: str, check: Callable[[Any, str], list[Json]]) -> list[Json]:
        label = suffix.strip("/").replace("/", " ")
        items = [item for page in self._pages(suffix, {}, label) for item in page]
        check(items, self._url(suffix))
        self._record_json(rel, items)
        return items

    def _pages(
        self,
        suffix: str,
        params: dict[str, str | int],
        label: str,
        per_page: int | None = None,
        etag: str | None = None,
    ) -> Iterator[list[Json]]:
        """Follow ``Link: rel="next"`` from the first page; yields each page's list. With ``etag``, the first page
        is asked conditionally: a 304 (not modified) yields nothing and sets ``not_modified``."""
        url: str | None = self._url(suffix)
        query: dict[str, str | int] | None = {**params, "per_page": per_page or self.per_page}
        visited: set[str] = set()
        n = 0
        while url:
            data, resp = self._fetch(url, query, missing_ok=False, etag=etag if n == 0 else None)
            if n == 0 and etag is not None:
                self.first_etag = resp.headers.get("ETag") or None
            if resp.status_code == 304:
                self.not_modified = True
                self.first_etag = self.first_etag or etag
                self._say(f"{label}: not modified since the last run")
                return
            if n == 0 and self.first_etag is None:
                self.first_etag = resp.headers.get("ETag") or None
            if not isinstance(data, list):
                raise GitHubError(f"expected a list from {url}, got {type(data).__name__}", 200, url)
            n += 1
            self._say(f"fetched page {n} of {label} ({len(data)} items)")
            yield data
            url, query = self.http.follow(next_link(resp.headers.get("Link")), visited), None

    def _get_json(self, url: str) -> Any:
        """GET → decoded JSON, or None for 404/410."""
        return self._fetch(url, None, missing_ok=True)[0]

    def _fetch(
        self, url: str, params: dict[str, str | int] | None, missing_ok: bool, etag: str | None = None
    ) -> tuple[Any, requests.Response]:
        """GET → (decoded JSON, response); 404/410 → None when ``missing_ok``; 304 (asked with ``etag``) → None;
        other failures raise GitHubError."""
        resp = self.http.send("GET", url, params=params, extra_headers={"If-None-Match": etag} if etag else None)
        status = resp.status_code
        if status == 304 and etag:
            return None, resp
        if status in (404, 410) and missing_ok:
            return None, resp
        if status >= 400:
            raise GitHubError(f"GitHub answered {status} for {resp.url}: {message(resp)}", status, resp.url)
        try:
            return resp.json(), resp
        except RecursionError:
            raise GitHubError(
                f"GitHub answered {status} for {resp.url} with JSON nested too deeply to read", status, resp.url
            ) from None
        except ValueError:
            snippet = resp.text[:120].replace("\n", " ")
            raise GitHubError(
                f"GitHub answered {status} for {resp.url} with a body that is not JSON: {snippet!r}", status, resp.url
            ) from None

    # ---- recording and progress -------------------------------------------------------------

    def _record_json(self, rel: str, data: Any) -> None:
        if self.recorder is not None:
            self.recorder.write_json(rel, data)

    def _record_text(self, rel: str, text: str) -> None:
        if self.recorder is not None:
            self.recorder.write_text(rel, text)

    def _say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    @property
    def rate(self) -> RateState:
        return self.http.rate

    @property
    def requests_made(self) -> int:
        return self.http.requests_made

    def close(self) -> None:
        """Close the HTTP session."""
        self.http.session.close()


def _decode_content(data: Any) -> str | None:
    """The text of a contents-API file answer; None for directories, huge files (no inline content) or binaries."""
    if not isinstance(data, dict) or data.get("type", "file") != "file":
        return None
    if data.get("encoding") != "base64" or not isinstance(data.get("content"), str):
        return None
    try:
        return base64.b64decode(data["content"]).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
