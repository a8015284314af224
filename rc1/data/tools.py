"""The two tools the policy may call: `wiki` (BM25 over an item's paragraphs) and `calc` (AST-whitelisted
arithmetic, never `eval`).

Both are plain typed functions with Google-style docstrings, because TRL's GRPOTrainer(tools=[...])
builds each tool's JSON schema from the signature and docstring. A tool never raises on bad input: the
model reads the result, so problems come back as a string starting with "error: ", which never quotes the
policy's input (an echo would put invented text into a tool turn, where it reads as grounded).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from typing import Any, Sequence

from rank_bm25 import BM25Okapi

TOOLS = ("wiki", "calc")

# ---------------------------------------------------------------- calc
MAX_EXPRESSION_CHARS = 400
MAX_EXPONENT = 64
MAX_ABS_VALUE = 1e18   # every number written, every intermediate and the result: |x| <= 1e18 and finite
MAX_NODES = 200

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class _CalcError(ValueError):
    pass


def _bounded(value: int | float, what: str) -> int | float:
    """Finite and within MAX_ABS_VALUE, else a _CalcError (1e999 is inf, 1e999-1e999 is nan)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _CalcError(f"{what} is not a finite number")
    if abs(value) > MAX_ABS_VALUE:
        raise _CalcError(f"{what} is too large (limit {MAX_ABS_VALUE:g})")
    return value


def _eval_node(node: ast.AST) -> int | float:
    if isinstance(node, ast.Expression):
        return _eval_node(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _bounded(node.value, "number")
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval_node(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval_node(node.left), _eval_node(node.right)
        if isinstance(node.op, ast.Pow):
            if abs(right) > MAX_EXPONENT:
                raise _CalcError(f"exponent is too large (limit {MAX_EXPONENT})")
            if abs(left) > 1 and abs(right) * math.log10(abs(left)) > math.log10(MAX_ABS_VALUE):
                raise _CalcError("result is too large")
            if left == 0 and right < 0:
                raise _CalcError("division by zero")
        try:
            value = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise _CalcError("division by zero") from None
        if isinstance(value, complex):
            raise _CalcError("result is not a real number")
        return _bounded(value, "result")
    # never quote the input: the policy's text must not come back as a tool result
    what = {ast.Name: "a name", ast.Call: "function call", ast.Attribute: "attribute access",
            ast.Constant: "a non-numeric constant"}.get(type(node), "this expression")
    raise _CalcError(f"{what} is not allowed (numbers, + - * / // % ** and parentheses only)")


def format_number(value: int | float) -> str:
    """12.0 -> '12', 0.1+0.2 -> '0.3': what a person would write down."""
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return f"{round(value, 10):.10g}"
    return str(value)


def calc(expression: str) -> str:
    """Evaluate an arithmetic expression exactly as written.

    Args:
        expression: Numbers with + - * / // % ** and parentheses, for example "(48 / 2) + 48".

    Returns:
        The numeric result as text, or a message starting with "error:" when the expression is not allowed
        (more than 400 characters, names or calls, numbers or results beyond 1e18 in size, or not finite).
    """
    if not isinstance(expression, str) or not expression.strip():
        return "error: empty expression"
    text = expression.strip().replace("×", "*").replace("÷", "/").replace("−", "-")
    if len(text) > MAX_EXPRESSION_CHARS:
        return f"error: expression longer than {MAX_EXPRESSION_CHARS} characters"
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return "error: cannot parse the expression as arithmetic"
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        return "error: expression too complex"
    try:
        return format_number(_eval_node(tree))
    except (_CalcError, OverflowError, ValueError) as e:
        return f"error: {e}"


# ---------------------------------------------------------------- wiki
MAX_QUERY_CHARS = 500   # a longer query is refused before it is tokenized (a 5M-character query took 20 s)
_TOKEN = re.compile(r"\w+", re.UNICODE)


def bm25_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class WikiIndex:
    """BM25 (Okapi) over the paragraphs of one item's HotpotQA-style context [[title, [sentences]], ...]."""

    def __init__(self, context: Sequence[Sequence[Any]]):
        self.paragraphs: list[tuple[str, str]] = []
        for entry in context or []:
            title, sentences = entry[0], entry[1]
            text = "".join(sentences) if isinstance(sentences, (list, tuple)) else str(sentences)
            self.paragraphs.append((str(title), text.strip()))
        corpus = [bm25_tokens(f"{t} {p}") or ["_"] for t, p in self.paragraphs]
        self._vocab = [set(doc) for doc in corpus]
        self._bm25 = BM25Okapi(corpus) if corpus else None

    def rank(self, query: str) -> list[int]:
        """Paragraph indices, best first.

        Okapi's idf is zero for a term in half the paragraphs, so on tiny contexts every score can tie;
        ties then go to the paragraph sharing more query terms, then to context order.
        """
        if self._bm25 is None:
            return []
        q = bm25_tokens(query)
        scores = self._bm25.get_scores(q)
        overlap = [sum(t in vocab for t in set(q)) for vocab in self._vocab]
        return sorted(range(len(self.paragraphs)), key=lambda i: (-round(float(scores[i]), 9), -overlap[i], i))

    def search(self, query: str, k: int = 2) -> str:
        if isinstance(query, str) and len(query) > MAX_QUERY_CHARS:
            return f"error: query longer than {MAX_QUERY_CHARS} characters; use a few keywords"
        if not isinstance(query, str) or not bm25_tokens(query):
            return "error: empty query"
        if self._bm25 is None:
            return "error: no documents to search"
        top = self.rank(query)[: max(1, int(k))]
        return "\n".join(f"{self.paragraphs[i][0]}: {self.paragraphs[i][1]}" for i in top)


