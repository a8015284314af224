"""GSM8K-like word problems in the official JSONL schema {question, answer: '<steps>\\n#### n'}.

Every step's arithmetic is evaluated with rc1.tools.calc (the policy's own calculator) and written as a
GSM8K calculator annotation <<expr=value>>, so answers are correct by construction and re-checkable.
Each scenario family (shopping, wages, baking, travel, gardening, sport, school, rent, pets ...) draws
its numbers first, solves the problem step by step, then words it: an optional scene-setting sentence,
the givens in one of several frames and orders, and one of several ways to ask.
"""

from __future__ import annotations

import random
import re
from typing import Callable

from rc1.data import builtin_vocab as V
from rc1.data.builtin_vocab import alt, cap
from rc1.tools import calc

_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve"]


class Solution:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []

    def eq(self, expr: str) -> tuple[str, int]:
        """'a*b = <<a*b=v>>v' and v (all builtin problems stay in whole numbers)."""
        out = calc(expr)
        if out.startswith("error") or "." in out:
            raise ArithmeticError(f"builtin step {expr!r} gave {out!r}")
        return f"{expr} = <<{expr}={out}>>{out}", int(out)

    def say(self, text: str) -> None:
        self.lines.append(alt(text, self.rng))

    def record(self, question: str, answer: int) -> dict:
        return {"question": question, "answer": "\n".join(self.lines) + f"\n#### {answer}"}


class Who:
    """A person in a story: name and pronouns."""

    def __init__(self, rng: random.Random, name: str | None = None):
        self.name = name or rng.choice(V.FIRST_NAMES)
        self.she = V.is_female(self.name, rng)
        self.p, self.poss, self.obj = ("she", "her", "her") if self.she else ("he", "his", "him")
        self.P, self.Poss = cap(self.p), cap(self.poss)
        self.full = f"{self.name} {V.surname(rng)}" if rng.random() < 0.5 else self.name


def num(rng: random.Random, n: int) -> str:
    """Small counts are sometimes written as words, as in GSM8K."""
    return _NUMBER_WORDS[n] if 2 <= n <= 12 and rng.random() < 0.3 else str(n)


def money(n: int) -> str:
    return f"${n}"


SCENE_TIMES = ["On Saturday morning", "Last weekend", "During the summer holidays", "Before the school year starts",
               "One Sunday", "In early <MONTH>", "Over the long weekend", "On the first day of the <PLACE> fair",
               "After work on Friday", "One rainy afternoon", "At the start of <MONTH>", "During spring break",
               "On a cold evening", "The week before the exams", "Early one morning", "On market day in <PLACE>",
               "Just before the holidays", "In the middle of <MONTH>", "On the last day of term", "This <MONTH>",
               "Back from a trip to <PLACE>", "While <PO> <RELATIVE> is away", "After a long shift", "On <PO> day off",
               "The night before a <OCCASION>", "Between two exams", "On a windy <MONTH> morning"]
SCENE_DOINGS = [
    "is [saving up|putting money aside] for <GOAL>", "is helping <PO> <RELATIVE> with a <OCCASION>",
    "has just moved to <PLACE>", "runs a small <CRAFTPLACE> in <PLACE>", "keeps a budget in a [battered|little|<ADJ>] notebook",
    "is planning a <OCCASION> for <PO> <RELATIVE>", "volunteers at the <PLACE> [community centre|food bank|library|animal shelter]",
    "[wants|hopes] to surprise <PO> <RELATIVE>", "is [redecorating|tidying|reorganizing] <PO> [flat|garage|studio|allotment shed]",
    "[shares|rents] a [flat|house|room] with <PERSON>", "is [organizing|running] a stall at the <PLACE> <EVENT>",
    "has [taken up|started] <HOBBY>", "is [training|studying] to become a <JOB>", "is on holiday in <PLACE>",
    "[works|helps out] at <PO> <RELATIVE>'s <CRAFTPLACE>", "is [clearing out|sorting] <PO> <RELATIVE>'s attic",
    "has [promised|offered] to [cook|bake|shop] for a <OCCASION>", "is [keeping track of|logging] every expense this month",
    "[is|was] [stocking up for the week|running errands|shopping for a gift|buying supplies|replacing old things]",
]
SCENE_ASIDES = [
    "The weather in <PLACE> is [grey|glorious|freezing|muggy|unpredictable] [again|as usual|today].",
    "<PO_CAP> <RELATIVE> [insists on|keeps asking about|offers to check] the [maths|numbers|sums].",
    "[Everything|All of it] has to be [ready|sorted|done] before <PO> <RELATIVE> [arrives|gets home|calls].",
]
GENERATED_LOCAL = {"GOAL": V.GOALS, "EVENT": V.EVENTS, "JOB": V.JOBS}


def scene(rng: random.Random, w: Who, *own: str) -> str:
    """An optional scene-setting sentence or two (no numbers in them): the scenario's own or a generic one."""
    if rng.random() < 0.3:
        return ""
    local = {"PO": [w.poss], "PO_CAP": [w.Poss], **GENERATED_LOCAL}
    if own and rng.random() < 0.45:
        out = rng.choice(own)
    else:
        t = rng.choice(SCENE_TIMES)
        d = rng.choice(SCENE_DOINGS)
        out = rng.choice([f"{t}, {w.name} {d}.", f"{w.name} {d}.", f"{t}, {w.name} {d}."])
    if rng.random() < 0.2:
        out += " " + rng.choice(SCENE_ASIDES)
    return alt(out, rng, local)


def ask(rng: random.Random, *frames: str) -> str:
    return rng.choice(frames)


def story(rng: random.Random, who: "Who | None", *parts: str) -> str:
    """The problem text; the first mention of the main character sometimes gets a surname too."""
    text = alt(" ".join(p for p in parts if p), rng)
    if who is not None and who.full != who.name:
        text = re.sub(rf"\b{re.escape(who.name)}\b(?!')", who.full, text, count=1)
    return text


# ------------------------------------------------------------------ scenarios
def shopping(rng: random.Random) -> dict:
    w = Who(rng)
    (a1, a2, lo1, hi1), (b1, b2, lo2, hi2) = rng.sample(V.ITEMS, 2)
    na, nb = rng.randint(2, 9), rng.randint(2, 7)
    pa, pb = rng.randint(lo1, hi1), rng.randint(lo2, hi2)
    shop = rng.choice(V.SHOPS)
    s = Solution(rng)
    ta, va = s.eq(f"{na}*{pa}")
    s.say(f"[The {a2} cost|{w.P} pays|For the {a2} that is] {ta} dollars[.| in all.]")
    tb, vb = s.eq(f"{nb}*{pb}")
    s.say(f"[The {b2} cost|Then the {b2} come to|The {b2} add] {tb} dollars.")
    tt, total = s.eq(f"{va}+{vb}")
    s.say(f"[Altogether|In total|So] {w.p} spends {tt} dollars.")
    intro = scene(rng, w, f"{w.name} [is|was] {rng.choice(V.ERRANDS)} at the {shop}.",
                  f"{w.name} has a [short|long|crumpled] shopping list for the {shop}.")
    buy = rng.choice([
        f"{w.name} [buys|picks up|purchases|gets] {num(rng, na)} {a2} [for|at] {money(pa)} [each|apiece] and {num(rng, nb)} {b2} [for|at] {money(pb)} [each|apiece] [at the {shop}|].",
        f"At the {shop}, {a2} cost {money(pa)} each and {b2} cost {money(pb)} each. {w.name} [takes|chooses|puts] {num(rng, na)} {a2} and {num(rng, nb)} {b2} [in the basket|into the cart|].",
        f"{w.name} [needs|wants] {num(rng, na)} {a2} and {num(rng, nb)} {b2}. The {shop} [sells|charges] {money(pa)} [for each|per] {a1} and {money(pb)} [for each|per] {b1}.",
        f"{num(rng, na)} {a2} at {money(pa)} [each|apiece] and {num(rng, nb)} {b2} at {money(pb)} [each|apiece] [go into|end up in] {w.name}'s [basket|bag|trolley].",
    ])
    if rng.random() < 0.45:
        bill = ((total // 50) + 1) * 50 + rng.choice([0, 50])
        tc, change = s.eq(f"{bill}-{total}")
        s.say(f"[The change from|Paying with] ${bill} [leaves|gives back] {tc} dollars.")
        pay = rng.choice([f"{w.P} pays with {money(bill)}[ in cash|].", f"{w.P} hands [the cashier|over] a {money(bill)} [note|bill].",
                          f"{w.name} [has|brought] exactly {money(bill)} [in|inside] {w.poss} [wallet|purse|pocket] and pays with all of it."])
        q = ask(rng, f"How much change does {w.name} get [back|]?", f"What change should {w.p} receive?",
                "How many dollars come back as change?", f"[Work out|Find] the change {w.name} [gets|is given].")
        return s.record(story(rng, w, intro, buy, pay, q), change)
    q = ask(rng, f"How [many dollars|much money] does {w.p} spend [in total|altogether|overall|]?",
            "What is the [total bill|total cost|whole bill|combined price] in dollars?",
            f"How much does {w.name} [pay|owe|spend] [at the till|at the counter|for everything|]?",
            f"[Find|Calculate|Work out] what {w.name} spends.", f"What does the [whole|] shopping trip cost {w.obj}?")
    return s.record(story(rng, w, intro, buy, q), total)







def farm_legs(rng: random.Random) -> dict:
    w = Who(rng)
    (a, la), (b, lb) = rng.sample(V.ANIMALS_FARM, 2)
    na, nb = rng.randint(3, 30), rng.randint(2, 20)
    s = Solution(rng)
    ta, xa = s.eq(f"{na}*{la}")
    s.say(f"The {a} have {ta} legs.")
    tb, xb = s.eq(f"{nb}*{lb}")
    s.say(f"The {b} have {tb} legs.")
    tt, legs = s.eq(f"{xa}+{xb}")
    s.say(f"[Together|In all|Altogether]: {tt} legs.")
    place = V.place_name(rng)
    intro = scene(rng, w, f"{w.name} [inherited|bought|runs] a [small|hillside|family] farm near {place}.",
                  f"[Every morning|At dawn|Before school] {w.name} [counts|feeds|checks on] the animals.")
    body = rng.choice([
        f"{w.name}'s [farm|smallholding|ranch] has {na} {a} and {nb} {b}.",
        f"On a [hill|river|valley|island] farm near {place} there are {na} {a} and {nb} {b}.",
        f"[In|Inside] {w.name}'s [barn|yard|paddock] [live|stand] {na} {a} [plus|and] {nb} {b}.",
        f"{w.name} keeps {na} {a}; {w.poss} {rng.choice(V.RELATIVES)} keeps {nb} {b} on the same [land|farm].",
    ])
    q = ask(rng, "How many legs do [these|the|all these] animals have [altogether|in total|combined]?",
            "Counting every animal, how many legs are there?", "[Count the legs|How many legs is that|What is the total leg count]?")
    return s.record(story(rng, w, intro, body, q), legs)


def ages(rng: random.Random) -> dict:
    a, b = rng.sample(V.FIRST_NAMES, 2)
    age_b = rng.randint(5, 40)
    diff = rng.randint(2, 15)
    years = rng.randint(2, 12)
    s = Solution(rng)
    ta, age_a = s.eq(f"{age_b}+{diff}")
    s.say(f"{a} is {ta} years old now.")
    tfa, fa = s.eq(f"{age_a}+{years}")
    tfb, fb = s.eq(f"{age_b}+{years}")
    s.say(f"In {years} years {a} will be {tfa} and {b} will be {tfb}.")
    tt, total = s.eq(f"{fa}+{fb}")
    s.say(f"Their ages will add up to {tt}.")
    rel = rng.choice(["cousins", "neighbors", "friends", "siblings", "teammates", "pen pals", "colleagues", "classmates"])
    q = ask(rng, f"{a} is {diff} years older than {b}, who is {age_b}. What will the sum of their ages be in {years} years?",
            f"{b} just turned {age_b}. {a} is {diff} years older. How old will the two of them be [combined|together|in total] {years} years from now?",
            f"[Today|This year] {b} is {age_b} [and|while] {a} is {diff} years older. In {years} years, what [will their ages add up to|is the total of their ages]?",
            f"{a} and {b} are {rel}. {b} is {age_b} years old and {a} is {diff} years older. [Add up|Find the sum of] their ages {years} years from now.")
    return s.record(alt(q, rng), total)




def collection(rng: random.Random) -> dict:
    w = Who(rng)
    thing = rng.choice(V.COLLECTIBLES)
    friends = rng.randint(2, 6)
    each = rng.randint(3, 12)
    packs, per_pack = rng.randint(2, 6), rng.randint(5, 15)
    start = friends * each + rng.randint(4, 60)
    s = Solution(rng)
    tg, given = s.eq(f"{friends}*{each}")
    s.say(f"{w.P} gives away {tg} {thing}.")
    tl, left = s.eq(f"{start}-{given}")
    s.say(f"{tl} {thing} are left.")
    tn, new = s.eq(f"{packs}*{per_pack}")
    s.say(f"The new packs hold {tn} {thing}.")
    tt, total = s.eq(f"{left}+{new}")
    s.say(f"Now {w.p} has {tt} {thing}.")
    who = rng.choice(["friends", "cousins", "neighbors", "teammates", "classmates", "campers", "younger kids"])
    intro = scene(rng, w, f"{w.name} has collected {thing} since [primary school|a trip to {V.place_name(rng)}|{w.poss} {rng.choice(V.RELATIVES)} gave {w.obj} the first ones].")
    body = rng.choice([
        f"{w.name} has {start} {thing}. {w.P} gives {each} to each of {num(rng, friends)} {who}, then buys {num(rng, packs)} packs with {per_pack} {thing} in each.",
        f"{w.name} started the [month|year|summer|term] with {start} {thing}, handed {each} apiece to {friends} {who}, and later bought {packs} packets of {per_pack}.",
        f"Out of {w.poss} {start} {thing}, {w.name} [shared|gave] {each} with each of {friends} {who}. [Then|Later|The next day] {w.p} [found|bought|ordered] {packs} [boxes|packs|bags] of {per_pack} {thing}.",
    ])
    q = ask(rng, f"How many {thing} does {w.name} have now?", f"How many {thing} are in the collection now?",
            f"What is the size of {w.name}'s collection [now|at the end]?")
    return s.record(story(rng, w, intro, body, q), total)



def tank(rng: random.Random) -> dict:
    cont = rng.choice(V.CONTAINERS)
    fill, leak = rng.randint(8, 30), rng.randint(1, 7)
    minutes = rng.randint(5, 40)
    start = rng.randint(0, 10) * 10
    s = Solution(rng)
    tn, net = s.eq(f"{fill}-{leak}")
    s.say(f"The {cont} gains {tn} liters each minute.")
    tg, gained = s.eq(f"{net}*{minutes}")
    s.say(f"In {minutes} minutes it gains {tg} liters.")
    tt, total = s.eq(f"{start}+{gained}")
    s.say(f"It then holds {tt} liters.")
    src, hole = rng.choice(["hose", "pipe", "pump", "tap", "garden hose", "spout"]), rng.choice(["crack", "leak", "hole", "loose valve", "split seam"])
    q = story(rng, None, rng.choice([
        f"A {cont} already holds {start} liters. A {src} adds {fill} liters per minute while a {hole} loses {leak} liters per minute.",
        f"[Water|Rainwater] pours into a {cont} from a {src} at {fill} liters a minute, but a {hole} lets {leak} liters a minute [escape|drain away]. [At the start|To begin with] there are {start} liters in it.",
    ]), ask(rng, f"How many liters are in the {cont} after {minutes} minutes?", f"After {minutes} minutes, how much water [is in|does] the {cont} [hold|]?"))
    return s.record(q, total)




def stand(rng: random.Random) -> dict:
    w = Who(rng)
    product = rng.choice(["lemonade", "iced tea", "hot chocolate", "fresh juice", "popcorn", "cookies", "flowers",
                          "snow cones", "bookmarks", "smoothies"])
    unit = {"flowers": "bunches", "cookies": "bags", "bookmarks": "bookmarks", "popcorn": "bags"}.get(product, "cups")
    sold, price, cost = rng.randint(20, 90), rng.randint(1, 5), rng.randint(5, 40)
    while sold * price <= cost:
        sold += 10
    s = Solution(rng)
    tr, rev = s.eq(f"{sold}*{price}")
    s.say(f"[Sales bring in|{w.P} takes in] {tr} dollars.")
    tp, profit = s.eq(f"{rev}-{cost}")
    s.say(f"The profit is {tp} dollars.")
    intro = scene(rng, w, f"{w.name} [sets up|opens|runs] a {product} stand [outside the library|at the {rng.choice(V.EVENTS)}|on {w.poss} street].")
    body = rng.choice([
        f"{w.name} spent {money(cost)} on supplies and [sold|sells] {sold} {unit} of {product} at {money(price)} each.",
        f"At {money(price)} [a|per] {unit[:-1] if unit.endswith('s') else unit}, {w.name} sold {sold} {unit} of {product}. The supplies had cost {money(cost)}.",
    ])
    q = ask(rng, f"How much profit did {w.name} make?", "What is the profit in dollars?", f"How much did {w.p} earn after paying for supplies?")
    return s.record(story(rng, w, intro, body, q), profit)












def restaurant(rng: random.Random) -> dict:
    w = Who(rng)
    friends = rng.choice([2, 4, 5])
    pct = rng.choice([10, 15, 20])
    bill = rng.randint(4, 30) * 20
    while (bill * (100 + pct)) % (100 * friends):
        bill += 20
    place = rng.choice(["noodle bar", "pizzeria", "diner", "tapas bar", "steakhouse", "sushi place", "café", "curry house",
                        "bistro", "dumpling house", "taverna", "ramen shop", "fish restaurant", "beer garden", "crêperie",
                        "vegetarian kitchen", "hotel restaurant", "food truck"])
    venue = f"{rng.choice(['the', 'a'])} {V.surname(rng) + chr(39) + 's ' if rng.random() < 0.4 else ''}{place}"
    s = Solution(rng)
    tt, tip = s.eq(f"{bill}*{pct}/100")
    s.say(f"The tip is {tt} dollars.")
    tb, total = s.eq(f"{bill}+{tip}")
    s.say(f"[The bill with tip|With the tip, the total] is {tb} dollars.")
    te, each = s.eq(f"{total}/{friends}")
    s.say(f"[Each person pays|Split {friends} ways, that is] {te} dollars.")
    dish = rng.choice(["noodles", "pizza", "tapas", "grilled fish", "curry", "dumplings", "pancakes", "stew", "burgers"])
    intro = scene(rng, w, f"{w.name} [meets|goes out with] friends at {venue} [in <PLACE>|after work|to celebrate a <OCCASION>].",
                  f"[It is|For] {w.poss} <RELATIVE>'s <OCCASION>, so {w.name} [books|reserves] a table at {venue}.")
    body = rng.choice([
        f"{w.name} and {friends - 1} friends [eat|have dinner|share {dish}] at {venue}. The bill is {money(bill)} and they add a {pct}% tip, then split the total evenly.",
        f"Dinner at {venue} for {num(rng, friends)} people comes to {money(bill)}. They leave a tip of {pct} percent and share the cost equally.",
        f"[After|Over] a long meal of {dish}, the bill for {w.name}'s table of {friends} [arrives|comes]: {money(bill)}. Everyone agrees to [add|leave] {pct}% for the [staff|waiter|kitchen] and to pay equal shares.",
        f"{num(rng, friends).capitalize()} [colleagues|cousins|teammates|old classmates], {w.name} among them, [run up|rack up] a {money(bill)} bill at {venue}. A {pct}% tip goes on top, and the total is [divided|split] equally.",
        f"At {venue} the food for {w.name}'s group of {friends} costs {money(bill)}. They tip {pct} percent of the bill and [divide|split] the whole amount [evenly|equally|into equal parts].",
    ])
    q = ask(rng, "How much does each person pay?", f"What is {w.name}'s share[ in dollars|]?", "How many dollars does each of them [put in|hand over|pay]?",
            "<FIND> what each person [owes|pays].", "What does one share come to?")
    return s.record(story(rng, w, intro, body, q), each)


def library(rng: random.Random) -> dict:
    start = rng.randint(200, 900)
    out_per, days = rng.randint(10, 40), rng.randint(3, 7)
    back = rng.randint(5, 60)
    donated = rng.randint(0, 50)
    if out_per * days > start:
        start = out_per * days + rng.randint(50, 300)
    lib = f"{V.place_name(rng)} {rng.choice(['Public Library', 'School Library', 'Reading Room', 'Book Club', 'Mobile Library', 'Community Library', 'Village Library', 'Hospital Library', 'Seamen’s Library'.replace('’', '')])}"
    librarian = f"{rng.choice(['Mr.', 'Ms.', 'Mrs.'])} {V.surname(rng)}"
    s = Solution(rng)
    to, out = s.eq(f"{out_per}*{days}")
    s.say(f"{to} books are [borrowed|checked out].")
    tt, now = s.eq(f"{start}-{out}+{back}+{donated}")
    s.say(f"There are now {tt} books on the shelves.")
    donor = rng.choice(["a local author", "a neighbour", "the council", "a retired teacher", "<PERSON>", "a bookshop in <PLACE>",
                        "the <PLACE> Rotary Club", "an anonymous donor"])
    intro = "" if rng.random() < 0.5 else rng.choice([f"{librarian} runs the {lib}.", f"The {lib} [reopened|moved into a former <APLACE><BUILDING>] last <MONTH>.",
                                                      f"{librarian} keeps a careful count of the books at the {lib}."])
    body = rng.choice([
        f"The {lib} has {start} books on its shelves. Over {days} days, {out_per} books are borrowed each day. During that time {back} books are returned and {donated} new books are donated.",
        f"At the start of the week the {lib} had {start} books. Readers borrowed {out_per} a day for {num(rng, days)} days, while {back} came back and {donor} donated {donated}.",
        f"{start} books sit on the shelves of the {lib}. For {num(rng, days)} days running, {out_per} [go out|are checked out|leave] every day; meanwhile {back} [come back|are returned] and {donor} [drops off|gives] {donated} more.",
        f"{librarian} counts {start} books [on the shelves|in the stacks]. [Over|In] the next {days} days {out_per} books are lent out daily, {back} borrowed books [return|are brought back], and {donated} [arrive|come in] as a gift from {donor}.",
    ])
    q = ask(rng, "How many books are on the shelves now?", f"How many books does the {lib} have on its shelves at the end?",
            "What is the number of books on the shelves after those days?", "<FIND> how many books are [now|then] on the shelves.")
    return s.record(story(rng, None, intro, body, q), now)


def pet_food(rng: random.Random) -> dict:
    w = Who(rng)
    pet, food = rng.choice(V.PETS)
    n, per_day, days = rng.randint(1, 4), rng.randint(1, 3), rng.choice([7, 10, 14, 21, 28, 30])
    pack = rng.choice([2, 4, 6, 7, 12])
    while (n * per_day * days) % pack:
        days += 1
    pet_name = rng.choice(["Biscuit", "Pepper", "Luna", "Mochi", "Rusty", "Ziggy", "Clover", "Nutmeg", "Pickle", "Hazel",
                           "Bruno", "Tofu", "Olive", "Pumpkin", "Kiwi", "Socks", "Maple", "Waffles"])
    s = Solution(rng)
    td, daily = s.eq(f"{n}*{per_day}")
    s.say(f"The {pet}s need {td} {food} a day." if n > 1 else f"The {pet} needs {td} {food} a day.")
    tt, total = s.eq(f"{daily}*{days}")
    s.say(f"[Over|For] {days} days that is {tt} {food}.")
    tp, packs = s.eq(f"{total}/{pack}")
    s.say(f"{w.P} must buy {tp} packs.")
    pets = f"{num(rng, n)} {pet}s" if n > 1 else f"a {pet} called {pet_name}"
    intro = scene(rng, w, f"{w.name} is going away and [leaves|writes] a note for the pet sitter.",
                  f"{w.name} [adopted|rescued|took in] {pets} [last spring|from a shelter in <PLACE>|from a neighbour].",
                  f"{w.name} [stocks up|shops] at the <PLACE> pet shop [once a month|before every trip|on Saturdays].")
    each = "Each eats" if n > 1 else "It eats"
    body = rng.choice([
        f"{w.name} has {pets}. {each} {per_day} {food} a day, and the {food} come in packs of {pack}.",
        f"{w.name}'s {pets} [each get|are each fed] {num(rng, per_day)} {food} per day. The shop sells them in packs of {pack}." if n > 1 else
        f"{w.name}'s {pet}, {pet_name}, gets {num(rng, per_day)} {food} per day. The shop sells them in packs of {pack}.",
        f"[Every day|Each day|Daily], {w.name} gives {per_day} {food} to each of {w.poss} {n} {pet}s. A pack [holds|contains] {pack}." if n > 1 else
        f"[Every day|Each day|Daily], {w.name} gives {pet_name} the {pet} {per_day} {food}. A pack [holds|contains] {pack}.",
        f"{food.capitalize()} are sold in packs of {pack}, and {w.name} [feeds|gives] {per_day} a day to [every one of {w.poss} {n} {pet}s|each of {w.poss} {n} {pet}s]." if n > 1 else
        f"{food.capitalize()} are sold in packs of {pack}, and {w.name} [feeds|gives] {per_day} a day to {w.poss} {pet}.",
    ])
    q = ask(rng, f"How many packs are needed for {days} days?", f"How many packs should {w.name} buy to cover {days} days?",
            f"[To last|For] {days} days, how many packs [does {w.p} need|must {w.p} buy]?", f"<FIND> the number of packs needed for {days} days.")
    return s.record(story(rng, w, intro, body, q), packs)


def tickets(rng: random.Random) -> dict:
    w = Who(rng)
    adults, kids = rng.randint(1, 6), rng.randint(1, 8)
    pa, pk = rng.randint(8, 40), rng.randint(3, 20)
    while pk >= pa:
        pk -= 2
    pk = max(pk, 1)
    venue = rng.choice(["zoo", "museum", "aquarium", "theme park", "planetarium", "cinema", "circus", "water park",
                        "science center", "castle", "botanical garden", "ice rink", "wildlife park", "railway museum",
                        "puppet theatre", "climbing centre", "farm park", "butterfly house", "maritime museum"])
    where = f"the {V.place_name(rng)} {venue}" if rng.random() < 0.5 else f"the {venue}"
    s = Solution(rng)
    ta, va = s.eq(f"{adults}*{pa}")
    s.say(f"Adult tickets cost {ta} dollars.")
    tk, vk = s.eq(f"{kids}*{pk}")
    s.say(f"[Children's tickets|The tickets for the children] cost {tk} dollars.")
    tt, total = s.eq(f"{va}+{vk}")
    s.say(f"The tickets cost {tt} dollars <ALL>.")
    intro = scene(rng, w, f"{w.name} [takes|is taking] the family to {where} [for a <OCCASION>|on a day off|for {w.poss} <RELATIVE>'s birthday].",
                  f"It [rains|pours] all morning, so {w.name} [suggests|chooses] {where}.")
    body = rng.choice([
        f"At {where}, adult tickets cost {money(pa)} and children's tickets cost {money(pk)}. {w.name}'s group has {num(rng, adults)} adults and {num(rng, kids)} children.",
        f"{w.name} buys tickets to {where} for {adults} adults at {money(pa)} <EACH> and {kids} children at {money(pk)} <EACH>.",
        f"{num(rng, adults).capitalize()} adults and {num(rng, kids)} kids go to {where}. Entry is {money(pa)} for an adult and {money(pk)} for a child.",
        f"A day pass to {where} [costs|is] {money(pa)} for grown-ups and {money(pk)} for children. {w.name} [pays for|books] {adults} [grown-ups|adults] and {kids} children.",
        f"{w.name}'s [party|group|crowd] for {where} [is made up of|has] {kids} children and {adults} adults; a child's ticket is {money(pk)} and an adult's is {money(pa)}.",
    ])
    if rng.random() < 0.4:
        extra = rng.randint(2, 9)
        tp, np_ = s.eq(f"{adults}+{kids}")
        s.say(f"There are {tp} people.")
        te, ve = s.eq(f"{np_}*{extra}")
        s.say(f"[Snacks|The extras] cost {te} dollars.")
        tg, grand = s.eq(f"{total}+{ve}")
        s.say(f"Everything costs {tg} dollars.")
        snack = rng.choice(["an ice cream", "a drink", "a souvenir badge", "a sandwich", "a bag of popcorn", "a map",
                            "a postcard", "a pretzel", "a paper hat", "a bottle of water"])
        body += f" [Everyone|Each person] also gets {snack} for {money(extra)}."
        q = ask(rng, "How much does the [whole|] outing cost?", f"What does {w.name} spend <ALL>?", "What is the total cost of the day?")
        return s.record(story(rng, w, intro, body, q), grand)
    q = ask(rng, "How much do the tickets cost <ALL>?", f"What does {w.name} pay for the tickets?", "What is the total price of the tickets?",
            "<FIND> the cost of all the tickets.")
    return s.record(story(rng, w, intro, body, q), total)


def classroom(rng: random.Random) -> dict:
    frac_d = rng.choice([2, 4])
    groups = rng.randint(2, 6) * frac_d
    size = rng.choice([3, 4, 5, 6, 7, 8])
    club = rng.choice(V.SCHOOL_CLUBS)
    school = f"{V.place_name(rng)} {rng.choice(['Primary', 'Middle School', 'High School', 'Academy', 'Grammar School', 'Community School', 'Secondary School', 'College'])}"
    teacher = f"{rng.choice(['Mr.', 'Ms.', 'Mrs.', 'Dr.'])} {V.surname(rng)}"
    s = Solution(rng)
    tt, total = s.eq(f"{groups}*{size}")
    s.say(f"There are {tt} students.")
    tg, part = s.eq(f"{total}/{frac_d}")
    s.say(f"{tg} students [may|can|are allowed to] join.")
    joined = rng.randint(1, part)
    tl, notj = s.eq(f"{part}-{joined}")
    s.say(f"{tl} of them did not join.")
    share = {2: "Half", 4: "One quarter"}[frac_d]
    intro = "" if rng.random() < 0.4 else rng.choice([
        f"{teacher} [runs|coaches|organizes] the {club} at {school}.",
        f"[This term|This year|In the spring term] {school} [is starting|relaunches|reopens] its {club}.",
        f"The {club} at {school} [won a prize|went on a trip to <PLACE>|got a new room] last year.",
    ])
    subj = rng.choice(V.SUBJECTS)
    body = rng.choice([
        f"At {school}, a class is [split|divided|sorted] into {groups} groups of {size}. {share} of the students are [old enough|eligible] for the {club}, and {joined} of those [sign up|join|enrol].",
        f"{teacher}'s class has {groups} [tables|teams|groups] with {size} students [at each|in each]. {share} of the class [qualifies|can apply] for the {club}; {joined} of them [do|sign up].",
        f"The {subj} class at {school} [works|sits] in {groups} groups of {size}. {share} of the students [are eligible|have the grades] for the {club}, and {joined} [join|enrol].",
        f"{teacher} [teaches|takes] {subj} to {groups} groups of {size} pupils. [Only|Just] {share.lower()} of them are [in the right year|old enough] for the {club}, and {joined} [put their names down|sign up].",
        f"{groups} [teams|groups] of {size} students [fill|make up] a year group at {school}. The {club} is open to {share.lower()} of them; {joined} [take up the offer|join].",
    ])
    q = ask(rng, "How many of the eligible students did not [sign up|join]?", f"How many eligible students [stayed out|did not join the {club}]?",
            f"<FIND> how many eligible students [are not in|skipped] the {club}.", "Of the students who could join, how many did not?")
    return s.record(story(rng, None, intro, body, q), notj)


def fundraiser(rng: random.Random) -> dict:
    event = rng.choice(V.EVENTS)
    split = rng.choice([2, 3, 4, 5])
    tickets_, price = rng.randint(10, 80) * split, rng.randint(2, 15)
    costs = rng.randint(5, 40) * split
    while tickets_ * price - costs <= 0 or (tickets_ * price - costs) % split:
        tickets_ += split
    s = Solution(rng)
    tr, revenue = s.eq(f"{tickets_}*{price}")
    s.say(f"Ticket sales bring in {tr} dollars.")
    tp, profit = s.eq(f"{revenue}-{costs}")
    s.say(f"After costs the profit is {tp} dollars.")
    ts, share = s.eq(f"{profit}/{split}")
    s.say(f"Each [charity|one] gets {ts} dollars.")
    benef = rng.choice(["charities", "clubs", "schools", "shelters", "libraries", "clinics", "youth teams", "food banks",
                        "hospices", "animal rescues", "scout groups"])
    place = V.place_name(rng)
    organizer = rng.choice([f"The {place} <ORGKIND>", "<PERSON>", f"Volunteers in {place}", f"The parents' association in {place}",
                            f"A group of students from {place}"])
    cost_what = rng.choice(["the hall", "the equipment", "the food", "posters and printing", "the sound system", "insurance"])
    body = rng.choice([
        f"The {event} [at|in] {place} sold {tickets_} tickets at {money(price)} each. [Running it cost|Costs came to|Expenses totalled] {money(costs)}. The profit is [shared|split|divided] equally among {num(rng, split)} {benef}.",
        f"{organizer} [held|organized|ran] a {event}: {tickets_} tickets [went|sold] for {money(price)} apiece, and {cost_what} cost {money(costs)}. What was left is [split|shared] evenly between {num(rng, split)} local {benef}.",
        f"{tickets_} people paid {money(price)} <EACH> to attend a {event} in {place}. After paying {money(costs)} for {cost_what}, the organizers [give|hand] the rest in equal parts to {num(rng, split)} {benef}.",
        f"[Tickets|Entry] for the {place} {event} cost {money(price)}, and {tickets_} were sold. {cap(cost_what)} cost {money(costs)}; the money left over [goes|is donated] equally to {split} {benef}.",
    ])
    q = ask(rng, "How much does each [one|of them] receive?", f"How many dollars does each of the {benef} get?", "What is each share [in dollars|]?",
            f"<FIND> the amount each of the {benef} receives.")
    return s.record(story(rng, None, body, q), share)


def pizza(rng: random.Random) -> dict:
    w = Who(rng)
    food, unit = rng.choice([("pizzas", "slices"), ("pies", "pieces"), ("cakes", "slices"), ("watermelons", "wedges"),
                             ("lasagnas", "portions"), ("chocolate bars", "squares"), ("quiches", "slices"),
                             ("flatbreads", "pieces"), ("tortillas", "wedges"), ("sheet cakes", "squares"), ("tarts", "slices")])
    flavour = rng.choice(["cheese", "mushroom", "pepperoni", "spinach", "lemon", "cherry", "chocolate", "apple", "onion",
                          "tomato", "honey", "plum", "leek", "pumpkin", "olive", "carrot"])
    n, per = rng.randint(2, 8), rng.choice([6, 8, 10, 12])
    people, each = rng.randint(3, 12), rng.randint(1, 3)
    while people * each > n * per:
        people -= 1
    s = Solution(rng)
    tt, total = s.eq(f"{n}*{per}")
    s.say(f"There are {tt} {unit} [in all|altogether].")
    te, eaten = s.eq(f"{people}*{each}")
    s.say(f"The guests eat {te} {unit}.")
    tl, left = s.eq(f"{total}-{eaten}")
    s.say(f"{tl} {unit} are left over.")
    intro = scene(rng, w, f"{w.name} [hosts|throws|organizes] a <OCCASION>.", f"{w.name} [orders|brings|makes] food for a <OCCASION>.",
                  f"{w.name}'s <RELATIVE> [is in charge of|handles] the food for the <OCCASION>.")
    guests = rng.choice(["guests", "friends", "people", "kids", "players", "neighbours", "cousins", "volunteers"])
    body = rng.choice([
        f"{w.name} [orders|buys|brings] {num(rng, n)} {flavour} {food}, each cut into {per} {unit}. {people} {guests} each eat {num(rng, each)} {unit}.",
        f"There are {num(rng, n)} {flavour} {food} [on the table|in the kitchen], and every one [is cut|is divided] into {per} {unit}. Each of the {people} {guests} [has|takes|eats] {num(rng, each)}.",
        f"{num(rng, n).capitalize()} {food} ({flavour}) [arrive|are delivered|come out of the oven], each [sliced|cut] into {per} {unit}. [All|Each of the] {people} {guests} [eat|have] {each} {unit} [each|apiece].",
        f"{w.name} [cuts|slices] {n} {flavour} {food} into {per} {unit} each. [By the end of the evening|Before the games start|Within an hour] {people} {guests} have eaten {each} {unit} apiece.",
    ])
    q = ask(rng, f"<HOWMANY> {unit} are left?", f"How many {unit} [remain|are left over] [at the end|after everyone has eaten]?",
            f"<FIND> how many {unit} are <LEFT>.", f"What number of {unit} [is|are] <LEFT>?")
    return s.record(story(rng, w, intro, body, q), left)


def overtime(rng: random.Random) -> dict:
    w = Who(rng)
    rate = rng.randint(10, 30)
    base = rng.choice([35, 38, 40])
    hours = base + rng.randint(2, 15)
    s = Solution(rng)
    tb, basepay = s.eq(f"{base}*{rate}")
    s.say(f"Regular pay: {tb} dollars.")
    to, over = s.eq(f"{hours}-{base}")
    s.say(f"Overtime hours: {to}.")
    word = "time and a half" if rate % 2 == 0 else "double time"
    tr, otr = s.eq(f"{rate}*3/2" if rate % 2 == 0 else f"{rate}*2")
    s.say(f"The overtime rate is {tr} dollars an hour.")
    tp, otp = s.eq(f"{over}*{otr}")
    s.say(f"Overtime pay: {tp} dollars.")
    tt, total = s.eq(f"{basepay}+{otp}")
    s.say(f"Total: {tt} dollars.")
    job = rng.choice(V.JOBS + ["nurse", "welder", "electrician", "bus driver", "chef", "warehouse worker", "plumber",
                               "baker", "security guard", "porter", "mechanic", "printer"])
    employer = f"{rng.choice(['a busy', 'a small', 'a family-run', 'a large', 'a new'])} {rng.choice(V.SHOPS + ['hospital', 'factory', 'hotel', 'depot', 'bakery', 'garage'])}"
    intro = scene(rng, w, f"{w.name} works as a {job} [in <PLACE>|at {employer}|on the night shift].",
                  f"{w.name}'s [boss|manager|supervisor] asks {w.obj} to [stay late|cover extra shifts] during the <OCCASION> rush.")
    when = rng.choice(["Last week", "This week", f"One week in {rng.choice(V.MONTHS)}", "During the busy season",
                       "In the week before the holidays", "Over the past week"])
    body = rng.choice([
        f"{w.name} [earns|makes|is paid] {money(rate)} an hour for the first {base} hours of a week and {word} after that. {when} {w.p} worked {hours} hours.",
        f"{when} {w.name} put in {hours} hours. The first {base} hours pay {money(rate)} each; every hour beyond that is paid at {word}.",
        f"As a {job}, {w.name} gets {money(rate)} per hour up to {base} hours a week, and {word} for any extra hours. {when} {w.p} [clocked|logged|worked] {hours} hours.",
        f"{w.name}'s contract pays {money(rate)} an hour for {base} hours a week; overtime is paid at {word}. {when} {w.p} [did|worked] {hours} hours in total.",
    ])
    q = ask(rng, f"How much did {w.name} [earn|make|take home]?", f"What was {w.name}'s pay for that week?", f"<FIND> {w.poss} [total|weekly] pay.",
            "How many dollars did that week bring in?")
    return s.record(story(rng, w, intro, body, q), total)


def paint(rng: random.Random) -> dict:
    w = Who(rng)
    walls = rng.randint(2, 6)
    length, height = rng.randint(3, 9), rng.choice([2, 3, 4])
    coats = rng.choice([1, 2, 3])
    cover = rng.choice([5, 6, 8, 10, 12])
    while (walls * length * height * coats) % cover:
        walls += 1
    s = Solution(rng)
    ta, area = s.eq(f"{length}*{height}")
    s.say(f"One wall is {ta} square meters.")
    tw, all_ = s.eq(f"{area}*{walls}")
    s.say(f"{walls} walls make {tw} square meters.")
    tc, paint_area = s.eq(f"{all_}*{coats}")
    s.say(f"With {coats} coat{'s' if coats > 1 else ''} that is {tc} square meters to cover.")
    tn, cans = s.eq(f"{paint_area}/{cover}")
    s.say(f"{w.P} needs {tn} cans of paint.")
    room = rng.choice(["bedroom", "garage", "classroom", "shed", "studio", "hallway", "kitchen", "barn", "café", "gym",
                       "attic", "nursery", "workshop", "waiting room", "chapel", "boathouse"])
    color = rng.choice(["sky blue", "olive green", "white", "terracotta", "pale yellow", "charcoal", "lilac", "mint",
                        "brick red", "sea green", "dove grey", "mustard", "peach", "midnight blue"])
    intro = scene(rng, w, f"{w.name} [is repainting|decides to redecorate|finally paints] the {room} {color}.",
                  f"{w.name}'s <RELATIVE> [wants|has asked for] a {color} {room}.")
    c_s = "one coat" if coats == 1 else f"{num(rng, coats)} coats"
    body = rng.choice([
        f"The {room} has {num(rng, walls)} walls, each {length} m long and {height} m high. {w.name} wants {c_s} of paint, and one can covers {cover} square meters.",
        f"{w.name} must paint {walls} walls of {length} by {height} meters with {c_s}. Each can of {color} paint [covers|is enough for] {cover} m².",
        f"[Every|Each] wall of the {room} measures {length} m by {height} m, and there are {walls} of them. A can of paint covers {cover} square meters, and {w.name} [plans|wants] {c_s}.",
        f"To paint {walls} walls ({length} m wide, {height} m tall) in {color} with {c_s}, {w.name} [uses|buys] cans that cover {cover} m² each.",
    ])
    q = ask(rng, "How many cans of paint are needed?", f"How many cans should {w.name} buy?", "How many cans does the job take?",
            "<FIND> the number of cans needed.")
    return s.record(story(rng, w, intro, body, q), cans)


def subscription(rng: random.Random) -> dict:
    w = Who(rng)
    fee, months = rng.randint(5, 45), rng.randint(3, 12)
    extra_m, extra = rng.randint(1, months), rng.randint(2, 15)
    what = rng.choice(["phone plan", "gym membership", "music streaming plan", "internet contract", "bike-share pass",
                       "language app", "magazine subscription", "cloud storage plan", "parking permit", "bus pass",
                       "climbing wall membership", "meal-kit delivery", "newspaper subscription", "swimming pool pass"])
    why = rng.choice(["a late fee", "a roaming charge", "a guest pass", "an extra class", "extra data", "a replacement card",
                      "a delivery charge", "a service fee"])
    s = Solution(rng)
    tb, base = s.eq(f"{fee}*{months}")
    s.say(f"The [monthly fees|base fees] come to {tb} dollars.")
    te, ex = s.eq(f"{extra_m}*{extra}")
    s.say(f"The extra charges come to {te} dollars.")
    tt, total = s.eq(f"{base}+{ex}")
    s.say(f"Altogether {w.p} pays {tt} dollars.")
    intro = scene(rng, w, f"{w.name} [signed up for|switched to] a new {what}.", f"{w.name} [goes through|checks] {w.poss} bank statements for the year.")
    body = rng.choice([
        f"{w.name}'s {what} costs {money(fee)} a month. In {extra_m} of the {months} months {w.p} also paid {why} of {money(extra)}.",
        f"A {what} costs {money(fee)} per month. Over {months} months, {w.name} [was charged|paid] {why} of {money(extra)} in {num(rng, extra_m)} of them.",
        f"For {months} months {w.name} paid {money(fee)} a month for a {what}, plus {money(extra)} for {why} in {extra_m} of those months.",
        f"The {what} [is|costs] {money(fee)} monthly. {w.name} kept it for {num(rng, months)} months and [had to pay|was billed] {why} of {money(extra)} {extra_m} times.",
    ])
    q = ask(rng, f"How much did {w.name} pay over the {months} months?", f"What was the total cost of the {what}?",
            f"<FIND> what the {what} cost {w.obj} <ALL>.")
    return s.record(story(rng, w, intro, body, q), total)


def rent_split(rng: random.Random) -> dict:
    people = rng.randint(2, 5)
    rent = rng.randint(6, 30) * 100
    bills = rng.randint(4, 30) * 10
    while (rent + bills) % people:
        bills += 10
    names = rng.sample(V.FIRST_NAMES, min(people, 3))
    s = Solution(rng)
    tt, total = s.eq(f"{rent}+{bills}")
    s.say(f"The monthly cost is {tt} dollars.")
    te, each = s.eq(f"{total}/{people}")
    s.say(f"Each person pays {te} dollars.")
    home = rng.choice(["flat", "apartment", "house", "cottage", "loft", "student house", "houseboat", "farmhouse",
                       "terraced house", "studio above a bakery"])
    who = f"{', '.join(names[:-1])} and {names[-1]}" if people == len(names) else f"{names[0]} and {people - 1} {rng.choice(['friends', 'flatmates', 'classmates', 'colleagues', 'cousins'])}"
    bills_what = rng.choice(["bills", "utilities", "internet and heating", "water and power", "council tax", "cleaning and repairs"])
    body = rng.choice([
        f"{who} share a {home} in {V.place_name(rng)}. The rent is {money(rent)} a month and {bills_what} add {money(bills)}. They split everything equally.",
        f"A {home} costs {money(rent)} a month plus {money(bills)} for {bills_what}. {who} [divide|split|share] the total equally.",
        f"[The landlord|<PERSON>, the landlord,] charges {money(rent)} a month for the {home} where {who} live, and {bills_what} [cost|come to] another {money(bills)}. Each [pays|puts in] the same amount.",
        f"{who} [moved into|rent] a {home} near the {V.place_name(rng)} [station|harbour|market]: {money(rent)} rent and {money(bills)} for {bills_what} every month, split [evenly|equally].",
    ])
    q = ask(rng, "How much does each person pay per month?", "What is each person's monthly share?", "How many dollars does each of them pay a month?",
            "<FIND> one person's share for a month.")
    return s.record(story(rng, None, body, q), each)


def commission(rng: random.Random) -> dict:
    w = Who(rng)
    base = rng.randint(10, 40) * 50
    pct = rng.choice([2, 4, 5, 10, 20])
    sales = rng.randint(10, 200) * 100
    what = rng.choice(["cars", "houses", "furniture", "pianos", "solar panels", "bicycles", "insurance policies", "kitchens",
                       "boats", "tractors", "hearing aids", "sofas", "carpets", "advertising space", "holiday cottages"])
    s = Solution(rng)
    tc, com = s.eq(f"{sales}*{pct}/100")
    s.say(f"The commission is {tc} dollars.")
    tt, total = s.eq(f"{base}+{com}")
    s.say(f"{w.P} earns {tt} dollars [in total|that month].")
    month = rng.choice(V.MONTHS)
    intro = scene(rng, w, f"{w.name} sells {what} [in <PLACE>|for a family business|at a showroom on <STREET>].")
    body = rng.choice([
        f"{w.name} earns a base salary of {money(base)} a month plus {pct}% commission on sales. [Last month|In {month}] {w.p} sold {money(sales)} worth of {what}.",
        f"[Last month|In {month}] {w.name} sold {what} worth {money(sales)}. {w.P} gets {money(base)} [in base pay|as a fixed salary] and {pct} percent of [all sales|what {w.p} sells].",
        f"{w.name}'s pay is {money(base)} a month plus a {pct}% cut of [every sale|sales]. In {month} {w.poss} sales of {what} [reached|came to|totalled] {money(sales)}.",
        f"Selling {what}, {w.name} [makes|gets] a fixed {money(base)} monthly and {pct} percent commission. {w.P} [closed|made] {money(sales)} in sales in {month}.",
    ])
    q = ask(rng, f"How much did {w.name} earn that month?", f"What was {w.poss} total pay?", f"<FIND> {w.name}'s earnings for the month.")
    return s.record(story(rng, w, intro, body, q), total)


def training(rng: random.Random) -> dict:
    w = Who(rng)
    start, step, weeks = rng.randint(2, 10), rng.randint(1, 4), rng.randint(3, 8)
    sport = rng.choice([("runs", "km"), ("swims", "laps"), ("cycles", "km"), ("rows", "km"), ("walks", "km"),
                        ("skates", "km"), ("paddles", "km"), ("hikes", "km")])
    last = start + step * (weeks - 1)
    if ((start + last) * weeks) % 2:
        weeks += 1
    s = Solution(rng)
    tl, last = s.eq(f"{start}+{step}*{weeks - 1}")
    s.say(f"In the last week {w.p} {sport[0]} {tl} {sport[1]}.")
    ts, pair = s.eq(f"{start}+{last}")
    s.say(f"The first and last weeks together make {ts} {sport[1]}.")
    tt, total = s.eq(f"{pair}*{weeks}/2")
    s.say(f"[Over all {weeks} weeks|Pairing the weeks up] that gives {tt} {sport[1]}.")
    goal = rng.choice(["a race", "a charity event", "a triathlon", "a long trip", "a marathon", "a sponsored challenge", "the club championship"])
    intro = scene(rng, w, f"{w.name} is training for {goal} in <PLACE>.", f"{w.name}'s <RELATIVE> [drew up|wrote] a training plan for {w.obj}.")
    body = rng.choice([
        f"{w.name} {sport[0]} {start} {sport[1]} in the first week and adds {step} {sport[1]} each week after that, for {weeks} weeks.",
        f"In week one {w.name} {sport[0]} {start} {sport[1]}. Every following week {w.p} {sport[0]} {step} {sport[1]} more than the week before. The plan lasts {num(rng, weeks)} weeks.",
        f"The plan: {start} {sport[1]} in the first week, then {step} {sport[1]} more every week, for {weeks} weeks [in all|altogether].",
        f"{w.name} starts at {start} {sport[1]} a week and increases the distance by {step} {sport[1]} [each|every] week. [The plan runs|{w.P} keeps this up] for {num(rng, weeks)} weeks.",
    ])
    q = ask(rng, f"How many {sport[1]} does {w.p} cover over the whole plan?", f"What is the total distance over the {weeks} weeks, in {sport[1]}?",
            f"<FIND> the total number of {sport[1]} in the plan.")
    return s.record(story(rng, w, intro, body, q), total)


def crafts(rng: random.Random) -> dict:
    w = Who(rng)
    craft = rng.choice(V.CRAFTS)
    per_day, days = rng.randint(3, 15), rng.randint(2, 7)
    frac = rng.choice([2, 3, 4])
    price = rng.randint(2, 12)
    while (per_day * days) % frac:
        days += 1
    colour = rng.choice(V.COLOURS)
    s = Solution(rng)
    tm, made = s.eq(f"{per_day}*{days}")
    s.say(f"{w.P} makes {tm} {craft}.")
    tk, kept = s.eq(f"{made}/{frac}")
    s.say(f"{w.P} keeps {tk} {craft}.")
    ts, sold = s.eq(f"{made}-{kept}")
    s.say(f"{w.P} sells {ts} {craft}.")
    tr, rev = s.eq(f"{sold}*{price}")
    s.say(f"That earns {tr} dollars.")
    part = {2: "half", 3: "a third", 4: "a quarter"}[frac]
    market = rng.choice(V.EVENTS)
    intro = scene(rng, w, f"{w.name} [makes|crafts|sells] {colour} {craft} [as a hobby|for the {market}|to raise money for <GOAL>].",
                  f"{w.name} learned to make {craft} from {w.poss} <RELATIVE>.")
    body = rng.choice([
        f"{w.name} makes {per_day} {craft} a day for {num(rng, days)} days. {w.P} keeps {part} of them as gifts and sells the rest at the {market} for {money(price)} each.",
        f"For {days} days {w.name} [turns out|makes] {per_day} {colour} {craft} [daily|a day]. {cap(part)} are kept for {w.poss} family; the others sell for {money(price)} apiece.",
        f"[Working|Sitting] at the kitchen table, {w.name} [finishes|produces] {per_day} {craft} every day for {days} days. {cap(part)} [go to|are saved for] friends, and the rest [are sold|sell] at {money(price)} <EACH>.",
        f"{w.name} spends {num(rng, days)} days making {craft}, {per_day} a day. [After|Once] {part} of them are set aside as presents, the rest are [sold|offered] at the {market} for {money(price)} <EACH>.",
    ])
    q = ask(rng, f"How much money does {w.name} make?", f"How many dollars do the sold {craft} bring in?", f"<FIND> {w.name}'s takings from the {craft}.")
    return s.record(story(rng, w, intro, body, q), rev)


def bus(rng: random.Random) -> dict:
    start = rng.randint(10, 45)
    off1, on1 = rng.randint(1, start // 2), rng.randint(0, 12)
    mid = start - off1 + on1
    off2, on2 = rng.randint(1, mid // 2 + 1), rng.randint(0, 10)
    veh = rng.choice(["bus", "tram", "train carriage", "ferry", "shuttle", "minibus", "night bus", "school bus",
                      "cable car", "river boat"])
    a, b = V.place_name(rng), V.place_name(rng)
    driver = f"{rng.choice(V.FIRST_NAMES)} {V.surname(rng)}"
    s = Solution(rng)
    t1, v1 = s.eq(f"{start}-{off1}+{on1}")
    s.say(f"After the first stop there are {t1} passengers.")
    t2, v2 = s.eq(f"{v1}-{off2}+{on2}")
    s.say(f"After the second stop there are {t2} passengers.")
    body = rng.choice([
        f"A {veh} leaves the depot with {start} passengers. At {a}, {off1} get off and {on1} get on. At {b}, {off2} get off and {on2} get on.",
        f"There are {start} people on the {veh}. At the first stop ({a}) {off1} people leave and {on1} board; at the next one, {b}, {off2} leave and {on2} board.",
        f"{driver} drives the {veh} to {b}. It sets off with {start} passengers; {off1} [step off|get out] at {a} while {on1} [climb on|get in], and at {b} {off2} leave and {on2} join.",
        f"The {veh} [pulls out|departs] with {start} riders. [First stop|At the first stop], {a}: {off1} off, {on1} on. [Second stop|Then] {b}: {off2} off, {on2} on.",
    ])
    q = ask(rng, f"How many passengers are on the {veh} now?", f"How many people are on board after {b}?",
            f"<FIND> how many passengers [remain|are] on the {veh} after the second stop.")
    return s.record(story(rng, None, body, q), v2)


def wood(rng: random.Random) -> dict:
    w = Who(rng)
    boards, length = rng.randint(2, 9), rng.choice([120, 180, 200, 240, 300])
    piece = rng.choice([p for p in (20, 30, 40, 60) if length % p == 0])
    used = rng.randint(1, 10)
    s = Solution(rng)
    tp, per = s.eq(f"{length}/{piece}")
    s.say(f"Each board gives {tp} pieces.")
    tt, total = s.eq(f"{per}*{boards}")
    s.say(f"{boards} boards give {tt} pieces.")
    if used >= total:
        used = total // 2
    tl, left = s.eq(f"{total}-{used}")
    s.say(f"After using {used}, {tl} pieces are left.")
    thing = rng.choice(["a bookshelf", "a garden bench", "a treehouse", "planters", "a chicken coop", "a toy chest", "a fence",
                        "a bird table", "a bed frame", "a go-kart", "a sandpit", "shelves for the shed", "a rabbit hutch"])
    timber = rng.choice(["pine", "oak", "cedar", "birch", "larch", "spruce", "ash", "beech"])
    intro = scene(rng, w, f"{w.name} is building {thing} [in the garage|for {w.poss} <RELATIVE>|over the weekend].")
    body = rng.choice([
        f"{w.name} has {num(rng, boards)} {timber} boards, each {length} cm long, and cuts every board into pieces {piece} cm long. {w.P} uses {used} pieces for {thing}.",
        f"{w.name} cuts {boards} boards of {length} cm into {piece}-cm pieces and [nails|screws|glues] {used} of them into {thing}.",
        f"[From|At] the timber yard {w.name} [brings home|buys] {boards} {timber} planks, {length} cm each. {w.P} saws them into {piece} cm lengths and [uses|needs] {used} for {thing}.",
        f"Every {timber} board in {w.name}'s shed is {length} cm long. {w.P} cuts all {boards} of them into {piece} cm pieces, then [builds|makes] {thing} from {used} pieces.",
    ])
    q = ask(rng, "How many pieces are left?", f"How many pieces does {w.name} have left over?", "<FIND> the number of unused pieces.")
    return s.record(story(rng, w, intro, body, q), left)


def movies(rng: random.Random) -> dict:
    w = Who(rng)
    n = rng.randint(2, 5)
    mins = rng.choice([90, 100, 105, 110, 120, 135, 150])
    fits = [b for b in range(0, 65, 5) if (n * mins + (n - 1) * b) % 60 == 0]
    if not fits:
        raise ArithmeticError("no break length gives whole hours")
    brk = rng.choice(fits)
    s = Solution(rng)
    tm, mv = s.eq(f"{n}*{mins}")
    s.say(f"The films run {tm} minutes.")
    if brk:
        tb, b = s.eq(f"{n - 1}*{brk}")
        s.say(f"The breaks take {tb} minutes.")
        tt, allm = s.eq(f"{mv}+{b}")
        s.say(f"[Together|In all] that is {tt} minutes.")
    else:
        allm = mv
    th, hours = s.eq(f"{allm}/60")
    s.say(f"That is {th} hours.")
    what = rng.choice(["films", "episodes of a documentary", "concert recordings", "old westerns", "cartoons", "operas",
                       "silent films", "nature documentaries", "detective films", "musicals", "space films"])
    intro = scene(rng, w, f"{w.name} [plans|hosts] a [movie marathon|film night|long viewing session] for {w.poss} <RELATIVE>.")
    gap = f", with a {brk}-minute break between one and the next." if brk else ", back to back."
    body = rng.choice([f"{w.name} [watches|shows] {num(rng, n)} {what}, each {mins} minutes long{gap}",
                       f"The programme has {num(rng, n)} {what} of {mins} minutes each{gap}",
                       f"{num(rng, n).capitalize()} {what}, {mins} minutes apiece, are on {w.name}'s list{gap}"])
    q = ask(rng, "How many hours does the whole session last?", "How long is the marathon in hours?", "<FIND> the length of the session in hours.")
    return s.record(story(rng, w, intro, body, q), hours)


def concert(rng: random.Random) -> dict:
    rows, per = rng.randint(10, 40), rng.randint(10, 30)
    pct = rng.choice([10, 20, 25, 40, 50, 60, 75, 80, 90])
    while (rows * per * pct) % 100:
        rows += 1
    venue = f"{V.place_name(rng)} {rng.choice(['Hall', 'Theatre', 'Arena', 'Opera House', 'Auditorium', 'Playhouse', 'Pavilion', 'Music Hall', 'Corn Exchange'])}"
    act = rng.choice(["a string quartet", "a jazz band", "a choir", "a comedian", "a touring ballet", "a brass band",
                      "a rock band", "a puppet company", "a folk singer", "a magician", "a youth orchestra", "a poet",
                      "a tango ensemble", "a children's theatre", "a steel band"])
    night = rng.choice(["On Friday", "On the opening night", "For a matinee", "On a wet Tuesday", "For the charity gala", "Last night"])
    s = Solution(rng)
    tt, seats = s.eq(f"{rows}*{per}")
    s.say(f"The hall has {tt} seats.")
    ts, sold = s.eq(f"{seats}*{pct}/100")
    s.say(f"{ts} seats are sold.")
    te, empty = s.eq(f"{seats}-{sold}")
    s.say(f"{te} seats are empty.")
    body = rng.choice([
        f"The {venue} has {rows} rows of {per} seats. For {act}, {pct}% of the seats were sold.",
        f"{cap(act)} played the {venue}, which has {rows} rows with {per} seats in each. Only {pct} percent of the seats [were sold|found buyers].",
        f"{night} {act} [performed|appeared] at the {venue}. The hall [seats|holds] {rows} rows of {per}, and {pct}% of the tickets were sold.",
        f"Seating at the {venue} is {rows} rows by {per} seats. {night}, {pct} percent of them were [taken|occupied|sold] for {act}.",
    ])
    q = ask(rng, "How many seats were empty?", "How many seats [stayed|were left] empty?", "<FIND> the number of empty seats.")
    return s.record(story(rng, None, body, q), empty)


def jam(rng: random.Random) -> dict:
    w = Who(rng)
    fruit = rng.choice(["strawberries", "plums", "apricots", "blackberries", "cherries", "raspberries", "figs", "quinces",
                        "gooseberries", "peaches", "damsons", "blueberries", "rhubarb", "oranges", "elderberries"])
    kg, jars_per = rng.randint(3, 20), rng.randint(2, 5)
    price = rng.randint(3, 9)
    keep = rng.randint(1, 6)
    s = Solution(rng)
    tj, jars = s.eq(f"{kg}*{jars_per}")
    s.say(f"{w.P} fills {tj} jars.")
    if keep >= jars:
        keep = 1
    ts, sold = s.eq(f"{jars}-{keep}")
    s.say(f"{w.P} sells {ts} jars.")
    tr, rev = s.eq(f"{sold}*{price}")
    s.say(f"That brings in {tr} dollars.")
    intro = scene(rng, w, f"{w.name} picks {fruit} [at {w.poss} <RELATIVE>'s orchard|along the lanes|on a farm near <PLACE>].",
                  f"{w.name} sells homemade jam at the <PLACE> market.")
    body = rng.choice([
        f"{w.name} turns {kg} kg of {fruit} into jam; each kilogram makes {jars_per} jars. {w.P} keeps {keep} jars and sells the rest for {money(price)} a jar.",
        f"Every kilogram of {fruit} gives {jars_per} jars of jam. {w.name} cooks {kg} kg, keeps {num(rng, keep)} jars for the pantry and sells the others at {money(price)} each.",
        f"With {kg} kg of {fruit}, {w.name} [makes|fills] {jars_per} jars per kilogram. {num(rng, keep).capitalize()} jars [go into|stay in] the cupboard; the rest [sell|are sold] for {money(price)} <EACH>.",
        f"{w.name}'s {fruit} jam [comes out at|yields] {jars_per} jars for every kilogram of fruit. This year {w.p} [boils up|uses] {kg} kg, [gives|keeps] {keep} jars [to {w.poss} <RELATIVE>|at home] and sells the rest at {money(price)} a jar.",
    ])
    q = ask(rng, f"How much money does {w.name} make from the jam?", "How many dollars do the sold jars bring in?", f"<FIND> what {w.name} earns from the jam.")
    return s.record(story(rng, w, intro, body, q), rev)


def hike_water(rng: random.Random) -> dict:
    w = Who(rng)
    people, liters, days = rng.randint(2, 8), rng.randint(2, 4), rng.randint(2, 6)
    carried = rng.randint(0, 6)
    s = Solution(rng)
    td, daily = s.eq(f"{people}*{liters}")
    s.say(f"The group drinks {td} liters a day.")
    tt, total = s.eq(f"{daily}*{days}")
    s.say(f"For {days} days they need {tt} liters.")
    if carried >= total:
        carried = 0
    tn, need = s.eq(f"{total}-{carried}")
    s.say(f"They still need {tn} liters.")
    trail = f"{V.place_name(rng)} {rng.choice(['Trail', 'Ridge Walk', 'Pass', 'Way', 'Circuit', 'Canyon Route', 'Coast Path'])}"
    intro = scene(rng, w, f"{w.name} [leads|joins|plans] a hiking trip along the {trail}.", f"{w.name} [packs|checks] the gear for the {trail}.")
    body = rng.choice([
        f"{w.name}'s group of {people} hikers [needs|plans for] {liters} liters of water per person per day on a {days}-day trek. They already carry {carried} liters.",
        f"On a {num(rng, days)}-day hike, each of the {people} walkers drinks {liters} liters a day. The packs already hold {carried} liters.",
        f"The {trail} takes {days} days. {num(rng, people).capitalize()} people are going, and each needs {liters} liters of water a day; {carried} liters are already [packed|in the bottles].",
        f"[For|On] the {trail}, {w.name} [counts|reckons] {liters} liters per person per day for {people} people over {days} days, minus the {carried} liters they already have.",
    ])
    q = ask(rng, "How many more liters of water do they need?", "How much more water, in liters, must the group bring?", "<FIND> how many more liters they must carry.")
    return s.record(story(rng, w, intro, body, q), need)


def hourly_savings(rng: random.Random) -> dict:
    w = Who(rng)
    job = rng.choice(V.JOBS)
    rate, hours, weeks = rng.randint(8, 25), rng.randint(4, 20), rng.randint(2, 8)
    spend = rng.randint(1, 4) * 10
    s = Solution(rng)
    tw, week = s.eq(f"{rate}*{hours}")
    s.say(f"[Each|Every|A] week {w.p} earns {tw} dollars.")
    te, earned = s.eq(f"{week}*{weeks}")
    s.say(f"[Over|In|Across] {weeks} weeks that is {te} dollars.")
    ts, spent = s.eq(f"{spend}*{weeks}")
    s.say(f"{w.P} spends {ts} dollars[ in that time|].")
    tl, left = s.eq(f"{earned}-{spent}")
    s.say(f"So {w.p} [saves|keeps|has left] {tl} dollars.")
    what = rng.choice(V.SPENDING)
    intro = scene(rng, w, f"{w.name} [took|found|started] a [part-time|weekend|summer|evening] job as a {job} [to save up for <GOAL>|to help with the bills|].")
    body = rng.choice([
        f"{w.name} [works|has a job|earns money] as a {job} [and earns|and makes|and is paid] {money(rate)} [an hour|per hour|for each hour]. {w.P} works {hours} hours [every|each|a] week for {num(rng, weeks)} weeks and spends {money(spend)} of {w.poss} [pay|earnings|wages] [each|every] week on {what}.",
        f"For {num(rng, weeks)} weeks, {w.name} [took|worked|picked up] shifts as a {job}: {hours} hours a week at {money(rate)} [per hour|an hour]. [Each|Every] week {money(spend)} went on {what}.",
        f"[Working|Employed] as a {job} [at {money(rate)} an hour|for {money(rate)} per hour], {w.name} [logs|puts in|clocks] {hours} hours [weekly|a week|per week] for {weeks} weeks. {w.P} spends {money(spend)} [a week|weekly|each week] on {what}.",
        f"The pay for a {job} is {money(rate)} an hour. {w.name} [does|works] {hours} hours a week for {num(rng, weeks)} weeks and [uses|sets aside] {money(spend)} of it each week for {what}.",
        f"{w.name}'s {job} job [pays|brings in] {money(rate)} per hour, {hours} hours a week. Out of each week's pay, {money(spend)} [goes on|is spent on] {what}. The job [lasts|runs] {weeks} weeks.",
    ])
    q = ask(rng, f"How much [money does {w.name} save|does {w.name} put aside|is left over]?", f"How many dollars [were left at the end|remained|did {w.p} keep]?",
            f"What are {w.name}'s total savings after {weeks} weeks?", f"<FIND> how much {w.p} has saved.")
    return s.record(story(rng, w, intro, body, q), left)


def baking(rng: random.Random) -> dict:
    w = Who(rng)
    food = rng.choice(V.BAKED)
    flav = rng.choice(["", "", "chocolate ", "lemon ", "cinnamon ", "cheese ", "ginger ", "almond ", "apple ", "poppy-seed ",
                       "honey ", "walnut ", "spinach ", "pumpkin ", "raisin "])
    batches, per = rng.randint(3, 8), rng.choice([6, 8, 10, 12, 16, 20, 24])
    frac = rng.choice([2, 3, 4])
    while (batches * per) % frac:
        batches += 1
    s = Solution(rng)
    tt, total = s.eq(f"{batches}*{per}")
    s.say(f"{w.name} [bakes|makes|ends up with] {tt} {food}.")
    tg, given = s.eq(f"{total}/{frac}")
    s.say(f"{w.P} [gives away|hands out|donates] {tg} {food}.")
    eaten = rng.randint(1, max(1, (total - given) // 4))
    tl, left = s.eq(f"{total}-{given}-{eaten}")
    s.say(f"After {eaten} [are eaten|disappear at home], {tl} {food} are left.")
    part = {2: "half", 3: "a third", 4: "a quarter"}[frac]
    to = rng.choice(["the neighbours", "the neighbors", "the cousins", "the team", "the class", "a food bank",
                     "the volunteers", "the night-shift nurses", "the choir", "the fire station", "the bus drivers",
                     "the old people's home", "the football club", "the office"])
    intro = scene(rng, w, f"{w.name} [has promised|agreed] to bring {flav}{food} to a <OCCASION>.",
                  f"{w.name}'s kitchen [smells of|is full of] {flav}{food} [all morning|by noon|by the evening].")
    body = rng.choice([
        f"{w.name} [bakes|makes|prepares|turns out] {num(rng, batches)} [trays|pans|sheets] of {flav}{food} with {per} on [each|every] [tray|pan|sheet]. {w.P} [gives|hands|passes] {part} of them to {to} and the family [eats|finishes|polishes off] {eaten}.",
        f"For the [weekend|party|holiday|open day] {w.name} made {num(rng, batches)} batches of {flav}{food}, {per} [per|in each] batch. {cap(part)} went to {to}, and {eaten} were eaten at home.",
        f"[There are|{w.name} has] {num(rng, batches)} [boxes|tins|crates] of {flav}{food}, {per} [in each|per box|apiece]. {cap(part)} [are given|go|are sent] to {to} and {eaten} [get eaten|are eaten|disappear].",
        f"Each batch of {w.name}'s {flav}{food} [makes|yields|gives] {per}. {w.P} [bakes|makes] {num(rng, batches)} batches, [sends|takes] {part} of them to {to}, and {eaten} [vanish|get eaten] [before dinner|at home|the same evening].",
        f"{w.name} [fills|lines up] {batches} baking trays with {per} {flav}{food} each. Once they cool, {part} [go|are wrapped up] for {to}; {w.poss} <RELATIVE> [sneaks|eats] {eaten}.",
    ])
    q = ask(rng, f"How many {food} [remain|are left|are still there]?", f"How many {food} [does {w.name} have left|are left over]?",
            f"<FIND> how many {food} are <LEFT>.", f"What number of {food} [is left|remains] [at the end|afterwards|]?")
    return s.record(story(rng, w, intro, body, q), left)


def travel(rng: random.Random) -> dict:
    w = Who(rng)
    veh, verb = rng.choice(V.VEHICLES)
    v1, t1 = rng.randint(3, 12) * 5, rng.randint(2, 5)
    v2, t2 = rng.randint(3, 12) * 5, rng.randint(2, 4)
    a, b = V.place_name(rng), V.place_name(rng)
    s = Solution(rng)
    ta, da = s.eq(f"{v1}*{t1}")
    s.say(f"[First leg|The first part of the trip|Before the stop]: {ta} km.")
    tb, db = s.eq(f"{v2}*{t2}")
    s.say(f"[Second leg|The rest of the trip|After the stop]: {tb} km.")
    tt, dist = s.eq(f"{da}+{db}")
    s.say(f"[Total distance|Altogether|The whole trip]: {tt} km.")
    intro = scene(rng, w, f"{w.name} is [driving|travelling|heading] from {a} to {b} [to visit {w.poss} <RELATIVE>|for a <OCCASION>|for work].",
                  f"{w.name} [plans|maps out] a [trip|journey] to {b}.")
    body = rng.choice([
        f"{w.name}'s {veh} {verb} at {v1} [km per hour|km/h|kilometers an hour] for {num(rng, t1)} hours, then at {v2} [km per hour|km/h] for {num(rng, t2)} [hours|more hours].",
        f"[A|One|The] {veh} {verb} for {t1} hours at {v1} km/h and then {t2} more hours at {v2} km/h.",
        f"{w.name} [takes|rides|catches] a {veh}. For the first {t1} hours it [averages|keeps|holds] {v1} kilometers per hour; after a [stop|break|pause] [in {a}|] it [averages|does|manages] {v2} kilometers per hour for {t2} hours.",
        f"[Leaving|Starting from|Setting off from] {a}, {w.name}'s {veh} [runs|moves|goes] {t1} hours at {v1} km/h, [then|and later|after that] {t2} hours at {v2} km/h.",
        f"The road from {a} to {b} [takes|keeps] the {veh} busy for {t1 + t2} hours: {t1} hours at {v1} km/h and {t2} hours at {v2} km/h.",
    ])
    if rng.random() < 0.45:
        per_l = rng.choice([5, 10, 15, 20, 25])
        if dist % per_l:
            per_l = 5
        tf, fuel = s.eq(f"{dist}/{per_l}")
        s.say(f"[Fuel used|It burns|That takes]: {tf} liters.")
        fuel_s = rng.choice([f"It [uses|burns|needs] 1 liter of fuel [every|for each|per] {per_l} km.",
                             f"The {veh} [goes|runs|travels] {per_l} km on one liter of fuel."])
        q = ask(rng, "How many liters [of fuel|] [does the trip use|are used|get burned]?", "How much fuel, in liters, does the [whole|] trip [take|need]?",
                "<FIND> the fuel used, in liters.")
        return s.record(story(rng, w, intro, body, fuel_s, q), fuel)
    q = ask(rng, "How many [kilometers|km] does it [cover|travel|go] <ALL>?", f"How far did {w.name} [travel|go|get]?",
            "[What is the total distance|How far is the trip|How many km is that]?", "<FIND> the [total|whole] distance [covered|travelled].")
    return s.record(story(rng, w, intro, body, q), dist)


def garden(rng: random.Random) -> dict:
    w = Who(rng)
    plant = rng.choice(V.PLANTS)
    rows, per_row = rng.randint(3, 12), rng.randint(4, 15)
    pct = rng.choice([10, 20, 25, 50])
    while (rows * per_row * pct) % 100:
        rows += 1
    s = Solution(rng)
    tt, total = s.eq(f"{rows}*{per_row}")
    s.say(f"{w.name} [plants|sets out|puts in] {tt} {plant}.")
    td, dead = s.eq(f"{total}*{pct}/100")
    s.say(f"{td} of them [do not survive|are lost|die].")
    tl, alive = s.eq(f"{total}-{dead}")
    s.say(f"{tl} are still growing.")
    yield_each = rng.randint(2, 9)
    ty, harvest = s.eq(f"{alive}*{yield_each}")
    s.say(f"The harvest is {ty}.")
    unit = "pieces of produce" if ("plants" in plant or "vines" in plant or "bushes" in plant) else "flowers"
    unit = rng.choice([unit, "items"]) if unit == "pieces of produce" else unit
    why = rng.choice(["A dry spell", "A late frost", "A pest outbreak", "A storm", "Hungry slugs", "A hailstorm",
                      "A fungus", "Rabbits", "A heatwave", "Blight", "Flooding", "Pigeons"])
    where = rng.choice(["community", "school", "rooftop", "village", "allotment", "backyard", "monastery", "hospital",
                        "prison", "temple", "museum", "hotel"])
    intro = scene(rng, w, f"{w.name} [finally got|rents|looks after] a plot in the {where} garden.",
                  f"{w.name} [wants|hopes] to grow enough for the <OCCASION>.")
    body = rng.choice([
        f"{w.name} [sets out|plants|puts in] {num(rng, rows)} rows of {plant} with {per_row} in [each|every] row. {why} [kills|ruins|destroys] {pct}% of them. Each [survivor|remaining plant] yields {yield_each} {unit}.",
        f"In a {where} garden, {rows} rows hold {per_row} {plant} apiece. {pct} percent [fail to grow|wilt|die off], and every remaining one gives {yield_each} {unit}.",
        f"{why} [wiped out|destroyed|spoiled] {pct}% of the {plant} in {w.name}'s {where} garden, which had {num(rng, rows)} rows of {per_row}. [The rest|Each plant that survived] [produced|gave] {yield_each} {unit} [each|apiece|].",
        f"{w.name}'s {where} plot has {rows} rows, {per_row} {plant} to a row. [After|Following] {why.lower()}, only the plants that survived are left: {pct}% were lost. Each one [left|still standing] [gives|produces] {yield_each} {unit}.",
    ])
    q = ask(rng, f"How many {unit} does {w.name} [collect|harvest|pick]?", "What is the [total harvest|harvest in all|size of the harvest]?",
            f"How many {unit} [are harvested|come in] <ALL>?", "<FIND> the size of the harvest.")
    return s.record(story(rng, w, intro, body, q), harvest)


def reading(rng: random.Random) -> dict:
    w = Who(rng)
    per_day, days1 = rng.randint(8, 30), rng.randint(2, 6)
    days2 = rng.randint(1, 4)
    genre = rng.choice(["novel", "biography", "thriller", "textbook", "memoir", "fantasy saga", "detective story",
                        "cookbook", "history book", "collection of short stories", "graphic novel", "travel guide",
                        "poetry anthology", "science-fiction novel", "field guide", "book of fairy tales"])
    title = f"\"{V.title_name(rng)}\""
    s = Solution(rng)
    ta, first = s.eq(f"{per_day}*{days1}")
    s.say(f"In the first {days1} days {w.p} reads {ta} pages.")
    td, double = s.eq(f"{per_day}*2")
    s.say(f"Then {w.p} reads {td} pages a day.")
    tb, second = s.eq(f"{double}*{days2}")
    s.say(f"That adds {tb} pages.")
    pages = first + second + rng.randint(5, 120)
    tr, read = s.eq(f"{first}+{second}")
    tl, left = s.eq(f"{pages}-{read}")
    s.say(f"{w.P} has read {tr} pages, so {tl} pages [remain|are left].")
    intro = scene(rng, w, f"{w.name} [borrowed|bought|was given] the {genre} {title} [from the library|for {w.poss} birthday|at a <PLACE> bookshop].",
                  f"{w.name}'s <RELATIVE> [recommended|lent {w.obj}] a {genre}.")
    body = rng.choice([
        f"{w.name} is reading a {pages}-page {genre}. {w.P} reads {per_day} pages a day for {num(rng, days1)} days, then doubles {w.poss} [pace|speed|rate] for the next {num(rng, days2)} days.",
        f"A book club [picked|chose|assigned] {title}, a {pages}-page {genre}. {w.name} managed {per_day} pages per day for {days1} days and then twice as many per day for {days2} days.",
        f"The {genre} on {w.name}'s [nightstand|desk|shelf] has {pages} pages. For {num(rng, days1)} days {w.p} [gets through|reads] {per_day} pages a day; [then|after that], with [a holiday|more free time|exams over], {w.p} reads twice as much each day for {num(rng, days2)} days.",
        f"{title} runs to {pages} pages. {w.name} reads {per_day} pages a day for {days1} days, then [speeds up|doubles that] to twice as many a day for {days2} more days.",
    ])
    q = ask(rng, "How many pages are [left|still unread|to go]?", f"How many pages does {w.name} still have to read?",
            f"How much of the {genre} is left, in pages?", "<FIND> the number of unread pages.")
    return s.record(story(rng, w, intro, body, q), left)


def discount(rng: random.Random) -> dict:
    w = Who(rng)
    item, items, lo, hi = rng.choice(V.ITEMS)
    pct = rng.choice([10, 20, 25, 30, 40, 50])
    price = rng.randint(max(lo, 2), hi) * (20 if pct == 25 else 10)
    qty = rng.randint(2, 6)
    shop = rng.choice(V.SHOPS)
    colour = rng.choice(V.COLOURS)
    s = Solution(rng)
    td, off = s.eq(f"{price}*{pct}/100")
    s.say(f"The discount is {td} dollars per {item}.")
    tn, new = s.eq(f"{price}-{off}")
    s.say(f"Each {item} now costs {tn} dollars.")
    tt, total = s.eq(f"{new}*{qty}")
    s.say(f"{qty} of them cost {tt} dollars.")
    sale = rng.choice(["sale", "clearance", "promotion", "end-of-season sale", "holiday sale", "closing-down sale",
                       "anniversary sale", "midnight sale", "spring sale", "stock-taking sale"])
    intro = scene(rng, w, f"The {shop} [announces|is having|advertises] a {sale}.", f"{w.name} [waited|held off] for the {sale} at the {shop}.")
    body = rng.choice([
        f"A {item} [normally|usually|regularly] costs {money(price)}. During the {sale} everything is {pct}% off. {w.name} buys {num(rng, qty)} {items}.",
        f"The {shop} [marks down|discounts|reduces] {items} priced at {money(price)} by {pct} percent. {w.name} [takes|wants] {num(rng, qty)}.",
        f"{w.name} [wants|needs] {num(rng, qty)} {colour} {items}. Each one has a price tag of {money(price)}, but the {sale} [takes|knocks] {pct}% off [every price|the tag|at the till].",
        f"[With|Thanks to] a {pct}% discount in the {sale}, {colour} {items} that [usually|normally] cost {money(price)} are cheaper. {w.name} [picks up|grabs|orders] {qty}.",
    ])
    q = ask(rng, f"How much does {w.p} pay?", f"What do the {items} cost after the [markdown|discount|reduction]?",
            f"How much does {w.name} [spend|pay] <ALL>?", f"<FIND> what {w.name} pays.")
    return s.record(story(rng, w, intro, body, q), total)


def recipe(rng: random.Random) -> dict:
    w = Who(rng)
    base_serv = rng.choice([2, 3, 4, 5, 6])
    mult = rng.randint(2, 6)
    want = base_serv * mult
    cups = rng.randint(1, 5)
    grams = rng.randint(2, 9) * 25
    ingredient, dish = rng.choice(V.INGREDIENTS), rng.choice(V.DISHES)
    s = Solution(rng)
    tm, m = s.eq(f"{want}/{base_serv}")
    s.say(f"{w.name} needs {tm} times the recipe.")
    tc, c = s.eq(f"{cups}*{m}")
    s.say(f"That is {tc} cups of {ingredient}.")
    tg, g = s.eq(f"{c}*{grams}")
    s.say(f"In grams: {tg}.")
    intro = scene(rng, w, f"{w.name} is cooking {dish} for a <OCCASION>.", f"{w.name}'s <RELATIVE> [passed on|wrote down|sent] a recipe for {dish}.")
    body = rng.choice([
        f"A recipe for {dish} for {base_serv} servings [uses|calls for|needs] {cups} cups of {ingredient}. One cup of {ingredient} weighs {grams} grams. {w.name} is [cooking for|making {dish} for|feeding] {want} people.",
        f"{w.name}'s {dish} recipe serves {base_serv} and needs {cups} cups of {ingredient}; a cup of {ingredient} is {grams} grams. {w.P} has to feed {want} [guests|people|hungry hikers].",
        f"To make {dish} for {base_serv}, you need {cups} cups of {ingredient}. {w.name} wants enough for {want}, and {w.poss} cup of {ingredient} weighs {grams} g.",
        f"{cups} cups of {ingredient} go into {dish} for {base_serv} people, and a cup of {ingredient} weighs {grams} grams. {w.name} is scaling the recipe up for {want}.",
    ])
    q = ask(rng, f"How many grams of {ingredient} are needed?", f"How much {ingredient}, in grams, should {w.p} [use|weigh out]?",
            f"What weight of {ingredient} in grams does {w.name} need?", f"<FIND> the grams of {ingredient} needed.")
    return s.record(story(rng, w, intro, body, q), g)


def season(rng: random.Random) -> dict:
    w = Who(rng)
    sport, unit = rng.choice(V.SPORTS)
    games = rng.randint(4, 12)
    avg = rng.randint(2, 25)
    extra = rng.randint(1, 3)
    s = Solution(rng)
    tt, total = s.eq(f"{games}*{avg}")
    s.say(f"{w.name} has {tt} {unit} so far.")
    target = total + extra * rng.randint(3, 10)
    tn, need = s.eq(f"{target}-{total}")
    s.say(f"{w.P} needs {tn} more {unit}.")
    tp, per = s.eq(f"{need}/{extra}")
    s.say(f"Per game that is {tp} {unit}.")
    team = f"{V.place_name(rng)} {rng.choice(V.CLUB_SUFFIX)}"
    intro = scene(rng, w, f"{w.name} plays {sport} for {team}.", f"{w.name} [dreams of|is chasing] the club record at {team}.")
    left = f"{extra} game{'s' if extra > 1 else ''}"
    body = rng.choice([
        f"In {sport}, {w.name} has averaged {avg} {unit} per game over {games} games. {w.P} wants {target} {unit} for the [season|year|tournament], with {left} left.",
        f"After {games} games {w.name} is averaging {avg} {unit} a game. There are {left} [left|remaining] and {w.poss} goal is {target} {unit} [for the season|in total].",
        f"{w.name} has played {games} {sport} games for {team}, with an average of {avg} {unit}. To finish the season on {target} {unit}, {w.p} has {left} to play.",
    ])
    q = ask(rng, f"How many {unit} per game must {w.p} [score|get|make]?", f"What must {w.name} average [in the remaining games|from now on]?",
            f"<FIND> the {unit} per game {w.p} needs.")
    return s.record(story(rng, w, intro, body, q), per)


def savings_goal(rng: random.Random) -> dict:
    w = Who(rng)
    goal = rng.choice(V.GOALS)
    weekly = rng.randint(3, 25)
    weeks = rng.randint(3, 20)
    have = rng.randint(1, 20) * 5
    price = have + weekly * weeks
    s = Solution(rng)
    tn, need = s.eq(f"{price}-{have}")
    s.say(f"{w.P} still needs {tn} dollars.")
    tw, wk = s.eq(f"{need}/{weekly}")
    s.say(f"At {weekly} dollars a week that takes {tw} weeks.")
    source = rng.choice(["allowance", "paper round", "babysitting money", "birthday money", "tips", "pocket money",
                         "dog-walking money", "market stall earnings"])
    intro = scene(rng, w, f"{w.name} has wanted {goal} for [months|ages|a long time].", f"{w.name} saw {goal} in a [shop window|catalogue|magazine].")
    body = rng.choice([
        f"{cap(goal)} costs {money(price)}. {w.name} has already saved {money(have)} and [puts aside|adds|saves] {money(weekly)} from {w.poss} {source} every week.",
        f"{w.name} is saving for {goal} that costs {money(price)}. {w.P} [has|already has] {money(have)} in a jar and saves {money(weekly)} a week.",
        f"The price of {goal} is {money(price)}. With {money(have)} saved so far, {w.name} [adds|sets aside] {money(weekly)} [each|every] week.",
        f"{w.name} [keeps|has] {money(have)} in a [biscuit tin|piggy bank|savings account] and adds {money(weekly)} of {w.poss} {source} weekly. {cap(goal)} [costs|is priced at] {money(price)}.",
    ])
    q = ask(rng, f"How many weeks [will it take|does {w.p} need] to [afford|buy] it?", f"After how many weeks can {w.name} buy {goal}?",
            f"How long, in weeks, until {w.p} has enough?")
    return s.record(story(rng, w, intro, body, q), wk)


def taxi(rng: random.Random) -> dict:
    w = Who(rng)
    base, per_km, km = rng.randint(2, 8), rng.randint(1, 4), rng.randint(3, 40)
    tip = rng.choice([0, 0, 2, 3, 5])
    a, b = V.place_name(rng), V.place_name(rng)
    ride = rng.choice(["taxi", "cab", "rickshaw", "minicab", "water taxi", "ride-share car"])
    s = Solution(rng)
    td, dist = s.eq(f"{km}*{per_km}")
    s.say(f"The distance charge is {td} dollars.")
    tt, fare = s.eq(f"{base}+{dist}" + (f"+{tip}" if tip else ""))
    s.say(f"The [fare|ride] costs {tt} dollars[ with the tip|].")
    intro = scene(rng, w, f"{w.name} [misses|has missed] the last bus from {a}.", f"{w.name} is late for a <OCCASION> in {b}.")
    tip_s = f" {w.P} [adds|gives the driver] a {money(tip)} tip." if tip else ""
    body = rng.choice([
        f"A {ride} from {a} to {b} charges {money(base)} to start plus {money(per_km)} for every kilometer. The trip is {km} km.{tip_s}",
        f"{w.name} takes a {ride} {km} km across {a}. The meter starts at {money(base)} and adds {money(per_km)} per km.{tip_s}",
        f"The {ride} company [charges|asks] a {money(base)} flat fee and {money(per_km)} a kilometer. {w.name}'s ride to {b} is {km} kilometers long.{tip_s}",
        f"[It is|The ride is] {km} km from {a} to {b}. {w.name}'s {ride} costs {money(base)} plus {money(per_km)} for each km.{tip_s}",
    ])
    q = ask(rng, f"How much does {w.name} pay for the ride?", "What is the total fare?", "<FIND> the cost of the trip in dollars.")
    return s.record(story(rng, w, intro, body, q), fare)


def packing(rng: random.Random) -> dict:
    w = Who(rng)
    thing = rng.choice(["apples", "eggs", "oranges", "candles", "jars of honey", "books", "mugs", "bars of soap", "cans of beans",
                        "tennis balls", "light bulbs", "bottles of cider", "cupcakes", "peaches", "tomatoes", "seed packets"])
    box = rng.choice([6, 8, 10, 12, 15, 20, 24])
    boxes = rng.randint(4, 30)
    extra_boxes = rng.randint(1, 5)
    n_items = box * boxes
    price = rng.randint(3, 20)
    s = Solution(rng)
    tb, nb = s.eq(f"{n_items}/{box}")
    s.say(f"{w.P} fills {tb} boxes.")
    tt, total = s.eq(f"{nb}+{extra_boxes}")
    s.say(f"With the [other|extra] boxes that makes {tt}.")
    tr, rev = s.eq(f"{total}*{price}")
    s.say(f"At {price} dollars a box, that is {tr} dollars.")
    place = rng.choice(["farm shop", "warehouse", "market stall", "co-op", "village store", "packing shed"])
    intro = scene(rng, w, f"{w.name} works [in|at] a {place} [near <PLACE>|on <STREET>|outside <PLACE>].")
    body = rng.choice([
        f"{w.name} packs {n_items} {thing} into boxes of {box}. There are already {extra_boxes} full boxes on the shelf, and every box sells for {money(price)}.",
        f"[There are|{w.name} has] {n_items} {thing} to pack, {box} to a box. {num(rng, extra_boxes).capitalize()} more boxes were packed yesterday. Each box [sells for|costs] {money(price)}.",
        f"A box holds {box} {thing}. {w.name} boxes up {n_items} of them and adds them to {extra_boxes} boxes [from the morning|already packed]. The {place} sells a box for {money(price)}.",
        f"{w.name} has {n_items} {thing}, {extra_boxes} ready-packed boxes, and a price of {money(price)} a box. Each box takes {box} {thing}.",
    ])
    q = ask(rng, "How much money will all the boxes bring in?", f"What are all the boxes worth at {money(price)} each?",
            "<FIND> the value of the boxes in dollars.")
    return s.record(story(rng, w, intro, body, q), rev)


def fence(rng: random.Random) -> dict:
    w = Who(rng)
    length, width = rng.randint(5, 40), rng.randint(4, 30)
    cost = rng.randint(2, 15)
    gate = rng.choice([0, 0, 10, 25, 40, 60])
    what = rng.choice(["vegetable patch", "paddock", "dog run", "garden", "chicken yard", "playground", "orchard", "tennis court",
                       "sheep pen", "pond", "allotment"])
    s = Solution(rng)
    tp, per = s.eq(f"2*({length}+{width})")
    s.say(f"The perimeter is {tp} meters.")
    tc, c = s.eq(f"{per}*{cost}")
    s.say(f"The fencing costs {tc} dollars.")
    if gate:
        tt, c = s.eq(f"{c}+{gate}")
        s.say(f"With the gate that is {tt} dollars.")
    material = rng.choice(["wire", "wooden", "bamboo", "picket", "chain-link", "willow", "iron"])
    gate_s = f" A gate costs another {money(gate)}." if gate else ""
    intro = scene(rng, w, f"{w.name} [wants|needs] to fence off a {what} [behind the house|at the edge of <PLACE>|for {w.poss} <RELATIVE>].")
    body = rng.choice([
        f"The {what} is a rectangle {length} m long and {width} m wide. {material.capitalize()} fencing costs {money(cost)} per meter.{gate_s}",
        f"{w.name}'s rectangular {what} measures {length} meters by {width} meters. {w.P} will put {material} fencing all around it at {money(cost)} a meter.{gate_s}",
        f"[Fencing|A {material} fence] costs {money(cost)} for each meter. {w.name} [plans|wants] to [go all the way around|enclose] a {length} m by {width} m {what}.{gate_s}",
        f"A {width} m wide, {length} m long {what} needs a fence on all four sides; the {material} fence costs {money(cost)} per meter.{gate_s}",
    ])
    q = ask(rng, "How much will the fence cost?", f"What does it cost {w.name} to fence the {what}?", "<FIND> the total cost in dollars.")
    return s.record(story(rng, w, intro, body, q), c)


def coins(rng: random.Random) -> dict:
    w = Who(rng)
    a, b, c = rng.randint(2, 30), rng.randint(2, 30), rng.randint(0, 12)
    s = Solution(rng)
    ta, va = s.eq(f"{a}*5")
    s.say(f"The nickels are worth {ta} cents.")
    tb, vb = s.eq(f"{b}*10")
    s.say(f"The dimes are worth {tb} cents.")
    tc, vc = s.eq(f"{c}*25")
    s.say(f"The quarters are worth {tc} cents.")
    tt, total = s.eq(f"{va}+{vb}+{vc}")
    s.say(f"[Together|In all] that is {tt} cents.")
    where = rng.choice(["a jar on the kitchen shelf", "an old sock", "the car's cup holder", "a biscuit tin", "the sofa cushions",
                        "a piggy bank", "the lining of an old coat", "a drawer at work"])
    intro = scene(rng, w, f"{w.name} [empties|tips out|sorts] {where}.")
    body = rng.choice([
        f"{w.name} has {a} nickels, {b} dimes and {c} quarters.",
        f"In {where} {w.name} finds {a} nickels (5 cents each), {b} dimes (10 cents each) and {c} quarters (25 cents each).",
        f"{w.name} counts the coins from {where}: {b} dimes, {a} nickels and {c} quarters.",
        f"There are {c} quarters, {a} nickels and {b} dimes in {where}, and {w.name} [wants|decides] to [count them|take them to the bank].",
    ])
    q = ask(rng, "How many cents does [she|he] have?".replace("[she|he]", w.p), "What are the coins worth in cents?", "<FIND> the value of the coins in cents.")
    return s.record(story(rng, w, intro, body, q), total)


def test_scores(rng: random.Random) -> dict:
    w = Who(rng)
    n = rng.choice([3, 4])
    target = rng.randint(70, 90)
    scores = [rng.randint(max(50, target - 20), min(100, target + 15)) for _ in range(n)]
    need = target * (n + 1) - sum(scores)
    tries = 0
    while not (0 < need <= 100) and tries < 50:
        scores = [rng.randint(max(50, target - 20), min(100, target + 15)) for _ in range(n)]
        need = target * (n + 1) - sum(scores)
        tries += 1
    if not 0 < need <= 100:
        raise ArithmeticError("no reachable score")
    subject = rng.choice(V.SUBJECTS)
    s = Solution(rng)
    tt, total = s.eq(f"{target}*{n + 1}")
    s.say(f"An average of {target} over {n + 1} tests needs {tt} points.")
    ts, have = s.eq("+".join(map(str, scores)))
    s.say(f"So far {w.p} has {ts} points.")
    tn, got = s.eq(f"{total}-{have}")
    s.say(f"{w.P} needs {tn} on the last test.")
    listed = ", ".join(map(str, scores[:-1])) + f" and {scores[-1]}"
    intro = scene(rng, w, f"{w.name} [wants|hopes] to [keep|earn] a place in the advanced {subject} class.")
    body = rng.choice([
        f"{w.name} scored {listed} on {w.poss} first {n} {subject} tests. {w.P} wants an average of {target} after the next test.",
        f"On {n} {subject} tests {w.name} got {listed}. To reach an average of {target} across {n + 1} tests, {w.p} [has|needs] one test left.",
        f"{w.name}'s {subject} marks so far are {listed}. There is one more test, and {w.poss} <RELATIVE> [has promised|offered] a treat for an average of {target}.",
    ])
    q = ask(rng, "What score does {p} need on the next test?".format(p=w.p), f"<FIND> the score {w.name} needs on the last test.",
            "What must the final test score be?")
    return s.record(story(rng, w, intro, body, q), got)


def dog_walker(rng: random.Random) -> dict:
    w = Who(rng)
    dogs, walks, pay = rng.randint(2, 8), rng.randint(2, 14), rng.randint(3, 15)
    weeks = rng.randint(2, 6)
    s = Solution(rng)
    tw, per_week = s.eq(f"{dogs}*{walks}")
    s.say(f"{w.P} does {tw} walks a week.")
    te, week_pay = s.eq(f"{per_week}*{pay}")
    s.say(f"That pays {te} dollars a week.")
    tt, total = s.eq(f"{week_pay}*{weeks}")
    s.say(f"In {weeks} weeks {w.p} earns {tt} dollars.")
    breeds = rng.choice(["terriers", "spaniels", "poodles", "collies", "greyhounds", "beagles", "labradors", "dachshunds", "huskies"])
    intro = scene(rng, w, f"{w.name} walks dogs [in the {V.place_name(rng)} park|along the river|after school].")
    body = rng.choice([
        f"{w.name} walks {dogs} dogs, each {walks} times a week, and is paid {money(pay)} per walk. This goes on for {weeks} weeks.",
        f"[Every|Each] week {w.name} takes each of {num(rng, dogs)} {breeds} out {walks} times, earning {money(pay)} a walk. {w.P} does this for {num(rng, weeks)} weeks.",
        f"For {weeks} weeks {w.name} looks after {dogs} {breeds}. Each one [needs|gets] {walks} walks a week, and {w.p} charges {money(pay)} per walk.",
    ])
    q = ask(rng, f"How much does {w.name} earn in {weeks} weeks?", f"What does {w.p} make <ALL> over the {weeks} weeks?", f"<FIND> {w.name}'s earnings.")
    return s.record(story(rng, w, intro, body, q), total)


def growth(rng: random.Random) -> dict:
    w = Who(rng)
    start, per_week, weeks = rng.randint(2, 40), rng.randint(1, 6), rng.randint(3, 12)
    cut = rng.randint(0, start)
    plant = rng.choice(["sunflower", "bean plant", "bamboo shoot", "tomato plant", "hedge", "sapling", "pumpkin vine",
                        "cactus", "fern", "corn plant", "rose bush", "hop vine"])
    s = Solution(rng)
    tg, grown = s.eq(f"{per_week}*{weeks}")
    s.say(f"It grows {tg} cm.")
    tt, height = s.eq(f"{start}+{grown}-{cut}" if cut else f"{start}+{grown}")
    s.say(f"[Its height is then|It ends up] {tt} cm.")
    cut_s = f" Then {w.p} [trims|cuts back|prunes] {cut} cm [off the top|from it]." if cut else ""
    intro = scene(rng, w, f"{w.name} [measures|keeps a chart of] a {plant} [on the windowsill|in the garden|for a school project].")
    body = rng.choice([
        f"{w.name}'s {plant} is {start} cm tall and grows {per_week} cm every week for {weeks} weeks.{cut_s}",
        f"A {plant} [starts at|measures] {start} cm. For {num(rng, weeks)} weeks it grows {per_week} cm a week.{cut_s}",
        f"[Over|During] {weeks} weeks of [sunshine|spring|summer], {w.name}'s {start} cm {plant} gains {per_week} cm a week.{cut_s}",
    ])
    q = ask(rng, f"How tall is the {plant} [now|at the end], in cm?", f"<FIND> the final height of the {plant} in centimeters.")
    return s.record(story(rng, w, intro, body, q), height)


def bouquets(rng: random.Random) -> dict:
    w = Who(rng)
    n, per = rng.randint(3, 15), rng.randint(5, 12)
    frac = rng.choice([2, 3, 4])
    while per % frac:
        per += 1
    flower = rng.choice(["roses", "tulips", "daisies", "lilies", "peonies", "sunflowers", "carnations", "irises", "dahlias", "orchids"])
    other = rng.choice(["ferns", "eucalyptus sprigs", "gypsophila stems", "lavender stalks", "greenery stems"])
    s = Solution(rng)
    tt, total = s.eq(f"{n}*{per}")
    s.say(f"There are {tt} stems in all.")
    tf, fl = s.eq(f"{total}/{frac}")
    s.say(f"{tf} of them are {flower}.")
    to, oth = s.eq(f"{total}-{fl}")
    s.say(f"{to} are {other}.")
    part = {2: "half", 3: "a third", 4: "a quarter"}[frac]
    intro = scene(rng, w, f"{w.name} [runs|works at] a flower stall [in <PLACE>|by the station|at the market].", f"{w.name} is arranging flowers for a <OCCASION>.")
    body = rng.choice([
        f"{w.name} makes {n} bouquets with {per} stems each. {cap(part)} of all the stems are {flower} and the rest are {other}.",
        f"Each of {w.name}'s {num(rng, n)} bouquets has {per} stems; {part} of the stems are {flower}, the others {other}.",
        f"For the <OCCASION>, {w.name} ties {n} bouquets of {per} stems. [Only|Exactly] {part} of the stems are {flower}; the rest are {other}.",
    ])
    q = ask(rng, f"How many {other} does {w.name} use?", f"<FIND> the number of {other} in the bouquets.")
    return s.record(story(rng, w, intro, body, q), oth)


def lift(rng: random.Random) -> dict:
    people, cap_ = rng.randint(12, 90), rng.choice([4, 5, 6, 8, 10, 12])
    extra = (-people) % cap_
    people += extra
    minutes = rng.randint(2, 5)
    place = rng.choice(["hotel", "office tower", "ski lift", "cable car", "lighthouse tour", "boat ferry", "observation deck",
                        "mine shaft tour", "castle tower", "hospital"])
    s = Solution(rng)
    tt, trips = s.eq(f"{people}/{cap_}")
    s.say(f"It takes {tt} trips.")
    tm, total = s.eq(f"{trips}*{minutes}")
    s.say(f"That is {tm} minutes.")
    vehicle = rng.choice(["lift", "elevator", "cabin", "gondola", "boat", "cage"])
    body = rng.choice([
        f"{people} visitors [queue|wait] for the {vehicle} at the {V.place_name(rng)} {place}. It carries {cap_} people at a time and each trip [takes|lasts] {minutes} minutes.",
        f"The {vehicle} at the {place} [holds|takes] {cap_} people per trip, and a round trip [takes|lasts] {minutes} minutes. A group of {people} [arrives|shows up].",
        f"A school group of {people} [visits|goes up] the {V.place_name(rng)} {place}. Only {cap_} fit in the {vehicle}, which needs {minutes} minutes for each trip.",
    ])
    q = ask(rng, "How many minutes does it take to carry everyone?", "How long, in minutes, until the whole group has gone up?", "<FIND> the total time in minutes.")
    return s.record(story(rng, None, body, q), total)


def carwash(rng: random.Random) -> dict:
    w = Who(rng)
    cars, price = rng.randint(10, 60), rng.randint(4, 15)
    vans, vprice = rng.randint(0, 12), rng.randint(8, 25)
    supplies = rng.randint(10, 60)
    group = rng.choice(["the school band", "the swim team", "a scout troop", "the drama club", "the youth choir", "the robotics team"])
    s = Solution(rng)
    tc, vc = s.eq(f"{cars}*{price}")
    s.say(f"The cars bring in {tc} dollars.")
    tv, vv = s.eq(f"{vans}*{vprice}")
    s.say(f"The vans bring in {tv} dollars.")
    tt, profit = s.eq(f"{vc}+{vv}-{supplies}")
    s.say(f"After supplies they keep {tt} dollars.")
    intro = scene(rng, w, f"{w.name} helps {group} raise money for a trip to <PLACE>.")
    body = rng.choice([
        f"{cap(group)} washes {cars} cars at {money(price)} each and {vans} vans at {money(vprice)} each. Soap and sponges cost {money(supplies)}.",
        f"At {group}'s car wash, a car costs {money(price)} and a van {money(vprice)}. They wash {cars} cars and {vans} vans, and [spend|spent] {money(supplies)} on supplies.",
        f"{w.name} and {group} [spend|give up] a Saturday washing {cars} cars ({money(price)} each) and {vans} vans ({money(vprice)} each). [Buckets, soap and wax|The supplies] cost {money(supplies)}.",
    ])
    q = ask(rng, "How much money do they make after paying for supplies?", "What is the profit from the car wash?", "<FIND> the money left after supplies.")
    return s.record(story(rng, w, intro, body, q), profit)


def stamps_ratio(rng: random.Random) -> dict:
    a, b, c = rng.sample(V.FIRST_NAMES, 3)
    thing = rng.choice(V.COLLECTIBLES)
    base = rng.randint(5, 40)
    mult = rng.randint(2, 4)
    fewer = rng.randint(1, base * mult - 1)
    s = Solution(rng)
    tb, vb = s.eq(f"{base}*{mult}")
    s.say(f"{b} has {tb} {thing}.")
    tc, vc = s.eq(f"{vb}-{fewer}")
    s.say(f"{c} has {tc} {thing}.")
    tt, total = s.eq(f"{base}+{vb}+{vc}")
    s.say(f"Together they have {tt} {thing}.")
    times = {2: "twice", 3: "three times", 4: "four times"}[mult]
    body = rng.choice([
        f"{a} has {base} {thing}. {b} has {times} as many as {a}, and {c} has {fewer} fewer than {b}.",
        f"{b} owns {times} as many {thing} as {a}, who has {base}. {c} owns {fewer} fewer {thing} than {b}.",
        f"Three friends collect {thing}. {a} has {base}; {b} has {times} as many; {c} has {fewer} less than {b}.",
    ])
    q = ask(rng, f"How many {thing} do the three have together?", f"<FIND> the total number of {thing} they own.", f"How many {thing} is that <ALL>?")
    return s.record(story(rng, None, body, q), total)


def delivery(rng: random.Random) -> dict:
    w = Who(rng)
    boxes, kg, cap_ = rng.randint(20, 200), rng.randint(2, 25), rng.choice([100, 200, 250, 400, 500, 600])
    while (boxes * kg) % cap_:
        boxes += 1
    cargo = rng.choice(["flour", "cement", "apples", "books", "tiles", "paint", "rice", "potatoes", "fertiliser", "printer paper"])
    veh = rng.choice(["van", "truck", "pickup", "cargo bike", "trailer", "boat"])
    s = Solution(rng)
    tw, weight = s.eq(f"{boxes}*{kg}")
    s.say(f"The load weighs {tw} kg.")
    tt, trips = s.eq(f"{weight}/{cap_}")
    s.say(f"That takes {tt} trips.")
    intro = scene(rng, w, f"{w.name} drives a delivery {veh} for a firm in <PLACE>.")
    body = rng.choice([
        f"{w.name} must deliver {boxes} sacks of {cargo}, each weighing {kg} kg. The {veh} can carry {cap_} kg per trip.",
        f"There are {boxes} boxes of {cargo} at the depot, {kg} kg each. {w.name}'s {veh} takes at most {cap_} kg at a time.",
        f"A {veh} with a {cap_} kg limit has to move {boxes} crates of {cargo} weighing {kg} kg apiece.",
    ])
    q = ask(rng, "How many trips are needed?", f"How many trips must {w.name} make?", "<FIND> the number of trips.")
    return s.record(story(rng, w, intro, body, q), trips)


# ------------------------------------------------------------------ skeletons over large topic lists
# A few arithmetic skeletons, each worded over a long list of trades and things, so the problems span
# many topics (a potter's bowls, a beekeeper's honey, a printer's posters ...) rather than a few.
TRADES = [  # (worker, verb, things, singular thing, time unit)
    ("beekeeper", "fills", "jars of honey", "jar of honey", "day"), ("potter", "throws", "bowls", "bowl", "day"),
    ("printer", "prints", "posters", "poster", "hour"), ("baker", "bakes", "loaves", "loaf", "hour"),
    ("tailor", "sews", "shirts", "shirt", "day"), ("fruit picker", "fills", "crates of pears", "crate of pears", "hour"),
    ("carpenter", "builds", "stools", "stool", "day"), ("weaver", "weaves", "rugs", "rug", "week"),
    ("cobbler", "mends", "pairs of shoes", "pair of shoes", "day"), ("florist", "ties", "bouquets", "bouquet", "hour"),
    ("candle maker", "pours", "candles", "candle", "hour"), ("chocolatier", "makes", "truffles", "truffle", "hour"),
    ("typist", "types", "pages", "page", "hour"), ("volunteer", "packs", "food parcels", "food parcel", "hour"),
    ("glassblower", "blows", "vases", "vase", "day"), ("blacksmith", "forges", "horseshoes", "horseshoe", "day"),
    ("gardener", "plants", "tulip bulbs", "tulip bulb", "hour"), ("fisher", "lands", "mackerel", "mackerel", "hour"),
    ("knitter", "knits", "pairs of mittens", "pair of mittens", "week"), ("bookbinder", "binds", "notebooks", "notebook", "day"),
    ("jeweller", "sets", "rings", "ring", "day"), ("cheesemaker", "presses", "wheels of cheese", "wheel of cheese", "week"),
    ("soap maker", "cuts", "bars of soap", "bar of soap", "hour"), ("painter", "finishes", "postcards", "postcard", "day"),
    ("mechanic", "repairs", "bicycles", "bicycle", "day"), ("barista", "serves", "coffees", "coffee", "hour"),
    ("courier", "delivers", "parcels", "parcel", "hour"), ("librarian", "shelves", "books", "book", "hour"),
    ("tiler", "lays", "tiles", "tile", "hour"), ("basket maker", "weaves", "baskets", "basket", "day"),
    ("brewer", "fills", "barrels", "barrel", "week"), ("sign painter", "letters", "shop signs", "shop sign", "week"),
    ("toy maker", "carves", "wooden trains", "wooden train", "day"), ("seamstress", "hems", "curtains", "curtain", "day"),
    ("milliner", "trims", "hats", "hat", "day"), ("locksmith", "cuts", "keys", "key", "hour"),
    ("calligrapher", "writes", "wedding invitations", "wedding invitation", "hour"), ("farmhand", "bales", "bales of hay", "bale of hay", "hour"),
    ("cook", "rolls", "dumplings", "dumpling", "hour"), ("photographer", "edits", "photos", "photo", "hour"),
    ("clockmaker", "repairs", "clocks", "clock", "week"), ("ceramicist", "glazes", "tiles", "tile", "hour"),
    ("saddler", "stitches", "saddles", "saddle", "week"), ("mason", "sets", "paving stones", "paving stone", "hour"),
    ("tutor", "marks", "essays", "essay", "hour"), ("upholsterer", "covers", "chairs", "chair", "week"),
    ("confectioner", "wraps", "toffees", "toffee", "hour"), ("gunsmith's apprentice", "polishes", "brass buttons", "brass button", "hour"),
]
PLACES_WORK = ["workshop", "stall", "studio", "shed", "kitchen", "back room", "market stand", "barn", "cellar", "attic"]


def _trade(rng: random.Random):
    worker, verb, things, one, unit = rng.choice(TRADES)
    return worker, verb, things, one, unit, f"{unit}s"


def production(rng: random.Random) -> dict:
    w = Who(rng)
    worker, verb, things, one, unit, units = _trade(rng)
    rate, t = rng.randint(3, 25), rng.randint(3, 12)
    place = f"{w.poss} {rng.choice(PLACES_WORK)} in {V.place_name(rng)}"
    s = Solution(rng)
    tm, made = s.eq(f"{rate}*{t}")
    s.say(f"In {t} {units} {w.p} {verb} {tm} {things}.")
    kind = rng.randrange(3)
    if kind == 0:
        price = rng.randint(2, 30)
        tr, rev = s.eq(f"{made}*{price}")
        s.say(f"Selling them at {price} dollars each brings in {tr} dollars.")
        body = rng.choice([
            f"{w.name} is a {worker} who {verb} {rate} {things} [every|each|a] {unit} in {place}. After {t} {units}, {w.p} sells all of them for {money(price)} each.",
            f"[Working|Busy] in {place}, {w.name} the {worker} {verb} {rate} {things} per {unit}. {w.P} keeps this up for {num(rng, t)} {units} and [sells|prices] every {one} at {money(price)}.",
            f"A {worker} named {w.name} can manage {rate} {things} in one {unit}; each {one} sells for {money(price)}. [{w.P} works|This goes on] for {t} {units}.",
        ])
        q = ask(rng, f"How much money do the {things} bring in?", f"What does {w.name} earn from {t} {units} of work?", f"<FIND> {w.name}'s takings.")
        return s.record(story(rng, w, body, q), rev)
    if kind == 1:
        gone = rng.randint(1, made - 1)
        tl, left = s.eq(f"{made}-{gone}")
        s.say(f"{tl} {things} are left.")
        where = rng.choice(["a school", "the neighbours", "a charity shop", "a hospital", "the town hall", "a museum shop", "a café"])
        body = rng.choice([
            f"{w.name}, a {worker}, {verb} {rate} {things} [each|every|a] {unit} for {t} {units}. {gone} of them go to {where}.",
            f"[In|At] {place}, {w.name} {verb} {rate} {things} per {unit}. After {num(rng, t)} {units} {w.p} [sends|gives] {gone} to {where}.",
            f"For {t} {units}, the {worker} {w.name} {verb} {rate} {things} a {unit}, then [delivers|hands over] {gone} of them to {where}.",
        ])
        q = ask(rng, f"How many {things} does {w.name} have left?", f"<HOWMANY> {things} are <LEFT>?")
        return s.record(story(rng, w, body, q), left)
    other = Who(rng)
    while other.name == w.name:
        other = Who(rng)
    rate2 = rate + rng.randint(1, 9)
    t2, made2 = s.eq(f"{rate2}*{t}")
    s.say(f"{other.name} {verb} {t2} {things}.")
    td, diff = s.eq(f"{made2}-{made}")
    s.say(f"That is {td} more.")
    body = rng.choice([
        f"Two {worker}s share {place}. {w.name} {verb} {rate} {things} a {unit} and {other.name} {verb} {rate2}. Both work for {t} {units}.",
        f"{w.name} and {other.name} are {worker}s. In one {unit}, {w.name} {verb} {rate} {things} while {other.name} {verb} {rate2}. They each work {num(rng, t)} {units}.",
        f"Over {t} {units}, {other.name} {verb} {rate2} {things} every {unit}; {w.name}, a slower {worker}, {verb} {rate} per {unit}.",
    ])
    q = ask(rng, f"How many more {things} does {other.name} make than {w.name}?", f"<FIND> how many more {things} {other.name} ends up with.")
    return s.record(story(rng, w, body, q), diff)


STOCKS = [  # (keeper, things, place)
    ("shopkeeper", "umbrellas", "shop"), ("librarian", "books", "library"), ("farmer", "eggs", "farm shop"),
    ("baker", "bread rolls", "bakery"), ("zookeeper", "bags of feed", "store room"), ("florist", "roses", "flower shop"),
    ("bookseller", "maps", "bookshop"), ("chemist", "bottles of cough syrup", "pharmacy"), ("quartermaster", "blankets", "depot"),
    ("caterer", "napkins", "van"), ("teacher", "pencils", "classroom cupboard"), ("grocer", "melons", "greengrocer's"),
    ("toy seller", "yo-yos", "toy stall"), ("harbour master", "life jackets", "boathouse"), ("innkeeper", "candles", "inn"),
    ("gardener", "seed trays", "greenhouse"), ("coach", "footballs", "kit room"), ("nurse", "bandages", "first-aid room"),
    ("costume maker", "wigs", "wardrobe room"), ("stationer", "envelopes", "stationery shop"), ("camp leader", "torches", "camp store"),
    ("fishmonger", "trays of sardines", "fish stall"), ("hardware dealer", "boxes of nails", "hardware store"),
    ("music teacher", "recorders", "music room"), ("scout leader", "tents", "scout hut"), ("vintner", "bottles of wine", "cellar"),
]


def inventory(rng: random.Random) -> dict:
    w = Who(rng)
    keeper, things, place = rng.choice(STOCKS)
    start, weekly_in, weekly_out, weeks = rng.randint(20, 400), rng.randint(5, 60), rng.randint(5, 60), rng.randint(2, 6)
    if start + (weekly_in - weekly_out) * weeks <= 0:
        weekly_in = weekly_out + rng.randint(1, 10)
    shop = f"{V.surname(rng)}'s {place}" if rng.random() < 0.5 else f"the {place} in {V.place_name(rng)}"
    s = Solution(rng)
    ti, added = s.eq(f"{weekly_in}*{weeks}")
    s.say(f"{ti} {things} arrive.")
    to, gone = s.eq(f"{weekly_out}*{weeks}")
    s.say(f"{to} {things} go out.")
    tt, now = s.eq(f"{start}+{added}-{gone}")
    s.say(f"That leaves {tt} {things}.")
    body = rng.choice([
        f"{w.name}, the {keeper} at {shop}, has {start} {things}. Every week {weekly_in} more arrive and {weekly_out} are [sold|used|handed out].",
        f"There are {start} {things} at {shop}. For {num(rng, weeks)} weeks, {w.name} [takes in|receives] {weekly_in} a week and [sells|gives out] {weekly_out} a week.",
        f"At {shop}, {w.name} starts with {start} {things}. A delivery of {weekly_in} comes each week, while {weekly_out} [leave|go out] each week.",
    ])
    q = ask(rng, f"How many {things} are there after {weeks} weeks?", f"After {weeks} weeks, how many {things} does {w.name} have?",
            f"<FIND> the number of {things} after {weeks} weeks.")
    return s.record(story(rng, w, body, q), now)


def share_out(rng: random.Random) -> dict:
    w = Who(rng)
    keeper, things, place = rng.choice(STOCKS)
    groups = rng.choice(["classes", "teams", "tables", "families", "cabins", "patrols", "wards", "houses", "clubs"])
    k, each = rng.randint(3, 12), rng.randint(2, 15)
    spare = rng.randint(1, k - 1)
    total = k * each + spare
    s = Solution(rng)
    tg, given = s.eq(f"{k}*{each}")
    s.say(f"{w.P} gives out {tg} {things}.")
    tl, left = s.eq(f"{total}-{given}")
    s.say(f"{tl} {things} are left.")
    body = rng.choice([
        f"{w.name} has {total} {things} and shares them among {k} {groups}, giving each {each}.",
        f"As {keeper}, {w.name} hands out {each} {things} to each of {k} {groups}. {w.P} started with {total}.",
        f"{total} {things} are stored at the {place}. {w.name} gives {each} to every one of the {k} {groups}.",
    ])
    q = ask(rng, f"How many {things} are left over?", f"How many {things} does {w.name} still have?", f"<HOWMANY> {things} remain?")
    return s.record(story(rng, w, body, q), left)



def multiples(rng: random.Random) -> dict:
    a, b, c = Who(rng), Who(rng), Who(rng)
    keeper, things, place = rng.choice(STOCKS + [("collector", t, "shelf") for t in V.COLLECTIBLES])
    base, mult = rng.randint(4, 40), rng.randint(2, 5)
    more = rng.randint(2, 30)
    s = Solution(rng)
    tb, vb = s.eq(f"{base}*{mult}")
    s.say(f"{b.name} has {tb} {things}.")
    tc, vc = s.eq(f"{vb}+{more}")
    s.say(f"{c.name} has {tc} {things}.")
    tt, total = s.eq(f"{base}+{vb}+{vc}")
    s.say(f"[Together|Altogether] they have {tt} {things}.")
    times = {2: "twice", 3: "three times", 4: "four times", 5: "five times"}[mult]
    body = rng.choice([
        f"{a.name} has {base} {things}. {b.name} has {times} as many as {a.name}, and {c.name} has {more} more than {b.name}.",
        f"{c.name} owns {more} more {things} than {b.name}, who owns {times} as many as {a.name}. {a.name} owns {base}.",
        f"[At the {place},|In one week,] {a.name} [counts|collects|sorts] {base} {things}, {b.name} {times} as many, and {c.name} {more} more than {b.name}.",
    ])
    q = ask(rng, f"How many {things} do the three of them have [together|in all]?", f"<FIND> the total number of {things}.")
    return s.record(story(rng, a, body, q), total)


def group_order(rng: random.Random) -> dict:
    w = Who(rng)
    (i1, p1, lo1, hi1), (i2, p2_, lo2, hi2) = rng.sample(V.ITEMS, 2)
    people = rng.randint(3, 15)
    pa, pb = rng.randint(lo1, hi1), rng.randint(lo2, hi2)
    group = rng.choice(["choir", "hiking club", "class", "team", "book club", "office", "band", "family", "crew", "troupe",
                        "committee", "orchestra", "night class", "swim squad"])
    s = Solution(rng)
    te, each = s.eq(f"{pa}+{pb}")
    s.say(f"Each person's order costs {te} dollars.")
    tt, total = s.eq(f"{each}*{people}")
    s.say(f"For {people} people that is {tt} dollars.")
    body = rng.choice([
        f"{w.name} orders for the {people} members of the {group}: each gets a {i1} for {money(pa)} and a {i2} for {money(pb)}.",
        f"Every one of the {people} people in {w.name}'s {group} wants a {i1} ({money(pa)}) and a {i2} ({money(pb)}).",
        f"The {group} has {num(rng, people)} members. {w.name} buys each of them one {i1} at {money(pa)} and one {i2} at {money(pb)}.",
    ])
    q = ask(rng, "How much does the whole order cost?", f"What does {w.name} spend <ALL>?", "<FIND> the cost of the order.")
    return s.record(story(rng, w, body, q), total)


def days_to_finish(rng: random.Random) -> dict:
    w = Who(rng)
    worker, verb, things, one, unit, units = _trade(rng)
    rate, t = rng.randint(3, 30), rng.randint(3, 20)
    done = rng.randint(0, rate * 3)
    order = rate * t + done
    client = rng.choice([f"the {V.place_name(rng)} <ORGKIND>", "<PERSON>", f"a shop in {V.place_name(rng)}", "a wedding party",
                         "the town council", "a hotel chain", "a summer camp", "a film studio"])
    s = Solution(rng)
    tr, rest = s.eq(f"{order}-{done}")
    s.say(f"{tr} {things} are still to be made.")
    tt, days = s.eq(f"{rest}/{rate}")
    s.say(f"At {rate} a {unit} that takes {tt} {units}.")
    done_s = f" {done} are already finished." if done else ""
    body = rng.choice([
        f"{w.name}, a {worker}, has an order for {order} {things} from {client}.{done_s} {w.P} {verb} {rate} {things} a {unit}.",
        f"{client[:1].upper() + client[1:]} orders {order} {things} from {w.name}'s {rng.choice(PLACES_WORK)}.{done_s} {w.name} {verb} {rate} per {unit}.",
        f"[To fill|For] an order of {order} {things}, the {worker} {w.name} works at {rate} {things} per {unit}.{done_s}",
    ])
    q = ask(rng, f"How many {units} will it take to finish the order?", f"How many more {units} does {w.name} need?",
            f"<FIND> the number of {units} needed to complete the order.")
    return s.record(story(rng, w, body, q), days)


def craft_profit(rng: random.Random) -> dict:
    w = Who(rng)
    worker, verb, things, one, unit, units = _trade(rng)
    n, cost, price = rng.randint(5, 60), rng.randint(1, 20), 0
    price = cost + rng.randint(1, 25)
    fee = rng.choice([0, 0, 10, 15, 20, 25, 40])
    market = f"the {V.place_name(rng)} {rng.choice(V.EVENTS)}"
    s = Solution(rng)
    tc, costs = s.eq(f"{n}*{cost}")
    s.say(f"Materials cost {tc} dollars.")
    tr, rev = s.eq(f"{n}*{price}")
    s.say(f"Sales bring in {tr} dollars.")
    tp, profit = s.eq(f"{rev}-{costs}" + (f"-{fee}" if fee else ""))
    s.say(f"The profit is {tp} dollars.")
    fee_s = f" A stall at {market} costs {money(fee)}." if fee else ""
    body = rng.choice([
        f"{w.name} is a {worker}. The materials for one {one} cost {money(cost)}, and {w.p} sells each for {money(price)}. This month {w.p} [makes and sells|sells] {n}.{fee_s}",
        f"Each {one} costs {w.name} {money(cost)} to make and sells for {money(price)}. {w.name} sells {n} of them at {market}.{fee_s}",
        f"At {market}, {w.name} the {worker} sells {n} {things} at {money(price)} <EACH>; every one cost {money(cost)} in materials.{fee_s}",
    ])
    q = ask(rng, f"How much profit does {w.name} make?", "What is the profit in dollars?", f"<FIND> {w.name}'s profit.")
    return s.record(story(rng, w, body, q), profit)


def two_rates(rng: random.Random) -> dict:
    w = Who(rng)
    worker, verb, things, one, unit, units = _trade(rng)
    r1, t1, r2, t2 = rng.randint(3, 20), rng.randint(2, 8), rng.randint(3, 20), rng.randint(2, 8)
    why = rng.choice(["a new tool", "an apprentice", "a better workbench", "longer daylight", "a second machine", "practice",
                      "a cold", "a broken tool", "a power cut", "a visit from the inspector"])
    s = Solution(rng)
    ta, a = s.eq(f"{r1}*{t1}")
    s.say(f"First {w.p} {verb} {ta} {things}.")
    tb, b = s.eq(f"{r2}*{t2}")
    s.say(f"Then {w.p} {verb} {tb} {things}.")
    tt, total = s.eq(f"{a}+{b}")
    s.say(f"[In all|Altogether] that is {tt} {things}.")
    body = rng.choice([
        f"{w.name} the {worker} {verb} {r1} {things} a {unit} for {t1} {units}. After {why}, {w.p} {verb} {r2} a {unit} for {t2} more {units}.",
        f"For {num(rng, t1)} {units} {w.name} {verb} {r1} {things} per {unit}; then, because of {why}, {r2} per {unit} for the next {num(rng, t2)} {units}.",
        f"A {worker} named {w.name} works {t1} {units} at {r1} {things} per {unit} and {t2} {units} at {r2} per {unit}.",
    ])
    q = ask(rng, f"How many {things} does {w.name} make <ALL>?", f"<FIND> the total number of {things}.")
    return s.record(story(rng, w, body, q), total)

SCENARIOS: tuple[Callable[[random.Random], dict], ...] = (
    shopping, hourly_savings, baking, travel, garden, reading, classroom, farm_legs, ages, discount, recipe,
    collection, fundraiser, tank, season, overtime, savings_goal, pizza, paint, tickets, subscription, stand,
    rent_split, commission, restaurant, pet_food, training, crafts, bus, wood, movies, concert, jam, hike_water,
    library, production, production, production, inventory, inventory, share_out, share_out, multiples, group_order,
    group_order, days_to_finish, days_to_finish, craft_profit, craft_profit, two_rates, two_rates, taxi, packing, fence, coins, test_scores, dog_walker, growth, bouquets, lift, carwash, stamps_ratio, delivery,
)


def generate_gsm8k(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"gsm8k:{seed}")
    out, seen = [], set()
    while len(out) < n:
        try:
            rec = rng.choice(SCENARIOS)(rng)
        except ArithmeticError:  # a draw whose numbers do not divide evenly: draw again
            continue
        shape = V.skeleton(rec["question"])
        if rec["question"] in seen or shape in seen:
            continue  # the same problem with other names: draw another
        seen.update((rec["question"], shape))
        out.append(rec)
    return out
