"""The judge's HTTP client, bounded: what a hostile or broken endpoint can make one call cost.

- An overall deadline per call, connect + every read and write + the whole body: the HTTP client's own read timeout
  restarts on every byte, so a reply dripping one byte a second would outlive it. Each socket operation here gets
  what is left of the call's deadline (the SDK's per-call timeout), and one past it is a read timeout.
- A byte cap on the body, raw and decompressed: gzip and deflate are decoded here, at most `max_bytes` of output
  (zlib's max_length), so a 1 MB body that inflates to 1 GiB costs 1 MB of reading and `max_bytes` of memory. Other
  encodings are not asked for and refused. Past the cap the call ends with ReplyRefused.
- Redirects are followed only to the configured scheme, host and port; one elsewhere is ReplyRefused (the SDK's own
  client follows any).

Built on the same HTTP library the openai SDK uses (httpx2/httpcore2, or httpx/httpcore with older SDKs), through
their public transport and network-backend interfaces.
"""

from __future__ import annotations

import threading
import time
import zlib
from typing import Iterator

try:   # the openai SDK >= 3 talks through httpx2; older ones through httpx (the same interfaces)
    import httpcore2 as httpcore
    import httpx2 as httpx
except ImportError:   # pragma: no cover - depends on the installed SDK
    import httpcore  # type: ignore[no-redef]
    import httpx  # type: ignore[no-redef]

ENCODINGS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS}
CHUNK = 64 * 1024


class ReplyRefused(Exception):
    """The endpoint's reply was refused unread (too large, an unknown encoding): a bad reply, not a network failure to
    retry."""


class OffHostRedirect(ReplyRefused):
    """The endpoint redirected the call to another scheme, host or port: not followed."""


_deadline = threading.local()   # this thread's call: the monotonic time its deadline falls, the bytes it received


def bytes_seen() -> int:
    """Bytes this thread's latest call received (status line, headers, body): 0 for a server still computing its
    reply when the call timed out, more for one that answers too slowly (a dripping reply)."""
    return getattr(_deadline, "seen", 0)


def _left(timeout: float | None) -> float | None:
    """What one socket operation may wait: its own timeout, at most what is left of the call's deadline."""
    end = getattr(_deadline, "at", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the call's overall deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = self._inner.read(max_bytes, _left(timeout))
        _deadline.seen = bytes_seen() + len(data)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self):
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return _Stream(self._inner.connect_tcp(host, port, _left(timeout), local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return _Stream(self._inner.connect_unix_socket(path, _left(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


_EXCEPTIONS = [(getattr(httpcore, n), getattr(httpx, n)) for n in (
    "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException", "ConnectError", "ReadError",
    "WriteError", "NetworkError", "RemoteProtocolError", "LocalProtocolError", "ProtocolError", "UnsupportedProtocol",
    "ProxyError")]


def _mapped(e: Exception) -> Exception:
    """The HTTP client's exception for a transport-level one (the most specific first), for the SDK to type."""
    for low, high in _EXCEPTIONS:
        if isinstance(e, low):
            return high(str(e))
    return e


class _Body(httpx.SyncByteStream):
    """The body as the caller reads it: decoded, capped, and ended at the call's deadline."""

    def __init__(self, raw, encoding: str | None, max_bytes: int, deadline: float):
        self._raw, self._max, self._deadline = raw, max_bytes, deadline
        self._z = zlib.decompressobj(ENCODINGS[encoding]) if encoding else None

    def _chunks(self) -> Iterator[bytes]:
        _deadline.at = self._deadline    # the body may be read after handle_request returned (a streamed reply)
        try:
            yield from self._raw
        except Exception as e:
            raise _mapped(e) from e
        finally:
            _deadline.at = None

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._decoded()
        except zlib.error as e:
            raise ReplyRefused(f"reply body does not decode as its content-encoding says ({e})") from None

    def _decoded(self) -> Iterator[bytes]:
        got = raw = 0
        for chunk in self._chunks():
            raw += len(chunk)
            if raw > self._max:
                raise ReplyRefused(f"reply body over {self._max} bytes: refused unread")
            if self._z is None:
                got += len(chunk)
                yield chunk
                continue
            data = chunk
            while data:
                out = self._z.decompress(data, self._max + 1 - got)   # never more than one byte past the cap
                got += len(out)
                if got > self._max:
                    raise ReplyRefused(f"reply body inflates past {self._max} bytes: refused unread")
                if out:
                    yield out
                data = self._z.unconsumed_tail
        if self._z is not None:
            tail = self._z.flush(self._max + 1 - got)
            if got + len(tail) > self._max:
                raise ReplyRefused(f"reply body inflates past {self._max} bytes: refused unread")
            if tail:
                yield tail

    def close(self) -> None:
        if hasattr(self._raw, "close"):
            self._raw.close()


class BoundedTransport(httpx.BaseTransport):
    """httpx transport with an overall deadline per request (the largest of its timeouts) and a body cap."""

    def __init__(self, max_bytes: int, max_connections: int = 64):
        self.max_bytes = max_bytes
        self._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(), network_backend=_Backend(),
                                             max_connections=max_connections,
                                             max_keepalive_connections=max_connections, keepalive_expiry=5.0)

    def handle_request(self, request):
        limits = [v for v in (request.extensions.get("timeout") or {}).values() if v]
        deadline = time.monotonic() + (max(limits) if limits else 600.0)
        headers = [(k, v) for k, v in request.headers.raw if k.lower() != b"accept-encoding"]
        headers.append((b"Accept-Encoding", b"gzip, deflate"))
        req = httpcore.Request(method=request.method, url=httpcore.URL(
            scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
            target=request.url.raw_path), headers=headers, content=request.stream, extensions=request.extensions)
        _deadline.at, _deadline.seen = deadline, 0
        try:
            resp = self._pool.handle_request(req)
        except Exception as e:
            raise _mapped(e) from e
        finally:
            _deadline.at = None
        enc = next((v.decode("latin-1").strip().lower() for k, v in resp.headers if k.lower() == b"content-encoding"),
                   "")
        encoding = None if enc in ("", "identity") else enc
        if encoding is not None and encoding not in ENCODINGS:
            resp.close()
            raise ReplyRefused(f"reply in content-encoding {encoding!r}, which was not asked for: refused")
        # decoded here, so the encoding goes (and with it the length the server sent: the compressed one)
        dropped = (b"content-encoding", b"content-length") if encoding else (b"content-encoding",)
        out_headers = [(k, v) for k, v in resp.headers if k.lower() not in dropped]
        return httpx.Response(status_code=resp.status, headers=out_headers,
                              stream=_Body(resp.stream, encoding, self.max_bytes, deadline), extensions=resp.extensions)

    def close(self) -> None:
        self._pool.close()


def same_origin_only(base_url: str):
    """An httpx request hook: a request (a redirect) to another scheme, host or port than `base_url`'s is refused."""
    origin = httpx.URL(base_url)
    want = (origin.scheme, origin.host, origin.port)

    def check(request) -> None:
        got = (request.url.scheme, request.url.host, request.url.port)
        if got != want:
            raise OffHostRedirect(f"redirect to {request.url.scheme}://{request.url.host}"
                               f"{':' + str(request.url.port) if request.url.port else ''} refused: only "
                               f"{origin.scheme}://{origin.host} is the configured endpoint")
    return check


def bounded_client(base_url: str, max_bytes: int, max_connections: int = 64):
    """The httpx client a judge provider hands the openai SDK."""
    return httpx.Client(transport=BoundedTransport(max_bytes, max_connections), follow_redirects=True,
                        event_hooks={"request": [same_origin_only(base_url)], "response": []})
