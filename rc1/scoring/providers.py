"""Judge providers: any OpenAI-compatible chat endpoint through the `openai` SDK, and the local
deterministic `heuristic` judge (dev mode only; never live).

A provider answers one call for one sample of one request with the raw reply text. Failures are
typed so the judge's retry layer can act on them: RateLimited (429, with Retry-After), Transient
(5xx, timeouts, connection errors: back off and retry) and Fatal (auth, unknown model, bad request:
no retry). The SDK's own retries are off (max_retries=0) so attempts do not multiply.
API keys are held by the provider only: describe() and every error message leave them out
(rc1.core.redaction: any letter case, URL-encoded, base64; URLs keep only scheme, host, port and path).
"""

from __future__ import annotations

import email.utils
import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from rc1.core.errors import Rc1Error
from rc1.core.redaction import query_values, refuse_userinfo, safe_url, scrub
from rc1.scoring.base import JudgeRequest
from rc1.scoring.judge_settings import JudgeSettings
from rc1.scoring.spec import JUDGE_SPEC_VERSION, RESPONSE_SCHEMA, build_messages

log = logging.getLogger("rc1.scoring")

# name -> (default base URL, default model, conventional key variable)
HOSTED = {
    "openai": ("https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY"),
    "gemini": ("https://generativelanguage.googleapis.com/v1beta/openai/", "gemini-2.0-flash", "GEMINI_API_KEY"),
}
LOCAL = ("vllm", "ollama", "llamacpp", "openai-compatible")  # need a base URL and a model
HEURISTIC = "heuristic"
# providers whose chat API takes response_format={"type": "json_schema", ...} (structured output); deepseek gets
# {"type": "json_object"} (JSON mode), llamacpp JSON mode carrying the schema, `openai-compatible` the first of
# response_formats() its server takes; the strict parser takes the last complete object either way
JSON_SCHEMA_PROVIDERS = frozenset({"openai", "gemini", "vllm", "ollama"})
FORMAT_REFUSED = (400, 415, 422)   # what a server says to a response_format it does not take (llama-cpp-python: 500)
PROVIDERS = (HEURISTIC, *HOSTED, *LOCAL)


@dataclass(frozen=True)
class Reply:
    text: str | None
    latency_ms: float
    refused: str | None = None   # why an answered reply was refused unread (too large, an unknown encoding)


class ProviderError(Exception):
    """A call that got no usable answer. `billable` is False: the provider did not answer it."""

    def __init__(self, message: str, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class RateLimited(ProviderError):
    pass


class Transient(ProviderError):
    pass


class TimedOut(Transient):
    """No reply within the per-request timeout: the call is abandoned (it may still be billed) and sent again.
    `answering`: the server had begun its reply (bytes came, not all of them): not a server still computing it."""

    def __init__(self, message: str, answering: bool = False):
        super().__init__(message)
        self.answering = answering


class Fatal(ProviderError):
    pass


class Provider(Protocol):
    name: str
    model: str
    live: bool

    def complete(self, req: JudgeRequest, sample_index: int, timeout: float | None = None) -> Reply: ...

    def request_body(self, req: JudgeRequest) -> dict[str, Any]: ...

    def endpoint(self) -> dict[str, str]: ...

    def describe(self) -> dict[str, Any]: ...


def parse_retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date; None if absent."""
    if headers is None:
        return None
    get = headers.get
    ms = get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    raw = get("retry-after")
    if not raw:
        return None
    raw = raw.strip()
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):   # an unparsable date raises (Python >= 3.10), never None
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class OpenAICompatibleProvider:
    live = True

    def __init__(self, name: str, base_url: str, api_key: str, model: str, settings: JudgeSettings):
        import openai

        from rc1.scoring.bounded_http import bounded_client

        self._openai = openai
        self.name, self.model, self.base_url = name, model, base_url
        self._key = api_key
        self._settings = settings
        # a key in the query (`?code=...`, Azure Functions style) goes with every request, and nowhere else
        parts = urlsplit(base_url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        self._query_secrets = query_values(base_url)
        base_url = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        # replies bounded: an overall deadline per call, a byte cap (raw and decompressed), redirects to this host only
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=settings.timeout_s,
                                     default_query=query or None,
                                     http_client=bounded_client(base_url, settings.max_reply_bytes,
                                                                settings.concurrency_cap))
        self._formats = response_formats(name) if settings.json_mode else (None,)
        self._step = 0                     # the response format in use: the first this server took
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "model": self.model, "base_url": safe_url(self.base_url), "live": True,
                "spec_version": JUDGE_SPEC_VERSION}

    def _redact(self, text: str) -> str:
        """The key in any case, URL-encoded or base64, and credentials in URLs, masked."""
        return scrub(text, self._key, *self._query_secrets)

    def endpoint(self) -> dict[str, str]:
        """Who answers (a cache key part): provider, base URL without credentials, model."""
        return {"provider": self.name, "base_url": safe_url(self.base_url), "model": self.model}

    def request_body(self, req: JudgeRequest, step: int = 0) -> dict[str, Any]:
        """What one call sends: rendered messages + sampling settings + the response format of `step` (0, the one
        asked for first, is what the cache key hashes: a server's refusal does not change which prompt this is)."""
        s = self._settings
        body: dict[str, Any] = {"model": self.model, "messages": build_messages(req, s.context_chars),
                                "temperature": s.temperature, "max_tokens": s.max_tokens}
        if self._formats[step] is not None:
            body["response_format"] = self._formats[step]
        return body

    @property
    def response_format_in_use(self) -> str:
        return format_name(self._formats[self._step])

    def complete(self, req: JudgeRequest, sample_index: int, timeout: float | None = None) -> Reply:
        """timeout: this call's limit in seconds (the judge derives it from recent latency); None: timeout_s.
        A server that refuses the response format (refuses_format) is asked again with the next of
        response_formats(); when that one is answered, every later call uses it, and the step down is said once."""
        limit = timeout or self._settings.timeout_s
        step, refused = self._step, None
        while True:
            try:
                reply = self._send(self.request_body(req, step), limit)
            except (Fatal, Transient) as e:
                if not refuses_format(e) or step + 1 >= len(self._formats):
                    raise
                refused, step = e, step + 1
                continue
            if refused is not None:
                self._step_down(step, refused)
            return reply

    def _step_down(self, step: int, refused: Exception) -> None:
        with self._lock:
            if step <= self._step:
                return
            was, self._step = self._formats[self._step], step
        log.warning("judge %s at %s refused response_format %s (%s); asking for %s from now on", self.name,
                    safe_url(self.base_url), format_name(was), " ".join(str(refused).split())[:200],
                    format_name(self._formats[step]))

    def _send(self, kwargs: dict[str, Any], limit: float) -> Reply:
        from rc1.scoring.bounded_http import OffHostRedirect, ReplyRefused, bytes_seen

        oa = self._openai
        t0 = time.perf_counter()
        try:
            resp = self._client.chat.completions.create(**kwargs, timeout=limit)
        except OffHostRedirect as e:   # an endpoint that sends the call elsewhere: no retry, no score
            raise Fatal(self._redact(str(e))) from None
        except ReplyRefused as e:
            return Reply(None, (time.perf_counter() - t0) * 1000.0, refused=self._redact(str(e)))
        except oa.RateLimitError as e:
            raise RateLimited(self._redact(f"HTTP 429: {e.message}"), parse_retry_after(e.response.headers), 429) from None
        except oa.APITimeoutError:
            raise TimedOut(f"timeout after {limit:.3g}s", answering=bytes_seen() > 0) from None
        except oa.APIConnectionError as e:
            raise Transient(self._redact(f"connection error: {e.message}")) from None
        except oa.APIStatusError as e:
            msg = self._redact(f"HTTP {e.status_code}: {e.message}")
            if e.status_code >= 500 or e.status_code in (408, 409):
                raise Transient(msg, parse_retry_after(e.response.headers), e.status_code) from None
            raise Fatal(msg, status=e.status_code) from None
        except (oa.APIResponseValidationError, json.JSONDecodeError):
            # answered (and billed) but unreadable: the judge treats it like a malformed reply
            return Reply(None, (time.perf_counter() - t0) * 1000.0)
        latency = (time.perf_counter() - t0) * 1000.0
        choices = getattr(resp, "choices", None) or []
        text = choices[0].message.content if choices and choices[0].message is not None else None
        return Reply(text if isinstance(text, str) else None, latency)


def llamacpp_reply_schema() -> dict[str, Any]:
    """The judge reply schema for llama-cpp-python's server: each dimension one of 0, 0.05, ..., 1. Its grammar
    ignores number bounds (minimum/maximum), so the values are an enum: every constrained reply parses."""
    from rc1.core.config import DIMENSIONS

    levels = [round(i * 0.05, 2) for i in range(21)]
    return {"type": "object", "properties": {d: {"enum": levels} for d in DIMENSIONS},
            "required": list(DIMENSIONS), "additionalProperties": False}


def response_formats(provider: str) -> tuple[dict[str, Any], ...]:
    """The structured-output requests `provider` is asked for, strictest first (a server that refuses one gets the
    next): a JSON schema of the seven scores (OpenAI's json_schema: llama.cpp's llama-server, vLLM, Ollama, LM
    Studio); JSON mode carrying the schema (llama-cpp-python's server turns it into a grammar; others read JSON mode);
    plain JSON mode. `openai-compatible` walks all three; a named provider gets the one it is known to take."""
    schema = {"type": "json_schema", "json_schema": {"name": "judge_scores", "strict": True, "schema": RESPONSE_SCHEMA}}
    grammar = {"type": "json_object", "schema": llamacpp_reply_schema()}
    if provider == "openai-compatible":
        return schema, grammar, {"type": "json_object"}
    if provider == "llamacpp":
        return (grammar,)
    return (schema,) if provider in JSON_SCHEMA_PROVIDERS else ({"type": "json_object"},)


def response_format(provider: str) -> dict[str, Any]:
    """The response format `provider` is asked for first (the judge identity names it)."""
    return response_formats(provider)[0]


def format_name(fmt: dict[str, Any] | None) -> str:
    if fmt is None:
        return "none"
    return f"{fmt['type']}+schema" if fmt["type"] == "json_object" and "schema" in fmt else fmt["type"]


def refuses_format(e: ProviderError) -> bool:
    """An answer that may be a refusal of the response format: 400/415/422, or a 5xx naming response_format
    (llama-cpp-python's server answers its own request validation error with 500). Only a guess: the format steps
    down for good only when the next one is answered."""
    return e.status in FORMAT_REFUSED or (e.status or 0) >= 500 and "response_format" in str(e)


class HeuristicProvider:
    """Deterministic local judge (rc1.scoring.heuristic): dev mode only, never live, never billable."""

    name = HEURISTIC
    model = "heuristic-v1"
    live = False

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "model": self.model, "base_url": "", "live": False,
                "spec_version": JUDGE_SPEC_VERSION}

    def __init__(self):
        self._memo: dict[str, str] = {}  # deterministic: the K samples of one request are one computation

    def endpoint(self) -> dict[str, str]:
        return {"provider": self.name, "base_url": "", "model": self.model}

    def request_body(self, req: JudgeRequest) -> dict[str, Any]:
        return {"model": self.model, "messages": build_messages(req)}

    def complete(self, req: JudgeRequest, sample_index: int, timeout: float | None = None) -> Reply:
        from rc1.scoring.heuristic import heuristic_scores

        t0 = time.perf_counter()
        key = req.digest()
        text = self._memo.get(key)
        if text is None:
            text = json.dumps(heuristic_scores(req))
            if len(self._memo) >= 4096:
                self._memo.clear()
            self._memo[key] = text
        return Reply(text, (time.perf_counter() - t0) * 1000.0)


def provider_name(name: str | None, where: str | None = None) -> str:
    """`name` lowercased and stripped when it is a provider rc1 has; else one line naming the choices and the nearest
    one (the seeds' `deepseek_r1`: DeepSeek's API is provider `deepseek`)."""
    import difflib

    from rc1.core.settings import JUDGE_VARS

    given = (name or "").strip().lower()
    if given in PROVIDERS:
        return given
    near = difflib.get_close_matches(given, PROVIDERS, n=1, cutoff=0.6)
    where = where or f"judge provider (--judge-provider / {JUDGE_VARS['provider']})"
    raise Rc1Error(f"{where} {given!r}: not a judge provider{f' (did you mean {near[0]}?)' if near else ''}; choose "
                   f"one of {', '.join(PROVIDERS)}")


def make_provider(name: str, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                  settings: JudgeSettings | None = None) -> Provider:
    """Build a provider; base URL and model default to the stage's judge endpoint (rc1.core.settings.judge_endpoint),
    the key to its environment variable (rc1.core.settings.api_key)."""
    from rc1.core import settings as env

    name = provider_name(name)
    if name == HEURISTIC:
        return HeuristicProvider()
    settings = settings or JudgeSettings()
    ep = env.judge_endpoint(model=model, base_url=base_url)
    base_url, model = ep.base_url, ep.model
    url_names = f"--judge-base-url / {env.JUDGE_VARS['base_url']}"
    if name in HOSTED:
        default_url, default_model, key_var = HOSTED[name]
        base_url = base_url or default_url
        model = model or default_model
        api_key = api_key or env.api_key(key_var)
        if not api_key:
            raise Rc1Error(f"provider {name}: set {env.JUDGE_KEY_VAR} (or {key_var})")
    else:
        if not base_url:
            raise Rc1Error(f"provider {name}: set {url_names} (e.g. http://127.0.0.1:8000/v1)")
        if not model:
            raise Rc1Error(f"provider {name}: set --judge-model / {env.JUDGE_VARS['model']} (the model name the "
                           f"server serves)")
        api_key = api_key or env.api_key() or "not-needed"  # local servers usually ignore it; the SDK wants one
    if not base_url.startswith(("http://", "https://")):
        raise Rc1Error(f"{url_names}={safe_url(base_url)!r}: expected an http(s) URL")
    refuse_userinfo(base_url, url_names)
    return OpenAICompatibleProvider(name, base_url, api_key, model, settings)
