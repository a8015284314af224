"""Keeping credentials out of logs, params, tags, artifacts and error messages: `redact` masks secrets, `safe_url`
keeps of a URL only its scheme, host, port and path (no user info, no query string, no fragment: a key rides in a
query as often as not, `?code=` of Azure Functions, `?key=`, signed URLs, under any name), `scrub` does both (with the
API keys rc1 reads) to an error message before it is printed or stored."""

from __future__ import annotations

import base64
import os
import re
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit, urlunsplit

from rc1.core.settings import JUDGE_KEY_VAR

SECRET_ENV_VARS = (JUDGE_KEY_VAR, "RESPONDER_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY",
                   "RC1_GUARD_SECRET")
MASK = "***"
_KEYLIKE = re.compile(r"(^|[-_.])(key|apikey|api[-_]?key|token|access[-_]?token|secret|password|passwd|pwd|"
                      r"sig|signature|auth|authorization|credential|credentials|session)$", re.IGNORECASE)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>`]+")


def _b64_cores(raw: bytes) -> set[str]:
    """The base64 characters (standard and URL-safe) that `raw` alone decides wherever it sits in an encoded text: a
    secret inside the base64 of a longer text (`Bearer <key>`, a request dump) starts 0, 1 or 2 bytes into a 3-byte
    group, and only its first and last characters depend on its neighbours."""
    out = set()
    for offset in range(3):
        start, end = -(-8 * offset // 6), 8 * (offset + len(raw)) // 6   # the characters whose 6 bits are all raw's
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            out.add(enc(bytes(offset) + raw).decode()[start:end])
    return out


def _forms(secret: str) -> set[str]:
    """Every encoding of `secret` rc1 can derive: as is, reversed, URL-encoded, base64 (standard and URL-safe, with
    and without padding, and inside the base64 of a longer text) and hex, of the secret and of its reverse."""
    forms: set[str] = set()
    for s in (secret, secret[::-1]):
        raw = s.encode("utf-8")
        forms |= {s, quote(s, safe=""), quote_plus(s, safe=""), raw.hex()} | _b64_cores(raw)
        for enc in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
            forms |= {enc, enc.rstrip("=")}
    return {f for f in forms if len(f) >= 4}


# what may stand between the letters of a spelled-out secret ("s k - 1 2", "s.k.-.1", "s\u200bk"): whitespace, a
# zero-width character, or one punctuation mark between each pair
_GAP = r"(?:[\s\u200b-\u200d\u2060\ufeff]+|[\s\u200b-\u200d\u2060\ufeff]*[-_.,:;|/\\*][\s\u200b-\u200d\u2060\ufeff]*)?"


def _spelled(form: str) -> str:
    """A pattern for `form` as written, or with a gap (_GAP) between its characters."""
    return _GAP.join(re.escape(c) for c in form)


def redact(text: str, *secrets: str | None) -> str:
    """`text` with every secret replaced by ***: in any letter case, reversed, URL-encoded, base64, hex, and spelled
    out with spaces, zero-width characters or punctuation between its letters; secrets shorter than 4 characters are
    left alone (they would blank out ordinary text)."""
    if not text:
        return text
    forms: set[str] = set()
    for s in secrets:
        if s and len(s) >= 4:
            forms |= _forms(s)
    if not forms:
        return text
    # longest first so a form that contains another is masked whole; base64 is case-sensitive in
    # principle, but a case-insensitive match only masks more
    pattern = "|".join(_spelled(f) for f in sorted(forms, key=len, reverse=True))
    return re.sub(pattern, MASK, text, flags=re.IGNORECASE)


def known_secrets() -> list[str]:
    """The values of the API key variables rc1 reads (SECRET_ENV_VARS)."""
    return [v.strip() for v in (os.environ.get(name, "") for name in SECRET_ENV_VARS) if v and v.strip()]


def safe_url(url: str) -> str:
    """scheme://host:port/path of the URL: user info, the query string and the fragment dropped, whatever they hold
    (what is recorded, logged or cached of an endpoint)."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
        if not parts.netloc:   # no host, so no user info either (sqlite:////abs/path, file:///...): as written
            return url.split("#", 1)[0].split("?", 1)[0]
        host = parts.hostname or ""
        if ":" in host:   # IPv6
            host = f"[{host}]"
        if parts.port:
            host = f"{host}:{parts.port}"
    except ValueError:    # unparseable port or bracket: keep nothing that could be a credential
        return MASK
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def query_values(url: str | None) -> list[str]:
    """The values of a URL's query parameters (what an error message echoing the URL must not show)."""
    try:
        return [v for _, v in parse_qsl(urlsplit(url or "").query, keep_blank_values=True) if v]
    except ValueError:
        return []


def has_credentials(url: str) -> bool:
    """Whether the URL carries user info or a key-like query parameter (what safe_url removes)."""
    try:
        parts = urlsplit(url)
        userinfo = parts.username is not None or parts.password is not None
    except ValueError:
        return True
    return userinfo or any(_KEYLIKE.search(k) for k, _ in parse_qsl(parts.query, keep_blank_values=True))


def refuse_userinfo(url: str | None, what: str) -> None:
    """A base URL with user info (http://user:pass@host/...) is refused, naming `what` (the variable or option):
    the HTTP client would send it as Basic auth in place of the key, and every place the URL is shown would have to
    drop it. The key belongs in the key variable."""
    if not url:
        return
    try:
        parts = urlsplit(url)
        userinfo = parts.username is not None or parts.password is not None
    except ValueError:
        userinfo = "@" in url.split("//", 1)[-1].split("/", 1)[0]
    if userinfo:
        from rc1.core.errors import Rc1Error

        raise Rc1Error(f"{what}={safe_url(url)!r}: user info in the URL is refused; put the key in the key variable")


def redact_urls(text: str) -> str:
    """Every URL in `text` through safe_url."""
    return _URL.sub(lambda m: safe_url(m.group(0)), text) if text and "://" in text else text


def scrub(text: str, *secrets: str | None) -> str:
    """What an error message goes through before it is printed, logged or stored."""
    return redact(redact_urls(text), *secrets, *known_secrets())
