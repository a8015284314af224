"""No key in any artifact, table or message when the judge's reply echoes it, through the real commands: an endpoint
that quotes the Authorization header in a malformed (non-JSON) reply, and base URLs with user info (refused with
one line, exit 2, before any request is sent)."""

from __future__ import annotations

import base64
import logging
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from rc1_cli import run_cli

pytestmark = pytest.mark.timeout(240)

REPO = Path(__file__).resolve().parents[2]
GATES = str(REPO / "configs" / "gates.yaml")
KEY = "sk-live-ECHOED-0123456789abcdef"
# ... and the key's own characters inside the base64 of the header it rode in ("Bearer " + key: 7 bytes before it, so
# its bits start at character 10 of that base64 and end before the last 3 characters)
SPELLINGS = (KEY, KEY.lower(), quote(KEY, safe=""), base64.b64encode(KEY.encode()).decode().rstrip("="),
             base64.b64encode(f"Bearer {KEY}".encode()).decode()[10:-3])


@pytest.fixture
def echo_env(scorer_env, monkeypatch, fake_judge_server):
    monkeypatch.chdir(scorer_env)
    srv = fake_judge_server(echo_auth_reply=True)
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "echo",
                 "SCORER_API_KEY": KEY, "RUN_MODE": "prod", "SCORER_RATE": "200", "SCORER_BURST": "10"}.items():
        monkeypatch.setenv(k, v)
    return srv


def _leaks(root: Path) -> list[str]:
    """Files under root (MLflow store, artifacts, the judge cache and its sqlite tables) holding the key."""
    found = []
    for p in root.rglob("*"):
        if not p.is_file():
            continue
        data = p.read_bytes()
        if any(s.encode() in data for s in SPELLINGS):
            found.append(str(p))
    return found


def test_a_key_echoed_in_a_malformed_reply_reaches_no_artifact_table_or_message(echo_env, scorer_env, capsys,
                                                                                caplog):
    caplog.set_level(logging.DEBUG)
    assert run_cli(["probe-scorer", "--n", "2", "--live", "--gates", GATES]) == 2   # every reply malformed
    assert echo_env.stats()["requests"] > 0
    assert any(h.get("authorization") == f"Bearer {KEY}" for h in echo_env.headers)   # the key was sent, and echoed
    db = scorer_env / "cache" / "judge_cache.sqlite"
    with sqlite3.connect(db) as con:
        bad = con.execute("SELECT detail FROM bad").fetchall()
    assert bad and all("malformed reply" in d for (d,) in bad)          # the bad table holds the (redacted) reason
    assert any("***" in d for (d,) in bad)
    assert _leaks(scorer_env) == []
    assert any(p.name == "probe_results.json" for p in scorer_env.rglob("*"))   # the artifacts were searched
    out = capsys.readouterr()
    text = out.out + out.err + caplog.text
    assert not any(s in text for s in SPELLINGS)


def test_a_key_as_a_score_value_reaches_no_artifact_or_table(scorer_env, monkeypatch, fake_judge_server, capsys):
    from rc1.core.config import DIMENSIONS

    monkeypatch.chdir(scorer_env)
    srv = fake_judge_server(fixed_scores={**{d: 0.5 for d in DIMENSIONS}, "correctness": f"Bearer {KEY} " * 50})
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "echo",
                 "SCORER_API_KEY": KEY, "RUN_MODE": "prod", "SCORER_RATE": "200", "SCORER_BURST": "10"}.items():
        monkeypatch.setenv(k, v)
    assert run_cli(["probe-scorer", "--n", "1", "--live", "--gates", GATES]) == 2
    with sqlite3.connect(scorer_env / "cache" / "judge_cache.sqlite") as con:
        (detail,) = con.execute("SELECT detail FROM bad").fetchone()
    assert "correctness is not a number" in detail and len(detail) < 400
    assert _leaks(scorer_env) == []
    out = capsys.readouterr()
    assert not any(s in out.out + out.err for s in SPELLINGS)


@pytest.mark.parametrize("var,cmd", [
    ("SCORER_BASE_URL", ["shadow-run", "--n", "3", "--k", "1"]),
    ("RESPONDER_BASE_URL", ["shadow-run", "--n", "3", "--k", "1", "--responder", "endpoint",
                            "--responder-model", "m"]),
])
def test_user_info_in_a_base_url_is_refused_with_one_line(echo_env, monkeypatch, capsys, var, cmd):
    import shutil

    shutil.copytree(REPO / "configs", Path.cwd() / "configs")
    monkeypatch.setenv("RUN_MODE", "dev")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    host = echo_env.url.split("://", 1)[1]
    monkeypatch.setenv(var, f"http://user:{KEY}@{host}")
    assert run_cli(cmd) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "user info in the URL is refused" in err and var in err
    assert not any(s in err for s in SPELLINGS)
    assert echo_env.stats()["requests"] == 0


def test_a_responder_that_echoes_its_key_leaves_it_in_no_candidate_or_artifact(echo_env, scorer_env, monkeypatch,
                                                                               capsys):
    import shutil

    from rc1.core.io import write_jsonl
    from test_shadow_run_cli import shadow_records

    shutil.copytree(REPO / "configs", scorer_env / "configs")
    write_jsonl(scorer_env / "shadow.jsonl", shadow_records()[:3])
    for k, v in {"RUN_MODE": "dev", "REWARD_LIVE_MODE": "0", "SCORER_PROVIDER": "heuristic",
                 "RESPONDER_API_KEY": KEY, "RESPONDER_BASE_URL": echo_env.url}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("SCORER_API_KEY")
    run_cli(["shadow-run", "--shadow", "shadow.jsonl", "--k", "1", "--responder", "endpoint",
             "--responder-model", "echo", "--report", "out/shadow_run.json"])
    assert echo_env.stats()["requests"] > 0
    assert (scorer_env / "out" / "scored_candidates.jsonl").is_file()
    assert _leaks(scorer_env) == []
    out = capsys.readouterr()
    assert not any(s in out.out + out.err for s in SPELLINGS)


def test_a_key_in_the_base_url_query_is_sent_and_never_recorded(scorer_env, monkeypatch, fake_judge_server, capsys,
                                                                caplog):
    """Issue 29: SCORER_BASE_URL=...?code=<key> (Azure Functions style): the code goes with every request, and no
    tag, param, artifact, cache row or message holds it (URLs are recorded as scheme, host, port and path)."""
    import mlflow

    code = "AzFnCode-0123456789abcdefXYZ"
    monkeypatch.chdir(scorer_env)
    srv = fake_judge_server()
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": f"{srv.url}?code={code}#frag",
                 "SCORER_MODEL": "m", "SCORER_API_KEY": KEY, "RUN_MODE": "prod", "SCORER_RATE": "200",
                 "SCORER_BURST": "10"}.items():
        monkeypatch.setenv(k, v)
    caplog.set_level(logging.DEBUG)
    assert run_cli(["probe-scorer", "--n", "1", "--live", "--gates", GATES]) == 0
    assert srv.queries and all(q == f"code={code}" for q in srv.queries)   # sent with each request
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                filter_string="tags.`rc1.stage` = 'probe_scorer'")
    assert run.data.tags["scorer.base_url"] == srv.url
    leaks = [str(p) for p in scorer_env.rglob("*") if p.is_file() and code.encode() in p.read_bytes()]
    assert leaks == []
    out = capsys.readouterr()
    assert code not in out.out + out.err + caplog.text
