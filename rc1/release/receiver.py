"""An HTTP receiver for MLflow 3's webhook deliveries (what `rc1 guard` listens with), stdlib only.

MLflow (mlflow/webhooks/delivery.py) POSTs `{"entity", "action", "timestamp", "data"}` as JSON with the headers
X-MLflow-Delivery-Id, X-MLflow-Timestamp (unix seconds) and X-MLflow-Signature = "v1," + base64 of
HMAC-SHA256(secret, f"{delivery_id}.{timestamp}.{body}") (the Standard Webhooks scheme). A delivery is accepted only
when it is signed with the secret, its timestamp is within `tolerance_s` of this clock, and its delivery id was not
seen before within that window (a captured delivery replayed later is either stale or a repeat). Anything else is
refused before its body is parsed. The receiver answers at once; what a delivery asks for is the handler's business
(the guard only queues it), so MLflow's sender never waits on, or retries because of, the work it triggers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Mapping

log = logging.getLogger("rc1.guard")

# the names mlflow.webhooks.constants gives them (tests/stages/test_guard.py checks they still agree)
DELIVERY_ID_HEADER = "X-MLflow-Delivery-Id"
TIMESTAMP_HEADER = "X-MLflow-Timestamp"
SIGNATURE_HEADER = "X-MLflow-Signature"
SIGNATURE_VERSION = "v1"
MAX_BODY = 64 * 1024           # an alias event is ~200 bytes
MAX_SEEN = 100_000             # delivery ids remembered inside the window; beyond it new deliveries are refused
WARN_EVERY_S = 10.0


class Refused(Exception):
    """A delivery the receiver does not accept: the HTTP status and one line why."""

    def __init__(self, status: int, why: str):
        super().__init__(why)
        self.status = status


@dataclass(frozen=True)
class Delivery:
    delivery_id: str
    timestamp: int
    entity: str
    action: str
    data: Mapping

    @property
    def event(self) -> str:
        return f"{self.entity}.{self.action}"


def signature(secret: bytes, delivery_id: str, timestamp: str, body: bytes) -> str:
    """The X-MLflow-Signature value MLflow sends for this delivery."""
    mac = hmac.new(secret, delivery_id.encode() + b"." + timestamp.encode() + b"." + body, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(mac).decode()}"


class Verifier:
    """Checks a delivery's signature, age and novelty (thread-safe: the receiver's threads share one)."""

    def __init__(self, secret: bytes, tolerance_s: float = 300.0, clock: Callable[[], float] = time.time):
        self._secret, self._tolerance, self._clock = secret, tolerance_s, clock
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def check(self, headers: Mapping[str, str], body: bytes) -> Delivery:
        delivery_id = headers.get(DELIVERY_ID_HEADER) or ""
        stamp = headers.get(TIMESTAMP_HEADER) or ""
        sent = headers.get(SIGNATURE_HEADER) or ""
        if not (delivery_id and stamp and sent):
            raise Refused(401, "unsigned delivery (no delivery id, timestamp or signature header)")
        if len(delivery_id) > 100 or not stamp.isdigit():
            raise Refused(400, "malformed delivery id or timestamp")
        want = signature(self._secret, delivery_id, stamp, body)
        # several space-separated signatures may come during a secret rotation (Standard Webhooks); one must match
        if not any(hmac.compare_digest(s.encode(), want.encode()) for s in sent.split()):
            raise Refused(401, "bad signature")
        now = self._clock()
        if abs(now - int(stamp)) > self._tolerance:
            raise Refused(401, f"stale delivery (signed {now - int(stamp):.0f} s ago; at most {self._tolerance:.0f})")
        with self._lock:
            if len(self._seen) >= MAX_SEEN:   # forget the ids whose deliveries are stale by now anyway
                self._seen = {k: t for k, t in self._seen.items() if now - t <= self._tolerance}
            if delivery_id in self._seen:
                raise Refused(409, "replayed delivery (its id was seen already)")
            if len(self._seen) >= MAX_SEEN:
                raise Refused(429, "too many deliveries inside the replay window")
            self._seen[delivery_id] = now
        try:
            doc = json.loads(body)
            return Delivery(delivery_id, int(stamp), str(doc["entity"]), str(doc["action"]), dict(doc["data"]))
        except (ValueError, KeyError, TypeError):
            raise Refused(400, "signed, but not an MLflow webhook payload") from None


class Receiver(ThreadingHTTPServer):
    """POST `path`: a delivery, checked by `verifier`, then handed to `handle` (its answer: (status, text)), or refused
    (told to `on_refused` with the status); GET /health: 200. At most `max_connections` at once (more are closed unanswered), each given `timeout_s` to
    send its request."""

    daemon_threads = True
    request_queue_size = 128   # the listen backlog (socketserver's 5 refuses a burst of MLflow's 10 senders)

    def __init__(self, address: tuple[str, int], verifier: Verifier, handle: Callable[[Delivery], tuple[int, str]],
                 path: str = "/webhook", max_connections: int = 32, timeout_s: float = 5.0,
                 on_refused: Callable[[int], object] | None = None):
        self.verifier, self.handle, self.path, self.on_refused = verifier, handle, path, on_refused
        self._slots = threading.BoundedSemaphore(max_connections)
        self._count_lock = threading.Lock()
        self.refused, self._warned_count, self._warned_at = 0, 0, float("-inf")
        handler = type("Handler", (_Handler,), {"timeout": timeout_s})
        super().__init__(address, handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def note_refusal(self, client: str, status: int, why: str) -> None:
        """Count a refused delivery, tell `on_refused` its status; say so at most every WARN_EVERY_S (a flood of
        forgeries is one line, not thousands)."""
        if self.on_refused is not None:
            self.on_refused(status)
        with self._count_lock:
            self.refused += 1
            now = time.monotonic()
            if now - self._warned_at < WARN_EVERY_S:
                return
            self._warned_at, since = now, self.refused - self._warned_count
            self._warned_count = self.refused
        log.warning("guard: refused %d delivery(ies) since the last warning; the latest from %s: %s", since, client, why)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)   # a flood of connections: the excess is dropped, not queued
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class _Handler(BaseHTTPRequestHandler):
    server: Receiver
    server_version = "rc1-guard"
    sys_version = ""

    def do_GET(self) -> None:
        self._reply(200, "ok") if self.path == "/health" else self._reply(404, "not found")

    def do_POST(self) -> None:
        if self.path != self.server.path:
            return self._reply(404, "not found")
        try:
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                raise Refused(411, "a Content-Length is required") from None
            if not 0 <= length <= MAX_BODY:
                raise Refused(413, f"body over {MAX_BODY} bytes")
            delivery = self.server.verifier.check(self.headers, self.rfile.read(length))
        except Refused as e:
            self.server.note_refusal(self.client_address[0], e.status, str(e))
            return self._reply(e.status, str(e))
        try:
            status, text = self.server.handle(delivery)
        except Exception:   # the handler's bug must not become MLflow's retry storm: logged, answered 500 once
            log.exception("guard: handling delivery %s failed", delivery.delivery_id)
            status, text = 500, "internal error"
        self._reply(status, text)

    def _reply(self, status: int, text: str) -> None:
        data = json.dumps({"status": status, "message": text}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:   # noqa: A002 - the base class's name
        log.debug("guard http: " + format, *args)
