"""A generated mini-wiki (people, cities, organizations, works) with one paragraph per entity, and the
HotpotQA-like (bridge/comparison) and StrategyQA-like (yes/no with facts) questions built over it.

Paragraphs are lists of sentences (the first without, later ones with a leading space, as in HotpotQA)
and remember which sentence states which attribute, so supporting_facts point at real sentences.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from rc1.data import builtin_vocab as V


@dataclass
class Paragraph:
    title: str
    sentences: list[str] = field(default_factory=list)
    where: dict[str, int] = field(default_factory=dict)  # attribute -> sentence index

    def add(self, attr: str, text: str) -> None:
        self.where[attr] = len(self.sentences)
        self.sentences.append(text if not self.sentences else " " + text)

    def as_context(self) -> list:
        return [self.title, list(self.sentences)]


@dataclass
class City:
    name: str
    country: str
    founded: int
    population: int
    river: str
    landmark: str
    summer_temp: int
    para: Paragraph | None = None


@dataclass
class Person:
    name: str
    she: bool
    born: int
    died: int | None
    city: City
    occupation: str
    languages: list[str]
    university: str = ""
    work: "Work | None" = None
    para: Paragraph | None = None

    @property
    def pron(self) -> str:
        return "She" if self.she else "He"

    @property
    def poss(self) -> str:
        return "Her" if self.she else "His"


@dataclass
class Work:
    title: str
    kind: str
    year: int
    creator: Person
    language: str
    pages: int
    para: Paragraph | None = None


@dataclass
class Org:
    name: str
    kind: str
    founded: int
    founder: Person
    city: City
    industry: str
    para: Paragraph | None = None


@dataclass
class Wiki:
    cities: list[City]
    people: list[Person]
    works: list[Work]
    orgs: list[Org]

    def paragraphs(self) -> list[Paragraph]:
        return [e.para for group in (self.cities, self.people, self.works, self.orgs) for e in group]


def an(word: str) -> str:
    """'a' or 'an' before `word` (by its spelling, plus the '18xx' years read 'an eighteen...')."""
    w = str(word)
    return "an" if w[:1].lower() in "aeiou" or w.startswith(("18", "8", "11")) else "a"


def _language_of(country: str) -> str:
    return V.LANGUAGES[V.COUNTRY_NAMES.index(country) % len(V.LANGUAGES)]


def _city_paragraph(rng: random.Random, c: City) -> Paragraph:
    p = Paragraph(c.name)
    p.add("intro", rng.choice([
        f"{c.name} is a city in the north of {c.country}.", f"{c.name} is a river town in {c.country}.",
        f"{c.name} is the second-largest settlement of its province in {c.country}.",
        f"{c.name} is a market city in southern {c.country}.",
    ]))
    rest = [
        ("founded", rng.choice([f"It was founded in {c.founded} as a trading post.",
                                f"The town received its charter in {c.founded}.",
                                f"Records date its founding to {c.founded}."])),
        ("river", rng.choice([f"The {c.river} flows through the old quarter.",
                              f"It lies on the banks of the {c.river}.",
                              f"Its harbor opens onto the {c.river}."])),
        ("population", rng.choice([f"As of the last census it had a population of {c.population:,}.",
                                   f"About {c.population:,} people live there.",
                                   f"Its population was counted at {c.population:,}."])),
        ("landmark", rng.choice([f"The city is known for its {c.landmark}.",
                                 f"Visitors come mainly for the {c.landmark}.",
                                 f"Its best-known sight is the {c.landmark}."])),
        ("climate", rng.choice([f"Summer afternoons there typically reach {c.summer_temp} degrees Celsius.",
                                f"In July the temperature usually peaks around {c.summer_temp} °C."])),
    ]
    rng.shuffle(rest)
    for attr, text in rest:
        p.add(attr, text)
    return p


def _person_paragraph(rng: random.Random, x: Person) -> Paragraph:
    p = Paragraph(x.name)
    life = f"{x.born}–{x.died}" if x.died else f"born {x.born}"
    p.add("born", rng.choice([
        f"{x.name} ({life}) was {an(x.occupation)} {x.occupation} from {x.city.name}, {x.city.country}."
        if x.died else f"{x.name} ({life}) is {an(x.occupation)} {x.occupation} from {x.city.name}, {x.city.country}.",
        f"{x.name} (born in {x.city.name} in {x.born}) {'was' if x.died else 'is'} {an(x.occupation)} {x.occupation}.",
    ]))
    rest = [
        ("education", rng.choice([f"{x.pron} studied at {x.university}.", f"{x.pron} trained at {x.university}.",
                                  f"After school {x.pron.lower()} enrolled at {x.university}."])),
        ("languages", rng.choice([f"{x.pron} spoke {x.languages[0]} and {x.languages[1]}.",
                                  f"{x.poss} working languages were {x.languages[0]} and {x.languages[1]}."])),
    ]
    if x.work is not None:
        rest.append(("work", rng.choice([f"{x.poss} best-known {x.work.kind} is \"{x.work.title}\".",
                                         f"{x.pron} is remembered above all for the {x.work.kind} \"{x.work.title}\"."])))
    rng.shuffle(rest)
    for attr, text in rest:
        p.add(attr, text)
    if x.died:
        p.add("died", rng.choice([f"{x.pron} died in {x.died}.", f"{x.pron} retired to the coast and died in {x.died}."]))
    return p


def _work_paragraph(rng: random.Random, w: Work) -> Paragraph:
    p = Paragraph(w.title)
    p.add("intro", rng.choice([f"\"{w.title}\" is {an(w.year)} {w.year} {w.kind} by {w.creator.occupation} {w.creator.name}.",
                               f"\"{w.title}\" is {an(w.kind)} {w.kind} completed in {w.year}."]))
    if "by " not in p.sentences[0]:
        p.add("creator", rng.choice([f"It was created by {w.creator.name}.", f"Its author is {w.creator.name}."]))
    else:
        p.where["creator"] = p.where["intro"]
    p.where["year"] = p.where["intro"]
    p.add("language", rng.choice([f"It was first published in {w.language}.", f"The original is in {w.language}."]))
    p.add("pages", f"The standard edition runs to {w.pages} pages.")
    return p


def _org_paragraph(rng: random.Random, o: Org) -> Paragraph:
    p = Paragraph(o.name)
    p.add("intro", rng.choice([f"The {o.name} is {an(o.industry)} {o.industry} {o.kind.lower()} based in {o.city.name}.",
                               f"{o.name} is an organization active in {o.industry}, headquartered in {o.city.name}."]))
    p.where["hq"] = p.where["intro"]
    rest = [("founded", rng.choice([f"It was established in {o.founded}.", f"It opened its doors in {o.founded}."])),
            ("founder", rng.choice([f"Its founder was {o.founder.name}.", f"{o.founder.name} set it up with family money."]))]
    rng.shuffle(rest)
    for attr, text in rest:
        p.add(attr, text)
    return p


def build_wiki(rng: random.Random, n_people: int) -> Wiki:
    taken: set[str] = set(V.COUNTRY_NAMES)
    n_cities = max(12, n_people // 4)
    cities = []
    for _ in range(n_cities):
        name = V.unique(rng, V.place_name, taken)
        river = V.unique(rng, lambda r: f"{r.choice(V.RIVERS_A + [V.place_name(r)])} {r.choice(V.RIVERS_B)}", taken)
        cities.append(City(name, rng.choice(V.COUNTRY_NAMES), rng.randint(900, 1900),
                           rng.randint(20, 900) * 1000 + rng.randint(0, 999), river, rng.choice(V.LANDMARKS),
                           rng.randint(14, 42)))
    universities = [f"{V.unique(rng, V.place_name, taken)} {rng.choice(V.UNIVERSITY_SUFFIX)}" for _ in range(max(6, n_cities // 3))]
    people = []
    for _ in range(n_people):
        born = rng.randint(1820, 1990)
        died = born + rng.randint(35, 95) if born < 1950 or rng.random() < 0.2 else None
        died = died if died is not None and died <= 2024 else None
        city = rng.choice(cities)
        langs = [_language_of(city.country)]
        langs.append(rng.choice([lang for lang in V.LANGUAGES if lang != langs[0]]))
        people.append(Person(V.unique(rng, V.person_name, taken), rng.random() < 0.5, born, died, city,
                             rng.choice(V.OCCUPATIONS), langs, rng.choice(universities)))
    works = []
    for person in rng.sample(people, k=len(people) * 2 // 3):
        year = min(person.born + rng.randint(22, 60), person.died or 2024)
        w = Work(V.unique(rng, V.title_name, taken), V.FIELDS_OF_WORK[person.occupation], year, person,
                 rng.choice(person.languages), rng.randint(9, 90) * 10)
        person.work = w
        works.append(w)
    orgs = []
    for founder in rng.sample(people, k=max(8, len(people) // 3)):
        kind = rng.choice(V.ORG_KIND)
        stem = rng.choice([founder.name.split()[-1], V.place_name(rng), rng.choice(V.TITLE_ADJ)])
        name = V.unique(rng, lambda r, s=stem, k=kind: f"{s} {k}", taken)
        year = min(founder.born + rng.randint(25, 55), 2024)
        orgs.append(Org(name, kind, year, founder, rng.choice(cities), rng.choice(V.INDUSTRIES)))
    for c in cities:
        c.para = _city_paragraph(rng, c)
    for x in people:
        x.para = _person_paragraph(rng, x)
    for w in works:
        w.para = _work_paragraph(rng, w)
    for o in orgs:
        o.para = _org_paragraph(rng, o)
    return Wiki(cities, people, works, orgs)
