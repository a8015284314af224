"""HotpotQA-like bridge and comparison questions over the mini-wiki, in the official distractor schema."""

from __future__ import annotations

import random
from typing import Callable

from rc1.data.builtin_vocab import alt
from rc1.data.builtin_wiki import Paragraph, Wiki, build_wiki

Question = tuple[str, str, list[tuple[Paragraph, str]], str]  # question, answer, [(paragraph, attr)], type


def person(rng: random.Random, x, *show: str) -> str:
    """A mention of person x, sometimes with descriptors (only the attributes listed in `show`)."""
    forms = [x.name, x.name]
    if "occupation" in show:
        forms += [f"the {x.occupation} {x.name}", f"{x.name} [the|, the] {x.occupation}[,|]"]
    if "city" in show:
        forms += [f"{x.name} of {x.city.name}", f"{x.name} [from|, born in] {x.city.name}[,|]"]
    if "university" in show:
        forms += [f"{x.name}, [an alumnus|a graduate] of {x.university},"]
    return rng.choice(forms)


def work(rng: random.Random, w, *show: str) -> str:
    forms = [f"\"{w.title}\"", f"the {w.kind} \"{w.title}\""]
    if "year" in show:
        forms += [f"the {w.year} {w.kind} \"{w.title}\"", f"\"{w.title}\" ({w.year})"]
    if "language" in show:
        forms += [f"the {w.language} {w.kind} \"{w.title}\""]
    return rng.choice(forms)


def org(rng: random.Random, o, *show: str) -> str:
    forms = [f"the {o.name}", f"the {o.name}"]
    if "industry" in show:
        forms += [f"the {o.industry} [firm|outfit|concern] {o.name}", f"the {o.name}, [active|working] in {o.industry},"]
    if "founded" in show:
        forms += [f"the {o.name} (founded {o.founded})"]
    if "city" in show:
        forms += [f"the {o.city.name}-based {o.name}"]
    return rng.choice(forms)


def city(rng: random.Random, c, *show: str) -> str:
    forms = [c.name, c.name]
    if "river" in show:
        forms += [f"{c.name}, on the {c.river},", f"{c.name} [by|on] the {c.river}"]
    if "landmark" in show:
        forms += [f"{c.name}, [known|famous] for its {c.landmark},"]
    if "country" in show:
        forms += [f"{c.name} in {c.country}", f"the {c.country} [city|town] of {c.name}"]
    return rng.choice(forms)


def _bridge_work_creator_born(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(wiki.works)
    m = work(rng, w, "year", "language")
    q = rng.choice([f"[In what|In which|What] year was the [creator|maker|author] of {m} born?",
                    f"{m} was [made|created|produced] by someone born in which year?",
                    f"When was the [person|artist|figure] behind {m} born?",
                    f"[Whoever|The person who] [made|created] {m} was born in what year?"])
    return q, str(w.creator.born), [(w.para, "creator"), (w.creator.para, "born")], "bridge"


def _bridge_org_founder_city(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(wiki.orgs)
    m = org(rng, o, "industry", "founded")
    q = rng.choice([f"In which [city|town] was the founder of {m} born?",
                    f"{m} was [founded|started|set up] by a person from which [city|town]?",
                    f"What is the [hometown|birthplace|native city] of the person who [founded|started|established] {m}?"])
    return q, o.founder.city.name, [(o.para, "founder"), (o.founder.para, "born")], "bridge"


def _bridge_person_city_river(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(wiki.people)
    m = person(rng, x, "occupation", "university")
    q = rng.choice([f"Which river [flows|runs|passes] through the [birthplace|hometown|native city] of {m}?",
                    f"{m} was born in a [city|town] on which river?",
                    f"[Name|What is|Identify] the river of the [city|town] where {m} was born[.|?]"])
    return q, x.city.river, [(x.para, "born"), (x.city.para, "river")], "bridge"


def _bridge_org_hq_country(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(wiki.orgs)
    m = org(rng, o, "industry", "founded")
    q = rng.choice([f"{m} is [headquartered|based] in a city of which country?",
                    f"In what country is the [home city|base|headquarters city] of {m}?",
                    f"[Which|What] country hosts the [city|town] where {m} [has its headquarters|is based]?"])
    return q, o.city.country, [(o.para, "hq"), (o.city.para, "intro")], "bridge"


def _bridge_work_creator_university(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(wiki.works)
    m = work(rng, w, "year", "language")
    q = rng.choice([f"Where did the [author|creator|maker] of {m} [study|train|go to university]?",
                    f"The [creator|author] of {m} [trained|studied|was educated] at which [institution|school|university]?"])
    return q, w.creator.university, [(w.para, "creator"), (w.creator.para, "education")], "bridge"


def _bridge_person_work_year(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice([p for p in wiki.people if p.work is not None])
    m = person(rng, x, "occupation", "city", "university")
    q = rng.choice([f"In what year was the [best-known|most famous|signature] {x.work.kind} of {m} [completed|finished|released]?",
                    f"{m} is [remembered|known|celebrated] for one {x.work.kind}; in which year did it [appear|come out]?"])
    return q, str(x.work.year), [(x.para, "work"), (x.work.para, "year")], "bridge"


def _bridge_person_city_landmark(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(wiki.people)
    m = person(rng, x, "occupation", "university")
    q = rng.choice([f"What [sight|landmark|attraction] is the [hometown|birthplace] of {m} best known for?",
                    f"Which landmark [draws|attracts|brings] visitors to the [city|town] where {m} was born?"])
    return q, x.city.landmark, [(x.para, "born"), (x.city.para, "landmark")], "bridge"


def _cmp_born_first(rng: random.Random, wiki: Wiki) -> Question:
    a, b = rng.sample(wiki.people, 2)
    while a.born == b.born:
        a, b = rng.sample(wiki.people, 2)
    ma, mb = person(rng, a, "occupation", "city", "university"), person(rng, b, "occupation", "city", "university")
    q = rng.choice([f"Who was born [first|earlier], {ma} or {mb}?", f"Which of {ma} and {mb} is [older|the elder]?",
                    f"Between {ma} and {mb}, who was born [earlier|first]?"])
    return q, (a if a.born < b.born else b).name, [(a.para, "born"), (b.para, "born")], "comparison"


def _cmp_org_older(rng: random.Random, wiki: Wiki) -> Question:
    a, b = rng.sample(wiki.orgs, 2)
    while a.founded == b.founded:
        a, b = rng.sample(wiki.orgs, 2)
    ma, mb = org(rng, a, "industry", "city"), org(rng, b, "industry", "city")
    q = rng.choice([f"Which was [established|founded|set up] first, {ma} or {mb}?",
                    f"Is {ma} or {mb} the older [organization|institution]?"])
    return q, (a if a.founded < b.founded else b).name, [(a.para, "founded"), (b.para, "founded")], "comparison"


def _cmp_city_bigger(rng: random.Random, wiki: Wiki) -> Question:
    a, b = rng.sample(wiki.cities, 2)
    while a.population == b.population:
        a, b = rng.sample(wiki.cities, 2)
    ma, mb = city(rng, a, "river", "landmark", "country"), city(rng, b, "river", "landmark", "country")
    q = rng.choice([f"Which [city|town] has more [inhabitants|residents|people], {ma} or {mb}?",
                    f"Is {ma} or {mb} the [more populous|bigger|larger] city?"])
    return q, (a if a.population > b.population else b).name, [(a.para, "population"), (b.para, "population")], "comparison"


def _cmp_same_occupation(rng: random.Random, wiki: Wiki) -> Question:
    a = rng.choice(wiki.people)
    same = [p for p in wiki.people if p.occupation == a.occupation and p is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([p for p in wiki.people if p is not a])
    ma, mb = person(rng, a, "city", "university"), person(rng, b, "city", "university")
    q = rng.choice([f"Are {ma} and {mb} both {a.occupation}s?",
                    f"Did {ma} and {mb} work in the same [profession|field|line of work]?"])
    return q, "yes" if a.occupation == b.occupation else "no", [(a.para, "born"), (b.para, "born")], "comparison"


def _cmp_same_country(rng: random.Random, wiki: Wiki) -> Question:
    a = rng.choice(wiki.cities)
    same = [c for c in wiki.cities if c.country == a.country and c is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([c for c in wiki.cities if c is not a])
    ma, mb = city(rng, a, "river", "landmark"), city(rng, b, "river", "landmark")
    q = rng.choice([f"Are {ma} and {mb} [located|found|situated] in the same country?",
                    f"Do {ma} and {mb} lie in [one|the same] country?"])
    return q, "yes" if a.country == b.country else "no", [(a.para, "intro"), (b.para, "intro")], "comparison"


QUESTION_KINDS: tuple[Callable[[random.Random, Wiki], Question], ...] = (
    _bridge_work_creator_born, _bridge_org_founder_city, _bridge_person_city_river, _bridge_org_hq_country,
    _bridge_work_creator_university, _bridge_person_work_year, _bridge_person_city_landmark,
    _cmp_born_first, _cmp_org_older, _cmp_city_bigger, _cmp_same_occupation, _cmp_same_country,
)


def generate_hotpotqa(n: int, seed: int, n_distractors: int = 8) -> list[dict]:
    rng = random.Random(f"hotpotqa:{seed}")
    wiki = build_wiki(rng, n_people=max(40, n // 2))
    pool = wiki.paragraphs()
    out, seen = [], set()
    while len(out) < n:
        question, answer, gold, qtype = rng.choice(QUESTION_KINDS)(rng, wiki)
        question = alt(question, rng)
        if question in seen:
            continue
        seen.add(question)
        gold_titles = {p.title for p, _ in gold}
        distractors = []
        while len(distractors) < n_distractors:
            p = rng.choice(pool)
            if p.title not in gold_titles and p not in distractors:
                distractors.append(p)
        paras = [p for p, _ in {p.title: (p, a) for p, a in gold}.values()] + distractors
        rng.shuffle(paras)
        out.append({
            "_id": f"builtin-{len(out):05d}",
            "question": question,
            "answer": answer,
            "supporting_facts": [[p.title, p.where[attr]] for p, attr in gold],
            "context": [p.as_context() for p in paras],
            "type": qtype,
            "level": rng.choice(["easy", "medium", "hard"]),
        })
    return out
