"""StrategyQA-like yes/no questions in the official schema {qid, term, description, question, answer: bool,
facts, decomposition}. The answer follows from the facts alone: each predicate family computes it from
the same numbers and names it writes into the facts (and flips it when a frame asks the negated question)."""

from __future__ import annotations

import random
import re
from typing import Callable

from rc1.data import builtin_vocab as V
from rc1.data.builtin_vocab import alt, cap
from rc1.data.builtin_wiki import Wiki, build_wiki, language_of

Item = tuple[str, str, str, bool, list[str], list[str]]  # term, description, question, answer, facts, decomposition

ANIMAL_HEIGHTS = [("giraffe", 5.5), ("African elephant", 3.3), ("ostrich", 2.7), ("moose", 2.1), ("camel", 2.0),
                  ("grizzly bear standing upright", 2.5), ("horse", 1.7), ("emu", 1.8), ("llama", 1.8),
                  ("polar bear on its hind legs", 3.0), ("kangaroo", 1.6), ("okapi", 1.9)]
ANIMAL_SPEEDS = [("cheetah", 110), ("racehorse", 70), ("ostrich", 70), ("greyhound", 64), ("hare", 56),
                 ("kangaroo", 56), ("zebra", 60), ("grizzly bear", 48), ("house cat", 45), ("elephant", 40),
                 ("human sprinter", 37), ("squirrel", 20), ("chicken", 14), ("tortoise", 1)]
VEHICLE_SPEEDS = [("city tram", 50), ("tractor", 40), ("delivery scooter", 45), ("paddle steamer", 25),
                  ("horse-drawn cart", 12), ("electric bus", 60), ("cargo bike", 20), ("rowing boat", 8),
                  ("milk float", 24), ("steam locomotive", 90), ("golf cart", 24), ("canal barge", 10)]
LIFESPANS = [("giant tortoise", 150), ("parrot", 60), ("elephant", 65), ("dog", 13), ("house cat", 15),
             ("horse", 30), ("carp", 40), ("koi", 50), ("goldfish", 12), ("bowhead whale", 200), ("rabbit", 9),
             ("swan", 20), ("crow", 17), ("lobster", 45), ("sturgeon", 100), ("macaw", 70), ("hamster", 3)]
DENSITIES = [("oak", 0.75), ("pumice", 0.6), ("granite", 2.7), ("cork", 0.24), ("ice", 0.92), ("iron", 7.9),
             ("beeswax", 0.96), ("aluminium", 2.7), ("bamboo", 0.4), ("marble", 2.6), ("balsa wood", 0.16),
             ("glass", 2.5), ("ebony", 1.2), ("pine", 0.5), ("copper", 8.9), ("paraffin wax", 0.9), ("lead", 11.3),
             ("teak", 0.65), ("sandstone", 2.3), ("coal", 1.4), ("polystyrene foam", 0.05), ("brass", 8.5)]
INVENTIONS = [("public radio broadcasts", "listened to a radio broadcast", 1920),
              ("powered flight", "seen an aeroplane fly", 1903), ("the telephone", "made a telephone call", 1876),
              ("television broadcasts", "watched a television broadcast", 1936),
              ("motion pictures", "watched a film in a cinema", 1895), ("the World Wide Web", "browsed a website", 1991),
              ("the motor car", "ridden in a motor car", 1886), ("electric street lighting", "walked under electric street lights", 1880),
              ("sound recording", "heard a recorded voice", 1877), ("mobile phones", "used a mobile phone", 1983)]
VEHICLE_SEATS = [("minibus", 16), ("double-decker bus", 80), ("coach", 50), ("river ferry", 300),
                 ("commuter train", 600), ("passenger jet", 180), ("cable car", 40), ("sailing yacht", 12),
                 ("school bus", 45), ("paddle steamer", 250), ("tram", 120), ("seaplane", 9)]
HALLS = ["main hall", "reading room", "workshop", "lobby", "boiler house", "ballroom", "archive vault", "canteen",
         "exhibition room", "chapel", "boathouse", "print room"]
SERIES_KINDS = ["drama", "sitcom", "documentary series", "crime series", "cooking show", "anime", "period drama",
                "nature series", "quiz show", "soap opera", "science-fiction series", "mini-series"]
OUTINGS = ["hiker", "walker", "rambler", "trekker", "pilgrim", "trail runner"]


def _yes_no(rng: random.Random, frames_true: list[str], frames_false: list[str], fact: bool) -> tuple[str, bool]:
    """A question frame and its answer: frames_true ask whether `fact` holds, frames_false whether it
    does not."""
    if frames_false and rng.random() < 0.3:
        return rng.choice(frames_false), not fact
    return rng.choice(frames_true), fact


def _lifetime(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice([p for p in wiki.people if p.died])
    o = rng.choice(wiki.orgs)
    alive = x.born <= o.founded <= x.died
    q, ans = _yes_no(rng, [
        f"When the {o.name} [first opened its doors|was set up] in {x.city.name}'s [day|era], was {x.name} [still|already] [alive|around]?",
        f"Might {x.name} have [toured|visited|walked through] the newly founded {o.name}?",
        f"Was the {o.name} [founded|started] during the years {x.name} was alive?",
        f"Could {x.name} have [attended|witnessed|gone to|been at] the opening of the {o.name}?",
        f"Was {x.name} alive when the {o.name} was [established|founded|set up]?",
        f"Could the {x.occupation} {x.name} have [read about|heard of] the founding of the {o.name} [as it happened|in the news]?",
        f"Did the [founding|creation] of the {o.name} fall within the lifetime of {x.name}?",
    ], [f"Had {x.name} [already died|passed away] or not yet been born when the {o.name} was founded?"], alive)
    facts = [alt(rng.choice([f"{x.name} was born in {x.born} and died in {x.died}.",
                             f"{x.name} lived from {x.born} to {x.died}.",
                             f"The {x.occupation} {x.name} ({x.born}–{x.died}) [came from|was born in] {x.city.name}."]), rng),
             alt(rng.choice([f"The {o.name} was established in {o.founded}.", f"The {o.name} [opened|was founded] in {o.founded}.",
                             f"{o.founder.name} set up the {o.name} in {o.founded}."]), rng)]
    decomp = [f"When did {x.name} live?", f"When was the {o.name} established?", "Does #2 fall within #1?"]
    return x.name, f"{x.occupation} from {x.city.country}", q, ans, facts, decomp


def _meet(rng: random.Random, wiki: Wiki) -> Item:
    a, b = rng.sample([p for p in wiki.people if p.died], 2)
    overlap = a.born <= b.died and b.born <= a.died
    q, ans = _yes_no(rng, [
        f"Is it possible that {a.name} once [ran into|corresponded with|dined with] {b.name}?",
        f"Did {a.name}'s lifetime [overlap with|coincide in part with] that of {b.name}?",
        f"Might {b.name} have [attended a lecture by|sat for a portrait with|argued with] {a.name}?",
        f"Could {a.name} and {b.name} have [met|spoken] in person?",
        f"Could the {a.occupation} {a.name} have [shaken hands with|had dinner with|written to] the {b.occupation} {b.name}?",
        f"Were {a.name} and {b.name} ever alive at the same time?",
        f"Did the lives of {a.name} and {b.name} overlap?",
    ], [f"Did {a.name} and {b.name} live in entirely different eras?"], overlap)
    facts = [alt(f"{a.name} [lived from {a.born} to {a.died}|was born in {a.born} and died in {a.died}|({a.born}–{a.died}) was a {a.occupation} from {a.city.name}].", rng),
             alt(f"{b.name} [was born in {b.born} and died in {b.died}|lived from {b.born} until {b.died}|died in {b.died}, having been born in {b.born}].", rng)]
    rng.shuffle(facts)
    decomp = [f"When did {a.name} live?", f"When did {b.name} live?", "Do #1 and #2 overlap?"]
    return a.name, f"{a.occupation} from {a.city.country}", q, ans, facts, decomp


def _border(rng: random.Random, wiki: Wiki) -> Item:
    a = rng.choice(wiki.cities)
    same = [c for c in wiki.cities if c.country == a.country and c is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([c for c in wiki.cities if c is not a])
    q, ans = _yes_no(rng, [
        f"Is a passport check [likely|to be expected] on the [road|railway] between {a.name} and {b.name}?",
        f"Do {a.name} and {b.name} [belong to|lie in] [two different|separate] countries?",
        f"[Setting off|Starting out] from {a.name}, would [a lorry driver|a hitchhiker|a walker] bound for {b.name} [end up|finish] abroad?",
        f"Would a [trip|journey|drive|train ride|bike tour] from {a.name} to {b.name} [require|involve|mean] crossing a national border?",
        f"Does someone [travelling|driving|cycling] from {a.name} to {b.name} leave the country?",
        f"Would [a courier|a pilgrim|a trucker|a tourist] going from {a.name} to {b.name} need to pass through customs?",
        f"Are {a.name} and {b.name} [in different countries|on opposite sides of a border]?",
    ], [f"Could [a traveller|someone|a cyclist] get from {a.name} to {b.name} without leaving the country?",
        f"Is {b.name} in the same country as {a.name}?"], a.country != b.country)
    facts = [alt(f"{a.name} is [a {a.kind}|located|situated] in {a.country}.", rng),
             alt(f"{b.name} [lies|is] in {b.country}.", rng),
             alt("[Travelling|Going] between two different countries means crossing a national border.", rng)]
    decomp = [f"Which country is {a.name} in?", f"Which country is {b.name} in?", "Are #1 and #2 different?"]
    return a.name, f"{a.kind} in {a.country}", q, ans, facts, decomp


def _stadium(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    cap_ = int(c.population * rng.uniform(0.3, 1.8)) // 100 * 100
    arena = f"{V.place_name(rng)} {rng.choice(['Arena', 'Stadium', 'Bowl', 'Dome', 'Coliseum', 'Park', 'Velodrome', 'Ground'])}"
    q, ans = _yes_no(rng, [
        f"Does the {arena} have [enough seats|room] for [all|every one] of {c.name}'s [residents|inhabitants]?",
        f"Were all of {c.name} to [turn up|show up] for one [match|concert], would the {arena} hold them?",
        f"Could the [whole|entire] population of {c.name} fit [inside|into] the {arena}?",
        f"Is the {arena} big enough to seat everyone who lives in {c.name}?",
        f"If every resident of {c.name} bought a ticket, would the {arena} have room for them all?",
    ], [f"Would the {arena} be [too small|too cramped] for the people of {c.name}?"], cap_ >= c.population)
    facts = [alt(f"{c.name} has [about|roughly|some] {c.population:,} [inhabitants|residents].", rng),
             alt(f"The {arena} [holds|seats|has room for] {cap_:,} [spectators|people|fans].", rng)]
    decomp = [f"How many people live in {c.name}?", f"How many people does the {arena} hold?", "Is #2 at least #1?"]
    return c.name, f"{c.kind} in {c.country}", q, ans, facts, decomp


def _binge(rng: random.Random, wiki: Wiki) -> Item:
    series, kind = V.title_name(rng), rng.choice(SERIES_KINDS)
    eps, mins = rng.randint(6, 60), rng.choice([22, 25, 30, 45, 50, 60])
    hours = rng.choice([8, 12, 24, 36, 48])
    total = eps * mins
    q, ans = _yes_no(rng, [
        f"Does \"{series}\" [add up to|run for] {hours} hours or less in total?",
        f"[Starting|Beginning] on a Friday evening, could [a couch potato|someone off sick|a reviewer] get through [the whole|all] of \"{series}\" within {hours} hours?",
        f"Could [someone|a fan|a viewer] watch every episode of \"{series}\" in {hours} hours?",
        f"Is a {hours}-hour marathon enough to get through all of \"{series}\"?",
        f"Could a [student|night-shift worker|bored teenager] finish the {kind} \"{series}\" within {hours} hours?",
    ], [f"Would it take longer than {hours} hours to watch the whole of \"{series}\"?"], total <= hours * 60)
    facts = [alt(f"\"{series}\" [has|consists of|ran for] {eps} episodes.", rng),
             alt(f"Each episode of \"{series}\" [runs|lasts] [about|around|roughly] {mins} minutes.", rng),
             alt(f"{hours} hours [are|make] {hours * 60} minutes.", rng)]
    decomp = [f"How many episodes does \"{series}\" have?", "How long is each episode?",
              "What is #1 times #2?", f"Is #3 at most {hours * 60} minutes?"]
    return series, f"television {kind}", q, ans, facts, decomp


def _diet(rng: random.Random, wiki: Wiki) -> Item:
    creature = f"{rng.choice(V.CREATURE_A)} {rng.choice(V.CREATURE_B).lower()}"
    diet = rng.choice(list(V.DIETS))
    food_diet = rng.choice(list(V.DIETS))
    food = rng.choice(V.DIETS[food_diet])
    habitat = rng.choice(wiki.cities)
    where = rng.choice(["hills", "marshes", "woods", "coast", "riverbanks", "meadows", "caves", "reed beds"])
    q, ans = _yes_no(rng, [
        f"Does the {creature} [include|count] {food} [in|among] its [natural|usual] [diet|food]?",
        f"In the wild, [does|do] [the|a] {creature} [ever|normally] [eat|go after] {food}?",
        f"Would a {creature} from the {where} near {habitat.name} [eat|feed on|hunt for] {food}?",
        f"Is {food} part of the natural diet of the {creature}?",
        f"Could a zookeeper feed a {creature} on {food}?",
    ], [f"Would a {creature} [turn its nose up at|ignore|refuse] {food}?"], diet == food_diet)
    facts = [alt(f"The {creature} is a {diet} [found|living|native to the land] near {habitat.name}.", rng),
             alt(f"A {diet} eats only {'plants' if diet == 'herbivore' else 'animals'}.", rng),
             f"{cap(food)} {'comes from plants' if food_diet == 'herbivore' else 'is animal food'}."]
    decomp = [f"What does a {creature} eat?", f"Is {food} that kind of food?"]
    return creature, f"animal living near {habitat.name}", q, ans, facts, decomp


def _melting(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    substance, melts = rng.choice(V.SUBSTANCES)
    obj = rng.choice(["statue", "figurine", "candle", "bust", "garden gnome", "chess set", "medal", "bowl"])
    q, ans = _yes_no(rng, [
        f"Left [on a garden wall|in a shop window|on a balcony] in {c.name} in July, would a {substance} {obj} [keep|hold] its shape?",
        f"Does {substance} [stay hard|remain solid] through a [summer|midsummer] heatwave in {c.name}?",
        f"Would a {substance} {obj} stay solid on a [summer|July|hot] afternoon in {c.name}?",
        f"Could a {obj} made of {substance} survive a July afternoon outdoors in {c.name} without melting?",
        f"Is {c.name}'s summer heat [too weak|not enough] to melt {substance}?",
    ], [f"Would a {substance} {obj} left in the sun in {c.name} [melt|turn liquid] on a summer afternoon?"],
        c.summer_temp < melts)
    facts = [alt(f"{cap(substance)} melts at [about|around|roughly] {melts} °C.", rng),
             alt(f"Summer afternoons in {c.name} [typically|usually] reach {c.summer_temp} °C.", rng)]
    decomp = [f"At what temperature does {substance} melt?", f"How hot do summer afternoons in {c.name} get?",
              "Is #2 below #1?"]
    return substance, "material", q, ans, facts, decomp


def _language(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice([w for w in wiki.works if w.has_language])
    x = rng.choice(wiki.people)
    can = w.language in x.languages
    q, ans = _yes_no(rng, [
        f"Without [a dictionary|help|a translator], [could|would] {x.name} [manage|be able] to read \"{w.title}\" as [first|originally] written?",
        f"Is \"{w.title}\" written in a language {x.name} [knows|can read]?",
        f"Could {x.name} read \"{w.title}\" in [its original language|the original|the language it was written in]?",
        f"Could the {x.occupation} {x.name} [enjoy|follow|study] the original {w.kind} \"{w.title}\" without a translation?",
    ], [f"Would {x.name} need a translation to [read|follow] the original \"{w.title}\"?"], can)
    facts = [alt(f"\"{w.title}\" was [first published|originally written|first issued] in {w.language}.", rng),
             alt(f"{x.name} [speaks|spoke|knew] {x.languages[0]} and {x.languages[1]}.", rng)]
    decomp = [f"In which language was \"{w.title}\" written?", f"Which languages does {x.name} speak?",
              "Is #1 among #2?"]
    return w.title, f"{w.kind} by {w.creator.name}", q, ans, facts, decomp


def _talk(rng: random.Random, wiki: Wiki) -> Item:
    a, b = rng.sample(wiki.people, 2)
    if rng.random() < 0.4:
        same = [p for p in wiki.people if p is not a and set(p.languages) & set(a.languages)]
        b = rng.choice(same) if same else b
    shared = bool(set(a.languages) & set(b.languages))
    q, ans = _yes_no(rng, [
        f"Is there a language [both|that both] {a.name} and {b.name} [speak|understand]?",
        f"If {a.name} [phoned|visited|wrote to] {b.name}, [could|would] they [understand each other|follow each other] without help?",
        f"Could {a.name} and {b.name} [talk|chat|argue] without an interpreter?",
        f"Do {a.name} and {b.name} have a language in common?",
    ], [f"Would {a.name} need an interpreter to [talk|speak] with {b.name}?"], shared)
    facts = [alt(f"{a.name} [speaks|is fluent in|grew up speaking] {a.languages[0]} and {a.languages[1]}.", rng),
             alt(f"{b.name} [speaks|knows|is at home in] {b.languages[0]} and {b.languages[1]}[| but no other language].", rng)]
    decomp = [f"Which languages does {a.name} speak?", f"Which languages does {b.name} speak?", "Do #1 and #2 share a language?"]
    return a.name, f"{a.occupation} from {a.city.country}", q, ans, facts, decomp


def _flight_read(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice([w for w in wiki.works if w.bookish])
    hours, rate = rng.randint(2, 14), rng.choice([30, 40, 50, 60])
    trip = rng.choice(["flight", "train journey", "ferry crossing", "bus ride", "night train"])
    q, ans = _yes_no(rng, [
        f"[Reading|At] {rate} pages an hour, [would|could] a passenger [finish|get through] \"{w.title}\" before the end of a {hours}-hour {trip}?",
        f"Is \"{w.title}\" short enough to [read|finish] on one {hours}-hour {trip} at {rate} pages [an|per] hour?",
        f"Could a reader finish \"{w.title}\" during a {hours}-hour {trip} at {rate} pages an hour?",
        f"Is a {hours}-hour {trip} long enough to read all of \"{w.title}\" at {rate} pages per hour?",
    ], [f"Would a {rate}-pages-an-hour reader still be [reading|turning pages of] \"{w.title}\" at the end of a {hours}-hour {trip}?"],
        rate * hours >= w.pages)
    facts = [alt(f"The [standard|first] edition of \"{w.title}\" has {w.pages} pages.", rng),
             alt(f"[At|Reading] {rate} pages an hour, [{hours} hours cover|a reader gets through] {rate * hours} pages[| in {hours} hours].", rng)]
    decomp = [f"How many pages does \"{w.title}\" have?", f"How many pages can be read in {hours} hours?",
              "Is #2 at least #1?"]
    return w.title, f"{w.kind} by {w.creator.name}", q, ans, facts, decomp


def _vote(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    year = x.born + rng.randint(10, 30)
    age = rng.choice([18, 21])
    alive = x.died is None or year <= x.died
    ok = (year - x.born >= age) and alive
    q, ans = _yes_no(rng, [
        f"Was {x.name} [allowed|entitled|eligible] to vote in {x.city.country} in {year}?",
        f"In {year}, [could|might] {x.name} have [marked a ballot paper|gone to the polls] in {x.city.country}?",
        f"Could {x.name} have voted in the {x.city.country} election of {year}?",
        f"Was {x.name} old enough to vote in {x.city.country} in {year}?",
        f"Could the young {x.occupation} {x.name} cast a ballot in {x.city.country} in {year}?",
    ], [f"Was {x.name} too young to vote in {x.city.country} in {year}?"] if alive else [], ok)
    facts = [alt(f"{x.name} was born in {x.born} and [is|was] a citizen of {x.city.country}.", rng),
             alt(f"The voting age in {x.city.country} is {age}.", rng)]
    if x.died:
        facts.append(alt(f"{x.name} [died|passed away] in {x.died}.", rng))
    decomp = [f"When was {x.name} born?", f"How old was {x.name} in {year}?", f"Is #2 at least {age}?"]
    return x.name, f"{x.occupation} from {x.city.country}", q, ans, facts, decomp


def _river_walk(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    km = rng.randint(15, 120)
    speed, hours = rng.choice([4, 5, 6]), rng.choice([8, 10, 12])
    who = rng.choice(OUTINGS)
    q, ans = _yes_no(rng, [
        f"Is the {c.river} short enough for a {who} to [walk|hike] [from end to end|its whole length] between [sunrise and sunset|breakfast and dinner]?",
        f"Starting at dawn, could a {who} reach the mouth of the {c.river} from its source [by nightfall|the same day]?",
        f"Could a {who} [walk|cover|follow] the [full|whole|entire] length of the {c.river} in [one day|a single day]?",
        f"Is it possible to follow the {c.river} on foot from source to mouth within a single day?",
    ], [f"Would a {who} need more than a day to walk the {c.river} from end to end?"], speed * hours >= km)
    facts = [alt(f"The {c.river} is {km} km long.", rng), alt(f"A {who} covers [about|around] {speed} km per hour.", rng),
             alt(f"A long [hiking|walking] day has about {hours} hours of walking.", rng)]
    decomp = [f"How long is the {c.river}?", f"How far can a {who} walk in a day?", "Is #2 at least #1?"]
    return c.river, f"river through {c.name}", q, ans, facts, decomp


def _ceiling(rng: random.Random, wiki: Wiki) -> Item:
    animal, h = rng.choice(ANIMAL_HEIGHTS)
    o = rng.choice(wiki.orgs)
    hall = rng.choice(HALLS)
    ceiling = round(rng.uniform(max(2.2, h - 2.0), h + 2.0), 1)
    while ceiling == h:
        ceiling = round(ceiling + 0.3, 1)
    q, ans = _yes_no(rng, [
        f"Is there [room|headroom] for {an_(animal)} {animal} [to stand|standing up] in the {hall} at the {o.name}?",
        f"Would {an_(animal)} {animal} [fit|be able to stand] under the ceiling of the {o.name}'s {hall}?",
        f"Could {an_(animal)} {animal} stand upright in the {hall} of the {o.name}?",
        f"Is the {hall} of the {o.name} tall enough for {an_(animal)} {animal}?",
    ], [f"Would {an_(animal)} {animal} bump its head in the {hall} of the {o.name}?"], ceiling > h)
    facts = [alt(f"An adult {animal} [stands|is] about {h} m tall.", rng),
             alt(f"The ceiling of the {hall} at the {o.name} is {ceiling} m high.", rng)]
    decomp = [f"How tall is an adult {animal}?", f"How high is the ceiling of the {hall} at the {o.name}?",
              "Is #2 greater than #1?"]
    return o.name, f"{o.industry} organization in {o.city.name}", q, ans, facts, decomp


def _outrun(rng: random.Random, wiki: Wiki) -> Item:
    (animal, va), (veh, vv) = rng.choice(ANIMAL_SPEEDS), rng.choice(VEHICLE_SPEEDS)
    while va == vv:
        veh, vv = rng.choice(VEHICLE_SPEEDS)
    c = rng.choice(wiki.cities)
    q, ans = _yes_no(rng, [
        f"In a [flat-out|head-to-head] race, [would|could] {an_(animal)} {animal} [beat|get ahead of] a {veh}?",
        f"Does {an_(animal)} {animal} [run faster|go faster] than a {veh} [can travel|at full speed]?",
        f"Could {an_(animal)} {animal} outrun a {veh} [on a straight road|in a short race|through the streets of {c.name}]?",
        f"Is {an_(animal)} {animal} faster than a {veh} at top speed?",
    ], [f"Would a {veh} leave {an_(animal)} {animal} behind in a sprint?"], va > vv)
    facts = [alt(f"{cap(an_(animal))} {animal} [reaches|can reach|tops out at] about {va} km/h.", rng),
             alt(f"A {veh} [has a top speed of|goes at most] {vv} km/h.", rng)]
    decomp = [f"How fast can {an_(animal)} {animal} run?", f"What is the top speed of a {veh}?", "Is #1 greater than #2?"]
    return animal, "animal", q, ans, facts, decomp


def _pet_lifespan(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice([p for p in wiki.people if p.died])
    animal, years = rng.choice(LIFESPANS)
    age = x.died - x.born
    q, ans = _yes_no(rng, [
        f"Is the [usual|typical] lifespan of {an_(animal)} {animal} longer than the life of {x.name}?",
        f"Had {x.name} [been given|adopted] {an_(animal)} {animal} [at birth|as a baby], might the animal have [survived|lived longer than] {x.obj}?",
        f"Could {an_(animal)} {animal} born [alongside|the same year as] {x.name} have outlived {x.obj}?",
        f"Does {an_(animal)} {animal} usually live longer than {x.name} did?",
    ], [f"Did {x.name} live longer than {an_(animal)} {animal} typically does?"], years > age)
    facts = [alt(f"{x.name} [was born in {x.born} and died in {x.died}|lived from {x.born} to {x.died}].", rng),
             alt(f"{cap(an_(animal))} {animal} [can live|lives] [about|up to] {years} years.", rng)]
    decomp = [f"How long did {x.name} live?", f"How long does {an_(animal)} {animal} live?", "Is #2 greater than #1?"]
    return x.name, f"{x.occupation} from {x.city.country}", q, ans, facts, decomp


def _float(rng: random.Random, wiki: Wiki) -> Item:
    material, d = rng.choice(DENSITIES)
    thing = rng.choice(["block", "ball", "carving", "plank", "cube", "figurine", "paperweight", "toy boat"])
    c = rng.choice(wiki.cities)
    q, ans = _yes_no(rng, [
        f"Does {material} [float|stay afloat] in [fresh water|a pond|the {c.river}]?",
        f"[Tossed|Thrown] into the {c.river}, would a {thing} [carved from|made of] {material} [bob on the surface|stay on top]?",
        f"Would a {material} {thing} float on the {c.river}?",
        f"If you dropped a {thing} of {material} into a bucket of water, would it float?",
    ], [f"Would a {material} {thing} sink to the bottom of the {c.river}?"], d < 1.0)
    facts = [alt(f"{cap(material)} has a density of about {d} g/cm³.", rng),
             alt("[Water has a density of about 1 g/cm³, and objects denser than water sink.|Anything denser than water, which has about 1 g/cm³, sinks in it.]", rng)]
    decomp = [f"What is the density of {material}?", "What is the density of water?", "Is #1 less than #2?"]
    return material, "material", q, ans, facts, decomp


def _invention(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    thing, act, year = rng.choice(INVENTIONS)
    by = x.born + 30
    ok = year <= by and (x.died is None or year <= x.died)
    q, ans = _yes_no(rng, [
        f"By [the age of thirty|thirty], [could|might] {x.name} have [known|heard] of {thing}?",
        f"Did {thing} [exist|come about] [early enough|in time] to be part of {x.name}'s life before thirty?",
        f"Could {x.name} have {act} before turning thirty?",
        f"Was {thing} around before {x.name}'s thirtieth birthday?",
    ], [], ok)
    facts = [alt(f"{x.name} was born in {x.born}[ in {x.city.name}|].", rng),
             alt(f"{cap(thing)} [began|arrived|first appeared|became available] in {year}.", rng)]
    if x.died:
        facts.append(f"{x.name} died in {x.died}.")
    decomp = [f"When was {x.name} born?", f"When did {thing} begin?", "Is #2 no later than #1 plus 30 years?"]
    return x.name, f"{x.occupation} from {x.city.country}", q, ans, facts, decomp


def _outing(rng: random.Random, wiki: Wiki) -> Item:
    o = rng.choice(wiki.orgs)
    veh, seats = rng.choice(VEHICLE_SEATS)
    q, ans = _yes_no(rng, [
        f"Is one {veh} [big|large] enough to [take|carry] [every|each] [worker|employee] of the {o.name} on a day trip?",
        f"[For|On] a [staff picnic|works outing|team day out], could the {o.name} [fit|squeeze] everyone into a single {veh}?",
        f"Could the whole staff of the {o.name} fit in one {veh}?",
        f"Would a single {veh} be enough for a staff outing of the {o.name}?",
    ], [f"Would the {o.name} need more than one {veh} to take all its staff on an outing?"], seats >= o.staff)
    facts = [alt(f"The {o.name} [employs|has] about {o.staff:,} [people|staff].", rng),
             alt(f"A {veh} [seats|carries] up to {seats} passengers.", rng)]
    decomp = [f"How many people work at the {o.name}?", f"How many passengers fit in a {veh}?", "Is #2 at least #1?"]
    return o.name, f"{o.industry} organization in {o.city.name}", q, ans, facts, decomp


def _young_work(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice(wiki.works)
    x = w.creator
    limit = rng.choice([30, 35, 40, 50])
    age = w.year - x.born
    q, ans = _yes_no(rng, [
        f"Had {x.name} [reached|turned] {limit} [by the time|before] \"{w.title}\" [appeared|was finished]?",
        f"[Was|Were] {x.name} still [younger than|short of] {limit} [when|as] {x.pron.lower()} finished \"{w.title}\"?",
        f"Did {x.name} complete \"{w.title}\" before turning {limit}?",
        f"Was {x.name} under {limit} when the {w.kind} \"{w.title}\" [came out|appeared]?",
    ], [f"Was {x.name} already {limit} or older when \"{w.title}\" [came out|was completed]?"], age < limit)
    facts = [alt(f"{x.name} was born in {x.born}[| in {x.city.name}|, the child of a {rng.choice(V.OCCUPATIONS)}].", rng),
             alt(f"\"{w.title}\" was [completed|finished|released] in {w.year}.", rng)]
    decomp = [f"When was {x.name} born?", f"When was \"{w.title}\" completed?", f"Is #2 minus #1 less than {limit}?"]
    return w.title, f"{w.kind} by {x.name}", q, ans, facts, decomp


SHIPS = [("sailing yacht", 18), ("tall ship", 45), ("river barge", 6), ("fishing trawler", 14), ("ferry", 22),
         ("tugboat", 11), ("paddle steamer", 9), ("container ship", 60), ("racing dinghy", 8), ("cruise ship", 65)]
ANIMAL_WEIGHTS = [("horse", 500), ("cow", 650), ("pig", 120), ("sheep", 70), ("goat", 50), ("llama", 150),
                  ("donkey", 250), ("camel", 500), ("ostrich", 120), ("pony", 200), ("alpaca", 65), ("yak", 550)]
FISH_TANKS = [("goldfish", 40), ("koi", 1000), ("betta", 10), ("guppy", 20), ("angelfish", 100), ("oscar", 300),
              ("neon tetra", 40), ("discus", 200), ("axolotl", 75), ("clownfish", 80)]
DEVICES = [("phone", 14), ("laptop", 9), ("tablet", 11), ("e-reader", 40), ("music player", 30), ("camera", 6),
           ("headlamp", 20), ("smartwatch", 36), ("radio", 50), ("handheld game console", 7)]
LIQUIDS = [("fresh water", 0), ("sea water", -2), ("olive oil", 6), ("coconut oil", 24), ("sunflower oil", -17),
           ("vinegar", -2), ("milk", -1), ("diesel", -9), ("lemonade", -1), ("maple syrup", -7)]
DISHES_OVEN = [("bread", 220), ("pizza", 260), ("meringue", 110), ("roast chicken", 190), ("flapjacks", 170),
               ("soufflé", 200), ("naan", 300), ("cheesecake", 150), ("jacket potatoes", 200), ("biscotti", 180)]
APPLIANCES = [("camping oven", 200), ("toaster oven", 230), ("clay oven", 400), ("solar cooker", 150),
              ("old range cooker", 250), ("travel oven", 180), ("wood-fired stove", 320), ("microwave grill", 210)]


def _bridge(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    ship, mast = rng.choice(SHIPS)
    bridge = f"{V.surname(rng)} Bridge"
    clear = max(3, mast + rng.choice([-8, -5, -3, -1, 1, 2, 4, 7, 12]))
    q, ans = _yes_no(rng, [
        f"Does the {bridge} [leave|give] enough [clearance|headroom] for a {ship} [passing beneath|to pass underneath]?",
        f"[Heading|Sailing] up the {c.river}, [could|would] a {ship} [slip|pass] beneath the {bridge} [without lowering its mast|untouched]?",
        f"Could a {ship} sail under the {bridge} in {c.name}?",
        f"Is there enough room under the {bridge} for a {ship} to pass?",
        f"Would a {ship} clear the {bridge} on the {c.river}?",
    ], [f"Would a {ship} have to stop before the {bridge} in {c.name}?"], clear > mast)
    facts = [alt(f"The {bridge} [leaves|has] {clear} m of clearance above the water.", rng),
             alt(f"The mast of a [typical|standard] {ship} is about {mast} m tall.", rng)]
    decomp = [f"How much clearance does the {bridge} have?", f"How tall is the mast of a {ship}?", "Is #1 greater than #2?"]
    return bridge, f"bridge in {c.name}", q, ans, facts, decomp


def _lift(rng: random.Random, wiki: Wiki) -> Item:
    o = rng.choice(wiki.orgs)
    animal, kg = rng.choice(ANIMAL_WEIGHTS)
    n = rng.randint(2, 6)
    cap_ = rng.choice([400, 630, 800, 1000, 1600, 2000, 2500])
    q, ans = _yes_no(rng, [
        f"Would the goods lift at the {o.name} [take|carry] {n} {animal}s [in one trip|at the same time]?",
        f"Is the [weight limit|rated load] of the {o.name}'s goods lift [high|big] enough for {n} {animal}s?",
        f"Could {n} {animal}s ride the goods lift at the {o.name} together?",
        f"Is the freight lift at the {o.name} strong enough for {n} {animal}s at once?",
    ], [f"Would {n} {animal}s overload the goods lift at the {o.name}?"], n * kg <= cap_)
    facts = [alt(f"An adult {animal} [weighs about|tips the scales at around|has a mass of roughly] {kg} kg.", rng),
             alt(f"The goods lift at the {o.name} [is rated for|can carry] {cap_} kg.", rng)]
    decomp = [f"How much does an adult {animal} weigh?", f"What is {n} times #1?", f"Is #2 at most {cap_} kg?"]
    return o.name, f"{o.industry} organization in {o.city.name}", q, ans, facts, decomp


def _tank_fish(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    fish, need = rng.choice(FISH_TANKS)
    tank = rng.choice([10, 20, 40, 60, 100, 150, 200, 300, 500, 1200])
    q, ans = _yes_no(rng, [
        f"Does a {fish} [have enough room|get enough space] in a {tank}-litre [tank|aquarium]?",
        f"Would {x.name}'s {tank}-litre [tank|aquarium] [suit|be roomy enough for] a {fish}?",
        f"Could {x.name} keep a {fish} in {x.poss.lower()} {tank}-litre tank?",
        f"Is a {tank}-litre aquarium big enough for a {fish}?",
    ], [f"Would a {fish} be cramped in a {tank}-litre tank?"], tank >= need)
    facts = [alt(f"A {fish} needs at least {need} litres of water.", rng),
             alt(f"{x.name}'s [tank|aquarium] holds {tank} litres.", rng)]
    decomp = [f"How much water does a {fish} need?", f"How big is {x.name}'s tank?", "Is #2 at least #1?"]
    return fish, "fish", q, ans, facts, decomp


def _battery(rng: random.Random, wiki: Wiki) -> Item:
    a, b = rng.sample(wiki.cities, 2)
    device, hours = rng.choice(DEVICES)
    trip = rng.randint(3, 40)
    mode = rng.choice(["train", "coach", "ferry", "bus"])
    q, ans = _yes_no(rng, [
        f"[On|With] a single charge, would a {device} [last|keep going] [through|for] a {trip}-hour {mode} [trip|journey] between {a.name} and {b.name}?",
        f"Is the battery of a {device} [good|enough] for {trip} hours on the {mode} [without a top-up|without recharging]?",
        f"Could a {device} run for the whole {trip}-hour {mode} ride from {a.name} to {b.name} on one charge?",
        f"Would one charge of a {device} last a {trip}-hour {mode} journey?",
    ], [f"Would a {device} go flat before the end of a {trip}-hour {mode} ride?"], hours >= trip)
    facts = [alt(f"A fully charged {device} [lasts|runs for] about {hours} hours.", rng),
             alt(f"The {mode} from {a.name} to {b.name} takes {trip} hours.", rng)]
    decomp = [f"How long does a {device} battery last?", f"How long is the {mode} ride?", "Is #1 at least #2?"]
    return device, "device", q, ans, facts, decomp


def _freeze(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    liquid, fp = rng.choice(LIQUIDS)
    low = c.summer_temp - rng.randint(18, 45)
    while low == fp:
        low -= 1
    q, ans = _yes_no(rng, [
        f"Do winter nights in {c.name} get cold enough to freeze {liquid}?",
        f"[Left|Stored] [in an unheated shed|on a doorstep|outdoors] in {c.name} over a winter night, would {liquid} [go solid|freeze solid]?",
        f"Would a bottle of {liquid} left outside on a winter night in {c.name} freeze?",
        f"Does {liquid} turn solid on a January night in {c.name}?",
    ], [f"Would {liquid} stay liquid outdoors on a winter night in {c.name}?"], low < fp)
    facts = [alt(f"{cap(liquid)} freezes at about {fp} °C.", rng),
             alt(f"Winter nights in {c.name} [typically|usually] [fall|drop] to {low} °C.", rng)]
    decomp = [f"At what temperature does {liquid} freeze?", f"How cold do winter nights in {c.name} get?", "Is #2 below #1?"]
    return liquid, "liquid", q, ans, facts, decomp


def _oven(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    dish, need = rng.choice(DISHES_OVEN)
    app, top = rng.choice(APPLIANCES)
    q, ans = _yes_no(rng, [
        f"Is a {app} [hot|powerful] enough [to bake|for baking] {dish}?",
        f"[Using|With] only a {app}, [could|would] {x.name} [manage to bake|turn out] [decent|proper] {dish}?",
        f"Could {x.name} bake {dish} properly in a {app}?",
        f"Does a {app} get hot enough for {dish}?",
    ], [f"Is a {app} too cool to bake {dish}?"], top >= need)
    facts = [alt(f"{cap(dish)} [needs|is baked at] about {need} °C.", rng), alt(f"A {app} [reaches|tops out at] {top} °C.", rng)]
    decomp = [f"What temperature does {dish} need?", f"How hot does a {app} get?", "Is #2 at least #1?"]
    return dish, "dish", q, ans, facts, decomp


def _album(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    album = V.title_name(rng)
    tracks, mins = rng.randint(6, 20), rng.randint(2, 7)
    commute = rng.choice([15, 20, 25, 30, 40, 45, 60, 75, 90])
    q, ans = _yes_no(rng, [
        f"Is \"{album}\" short enough to [play through|hear in full] on a {commute}-minute [journey|commute]?",
        f"[Would|Could] [a commuter|{x.name}] [finish|get to the end of] \"{album}\" before a {commute}-minute [ride|trip] [is over|ends]?",
        f"Could {x.name} hear all of the album \"{album}\" during a {commute}-minute commute?",
        f"Is a {commute}-minute bus ride long enough to play \"{album}\" from start to finish?",
    ], [f"Would \"{album}\" still be playing when a {commute}-minute commute ends?"], tracks * mins <= commute)
    facts = [alt(f"\"{album}\" has {tracks} tracks.", rng), alt(f"Each track on \"{album}\" [lasts|runs] about {mins} minutes.", rng)]
    decomp = [f"How many tracks are on \"{album}\"?", "How long is each track?", "What is #1 times #2?", f"Is #3 at most {commute}?"]
    return album, "album", q, ans, facts, decomp


def _stack(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice([w for w in wiki.works if w.bookish])
    x = rng.choice(wiki.people)
    n = rng.randint(10, 80)
    thick = max(1, w.pages // 100)
    height = rng.randint(150, 195)
    q, ans = _yes_no(rng, [
        f"[Piled|Stacked] [up|one on top of another], would {n} copies of \"{w.title}\" [stand taller|rise higher] than {x.name}?",
        f"Is a [pile|stack] of {n} copies of \"{w.title}\" taller than {x.name} [is|stands]?",
        f"Would a stack of {n} copies of \"{w.title}\" be taller than {x.name}?",
        f"Could {n} copies of \"{w.title}\", piled up, reach above {x.name}'s head?",
    ], [f"Would {x.name} still see over a pile of {n} copies of \"{w.title}\"?"], n * thick > height)
    facts = [alt(f"A copy of \"{w.title}\" is about {thick} cm thick.", rng), alt(f"{x.name} is {height} cm tall.", rng)]
    decomp = [f"How thick is one copy of \"{w.title}\"?", f"What is {n} times #1?", f"Is #2 more than {height} cm?"]
    return w.title, f"{w.kind} by {w.creator.name}", q, ans, facts, decomp


def _century(rng: random.Random, wiki: Wiki) -> Item:
    w = rng.choice(wiki.works)
    o = rng.choice(wiki.orgs)
    same = (w.year - 1) // 100 == (o.founded - 1) // 100
    q, ans = _yes_no(rng, [
        f"Did \"{w.title}\" [appear|come out] in the same century [that|in which] the {o.name} was [founded|set up]?",
        f"Were \"{w.title}\" and the {o.name} [both|each] [products|creations] of the same century?",
        f"Was \"{w.title}\" completed in the same century as the founding of the {o.name}?",
        f"Do \"{w.title}\" and the {o.name} date from the same century?",
    ], [f"Were \"{w.title}\" and the {o.name} created in different centuries?"], same)
    facts = [alt(f"\"{w.title}\" was [completed|finished] in {w.year}.", rng), alt(f"The {o.name} was founded in {o.founded}.", rng)]
    decomp = [f"When was \"{w.title}\" completed?", f"When was the {o.name} founded?", "Are #1 and #2 in the same century?"]
    return w.title, f"{w.kind} by {w.creator.name}", q, ans, facts, decomp


def _budget(rng: random.Random, wiki: Wiki) -> Item:
    x = rng.choice(wiki.people)
    c = rng.choice(wiki.cities)
    nights, price = rng.randint(2, 14), rng.randint(30, 180)
    money_ = rng.randint(2, 20) * 100
    cur = rng.choice(["crowns", "florins", "marks", "thalers", "ducats"])
    q, ans = _yes_no(rng, [
        f"Would {money_} {cur} [cover|pay for] {nights} nights [in|at] a {c.name} guesthouse?",
        f"[With|Carrying] {money_} {cur}, [could|would] {x.name} [pay for|manage] a {nights}-night [stay|visit] in {c.name}?",
        f"Could {x.name} afford {nights} nights at a guesthouse in {c.name} with {money_} {cur}?",
        f"Are {money_} {cur} enough for a {nights}-night stay in {c.name}?",
    ], [f"Would {x.name} run out of money during a {nights}-night stay in {c.name} with {money_} {cur}?"], nights * price <= money_)
    facts = [alt(f"A guesthouse room in {c.name} costs {price} {cur} a night.", rng), alt(f"{x.name} has [{money_} {cur} to spend|saved {money_} {cur} for the trip|a budget of {money_} {cur}].", rng)]
    decomp = [f"How much is a night in {c.name}?", f"What is {nights} times #1?", f"Is #2 at most {money_}?"]
    return c.name, f"{c.kind} in {c.country}", q, ans, facts, decomp


def _understood(rng: random.Random, wiki: Wiki) -> Item:
    c = rng.choice(wiki.cities)
    lang = language_of(c.country) if rng.random() < 0.45 else rng.choice(V.LANGUAGES)
    q, ans = _yes_no(rng, [
        f"[Do|Would] [shopkeepers|most people|the locals] in {c.name} [speak|understand] {lang}?",
        f"Is {lang} [the local language|what is spoken] in {c.name}?",
        f"Would a {lang} speaker get by in {c.name} without an interpreter?",
        f"Is {lang} the language people speak in {c.name}?",
    ], [f"Would a {lang} speaker need an interpreter in {c.name}?"], lang == language_of(c.country))
    facts = [alt(f"{c.name} is a {c.kind} in {c.country}.", rng),
             alt(f"[The language of {c.country} is|People in {c.country} speak|The national language of {c.country} is] {language_of(c.country)}.", rng)]
    decomp = [f"Which country is {c.name} in?", "What language is spoken there?", f"Is #2 {lang}?"]
    return c.name, f"{c.kind} in {c.country}", q, ans, facts, decomp


def _pool_fill(rng: random.Random, wiki: Wiki) -> Item:
    o = rng.choice(wiki.orgs)
    litres = rng.randint(5, 80) * 1000
    flow = rng.choice([10, 20, 30, 40, 60])
    hours = rng.choice([4, 6, 8, 12, 24])
    q, ans = _yes_no(rng, [
        f"[Running|Left running] for {hours} hours, [would|could] a {flow}-litre-a-minute hose [fill|top up] the {o.name}'s pool?",
        f"Is a hose [giving|delivering] {flow} litres a minute [fast|quick] enough to fill the {o.name}'s pool within {hours} hours?",
        f"Could a {flow}-litre-a-minute hose fill the staff pool at the {o.name} in {hours} hours?",
        f"Is {hours} hours enough to fill the {o.name}'s pool with a hose giving {flow} litres a minute?",
    ], [f"Would it take more than {hours} hours to fill the {o.name}'s pool at {flow} litres a minute?"], flow * 60 * hours >= litres)
    facts = [alt(f"The pool at the {o.name} holds {litres:,} litres.", rng), f"In {hours} hours a {flow}-litre-a-minute hose delivers {flow * 60 * hours:,} litres."]
    decomp = ["How much water does the pool hold?", f"How much water does the hose deliver in {hours} hours?", "Is #2 at least #1?"]
    return o.name, f"{o.industry} organization in {o.city.name}", q, ans, facts, decomp


VENUES = [("village hall", 120), ("chapel", 80), ("school gym", 300), ("lecture theatre", 250), ("barn", 150),
          ("town square", 4000), ("ballroom", 500), ("railway carriage", 70), ("lifeboat", 40), ("tram", 110),
          ("marquee", 350), ("cinema", 400), ("football stand", 6000), ("ferry deck", 900), ("museum hall", 600),
          ("concert hall", 1800), ("lighthouse", 15), ("cable car", 30), ("canal boat", 12), ("attic", 20)]
GROUPS = ["choir", "orchestra", "school", "regiment", "congregation", "football club", "guild", "book club", "brass band",
          "dance troupe", "parish", "rowing club", "scout troop", "staff", "wedding party", "chess club", "circus",
          "fire brigade", "film crew", "village"]
CARRIERS = [("donkey", 60), ("bicycle basket", 15), ("cargo bike", 100), ("rowing boat", 300), ("wheelbarrow", 80),
            ("backpack", 20), ("camel", 200), ("pickup truck", 900), ("hot-air balloon basket", 250), ("sledge", 120),
            ("canoe", 150), ("handcart", 180), ("pony", 90), ("small van", 700), ("helicopter", 1200)]
LOADS = [("sacks of flour", 25), ("crates of apples", 18), ("bags of cement", 40), ("watermelons", 6),
         ("bricks", 3), ("cases of books", 15), ("tins of paint", 5), ("kegs of cider", 30), ("bales of wool", 45),
         ("pumpkins", 8), ("anvils", 50), ("church bells", 200), ("barrels of herring", 110), ("cheese wheels", 12)]
FOOD_PACKS = [("loaves of bread", 8), ("pots of stew", 12), ("trays of lasagne", 10), ("crates of oranges", 40),
              ("wheels of cheese", 30), ("sacks of potatoes", 50), ("boxes of doughnuts", 12), ("pans of paella", 20),
              ("cauldrons of soup", 60), ("baskets of plums", 25)]


def _venue(rng: random.Random, wiki: Wiki) -> Item:
    venue, cap_ = rng.choice(VENUES)
    group = rng.choice(GROUPS)
    c = rng.choice(wiki.cities)
    size = max(2, int(cap_ * rng.uniform(0.4, 1.8)))
    while size == cap_:
        size += 1
    where = f"the {c.name} {venue}"
    q, ans = _yes_no(rng, [
        f"Is there room in {where} for [every|each] member of the {c.name} {group}?",
        f"[For|At] its [annual dinner|yearly meeting|reunion], could the {c.name} {group} [fit|gather] in {where}?",
        f"Could the whole {c.name} {group} fit into {where}?",
        f"Is {where} big enough for every member of the {c.name} {group}?",
        f"Would {where} hold all {size} members of the {group}?",
    ], [f"Would {where} be too small for the {c.name} {group}?"], size <= cap_)
    facts = [alt(f"The {c.name} {group} has {size} members.", rng), alt(f"{cap(where)} [holds|seats|has room for] {cap_} people.", rng)]
    decomp = [f"How many members does the {group} have?", f"How many people fit in {where}?", "Is #1 at most #2?"]
    return f"{c.name} {group}", f"{group} in {c.name}", q, ans, facts, decomp


def _payload(rng: random.Random, wiki: Wiki) -> Item:
    carrier, limit = rng.choice(CARRIERS)
    load, kg = rng.choice(LOADS)
    n = max(1, int(limit / kg * rng.uniform(0.5, 1.6)))
    while n * kg == limit:
        n += 1
    x = rng.choice(wiki.people)
    q, ans = _yes_no(rng, [
        f"[Loaded|Piled] with {n} {load}, would a {carrier} [stay within|be under] its [load limit|weight limit]?",
        f"Is a {carrier} [able|built] to [carry|take] {n} {load} [in a single trip|together]?",
        f"Could {x.name}'s {carrier} carry {n} {load} at once?",
        f"Is a {carrier} strong enough to take {n} {load} in one go?",
        f"Could {n} {load} go on a single {carrier} without overloading it?",
    ], [f"Would {n} {load} be too heavy for a {carrier}?"], n * kg <= limit)
    facts = [alt(f"One of the {load} weighs about {kg} kg.", rng), alt(f"A {carrier} can carry up to {limit} kg.", rng)]
    decomp = [f"How much does one of the {load} weigh?", f"What is {n} times #1?", f"Is #2 at most {limit} kg?"]
    return carrier, "means of transport", q, ans, facts, decomp


def _feast(rng: random.Random, wiki: Wiki) -> Item:
    food, serves = rng.choice(FOOD_PACKS)
    group = rng.choice(GROUPS)
    c = rng.choice(wiki.cities)
    people = rng.randint(20, 400)
    n = max(1, int(people / serves * rng.uniform(0.5, 1.5)))
    while n * serves == people:
        n += 1
    q, ans = _yes_no(rng, [
        f"Is {n} {food} [enough|plenty] for {people} [guests|diners] [of|at] the {c.name} {group}?",
        f"[With|Given] {n} {food}, [would|could] the {c.name} {group} feed all {people} of its guests?",
        f"Would {n} {food} be enough to feed the {people} guests at the {c.name} {group}'s dinner?",
        f"Could the {c.name} {group} feed {people} people with {n} {food}?",
    ], [f"Would some of the {people} guests go hungry if the {c.name} {group} served {n} {food}?"], n * serves >= people)
    facts = [alt(f"Each of the {food} feeds about {serves} people.", rng), alt(f"The {c.name} {group} [expects|has invited|is catering for] {people} guests.", rng)]
    decomp = [f"How many people does one of the {food} feed?", f"What is {n} times #1?", f"Is #2 at least {people}?"]
    return f"{c.name} {group}", f"{group} in {c.name}", q, ans, facts, decomp


def _crossing(rng: random.Random, wiki: Wiki) -> Item:
    a, b = rng.sample(wiki.cities, 2)
    km = rng.randint(10, 400)
    mode, speed = rng.choice([("walker", 5), ("cyclist", 18), ("horse rider", 12), ("rowing crew", 8), ("ox cart", 4),
                              ("runner", 10), ("skier", 9), ("mule train", 5), ("canoeist", 6)])
    hours = rng.choice([4, 6, 8, 10, 12, 24])
    q, ans = _yes_no(rng, [
        f"Is {hours} hours [long|time] enough for a {mode} to [cover|make] the [trip|journey] from {a.name} to {b.name}?",
        f"[Leaving|Setting off from] {a.name} at [dawn|first light|noon], would a {mode} [reach|get to] {b.name} within {hours} hours?",
        f"Could a {mode} get from {a.name} to {b.name} within {hours} hours?",
        f"Is {hours} hours enough for a {mode} to travel from {a.name} to {b.name}?",
    ], [f"Would a {mode} need more than {hours} hours to reach {b.name} from {a.name}?"], speed * hours >= km)
    facts = [alt(f"{a.name} and {b.name} are {km} km apart.", rng), alt(f"A {mode} [covers|travels] about {speed} km an hour.", rng)]
    decomp = [f"How far apart are {a.name} and {b.name}?", f"How far does a {mode} go in {hours} hours?", "Is #2 at least #1?"]
    return a.name, f"{a.kind} in {a.country}", q, ans, facts, decomp


def an_(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


KINDS: tuple[Callable[[random.Random, Wiki], Item], ...] = (
    _lifetime, _meet, _border, _stadium, _binge, _diet, _melting, _language, _talk, _flight_read, _vote,
    _river_walk, _ceiling, _outrun, _pet_lifespan, _float, _invention, _outing, _young_work, _bridge, _lift,
    _tank_fish, _battery, _freeze, _oven, _album, _stack, _century, _budget, _understood, _pool_fill, _venue, _payload,
    _feast, _crossing,
)


class _Describer:
    """Adds an apposition to the first person or city a question names ('Nora Kelwick, a violinist from
    Lorbury,'), from attributes no question family turns on (occupation, birthplace, river, landmark);
    never a country, a year or a language."""

    def __init__(self, wiki: Wiki):
        self.people = {p.name: p for p in wiki.people}
        self.cities = {c.name: c for c in wiki.cities}
        names = sorted(list(self.people) + list(self.cities), key=len, reverse=True)
        self.pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b(?![',])")

    def __call__(self, question: str, rng: random.Random) -> str:
        if rng.random() < 0.2:
            return question
        m = next((m for m in self.pattern.finditer(question) if question[:m.start()].count('"') % 2 == 0
                  and not question[:m.start()].lower().endswith("the ")), None)  # not inside 'the Lorbury choir'
        if m is None:
            return question
        name = m.group(1)
        if name in self.people:
            x = self.people[name]
            form = rng.choice([f"the {x.occupation} {name}", f"{name}, a {x.occupation} from {x.city.name},",
                               f"the {x.city.name}-born {x.occupation} {name}", f"{name} of {x.city.name}",
                               f"{name}, who studied at {x.university},", f"the {rng.choice(V.PERSON_ADJ)} {x.occupation} {name}",
                               f"{name}, a {rng.choice(V.PERSON_ADJ)} {x.occupation},",
                               f"{name}, [whose family came from|raised in|who grew up in] {x.city.name},",
                               f"{name}, [a keen|an avid|a lifelong] [{'|'.join(V.HOBBIES[:12])}] [enthusiast|fan],",
                               f"{name}, [{'an alumna' if x.she else 'an alumnus'}|a graduate] of {x.university},"])
            form = alt(form, rng)
            form = form[:1].lower() + form[1:] if form.startswith("The ") else form
        else:
            c = self.cities[name]
            form = rng.choice([f"{name}, on the {c.river},", f"the {c.kind} of {name}", f"{name}, home of the {c.landmark},",
                               f"{name} by the {c.river}", f"the {c.adj} {c.kind} of {name}",
                               f"{name}, [known|famous|noted] for its {c.food or c.landmark},", f"{name}, with its {c.landmark},",
                               f"{name}, [a|the] {c.adj} {c.kind} [on|beside|along] the {c.river},",
                               f"{name}, [where the {c.festival or 'summer'} festival is held|home of a {c.festival or 'harvest'} festival],"])
            form = alt(form, rng)
            form = form[:1].lower() + form[1:] if form.startswith("The ") else form
        if m.start() == 0 or question[m.end():m.end() + 1] in "?.":
            form = form.rstrip(",")
        out = question[:m.start()] + form + question[m.end():]
        return out[:1].upper() + out[1:]


def generate_strategyqa(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"strategyqa:{seed}")
    wiki = build_wiki(rng, n_people=max(40, n // 2), paragraphs=False)
    describe = _Describer(wiki)
    out, seen, shapes = [], set(), set()
    while len(out) < n:
        term, description, question, answer, facts, decomposition = rng.choice(KINDS)(rng, wiki)
        question = describe(alt(question, rng), rng)
        shape = V.skeleton(question) if any(ch.isdigit() for ch in question) else None
        if question in seen or shape in shapes:
            continue  # a question that differs from an earlier one only in its names: draw another
        seen.add(question)
        if shape:
            shapes.add(shape)
        out.append({"qid": f"builtin-{len(out):05d}", "term": term, "description": description,
                    "question": question, "answer": bool(answer), "facts": facts, "decomposition": decomposition})
    return out
