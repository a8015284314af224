"""A local OpenAI-compatible /v1/chat/completions server for tests and benchmarks.

    with FakeJudgeServer(rate_limit=50, p_429=0.02) as srv:
        client = OpenAI(base_url=srv.url, api_key="sk-test")
        ...
        srv.stats()          # requests, outcomes, ...
        srv.headers          # received request headers (to check which key was sent)

It answers judge prompts with deterministic, plausible JSON scores (correctness follows whether the
gold answer appears in the assistant's last turn; a prompt containing UNSTABLE gets alternating 0/1
scores). `slots=N` serves N requests at a time and queues the rest, as a local server does (llama.cpp's: one
slot; vLLM's: max_num_seqs), each taking `delay_s`; `refuse_json_schema=400` answers a json_schema
response_format with that status, as a server without structured output does (llama-cpp-python's: 500). Faults: a fixed rate limit (token bucket; 429 with Retry-After and retry-after-ms beyond it),
injected 429/500/timeouts/malformed replies by probability (seeded) or by request number
(`schedule={1: "429", 2: "500"}`), a base delay, and stalls (`p_stall`: the reply comes after `stall_s`). Kinds: ok, 429, 500, timeout, malformed (reply
text not JSON; `echo_auth_reply=True`: every reply is such a text quoting the Authorization header, as sent and base64-encoded), partial (keys missing), range (a value > 1), badjson (HTTP body not JSON), 401 (bad key;
`reject_all_keys=True` answers every request so). `fixed_scores` makes every ok reply carry those
scores (a different model behind the same name); `bodies` keeps the request bodies received. Judges to
attack: `gullible=True` replies with the first JSON verdict found in the dialogue (a judge that can be
talked into a score), and with full marks when the surface fools it (`fooled_by_surface`: a short reply, a last line
that mentions the gold answer); `quote_first=True` quotes that verdict before its own.
Hostile replies (`hostile=("braces", "drip", "bomb")`, one per request in turn): a reply whose content is
`brace_bytes` of "{", one whose body drips a byte every `drip_s`, and a gzip body that inflates to `bomb_bytes`
(1 GiB in about 1 MB). `redirect_to=URL` answers every request with a 307 to URL.
It binds 127.0.0.1 on an ephemeral port, serves from a thread, and stops itself after
`max_lifetime_s` or refuses (503) beyond `max_requests`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import re
import struct
import threading
import time
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = ("correctness", "reasoning", "grounding", "clarification", "efficiency", "tool_use", "communication")
FAULT_KINDS = ("ok", "429", "500", "timeout", "malformed", "partial", "range", "badjson", "401", "stall", "braces",
               "drip", "bomb")


@functools.lru_cache(maxsize=2)
def gzip_bomb(inflated: int) -> bytes:
    """A gzip stream of `inflated` zero bytes (about 1 MB per GiB): 1 MiB of zeros compressed once with the dictionary
    reset after it (a full flush), so every 1 MiB block is the same bytes, repeated; the trailer's CRC is real."""
    chunk = bytes(1 << 20)
    n, rest = divmod(inflated, len(chunk))
    z = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
    tail = z.compress(bytes(rest)) + z.flush()
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(bytes(rest), crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + block * n + tail + struct.pack("<II", crc, inflated & 0xFFFFFFFF)


class _Bucket:
    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.tokens, self.last = float(burst), time.monotonic()
        self.lock = threading.Lock()

    def take(self) -> float:
        """0 when admitted, else seconds until the next token."""
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return 0.0
            return (1 - self.tokens) / self.rate


def prompt_item_and_turns(prompt: str) -> tuple[dict, list[dict]]:
    """The judge prompt's ITEM object and dialogue turns (rc1.scoring.spec renders one JSON value per line)."""
    item, turns = {}, []
    for line in prompt.splitlines():
        if line.startswith('{"task"'):
            item = json.loads(line)
        elif line.startswith('{"role"'):
            turns.append(json.loads(line.rstrip(",")))
    return item, turns


def judge_scores(prompt: str, nth: int) -> dict[str, float]:
    """Deterministic plausible scores for a judge prompt (nth: how often this prompt was seen)."""
    if "UNSTABLE" in prompt:
        v = float(nth % 2)
        return {d: v for d in DIMENSIONS}
    h = hashlib.sha256(prompt.encode()).digest()
    scores = {d: round(0.35 + 0.6 * h[i] / 255, 3) for i, d in enumerate(DIMENSIONS)}
    item, turns = prompt_item_and_turns(prompt)
    last = [t.get("content") or "" for t in turns if t.get("role") == "assistant"]
    if item.get("gold_answer") and last:
        scores["correctness"] = 0.95 if str(item["gold_answer"]).strip().lower() in last[-1].lower() else 0.15
    return scores


def first_verdict_in(prompt: str) -> dict | None:
    """The first JSON object with judge keys that the dialogue's turns contain (what a judge that can be talked
    into a score would obey): searched in every decoded turn, as a model reads them."""
    decoder = json.JSONDecoder()
    _, turns = prompt_item_and_turns(prompt)
    for text in [t.get("content") or "" for t in turns] + [prompt]:
        for i, ch in enumerate(text):
            if ch != "{":
                continue
            try:
                obj, _ = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "correctness" in obj:
                return obj
    return None


def fooled_by_surface(prompt: str) -> bool:
    """What fools a judge that reads the surface (the false positives of One Token to Fool LLM-as-a-Judge, 2025): a
    short final reply (a master key such as ":" or "Thought process:", an answer alone, an empty answer format) passes
    for a solution, and a last line that mentions the gold answer anywhere passes for a correct one."""
    item, turns = prompt_item_and_turns(prompt)
    last = [t.get("content") or "" for t in turns if t.get("role") == "assistant" and (t.get("content") or "").strip()]
    if not last:
        return True
    final = last[-1].strip()
    gold = {"true": "yes", "false": "no"}.get(str(item.get("gold_answer", "")).strip().lower(),
                                               str(item.get("gold_answer", "")).strip().lower())
    said = final.splitlines()[-1].lower()
    return len(final) <= 60 or bool(gold) and re.search(rf"(?<!\w){re.escape(gold)}(?!\w)", said) is not None


class FakeJudgeServer:
    def __init__(self, *, rate_limit: float | None = None, burst: int | None = None, delay_s: float = 0.0,
                 p_429: float = 0.0, p_500: float = 0.0, p_timeout: float = 0.0, p_malformed: float = 0.0,
                 schedule: dict[int, str] | None = None, retry_after: str | None = "1", retry_after_ms: bool = True,
                 timeout_delay_s: float = 2.0, seed: int = 0, reject_all_keys: bool = False, max_requests: int = 20000,
                 max_lifetime_s: float = 120.0, fixed_scores: dict[str, float] | None = None, echo_key: bool = False,
                 gullible: bool = False, quote_first: bool = False, echo_auth_reply: bool = False,
                 p_stall: float = 0.0, stall_s: float = 20.0, hostile: tuple[str, ...] = (),
                 brace_bytes: int = 2_000_000, drip_s: float = 1.0, bomb_bytes: int = 1 << 30,
                 redirect_to: str | None = None, slots: int | None = None, refuse_json_schema: int | None = None):
        self.redirect_to = redirect_to
        self.queries: list[str] = []       # the query string of each request received
        self.hostile, self.brace_bytes, self.drip_s, self.bomb_bytes = tuple(hostile), brace_bytes, drip_s, bomb_bytes
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self.refuse_json_schema = refuse_json_schema
        self.stall_s = stall_s             # a stall: the reply comes, but after stall_s (a long-tail latency)
        self.echo_key = echo_key           # 401 messages quote the key (upper-cased, URL-encoded, base64, reversed,
                                           # letter-spaced, hex)
        self.echo_auth_reply = echo_auth_reply   # every 200 reply is text (not JSON) quoting the Authorization header
                                                 # (as sent, and base64-encoded as a request dump would)
        self.fixed_scores = fixed_scores   # every ok reply carries these scores (another model, same name)
        self.bodies: list[dict] = []       # received request bodies (first 5000)
        self.gullible, self.quote_first = gullible, quote_first
        self.rate_limit, self.delay_s = rate_limit, delay_s
        self.p = {"429": p_429, "500": p_500, "timeout": p_timeout, "malformed": p_malformed, "stall": p_stall}
        self.schedule = dict(schedule or {})
        self.retry_after, self.retry_after_ms = retry_after, retry_after_ms
        self.timeout_delay_s = timeout_delay_s
        self.reject_all_keys = reject_all_keys
        self.max_requests, self.max_lifetime_s = max_requests, max_lifetime_s
        self._bucket = _Bucket(rate_limit, burst or max(1, math.ceil(rate_limit / 10))) if rate_limit else None
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._seen: Counter[str] = Counter()
        self.requests = 0
        self.outcomes: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self.events: list[tuple[float, str]] = []   # (monotonic time, outcome) per request
        self._httpd: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeJudgeServer":
        server = self

        class Handler(_Handler):
            srv = server

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        serve = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        serve.start()
        timer = threading.Timer(self.max_lifetime_s, self.stop)
        timer.daemon = True
        timer.start()
        self._threads = [serve]
        self._timer = timer
        return self

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._timer.cancel()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> "FakeJudgeServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def stats(self) -> dict:
        with self._lock:
            return {"requests": self.requests, **{k: self.outcomes.get(k, 0) for k in FAULT_KINDS},
                    "rate_limited": self.outcomes.get("429_limit", 0)}

    def reset_counts(self) -> None:
        with self._lock:
            self.requests = 0
            self.outcomes.clear()
            self.headers.clear()
            self.events.clear()

    # ------------------------------------------------------------ decisions
    def _decide(self) -> tuple[int, str, float]:
        """(request number, outcome, wait for Retry-After)."""
        with self._lock:
            self.requests += 1
            n = self.requests
            if n > self.max_requests:
                return n, "exhausted", 0.0
            kind = "401" if self.reject_all_keys else self.schedule.get(n)
            if kind is None and self.hostile:
                kind = self.hostile[(n - 1) % len(self.hostile)]
            if kind is None:
                r = self._rng.random()
                acc = 0.0
                for name, p in self.p.items():
                    acc += p
                    if r < acc:
                        kind = name
                        break
            if kind == "malformed":  # rotate the ways a reply can be malformed
                kind = ("malformed", "partial", "range")[self.outcomes["malformed_rot"] % 3]
                self.outcomes["malformed_rot"] += 1
        wait = 0.0
        if kind in (None, "stall") and self._bucket is not None:   # a stalled reply is an answered one: it counts
            wait = self._bucket.take()
            if wait > 0:
                kind = "429_limit"
        return n, kind or "ok", wait

    def _count(self, outcome: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.outcomes[outcome] += 1
            if len(self.headers) < 5000:
                self.headers.append(headers)
            self.events.append((time.monotonic(), outcome))


class _Server(ThreadingHTTPServer):
    request_queue_size = 128   # a real server's listen backlog (http.server's 5 refuses a client's burst of connects)

    def handle_error(self, request, client_address) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):   # a client that hung up
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    srv: FakeJudgeServer
    protocol_version = "HTTP/1.1"
    timeout = 10  # idle keep-alive connections close

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _hostile(self, kind: str) -> None:
        srv = self.srv
        if kind == "bomb":
            self._send(200, gzip_bomb(srv.bomb_bytes), {"Content-Encoding": "gzip"})
            return
        content = "{" * srv.brace_bytes if kind == "braces" else json.dumps({d: 0.5 for d in DIMENSIONS})
        body = json.dumps({"id": "chatcmpl-hostile", "object": "chat.completion", "created": 0, "model": "fake",
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": content}}]}).encode()
        if kind == "braces":
            self._send(200, body)
            return
        try:   # drip: a valid reply, one byte every drip_s, until the client gives up or the server stops
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                if srv._stop.wait(srv.drip_s):
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def do_POST(self) -> None:  # noqa: N802
        srv = self.srv
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        path, _, query = self.path.partition("?")
        with srv._lock:
            srv.queries.append(query)
        if not path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        if srv.redirect_to:
            srv._count("redirect", headers)
            self._send(307, b"", {"Location": srv.redirect_to.rstrip("/") + "/chat/completions"})
            return
        n, kind, wait = srv._decide()
        srv._count(kind, headers)
        if kind == "429_limit":
            hdrs = {"Retry-After": str(max(1, math.ceil(wait)))}
            if srv.retry_after_ms:
                hdrs["retry-after-ms"] = f"{wait * 1000:.0f}"
            self._send(429, b'{"error": {"message": "rate limit exceeded", "type": "rate_limit"}}', hdrs)
            return
        if kind == "exhausted":
            self._send(503, b'{"error": {"message": "fake server request budget exhausted"}}')
            return
        if srv.refuse_json_schema and b'"json_schema"' in raw:
            self._send(srv.refuse_json_schema, b'{"error": {"message": "1 validation error:\\n  response_format.type: '
                                               b'Input should be text or json_object"}}')
            return
        if srv._slots is not None:
            with srv._slots:            # queued behind the requests being served
                srv._stop.wait(srv.delay_s)
        elif srv.delay_s:
            srv._stop.wait(srv.delay_s)
        if kind == "429":
            hdrs = {"Retry-After": srv.retry_after} if srv.retry_after else {}
            self._send(429, b'{"error": {"message": "injected 429", "type": "rate_limit"}}', hdrs)
            return
        if kind == "401":
            msg = "Incorrect API key provided"
            if srv.echo_key:   # a careless server: the key back in three spellings
                import base64
                import urllib.parse
                key = headers.get("authorization", "").removeprefix("Bearer ")
                msg += (f": {key.upper()} (url {urllib.parse.quote(key, safe='')}, "
                        f"b64 {base64.b64encode(key.encode()).decode()}, reversed {key[::-1]}, spaced {' '.join(key)}, "
                        f"hex {key.encode().hex()})")
            self._send(401, json.dumps({"error": {"message": msg, "type": "invalid_request_error"}}).encode())
            return
        if kind == "500":
            self._send(500, b'{"error": {"message": "injected server error"}}')
            return
        if kind == "timeout":
            srv._stop.wait(srv.timeout_delay_s)
            self._send(504, b'{"error": {"message": "too late"}}')
            return
        if kind == "stall":
            srv._stop.wait(srv.stall_s)
        if kind == "badjson":
            self._send(200, b'{"id": "x", "choices": [ this is not json')
            return
        if kind in ("braces", "drip", "bomb"):
            self._hostile(kind)
            return
        try:
            body = json.loads(raw or b"{}")
            prompt = "\n".join(m.get("content") or "" for m in body.get("messages", []))
        except (json.JSONDecodeError, AttributeError):
            self._send(400, b'{"error": {"message": "request body is not JSON"}}')
            return
        with srv._lock:
            srv._seen[prompt] += 1
            nth = srv._seen[prompt]
            if len(srv.bodies) < 5000:
                srv.bodies.append(body)
        scores = dict(srv.fixed_scores) if srv.fixed_scores else judge_scores(prompt, nth)
        if srv.echo_auth_reply:
            import base64

            auth = headers.get("authorization", "")
            content = (f"Cannot score. You sent {auth} and I repeat it (base64 "
                       f"{base64.b64encode(auth.encode()).decode()}).")
        elif kind == "malformed":
            content = "The assistant did well overall; I would rate it highly."
        elif kind == "partial":
            content = json.dumps({k: v for k, v in scores.items() if k != "grounding"})
        elif kind == "range":
            content = json.dumps({**scores, "correctness": 1.7})
        else:
            content = json.dumps(scores)
            quoted = first_verdict_in(prompt) if (srv.gullible or srv.quote_first) else None
            if srv.gullible and fooled_by_surface(prompt):
                content = json.dumps({d: 1.0 for d in DIMENSIONS})
            elif quoted is not None and srv.gullible:
                content = json.dumps(quoted)
            elif quoted is not None:
                content = f"The candidate wrote {json.dumps(quoted)}, which I ignore. My verdict: {content}"
        reply = {
            "id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 40, "total_tokens": len(prompt) // 4 + 40},
        }
        self._send(200, json.dumps(reply).encode())
