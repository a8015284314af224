"""Easy StrategyQA items: a yes/no question restating one fact (see rc1.data.builtin_easy)."""

from __future__ import annotations

import random

from rc1.data.builtin_vocab import alt
from rc1.data.builtin_easy_common import (
    ANIMAL, ARTS, CLUBS, COUNTRIES, CRE_A, CRE_B, DISH_A, DISH_B, FESTIVALS, FOODS, INDUSTRY, INGREDIENTS, LANDMARK,
    MATERIALS, MONTHS, MUSIC, NATS, ORG, REGIONS, SCIENCE, SPORTS, TERRAIN, TOWNS, WRITERS, fix_articles,
    other_than, any_person, any_place, reword, any_title, any_year,
)


# ------------------------------------------------------------------ StrategyQA: a fact asked back
# (fact, question with {v} for the key detail, step 1 of the decomposition, step 2 with {v}, key value,
#  alternative values, term, description)
def _sq_item(rng: random.Random):
    k = rng.randrange(10)
    p, pl, y, nat, c = any_person(rng), any_place(rng), any_year(rng), rng.choice(NATS), rng.choice(COUNTRIES)
    if k == 0:
        cr = f"{rng.choice(CRE_A)} {rng.choice(CRE_B)}"
        diet = rng.choice(list(FOODS))
        food = rng.choice(FOODS[diet])
        ter = rng.choice(TERRAIN)
        return (f"The {cr} is a {diet} that feeds mainly on {{v}} in the {ter} of {c}.",
                f"Is the {cr} a {diet} that feeds mainly on {{v}} in the {ter} of {c}?",
                f"What does the {cr} mainly feed on?", "Is #1 {v}?", food, FOODS[diet], cr, "species of animal")
    if k == 1:
        cr = f"{rng.choice(CRE_A)} {rng.choice(CRE_B)}"
        act = rng.choice(["hold its breath", "stay under water", "go without food", "fly without landing",
                          "survive without water", "stay buried in the mud"])
        num = rng.choice(["two", "three", "five", "ten", "twenty", "forty"])
        unit = rng.choice(["minutes", "hours", "days", "weeks"])
        an = rng.choice(ANIMAL)
        return (f"The {cr}, a small {an} of {c}, can {act} for up to {num} {{v}}.",
                f"Can the {cr}, a small {an} of {c}, {act} for up to {num} {{v}}?",
                f"For how long can the {cr} {act}?", f"Is #1 at least {num} {{v}}?", unit,
                ["minutes", "hours", "days", "weeks", "months"], cr, "species of animal")
    if k == 2:
        reg = rng.choice(REGIONS)
        town, side, ind = rng.choice(TOWNS), rng.choice(REGIONS[:8]), rng.choice(INDUSTRY)
        return (f"{pl} is a {town} on the {side} coast of {{v}}, known for its {ind} industry.",
                f"Is {pl}, known for its {ind} industry, a {town} on the {side} coast of {{v}}?",
                f"What country is {pl} in?", "Is #1 {v}?", c, COUNTRIES, pl, "town")
    if k == 3:
        occ = rng.choice(WRITERS + ARTS + SCIENCE + MUSIC)
        return (f"{p} was a {nat} {occ} born in {pl} in {{v}}.", f"Was {p} a {nat} {occ} born in {pl} in {{v}}?",
                f"In what year was {p} born?", "Is #1 {v}?", str(y), [str(y + d) for d in (-12, -7, -3, 4, 9, 15)],
                p, f"{nat} {occ}")
    if k == 4:
        org = f"{pl} {rng.choice(ORG)}"
        return (f"The {org} was founded in {y} by the {nat} {{v}} {p}.",
                f"Was the {org} founded in {y} by the {nat} {{v}} {p}?",
                f"What was the profession of {p}, who founded the {org}?", "Is #1 {v}?", rng.choice(SCIENCE),
                SCIENCE, org, "organization")
    if k == 5:
        dish = rng.choice(DISH_A) + rng.choice(DISH_B)
        occ = rng.choice(["festivals", "weddings", "harvest time", "winter evenings", "funerals", "market days"])
        return (f"{dish} is a {nat} dish made mainly from {{v}} and served at {occ}.",
                f"Is {dish} a {nat} dish made mainly from {{v}} and served at {occ}?",
                f"What is {dish} mainly made from?", "Is #1 {v}?", rng.choice(INGREDIENTS), INGREDIENTS, dish,
                f"{nat} dish")
    if k == 6:
        lm = f"{pl} {rng.choice(LANDMARK)}"
        return (f"The {lm} was built entirely of {{v}} in {y} by the architect {p}.",
                f"Was the {lm} built entirely of {{v}} in {y} by the architect {p}?",
                f"What material was the {lm} built of?", "Is #1 {v}?", rng.choice(MATERIALS), MATERIALS, lm,
                "building")
    if k == 7:
        t = any_title(rng)
        lang = rng.choice(NATS)
        return (f"{t} is a {y} novel written entirely in {{v}} by {p}.",
                f"Is {t} a {y} novel written entirely in {{v}} by {p}?",
                f"What language is {t} written in?", "Is #1 {v}?", lang, NATS, t, "novel")
    if k == 8:
        fest = rng.choice(FESTIVALS)
        return (f"The {pl} {fest} festival has been held every {{v}} since {y}.",
                f"Has the {pl} {fest} festival been held every {{v}} since {y}?",
                f"In what month is the {pl} {fest} festival held?", "Is #1 {v}?", rng.choice(MONTHS), MONTHS,
                f"{pl} {fest} festival", "festival")
    club = f"{pl} {rng.choice(CLUBS)}"
    sp = rng.choice(SPORTS)
    wins = rng.randint(2, 19)
    return (f"{club} is a {{v}} club that has won the {nat} championship {wins} times.",
            f"Is {club} a {{v}} club that has won the {nat} championship {wins} times?",
            f"What sport does {club} play?", "Is #1 {v}?", sp, SPORTS, club, "sports club")


_SQ_LEADS = ["[According to|As recorded in|As noted in|Going by|As described in|Judging by] [the|one|a] [{y}|recent|"
             "old|regional|official|local|revised|pocket|illustrated] [census|survey|guidebook|encyclopedia|field guide|"
             "almanac|gazetteer|travel guide|yearbook|museum catalogue|atlas]",
             "[According to|As reported in|As stated in|As printed in] the {pl} [Almanac|Gazette|Yearbook|Courier|"
             "Chronicle|Review|Bulletin] [of {y}|for {y}|]"]


def generate_easy_strategyqa(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"easy-strategyqa|{seed}")
    out = []
    while len(out) < n:
        fact, question, step1, step2, value, alts, term, description = _sq_item(rng)
        yes = rng.random() < 0.55
        asked = value if yes else other_than(rng, alts, value)
        fact, question, step1, step2 = reword(rng, [fact.format(v=value), question.format(v=asked), step1,
                                                      step2.format(v=asked)])
        if rng.random() < 0.6:  # a source named at the end of both the fact and the question: same words, more varied ones
            src = alt(rng.choice(_SQ_LEADS).format(pl=any_place(rng), y=any_year(rng, 1890, 2020)), rng)
            src = src[:1].lower() + src[1:]
            fact, question = f"{fact[:-1]}, {src}.", f"{question[:-1]}, {src}?"
        out.append({"qid": f"easy-{len(out):05d}", "term": term, "description": description,
                    "question": fix_articles(question), "answer": yes, "facts": [fix_articles(fact)],
                    "decomposition": [step1, step2]})
    return out
