"""A small JSON-answering client for any OpenAI-compatible endpoint; every failure is an LLMError, never a fallback."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # openai takes ~0.4 s to import: only a process that talks to an LLM pays it
    import openai
    from openai.types.chat import ChatCompletionMessageParam

from .config import Settings
from .errors import ConfigError, LLMError

T = TypeVar("T")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
JSON_ATTEMPTS = 2  # one retry when the answer is not JSON; a wrong shape is not retried
SNIPPET = 200
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)


@dataclass(frozen=True)
class LLMCall:
    """One request to the endpoint: how long it took and whether its answer was usable."""

    model: str
    ms: float
    ok: bool
    error: str = ""


class LLMClient:
    """Asks a chat model for a JSON object and hands it to a validator; see ``complete_json``."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        timeout_s: float = 60,
        max_retries: int = 2,
        deadline_s: float | None = None,
    ) -> None:
        s = settings if settings is not None else Settings.from_env()
        base = base_url or s.openai_base_url
        key = api_key or s.openai_api_key
        if not base and not key:
            raise ConfigError(
                "no LLM endpoint configured: set OPENAI_BASE_URL (any OpenAI-compatible endpoint) "
                "and/or OPENAI_API_KEY (the key for it; alone it means api.openai.com); "
                "RGUARD_LLM_MODEL picks the model"
            )
        self.model = model or s.llm_model
        self.base_url = (base or DEFAULT_BASE_URL).rstrip("/")
        # Local servers often need no key, but the openai package insists on one; pass the base URL explicitly
        # so the package never picks up a different endpoint from the environment on its own.
        import openai

        # Retries are ours, not the package's, so one deadline bounds the whole question: tries, waits, retries.
        self._client = openai.OpenAI(base_url=self.base_url, api_key=key or "unused", timeout=timeout_s, max_retries=0)
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.deadline_s = deadline_s if deadline_s is not None else s.llm_timeout_s
        self._lock = threading.Lock()
        self.calls: list[LLMCall] = []

    def complete_json(self, system: str, user: str, validate: Callable[[Any], T]) -> T:
        """Ask for a JSON object, parse it and return ``validate(obj)``; raise LLMError on any failure."""
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        problem = ""
        deadline = time.monotonic() + self.deadline_s
        for _ in range(JSON_ATTEMPTS):
            started = time.perf_counter()
            content, finish = "", None
            try:
                content, finish = self._ask(messages, deadline)
                data = parse_json_content(content)
            except _NotJSON as e:
                cut = " (finish_reason='length': the answer was cut off)" if finish == "length" else ""
                problem = f"{e}{cut}"
                self._record(started, False, problem)
                continue
            except LLMError as e:
                self._record(started, False, str(e))
                raise
            try:
                result = validate(data)
            except (ValueError, TypeError, LookupError) as e:  # a validator indexing a missing key is a wrong shape too
                msg = f"LLM answer from {self.model} has the wrong shape: {e}; content: {_snippet(content)}"
                self._record(started, False, msg)
                raise LLMError(msg) from e
            self._record(started, True)
            return result
        raise LLMError(f"LLM answer from {self.model} is not JSON after {JSON_ATTEMPTS} attempts: {problem}")

    def total_ms(self) -> float:
        """Wall time spent waiting on the endpoint so far, over all recorded calls."""
        with self._lock:
            return sum(c.ms for c in self.calls)

    def _ask(self, messages: list[ChatCompletionMessageParam], deadline: float) -> tuple[str, str | None]:
        """One answer, retrying 408/409/429/5xx and dropped connections while the deadline allows."""
        import openai

        failures = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._late()
            error: LLMError
            headers: Any = None
            per_try = min(self.timeout_s, remaining)
            try:
                resp = _within(
                    remaining,
                    self._late,
                    partial(
                        self._client.chat.completions.create,
                        model=self.model,
                        messages=messages,
                        response_format={"type": "json_object"},
                        temperature=0,
                        timeout=per_try,
                    ),
                )
                return _content_of(resp)
            except openai.APIStatusError as e:
                error = LLMError(
                    f"LLM endpoint {self.base_url} answered HTTP {e.status_code}: {_snippet(_body_text(e))}"
                )
                error.__cause__ = e
                if e.status_code not in RETRY_STATUS and e.status_code < 500:
                    raise error from e
                headers = e.response.headers
            except openai.APITimeoutError as e:
                error = (
                    self._late()
                    if deadline - time.monotonic() <= 0
                    else LLMError(f"LLM endpoint {self.base_url} timed out after {per_try:g} s")
                )
                error.__cause__ = e
            except openai.APIConnectionError as e:
                error = LLMError(f"cannot reach LLM endpoint {self.base_url}: {e.__cause__ or e}")
                error.__cause__ = e
            except openai.APIError as e:
                raise LLMError(f"LLM endpoint {self.base_url} failed: {e}") from e
            failures += 1
            wait = _retry_wait(headers, failures)
            if failures > self.max_retries or time.monotonic() + wait >= deadline:
                raise error
            time.sleep(wait)

    def _late(self) -> LLMError:
        return LLMError(
            f"LLM endpoint {self.base_url} timed out: no usable answer within {self.deadline_s:g} s "
            "(RGUARD_LLM_TIMEOUT_S, retries included); check the endpoint or raise the limit"
        )

    def _record(self, started: float, ok: bool, error: str = "") -> None:
        ms = (time.perf_counter() - started) * 1000
        with self._lock:
            self.calls.append(LLMCall(self.model, round(ms, 3), ok, error[:SNIPPET]))


class _NotJSON(LLMError):
    """Content that could not be read as JSON; worth one more try."""


def parse_json_content(content: str) -> Any:
    """Read a model's answer as JSON, accepting a ```json fenced block; raise an LLMError subclass otherwise."""
    text = content.strip()
    if not text:
        raise _NotJSON("empty content")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        fenced = _FENCE.search(text)
        if fenced is None:
            raise _NotJSON(f"{e.msg} at char {e.pos}; content: {_snippet(text)}") from None
    try:
        return json.loads(fenced.group(1))
    except json.JSONDecodeError as e:
        raise _NotJSON(f"fenced block: {e.msg} at char {e.pos}; content: {_snippet(text)}") from None


def _content_of(resp: Any) -> tuple[str, str | None]:
    # Compatible servers vary; the openai package does not validate the body, so check what came back.
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise LLMError(f"LLM endpoint answered without choices: {_snippet(repr(resp))}")
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    reason = getattr(choice, "finish_reason", None)
    if isinstance(content, str) and content.strip():
        return content, reason if isinstance(reason, str) else None
    refusal = getattr(message, "refusal", None)
    detail = f"refusal: {_snippet(refusal)}" if refusal else f"finish_reason={reason!r}"
    raise _NotJSON(f"empty content ({detail})")


def _within[R](seconds: float, late: Callable[[], LLMError], call: Callable[[], R]) -> R:
    """``call()`` bounded by wall-clock time. The HTTP timeout bounds each read, not the whole answer, so an
    endpoint trickling a byte a second would never time out; the call runs in a daemon thread that is left
    to its socket timeout when the deadline passes."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as e:  # noqa: BLE001 — handed to the caller below
            box["error"] = e

    worker = threading.Thread(target=run, name="rguard-llm-request", daemon=True)
    worker.start()
    worker.join(max(0.0, seconds))
    if worker.is_alive():
        raise late()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


RETRY_STATUS = frozenset({408, 409, 429})  # and every 5xx, as the openai package retries them
MAX_RETRY_WAIT_S = 8.0


def _retry_wait(headers: Any, failures: int) -> float:
    """Seconds before the next try: the server's ``retry-after-ms`` / ``retry-after``, else 0.5, 1, 2 … s."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name) if headers is not None else None
        try:
            if raw is not None:
                return min(MAX_RETRY_WAIT_S, max(0.0, float(raw) * scale))
        except ValueError:
            pass
    return min(MAX_RETRY_WAIT_S, 0.5 * 2.0 ** (failures - 1))


def _body_text(e: openai.APIStatusError) -> str:
    try:
        return e.response.text
    except (AttributeError, UnicodeDecodeError):
        return str(e.body)


def _snippet(text: object) -> str:
    s = text if isinstance(text, str) else repr(text)
    return repr(s[:SNIPPET]) + ("…" if len(s) > SNIPPET else "")
