"""Candidates to score: K candidate dialogues per shadow item.

Kinds (the kind is tagged `rc1.responder` on every run that used it):
- `reference` (dev mode): contrastive variants built from the gold data, deterministic for a seed. Per item:
    correct                 tools where they help, reasoning grounded in the evidence, the gold answer
    wrong_answer            same shape, a plausible wrong answer (a distractor title, the flipped yes/no,
                            a nearby number)
    needless_clarification  asks 1-3 questions the item does not need, then the correct answer
                            (items that need clarification: asks the needed question plus needless ones)
    missing_clarification   answers without asking although the item needs it (a stated guess; sometimes
                            lucky, so correctness and success disagree); items that do not need it get
                            `bare_answer` instead: the right answer with no reasoning, tools or grounding
    no_tool                 the correct answer from memory, no tool calls
    verbose                 correct, but padded, repetitive and long
  K > 6 repeats the kinds with other phrasings (kind suffix "#2", ...).
- `model`: a local transformers model directory, chat template, sampled; clarifying questions are answered
  with the item's hidden_info like the training environment does.
- `endpoint`: an OpenAI-compatible chat endpoint (openai SDK, base_url), the same episode loop.

Dialogue conventions follow rc1.scoring.dialogue: the item's prefix (system + user) and then the episode.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from rc1.scoring.answers import extract_number, final_answer, gold_yes_no, is_correct, normalize_answer
from rc1.scoring.dialogue import analyze
from rc1.core.errors import Rc1Error
from rc1.core.redaction import known_secrets, redact, refuse_userinfo, safe_url, scrub
from rc1.core.records import pool_item_difficulty
from rc1.data.tools import WikiIndex, calc, format_number
from rc1.difficulty.bucket import item_difficulties

RESPONDER_KINDS = ("reference", "model", "endpoint")
SYSTEM_PROMPT = ("You are a careful assistant. Ask a short clarifying question only when the question lacks "
                 "information you need. Use the tools wiki(query) and calc(expression) when they help. "
                 "End with a line 'Answer: <answer>'.")
NO_INFO_REPLY = "There is nothing more to add; please answer the question as asked."


# ---------------------------------------------------------------- items
@dataclass(frozen=True)
class ShadowItem:
    id: str
    task: str
    question: str                       # what the user finally asked (the last user turn of the prefix)
    answer: str
    prefix: tuple[dict, ...]            # the dialogue before the episode (system + user)
    needs_clarification: bool = False
    hidden_info: str | None = None
    context: tuple = ()
    supporting_facts: tuple = ()
    facts: tuple[str, ...] = ()
    decomposition: tuple[str, ...] = ()
    expected_tool_calls: tuple[dict, ...] = ()
    difficulty: str | None = None

    @classmethod
    def from_record(cls, rec: Mapping[str, Any], difficulty: str | None = None) -> "ShadowItem":
        """From a PoolItem record (has `dialogue`) or a normalized Task record (question only)."""
        try:
            if rec.get("dialogue"):
                prefix = tuple(dict(t) for t in rec["dialogue"])
                users = [t["content"] for t in prefix if t.get("role") == "user"]
                question = users[-1] if users else str(rec.get("question", ""))
            else:
                question = str(rec["question"])
                prefix = ({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question})
            return cls(
                id=str(rec["id"]), task=str(rec["task"]), question=question, answer=str(rec["answer"]),
                prefix=prefix, needs_clarification=bool(rec.get("needs_clarification", False)),
                hidden_info=rec.get("hidden_info"), context=tuple(rec.get("context") or ()),
                supporting_facts=tuple(tuple(sf) for sf in rec.get("supporting_facts") or ()),
                facts=tuple(rec.get("facts") or ()), decomposition=tuple(rec.get("decomposition") or ()),
                expected_tool_calls=tuple(rec.get("expected_tool_calls") or ()),
                difficulty=difficulty if difficulty is not None else pool_item_difficulty(rec, fallback=None),
            )
        except KeyError as e:
            raise Rc1Error(f"shadow item {rec.get('id', '?')}: missing key {e}") from None

    def as_pool_item(self) -> dict[str, Any]:
        """The pool-item-shaped mapping rc1.scoring.reward.judge_request and rc1.difficulty expect."""
        return {"id": self.id, "task": self.task, "dialogue": [dict(t) for t in self.prefix], "answer": self.answer,
                "needs_clarification": self.needs_clarification, "hidden_info": self.hidden_info,
                "context": [list(c) if isinstance(c, tuple) else c for c in self.context],
                "supporting_facts": [list(sf) for sf in self.supporting_facts], "facts": list(self.facts),
                "decomposition": list(self.decomposition),
                "expected_tool_calls": [dict(c) for c in self.expected_tool_calls], "difficulty": self.difficulty}


@dataclass(frozen=True)
class Candidate:
    item_id: str
    candidate_id: str
    kind: str                           # variant name (reference) or "sample" (model / endpoint)
    dialogue: tuple[dict, ...]          # prefix + episode
    prefix_len: int
    meta: dict = field(default_factory=dict)


# ---------------------------------------------------------------- evidence from the gold data
_EXPR = re.compile(r"(\(?-?\d[\d,]*(?:\.\d+)?\)?(?:\s*[-+*/x×]\s*\(?-?\d[\d,]*(?:\.\d+)?\)?)+)\s*=\s*\$?\s*(-?\d[\d,]*(?:\.\d+)?)")


def _sentences(item: ShadowItem) -> list[tuple[str, str]]:
    """(source title, sentence) pairs that support the answer."""
    paragraphs = {str(c[0]): list(c[1]) if isinstance(c[1], (list, tuple)) else [str(c[1])] for c in item.context}
    out = []
    for title, idx in item.supporting_facts:
        sents = paragraphs.get(title, [])
        if 0 <= int(idx) < len(sents):
            out.append((title, sents[int(idx)].strip()))
    if not out and paragraphs and item.task == "hotpotqa":
        index = WikiIndex(item.context)
        for i in index.rank(item.question)[:2]:
            title, text = index.paragraphs[i]
            out.append((title, text.split(". ")[0].strip()))
    if not out:
        out = [("", f.strip()) for f in item.facts if f.strip()]
    return out


def calculations(item: ShadowItem) -> list[tuple[str, str]]:
    """(expression, result) for the arithmetic of a GSM8K-style solution, each checked with calc()."""
    pairs = []
    for call in item.expected_tool_calls:
        expr = (call.get("arguments") or {}).get("expression") if call.get("name") == "calc" else None
        if expr:
            result = calc(expr)
            if not result.startswith("error"):
                pairs.append((expr, result))
    if pairs:
        return pairs
    for step in item.decomposition:
        for expr, value in _EXPR.findall(step):
            expr = expr.replace("×", "*").replace("x", "*").replace(",", "")
            result = calc(expr)
            if not result.startswith("error") and extract_number(result) == extract_number(value.replace(",", "")):
                pairs.append((expr.strip(), result))
    return pairs


def _wiki_queries(item: ShadowItem) -> list[str]:
    queries = [c["arguments"]["query"] for c in item.expected_tool_calls
               if c.get("name") == "wiki" and isinstance((c.get("arguments") or {}).get("query"), str)]
    if not queries:
        queries = list(dict.fromkeys(t for t, _ in item.supporting_facts))
    if not queries and item.context:
        queries = [item.question]
    return queries[:2]


def wrong_answer(item: ShadowItem, rng: random.Random) -> str:
    """A plausible wrong answer that rc1.scoring.answers.is_correct rejects."""
    yn = gold_yes_no(item.answer) if item.task != "gsm8k" else None
    if yn in ("yes", "no"):  # StrategyQA, and HotpotQA comparison questions
        return "no" if yn == "yes" else "yes"
    if item.task == "gsm8k":
        gold = extract_number(item.answer) or 0.0
        for delta in rng.sample([1, 2, 3, 5, 10, -1, -2, 4], 8):
            cand = gold * 2 if delta == 4 and gold else gold + delta
            text = format_number(round(cand, 6))
            if not is_correct("gsm8k", text, item.answer):
                return text
        return format_number(gold + 7)
    titles = [str(c[0]) for c in item.context if not is_correct(item.task, str(c[0]), item.answer)
              and normalize_answer(item.answer) not in normalize_answer(str(c[0]))]
    if titles:
        return rng.choice(sorted(titles))
    words = [w for w in re.findall(r"[A-Z][a-z]+", item.question)]
    return rng.choice(words) if words else "unknown"


# ---------------------------------------------------------------- phrasing
_OPEN = ["Let me work through this.", "Here is how I get there.", "Let's reason it out step by step.",
         "I'll check the facts first."]
_NEEDLESS = [
    ("Just to be sure: do you want only the final answer, or the full working as well?",
     "Either is fine, just answer the question."),
    ("Before I start, should I read the question exactly as written?", "Yes, exactly as written."),
    ("Do you want me to double-check with a source before answering?", "Whatever you think is right."),
    ("Could you confirm which part of the question matters most to you?", "All of it; it is one question."),
]
_NEEDED = ["The question leaves out a detail I need. Could you tell me what is missing?",
           "Before I answer, I need one more piece of information that the question does not give. What is it?",
           "I can't answer this reliably yet: something needed is missing. Could you fill it in?"]
_PADDING = [
    "It is worth restating the question carefully so that nothing is overlooked.",
    "There are several ways to think about a question like this, and it pays to consider each of them.",
    "To be thorough, I will go over the same reasoning once more from the beginning.",
    "As mentioned above, the key facts are the ones listed, and they point in the same direction.",
    "In general, questions of this kind reward patience and a careful reading of every detail.",
    "I want to be completely transparent about every step of my thinking here.",
]


def _tool_turns(item: ShadowItem) -> list[dict]:
    """Assistant tool calls and the tools' replies (the tools are run for real)."""
    turns: list[dict] = []
    if item.task == "gsm8k":
        for expr, result in calculations(item)[:4]:
            turns += [{"role": "assistant", "content": "", "tool_calls": [{"name": "calc", "arguments": {"expression": expr}}]},
                      {"role": "tool", "name": "calc", "content": calc(expr)}]
    elif item.context:
        index = WikiIndex(item.context)
        for q in _wiki_queries(item):
            turns += [{"role": "assistant", "content": "", "tool_calls": [{"name": "wiki", "arguments": {"query": q}}]},
                      {"role": "tool", "name": "wiki", "content": index.search(q)}]
    return turns


def _reasoning(item: ShadowItem, rng: random.Random, answer: str, grounded: bool = True) -> list[str]:
    lines = [rng.choice(_OPEN)]
    if item.task == "gsm8k":
        steps = list(item.decomposition) or [f"{e} = {r}" for e, r in calculations(item)]
        lines += steps if grounded else [s.split("=")[0].strip() + " ..." for s in steps[:1]]
    else:
        for title, sent in _sentences(item)[:3]:
            if grounded:
                lines.append(f"According to {title}, {sent}" if title else sent)
            else:
                lines.append("From what I remember, this is well known.")
                break
        if item.task == "strategyqa" and item.decomposition and grounded:
            lines.append("The question breaks down into: " + " ".join(item.decomposition[:3]))
    lines.append(f"So the answer is {answer}.")
    return lines


def _final(lines: Sequence[str], answer: str) -> dict:
    return {"role": "assistant", "content": "\n".join([*lines, f"Answer: {answer}"])}


def _ask(question: str, reply: str) -> list[dict]:
    return [{"role": "assistant", "content": question}, {"role": "user", "content": reply}]


def _needed_exchange(item: ShadowItem, rng: random.Random) -> list[dict]:
    return _ask(rng.choice(_NEEDED), item.hidden_info or NO_INFO_REPLY)


def reference_variants(item: ShadowItem, seed: int) -> list[tuple[str, list[dict]]]:
    """The six contrastive episodes (without the prefix), in a fixed order, deterministic for (item, seed)."""
    def rng(kind: str) -> random.Random:
        return random.Random(f"{seed}:{item.id}:{kind}")

    gold = item.answer if item.task != "strategyqa" else gold_yes_no(item.answer)
    need = item.needs_clarification
    out: list[tuple[str, list[dict]]] = []

    r = rng("correct")
    tools = _tool_turns(item)
    ask = _needed_exchange(item, r) if need else []
    out.append(("correct", ask + tools + [_final(_reasoning(item, r, gold), gold)]))

    r = rng("wrong_answer")
    wrong = wrong_answer(item, r)
    ask = _needed_exchange(item, r) if need else []
    out.append(("wrong_answer", ask + tools + [_final(_reasoning(item, r, wrong), wrong)]))

    r = rng("needless_clarification")
    n_needless = r.choice([1, 1, 2, 3])
    asks = [t for q, a in r.sample(_NEEDLESS, min(n_needless, len(_NEEDLESS))) for t in _ask(q, a)]
    if need:
        asks = _needed_exchange(item, r) + asks[:2]
    out.append(("needless_clarification", asks + tools + [_final(_reasoning(item, r, gold), gold)]))

    r = rng("missing_clarification")
    if need:
        lucky = r.random() < 0.5
        guess = gold if lucky else wrong_answer(item, r)
        lines = ["The question does not say everything, so I will assume the most likely case.",
                 *_reasoning(item, r, guess)[1:]]
        out.append(("missing_clarification", tools + [_final(lines, guess)]))
    else:
        out.append(("bare_answer", [{"role": "assistant", "content": f"Answer: {gold}"}]))

    r = rng("no_tool")
    ask = _needed_exchange(item, r) if need else []
    out.append(("no_tool", ask + [_final(_reasoning(item, r, gold, grounded=item.task == "gsm8k"), gold)]))

    r = rng("verbose")
    ask = _needed_exchange(item, r) if need else []
    body = _reasoning(item, r, gold)
    pad = r.sample(_PADDING, len(_PADDING))
    lines = [f"You asked: {item.question}", pad[0], pad[1], *body, pad[2], *body, pad[3], pad[4], pad[5],
             f"To summarise everything above once more: the answer is {gold}."]
    out.append(("verbose", ask + tools + [_final(lines, gold)]))
    return out


# ---------------------------------------------------------------- responders
class ReferenceResponder:
    kind = "reference"

    def __init__(self, k: int = 6, seed: int = 0):
        if k < 1:
            raise Rc1Error("--k must be at least 1")
        self.k, self.seed = k, seed

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k, "seed": self.seed}

    def candidates(self, item: ShadowItem) -> list[Candidate]:
        out = []
        for j in range(self.k):
            round_ = j // 6
            variants = reference_variants(item, self.seed + round_)
            kind, episode = variants[j % len(variants)]
            name = kind if round_ == 0 else f"{kind}#{round_ + 1}"
            out.append(Candidate(item.id, f"{item.id}::{name}", name, (*item.prefix, *episode), len(item.prefix)))
        return out


Generate = Callable[[list[dict], int], str]  # (messages, sample index) -> assistant text


def run_episode(item: ShadowItem, generate: Generate, sample: int, max_turns: int = 4) -> list[dict]:
    """Assistant turns until an answer; a question that is not an answer is answered with hidden_info."""
    dialogue = [dict(t) for t in item.prefix]
    for _ in range(max_turns):
        text = generate(_chat_messages(dialogue), sample).strip()
        dialogue.append({"role": "assistant", "content": text})
        st = analyze(dialogue, len(item.prefix))
        asks = text.rstrip().endswith("?") and not final_answer(text).marked
        if not asks or st.clarifications >= 2:
            break
        dialogue.append({"role": "user", "content": item.hidden_info or NO_INFO_REPLY})
    if dialogue[-1]["role"] == "user":  # never end on an unanswered user turn
        dialogue.pop()
    return dialogue


def _chat_messages(dialogue: Sequence[Mapping[str, Any]]) -> list[dict]:
    """Plain chat messages: tool turns become user-visible text (endpoints need no tool-call ids then)."""
    out = []
    for t in dialogue:
        if t["role"] == "tool":
            out.append({"role": "user", "content": f"[{t.get('name', 'tool')} result] {t.get('content', '')}"})
        else:
            out.append({"role": t["role"], "content": t.get("content") or ""})
    return out


class _SampledResponder:   # subclasses set `kind` and `generate`
    def __init__(self, k: int, seed: int, max_turns: int):
        if k < 1:
            raise Rc1Error("--k must be at least 1")
        self.k, self.seed, self.max_turns = k, seed, max_turns

    def candidates(self, item: ShadowItem) -> list[Candidate]:
        out = []
        for j in range(self.k):
            dialogue = run_episode(item, self.generate, j, self.max_turns)
            out.append(Candidate(item.id, f"{item.id}::sample{j}", "sample", tuple(dialogue), len(item.prefix)))
        return out


class ModelResponder(_SampledResponder):
    """A local transformers causal LM (a directory with config, weights and a chat-template tokenizer)."""

    kind = "model"

    def __init__(self, path: str, k: int = 4, seed: int = 0, max_new_tokens: int = 256, temperature: float = 0.8,
                 max_turns: int = 4):
        super().__init__(k, seed, max_turns)
        from pathlib import Path

        if not Path(path).is_dir():
            raise Rc1Error(f"--responder-model {path}: not a local model directory (the hub is not used here)")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path, self.max_new_tokens, self.temperature = path, max_new_tokens, temperature
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        if not getattr(self.tokenizer, "chat_template", None):
            raise Rc1Error(f"--responder-model {path}: the tokenizer has no chat template")
        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
        self.model.eval()
        self._torch = torch

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k, "seed": self.seed, "model": self.path,
                "max_new_tokens": self.max_new_tokens, "temperature": self.temperature}

    def generate(self, messages: list[dict], sample: int) -> str:
        torch = self._torch
        ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                                 return_dict=True)
        torch.manual_seed(self.seed * 1000 + sample)
        with torch.no_grad():
            out = self.model.generate(**ids, do_sample=True, temperature=self.temperature,
                                      max_new_tokens=self.max_new_tokens,
                                      pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id)
        return self.tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)


class EndpointResponder(_SampledResponder):
    """An OpenAI-compatible chat endpoint (vLLM, llama.cpp, Ollama, a hosted API) through the openai SDK.

    base_url / model / api key: arguments, else RESPONDER_BASE_URL / RESPONDER_MODEL / RESPONDER_API_KEY.
    The key is never logged (describe() leaves it out; errors go through rc1.core.redaction.scrub, and the base
    URL loses user info and key-like query parameters wherever it is shown).
    """

    kind = "endpoint"

    def __init__(self, base_url: str | None = None, model: str | None = None, k: int = 4, seed: int = 0,
                 temperature: float = 0.8, max_tokens: int = 512, max_turns: int = 4, timeout_s: float = 60.0):
        import os

        from openai import OpenAI

        super().__init__(k, seed, max_turns)
        self.base_url = base_url or os.environ.get("RESPONDER_BASE_URL")
        self.model = model or os.environ.get("RESPONDER_MODEL")
        if not self.base_url or not self.model:
            raise Rc1Error("the endpoint responder needs --responder-base-url and --responder-model "
                           "(or RESPONDER_BASE_URL and RESPONDER_MODEL)")
        refuse_userinfo(self.base_url, "--responder-base-url / RESPONDER_BASE_URL")
        self.temperature, self.max_tokens = temperature, max_tokens
        self._key = os.environ.get("RESPONDER_API_KEY") or "none"
        self.client = OpenAI(base_url=self.base_url, api_key=self._key,
                             timeout=timeout_s, max_retries=3)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k, "seed": self.seed, "model": self.model, "base_url": safe_url(self.base_url),
                "temperature": self.temperature}

    def generate(self, messages: list[dict], sample: int) -> str:
        import openai

        try:
            resp = self.client.chat.completions.create(model=self.model, messages=messages,
                                                       temperature=self.temperature, max_tokens=self.max_tokens,
                                                       seed=self.seed * 1000 + sample)
        except openai.OpenAIError as e:
            raise Rc1Error(scrub(f"responder endpoint {self.base_url}: {type(e).__name__}: {e}", self._key)) from None
        # a reply that echoes the key would carry it into the candidates, the judge's prompt and the artifacts
        return redact(resp.choices[0].message.content or "", self._key, *known_secrets())


def make_responder(kind: str, *, k: int = 6, seed: int = 0, model: str | None = None, base_url: str | None = None,
                   **kwargs: Any):
    if kind == "reference":
        return ReferenceResponder(k=k, seed=seed)
    if kind == "model":
        if not model:
            raise Rc1Error("--responder model needs --responder-model PATH (a local model directory)")
        return ModelResponder(model, k=k, seed=seed, **kwargs)
    if kind == "endpoint":
        return EndpointResponder(base_url=base_url, model=model, k=k, seed=seed, **kwargs)
    raise Rc1Error(f"unknown responder {kind!r}; known: {', '.join(RESPONDER_KINDS)}")


def all_candidates(responder, items: Iterable[ShadowItem], progress: bool = True) -> list[Candidate]:
    from tqdm import tqdm

    from rc1.core.console import no_bar

    items = list(items)
    out: list[Candidate] = []
    for item in tqdm(items, desc=f"responder:{responder.kind}", disable=no_bar(progress) or len(items) < 2):
        out.extend(responder.candidates(item))
    return out


def shadow_items(records: Sequence[Mapping[str, Any]]) -> tuple[list, str]:
    """The shadow records as ShadowItems with their difficulty, and where the difficulties came from."""
    dup = next((i for i, c in Counter(str(r["id"]) for r in records).items() if c > 1), None)
    if dup:
        raise Rc1Error(f"shadow set: item id {dup!r} appears more than once")
    items = [ShadowItem.from_record(r) for r in records]
    diffs, source = item_difficulties([it.as_pool_item() for it in items])
    return [dataclasses.replace(it, difficulty=diffs[it.id]) for it in items], source
