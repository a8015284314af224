"""StrategyQA-like yes/no questions in the official schema {qid, term, description, question, answer: bool,
facts, decomposition}. The answer follows from the facts alone (each generator computes it from the same
numbers it writes into the facts)."""

from __future__ import annotations

import random
from typing import Callable

from rc1.data import builtin_vocab as V
from rc1.data.builtin_vocab import alt
from rc1.data.builtin_wiki import Wiki, build_wiki

Item = tuple[str, str, str, bool, list[str], list[str]]  # term, description, question, answer, facts, decomposition


def _lifetime(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice([p for p in wiki.people if p.died])
    o = rng.choice(wiki.orgs)
    alive = x.born <= o.founded <= x.died
    q = rng.choice([f"Could {x.name} have [attended|witnessed|gone to|been at] the opening of the {o.name}?",
                    f"Was {x.name} alive when the {o.name} was established?"])
    facts = [f"{x.name} was born in {x.born} and died in {x.died}.", f"The {o.name} was established in {o.founded}."]
    decomp = [f"When did {x.name} live?", f"When was the {o.name} established?", "Does #2 fall within #1?"]
    return x.name, f"{x.occupation} from {x.city.country}", q, alive, facts, decomp


def _border(rng: random.Random, wiki: Wiki) -> Item:
    a = rng.choice(wiki.cities)
    same = [c for c in wiki.cities if c.country == a.country and c is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([c for c in wiki.cities if c is not a])
    q = rng.choice([f"Would a [trip|journey|drive|train ride] from {a.name} to {b.name} [require|involve|mean] crossing a national border?",
                    f"Does someone travelling from {a.name} to {b.name} leave the country?"])
    facts = [f"{a.name} is in {a.country}.", f"{b.name} is in {b.country}.",
             "Travelling between two different countries means crossing a national border."]
    decomp = [f"Which country is {a.name} in?", f"Which country is {b.name} in?", "Are #1 and #2 different?"]
    return a.name, f"city in {a.country}", q, a.country != b.country, facts, decomp


def _stadium(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    cap = int(c.population * rng.uniform(0.3, 1.8)) // 100 * 100
    arena = f"{V.place_name(rng)} {rng.choice(['Arena', 'Stadium', 'Bowl', 'Dome', 'Coliseum'])}"
    q = rng.choice([f"Could the [whole|entire] population of {c.name} fit [inside|into] the {arena}?",
                    f"Is the {arena} big enough to seat everyone who lives in {c.name}?"])
    facts = [f"{c.name} has about {c.population:,} inhabitants.", f"The {arena} holds {cap:,} spectators."]
    decomp = [f"How many people live in {c.name}?", f"How many people does the {arena} hold?", "Is #2 at least #1?"]
    return c.name, f"city in {c.country}", q, cap >= c.population, facts, decomp


def _binge(rng: random.Random, wiki: Wiki) -> Item:
    series = V.title_name(rng)
    eps, mins = rng.randint(6, 60), rng.choice([22, 25, 30, 45, 50, 60])
    hours = rng.choice([8, 12, 24])
    total = eps * mins
    q = rng.choice([f"Could [someone|a fan|a viewer] watch every episode of \"{series}\" in {hours} hours?",
                    f"Is a {hours}-hour marathon enough to get through all of \"{series}\"?"])
    facts = [f"\"{series}\" has {eps} episodes.", f"Each episode of \"{series}\" runs about {mins} minutes.",
             f"{hours} hours are {hours * 60} minutes."]
    decomp = [f"How many episodes does \"{series}\" have?", "How long is each episode?",
              "What is #1 times #2?", f"Is #3 at most {hours * 60} minutes?"]
    return series, "television series", q, total <= hours * 60, facts, decomp


def _diet(rng: random.Random, wiki: Wiki) -> Item:
    creature = f"{rng.choice(V.CREATURE_A)} {rng.choice(V.CREATURE_B).lower()}"
    diet = rng.choice(list(V.DIETS))
    food_diet = rng.choice(list(V.DIETS))
    food = rng.choice(V.DIETS[food_diet])
    habitat = rng.choice(wiki.cities)
    q = rng.choice([f"Would a {creature} from the [hills|marshes|woods|coast] near {habitat.name} [eat|feed on|hunt for] {food}?",
                    f"Is {food} part of the natural diet of the {creature}?"])
    facts = [f"The {creature} is a {diet} found near {habitat.name}.",
             f"A {diet} eats only {'plants' if diet == 'herbivore' else 'animals'}.",
             f"{food[:1].upper() + food[1:]} {'comes from plants' if food_diet == 'herbivore' else 'is animal food'}."]
    decomp = [f"What does a {creature} eat?", f"Is {food} that kind of food?"]
    return creature, f"animal living near {habitat.name}", q, diet == food_diet, facts, decomp


def _melting(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    substance, melts = rng.choice(V.SUBSTANCES)
    q = rng.choice([f"Would a {substance} [statue|figurine|candle] stay solid on a [summer|July|hot] afternoon in {c.name}?",
                    f"Could a sculpture made of {substance} survive a July afternoon outdoors in {c.name} without melting?"])
    facts = [f"{substance[:1].upper() + substance[1:]} melts at about {melts} °C.",
             f"Summer afternoons in {c.name} typically reach {c.summer_temp} °C."]
    decomp = [f"At what temperature does {substance} melt?", f"How hot do summer afternoons in {c.name} get?",
              "Is #2 below #1?"]
    return substance, "material", q, c.summer_temp < melts, facts, decomp


def _language(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice(wiki.works)
    x = rng.choice(wiki.people)
    q = rng.choice([f"Could {x.name} read \"{w.title}\" in [its original language|the original|the language it was written in]?",
                    f"Would {x.name} need a translation to read the original \"{w.title}\"?"])
    can = w.language in x.languages
    answer = can if q.startswith("Could") else not can
    facts = [f"\"{w.title}\" was first published in {w.language}.",
             f"{x.name} speaks {x.languages[0]} and {x.languages[1]}."]
    decomp = [f"In which language was \"{w.title}\" written?", f"Which languages does {x.name} speak?",
              "Is #1 among #2?"]
    return w.title, f"{w.kind} by {w.creator.name}", q, answer, facts, decomp


def _flight_read(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice(wiki.works)
    hours, rate = rng.randint(2, 14), rng.choice([30, 40, 50, 60])
    q = rng.choice([f"Could a reader finish \"{w.title}\" during a {hours}-hour flight at {rate} pages an hour?",
                    f"Is a {hours}-hour flight long enough to read all of \"{w.title}\" at {rate} pages per hour?"])
    facts = [f"The standard edition of \"{w.title}\" has {w.pages} pages.",
             f"At {rate} pages an hour, {hours} hours cover {rate * hours} pages."]
    decomp = [f"How many pages does \"{w.title}\" have?", f"How many pages can be read in {hours} hours?",
              "Is #2 at least #1?"]
    return w.title, f"{w.kind} by {w.creator.name}", q, rate * hours >= w.pages, facts, decomp


def _vote(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    year = x.born + rng.randint(10, 30)
    age = rng.choice([18, 21])
    alive = x.died is None or year <= x.died
    q = rng.choice([f"Could {x.name} have voted in the {x.city.country} election of {year}?",
                    f"Was {x.name} old enough to vote in {x.city.country} in {year}?"])
    facts = [f"{x.name} was born in {x.born} and is a citizen of {x.city.country}.",
             f"The voting age in {x.city.country} is {age}."]
    if x.died:
        facts.append(f"{x.name} died in {x.died}.")
    decomp = [f"When was {x.name} born?", f"How old was {x.name} in {year}?", f"Is #2 at least {age}?"]
    return x.name, f"{x.occupation} from {x.city.country}", q, (year - x.born >= age) and alive, facts, decomp


def _river_walk(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    km = rng.randint(15, 120)
    speed, hours = rng.choice([4, 5, 6]), rng.choice([8, 10, 12])
    q = rng.choice([f"Could a [hiker|walker|rambler] [walk|cover|follow] the [full|whole|entire] length of the {c.river} in [one day|a single day]?",
                    f"Is it possible to follow the {c.river} on foot from source to mouth within a single day?"])
    facts = [f"The {c.river} is {km} km long.", f"A hiker covers about {speed} km per hour.",
             f"A long hiking day has about {hours} hours of walking."]
    decomp = [f"How long is the {c.river}?", "How far can a hiker walk in a day?", "Is #2 at least #1?"]
    return c.river, f"river through {c.name}", q, speed * hours >= km, facts, decomp


KINDS: tuple[Callable[[random.Random, Wiki], Item], ...] = (
    _lifetime, _border, _stadium, _binge, _diet, _melting, _language, _flight_read, _vote, _river_walk,
)


def generate_strategyqa(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"strategyqa:{seed}")
    wiki = build_wiki(rng, n_people=max(40, n // 2))
    out, seen = [], set()
    while len(out) < n:
        term, description, question, answer, facts, decomposition = rng.choice(KINDS)(rng, wiki)
        question = alt(question, rng)
        if question in seen:
            continue
        seen.add(question)
        out.append({"qid": f"builtin-{len(out):05d}", "term": term, "description": description,
                    "question": question, "answer": bool(answer), "facts": facts, "decomposition": decomposition})
    return out
