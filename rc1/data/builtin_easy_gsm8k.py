"""Easy GSM8K items: one- or two-step word problems whose solution restates the givens (see rc1.data.builtin_easy)."""

from __future__ import annotations

import random

from rc1.data.builtin_vocab import (
    BAKED, COLLECTIBLES, CRAFTS, DISHES, ERRANDS, EVENTS, FEMALE_NAMES, FIRST_NAMES, GOALS, GOODS, INGREDIENTS, ITEMS, JOBS,
    MALE_NAMES, OBJECT_ADJ, OCCASIONS, PLANTS, RELATIVES, SHOPS, SPENDING, VEHICLES, alt, is_female,
    place_name,
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
                       "belong to {n}|does {n} hold] [now|at this point|by now|after that|in total now]?",
                "left": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} keep|"
                        "remain with {n}|stay with {n}|does {n} still have] [left|afterwards|after that|now|at the end of the day]?",
                "all": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|"
                       "are there|does {n} own|are packed away|are stored] [in all|altogether|in total|combined|]?",
                "end": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} keep|"
                       "are left with {n}|remain with {n}|does {n} end up with] [at the end|in the end|by evening|"
                       "at the finish|when it is all over]?"}


def _ask(rng: random.Random, kind: str, n: str, t: str, he: str = "") -> str:
    if rng.random() < 0.25:
        q = rng.choice(_ASK[kind]).format(n=n, t=t)
    else:
        q = alt(_ASK_GRAMMAR[kind].format(n=n, t=t), rng)
    if he and rng.random() < 0.4:
        q = q.replace(f"does {n} ", f"does {he} ")  # the name was given in the story: a pronoun reads naturally
    return q


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


def _person(rng: random.Random) -> tuple[str, str, str, str]:
    """(name, he/she, him/her, his/her)."""
    n = rng.choice(FIRST_NAMES) if rng.random() < 0.6 else rng.choice(FEMALE_NAMES + MALE_NAMES)
    return (n, "she", "her", "her") if is_female(n, rng) else (n, "he", "him", "his")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _low(text: str) -> str:
    return text[:1].lower() + text[1:]


def _collect_item(rng: random.Random) -> tuple[list[str], list[str], int]:
    """The collection family: a count that grows, shrinks, is multiplied out or packed into groups."""
    n, he, him, his = _person(rng)
    t, where, box = rng.choice(_THINGS), _where(rng), rng.choice(_BOXES)
    if rng.random() < 0.5:
        t = f"{rng.choice(OBJECT_ADJ)} {rng.choice(GOODS)}"
    elif rng.random() < 0.8:
        t = f"{rng.choice(_THING_ADJ)} {t}"
    short = t.split()[-1]  # a later mention drops the adjective, as people write
    k = rng.randrange(5)
    a, b = rng.randint(8, 90), rng.randint(3, 60)
    if k == 1:
        a += b
    if rng.random() < 0.5:
        has = rng.choice(_HAS).format(n=n, a=a, t=t, box=box)
    else:
        has = alt(rng.choice(_HAS_MORE).format(n=n, a=a, t=t, box=box, job=rng.choice(JOBS), town=place_name(rng),
                                               rel=f"{rng.choice([his, 'a'])} {rng.choice(RELATIVES)}"), rng)
    get, lose = rng.choice(_GET)[0], rng.choice(_LOSE)[0]
    who = n if rng.random() < 0.5 else _cap(he)
    if k == 0:
        s2 = alt(f"{who} {get} {b} more {rng.choice([short, t, ''])} {where}.", rng)
        q, ans = [has, s2, _ask(rng, "now", n, short, he)], a + b
        sol = [f"{has} {s2[:-1]}, so {n} has {a} + {b} = <<{a}+{b}={ans}>>{ans} {short} now."]
    elif k == 1:
        s2 = alt(f"{who} {lose} {b} of [them|the {short}|the {t}] {where}.", rng)
        q, ans = [has, s2, _ask(rng, "left", n, short, he)], a - b
        sol = [f"{has} {s2[:-1]}, so {n} has {a} - {b} = <<{a}-{b}={ans}>>{ans} {short} left."]
    elif k == 2:
        g, gs = rng.choice(_GROUPS)
        a, b = rng.randint(3, 15), rng.randint(4, 24)
        s1 = alt(f"{n} [has|owns|brings|carries|orders|fills] {a} {gs} of {t} [|for the {rng.choice(_FAIRS)}|"
                 f"{where}].", rng)
        s2 = alt(f"[Each|Every] {g} [holds|contains|has room for|takes] {b} [{short}|of them|].", rng)
        q, ans = [s1, s2, _ask(rng, "all", n, short, he)], a * b
        sol = [f"{s1} {s2[:-1]}, so there are {a} * {b} = <<{a}*{b}={ans}>>{ans} {short} in all."]
    elif k == 3:
        g, gs = rng.choice(_GROUPS)
        per, ans = rng.randint(3, 12), rng.randint(2, 12)
        a = per * ans
        s1 = alt(f"{n} has {a} {t} and {rng.choice(_PUTS)} {gs} of {per} [each|{short} each|].", rng)
        q = [s1, alt(rng.choice([f"How many {gs} does {he} [fill|use|need|end up with]?",
                                 f"How many {gs} of {per} does {n} [fill|pack|make]?",
                                 f"How many full {gs} [does {he} end up with|are there|come out of it]?",
                                 f"[What number of|How many] {gs} [are filled|get used]?"]), rng)]
        sol = [f"{s1[:-1]}, so {n} fills {a} / {per} = <<{a}/{per}={ans}>>{ans} {gs}."]
    else:
        c = rng.randint(2, a + b - 1)
        s2 = alt(f"{who} {get} {b} more [{short}|] {where}.", rng)
        s3 = alt(f"[Then|After that|Later|Next|That evening|The next day] {rng.choice([n, he])} {lose} {c} of "
                 f"[them|the {short}].", rng)
        q, ans = [has, s2, s3, _ask(rng, "end", n, short, he)], a + b - c
        sol = [f"{has} {s2[:-1]}, so {n} has {a} + {b} = <<{a}+{b}={a + b}>>{a + b} {short}.",
               f"{_cap(s3[:-1])}, so {n} has {a + b} - {c} = <<{a + b}-{c}={ans}>>{ans} {short} at the end."]
    return q, sol, ans


def _item_money(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    one, many, lo, hi = rng.choice(ITEMS)
    price, k = rng.randint(lo, hi), rng.randint(2, 9)
    shop = f"the {place_name(rng)} {rng.choice(_SHOPS)}" if rng.random() < 0.5 else f"the {rng.choice(_SHOPS)}"
    s1 = alt(f"At {shop}, [a|one|each] {one} [costs|sells for|is priced at] ${price}.", rng)
    s2 = alt(f"{n} [buys|picks up|orders|pays for] {k} [of them|{many}] [for {his} {rng.choice(RELATIVES)}|"
             f"for the {rng.choice(OCCASIONS)}|while {rng.choice(ERRANDS)}|].", rng)
    if rng.random() < 0.5:
        total = price * k
        q = alt(f"[How much|How many dollars] does {rng.choice([n, he])} [spend|pay|hand over] [in all|altogether|"
                f"at the till|]?", rng)
        return [s1, s2, q], [f"{s1} {s2[:-1]}, so {n} pays {k} * {price} = <<{k}*{price}={total}>>{total} dollars."], \
            total
    extra = rng.randint(2, 15)
    total = price * k + extra
    s3 = alt(f"[{_cap(he)} also|On the way out {he}] [buys|grabs|adds] a [card|roll of tape|bag|snack|bottle of "
             f"water|bunch of flowers] for ${extra}.", rng)
    q = alt(f"[How much|What] does {n} [spend|pay] [in total|altogether|for everything]?", rng)
    return [s1, s2, s3, q], [f"{s1} {s2[:-1]}, so the {many} cost {k} * {price} = <<{k}*{price}={price * k}>>"
                             f"{price * k} dollars.",
                             f"{_cap(s3[:-1])}, so {n} spends {price * k} + {extra} = <<{price * k}+{extra}={total}>>"
                             f"{total} dollars."], total


def _item_change(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    a = rng.randint(20, 200)
    b = rng.randint(3, a - 2)
    thing = rng.choice(GOALS if b > 40 else SPENDING + [f"a {o}" for o, _, lo, hi in ITEMS if lo <= b <= 3 * hi])
    s1 = alt(rng.choice([f"{n} has ${a} [in {his} wallet|in a jar at home|in {his} savings|].",
                         f"{n} [takes|brings] ${a} to the {rng.choice(_SHOPS)}.",
                         f"{n} has saved ${a} from {his} job as a {rng.choice(JOBS)}."]), rng)
    s2 = alt(f"{_cap(rng.choice([he, n]))} [spends ${b} on|pays ${b} for|uses ${b} to buy] {thing}.", rng)
    q = alt(f"[How much money|How many dollars] does {n} have [left|left over|remaining|afterwards]?", rng)
    ans = a - b
    return [s1, s2, q], [f"{s1} {s2[:-1]}, so {n} has {a} - {b} = <<{a}-{b}={ans}>>{ans} dollars left."], ans


def _item_rate(rng: random.Random) -> tuple[list[str], list[str], int]:
    """Per-day or per-week amounts over a number of days or weeks: minutes, pages, kilometres, dollars."""
    n, he, him, his = _person(rng)
    unit, verb, base, span, hi, where = rng.choice(_RATES)
    a, d = rng.randint(3, hi), rng.randint(3, 14)
    verb = _low(alt(verb.format(instr=rng.choice(_INSTR)), rng))
    where = _low(alt(rng.choice(where).format(pl=place_name(rng), his=his, rel=rng.choice(RELATIVES)), rng))
    when = alt(rng.choice([f"[every|each] {span} [for {d} {span}s|, {d} {span}s in a row]",
                           f"[every|each] {span} [of|during|throughout] [the|a] {d}-{span} [stretch|period|run]"]),
               rng)
    amount = f"for {a} {unit}" if unit == "minutes" else f"{a} {unit}"
    s1 = f"{n} {verb} {amount} {where} {_low(when)}.".replace("  ", " ").replace(" ,", ",")
    q = rng.choice([f"How many {unit} does {he} {base} [in those {d} {span}s|altogether|over the {d} {span}s|]?",
                    f"[In all, how many|How many] {unit} is that?",
                    f"What is the total number of {unit} [after|over] the {d} {span}s?",
                    f"[Find|Work out] the total number of {unit}."])
    ans = a * d
    return [s1, alt(q, rng)], [f"{s1[:-1]}, so that is {a} * {d} = <<{a}*{d}={ans}>>{ans} {unit}."], ans


def _item_groups(rng: random.Random) -> tuple[list[str], list[str], int]:
    """Two groups put together, or the difference between them."""
    n, he, him, his = _person(rng)
    x, y, where = rng.choice(_PAIRS)
    place = alt(rng.choice(where).format(his=his, n=n, pl=place_name(rng)), rng)
    a, b = rng.randint(6, 80), rng.randint(4, 70)
    s1 = f"{place} there are {a} {x} and {b} {y}."
    if rng.random() < 0.5 or a == b:
        q = alt(f"[How many|What number of] {x} and {y} are there [in all|altogether|in total|together]?", rng)
        ans = a + b
        return [s1, q], [f"{s1[:-1]}, so there are {a} + {b} = <<{a}+{b}={ans}>>{ans} in all."], ans
    big, small, bn, sn = (x, y, a, b) if a > b else (y, x, b, a)
    q = alt(f"How many more {big} than {small} are there?", rng)
    ans = bn - sn
    return [s1, q], [f"{s1[:-1]}, so there are {bn} - {sn} = <<{bn}-{sn}={ans}>>{ans} more {big}."], ans


def _item_share(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    k, each = rng.randint(2, 9), rng.randint(2, 15)
    a = k * each
    t = rng.choice(BAKED + CRAFTS + COLLECTIBLES + ["sweets", "grapes", "cherries", "chestnuts", "coins", "seed packets"])
    who = alt(rng.choice([f"{k} friends", f"{k} cousins", f"{k} classmates", f"the {k} children at the "
                          f"{rng.choice(OCCASIONS)}", f"{k} neighbours", f"{k} teammates from the {place_name(rng)} "
                          f"[club|team|choir]", f"the {k} families on {his} [street|floor|lane]",
                          f"{k} [volunteers|helpers] at the {rng.choice(EVENTS)}"]), rng)
    s1 = alt(f"{n} [bakes|makes|brings|has|buys|collects] {a} {t} and [shares them|splits them|hands them out|divides "
             f"them] equally [among|between] {who}.", rng)
    q = alt(rng.choice([f"How many {t} does each [of them|one|person] [get|receive|end up with]?",
                        "What is each [share|person's share]?", "How many go to each [one|of them]?",
                        "How many does each [one|of them] get?"]), rng)
    ans = each
    return [s1, q], [f"{s1[:-1]}, so each gets {a} / {k} = <<{a}/{k}={ans}>>{ans} {t}."], ans


def _item_age(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    rel = rng.choice(["older sister", "older brother", "aunt", "uncle", "mother", "father", "cousin", "grandmother",
                      "grandfather", "neighbour", "piano teacher", "coach"])
    a, d = rng.randint(5, 40), rng.randint(2, 30)
    s1 = alt(f"{n} is {a} years old.", rng)
    if rng.random() < 0.5:
        s2 = alt(f"{_cap(his)} {rel} is {d} years older [than {him}|].", rng)
        q = alt(f"How old is {n}'s {rel}?", rng)
        ans = a + d
        return [s1, s2, q], [f"{s1} {s2[:-1]}, so the {rel} is {a} + {d} = <<{a}+{d}={ans}>>{ans} years old."], ans
    y = rng.randint(2, 20)
    s2 = alt(f"[How old will {he} be|What age will {n} be] in {y} years?", rng)
    ans = a + y
    return [s1, s2], [f"{s1[:-1]}, so in {y} years {he} will be {a} + {y} = <<{a}+{y}={ans}>>{ans}."], ans


def _item_recipe(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    unit = rng.choice(["cups of", "spoons of", "grams of", "handfuls of", "scoops of", "tablespoons of", "jars of",
                       "pinches of", "ounces of", "ladles of"])
    ing, dish = rng.choice(INGREDIENTS + ["raisins", "walnuts", "honey", "yoghurt", "cream", "cinnamon", "salt",
                                          "dried apricots", "pumpkin seeds", "coconut"]), rng.choice(DISHES + BAKED)
    a, k = rng.randint(2, 12) * (25 if unit == "grams of" else 1), rng.randint(2, 8)
    owner = rng.choice([n + "'s", his, "the"])
    s1 = alt(f"[One batch of|A pot of|A tray of|Each batch of|A single batch of] {owner} "
             f"[{dish}|{rng.choice(_TASTE)} {dish}] [needs|takes|uses|calls for] {a} {unit} {ing}.", rng)
    s2 = alt(f"[For the {rng.choice(OCCASIONS)}|This weekend|For {his} {rng.choice(RELATIVES)}'s visit|For the "
             f"{place_name(rng)} {rng.choice(EVENTS)}|Before the {rng.choice(EVENTS)}] {he if owner != 'the' else n} "
             f"[makes|cooks|prepares|bakes|turns out] {k} batches.", rng)
    q = alt(rng.choice([f"How many {unit} {ing} does {he} [need|use] [in all|altogether|for them|]?",
                        f"What amount of {ing}, in {unit[:-3]}, [goes into|is needed for] [all the batches|them]?",
                        f"[Find|Work out] how many {unit} {ing} {he} [uses|needs]."]), rng)
    ans = a * k
    return [s1, s2, q], [f"{s1} {_cap(s2[:-1])}, so {n} needs {a} * {k} = <<{a}*{k}={ans}>>{ans} {unit} {ing}."], \
        ans


def _item_wage(rng: random.Random) -> tuple[list[str], list[str], int]:
    """Two steps: earn per hour for some hours, then spend part of it."""
    n, he, him, his = _person(rng)
    job = rng.choice(JOBS)
    rate, h = rng.randint(6, 25), rng.randint(2, 12)
    spend = rng.randint(3, rate * h - 1)
    s1 = alt(rng.choice([f"{n} works as a {job} [at|in] [the|a] {place_name(rng)} [hotel|market|garden centre|"
                         f"cinema|swimming pool|bakery|museum|harbour] and [earns|makes|is paid] ${rate} an hour.",
                         f"{n} earns ${rate} [an|per] hour [as a|working as a] {job}.",
                         f"As a {job}, {n} [gets|is paid|makes] ${rate} for every hour of work."]), rng)
    s2 = alt(f"[On Saturday|Last week|This week|Over the holiday|During the {rng.choice(EVENTS)}|In the first week of "
             f"{rng.choice(['June', 'July', 'August', 'December', 'April'])}] {he} works {h} hours.", rng)
    s3 = alt(f"[{_cap(he)} then|Afterwards {he}|Later {he}|Out of that, {he}] [spends ${spend} on|pays out ${spend} "
             f"for|uses ${spend} for] {rng.choice(SPENDING)}.", rng)
    q = alt(rng.choice([f"How much [money|of {his} pay|of {his} wages] does {n} have left?",
                        f"What is left of {n}'s [pay|earnings] after that?",
                        f"How many dollars does {he} [keep|still have]?"]), rng)
    earned, ans = rate * h, rate * h - spend
    return [s1, s2, s3, q], [f"{s1} {_cap(s2[:-1])}, so {n} earns {rate} * {h} = <<{rate}*{h}={earned}>>{earned} "
                             f"dollars.",
                             f"{_cap(s3[:-1])}, so {n} has {earned} - {spend} = <<{earned}-{spend}={ans}>>{ans} "
                             f"dollars left."], ans


def _item_garden(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    what, rows, verb, places, more = rng.choice(_ROWS)
    what = what or rng.choice(PLANTS)
    r, per = rng.randint(3, 15), rng.randint(4, 24)
    place = _low(alt(rng.choice(places).format(his=his, pl=place_name(rng), ev=rng.choice(EVENTS)), rng))
    s1 = alt(f"{n} {verb} {r} {rows} of {what} {place}, with {per} [{what}|] in each.", rng)
    if not more or rng.random() < 0.5:
        q = alt(f"How many {what} [are there|is that|does {he} have] [in all|altogether|in total|]?", rng)
        ans = r * per
        return [s1, q], [f"{s1[:-1]}, so there are {r} * {per} = <<{r}*{per}={ans}>>{ans} {what}."], ans
    extra = rng.randint(2, 20)
    s2 = alt(f"[Then|Later|After that] {he} [adds|finds|brings] {extra} more {what}.", rng)
    q = alt(f"How many {what} [are there now|does {he} have now|are there in the end]?", rng)
    ans = r * per + extra
    return [s1, s2, q], [f"{s1[:-1]}, so there are {r} * {per} = <<{r}*{per}={r * per}>>{r * per} {what}.",
                         f"{_cap(s2[:-1])}, so there are {r * per} + {extra} = <<{r * per}+{extra}={ans}>>{ans} "
                         f"{what}."], ans


def _item_trip(rng: random.Random) -> tuple[list[str], list[str], int]:
    n, he, him, his = _person(rng)
    veh, verb = rng.choice(VEHICLES)
    a, b = rng.randint(12, 240), rng.randint(8, 180)
    p1, p2 = place_name(rng), place_name(rng)
    s1 = alt(f"{n}'s {veh} {verb} {a} kilometres from {p1} to {p2}.", rng)
    s2 = alt(f"[Then|After lunch|The next day] it {verb} another {b} kilometres [to|on to] {place_name(rng)}.", rng)
    q = alt(f"How [far|many kilometres] does the {veh} [travel|go|cover] [in all|altogether|in total]?", rng)
    ans = a + b
    return [s1, s2, q], [f"{s1} {s2[:-1]}, so it travels {a} + {b} = <<{a}+{b}={ans}>>{ans} kilometres."], ans


_KINDS = [(_collect_item, 5), (_item_money, 2), (_item_change, 1), (_item_rate, 2), (_item_groups, 1),
          (_item_share, 1), (_item_age, 1), (_item_recipe, 1), (_item_wage, 1), (_item_garden, 1), (_item_trip, 1)]
_KIND_FNS = [f for f, w in _KINDS for _ in range(w)]


def _gsm_item(rng: random.Random) -> dict:
    """A one- or two-step problem; each solution line first restates the givens it uses, in the question's words."""
    q, sol, ans = rng.choice(_KIND_FNS)(rng)
    return {"question": " ".join(q), "answer": "\n".join(sol) + f"\n#### {ans}"}


_INSTR = ["piano", "violin", "flute", "guitar", "drums", "cello", "trumpet", "clarinet", "harp", "accordion"]
_TASTE = ["spiced", "lemon", "honey", "smoky", "cheesy", "sweet", "savoury", "garlic", "herb", "chocolate"]
_RATES = [  # (unit, verb, base verb, time span, largest amount, where)
    ("minutes", "[practises|rehearses on] the {instr}", "practise", "day", 60,
     ["at home", "in the {pl} music room", "before school", "at {his} {rel}'s flat"]),
    ("pages", "[reads|gets through]", "read", "day", 50, ["of a library book", "of {his} history book", "on the bus",
                                                         "of a novel set in {pl}"]),
    ("kilometres", "cycles", "cycle", "day", 20, ["to the {pl} depot", "along the canal", "around {pl}"]),
    ("kilometres", "runs", "run", "morning", 12, ["in the {pl} park", "along the beach", "on the track"]),
    ("dollars", "[saves|puts aside]", "save", "week", 40, ["from {his} paper round", "in a jar", "for a trip to {pl}"]),
    ("laps", "swims", "swim", "morning", 30, ["at the {pl} pool", "in the lido", "before work"]),
    ("letters", "writes", "write", "week", 12, ["to pen pals", "to {his} {rel}", "for the {pl} club"]),
    ("new words", "learns", "learn", "day", 25, ["in Spanish", "for a spelling test", "from a phrase book"]),
    ("photos", "takes", "take", "day", 40, ["of birds in {pl}", "for the school paper", "on a trip to {pl}"]),
    ("bottles", "recycles", "recycle", "week", 30, ["at the {pl} depot", "for the school drive", ""]),
    ("seedlings", "plants", "plant", "day", 35, ["on the {pl} allotments", "in the community garden", ""]),
    ("kilometres", "walks", "walk", "evening", 8, ["with the dog", "around {pl}", "by the river"]),
    ("cards", "[makes|designs]", "make", "day", 15, ["for the {pl} craft stall", "for friends", ""]),
    ("eggs", "collects", "collect", "morning", 20, ["from the hens", "at {his} {rel}'s farm", ""]),
    ("jars of jam", "[makes|cooks up]", "make", "day", 18, ["for the {pl} market", "in the kitchen", ""]),
]
_SHOPS = ["market", "street bazaar", "department store", "charity shop", "flea market", "corner shop", "village store",
          "night market", "garage sale", "supermarket", "general store", "antique fair", "craft fair"]
_PAIRS = [
    ("boys", "girls", ["In {his} [class|choir|swimming club|chess club]", "At the {pl} [summer camp|youth orchestra]"]),
    ("red cars", "blue cars", ["In the {pl} car park", "On {n}'s street", "At the {pl} garage"]),
    ("adults", "children", ["At the {pl} [swimming baths|puppet show|museum]", "On the {pl} ferry"]),
    ("cats", "dogs", ["At the {pl} animal shelter", "On {n}'s street", "At the {pl} vet clinic"]),
    ("oak trees", "pine trees", ["In the {pl} park", "Along the road to {pl}", "Behind {n}'s school"]),
    ("paperbacks", "hardbacks", ["On {n}'s shelf", "In the {pl} library sale box", "In {his} bag"]),
    ("sheep", "goats", ["On the {pl} farm", "In the field behind {n}'s house"]),
    ("tulips", "daffodils", ["In {n}'s garden", "In the {pl} flower bed", "At the {pl} flower stall"]),
    ("violins", "cellos", ["In the {pl} school orchestra", "At the {pl} music shop"]),
    ("hens", "ducks", ["On {n}'s farm", "At the {pl} city farm", "Around the {pl} village pond"]),
    ("blue tiles", "white tiles", ["On {n}'s kitchen wall", "On the {pl} bathhouse floor"]),
    ("apple trees", "pear trees", ["In the {pl} orchard", "In {n}'s grandparents' garden"]),
    ("rowing boats", "canoes", ["At the {pl} boat hire", "On the {pl} lake"]),
    ("vans", "lorries", ["At the {pl} depot", "In the {pl} lorry park"]),
]
_ROWS = [  # (what (None: a plant), groups, verb, where, whether 'adds more' fits)
    (None, "rows", "[plants|sets out|grows]", ["in {his} garden", "on {his} allotment", "behind the house"], True),
    ("chairs", "rows", "[sets up|arranges|puts out]", ["for the {ev}", "in the {pl} village hall"], True),
    ("seats", "buses", "[books|fills|counts]", ["for the trip to {pl}", "for the {ev}"], False),
    ("tiles", "rows", "[lays|fits]", ["on {his} kitchen floor", "around the {pl} fountain"], True),
    ("eggs", "cartons", "[buys|collects|packs]", ["at the {pl} farm", "for the {ev}"], True),
    ("bottles", "crates", "[stacks|loads|stores]", ["in the {pl} cellar", "for the {ev}"], True),
    ("books", "shelves", "[fills|dusts|sorts]", ["in {his} study", "at the {pl} library"], True),
    ("apples", "baskets", "[picks|fills|carries]", ["at the {pl} orchard", "for the {ev}"], True),
    ("cupcakes", "trays", "[bakes|ices|carries]", ["for the {ev}", "for the {pl} school fair"], True),
]
_FAIRS = ["school fair", "bake sale", "street party", "church fete", "harvest supper", "village show", "jumble sale",
          "charity market", "summer camp", "scout jamboree"]


def generate_easy_gsm8k(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"easy-gsm8k|{seed}")
    return [_gsm_item(rng) for _ in range(n)]
