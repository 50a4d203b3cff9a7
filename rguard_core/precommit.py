"""The pre-commit hook: guard the staged diff (``git diff --cached``) of the repository it runs in.

Which graph to guard against, first match wins:
  1. ``--repo OWNER/NAME``;
  2. ``repo: OWNER/NAME`` in ``.rguard.yaml`` at the top of the working tree (commit it once for the team);
  3. the ``origin`` remote's URL, when it names a GitHub-style ``OWNER/NAME`` (https or ssh form).
Each finding prints as one line: label, decision, the file it touches, its quote and its link; quotes are
source text, so control characters are removed before they reach the terminal (untrusted.one_line).
"""

from __future__ import annotations

import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import yaml

from .errors import ConfigError, InvalidInput
from .guard import request
from .guard.model import Finding, GuardReport
from .guard.request import decode_diff
from .untrusted import one_line

CONFIG_FILE = ".rguard.yaml"
TOO_LARGE_HINT = "commit it in parts, or skip the hook for this one commit (git commit --no-verify)"
GIT_TIMEOUT_S = 30
_REMOTE = re.compile(r"(?:github\.com|^[^/:]+)[:/]+(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")


@dataclass(frozen=True)
class StagedChange:
    root: Path  # top of the working tree
    repo: str  # OWNER/NAME of the graph to guard against
    repo_from: str  # --repo | .rguard.yaml | git remote origin
    diff: str


def git(root: Path, *args: str) -> str:
    return git_bytes(root, *args).decode("utf-8", errors="replace")


def git_bytes(root: Path, *args: str, limit: int | None = None) -> bytes:
    """git's standard output. With ``limit``, reading stops (and git is stopped) once more than ``limit`` bytes
    came: an oversized staged diff is refused by the caller without ever being held whole in memory."""
    try:
        proc = subprocess.Popen(["git", *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise InvalidInput(
            "git is not installed (or not on PATH); the pre-commit hook reads the staged diff with git"
        ) from None
    chunks: list[bytes] = []
    over = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        size = 0
        while chunk := proc.stdout.read(1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if limit is not None and size > limit:
                over.set()
                proc.kill()
                return

    errors: list[bytes] = []

    def read_errors() -> None:  # drained alongside: git blocks once a full stderr pipe is not read
        assert proc.stderr is not None
        errors.append(proc.stderr.read())

    reader = threading.Thread(target=read, daemon=True)
    drain = threading.Thread(target=read_errors, daemon=True)
    reader.start()
    drain.start()
    reader.join(GIT_TIMEOUT_S)
    if reader.is_alive():
        proc.kill()
        reader.join()
        raise InvalidInput(f"git {' '.join(args)} took longer than {GIT_TIMEOUT_S} s")
    code = proc.wait()
    drain.join()
    err = b"".join(errors)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    if code != 0 and not over.is_set():
        raise InvalidInput(f"git {' '.join(args)} failed: {err.decode('utf-8', 'replace').strip()}")
    return b"".join(chunks)


def staged_change(cwd: Path, repo: str | None = None) -> StagedChange:
    """The staged diff of the working tree containing ``cwd`` and the graph it is guarded against."""
    root = Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    name, source = _repo_name(root, repo)
    args = ("diff", "--cached", "--no-color", "--no-ext-diff", "--find-renames", "--unified=3")
    staged = git_bytes(root, *args, limit=request.MAX_DIFF_BYTES)
    diff = decode_diff(staged, "the staged diff", TOO_LARGE_HINT)  # the guard's one input limit
    return StagedChange(root, name, source, diff)


def _repo_name(root: Path, given: str | None) -> tuple[str, str]:
    if given:
        return given, "--repo"
    cfg = root / CONFIG_FILE
    if cfg.is_file():
        try:
            data = yaml.safe_load(cfg.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as e:
            raise ConfigError(f"{cfg} is not valid YAML: {e}") from e
        if not isinstance(data, dict) or not isinstance(data.get("repo"), str):
            raise ConfigError(f"{cfg} needs a line 'repo: OWNER/NAME'")
        return data["repo"], CONFIG_FILE
    try:
        url = git(root, "remote", "get-url", "origin").strip()
    except InvalidInput:
        url = ""
    m = _REMOTE.search(url)
    if m:
        return f"{m['owner']}/{m['name']}", "git remote origin"
    raise InvalidInput(
        f"cannot tell which repository graph to guard against: pass --repo OWNER/NAME, or put "
        f"'repo: OWNER/NAME' in {root / CONFIG_FILE}"
    )


def finding_line(f: Finding, diff_paths: list[str]) -> str:
    """One line per finding: what, which decision, where, the quote, the link."""
    files = [p[len("file:") :] for p in f.path if p.startswith("file:") and p[len("file:") :] in diff_paths]
    where = files[0] if files else (diff_paths[0] if len(diff_paths) == 1 else "this change")
    tag = "WARN" if f.label == "contradicts" else "note"
    return (
        f"{tag} {one_line(where, 120)}: {f.label} {f.decision_id} "
        f'"{one_line(f.quote, 200)}" {one_line(f.source_url or "(no link)", 200)}'
    )


def report_lines(report: GuardReport, change: StagedChange, diff_paths: list[str]) -> list[str]:
    lines = [finding_line(f, diff_paths) for f in report.findings]
    head = (
        f"rguard: {report.verdict} on the staged change against {report.repo} ({change.repo_from}), "
        f"{len(report.findings)} finding(s), {report.timings_ms['total']:.0f} ms"
    )
    return [head, *lines]
