"""Easy HotpotQA items: a cloze-style single-hop question on one sentence of a gold paragraph (see rc1.data.builtin_easy)."""

from __future__ import annotations

import random

from rc1.data.builtin_vocab import alt
from rc1.data.builtin_easy_common import (
    ADJ, ANIMAL, ARTS, AWARD_A, AWARD_B, CHARACTERS, CLUBS, COUNTRIES, CRE_A, CRE_B, DISH_A, DISH_B, ERAS,
    FESTIVALS, FILMS, GENRES, INDUSTRY, LANDMARK, MATERIALS, MONTHS, MUSIC, NATS, NOUN, ORG, PARTIES, REGIONS,
    SPORTS, TERRAIN, TOWNS, WATERS, WRITERS, fix_articles, any_person, any_place, reword, any_title, any_year,
)


# ------------------------------------------------------------------ HotpotQA: one sentence, restated
# A fact: (title of its paragraph, intro sentence, fact sentence, question frames, answer). Each question frame
# keeps the fact's word order around the asked slot, as lookup questions in real data do.
def _hp_fact(rng: random.Random) -> tuple[str, str, str, list[str], str]:
    """(paragraph title, intro sentence, fact sentence, question frames, answer). The first frame keeps the
    fact's words and order and puts a wh-phrase where the answer was (most lookup questions in real data read
    so); the others reorder it."""
    k = rng.randrange(12 + len(_HP_EXTRA))
    if k >= 12:
        return _hp_extra(rng, _HP_EXTRA[k - 12])
    p, pl, y, nat, c = any_person(rng), any_place(rng), any_year(rng), rng.choice(NATS), rng.choice(COUNTRIES)
    reg = rng.choice(REGIONS)
    if k == 0:
        t, g, occ = any_title(rng), rng.choice(GENRES), rng.choice(WRITERS)
        sent = f"{t} is a {y} {g} by the {nat} {occ} {p}, set in the {reg} of {c} during the {rng.choice(ERAS)}."
        tail = sent.split(", set in ", 1)[1]
        return t, f"{t} is a {g}.", sent, [
            f"{t} is a {y} {g} by what {nat} {occ}, set in {tail[:-1]}?",
            f"Which {nat} {occ} wrote {t}, a {y} {g} set in {tail[:-1]}?"], p
    if k == 1:
        t, occ = any_title(rng), rng.choice(ARTS)
        sent = f"{p} is a {nat} {occ} who created {t} in {pl}, a town in the {reg} of {c}, in {y}."
        return p, f"{p} (born {y - rng.randint(25, 60)}) is a {nat} {occ}.", sent, [
            f"{p} is a {nat} {occ} who created {t} in {pl}, a town in the {reg} of {c}, in what year?",
            f"In what year did the {nat} {occ} {p} create {t} in {pl}?"], str(y)
    if k == 2:
        club, sp, home = f"{pl} {rng.choice(CLUBS)}", rng.choice(SPORTS), any_place(rng)
        sent = f"{club} is a {nat} {sp} club founded in {y} and based in the town of {home}."
        return club, f"{club} plays in the {nat} {sp} league.", sent, [
            f"{club} is a {nat} {sp} club founded in {y} and based in what town?",
            f"In what town is {club}, the {sp} club founded in {y}, based?"], home
    if k == 3:
        riv = f"{rng.choice(ADJ)} River" if rng.random() < 0.5 else f"River {any_place(rng)}"
        lake = f"Lake {any_place(rng)}"
        sent = f"The {riv} rises in the {rng.choice(TERRAIN)} of {c} and flows through {pl} before emptying into {lake}."
        return riv, f"The {riv} is a river in {c}.", sent, [
            sent.replace(f"into {lake}.", "into what lake?"),
            f"Into what lake does the {riv} empty after it flows through {pl}?"], lake
    if k == 4:
        org, city = f"{pl} {rng.choice(ORG)}", any_place(rng)
        sent = f"The {org} is a {nat} institution established in {y} by {p} and headquartered in the city of {city}."
        return org, f"The {org} has about {rng.randint(2, 90) * 10} staff.", sent, [
            sent.replace(f"the city of {city}.", "what city?"),
            f"What city is the {org}, established in {y} by {p}, headquartered in?"], city
    if k == 5:
        ind = rng.choice(INDUSTRY)
        sent = f"{pl} is a {rng.choice(TOWNS)} on the {rng.choice(WATERS)} in the {reg} of {c}, known for its {ind} industry."
        return pl, f"{pl} has a population of about {rng.randint(3, 300) * 1000:,}.", sent, [
            sent.replace(f" of {c},", " of what country,").replace(".", "?"),
            f"The town of {pl}, known for its {ind} industry, lies in the {reg} of what country?"], c
    if k == 6:
        t, occ = any_title(rng), rng.choice(MUSIC)
        award = f"{rng.choice(AWARD_A)} {rng.choice(AWARD_B)}"
        sent = f"In {y} the {nat} {occ} {p} won the {award} for the album {t}."
        return p, f"{p} is a {nat} {occ}.", sent, [
            f"In {y} the {nat} {occ} {p} won the {award} for what album?",
            f"For which album did {p} win the {award} in {y}?"], t
    if k == 7:
        lm = f"{pl} {rng.choice(LANDMARK)}"
        mat = rng.choice(MATERIALS)
        sent = f"The {lm} is a {mat} building designed by the {nat} architect {p} and completed in {y}."
        return lm, f"The {lm} stands in the old town of {pl}.", sent, [
            f"The {lm} is a {mat} building designed by what {nat} architect and completed in {y}?",
            f"Which architect designed the {lm}, completed in {y}?"], p
    if k == 8:
        t, f, star = any_title(rng), rng.choice(FILMS), any_person(rng)
        sent = f"{t} is a {y} {nat} {f} directed by {p} and starring {star} as a {rng.choice(CHARACTERS)}."
        return t, f"{t} was shot in {pl}.", sent, [
            sent.replace(f"directed by {p}", "directed by whom").replace(".", "?"),
            f"Who directed {t}, the {y} {nat} {f} starring {star}?"], p
    if k == 9:
        y2 = y + rng.randint(2, 14)
        party = rng.choice(PARTIES)
        sent = f"{p} was the {party} politician who served as mayor of {pl} from {y} to {y2}."
        return p, f"{p} was born in {c}.", sent, [
            f"Who was the {party} politician who served as mayor of {pl} from {y} to {y2}?",
            f"From {y} to {y2}, who served as mayor of {pl}?"], p
    if k == 10:
        cr, an, ter = f"{rng.choice(CRE_A)} {rng.choice(CRE_B)}", rng.choice(ANIMAL), rng.choice(TERRAIN)
        sent = f"The {cr} is a small species of {an} native to the {ter} in the {reg} of {c}."
        return cr, f"The {cr} was first described in {y}.", sent, [
            sent.replace(f" of {c}.", " of what country?"),
            f"The {cr}, a species of {an}, is native to the {ter} of which country?"], c
    fest, mon = rng.choice(FESTIVALS), rng.choice(MONTHS)
    sent = f"The {pl} {fest} festival, founded by {p}, has been held every {mon} since {y}."
    return f"{pl} {fest.title()} Festival", f"The {pl} {fest} festival draws visitors from across {c}.", sent, [
        f"The {pl} {fest} festival, founded by {p}, has been held every year in what month since {y}?",
        f"In what month has the {pl} {fest} festival been held every year since {y}?"], mon


# More fact kinds, each with its own vocabulary, written as phrase-grammar templates (rc1.data.builtin_vocab.alt):
# (title slot, intro template, fact template with {A} for the answer, wh-phrase replacing the answer, answer maker).
# The template is resolved once and the question is that same resolved sentence with the answer swapped for the
# wh-phrase, so the question restates its evidence word for word.
_INSTRUMENTS = ["violin", "oboe", "harp", "accordion", "lute", "clarinet", "bassoon", "zither", "mandolin", "viola",
                "trombone", "harpsichord", "bagpipes", "marimba", "dulcimer"]
_VESSELS = ["steamship", "schooner", "ferry", "icebreaker", "paddle steamer", "research vessel", "clipper", "tugboat",
            "lightship", "cargo liner", "frigate", "fishing trawler"]
_DISCOVERIES = ["a comet", "a new mineral", "an enzyme", "a fossil reef", "a sunken harbour", "a lost manuscript",
                "a species of orchid", "a bronze-age hoard", "an underground lake", "a variable star",
                "a vaccine for sheep pox", "a method of dating tree rings", "a glacier cave", "a Roman mosaic"]
_POSITIONS = ["goalkeeper", "striker", "winger", "centre-back", "playmaker", "full-back", "midfielder", "captain",
              "coxswain", "point guard", "fly-half", "pitcher"]
_SUBJECTS_U = ["botany", "naval architecture", "comparative law", "astronomy", "folk music", "mineralogy", "rhetoric",
               "hydraulic engineering", "medieval history", "tropical medicine", "phonetics", "glass chemistry",
               "forestry", "numismatics", "veterinary surgery", "cartography"]
_PEAK_KINDS = ["mountain", "volcano", "peak", "summit", "massif", "granite dome"]
_NEWS = ["Herald", "Courier", "Gazette", "Chronicle", "Observer", "Messenger", "Tribune", "Ledger", "Sentinel"]
_BRIDGES = ["suspension bridge", "stone arch bridge", "swing bridge", "viaduct", "cable-stayed bridge",
            "covered bridge", "footbridge", "railway bridge", "toll bridge"]
_RECIPES = ["dumplings", "flatbread", "stew", "pastry", "soup", "porridge", "pie", "sausage", "pickle", "cake",
            "noodle dish", "fish pie"]

_HP_EXTRA = [
    ("{P}", "{P} is a [celebrated|prolific|self-taught|largely forgotten|reclusive|] {N} {I}.",
     "{P} played the {I} in the {C} [Philharmonic|Symphony Orchestra|Chamber Ensemble|Radio Orchestra|Opera "
     "Orchestra] [for|over] [nearly|almost|more than|] {R} [years|seasons] [before|until] [retiring|leaving] to "
     "[teach|live|open a music school] in {A}.", "what [town|city]", "PLACE"),
    ("{V}", "The {V} is a {S} [built|launched] in {Y}.",
     "The {V}, a [wooden|steel|iron-hulled|twin-screw|] {S} [launched|built] at the {PL} [yards|docks|shipyard] in "
     "{Y}, [was commanded|was captained|sailed] [on her maiden voyage|for twenty years|through the war] by {A}.",
     "whom", "PERSON"),
    ("{P}", "{P} (born {Y0}) is a {N} [scientist|researcher|naturalist].",
     "In {Y} the {N} [scientist|researcher|naturalist] {P} [discovered|identified|described] {D} [near|outside|"
     "beneath|above] {A}, [a village|a valley|an island|a mining town] in the {REG} of {C}.",
     "what [place|location]", "PLACE"),
    ("{P}", "{P} is a {N} {SP} player.",
     "{P} [played|spent] [six|eight|eleven|twelve|fourteen] seasons as {POS} for {CLUB} [and|and then|and later] "
     "[coached|managed|went on to coach] the [youth|reserve|national|women's] team of {A}.",
     "what [country|nation]", "COUNTRY"),
    ("{P}", "{P} was a {N} [scholar|academic|professor].",
     "{P} [taught|lectured in|held the chair of] {SUBJ} at the [University|Polytechnic|Academy|College] of {PL} "
     "from {Y} and [wrote|published|edited] [a textbook|a standard survey|a dictionary|a field guide] [titled|called] "
     "{A}.", "what [book|work]", "TITLE"),
    ("Mount {SUR}", "Mount {SUR} is a {PK} in {C}.",
     "Mount {SUR}, [the highest|the second-highest|a snow-capped|a heavily glaciated] {PK} [of|in] the {H} "
     "[range|massif|uplands], was first [climbed|ascended|summited] in {Y} by [a party led by|the guide|the "
     "surveyor] {A}.", "whom", "PERSON"),
    ("{PL} {NEWS}", "The {PL} {NEWS} is a [daily|weekly|regional] newspaper.",
     "The {PL} {NEWS}, a [daily|weekly|Sunday|regional] newspaper [first printed|launched|founded] in {Y}, was "
     "[edited|run|owned] for [two|three|four] decades by {A}.", "whom", "PERSON"),
    ("{BR}", "The {BR} is a {BK} in {C}.",
     "The {BR}, a {BK} [spanning|crossing|over] the {RIV} [at|near|beside] {PL}, was [opened|completed|finished] "
     "in {A} [after|following] [four|six|nine|ten] years of [construction|work|building].", "what year", "YEAR"),
    ("{DISH}", "{DISH} is a {N} {REC}.",
     "{DISH} is a [traditional|festive|peasant|street|coastal] {REC} [from|of] {A}, [made|prepared|cooked] with "
     "<INGR> and <INGR> and [eaten|served|shared] [at|during|for] {OCC}.", "what [town|region|place]", "PLACE"),
    ("{P}", "{P} is a {N} [painter|artist|designer].",
     "The {N} [painter|artist|designer] {P} [covered|decorated|painted] the [ceiling|walls|dome|entrance hall] of the "
     "{PL} [railway station|opera house|town hall|public baths|central library] with [murals|frescoes|mosaics] of "
     "<NATURE> in {A}.", "what year", "YEAR"),
]


def _hp_extra(rng: random.Random, kind) -> tuple[str, str, str, list[str], str]:
    title_t, intro_t, fact_t, wh, ans_kind = kind
    pl = any_place(rng)
    slots = {"P": any_person(rng), "PL": pl, "Y": str(any_year(rng)), "Y0": str(any_year(rng, 1800, 1840)),
             "N": rng.choice(NATS), "C": rng.choice(COUNTRIES), "REG": rng.choice(REGIONS),
             "I": rng.choice(_INSTRUMENTS), "R": rng.choice(["ten", "twelve", "fifteen", "twenty", "thirty"]),
             "V": f"SS {rng.choice(ADJ)} {rng.choice(NOUN)}" if rng.random() < 0.5 else f"{any_place(rng)} {rng.choice(NOUN)}",
             "S": rng.choice(_VESSELS), "D": rng.choice(_DISCOVERIES), "SP": rng.choice(SPORTS),
             "POS": f"a {rng.choice(_POSITIONS)}", "CLUB": f"{any_place(rng)} {rng.choice(CLUBS)}",
             "SUBJ": rng.choice(_SUBJECTS_U), "SUR": any_person(rng).split()[-1], "PK": rng.choice(_PEAK_KINDS),
             "H": any_place(rng), "NEWS": rng.choice(_NEWS), "BR": f"{any_place(rng)} Bridge", "BK": rng.choice(_BRIDGES),
             "RIV": f"{rng.choice(ADJ)} River", "DISH": rng.choice(DISH_A) + rng.choice(DISH_B) + rng.choice(["", "ka", "li", "ne"]),
             "REC": rng.choice(_RECIPES), "OCC": rng.choice(["weddings", "harvest time", "midwinter", "funerals", "name days",
                                                            "market days", "christenings", "the spring fair",
                                                            "carnival", "the first snowfall", "Easter"])}
    answer = {"PLACE": any_place, "PERSON": any_person, "COUNTRY": lambda r: r.choice(COUNTRIES), "TITLE": any_title,
              "YEAR": lambda r: str(any_year(r))}[ans_kind](rng)
    if ans_kind == "PERSON":
        slots["P"] = answer
    slots["A"] = "\x00"
    fact = alt(fact_t.format(**slots), rng)
    sent = fix_articles(fact.replace("\x00", answer))
    question = fact.replace("\x00", alt(wh, rng).lower())
    if question.endswith("."):
        question = question[:-1] + "?"
    title = title_t.format(**slots)
    intro = alt(intro_t.format(**slots), rng)
    return title, intro, sent, [fix_articles(question), fix_articles(question)], answer


def _hp_paragraph(rng: random.Random) -> tuple[str, list[str], int, list[str], str]:
    """(title, sentences, index of the fact sentence, question frames, answer)."""
    title, intro, sent, frames, answer = _hp_fact(rng)
    intro, sent, *frames = [fix_articles(t) for t in reword(rng, [intro, sent, *frames])]
    if rng.random() < 0.5:
        return title, [intro, " " + sent], 1, frames, answer
    return title, [sent, " " + intro], 0, frames, answer


def generate_easy_hotpotqa(n: int, seed: int, n_distractors: int = 6) -> list[dict]:
    rng = random.Random(f"easy-hotpotqa|{seed}")
    out = []
    while len(out) < n:
        title, sents, idx, frames, answer = _hp_paragraph(rng)
        context = [[title, sents]]
        titles = {title}
        while len(context) < 1 + n_distractors:
            t, s, _, _, _ = _hp_paragraph(rng)
            if t not in titles:
                titles.add(t)
                context.append([t, s])
        rng.shuffle(context)
        out.append({"_id": f"easy-{len(out):05d}", "question": frames[0] if rng.random() < 0.85 else rng.choice(frames[1:]), "answer": answer,
                    "supporting_facts": [[title, idx]], "context": context, "type": "bridge", "level": "easy"})
    return out
