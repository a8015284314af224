"""wiki and calc behave as the policy relies on: real answers, errors as text, and schemas TRL can read."""

from __future__ import annotations

import pytest
from transformers.utils import get_json_schema

from rc1.data.tools import TOOLS, WikiIndex, calc
from tool_calls import make_wiki_tool, run_tool

CONTEXT = [
    ["Marie Curie", ["Marie Curie was a physicist and chemist.", " She was born in Warsaw in 1867."]],
    ["Warsaw", ["Warsaw is the capital of Poland.", " It lies on the Vistula river."]],
    ["Pierre Curie", ["Pierre Curie was a French physicist.", " He shared the Nobel Prize in 1903."]],
    ["Vienna", ["Vienna is the capital of Austria.", " It lies on the Danube."]],
]


@pytest.mark.parametrize("expr, want", [
    ("48 / 2 + 48", "72"), ("(3 + 4) * 5", "35"), ("2 ** 10", "1024"), ("-3 // 2", "-2"),
    ("17 % 5", "2"), ("0.1 + 0.2", "0.3"), ("12 / 60 * 50", "10"), ("+7 - -3", "10"), ("7 / 2", "3.5"),
])
def test_calc_evaluates_arithmetic(expr, want):
    assert calc(expr) == want


@pytest.mark.parametrize("expr, why", [
    ("__import__('os').system('ls')", "not allowed"),
    ("x + 1", "a name is not allowed"),
    ("abs(-3)", "function call"),
    ("(1).real", "attribute access"),
    ("9 ** 9 ** 9", "too large"),
    ("10 ** 30", "too large"),
    ("1 / 0", "division by zero"),
    ("'a' * 3", "not allowed"),
    ("[1, 2]", "not allowed"),
    ("1 +", "cannot parse"),
    ("", "empty"),
    ("1+" * 300 + "1", "longer than"),
    ("1e999", "not a finite number"),
    ("1e999 - 1e999", "not a finite number"),
    ("-1e999 * 0", "not a finite number"),
    ("100000000000000000000 - 99999999999999999999", "too large"),   # numbers past 1e18, not only results
    ("1e17 * 100", "too large"),
])
def test_calc_refuses_with_an_error_string(expr, why):
    out = calc(expr)
    assert out.startswith("error:") and why in out


def test_wiki_finds_the_paragraph_that_answers():
    wiki = make_wiki_tool(CONTEXT)
    first = wiki("capital of Poland").splitlines()[0]
    assert first.startswith("Warsaw: Warsaw is the capital of Poland.")
    assert wiki("Nobel Prize physicist Pierre").splitlines()[0].startswith("Pierre Curie:")
    assert len(wiki("Danube").splitlines()) == 2  # k=2 paragraphs


def test_wiki_ranks_on_tiny_contexts_and_reports_errors():
    idx = WikiIndex([["A", ["Alpha is a city."]], ["B", ["Beta river flows."]]])
    assert idx.search("river", k=1) == "B: Beta river flows."
    assert idx.search("   ").startswith("error:")
    assert WikiIndex([]).search("anything").startswith("error:")


def test_tools_have_schemas_trl_can_build():
    wiki = make_wiki_tool(CONTEXT)
    assert wiki.__name__ == "wiki"
    for fn, arg in ((wiki, "query"), (calc, "expression")):
        schema = get_json_schema(fn)["function"]
        assert schema["name"] in TOOLS
        assert schema["parameters"]["required"] == [arg]
        assert schema["parameters"]["properties"][arg]["type"] == "string"


def test_run_tool_dispatches_and_never_raises():
    assert run_tool("calc", {"expression": "6*7"}, None) == "42"
    assert run_tool("wiki", {"query": "Vistula"}, CONTEXT).startswith("Warsaw:")
    assert run_tool("search", {"q": "x"}, CONTEXT).startswith("error: unknown tool")
    assert run_tool("calc", {"expr": "1"}, None).startswith("error:")
    assert run_tool("wiki", "Vistula", CONTEXT).startswith("error:")


def test_wiki_refuses_an_overlong_query():
    from rc1.data.tools import MAX_QUERY_CHARS

    out = WikiIndex(CONTEXT).search("Curie " * 1_000_000)
    assert out.startswith("error:") and str(MAX_QUERY_CHARS) in out
    assert run_tool("wiki", {"query": "x" * (MAX_QUERY_CHARS + 1)}, CONTEXT).startswith("error:")
    assert "Marie Curie" in WikiIndex(CONTEXT).search("Curie Warsaw " * 30)   # 360 characters: fine
