import pytest

from rc1.core.errors import Rc1Error
from rc1.core.text import TURN_OVERHEAD, count_tokens, dialogue_tokens, make_token_counter, ngrams, normalize, shingles, words


def test_normalize_keeps_numbers_and_drops_punctuation():
    assert normalize("Tom has 1,250 apples; he eats 3.5 of them!") == "tom has 1250 apples he eats 3.5 of them"
    # two problems that differ only in their numbers stay different
    assert normalize("She buys 3 pens for $4 each.") != normalize("She buys 5 pens for $2 each.")


def test_words_keep_inner_apostrophes_and_unicode_letters():
    assert words("Don’t stop: Zürich's café") == ["don't", "stop", "zürich's", "café"]


def test_ngrams_and_shingles():
    assert ngrams(["a", "b", "c"], 2) == [("a", "b"), ("b", "c")]
    assert ngrams(["a"], 2) == []
    assert shingles(["a", "b", "c", "d"], 3) == {"a b c", "b c d"}
    assert shingles(["a", "b"], 3) == {"a b"}  # a short text is one shingle, not none
    with pytest.raises(ValueError):
        ngrams(["a"], 0)


def test_count_tokens_rule():
    assert count_tokens("") == 0
    assert count_tokens("the cat sat") == 3              # short words: one token each, space attached
    assert count_tokens("2025") == 4                     # digits one by one (Qwen pre-tokenization)
    assert count_tokens("internationalization") == 3     # 20 letters -> 8 + 8 + 4
    assert count_tokens("Hello, world!") == 4            # Hello | , | ␣world | !
    text = "A farmer sells 12 eggs.\nHow many remain?"
    assert count_tokens(text) == count_tokens(text)      # deterministic
    assert count_tokens(text * 2) > count_tokens(text)


def test_dialogue_tokens_adds_template_overhead():
    turns = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"}]
    assert dialogue_tokens(turns) == count_tokens("Be brief.") + count_tokens("Hi there") + 2 * TURN_OVERHEAD


def test_token_counter_default_and_bad_tokenizer_path(tmp_path):
    assert make_token_counter(None) is count_tokens
    with pytest.raises(Rc1Error, match="cannot load a tokenizer"):
        make_token_counter(str(tmp_path / "no-such-tokenizer"))


def test_the_skeleton_folds_disguises_and_keeps_numbers():
    """Issue 29: what the shadow set's guards compare (rc1.core.text.guard_words)."""
    from rc1.core.text import guard_words, skeleton, words

    plain = "How many apples did Jane buy for 1,000 dollars?"
    assert guard_words(plain) == words(plain) and skeleton(plain) == plain.lower()   # ASCII: as before
    for disguised in ("How ma\u200bny app\u00adles did Ja\u200dne buy for 1,000 dollars?",   # zero-width, soft hyphen
                      "H\u043ew m\u0430ny \u0430pples did J\u0430ne buy f\u043er 1,000 d\u043ell\u0430rs?",  # Cyrillic
                      "Ho\u0301w ma\u0308ny apples did Jane buy for 1,000 dollars?",                # combining marks
                      "\u202eHow many apples did Jane\u3164buy for 1,000 dollars?"):               # bidi, filler
        assert guard_words(disguised) == words(plain), disguised
    assert guard_words("1,000 and 10") != guard_words("l,OOO and lO") and guard_words("2024")[0] == "2024"
