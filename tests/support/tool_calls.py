"""Calling rc1's tools by name, as the tests do (rc1's own rollouts call them through rc1.train.env)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from rc1.data.tools import TOOLS, WikiIndex, calc


def make_wiki_tool(context: Sequence[Sequence[Any]], k: int = 2) -> Callable[[str], str]:
    """A `wiki(query)` tool bound to one item's paragraphs."""
    index = WikiIndex(context)

    def wiki(query: str) -> str:
        """Search the encyclopedia paragraphs available for this question.

        Args:
            query: A few keywords naming the entity or fact to look up.

        Returns:
            The best matching paragraphs, one per line, each as "title: text".
        """
        return index.search(query, k=k)

    return wiki


def run_tool(name: str, arguments: dict, context: Sequence[Sequence[Any]] | None = None,
             index: WikiIndex | None = None) -> str:
    """Run tool `name` with JSON `arguments` as the policy would; problems come back as 'error: ...'."""
    if not isinstance(arguments, dict):
        return "error: arguments must be a JSON object"
    if name == "calc":
        expr = arguments.get("expression")
        return calc(expr) if isinstance(expr, str) else "error: calc needs {\"expression\": str}"
    if name == "wiki":
        query = arguments.get("query")
        if not isinstance(query, str):
            return "error: wiki needs {\"query\": str}"
        return (index or WikiIndex(context or [])).search(query)
    return f"error: unknown tool; available: {', '.join(TOOLS)}"
