"""Secrets stay out of errors, the cache and logged params: any case, URL-encoded, base64; URLs lose
user info and key-like query parameters; the endpoint responder uses the same redaction."""

import base64
import sqlite3
from urllib.parse import quote

import pytest

from rc1.core.errors import Rc1Error
from rc1.core.redaction import redact, safe_url, scrub
from rc1.scoring.base import JudgeRequest
from rc1.scoring.cache import JudgeCache
from rc1.scoring.judge import JudgeUnavailable, make_judge
from rc1.scoring.judge_settings import JudgeSettings

pytestmark = pytest.mark.timeout(60)

KEY = "sk-Test+Key/42=abc"


def spellings(key):
    """Every encoding rc1 can derive (issue 37): plain, any case, URL-encoded, base64 (alone or inside a longer text's),
    reversed, spaced, hex."""
    return [key, key.upper(), key.lower(), quote(key, safe=""), quote(key, safe="").lower(),
            base64.b64encode(key.encode()).decode(), base64.urlsafe_b64encode(key.encode()).decode().rstrip("="),
            key[::-1], " ".join(key), key.encode().hex(), key.encode().hex().upper(), ".".join(key[::-1]),
            # inside the base64 of a longer text, at each of the three offsets into a 3-byte group
            *(base64.b64encode(f"{pre}{key}\r\n".encode()).decode() for pre in ("Bearer ", "x", "xy"))]


def test_redact_every_spelling():
    text = " | ".join(spellings(KEY))
    out = redact(text, KEY)
    for s in spellings(KEY):
        assert s not in out
    assert out.count("***") == len(spellings(KEY))
    assert redact("abc", "ab") == "abc"   # too short to be a key: ordinary text stays


def test_safe_url_keeps_scheme_host_port_and_path_only():
    url = "https://user:pw@api.example.com:8443/v1?api_key=SECRET&x-goog-api-key=S2&token=T&sig=G&region=eu#frag"
    assert safe_url(url) == "https://api.example.com:8443/v1"
    azure = "https://fn.azurewebsites.net/api/judge"
    assert safe_url(f"{azure}?code=abc123XYZ==") == azure
    assert safe_url("postgresql://rc1:hunter2@db:5432/mlflow") == "postgresql://db:5432/mlflow"
    text = "cannot reach http://u:p@h/v1?key=abc and postgresql://a:b@db/x"
    assert scrub(text) == "cannot reach http://h/v1 and postgresql://db/x"


def test_store_uris_keep_their_slashes():
    """An empty authority stays: sqlite:/// + a relative path, sqlite://// + an absolute one (a printed hint is pasted
    as it reads)."""
    for uri in ("sqlite:///mlruns/mlflow.db", "sqlite:////tmp/x/mlruns/mlflow.db", "file:///srv/rc1-artifacts"):
        assert safe_url(uri) == uri and scrub(f"no preflight in {uri}; run it") == f"no preflight in {uri}; run it"


def test_a_server_echoing_the_key_never_gets_it_into_results_or_the_cache(fake_judge_server, tmp_path):
    srv = fake_judge_server(reject_all_keys=True, echo_key=True)
    cache = JudgeCache(tmp_path / "c.sqlite")
    judge = make_judge("openai-compatible", "m", base_url=srv.url, api_key=KEY, cache=cache,
                       settings=JudgeSettings(samples=1, timeout_s=30))
    req = JudgeRequest(item_id="i", candidate_id="c", task="gsm8k", question="q", gold_answer="1",
                       needs_clarification=False, dialogue=({"role": "assistant", "content": "1"},))
    with pytest.raises(JudgeUnavailable) as e:   # the endpoint refuses every call: the judge phase ends
        judge.score_many([req], progress=False)
    (res,) = e.value.results
    assert res.failed and "***" in res.error and KEY not in str(e.value)
    cache.close()
    dump = "\n".join(sqlite3.connect(tmp_path / "c.sqlite").iterdump())
    assert "Incorrect API key" in dump
    for s in spellings(KEY):
        assert s not in res.error and s not in dump


def test_endpoint_responder_redacts_its_key_and_url(fake_judge_server, monkeypatch):
    from rc1.scoring.responder import EndpointResponder

    srv = fake_judge_server(reject_all_keys=True, echo_key=True)
    monkeypatch.setenv("RESPONDER_API_KEY", KEY)
    with pytest.raises(Rc1Error, match="user info in the URL is refused") as e:   # it would be sent as Basic auth
        EndpointResponder(base_url=srv.url.replace("http://", "http://me:pw@"), model="m", k=1)
    assert "pw" not in str(e.value)
    logged = EndpointResponder(base_url=srv.url + "?api_key=" + quote(KEY), model="m", k=1)
    assert logged.describe()["base_url"] == srv.url
    r = EndpointResponder(base_url=srv.url, model="m", k=1, timeout_s=30)
    with pytest.raises(Rc1Error) as e:
        r.generate([{"role": "user", "content": "hi"}], 0)
    msg = str(e.value)
    assert "Incorrect API key" in msg and "pw@" not in msg
    for s in spellings(KEY):
        assert s not in msg


def test_ui_links_and_hints_carry_no_tracking_credentials():
    """Review: the UI link rc1 prints and writes into the RC1 report (an artifact) is built from the tracking URI; a
    server's user info or token and a database's password stay out of it."""
    import mlflow

    from rc1.tracking.ui import ui_hint, ui_url

    try:
        mlflow.set_tracking_uri("https://alice:s3cret@mlflow.example.com:8443/base?token=t0ken")
        link = ui_url(experiment_id="7")
        assert link.startswith("https://mlflow.example.com:8443/base/#/experiments/7/runs?"), link
        mlflow.set_tracking_uri("postgresql://alice:s3cret@db.example.com:5432/mlflow")
        assert "s3cret" not in ui_hint() and "postgresql://db.example.com:5432/mlflow" in ui_hint()
    finally:
        mlflow.set_tracking_uri(None)
