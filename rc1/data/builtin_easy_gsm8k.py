"""Easy GSM8K items: one- or two-step word problems whose solution restates the givens (see rc1.data.builtin_easy)."""

from __future__ import annotations

import random

from rc1.data.builtin_vocab import (
    FEMALE_NAMES, FIRST_NAMES, GOODS, JOBS, MALE_NAMES, OBJECT_ADJ, RELATIVES, SHOPS, alt, place_name,
)


# ------------------------------------------------------------------ GSM8K: one or two steps, givens restated
_THINGS = ["apples", "stickers", "marbles", "books", "pencils", "stamps", "shells", "postcards", "cookies", "coins",
           "beads", "seashells", "comic books", "trading cards", "tomatoes", "eggs", "candles", "buttons", "plants",
           "balloons", "crayons", "ribbons", "jars of jam", "bottles of juice", "notebooks", "bracelets", "puzzles"]
_GET = [("buys", "bought"), ("finds", "found"), ("gets", "got"), ("is given", "was given"), ("picks up", "picked up"),
        ("collects", "collected"), ("receives", "received"), ("wins", "won")]
_LOSE = [("gives away", "gave away"), ("sells", "sold"), ("loses", "lost"), ("donates", "donated"),
         ("uses", "used"), ("trades away", "traded away"), ("misplaces", "misplaced"), ("breaks", "broke")]
_WHERE = ["at the bakery", "after the parade", "at the swimming pool", "in the park", "at the bookshop",
          "from her grandmother", "from his cousin", "at the carnival", "on the school trip", "at the toy store",
          "at the harbor", "on Wednesday", "on her birthday", "at the garage sale", "from the teacher",
          "at the craft fair", "in the garden", "at the train station", "from a classmate", "at the farm stand",
          "at the market", "at a yard sale", "at school", "from a neighbor", "at the fair", "at the library sale",
          "from her aunt", "from his uncle", "on Saturday", "on the way home", "at the corner shop", "at camp",
          "from a friend", "during the holidays", "at the flea market", "on Monday", "at the museum shop"]
_GROUPS = [("box", "boxes"), ("bag", "bags"), ("crate", "crates"), ("pack", "packs"), ("tray", "trays"),
           ("basket", "baskets"), ("jar", "jars"), ("shelf", "shelves"), ("row", "rows"), ("tin", "tins")]


_HAS = ["{n} has {a} {t}.", "{n} owns {a} {t}.", "{n} starts the week with {a} {t}.", "{n} keeps {a} {t} in a {box}.",
        "{n} already has {a} {t} at home.", "At first {n} has {a} {t}."]
_BOXES = ["shoebox", "drawer", "cupboard", "backpack", "tin", "cardboard box", "basket", "cabinet", "crate"]
_ASK = {"now": ["How many {t} does {n} have now?", "How many {t} does {n} have altogether now?",
                "What is the number of {t} {n} has now?"],
        "left": ["How many {t} does {n} have left?", "How many {t} remain with {n}?",
                 "What number of {t} does {n} keep?", "How many {t} stay with {n} afterwards?", "How many {t} are left for {n}?",
                 "How many {t} does {n} still have left?"],
        "all": ["How many {t} does {n} have in all?", "Altogether, how many {t} does {n} have?",
                "Counting every one, how many {t} are there?", "How many {t} are there altogether?", "How many {t} are there in all?",
                "What is the total number of {t} in all?"],
        "end": ["How many {t} does {n} have at the end?", "At the end, how many {t} does {n} have?",
                "How many {t} are left with {n} at the end?"]}


_THING_ADJ = """red blue green yellow purple striped spotted glass wooden paper metal silver golden tiny large shiny
old new rare foreign handmade painted glittery plastic velvet ceramic woolen polished chocolate lemon cherry vintage
pocket mini""".split()
_PUTS = ["puts them into", "packs them into", "sorts them into", "divides them into", "shares them out into",
         "splits them into", "arranges them into", "stacks them into", "loads them into", "bundles them into"]


_HAS_MORE = ["{n}, a [young|keen|retired|busy|tired|cheerful] {job} from {town}, has {a} {t}.",
             "{n} [keeps|stores|hides|has] {a} {t} [in a|inside a|at the back of a] {box} [at home|under the bed|in the attic|in the hall|by the window].",
             "[On Sunday|Before lunch|One morning|Last spring|In March|After school|Early on] {n} [counts|lines up|sorts out|lays out] {a} {t}.",
             "{n} [inherits|is left|takes over] {a} {t} from {rel}.",
             "The {town} [club|shop|school|library|museum] [lends|gives|sends] {n} {a} {t}."]
_ASK_GRAMMAR = {"now": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} own|are with {n}|"
                       "belong to {n}|does {n} now hold] [now|at this point|by now|after that|in total now]?",
                "left": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} keep|"
                        "remain with {n}|stay with {n}|does {n} still hold] [left|afterwards|after that|now|at the end of the day]?",
                "all": "[How many|Exactly how many|What number of|In total, how many|Altogether, how many] {t} [does {n} have|"
                       "are there|does {n} own|are packed away|are stored] [in all|altogether|in total|combined|]?",
                "end": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} keep|"
                       "are left with {n}|remain with {n}|does {n} end up with] [at the end|in the end|by evening|"
                       "at the finish|when it is all over]?"}


def _ask(rng: random.Random, kind: str, n: str, t: str) -> str:
    if rng.random() < 0.25:
        return rng.choice(_ASK[kind]).format(n=n, t=t)
    return alt(_ASK_GRAMMAR[kind].format(n=n, t=t), rng)


def _where(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return rng.choice(_WHERE)
    if r < 0.6:
        return f"at the {place_name(rng)} {rng.choice(SHOPS)}"
    if r < 0.8:
        return f"from {rng.choice(FIRST_NAMES)}'s {rng.choice(RELATIVES)}"
    w = alt("[on the way to|on the way back from|near|outside|behind] the [old|new|busy|little|] "
            "[mill|harbour|church|bus depot|stadium|post office|bakery|ferry terminal|orchard|swimming baths]", rng)
    return w[:1].lower() + w[1:]


def _gsm_item(rng: random.Random) -> dict:
    """A one- or two-step problem; each solution line first restates the givens it uses, in the question's words."""
    n = rng.choice(FIRST_NAMES) if rng.random() < 0.6 else rng.choice(FEMALE_NAMES + MALE_NAMES)
    t, where, box = rng.choice(_THINGS), _where(rng), rng.choice(_BOXES)
    if rng.random() < 0.5:
        t = f"{rng.choice(OBJECT_ADJ)} {rng.choice(GOODS)}"
    elif rng.random() < 0.8:
        t = f"{rng.choice(_THING_ADJ)} {t}"
    k = rng.randrange(5)
    a, b = rng.randint(8, 90), rng.randint(3, 60)
    if k == 1:
        a += b
    if rng.random() < 0.5:
        has = rng.choice(_HAS).format(n=n, a=a, t=t, box=box)
    else:
        has = alt(rng.choice(_HAS_MORE).format(n=n, a=a, t=t, box=box, job=rng.choice(JOBS), town=place_name(rng),
                                               rel=f"{rng.choice(['her', 'his', 'a'])} {rng.choice(RELATIVES)}"), rng)
    get, lose = rng.choice(_GET)[0], rng.choice(_LOSE)[0]
    if k == 0:
        s2 = f"{n} {get} {b} more {t} {where}."
        q, ans = [has, s2, _ask(rng, "now", n, t)], a + b
        sol = [f"{has} {s2[:-1]}, so {n} has {a} + {b} = <<{a}+{b}={ans}>>{ans} {t} now."]
    elif k == 1:
        s2 = f"{n} {lose} {b} of the {t} {where}."
        q, ans = [has, s2, _ask(rng, "left", n, t)], a - b
        sol = [f"{has} {s2[:-1]}, so {n} has {a} - {b} = <<{a}-{b}={ans}>>{ans} {t} left."]
    elif k == 2:
        g, gs = rng.choice(_GROUPS)
        a, b = rng.randint(3, 15), rng.randint(4, 24)
        s1 = alt(f"{n} [has|owns|brings|carries|orders|fills] {a} {gs} of {t} [|for the {rng.choice(_FAIRS)}|"
                 f"{where}].", rng)
        s2 = alt(f"[Each|Every] {g} [holds|contains|has room for|takes] {b} {t}.", rng)
        q, ans = [s1, s2, _ask(rng, "all", n, t)], a * b
        sol = [f"{s1} {s2[:-1]}, so there are {a} * {b} = <<{a}*{b}={ans}>>{ans} {t} in all."]
    elif k == 3:
        g, gs = rng.choice(_GROUPS)
        per, ans = rng.randint(3, 12), rng.randint(2, 12)
        a = per * ans
        s1 = f"{n} has {a} {t} and {rng.choice(_PUTS)} {gs} of {per} {t} each."
        q = [s1, alt(rng.choice([f"How many {gs} does {n} [fill|use|need|end up with]?",
                                 f"How many {gs} of {per} does {n} [fill|pack|make]?",
                                 f"How many full {gs} [does {n} end up with|are there|come out of it]?"]), rng)]
        sol = [f"{s1[:-1]}, so {n} fills {a} / {per} = <<{a}/{per}={ans}>>{ans} {gs}."]
    else:
        c = rng.randint(2, a + b - 1)
        s2 = f"{n} {get} {b} more {t} {where}."
        s3 = alt(f"[Then|After that|Later|Next|That evening|The next day] {n} {lose} {c} of the {t}.", rng)
        q, ans = [has, s2, s3, _ask(rng, "end", n, t)], a + b - c
        sol = [f"{has} {s2[:-1]}, so {n} has {a} + {b} = <<{a}+{b}={a + b}>>{a + b} {t}.",
               f"{s3[:-1]}, so {n} has {a + b} - {c} = <<{a + b}-{c}={ans}>>{ans} {t} at the end."]
    return {"question": " ".join(q), "answer": "\n".join(sol) + f"\n#### {ans}"}


_FAIRS = ["school fair", "bake sale", "street party", "church fete", "harvest supper", "village show", "jumble sale",
          "charity market", "summer camp", "scout jamboree"]


def generate_easy_gsm8k(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"easy-gsm8k|{seed}")
    return [_gsm_item(rng) for _ in range(n)]
