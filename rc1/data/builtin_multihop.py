"""HotpotQA-like bridge and comparison questions over the mini-wiki, in the official distractor schema.

Each question kind follows one relation chain (work -> creator -> birthplace, org -> founder -> ...,
person -> teacher -> ..., city -> twin town -> ...) or compares one attribute of two entities, and is
worded by one of several frames with phrase alternatives; entities are mentioned with optional
descriptors that never give the answer away."""

from __future__ import annotations

import random
from typing import Callable

from rc1.data.builtin_vocab import alt
from rc1.data.builtin_wiki import Paragraph, Wiki, build_wiki

Question = tuple[str, str, list[tuple[Paragraph, str]], str]  # question, answer, [(paragraph, attr)], type

WHICH_YEAR = "[In what|In which|What|Which] year"
CITY = "[city|town|place]"
BIRTHPLACE = "[birthplace|hometown|native town|home town|place of birth]"
MADE = "[made|created|produced]"
MAKER = "[creator|maker|author]"


def person(rng: random.Random, x, *show: str, avoid: tuple[str, ...] = ()) -> str:
    """A mention of person x, often with descriptors: those listed in `show`, plus the ones no question
    about x asks for (teacher, employer, award) unless named in `avoid`."""
    show = set(show) | ({"mentor", "employer", "award"} - set(avoid))
    forms = [x.name, x.name]
    if "occupation" in show:
        forms += [f"the {x.occupation} {x.name}", f"{x.name}[,| the] {x.occupation}[,|]", f"{x.name}, [a|the] {x.occupation},"]
    if "city" in show:
        forms += [f"{x.name} of {x.city.name}", f"{x.name} [from|, born in] {x.city.name}[,|]",
                  f"the {x.city.name}-born {x.name}"]
        if "occupation" in show:
            forms += [f"the {x.city.name}-born {x.occupation} {x.name}"]
    if "university" in show:
        forms += [f"{x.name}, [an alumnus|a graduate|a former student] of {x.university},"]
    if "work" in show and x.work is not None:
        forms += [f"{x.name}, [who made|the {x.occupation} behind|creator of] \"{x.work.title}\","]
    if "mentor" in show and x.mentor is not None:
        forms += [f"{x.name}, [a pupil|a student|an apprentice] of {x.mentor.name},", f"{x.mentor.name}'s [pupil|student] {x.name}"]
    if "employer" in show and x.employer is not None:
        forms += [f"{x.name} of the {x.employer.name}", f"{x.name}, [who worked for|once employed by] the {x.employer.name},"]
    if "award" in show and x.award is not None:
        forms += [f"{x.name}, [winner|a winner|recipient] of the {x.award[0]},", f"the {x.award[0]} winner {x.name}"]
    return rng.choice(forms)


def work(rng: random.Random, w, *show: str, avoid: tuple[str, ...] = ()) -> str:
    show = set(show) | ({"creator", "premiere", "pages"} - set(avoid))
    forms = [f"\"{w.title}\"", f"the {w.kind} \"{w.title}\""]
    if "year" in show:
        forms += [f"the {w.year} {w.kind} \"{w.title}\"", f"\"{w.title}\" ({w.year})", f"\"{w.title}\", [released|completed|finished] in {w.year},"]
    if "language" in show and w.has_language:
        forms += [f"the {w.language} {w.kind} \"{w.title}\"", f"the {w.language}-language {w.kind} \"{w.title}\""]
    if "creator" in show:
        forms += [f"{w.creator.name}'s {w.kind} \"{w.title}\"", f"\"{w.title}\" by {w.creator.name}"]
    if "premiere" in show and w.premiere is not None:
        forms += [f"the {w.kind} \"{w.title}\", first [shown|presented] in {w.premiere.name},"]
    if "pages" in show and w.bookish:
        forms += [f"the {w.pages}-page {w.kind} \"{w.title}\""]
    return rng.choice(forms)


def org(rng: random.Random, o, *show: str, avoid: tuple[str, ...] = ()) -> str:
    show = set(show) | ({"founder", "staff"} - set(avoid))
    forms = [f"the {o.name}"]
    if "industry" in show:
        forms += [f"the {o.industry} [firm|outfit|concern|organization] {o.name}", f"the {o.name}, [active|working] in {o.industry},"]
    if "founded" in show:
        forms += [f"the {o.name} (founded {o.founded})", f"the {o.name}, [set up|established] in {o.founded},"]
    if "city" in show:
        forms += [f"the {o.city.name}-based {o.name}", f"the {o.name} of {o.city.name}"]
    if "founder" in show:
        forms += [f"{o.founder.name}'s {o.name}", f"the {o.name}, [set up|started|founded] by {o.founder.name},"]
    if "staff" in show:
        forms += [f"the {o.name}, with [about|some] {o.staff:,} [staff|employees],"]
    return rng.choice(forms)


def city(rng: random.Random, c, *show: str, avoid: tuple[str, ...] = ()) -> str:
    show = set(show) | ({"twin", "region"} - set(avoid))
    forms = [c.name, c.name]
    if "river" in show:
        forms += [f"{c.name}, on the {c.river},", f"{c.name} [by|on] the {c.river}"]
    if "landmark" in show:
        forms += [f"{c.name}, [known|famous] for its {c.landmark},", f"{c.name}, home of the {c.landmark},"]
    if "country" in show:
        forms += [f"{c.name} in {c.country}", f"the {c.country} {c.kind} of {c.name}"]
    if "twin" in show and c.twin is not None:
        forms += [f"{c.name}, twinned with {c.twin.name},", f"{c.twin.name}'s twin town {c.name}"]
    if "region" in show:
        forms += [f"the {c.kind} of {c.name}", f"{c.name}, a {c.adj} {c.kind},"]
    return rng.choice(forms)


def has(e, *attrs: str) -> bool:
    """Whether entity e's paragraph states every attribute in `attrs`."""
    return e is not None and e.para is not None and all(a in e.para.where for a in attrs)


def pool(wiki: Wiki, key: str, items, pred) -> list:
    """The entities a question kind can use (computed once per wiki)."""
    cache = wiki.__dict__.setdefault("_pools", {})
    if key not in cache:
        cache[key] = [e for e in items if pred(e)]
    return cache[key]


def _q(rng: random.Random, frames: list[str]) -> str:
    return rng.choice(frames)


# ------------------------------------------------------------------ bridge: work -> creator -> ...
def _work_creator_born(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(pool(wiki, "w_creator", wiki.works, lambda w: has(w, "creator")))
    m = work(rng, w, "year", "language", avoid=("creator",))
    q = _q(rng, [f"{WHICH_YEAR} was the {MAKER} of {m} born?",
                 f"{m} was {MADE} by someone born in which year?",
                 f"When was the [person|artist|figure] behind {m} born?",
                 f"[Whoever|The person who] {MADE} {m} was born in what year?",
                 f"Give the birth year of the [person|one] who {MADE} {m}.",
                 f"[How about this|Here is one]: the {MAKER} of {m} was born when?",
                 f"{WHICH_YEAR} saw the birth of the {MAKER} of {m}?"])
    return q, str(w.creator.born), [(w.para, "creator"), (w.creator.para, "born")], "bridge"


def _work_creator_city(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(pool(wiki, "w_creator", wiki.works, lambda w: has(w, "creator")))
    m = work(rng, w, "year", "language", avoid=("creator", "premiere"))
    q = _q(rng, [f"In which {CITY} was the {MAKER} of {m} born?",
                 f"Where was the [person|artist] who {MADE} {m} born?",
                 f"{m} is the work of someone from which {CITY}?",
                 f"Name the {BIRTHPLACE} of the {MAKER} of {m}.",
                 f"What is the {BIRTHPLACE} of [whoever|the one who] {MADE} {m}?"])
    return q, w.creator.city.name, [(w.para, "creator"), (w.creator.para, "born")], "bridge"


def _work_creator_university(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(pool(wiki, "w_creator_edu", wiki.works, lambda w: has(w, "creator") and has(w.creator, "education")))
    m = work(rng, w, "year", "language", avoid=("creator",))
    q = _q(rng, [f"Where did the {MAKER} of {m} [study|train|go to university]?",
                 f"The {MAKER} of {m} [trained|studied|was educated] at which [institution|school|university]?",
                 f"Which [school|college|institution] educated the person who {MADE} {m}?",
                 f"{m} was {MADE} by an alumnus of which [institution|school]?"])
    return q, w.creator.university, [(w.para, "creator"), (w.creator.para, "education")], "bridge"


def _work_creator_died(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(pool(wiki, "w_creator_died", wiki.works, lambda w: has(w, "creator") and has(w.creator, "died")))
    m = work(rng, w, "language", avoid=("creator",))  # a work can date from its maker's last year
    q = _q(rng, [f"{WHICH_YEAR} did the {MAKER} of {m} die?",
                 f"When did the [person|artist] who {MADE} {m} die?",
                 f"The {MAKER} of {m} died in which year?",
                 f"How long did the {MAKER} of {m} live on? [Give|Name] the year of death."])
    return q, str(w.creator.died), [(w.para, "creator"), (w.creator.para, "died")], "bridge"


def _work_premiere_country(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(pool(wiki, "w_premiere", wiki.works, lambda w: has(w, "premiere")))
    m = work(rng, w, "year", avoid=("premiere",))  # a language name gives its country away
    q = _q(rng, [f"In which country is the {CITY} where {m} was first [presented|shown|introduced]?",
                 f"{m} [premiered|was first shown|had its debut] in a {CITY} of which country?",
                 f"The first [presentation|public showing|premiere] of {m} took place in which country?",
                 f"Which country [hosted|saw] the [premiere|debut|first showing] of {m}?"])
    return q, w.premiere.country, [(w.para, "premiere"), (w.premiere.para, "intro")], "bridge"


def _work_premiere_river(rng: random.Random, wiki: Wiki) -> Question:
    w = rng.choice(pool(wiki, "w_premiere_river", wiki.works, lambda w: has(w, "premiere") and has(w.premiere, "river")))
    m = work(rng, w, "year", "language", avoid=("premiere",))
    q = _q(rng, [f"Which river [flows|runs] through the {CITY} where {m} [premiered|was first shown]?",
                 f"{m} was first [presented|shown] in a {CITY} on which river?",
                 f"[Name|What is] the river of the {CITY} that [hosted|saw] the [premiere|debut] of {m}[.|?]"])
    return q, w.premiere.river, [(w.para, "premiere"), (w.premiere.para, "river")], "bridge"


# ------------------------------------------------------------------ bridge: org -> ...
def _org_founder_city(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(pool(wiki, "o_founder", wiki.orgs, lambda o: has(o, "founder")))
    m = org(rng, o, "industry", "founded", avoid=("founder",))
    q = _q(rng, [f"In which {CITY} was the founder of {m} born?",
                 f"{m} was [founded|started|set up] by a person from which {CITY}?",
                 f"What is the {BIRTHPLACE} of the person who [founded|started|established] {m}?",
                 f"Where was the [founder|person who set up] {m} born?",
                 f"[Name|Give] the {BIRTHPLACE} of the founder of {m}."])
    return q, o.founder.city.name, [(o.para, "founder"), (o.founder.para, "born")], "bridge"


def _org_founder_occupation(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(pool(wiki, "o_founder_occ", wiki.orgs, lambda o: has(o, "founder") and o.founder.occupation not in " ".join(o.para.sentences)))
    m = org(rng, o, "industry", "founded", "city", avoid=("founder",))
    q = _q(rng, [f"What was the [profession|occupation|line of work] of the founder of {m}?",
                 f"The person who [founded|set up|started] {m} worked as what?",
                 f"[Before|Besides] founding {m}, what did its founder do for a living?",
                 f"{m} was [founded|set up] by [a|an] what? [Give|Name] the founder's profession."])
    return q, o.founder.occupation, [(o.para, "founder"), (o.founder.para, "born")], "bridge"


def _org_founder_born(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(pool(wiki, "o_founder", wiki.orgs, lambda o: has(o, "founder")))
    m = org(rng, o, "industry", "city", avoid=("founder",))
    q = _q(rng, [f"{WHICH_YEAR} was the founder of {m} born?",
                 f"When was the person who [set up|founded|established] {m} born?",
                 f"{m} was founded by someone born in which year?"])
    return q, str(o.founder.born), [(o.para, "founder"), (o.founder.para, "born")], "bridge"


def _org_hq_country(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(wiki.orgs)
    m = org(rng, o, "industry", "founded")
    q = _q(rng, [f"{m} is [headquartered|based] in a {CITY} of which country?",
                 f"In what country is the [home city|base|headquarters city] of {m}?",
                 f"[Which|What] country hosts the {CITY} where {m} [has its headquarters|is based]?",
                 f"{m} operates from a {CITY} in which country?"])
    return q, o.city.country, [(o.para, "hq"), (o.city.para, "intro")], "bridge"


def _org_hq_river(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(pool(wiki, "o_hq_river", wiki.orgs, lambda o: has(o.city, "river")))
    m = org(rng, o, "industry", "founded")
    q = _q(rng, [f"Which river [flows|runs] through the {CITY} where {m} is [based|headquartered]?",
                 f"{m} has its [seat|headquarters|main office] in a {CITY} on which river?",
                 f"On which river does the home {CITY} of {m} [lie|stand]?"])
    return q, o.city.river, [(o.para, "hq"), (o.city.para, "river")], "bridge"


def _org_founder_work(rng: random.Random, wiki: Wiki) -> Question:
    o = rng.choice(pool(wiki, "o_founder_work", wiki.orgs, lambda o: has(o, "founder") and has(o.founder, "work")))
    m = org(rng, o, "industry", "founded", "city", avoid=("founder",))
    k = o.founder.work.kind
    q = _q(rng, [f"What is the best-known {k} of the founder of {m}?",
                 f"The founder of {m} is remembered for which {k}?",
                 f"[Name|Give the title of] the {k} that made the founder of {m} famous."])
    return q, o.founder.work.title, [(o.para, "founder"), (o.founder.para, "work")], "bridge"


# ------------------------------------------------------------------ bridge: person -> ...
def _person_city_river(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_city_river", wiki.people, lambda x: has(x.city, "river")))
    m = person(rng, x, "occupation", "university", "work")
    q = _q(rng, [f"Which river [flows|runs|passes] through the {BIRTHPLACE} of {m}?",
                 f"{m} was born in a {CITY} on which river?",
                 f"[Name|What is|Identify] the river of the {CITY} where {m} was born[.|?]",
                 f"On the banks of which river was {m} born?"])
    return q, x.city.river, [(x.para, "born"), (x.city.para, "river")], "bridge"


def _person_city_landmark(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_city_landmark", wiki.people, lambda x: has(x.city, "landmark")))
    m = person(rng, x, "occupation", "university", "work")
    q = _q(rng, [f"What [sight|landmark|attraction] is the {BIRTHPLACE} of {m} best known for?",
                 f"Which landmark [draws|attracts|brings] visitors to the {CITY} where {m} was born?",
                 f"{m} was born in a {CITY} famous for what [sight|landmark]?"])
    return q, x.city.landmark, [(x.para, "born"), (x.city.para, "landmark")], "bridge"


def _person_city_founded(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_city_founded", wiki.people, lambda x: has(x.city, "founded")))
    m = person(rng, x, "occupation", "university", "work")
    q = _q(rng, [f"{WHICH_YEAR} was the {BIRTHPLACE} of {m} founded?",
                 f"When was the {CITY} where {m} was born [founded|established]?",
                 f"{m} came from a {CITY} founded in which year?"])
    return q, str(x.city.founded), [(x.para, "born"), (x.city.para, "founded")], "bridge"


def _person_work_year(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_work", wiki.people, lambda x: has(x, "work")))
    m = person(rng, x, "occupation", "city", "university")
    k = x.work.kind
    q = _q(rng, [f"In what year was the [best-known|most famous|signature] {k} of {m} [completed|finished|released]?",
                 f"{m} is [remembered|known|celebrated] for one {k}; in which year did it [appear|come out]?",
                 f"When did {x.name}'s [best-known|most famous] {k} [appear|come out]?",
                 f"{WHICH_YEAR} [dates|is] the {k} that {m} is best known for[ from|]?"])
    return q, str(x.work.year), [(x.para, "work"), (x.work.para, "year")], "bridge"


def _person_work_language(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_work_lang", wiki.people, lambda x: has(x, "work") and x.work.has_language and has(x.work, "language")))
    m = person(rng, x, "occupation", "city")
    k = x.work.kind
    q = _q(rng, [f"In which language was the [best-known|most famous] {k} of {m} first published?",
                 f"What is the original language of the {k} {m} is [best|most] remembered for?",
                 f"{x.name}'s [signature|best-known] {k} was first issued in which language?"])
    return q, x.work.language, [(x.para, "work"), (x.work.para, "language")], "bridge"


def _person_mentor_city(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_mentor", wiki.people, lambda x: has(x, "mentor")))
    m = person(rng, x, "occupation", "university", avoid=("mentor",))
    q = _q(rng, [f"Where was the teacher of {m} born?",
                 f"{m} [studied under|was trained by|learned from] someone born in which {CITY}?",
                 f"In which {CITY} was {x.name}'s [mentor|teacher] born?",
                 f"What is the {BIRTHPLACE} of the person who [taught|trained|mentored] {m}?"])
    return q, x.mentor.city.name, [(x.para, "mentor"), (x.mentor.para, "born")], "bridge"


def _person_mentor_university(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_mentor_edu", wiki.people, lambda x: has(x, "mentor") and has(x.mentor, "education")))
    m = person(rng, x, "occupation", "city", avoid=("mentor",))
    q = _q(rng, [f"Where did the [mentor|teacher] of {m} study?",
                 f"{x.name}'s [teacher|mentor] was educated at which [institution|school]?",
                 f"The person who [trained|taught] {m} [graduated from|studied at] which [institution|college]?"])
    return q, x.mentor.university, [(x.para, "mentor"), (x.mentor.para, "education")], "bridge"


def _person_employer_city(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_employer", wiki.people, lambda x: has(x, "employer")))
    m = person(rng, x, "occupation", "university", "work", avoid=("employer",))
    q = _q(rng, [f"In which {CITY} is the organization that {m} worked for based?",
                 f"{m} [worked for|was employed by] an organization headquartered in which {CITY}?",
                 f"Where is the [employer|organization] of {m} based?"])
    return q, x.employer.city.name, [(x.para, "employer"), (x.employer.para, "hq")], "bridge"


def _person_employer_founder(rng: random.Random, wiki: Wiki) -> Question:
    x = rng.choice(pool(wiki, "p_employer_founder", wiki.people, lambda x: has(x, "employer") and has(x.employer, "founder")))
    m = person(rng, x, "occupation", "city", "work", avoid=("employer",))
    q = _q(rng, [f"Who founded the organization that employed {m}?",
                 f"{m} worked for an organization set up by whom?",
                 f"[Name|Who was] the founder of {x.name}'s employer[.|?]"])
    return q, x.employer.founder.name, [(x.para, "employer"), (x.employer.para, "founder")], "bridge"


def _city_twin_landmark(rng: random.Random, wiki: Wiki) -> Question:
    c = rng.choice(pool(wiki, "c_twin_landmark", wiki.cities, lambda c: has(c, "twin") and has(c.twin, "landmark")))
    m = city(rng, c, "river", "country", avoid=("twin",))
    q = _q(rng, [f"What is the [best-known sight|main landmark|chief attraction] of the twin town of {m}?",
                 f"{m} is twinned with a {CITY} known for which [landmark|sight]?",
                 f"Which landmark draws visitors to the [sister city|twin town|partner town] of {m}?"])
    return q, c.twin.landmark, [(c.para, "twin"), (c.twin.para, "landmark")], "bridge"


def _city_twin_country(rng: random.Random, wiki: Wiki) -> Question:
    c = rng.choice(pool(wiki, "c_twin", wiki.cities, lambda c: has(c, "twin")))
    m = city(rng, c, "river", "landmark", avoid=("twin",))
    q = _q(rng, [f"In which country is the twin town of {m}?",
                 f"{m} has a [sister city|twin town|partner town] in which country?",
                 f"The [twin|partner] {CITY} of {m} lies in what country?"])
    return q, c.twin.country, [(c.para, "twin"), (c.twin.para, "intro")], "bridge"


# ------------------------------------------------------------------ comparison
def _distinct_pair(rng: random.Random, items, key) -> tuple:
    a, b = rng.sample(items, 2)
    while key(a) == key(b):
        a, b = rng.sample(items, 2)
    return a, b


def _cmp_born_first(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, wiki.people, lambda p: p.born)
    ma, mb = person(rng, a, "occupation", "city", "university"), person(rng, b, "occupation", "city", "university")
    q = _q(rng, [f"Who was born [first|earlier], {ma} or {mb}?", f"Which of {ma} and {mb} is [older|the elder]?",
                 f"Between {ma} and {mb}, who was born [earlier|first]?",
                 f"{ma} [or|versus] {mb}: [who is older|whose birth came first]?",
                 f"Was {ma} born before {mb}, or the other way round? Name the older one."])
    return q, (a if a.born < b.born else b).name, [(a.para, "born"), (b.para, "born")], "comparison"


def _cmp_died_first(rng: random.Random, wiki: Wiki) -> Question:
    dead = pool(wiki, "p_died", wiki.people, lambda x: has(x, "died"))
    a, b = _distinct_pair(rng, dead, lambda p: p.died)
    ma, mb = person(rng, a, "occupation", "city"), person(rng, b, "occupation", "city")
    q = _q(rng, [f"Who died [first|earlier], {ma} or {mb}?", f"Which of {ma} and {mb} [died|passed away] [first|earlier]?",
                 f"Of {ma} and {mb}, who [outlived|survived] the other? Name the one who died [first|earlier]."])
    return q, (a if a.died < b.died else b).name, [(a.para, "died"), (b.para, "died")], "comparison"


def _cmp_org_older(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, pool(wiki, "o_founded", wiki.orgs, lambda o: has(o, "founded")), lambda o: o.founded)
    ma, mb = org(rng, a, "industry", "city"), org(rng, b, "industry", "city")
    q = _q(rng, [f"Which was [established|founded|set up] first, {ma} or {mb}?",
                 f"Is {ma} or {mb} the older [organization|institution]?",
                 f"[Between|Of] {ma} and {mb}, which has the longer history?",
                 f"{ma} and {mb}: which [came|was founded] first?"])
    return q, (a if a.founded < b.founded else b).name, [(a.para, "founded"), (b.para, "founded")], "comparison"


def _cmp_org_staff(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, pool(wiki, "o_staff", wiki.orgs, lambda o: has(o, "staff")), lambda o: o.staff)
    ma, mb = org(rng, a, "industry", "city", "founded", avoid=("staff",)), org(rng, b, "industry", "city", "founded", avoid=("staff",))
    q = _q(rng, [f"Which employs more people, {ma} or {mb}?",
                 f"Does {ma} or {mb} have the larger [staff|workforce]?",
                 f"Of {ma} and {mb}, which is the bigger employer?"])
    return q, (a if a.staff > b.staff else b).name, [(a.para, "staff"), (b.para, "staff")], "comparison"


def _cmp_city_bigger(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, pool(wiki, "c_population", wiki.cities, lambda c: has(c, "population")), lambda c: c.population)
    ma, mb = city(rng, a, "river", "landmark", "country"), city(rng, b, "river", "landmark", "country")
    q = _q(rng, [f"Which {CITY} has more [inhabitants|residents|people], {ma} or {mb}?",
                 f"Is {ma} or {mb} the [more populous|bigger|larger] {CITY}?",
                 f"More people live in which [one|place]: {ma} or {mb}?",
                 f"Comparing {ma} with {mb}, which has the larger population?"])
    return q, (a if a.population > b.population else b).name, [(a.para, "population"), (b.para, "population")], "comparison"


def _cmp_city_older(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, pool(wiki, "c_founded", wiki.cities, lambda c: has(c, "founded")), lambda c: c.founded)
    ma, mb = city(rng, a, "river", "landmark", "country"), city(rng, b, "river", "landmark", "country")
    q = _q(rng, [f"Which {CITY} is older, {ma} or {mb}?", f"Was {ma} or {mb} founded first?",
                 f"Of {ma} and {mb}, which {CITY} [was founded|dates back] [earlier|further]?"])
    return q, (a if a.founded < b.founded else b).name, [(a.para, "founded"), (b.para, "founded")], "comparison"


def _cmp_city_hotter(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, pool(wiki, "c_climate", wiki.cities, lambda c: has(c, "climate")), lambda c: c.summer_temp)
    ma, mb = city(rng, a, "river", "landmark", "country"), city(rng, b, "river", "landmark", "country")
    q = _q(rng, [f"Which has hotter summers, {ma} or {mb}?",
                 f"Where do summer afternoons get warmer, in {ma} or in {mb}?",
                 f"Is {ma} or {mb} the hotter {CITY} in July?"])
    return q, (a if a.summer_temp > b.summer_temp else b).name, [(a.para, "climate"), (b.para, "climate")], "comparison"


def _cmp_work_earlier(rng: random.Random, wiki: Wiki) -> Question:
    a, b = _distinct_pair(rng, wiki.works, lambda w: w.year)
    ma, mb = work(rng, a, "language"), work(rng, b, "language")
    q = _q(rng, [f"Which [came out|appeared|was completed] first, {ma} or {mb}?",
                 f"Is {ma} older than {mb}? Name the earlier of the two.",
                 f"Of {ma} and {mb}, which is the [earlier|older] work?"])
    return q, (a if a.year < b.year else b).title, [(a.para, "year"), (b.para, "year")], "comparison"


def _cmp_work_longer(rng: random.Random, wiki: Wiki) -> Question:
    books = pool(wiki, "w_pages", wiki.works, lambda w: w.bookish and has(w, "pages"))
    a, b = _distinct_pair(rng, books, lambda w: w.pages)
    ma, mb = work(rng, a, "year", "language", avoid=("pages",)), work(rng, b, "year", "language", avoid=("pages",))
    q = _q(rng, [f"Which is longer, {ma} or {mb}?", f"Does {ma} or {mb} have more pages?",
                 f"Of {ma} and {mb}, which [runs to|has] more pages?"])
    return q, (a if a.pages > b.pages else b).title, [(a.para, "pages"), (b.para, "pages")], "comparison"


def _cmp_same_occupation(rng: random.Random, wiki: Wiki) -> Question:
    a = rng.choice(wiki.people)
    same = [p for p in wiki.people if p.occupation == a.occupation and p is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([p for p in wiki.people if p is not a])
    ma, mb = person(rng, a, "city", "university"), person(rng, b, "city", "university")
    q = _q(rng, [f"Are {ma} and {mb} both {a.occupation}s?",
                 f"Did {ma} and {mb} work in the same [profession|field|line of work]?",
                 f"Do {ma} and {mb} share a profession?",
                 f"Were {ma} and {mb} [in the same trade|colleagues by profession]?"])
    return q, "yes" if a.occupation == b.occupation else "no", [(a.para, "born"), (b.para, "born")], "comparison"


def _cmp_same_university(rng: random.Random, wiki: Wiki) -> Question:
    people = pool(wiki, "p_education", wiki.people, lambda x: has(x, "education"))
    a = rng.choice(people)
    same = [p for p in people if p.university == a.university and p is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([p for p in people if p is not a])
    ma, mb = person(rng, a, "city", "occupation"), person(rng, b, "city", "occupation")
    q = _q(rng, [f"Did {ma} and {mb} study at the same [institution|school|university]?",
                 f"Were {ma} and {mb} educated at the same place?",
                 f"Do {ma} and {mb} have the same alma mater?"])
    return q, "yes" if a.university == b.university else "no", [(a.para, "education"), (b.para, "education")], "comparison"


def _cmp_same_country(rng: random.Random, wiki: Wiki) -> Question:
    a = rng.choice(wiki.cities)
    same = [c for c in wiki.cities if c.country == a.country and c is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([c for c in wiki.cities if c is not a])
    ma, mb = city(rng, a, "river", "landmark"), city(rng, b, "river", "landmark")
    q = _q(rng, [f"Are {ma} and {mb} [located|found|situated] in the same country?",
                 f"Do {ma} and {mb} lie in [one|the same] country?",
                 f"Is {ma} in the same country as {mb}?",
                 f"Would you cross a border going from {ma} to {mb}?"])
    same_country = a.country == b.country
    answer = same_country if not q.startswith("Would") else not same_country
    return q, "yes" if answer else "no", [(a.para, "intro"), (b.para, "intro")], "comparison"


def _cmp_same_language(rng: random.Random, wiki: Wiki) -> Question:
    texts = pool(wiki, "w_language", wiki.works, lambda w: w.has_language and has(w, "language"))
    a = rng.choice(texts)
    same = [w for w in texts if w.language == a.language and w is not a]
    b = rng.choice(same) if same and rng.random() < 0.5 else rng.choice([w for w in texts if w is not a])
    ma, mb = work(rng, a, "year"), work(rng, b, "year")
    q = _q(rng, [f"Were {ma} and {mb} first published in the same language?",
                 f"Do {ma} and {mb} share an original language?",
                 f"Is {ma} in the same original language as {mb}?"])
    return q, "yes" if a.language == b.language else "no", [(a.para, "language"), (b.para, "language")], "comparison"


QUESTION_KINDS: tuple[Callable[[random.Random, Wiki], Question], ...] = (
    _work_creator_born, _work_creator_city, _work_creator_university, _work_creator_died, _work_premiere_country,
    _work_premiere_river, _org_founder_city, _org_founder_occupation, _org_founder_born, _org_hq_country,
    _org_hq_river, _org_founder_work, _person_city_river, _person_city_landmark, _person_city_founded,
    _person_work_year, _person_work_language, _person_mentor_city, _person_mentor_university,
    _person_employer_city, _person_employer_founder, _city_twin_landmark, _city_twin_country,
    _cmp_born_first, _cmp_died_first, _cmp_org_older, _cmp_org_staff, _cmp_city_bigger, _cmp_city_older,
    _cmp_city_hotter, _cmp_work_earlier, _cmp_work_longer, _cmp_same_occupation, _cmp_same_university,
    _cmp_same_country, _cmp_same_language,
)


def generate_hotpotqa(n: int, seed: int, n_distractors: int = 8) -> list[dict]:
    rng = random.Random(f"hotpotqa:{seed}")
    wiki = build_wiki(rng, n_people=max(40, n))
    pool = wiki.paragraphs()
    out, seen = [], set()
    while len(out) < n:
        question, answer, gold, qtype = rng.choice(QUESTION_KINDS)(rng, wiki)
        question = alt(question, rng)
        if question in seen:
            continue
        seen.add(question)
        gold_titles = {p.title for p, _ in gold}
        distractors: list[Paragraph] = []
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
