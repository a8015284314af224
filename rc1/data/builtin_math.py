"""GSM8K-like word problems in the official JSONL schema {question, answer: '<steps>\\n#### n'}.

Every step's arithmetic is evaluated with rc1.tools.calc (the policy's own calculator) and written as a
GSM8K calculator annotation <<expr=value>>, so answers are correct by construction and re-checkable.
"""

from __future__ import annotations

import random
from typing import Callable

from rc1.data import builtin_vocab as V
from rc1.data.builtin_vocab import alt
from rc1.tools import calc


class Solution:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def eq(self, expr: str) -> tuple[str, int]:
        """'a*b = <<a*b=v>>v' and v (all builtin problems stay in whole numbers)."""
        out = calc(expr)
        if out.startswith("error") or "." in out:
            raise ArithmeticError(f"builtin step {expr!r} gave {out!r}")
        return f"{expr} = <<{expr}={out}>>{out}", int(out)

    def say(self, text: str) -> None:
        self.lines.append(text)

    def record(self, question: str, answer: int) -> dict:
        return {"question": question, "answer": "\n".join(self.lines) + f"\n#### {answer}"}


def _pick_name(rng: random.Random) -> tuple[str, str, str]:
    name = rng.choice(V.FIRST_NAMES)
    pron = rng.choice([("she", "her"), ("he", "his")])
    return name, pron[0], pron[1]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def shopping(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    (a1, a2, lo1, hi1), (b1, b2, lo2, hi2) = rng.sample(V.ITEMS, 2)
    na, nb = rng.randint(2, 9), rng.randint(2, 7)
    pa, pb = rng.randint(lo1, hi1), rng.randint(lo2, hi2)
    shop = rng.choice(V.SHOPS)
    s = Solution()
    ta, va = s.eq(f"{na}*{pa}")
    s.say(f"The {a2} cost {ta} dollars.")
    tb, vb = s.eq(f"{nb}*{pb}")
    s.say(f"The {b2} cost {tb} dollars.")
    tt, total = s.eq(f"{va}+{vb}")
    s.say(f"Altogether {p} spends {tt} dollars.")
    if rng.random() < 0.5:
        bill = ((total // 50) + 1) * 50 + rng.choice([0, 50])
        tc, change = s.eq(f"{bill}-{total}")
        s.say(f"The change from ${bill} is {tc} dollars.")
        q = (f"[At|In|Over at|Down at] the {shop}, {name} [buys|picks up|purchases|gets] {na} {a2} [for|at] ${pa} [each|apiece] and {nb} {b2} [for|at] ${pb} [each|apiece]. "
             f"[{_cap(p)} pays|{_cap(p)} hands over|{name} pays] [with|] ${bill}. [How much change does {name} get back|What change should {p} receive|How many dollars come back as change]?")
        return s.record(alt(q, rng), change)
    q = rng.choice([
        f"{name} [goes|heads|walks|drives|pops over] to the {shop} and [picks up|buys|grabs|gets] {na} {a2} [at|for] ${pa} [apiece|each|a piece], [plus|and also|as well as|along with] {nb} {b2} that cost ${pb} [each|apiece]. [How many dollars does {p} spend|How much does {p} spend|What does {p} pay|How much money does {name} spend] [in total|altogether|overall|all together|]?",
        f"[A|The|One] {shop} [sells|charges|offers] {a2} [for|at] ${pa} [each|apiece] and {b2} [for|at] ${pb} [each|apiece]. {name} [buys|orders|takes|gets] {na} {a2} and {nb} {b2}. What is the [total bill|total cost|whole bill|combined price] in dollars?",
        f"{na} {a2} [cost|sell for|go for] ${pa} each and {nb} {b2} [cost|sell for|go for] ${pb} each [at the {shop}|]. [If|When] {name} buys [all of them|them all|the lot], how much [is the bill|does that come to|does {p} owe]?",
    ])
    return s.record(alt(q, rng), total)


def hourly_savings(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    job = rng.choice(V.JOBS)
    rate, hours, weeks = rng.randint(8, 25), rng.randint(4, 20), rng.randint(2, 8)
    spend = rng.randint(1, 4) * 10
    s = Solution()
    tw, week = s.eq(f"{rate}*{hours}")
    s.say(f"Each week {p} earns {tw} dollars.")
    te, earned = s.eq(f"{week}*{weeks}")
    s.say(f"Over {weeks} weeks that is {te} dollars.")
    ts, spent = s.eq(f"{spend}*{weeks}")
    s.say(f"{_cap(p)} spends {ts} dollars.")
    tl, left = s.eq(f"{earned}-{spent}")
    s.say(f"So {p} saves {tl} dollars.")
    q = rng.choice([
        f"{name} [works|has a job|earns money] as a {job} [and earns|and makes|and is paid] ${rate} [an hour|per hour|for each hour]. {_cap(p)} works {hours} hours [every|each|a] week for {weeks} weeks and spends ${spend} of {poss} [pay|earnings|wages] [each|every] week. How much [money does {name} save|does {name} put aside|is left over]?",
        f"For {weeks} weeks, {name} [took|worked|picked up] shifts as a {job}: {hours} hours a week at ${rate} [per hour|an hour]. [Each|Every] week ${spend} went on [bus fare and snacks|lunches|rent|phone bills|comics|train tickets]. How many dollars [were left at the end|remained|did {p} keep]?",
        f"[Working|Employed] as a {job} [at ${rate} an hour|for ${rate} per hour], {name} [logs|puts in|clocks] {hours} hours [weekly|a week|per week]. After {weeks} weeks, having spent ${spend} [a week|weekly|each week], how much [has {p} saved|does {p} still have]?",
    ])
    return s.record(alt(q, rng), left)


def baking(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    food = rng.choice(V.BAKED)
    batches, per = rng.randint(3, 8), rng.choice([6, 8, 10, 12, 16, 20, 24])
    s = Solution()
    tt, total = s.eq(f"{batches}*{per}")
    s.say(f"{name} bakes {tt} {food}.")
    frac = rng.choice([2, 3, 4])
    while total % frac:
        batches += 1
        s = Solution()
        tt, total = s.eq(f"{batches}*{per}")
        s.say(f"{name} bakes {tt} {food}.")
    tg, given = s.eq(f"{total}/{frac}")
    s.say(f"{_cap(p)} gives away {tg} {food}.")
    eaten = rng.randint(1, max(1, (total - given) // 4))
    tl, left = s.eq(f"{total}-{given}-{eaten}")
    s.say(f"After eating {eaten}, {tl} {food} are left.")
    part = {2: "half", 3: "a third", 4: "a quarter"}[frac]
    q = rng.choice([
        f"{name} [bakes|makes|prepares|turns out] {batches} [trays|pans|sheets] of {food} with {per} on [each|every] [tray|pan|sheet]. {_cap(p)} [gives|hands|passes] {part} of them to the [neighbours|neighbors|cousins|team|class] and the family [eats|finishes|polishes off] {eaten}. How many {food} [remain|are left|are still there]?",
        f"For the [weekend|party|holiday|open day] {name} made {batches} batches of {food}, {per} [per|in each] batch. {_cap(part)} went to a {rng.choice(V.EVENTS)}, and {eaten} were eaten at home. How many {food} were left [over|]?",
        f"[There are|{name} has] {batches} [boxes|tins|crates] of {food}, {per} [in each|per box|apiece]. If {part} [are given away|get donated|are sold] and {eaten} [get eaten|are eaten|disappear], how many {food} [stay|are left|remain]?",
    ])
    return s.record(alt(q, rng), left)


def travel(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    veh, verb = rng.choice(V.VEHICLES)
    v1, t1 = rng.randint(3, 12) * 5, rng.randint(2, 5)
    v2, t2 = rng.randint(3, 12) * 5, rng.randint(1, 4)
    s = Solution()
    ta, da = s.eq(f"{v1}*{t1}")
    s.say(f"First leg: {ta} km.")
    tb, db = s.eq(f"{v2}*{t2}")
    s.say(f"Second leg: {tb} km.")
    tt, dist = s.eq(f"{da}+{db}")
    s.say(f"Total distance: {tt} km.")
    if rng.random() < 0.5:
        per_l = rng.choice([5, 10, 15, 20, 25])
        while dist % per_l:
            per_l = 5
        tf, fuel = s.eq(f"{dist}/{per_l}")
        s.say(f"Fuel used: {tf} liters.")
        q = (f"{name}'s {veh} {verb} at {v1} [km per hour|km/h|kilometers an hour] for {t1} hours, then at {v2} [km per hour|km/h] for {t2} [hours|more hours]. "
             f"It [uses|burns|needs] 1 liter of fuel [every|for each|per] {per_l} km. How many liters [of fuel|] [does the trip use|are used|get burned]?")
        return s.record(alt(q, rng), fuel)
    q = rng.choice([
        f"[A|One|The] {veh} {verb} for {t1} hours at {v1} km/h and then {t2} more hours at {v2} km/h. How many [kilometers|km] does it [cover|travel|go]?",
        f"{name} [takes|rides|catches] a {veh}. For the first {t1} hours it [averages|keeps|holds] {v1} kilometers per hour; after a [stop|break|pause] it [averages|does|manages] {v2} kilometers per hour for {t2} hours. How far did {name} [travel|go|get]?",
        f"[Leaving|Starting from|Setting off from] {V.place_name(rng)}, {name}'s {veh} [runs|moves|goes] {t1} hours at {v1} km/h, [then|and later|after that] {t2} hours at {v2} km/h. [What is the total distance|How far is the trip|How many km is that]?",
    ])
    return s.record(alt(q, rng), dist)


def garden(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    plant = rng.choice(V.PLANTS)
    rows, per_row = rng.randint(3, 12), rng.randint(4, 15)
    pct = rng.choice([10, 20, 25, 50])
    s = Solution()
    tt, total = s.eq(f"{rows}*{per_row}")
    while (total * pct) % 100:
        rows += 1
        s = Solution()
        tt, total = s.eq(f"{rows}*{per_row}")
    s.say(f"{name} plants {tt} {plant}.")
    td, dead = s.eq(f"{total}*{pct}/100")
    s.say(f"{td} of them do not survive.")
    tl, alive = s.eq(f"{total}-{dead}")
    s.say(f"{tl} are still growing.")
    yield_each = rng.randint(2, 9)
    ty, harvest = s.eq(f"{alive}*{yield_each}")
    s.say(f"The harvest is {ty}.")
    unit = "pieces of produce" if "plants" in plant or "vines" in plant else "flowers"
    q = rng.choice([
        f"{name} [sets out|plants|puts in] {rows} rows of {plant} with {per_row} in [each|every] row. A [dry spell|late frost|pest outbreak|storm] [kills|ruins|destroys] {pct}% of them. Each [survivor|remaining plant] yields {yield_each} {unit}. How many {unit} does {name} [collect|harvest|pick]?",
        f"In a [community|school|rooftop|village] garden, {rows} rows hold {per_row} {plant} apiece. {pct} percent [fail to grow|wilt|die off], and every remaining one gives {yield_each} {unit}. What is the [total harvest|harvest in all|size of the harvest]?",
    ])
    return s.record(alt(q, rng), harvest)


def reading(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    per_day, days1 = rng.randint(8, 30), rng.randint(2, 6)
    days2 = rng.randint(1, 4)
    s = Solution()
    ta, first = s.eq(f"{per_day}*{days1}")
    s.say(f"In the first {days1} days {p} reads {ta} pages.")
    td, double = s.eq(f"{per_day}*2")
    s.say(f"Then {p} reads {td} pages a day.")
    tb, second = s.eq(f"{double}*{days2}")
    s.say(f"That adds {tb} pages.")
    pages = first + second + rng.randint(5, 120)
    tr, read = s.eq(f"{first}+{second}")
    tl, left = s.eq(f"{pages}-{read}")
    s.say(f"{_cap(p)} has read {tr} pages, so {tl} pages remain.")
    q = rng.choice([
        f"{name} is reading a {pages}-page [novel|biography|thriller|textbook|memoir]. {_cap(p)} reads {per_day} pages a day for {days1} days, then doubles {poss} [pace|speed|rate] for the next {days2} days. How many pages are [left|still unread|to go]?",
        f"A book club [picked|chose|assigned] a {pages}-page book. {name} managed {per_day} pages per day for {days1} days and then twice as many per day for {days2} days. How many pages does {name} still have to read?",
    ])
    return s.record(alt(q, rng), left)


def classroom(rng: random.Random) -> dict:
    frac_d = rng.choice([2, 4])
    groups = rng.randint(2, 6) * frac_d
    size = rng.choice([3, 4, 5, 6, 7, 8])
    club = rng.choice(["chess club", "robotics team", "choir", "debate society", "drama group", "coding club"])
    school = f"{V.place_name(rng)} {rng.choice(['Primary', 'Middle School', 'High School', 'Academy'])}"
    s = Solution()
    tt, total = s.eq(f"{groups}*{size}")
    s.say(f"There are {tt} students.")
    tg, part = s.eq(f"{total}/{frac_d}")
    s.say(f"{tg} students are in the year group that may join.")
    joined = rng.randint(1, part)
    tl, notj = s.eq(f"{part}-{joined}")
    s.say(f"{tl} of them did not join.")
    share = {2: "Half", 4: "One quarter"}[frac_d]
    q = (f"At {school}, a class is [split|divided|sorted] into {groups} groups of {size}. {share} of the students are [old enough|eligible] "
         f"for the {club}, and {joined} of those [sign up|join|enrol]. How many of the eligible students did not [sign up|join]?")
    return s.record(alt(q, rng), notj)


def farm_legs(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    (a, la), (b, lb) = rng.sample(V.ANIMALS_FARM, 2)
    na, nb = rng.randint(3, 30), rng.randint(2, 20)
    s = Solution()
    ta, xa = s.eq(f"{na}*{la}")
    s.say(f"The {a} have {ta} legs.")
    tb, xb = s.eq(f"{nb}*{lb}")
    s.say(f"The {b} have {tb} legs.")
    tt, legs = s.eq(f"{xa}+{xb}")
    s.say(f"Together: {tt} legs.")
    q = rng.choice([
        f"{name}'s [farm|smallholding|ranch] has {na} {a} and {nb} {b}. How many legs do [these|the|all these] animals have [altogether|in total|combined]?",
        f"On a [hill|river|valley|island] farm near {V.place_name(rng)} there are {na} {a} and {nb} {b}. Counting every animal, how many legs are there?",
        f"[In|Inside] {name}'s [barn|yard|paddock] [live|stand] {na} {a} [plus|and] {nb} {b}. [Count the legs|How many legs is that|What is the total leg count]?",
    ])
    return s.record(alt(q, rng), legs)


def ages(rng: random.Random) -> dict:
    a, b = rng.sample(V.FIRST_NAMES, 2)
    age_b = rng.randint(5, 40)
    diff = rng.randint(2, 15)
    years = rng.randint(2, 12)
    s = Solution()
    ta, age_a = s.eq(f"{age_b}+{diff}")
    s.say(f"{a} is {ta} years old now.")
    tfa, fa = s.eq(f"{age_a}+{years}")
    tfb, fb = s.eq(f"{age_b}+{years}")
    s.say(f"In {years} years {a} will be {tfa} and {b} will be {tfb}.")
    tt, total = s.eq(f"{fa}+{fb}")
    s.say(f"Their ages will add up to {tt}.")
    q = rng.choice([
        f"{a} is {diff} years older than {b}, who is {age_b}. What will the sum of their ages be in {years} years?",
        f"{b} just turned {age_b}. {a} is {diff} years older. How old will the two of them be [combined|together|in total] {years} years from now?",
        f"[Today|This year] {b} is {age_b} [and|while] {a} is {diff} years older. In {years} years, what [will their ages add up to|is the total of their ages]?",
    ])
    return s.record(alt(q, rng), total)


def discount(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    item, items, lo, hi = rng.choice(V.ITEMS)
    pct = rng.choice([10, 20, 25, 30, 40, 50])
    price = rng.randint(max(lo, 2), hi) * (20 if pct == 25 else 10)
    qty = rng.randint(2, 6)
    s = Solution()
    td, off = s.eq(f"{price}*{pct}/100")
    s.say(f"The discount is {td} dollars per {item}.")
    tn, new = s.eq(f"{price}-{off}")
    s.say(f"Each {item} now costs {tn} dollars.")
    tt, total = s.eq(f"{new}*{qty}")
    s.say(f"{qty} of them cost {tt} dollars.")
    q = rng.choice([
        f"A {item} [normally|usually|regularly] costs ${price}. During a [sale|clearance|promotion] everything is {pct}% off. {name} buys {qty} {items}. How much does {p} pay?",
        f"The {rng.choice(V.SHOPS)} [marks down|discounts|reduces] {items} priced at ${price} by {pct} percent. What do {qty} {items} cost after the [markdown|discount|reduction]?",
    ])
    return s.record(alt(q, rng), total)


def recipe(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    base_serv = rng.choice([2, 3, 4, 5, 6])
    mult = rng.randint(2, 6)
    want = base_serv * mult
    cups = rng.randint(1, 5)
    grams = rng.randint(2, 9) * 25
    ingredient = rng.choice(["flour", "oats", "lentils", "rice", "sugar", "cornmeal"])
    s = Solution()
    tm, m = s.eq(f"{want}/{base_serv}")
    s.say(f"{name} needs {tm} times the recipe.")
    tc, c = s.eq(f"{cups}*{m}")
    s.say(f"That is {tc} cups of {ingredient}.")
    tg, g = s.eq(f"{c}*{grams}")
    s.say(f"In grams: {tg}.")
    q = (f"A recipe for {base_serv} servings [uses|calls for|needs] {cups} cups of {ingredient}. One cup of {ingredient} weighs "
         f"{grams} grams. {name} is [cooking|making dinner|baking] for {want} people. How many grams of {ingredient} are needed?")
    return s.record(alt(q, rng), g)


def collection(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    thing = rng.choice(V.COLLECTIBLES)
    friends = rng.randint(2, 6)
    each = rng.randint(3, 12)
    packs, per_pack = rng.randint(2, 6), rng.randint(5, 15)
    start = friends * each + rng.randint(4, 60)
    s = Solution()
    tg, given = s.eq(f"{friends}*{each}")
    s.say(f"{_cap(p)} gives away {tg} {thing}.")
    tl, left = s.eq(f"{start}-{given}")
    s.say(f"{tl} {thing} are left.")
    tn, new = s.eq(f"{packs}*{per_pack}")
    s.say(f"The new packs hold {tn} {thing}.")
    tt, total = s.eq(f"{left}+{new}")
    s.say(f"Now {p} has {tt} {thing}.")
    q = rng.choice([
        f"{name} has {start} {thing}. {_cap(p)} gives {each} to each of {friends} [friends|cousins|neighbors|teammates], then buys {packs} packs with {per_pack} {thing} in each. How many {thing} does {name} have now?",
        f"{name} started the [month|year|summer|term] with {start} {thing}, handed {each} apiece to {friends} classmates, and later bought {packs} packets of {per_pack}. How many {thing} are in the collection now?",
    ])
    return s.record(alt(q, rng), total)


def fundraiser(rng: random.Random) -> dict:
    event = rng.choice(V.EVENTS)
    split = rng.choice([2, 3, 4, 5])
    tickets, price = rng.randint(10, 80) * split, rng.randint(2, 15)
    costs = rng.randint(5, 40) * split
    s = Solution()
    tr, revenue = s.eq(f"{tickets}*{price}")
    s.say(f"Ticket sales bring in {tr} dollars.")
    profit = revenue - costs
    while profit <= 0 or profit % split:
        tickets += split
        s = Solution()
        tr, revenue = s.eq(f"{tickets}*{price}")
        s.say(f"Ticket sales bring in {tr} dollars.")
        profit = revenue - costs
    tp, profit = s.eq(f"{revenue}-{costs}")
    s.say(f"After costs the profit is {tp} dollars.")
    ts, share = s.eq(f"{profit}/{split}")
    s.say(f"Each charity gets {ts} dollars.")
    q = (f"The {event} [at|in] {V.place_name(rng)} sold {tickets} tickets at ${price} each. [Running it cost|Costs came to|Expenses totalled] ${costs}. "
         f"The profit is [shared|split|divided] equally among {split} [charities|clubs|schools|shelters]. How much does each [one|of them] receive?")
    return s.record(alt(q, rng), share)


def tank(rng: random.Random) -> dict:
    cont = rng.choice(V.CONTAINERS)
    fill, leak = rng.randint(8, 30), rng.randint(1, 7)
    minutes = rng.randint(5, 40)
    start = rng.randint(0, 10) * 10
    s = Solution()
    tn, net = s.eq(f"{fill}-{leak}")
    s.say(f"The {cont} gains {tn} liters each minute.")
    tg, gained = s.eq(f"{net}*{minutes}")
    s.say(f"In {minutes} minutes it gains {tg} liters.")
    tt, total = s.eq(f"{start}+{gained}")
    s.say(f"It then holds {tt} liters.")
    q = (f"A {cont} already holds {start} liters. A [hose|pipe|pump|tap] adds {fill} liters per minute while a [crack|leak|hole] loses "
         f"{leak} liters per minute. How many liters are in the {cont} after {minutes} minutes?")
    return s.record(alt(q, rng), total)


def season(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    sport, unit = rng.choice(V.SPORTS)
    games = rng.randint(4, 12)
    avg = rng.randint(2, 25)
    extra = rng.randint(1, 3)
    s = Solution()
    tt, total = s.eq(f"{games}*{avg}")
    s.say(f"{name} has {tt} {unit} so far.")
    target = total + extra * rng.randint(3, 10)
    tn, need = s.eq(f"{target}-{total}")
    s.say(f"{_cap(p)} needs {tn} more {unit}.")
    while need % extra:
        extra = 1
    tp, per = s.eq(f"{need}/{extra}")
    s.say(f"Per game that is {tp} {unit}.")
    q = (f"In {sport}, {name} has averaged {avg} {unit} per game over {games} games. To reach {target} {unit} "
         f"for the [season|year|tournament] with {extra} game{'s' if extra > 1 else ''} left, how many {unit} per game must {p} [score|get|make]?")
    return s.record(alt(q, rng), per)


def overtime(rng: random.Random) -> dict:
    name, p, poss = _pick_name(rng)
    rate = rng.randint(10, 30)
    base = 40
    hours = base + rng.randint(2, 15)
    s = Solution()
    tb, basepay = s.eq(f"{base}*{rate}")
    s.say(f"Regular pay: {tb} dollars.")
    to, over = s.eq(f"{hours}-{base}")
    s.say(f"Overtime hours: {to}.")
    ot_rate = rate * 3 // 2 if rate % 2 == 0 else rate * 2
    word = "time and a half" if rate % 2 == 0 else "double time"
    tr, otr = s.eq(f"{rate}*3/2" if rate % 2 == 0 else f"{rate}*2")
    s.say(f"The overtime rate is {tr} dollars an hour.")
    tp, otp = s.eq(f"{over}*{otr}")
    s.say(f"Overtime pay: {tp} dollars.")
    tt, total = s.eq(f"{basepay}+{otp}")
    s.say(f"Total: {tt} dollars.")
    assert ot_rate == otr
    q = (f"{name} [earns|makes|is paid] ${rate} an hour for the first {base} hours of a week and {word} after that. "
         f"[Last week|This week|One week in March] {p} worked {hours} hours. How much did {name} [earn|make|take home]?")
    return s.record(alt(q, rng), total)


SCENARIOS: tuple[Callable[[random.Random], dict], ...] = (
    shopping, hourly_savings, baking, travel, garden, reading, classroom, farm_legs, ages, discount, recipe,
    collection, fundraiser, tank, season, overtime,
)


def generate_gsm8k(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"gsm8k:{seed}")
    out, seen = [], set()
    while len(out) < n:
        rec = rng.choice(SCENARIOS)(rng)
        if rec["question"] in seen:
            continue
        seen.add(rec["question"])
        out.append(rec)
    return out
