"""Easy HotpotQA items: a cloze-style single-hop question on one sentence of a gold paragraph (see rc1.data.builtin_easy).

Each fact kind (a novel, a bridge, a treaty, a comet ...) has a few intro sentences and a few fact frames written in
the phrase grammar of rc1.data.builtin_vocab.alt. A frame marks the asked slot as «sentence part|question part»:
the frame is resolved once, then the sentence keeps the left part (with the answer) and the question the right one
(a wh-phrase in the answer's place, or a fronted 'Who'/'Which ...' when the answer is the subject). So the question
restates its supporting sentence word for word around the asked slot, as lookup questions in real data do, while
the family as a whole spreads over many domains, frames and wordings. A slot may span the clause it sits in, so a
question can front its wh-word ('When did ... first appear', 'Which engineer designed ...'); [a|b] groups inside it
resolve alike on both sides.
"""

from __future__ import annotations

import random
import re

from rc1.data.builtin_easy_common import (
    ADJ, ANIMAL, ARTS, AWARD_A, AWARD_B, CHARACTERS, CLUBS, COUNTRIES, CRE_A, CRE_B, DISH_A, DISH_B, ERAS,
    FESTIVALS, FILMS, FOODS, GENRES, INDUSTRY, LANDMARK, MATERIALS, MONTHS, MUSIC, NATS, NOUN, ORG, PARTIES, REGIONS,
    SCIENCE, SPORTS, TERRAIN, TOWNS, WATERS, WRITERS, any_person, any_place, any_title, any_year, fix_articles,
)
from rc1.data.builtin_vocab import (
    BUILDINGS, DISASTERS, DISTRICTS, FIRST_NAMES, HILL_KINDS, JOBS, LANGUAGES, NICKNAMES, PAPER_KINDS, PRODUCTS, STORES,
    SURNAME_FOREIGN, alt, surname,
)

# ------------------------------------------------------------------ vocabulary of the fact kinds
_INSTRUMENTS = ["violin", "oboe", "harp", "accordion", "lute", "clarinet", "bassoon", "zither", "mandolin", "viola",
                "trombone", "harpsichord", "bagpipes", "marimba", "dulcimer", "French horn", "double bass", "flute"]
_VESSELS = ["steamship", "schooner", "ferry", "icebreaker", "paddle steamer", "research vessel", "clipper", "tugboat",
            "lightship", "cargo liner", "frigate", "fishing trawler", "mail packet", "sailing barge", "whaler"]
_DISCOVERIES = ["a comet", "a new mineral", "an enzyme", "a fossil reef", "a sunken harbour", "a lost manuscript",
                "a species of orchid", "a bronze-age hoard", "an underground lake", "a variable star",
                "a vaccine for sheep pox", "a method of dating tree rings", "a glacier cave", "a Roman mosaic",
                "a hot spring", "a burial mound", "a seam of coal", "a colony of rare bats", "a meteorite"]
_POSITIONS = ["goalkeeper", "striker", "winger", "centre-back", "playmaker", "full-back", "midfielder", "captain",
              "coxswain", "point guard", "fly-half", "pitcher", "wicketkeeper", "defender"]
_SUBJECTS_U = ["botany", "naval architecture", "comparative law", "astronomy", "folk music", "mineralogy", "rhetoric",
               "hydraulic engineering", "medieval history", "tropical medicine", "phonetics", "glass chemistry",
               "forestry", "numismatics", "veterinary surgery", "cartography", "mining engineering", "viticulture",
               "oceanography", "economic history", "agronomy", "classical philology"]
_PEAK_KINDS = ["mountain", "volcano", "peak", "summit", "massif", "granite dome"]
_BRIDGES = ["suspension bridge", "stone arch bridge", "swing bridge", "viaduct", "cable-stayed bridge",
            "covered bridge", "footbridge", "railway bridge", "toll bridge"]
_RECIPES = ["dumplings", "flatbread", "stew", "pastry", "soup", "porridge", "pie", "sausage", "pickle", "cake",
            "noodle dish", "fish pie", "casserole", "sweet bread", "fritter"]
_OCCASIONS = ["weddings", "harvest time", "midwinter", "funerals", "name days", "market days", "christenings",
              "the spring fair", "carnival", "the first snowfall", "Easter", "New Year"]
_LORDS = ["count", "duke", "bishop", "prince-bishop", "margrave", "abbot", "baron", "king"]
_BOSSES = ["merchant", "industrialist", "banker", "heiress", "shipowner", "mill owner", "brewer", "landowner"]
_OFFICIALS = ["diplomat", "foreign minister", "envoy", "chancellor", "ambassador"]
_SCHOLARS = ["missionary", "linguist", "schoolteacher", "priest", "philologist"]
_BOOK_KINDS = ["textbook", "handbook", "standard survey", "dictionary", "field guide", "three-volume history"]
_CLIMBERS = ["surveyor", "mountain guide", "army officer", "schoolmaster", "geologist", "priest"]
_GARDENERS = ["landscape architect", "head gardener", "botanist", "garden designer"]
_COLLECTIONS = ["orchids", "cacti", "ferns", "roses", "alpine plants", "palms", "tulips", "carnivorous plants",
                "rhododendrons", "medicinal herbs", "water lilies", "bonsai trees"]
_BREED_KINDS = ["hound", "terrier", "sheepdog", "pony", "draught horse", "mastiff", "spaniel", "goat", "sheep"]
_BREED_USES = ["herding sheep", "hunting otters", "pulling barges", "guarding farms", "carrying mail", "hauling timber",
               "catching rats", "driving cattle", "pulling sledges", "tracking deer"]
_MILK = ["goats", "sheep", "cows", "buffalo", "reindeer"]
_CHEESES = ["soft", "hard", "blue", "smoked", "crumbly", "washed-rind", "brined"]
_SERIES = ["drama", "comedy", "crime series", "soap opera", "historical drama", "sitcom", "police procedural",
           "medical drama", "children's series"]
_SONGS = ["folk song", "protest song", "hymn", "lullaby", "drinking song", "sea shanty", "marching song", "ballad"]
_PAINTINGS = ["oil painting", "watercolour", "altarpiece", "portrait", "triptych", "landscape painting",
              "group portrait", "still life"]
_MUSEUM_TOPICS = ["Clocks", "Maps", "Glass", "Toys", "Printing", "Seafaring", "Folk Costume", "Mining", "Textiles",
                  "Musical Instruments", "Photography", "Natural History", "Railways", "Salt", "Bread"]
_SCHOOL_KINDS = ["Grammar School", "Academy", "High School", "Lyceum", "School for Girls", "Trade School"]
_HEADS = ["principal", "director", "head teacher", "rector"]
_EXPLORER_GOALS = ["cross", "map", "traverse", "survey"]
_TRAVEL = ["on foot", "by sledge", "on horseback", "by canoe", "on skis", "by balloon"]
_WARS = ["war", "border dispute", "trade war", "succession war", "fishing dispute"]
_AGES = ["nine", "eleven", "twelve", "fourteen", "sixteen", "seventeen"]
_NUMW = ["three", "four", "five", "six", "seven", "eight", "nine", "eleven", "twelve", "fourteen"]
_STATUS = ["vulnerable", "endangered", "near threatened", "common", "critically endangered", "rare"]
_RAIL = ["narrow-gauge", "single-track", "mountain", "rack", "branch", "coastal"]
_GROUNDS = ["Ground", "Stadium", "Park", "Arena", "Field", "Oval"]
_VENUES = ["Opera House", "Court Theatre", "Grand Theatre", "Playhouse", "Music Hall", "Royal Theatre"]
_CHANNELS = ["public television", "a regional channel", "national radio", "a cable channel", "the state broadcaster"]
_COASTS = ["north coast", "south coast", "rocky coast", "western shore", "eastern seaboard", "windward coast"]
_JOINS = ["the sea", "a tidal estuary", "a broad lagoon", "the delta"]

_CRE_B = [w for w in CRE_B if w not in ("Warbler", "Finch", "Vole", "Newt", "Shrike", "Gecko", "Loach", "Marten", "Plover")]
_LANDMARKS = [w for w in LANDMARK if w not in ("Botanical Garden", "Lighthouse")]


def _year(rng, s) -> str:
    return str(any_year(rng))


def _later(rng, s) -> str:
    return str(int(s["YM"] if "YM" in s else s["Y"]) + rng.randint(2, 14))


def _modern(rng, s) -> str:
    return str(any_year(rng, 1955, 2015))


def _answer_modern(rng, s) -> str:
    s["YA"] = _modern(rng, s)
    return s["YA"]


def _born(rng, s) -> str:
    return str(int(s.get("YA") or s["Y"]) - rng.randint(25, 60))


def _answer_year(rng, s) -> str:
    s["YA"] = str(any_year(rng))
    return s["YA"]


def _sur_person(rng, s) -> str:
    return f"{rng.choice(FIRST_NAMES)} {s['SUR']}"


def _choice(options):
    return lambda rng, s: rng.choice(options)


# Slot fillers, drawn lazily the first time a frame names the slot (so an item draws only what it uses, and the
# same slot name is the same value everywhere in the item: title, intro and fact agree).
_GEN = {
    "P": lambda r, s: any_person(r), "P2": lambda r, s: any_person(r), "PERSON": lambda r, s: any_person(r),
    "PL": lambda r, s: any_place(r), "PL2": lambda r, s: any_place(r), "PLACE": lambda r, s: any_place(r),
    "C": _choice(COUNTRIES), "C2": _choice(COUNTRIES), "COUNTRY": _choice(COUNTRIES), "N": _choice(NATS),
    "REG": _choice(REGIONS), "Y": _year, "Y2": _later, "Y0": _born, "YEAR": _answer_year, "YM": _modern, "YEARM": _answer_modern,
    "T": lambda r, s: any_title(r), "TITLE": lambda r, s: any_title(r), "SUR": lambda r, s: surname(r),
    "SURP": _sur_person, "FIRST": _choice(FIRST_NAMES), "MONTH": _choice(MONTHS),
    "GENRE": _choice(GENRES), "FILM": _choice(FILMS), "ART": _choice(ARTS), "WRITER": _choice(WRITERS),
    "MUSIC": _choice(MUSIC), "SCI": _choice(SCIENCE), "SPORT": _choice(SPORTS), "IND": _choice(INDUSTRY),
    "ERA": _choice(ERAS), "TOWN": _choice(TOWNS), "WATER": _choice(WATERS), "CHAR": _choice(CHARACTERS),
    "PARTY": _choice(PARTIES), "TERRAIN": _choice(TERRAIN), "ANIMAL": _choice(ANIMAL), "MAT": _choice(MATERIALS),
    "FEST": _choice(FESTIVALS), "JOB": _choice(JOBS), "LANG": _choice(LANGUAGES), "STORE": _choice(STORES),
    "DISTRICT": _choice(DISTRICTS), "BUILDING": _choice(BUILDINGS), "DISASTER": _choice(DISASTERS),
    "PRODUCT": _choice(PRODUCTS), "I": _choice(_INSTRUMENTS), "S": _choice(_VESSELS), "D": _choice(_DISCOVERIES),
    "POS": _choice(_POSITIONS), "SUBJ": _choice(_SUBJECTS_U), "SUBJECT": _choice(_SUBJECTS_U),
    "PK": _choice(_PEAK_KINDS), "BK": _choice(_BRIDGES), "REC": _choice(_RECIPES), "OCC": _choice(_OCCASIONS),
    "LORD": _choice(_LORDS), "BOSS": _choice(_BOSSES), "OFFICIAL": _choice(_OFFICIALS), "SCHOLAR": _choice(_SCHOLARS),
    "BOOKK": _choice(_BOOK_KINDS), "CLIMBER": _choice(_CLIMBERS), "GARDENER": _choice(_GARDENERS),
    "COLLECTION": _choice(_COLLECTIONS), "BREEDK": _choice(_BREED_KINDS), "USE": _choice(_BREED_USES),
    "MILK": _choice(_MILK), "CHEESE": _choice(_CHEESES), "SERIES": _choice(_SERIES), "SONG": _choice(_SONGS),
    "PAINTING": _choice(_PAINTINGS), "MUSE": _choice(_MUSEUM_TOPICS), "SCHOOLK": _choice(_SCHOOL_KINDS),
    "HEAD": _choice(_HEADS), "GOAL": _choice(_EXPLORER_GOALS), "TRAVEL": _choice(_TRAVEL), "WAR": _choice(_WARS),
    "AGE": _choice(_AGES), "NUMW": _choice(_NUMW), "STATUS": _choice(_STATUS), "RAIL": _choice(_RAIL),
    "GROUNDK": _choice(_GROUNDS), "VENUE": _choice(_VENUES), "CHANNEL": _choice(_CHANNELS), "COAST": _choice(_COASTS),
    "JOIN": _choice(_JOINS), "FOODH": lambda r, s: r.choice(FOODS["herbivore"] + FOODS["carnivore"]),
    "INGR": _choice(["lentils", "rice", "buckwheat", "chickpeas", "smoked fish", "lamb", "goat cheese", "chestnuts",
                     "cabbage", "barley", "sour cherries", "mushrooms", "beets", "plums", "walnuts", "eel"]),
    "NUM2": lambda r, s: str(r.randint(12, 95)), "NUM3": lambda r, s: str(r.randint(110, 980)),
    "PERIOD": lambda r, s: str(r.choice([5, 6, 7, 8, 11, 13, 33, 57, 71, 76, 88, 112, 133])),
    "POP": lambda r, s: f"{r.randint(3, 300) * 1000:,}",
    "CLUB": lambda r, s: f"{any_place(r)} {r.choice(CLUBS)}", "CLUB2": lambda r, s: f"{any_place(r)} {r.choice(CLUBS)}",
    "ORGN": lambda r, s: f"{any_place(r)} {r.choice(ORG)}", "LM": lambda r, s: f"{s['PL']} {r.choice(_LANDMARKS)}",
    "AWARD": lambda r, s: f"{r.choice(AWARD_A)} {r.choice(AWARD_B)}",
    "CR": lambda r, s: f"{r.choice(CRE_A)} {r.choice(_CRE_B)}",
    "RIV": lambda r, s: r.choice([f"{r.choice(ADJ)} River", f"River {any_place(r)}", f"{any_place(r)} River"]),
    "RIV2": lambda r, s: f"{r.choice(ADJ)} River",
    "LAKE": lambda r, s: f"Lake {any_place(r)}",
    "V": lambda r, s: f"SS {r.choice(ADJ)} {r.choice(NOUN)}" if r.random() < 0.5 else f"{any_place(r)} {r.choice(NOUN)}",
    "NEWS": lambda r, s: f"{any_place(r)} {r.choice(PAPER_KINDS)}",
    "HILLS": lambda r, s: f"{any_place(r)} {r.choice(HILL_KINDS)}",
    "DISH": lambda r, s: r.choice(DISH_A) + r.choice(DISH_B) + r.choice(["", "ka", "li", "ne"]),
    "UNI": lambda r, s: r.choice([f"University of {s['PL']}", f"{s['PL']} Polytechnic", f"{s['PL']} College"]),
    "ISL": lambda r, s: r.choice([f"{any_place(r)} Island", f"Isle of {any_place(r)}"]),
    "MAG": lambda r, s: r.choice([f"The {any_place(r)} Review", f"{r.choice(ADJ)} {r.choice(NOUN)} Magazine"]),
    "FIRM": lambda r, s: r.choice([f"{surname(r)} & Sons", f"{surname(r)} Brothers", f"{any_place(r)} Works"]),
    "GARDEN": lambda r, s: f"{any_place(r)} {r.choice(['Botanical Garden', 'Park', 'Arboretum', 'Physic Garden'])}",
    "BREED": lambda r, s: f"{any_place(r)} {s['BREEDK']}",
    "SCHOOL": lambda r, s: f"{any_place(r)} {s['SCHOOLK']}",
    "STAD": lambda r, s: f"{surname(r)} {s['GROUNDK']}",
    "FOREIGN": _choice(SURNAME_FOREIGN),
}


class _Slots(dict):
    def __init__(self, rng: random.Random):
        super().__init__()
        self.rng = rng

    def __missing__(self, key):
        value = _GEN[key](self.rng, self)
        self[key] = value
        return value


# A kind: (title, intro frames, fact frames as (answer slot, frame)). In a frame, {SLOT}s are filled from _GEN,
# {A} is the answer and «sentence part|question part» the asked slot.
_KINDS: list[tuple[str, list[str], list[tuple[str, str]]]] = [
    ("{T}", ["{T} is a <AWORK>{GENRE} [first published|that first appeared] in {PL2}.",
             "{T} has been translated into [eleven|several|nine|twenty|more than thirty] languages.",
             "[Critics in {PL2}|Early reviewers|Readers in {C}] [praised|disliked|largely ignored] {T} when it "
             "[appeared|came out].", "{T} [was adapted for|became] a [radio play|stage play|film] in {Y2}."], [
        ("PERSON", "{T} is a {Y} {GENRE} by «the {N} {WRITER} {A}|[which|what] {N} {WRITER}», set in {REGC} "
                   "[during|in the time of|in the years of] the {ERA}."),
        ("PERSON", "[Written|Published|Begun] in {Y}, {T} is a <AWORK>{GENRE} by «the {N} {WRITER} {A}|[what|which] "
                   "{N} {WRITER}» about a {CHAR} [who returns to|stranded in|growing up in|hiding out in] {PL}."),
        ("PERSON", "«The {N} {WRITER} {A}|[Which|What] {N} {WRITER}» [wrote|completed|published|began] {T}, a {GENRE} "
                   "[set in|about] {PL}, in {Y}?"),
        ("PLACE", "{T}, a {GENRE} by {P}, [follows|tells the story of|is narrated by] a {CHAR} [in|from] «the "
                  "{TOWN} of {A}|[what|which] {TOWN}» [during|in] the {ERA}."),
        ("PERSON", "«{A}|Who» [translated|first translated] {T}, a {GENRE} by {P2}, into {LANG} in {Y}?"),
        ("PLACE", "{P} [wrote|finished|drafted] the {GENRE} {T} while [living|staying|teaching] in «{A}|which "
                  "[town|city]» [in|during] the {ERA}."),
        ("YEARY", "«{T}, the {GENRE} that made {P}'s name, first appeared in {A}|When did {T}, the {GENRE} that "
                  "made {P}'s name, first appear», [two years|a decade|shortly] after [its author|{P}] moved to "
                  "{PL2}."),
    ]),
    ("{P}", ["{P} (born {Y0}) is a {N} {ART}.", "{P} [trained|studied|apprenticed] in {PL2} [before moving abroad|"
             "under a local master|at the academy there|with an uncle].",
             "{P} is [known|best known|remembered] for [large|small|intimate|monumental|unsettling] works about "
             "<NATURE>.",
             "{P}'s [prints|drawings|canvases] [are held|can be seen] in the {STORE} of {PL2}."], [
        ("YEAR", "{P} is a {N} {ART} who created {T} in {PL}, a [town|village|port] in {REGC}, «in {A}|in "
                 "[what|which] year»."),
        ("YEAR", "The {N} {ART} {P} [completed|finished|made] the [series|cycle|work] {T} «in {A}|in [which|what] "
                 "year» [while living in|during a stay in|after settling in|on a visit to] {PL}."),
        ("PLACE", "{P}, a {N} {ART}, [spent|passed] the [years|decade] after {Y} in «the {TOWNQ} of {A}|which "
                  "{TOWNQ}», [making|working on|finishing] {T} there."),
        ("PERSON", "«{A}|Who» taught the {N} {ART} {P} at the academy in {PL}, [starting|beginning] in {Y}?"),
        ("TITLE", "«{P}'s best-known work is {A}|What is {P}'s best-known work», [a|an unusually] "
                  "[large|small|striking] piece [made|finished] in {PL} in {Y}."),
        ("PLACE", "«{P}, the {N} {ART} whose {T} hangs in {PL2}, was born in {A}|Where was {P}, the {N} {ART} whose "
                  "{T} hangs in {PL2}, born»."),
    ]),
    ("{CLUB}", ["{CLUB} [plays|competes] in the {N} {SPORT} league.", "{CLUB} plays in {COLOUR_PAIR} shirts.",
                "{CLUB} has [never|twice|once|three times] been relegated.",
                "The supporters of {CLUB} are [nicknamed|known as] the [Millers|Gulls|Foxes|Herons|Bakers|Badgers]."], [
        ("PLACE", "{CLUB} is a {N} {SPORT} club [founded|formed|established] in {Y} and based in «the town of "
                  "{A}|[what|which] town»."),
        ("PLACE", "[Founded|Formed] in {Y}, {CLUB} plays its home [games|matches] at the {STAD} in «{A}|[which|what] "
                  "town»."),
        ("YEARQ", "{CLUB}, a {SPORT} club from {PL2}, [won|took|claimed] its first [national title|league "
                  "title|cup] «in {A}|in [what|which] year» under the [coach|manager] {P}."),
        ("PERSON", "«The {JOB} {A}|[Which|What] {JOB}» [founded|started] {CLUB} in {Y} together with [a group of|some] "
                   "[dock workers|students|miners|railwaymen|factory girls]?"),
        ("PERSON", "«{A}|Who» [coached|managed] {CLUB} to [promotion|the {N} cup|a league title] in {Y} after "
                   "[years|a decade] in the lower divisions?"),
        ("COLOUR_PAIRQ", "Since {Y}, {CLUB}, [the|a] {SPORT} club [of|from] {PL2}, [have|has] played [home "
                         "games|at home] in «{A}|what colours»."),
    ]),
    ("{RIV}", ["The {RIV} is a [river|shallow river|fast-flowing river] in {C}.",
               "The {RIV} is about {NUM3} kilometres long.",
               "The {RIV} [was|has long been] [an important trade route|a source of power for mills|a good fishing "
               "river|prone to spring floods].",
               "Salmon [return to|still run up] the {RIV} [each autumn|every spring]."], [
        ("LAKE", "The {RIV} rises in the {TERRAIN} of {C} and [flows|runs|winds] through {PL} before "
                 "[emptying|draining] into «{A}|[what|which] lake»."),
        ("PLACE", "The {RIV} [is crossed|is spanned] by [eleven|seven|a dozen|nine] bridges in «the city of {A}|[what|"
                  "which] city», where it [meets|joins] the {RIV2}."),
        ("COUNTRY", "[For|Over] [most|much] of its [course|length] the {RIV} [marks|forms] the border between {C2} and "
                    "«{A}|[which|what] country»."),
        ("PLACE", "The {RIV} [reaches|meets] {JOIN} at «{A}|[what|which] port», [some|about] {NUM3} kilometres from "
                  "its source in the {TERRAIN}."),
        ("PLACE", "The {RIV} rises near «{A}|which village», [high|deep] in the {TERRAIN} [above|beyond] {PL2}."),
        ("PERSON", "«{A}|Who» [first charted|mapped] the whole course of the {RIV}, [travelling|paddling] "
                   "[downstream|upstream] [in|during] the summer of {Y}?"),
    ]),
    ("{ORGN}", ["The {ORGN} has about {NUM3} [staff|employees|members].",
                "The {ORGN} [publishes|issues] [an annual report|a yearbook|a quarterly bulletin].",
                "The {ORGN} [is funded|is run] [by|through] [a private trust|members' fees|the state]."], [
        ("PLACE", "The {ORGN} is a {N} [institution|body|organisation] established in {Y} by {P} and headquartered "
                  "in «the city of {A}|[what|which] city»."),
        ("PERSON", "«The {IND} {BOSS} {A}|Which {IND} {BOSS}» [founded|set up|endowed] the {ORGN} in {Y}, [shortly|a "
                   "year|soon] after [moving|retiring] to {PL2}?"),
        ("YEARQ", "The {ORGN} has [awarded|run|held] an annual [prize|survey|lecture] on <TOPIC> [since|ever since] "
                  "«{A}|[what|which] year»."),
        ("PERSON", "«{A}|Who» [has led|has directed|heads] the {ORGN}, a body [devoted to|that promotes] <TOPIC>, "
                   "since {YM}?"),
        ("BUILDINGQ", "Since {Y}, the {ORGN} has been housed in «a former {A}|what former building» in {PL}."),
    ]),
    ("{PL}", ["{PL} has a population of about {POP}.", "{PL} [lies|sits] about {NUM3} metres above sea level.",
              "{PL} is the seat of {PL2} district.", "{PL} [is|has been] linked to {PL2} by a [ferry|tram|bus] "
              "line since {Y2}.",
              "{PL} [grew up|grew] around a [crossing|harbour|monastery|market] on the {RIV}.",
              "{PL} is [often|sometimes] [called|nicknamed] {NICK}."], [
        ("COUNTRY", "{PL} is a {TOWN} on the {WATER} in the {REG} of «{A}|[what|which] country», known for its {IND} "
                    "industry."),
        ("PLACE", "{PL}, a {TOWN} [famous|known] for its {IND}, has been twinned since {Y} with «the town of "
                  "{A}|[which|what] town» in {C}."),
        ("PERSON", "«The {LORD} {A}|Which {LORD}» granted the {TOWN} of {PL} its charter in {Y}?"),
        ("YEARQ", "{PL}, a {TOWN} in {REGC}, was [largely destroyed|badly damaged] by {DISASTER} «in {A}|in "
                  "[what|which] year»."),
        ("PERSON", "«{A}|Who» [founded|built] the first [mill|printing press|school] in {PL}, a {TOWN} [on|near] "
                   "the {RIV}, in {Y}?"),
        ("NICKQ", "{PL}, a {TOWN} [known|famous] for its {IND}, is [often|widely] known «as {A}|by what nickname»."),
    ]),
    ("{P}", ["{P} is a {N} {MUSIC}.", "{P} began performing [in the clubs of|on the streets of|in the churches of] "
             "{PL2} at the age of {AGE}.", "{P} has [so far|] released {NUMW} albums.",
             "[Born in|Raised in] {PL2}, {P} [learned|picked up] music [by ear|from records|in a church choir]."], [
        ("TITLE", "In {YM} the {N} {MUSIC} {P} [won|received|was given] the {AWARD} for «the album {A}|[what|which] "
                  "album»."),
        ("YEARM", "{P}'s [debut|third|fourth|breakthrough] album, {T}, was [recorded|made] in {PL} and [released|"
                  "issued] «in {A}|in [which|what] year»."),
        ("PLACE", "The {N} {MUSIC} {P} recorded the album {T} [in a converted|in an old|inside a disused] [chapel|"
                  "barn|warehouse|lighthouse] [in|near|outside] «the {TOWNQ} of {A}|which {TOWNQ}»."),
        ("PERSON", "«{A}|Who» produced {T}, the [debut|second|fourth] album of the {N} {MUSIC} {P}, in {PL} in {YM}?"),
        ("INSTRQ", "The {N} {MUSIC} {P} grew up playing «the {A}|which instrument» [in|around] {PL2}."),
    ]),
    ("{LM}", ["The {LM} stands in the {DISTRICT} of {PL}.", "The {LM} is open to visitors [in summer|all year|on "
              "Sundays].", "The {LM} [was restored|was renovated|was repainted] after {Y2}.",
              "Postcards of the {LM} [were|have been] sold [since|from] the {ERA}."], [
        ("PERSON", "The {LM} is a {MAT} building designed by «the {N} architect {A}|[which|what] {N} architect» and "
                   "[completed|finished] in {Y}."),
        ("MATERIAL", "The {LM}, [completed|finished] in {Y}, was built [entirely|almost entirely|mostly] of «{A}|[what|"
                     "which] material»."),
        ("YEARQ", "The {LM} was [badly damaged|partly destroyed|gutted] by {DISASTER} «in {A}|in [what|which] year» "
                  "and [rebuilt|restored] [by|under] {P}."),
        ("PERSON", "«{A}|Who» [carved|made] the [great clock|bronze doors|statues] of the {LM}, "
                   "[completed|finished] in {Y}?"),
        ("PERSON", "«{A}|Who» [paid for|funded] the [rebuilding|restoration] of the {LM} after {DISASTER} in {Y}?"),
    ]),
    ("{T}", ["{T} premiered in {PL2}.", "{T} [runs for|has a running time of] {MIN} minutes.",
             "{T} was [a box-office success|a modest success|a commercial failure] in {C}.",
             "{T} was [remade|adapted for television] in {Y2}."], [
        ("PERSON", "{T} is a {YM} {N} {FILM} directed by «{A}|whom» and starring {P2} as a {CHAR}."),
        ("PERSON", "{P2} [plays|played] a {CHAR} in {T}, a {YM} {FILM} [directed|shot] by «{A}|whom» [on location in|"
                   "in and around] {PL}."),
        ("PLACE", "{T}, a {FILM} directed by {P} in {YM}, was [shot|filmed] [largely|entirely|mostly] [on location|] "
                  "in «the {TOWNQ} of {A}|which {TOWNQ}»."),
        ("PERSON", "«{A}|Who» wrote the screenplay for {T}, a {YM} {FILM} [set|shot] in {PL}?"),
        ("AWARDQ", "{T}, a {FILM} directed by {P} in {YM}, won «the {A}|which award» at the {PL2} film festival."),
    ]),
    ("{P}", ["{P} was born in {C}.", "{P} [trained|worked] as a {JOB} before entering politics.",
             "{P} [later|afterwards] sat in the national parliament [for|representing] {PL2}."], [
        ("PERSON", "«{A}|Who» was the {PARTY} politician who served as mayor of {PL} from {Y} to {Y2}?"),
        ("PLACE", "{P}, a {PARTY} politician, served as mayor of «the {TOWNQ} of {A}|which {TOWNQ}» from {Y} to {Y2}."),
        ("YEARQ", "The {PARTY} politician {P} [was elected|became] mayor of {PL} «in {A}|in [what|which] year» "
                  "[after|following] [a narrow|a bitter|a surprise] [election|contest|campaign]."),
        ("PARTYQ", "The politician {P}, mayor of {PL} from {Y} to {Y2}, [stood|sat] for «the {A} party|which party»."),
        ("PERSON", "«{A}|Who» [defeated|beat] the {PARTY} [candidate|mayor] {P} in the {Y} mayoral election in "
                   "{PL}?"),
    ]),
    ("{CR}", ["The {CR} [is listed as|is considered] {STATUS}.", "The {CR} grows to about {NUM2} centimetres [long|in "
              "length].", "The {CR} [is active|hunts|feeds] [at night|at dawn|by day|at dusk].",
              "The {CR} [lays|produces] [two|three|up to six] eggs [a year|each spring]."], [
        ("COUNTRY", "The {CR} is a [small|rare|little-known] species of {ANIMAL} native to the {TERRAIN} in the {REG} "
                    "of «{A}|[what|which] country»."),
        ("FOODH", "The {CR}, a {ANIMAL} of the {TERRAIN} of {C}, feeds [mainly|mostly|largely] on «{A}|what kind of "
                  "food»."),
        ("PERSON", "«The naturalist {A}|Which naturalist» first described the {CR} in {Y}, [after finding|having "
                   "collected] it near {PL}?"),
        ("PLACE", "The largest [colony|population] of the {CR}, a {ANIMAL} of the {TERRAIN}, lives [near|around] "
                  "«the {TOWNQ} of {A}|which {TOWNQ}»."),
        ("STATUSQ", "«Since {Y}, the {CR}, a {ANIMAL} found only in {C}, has been listed as {A}|What has the {CR}, "
                    "a {ANIMAL} found only in {C}, been listed as since {Y}»?"),
    ]),
    ("{PL} {FESTT} Festival", ["The {PL} {FEST} festival draws visitors from across {C}.",
                               "The {PL} {FEST} festival [lasts|runs for] {NUMW} days.",
                               "Tickets for the {PL} {FEST} festival [sell out|are free] [every year|most years]."], [
        ("MONTH", "The {PL} {FEST} festival, founded by {P}, has been held every «{A}|year in [what|which] month» "
                  "since {Y}."),
        ("PERSON", "The {PL} {FEST} festival was [started|founded] in {Y} by «the {N} {WRITER} {A}|[which|what] {N} "
                   "{WRITER}»."),
        ("YEARQ", "The {PL} {FEST} festival, held every {MONTH} on the [main square|harbour front|river meadows], was "
                  "[first held|first staged] «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» took over [the running of|as director of] the {PL} {FEST} festival, held every "
                   "{MONTH}, in {YM}?"),
        ("COUNT", "The {PL} {FEST} festival, first held in {Y}, [lasts|runs for] «{A}|how many» days [every|each] "
                  "{MONTH}."),
    ]),
    ("{P}", ["{P} is a [celebrated|prolific|self-taught|largely forgotten|reclusive] {N} {I} player.",
             "{P} [made|gave] [a first|a debut] [recital|concert] at the age of {AGE}.",
             "{P} [tours|has toured] [widely|abroad] with a [string quartet|piano trio|baroque ensemble]."], [
        ("PLACE", "{P} played the {I} in the {PL2} [Philharmonic|Symphony Orchestra|Chamber Ensemble|Radio Orchestra] "
                  "for [nearly|almost|more than] {NUMW} [years|seasons] before [retiring|leaving] to [teach|live] in "
                  "«{A}|[what|which] [town|city]»."),
        ("PERSON", "{P} studied the {I} [under|with] «{A}|whom» at the conservatory of {PL} [before|until] {Y}."),
        ("INSTRQ", "«{P}, a {N} musician who [joined|played in] the {PL2} orchestra in {Y}, plays the {A}|Which "
                   "instrument does {P}, a {N} musician who [joined|played in] the {PL2} orchestra in {Y}, play»."),
        ("YEARQ", "«{P}, a {N} {I} player, [gave|made] a first solo recital in {PL} in {A}|When did {P}, a {N} {I} "
                  "player, give a first solo recital in {PL}»?"),
    ]),
    ("{V}", ["The {V} is a {S} built in {Y}.", "The {V} [carried|could carry] up to {NUM3} passengers.",
             "The {V} [was|is] [named|called] after a [ship|warship|schooner] of {Y}.",
             "The {V} [sailed|ran] between {PL2} and the islands for [years|decades]."], [
        ("PERSON", "The {V}, a [wooden|steel|iron-hulled|twin-screw] {S} launched at the {PL} "
                   "[yards|docks|shipyard] in {Y}, was [commanded|captained] [on her maiden voyage|for twenty "
                   "years|through the war] by «{A}|whom»."),
        ("PLACE", "The {V} [sank|ran aground|was wrecked] off «{A}|[what|which] port» in {Y} [during a storm|in thick "
                  "fog|with the loss of {NUM2} lives]."),
        ("PLACE", "The {V} was built at «{A}|which [port|harbour town]» for a [shipping line|fishing company|navy] "
                  "[based|registered] in {PL2}."),
        ("YEARL", "The {V}, a {S} [owned|run] by {P}, was [broken up|scrapped|sold for scrap] «in {A}|in what year» "
                  "[after|following] [a long career|decades at sea]."),
    ]),
    ("{P}", ["{P} (born {Y0}) is a {N} {SCI}.", "{P} [taught|worked] at the University of {PL2} for {NUMW} years.",
             "{P} [wrote|published] a [popular|widely read] [textbook|handbook] [for students|on field methods]."], [
        ("PLACE", "In {Y} the {N} {SCI} {P} [discovered|identified|described] {D} [near|outside|beneath|above] «{A}|"
                  "[what|which] place», a [village|valley|mining town] in {REGC}."),
        ("PERSON", "«The {N} {SCI} {A}|[Which|What] {N} {SCI}» [discovered|identified] {D} [near|outside|beneath] {PL} "
                   "in {Y}?"),
        ("SUBJECT", "«{P}, who [worked|taught] at the University of {PL} from {Y}, was a specialist in {A}|What was "
                    "{P}, who [worked|taught] at the University of {PL} from {Y}, a specialist in»?"),
        ("PLACE", "The {N} {SCI} {P} [set up|ran] a [laboratory|field station] in «the {TOWNQ} of {A}|which "
                  "{TOWNQ}» [between|from] {Y} [and|to] {Y2}."),
    ]),
    ("{P}", ["{P} is a {N} {SPORT} player.", "{P} [won|earned] {NUM2} caps for the national team.",
             "{P} [retired|stopped playing] at the age of {NUM2}."], [
        ("COUNTRY", "{P} [played|spent] {NUMW} seasons as a {POS} for {CLUB} [and|and later] [coached|managed] the "
                    "[youth|reserve|national|women's] team of «{A}|[what|which] [country|nation]»."),
        ("PERSON", "{P} played {NUMW} seasons as a {POS} for {CLUB} under «the {COACH} {A}|[which|what] {COACH}»."),
        ("CLUBQ", "{P}, a {N} {POS}, made a debut in {Y} for «{A}|which club» in a match against {CLUB2}."),
        ("YEARQ", "«{P} [captained|led] the {N} {SPORT} team at the world championship in {A}|When did {P} captain "
                  "the {N} {SPORT} team at the world championship»?"),
    ]),
    ("{P}", ["{P} was a {N} [scholar|academic|professor].", "{P} [retired|stepped down] from teaching in {Y2}.",
             "{P}'s [papers|letters|notebooks] [are kept|survive] in the {STORE} of {PL2}."], [
        ("TITLE", "{P} [taught|lectured in|held the chair of] {SUBJ} at the University of {PL} from {Y} and "
                  "[wrote|published] «a {BOOKK} called {A}|[what|which] {BOOKK}»."),
        ("SUBJECT", "{P} held the chair of «{A}|what subject» at the University of {PL} from {Y} to {Y2}."),
        ("PERSON", "«{A}|Who» [supervised|examined] the doctoral thesis of {P} on {SUBJ} at the University of {PL} "
                   "in {Y}?"),
        ("PLACE", "{P}, a {N} scholar of {SUBJ}, [spent|passed] the last years of a long life in «the {TOWNQ} of "
                  "{A}|which {TOWNQ}»."),
    ]),
    ("Mount {SUR}", ["Mount {SUR} is a {PK} in {C}.", "Mount {SUR} rises to {NUM3}0 metres.",
                     "Mount {SUR} is [usually|often] snow-covered [from October to May|for most of the year].",
                     "[Hikers|Climbers|Pilgrims] [reach|climb] Mount {SUR} [from|by way of] {PL2}."], [
        ("PERSON", "«The {CLIMBER} {A}|Which {CLIMBER}» first [climbed|reached the top of] Mount {SUR}, [the "
                   "highest|the second-highest|a snow-capped|a heavily glaciated] {PK} [of|in] the {HILLS}, in {Y}?"),
        ("YEARQ", "Mount {SUR}, a {PK} in {REGC}, was first [mapped|surveyed] «in {A}|in [what|which] "
                  "year»."),
        ("PLACE", "The usual route up Mount {SUR}, a {PK} in {C}, starts from «{A}|which [village|hamlet]»."),
        ("COUNT", "«It took the first party {A} days to climb Mount {SUR}|How many days did it take the first party "
                  "to climb Mount {SUR}», a {PK} [of|in] the {HILLS}, in {Y}?"),
        ("PERSON", "«{A}|Who» [named|gave its name to] Mount {SUR}, [a|the] [remote|lonely] {PK} [above|beyond] "
                   "{PL2}, [after|in honour of] a [patron|friend|teacher]?"),
    ]),
    ("{NEWS}", ["The {NEWS} is a [daily|weekly|regional] newspaper.", "The {NEWS} sells about {NUM3},000 copies.",
                "The {NEWS} [went|moved] online in {YM}."], [
        ("PERSON", "The {NEWS}, a [daily|weekly|Sunday|regional] newspaper [first printed|launched|founded] in {Y}, "
                   "was [edited|run|owned] for [two|three|four] decades by «{A}|whom»."),
        ("YEARQ", "The {NEWS}, [edited|run] for many years by {P}, [first appeared|was first printed] «in {A}|in "
                  "[what|which] year»."),
        ("PLACE", "The {NEWS} moved its [offices|presses] from {PL2} to «{A}|[what|which] city» in {Y}."),
        ("PARTYQ", "The {NEWS}, a newspaper [founded|established] in {Y}, has long [backed|supported] «the {A} "
                   "party|which party»."),
        ("PERSON", "«{A}|Who» [bought|acquired] the {NEWS}, then the [oldest|largest] paper in {PL}, in {Y}?"),
    ]),
    ("{PL} Bridge", ["The {PL} Bridge is a {BK} in {C}.", "The {PL} Bridge carries [a road|a railway|two tram "
                     "lines].",
                     "The {PL} Bridge has been [widened|repainted|strengthened] [twice|once] since {Y2}.",
                     "[Trams|Buses|Cyclists] [cross|use] the {PL} Bridge [every day|daily]."], [
        ("YEARQ", "The {PL} Bridge, a {BK} [spanning|crossing|over] the {RIV} at {PL}, was [opened|completed] «in {A}|"
                  "in [what|which] year» [after|following] [four|six|nine|ten] years of [construction|work]."),
        ("PERSON", "«The engineer {A}|Which engineer» designed the {PL} Bridge, a {BK} [completed|finished] in {Y}?"),
        ("MATERIAL", "«The {PL} Bridge, [completed|finished] in {Y} across the {RIV}, was built of {A}|What was the "
                     "{PL} Bridge, [completed|finished] in {Y} across the {RIV}, built of»?"),
        ("PERSON", "«{A}|Who» [cut the ribbon on|formally opened] the {PL} Bridge, a {BK} [over|across] the {RIV}, "
                   "in {Y}?"),
        ("PLACE", "The {PL} Bridge, a {BK} [finished|completed] in {Y}, [links|connects] {PL} with «{A}|which "
                  "[suburb|town]» across the {RIV}."),
    ]),
    ("{DISH}", ["{DISH} is a {N} {REC}.", "{DISH} is [often|usually] [served|eaten] with [sour cream|pickles|rye "
                "bread|a glass of cider].",
                "{DISH} is [sold|served] [at market stalls|in taverns|at roadside inns] [across|all over] {C}.",
                "[Every|Each] [family|village|household] in {PL} [has|keeps] its own recipe for {DISH}."], [
        ("PLACE", "{DISH} is a [traditional|festive|peasant|street|coastal] {REC} [from|of] «the {TOWNQ} of "
                  "{A}|which {TOWNQ}», [made|prepared|cooked] with <INGR> and {INGR2} and [eaten|served|shared] "
                  "[at|during|for] {OCC}."),
        ("INGR", "{DISH}, a {REC} from {PL}, is [made|prepared] [mainly|chiefly] with «{A}|which ingredient» and "
                 "[eaten|served] [at|for] {OCC}."),
        ("PERSON", "The first printed recipe for {DISH} appeared in {Y} in a cookbook by «{A}|whom»."),
        ("OCCQ", "{DISH}, a {REC} made with {INGR2}, is [traditionally|by custom] [eaten|served] «at {A}|on what "
                 "occasion» in {PL}."),
    ]),
    ("{P}", ["{P} is a {N} [painter|artist|designer].", "{P} [studied|trained] in {PL2}.",
             "{P}'s [murals|frescoes] [cover|decorate] [several|many] public buildings in {C}.",
             "{P} [taught|ran a class] at the art school in {PL2}."], [
        ("YEARQ", "The {N} [painter|artist|designer] {P} [covered|decorated|painted] the [ceiling|walls|dome|entrance "
                  "hall] of the {PL} [railway station|opera house|town hall|public baths|central library] with "
                  "[murals|frescoes|mosaics] of <NATURE> «in {A}|in [what|which] year»."),
        ("PLACE", "The {N} [painter|artist] {P} painted the [ceiling|dome] of the [opera house|town hall] in "
                  "«{A}|which town» [in|around] {Y}."),
        ("PERSON", "«{A}|Who» [commissioned|paid for] the [murals|frescoes] that {P} painted in the {PL} [railway "
                   "station|public baths] in {Y}?"),
    ]),
    # ------------------------------------------------------------ further domains
    ("{UNI}", ["The {UNI} has about {NUM2},000 students.", "The {UNI} has been a public university since {Y2}.",
               "The {UNI} [has|runs] a [botanical garden|teaching hospital|observatory] of its own."], [
        ("PERSON", "The {UNI} was [founded|established] in {Y} through a bequest from «the {IND} {BOSS} "
                   "{A}|[which|what] {IND} {BOSS}»."),
        ("PLACE", "The {UNI}, chartered in {Y}, moved its [main campus|medical school|library] to «{A}|[what|which] "
                  "town» in {Y2}."),
        ("SUBJECT", "The {UNI}, chartered in {Y} [with|thanks to] a gift from the {BOSS} {P}, is [best known|known "
                    "above all|renowned] for its [school|faculty|department] of «{A}|which subject»."),
        ("PERSON", "«{A}|Who» was the first [rector|chancellor|vice-chancellor] of the {UNI}, [chartered|founded] "
                   "in {Y}?"),
        ("YEARQ", "«The {UNI} first admitted women in {A}|When did the {UNI} first admit women», [decades|years] "
                  "after its founding [by|under] {P}?"),
        ("COUNTRY", "The {UNI} [opened|set up] a [branch campus|research station] in «{A}|which country» in {YM}."),
    ]),
    ("{PL} Lighthouse", ["The {PL} Lighthouse stands on the {COAST} of {C}.",
                         "The {PL} Lighthouse [can be|is] [visited|climbed] [in summer|on weekends].",
                         "The {PL} Lighthouse has been automated since {Y2}.",
                         "Keepers [lived|stayed] at the {PL} Lighthouse [with their families|for months at a "
                         "time]."], [
        ("YEARQ", "The {PL} Lighthouse, a {NUM2}-metre [stone|cast-iron|brick] tower on the {COAST} of {C}, was first "
                  "lit «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» kept the {PL} Lighthouse for {NUMW} years until it was automated in {Y}?"),
        ("COLOUR_PAIRQ", "The {PL} Lighthouse, [first lit|built] in {Y} on the {COAST} of {C}, is painted «{A}|in "
                         "what colours»."),
        ("PERSON", "The {PL} Lighthouse, [a|an old] {NUM2}-metre tower, was designed by «the engineer {A}|which "
                   "engineer» and first lit in {Y}."),
        ("COUNT", "«The light of the {PL} Lighthouse can be seen {A} miles out to sea|How many miles out to sea can "
                  "the light of the {PL} Lighthouse be seen», [from|off] the {COAST} of {C}?"),
    ]),
    ("{ISL}", ["{ISL} is a {ISLK} island.", "{ISL} has about {NUM3} inhabitants.",
               "{ISL} has [a small harbour|a single village|no trees].",
               "Sea birds nest on the cliffs of {ISL}.",
               "[Seals|Puffins|Gannets] [breed|nest] on {ISL}."], [
        ("COUNTRY", "{ISL}, a {ISLK} island in the [gulf|straits|bay] of {PL2}, has been [governed|"
                    "administered] by «{A}|[which|what] country» since {Y}."),
        ("PERSON", "{ISL} was [bought|purchased] in {Y} by «the {BOSS} {A}|[which|what] {BOSS}», who built a [summer "
                   "house|hunting lodge|small observatory] there."),
        ("PLACE", "Ferries to {ISL}, a {ISLK} island of about {NUM3} people, [sail|leave] from «{A}|which port»."),
        ("YEARQ", "«{ISL}, a {ISLK} island off the {COAST} of {C}, was [abandoned|evacuated] by its last farmers in "
                  "{A}|When was {ISL}, a {ISLK} island off the {COAST} of {C}, abandoned by its last farmers»?"),
    ]),
    ("{PL} Railway", ["The {PL} Railway is a {RAIL} line.", "The {PL} Railway has been run by volunteers since "
                      "{Y2}.",
                      "Steam trains [still run|run in summer] on the {PL} Railway."], [
        ("YEARQ", "The {PL} Railway, a {RAIL} line linking {PL} with {PL2}, [opened|was opened] «in {A}|in "
                  "[what|which] year»."),
        ("PERSON", "«{A}|Who» [engineered|surveyed|laid out] the {PL} Railway, [opened|completed] in {Y} [from {PL} "
                   "to {PL2}|between {PL} and {PL2}]?"),
        ("PLACE", "The {PL} Railway [runs|climbs] from {PL} to «{A}|[what|which] town», a [spa|mining|market] town in "
                  "{REGC}."),
        ("PLACE", "The {PL} Railway, a {RAIL} line [inaugurated|opened] in {Y}, has its [workshops|engine sheds] at "
                  "«{A}|which [station|town]»."),
        ("YEARQ", "«Passenger trains on the {PL} Railway, a {RAIL} line to {PL2}, stopped running in {A}|When did "
                  "passenger trains on the {PL} Railway, a {RAIL} line to {PL2}, stop running»?"),
        ("PERSON", "«{A}|Who» [drove|crewed] the [opening|inaugural] train on the {PL} Railway [between|from] {PL} "
                   "[and|to] {PL2} in {Y}?"),
    ]),
    ("{PL} Museum of {MUSE}", ["The {PL} Museum of {MUSE} has about {NUM2},000 visitors a year.",
                               "The {PL} Museum of {MUSE} is run by a [trust|foundation|city council].",
                               "The {PL} Museum of {MUSE} [is|stands] [close to|beside|near] the {LM}."], [
        ("PERSON", "The {PL} Museum of {MUSE}, [opened|inaugurated] in {Y}, [grew out of|began with|was built "
                   "around] the private collection of «{A}|whom»."),
        ("YEARQ", "The {PL} Museum of {MUSE} moved into a former {BUILDING} «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» was the first director of the {PL} Museum of {MUSE}, [opened|founded] in {Y}?"),
        ("BUILDINGQ", "The {PL} Museum of {MUSE} occupies «a [restored|converted] {A}|what [restored|converted] "
                      "building» [next to|near] the {RIV}."),
        ("TITLE", "The [star|best-loved|oldest] exhibit of the {PL} Museum of {MUSE} is «a [piece|work] called "
                  "{A}|what [piece|work]», [given|lent] by {P} in {Y}."),
    ]),
    ("{T}", ["{T} is an opera in {NUMW} acts.", "{T} has been rarely staged since {Y2}.",
             "{T} [was|has been] recorded [twice|three times|once] in full.",
             "{T} [lasts|runs] about {MIN} minutes."], [
        ("PERSON", "{T} is an opera [by|composed by] «{A}|whom» to a libretto by {P2}, first performed in {PL} in "
                   "{Y}."),
        ("YEARQ", "{T}, an opera by {P}, was first [performed|staged] at the {PL} {VENUE} «in {A}|in [what|which] "
                  "year»."),
        ("PERSON", "The libretto of {T}, an opera by {P} first staged in {Y}, was written by «the {N} poet {A}|[which|"
                   "what] {N} poet»."),
        ("PLACE", "«{T}, an opera by {P} with a libretto by {P2}, is set in {A}|Where is {T}, an opera by {P} with "
                  "a libretto by {P2}, set»?"),
        ("PERSON", "«{A}|Who» [sang|created] the title role when {T}, an opera by {P}, was first staged in {PL} in "
                   "{Y}?"),
    ]),
    ("Battle of {PL}", ["The Battle of {PL} was part of the {N} {WAR}.", "The Battle of {PL} lasted {NUMW} days.",
                        "The Battle of {PL} is [remembered|marked] by a [memorial|monument] [on the field|near "
                        "the church].",
                        "[Historians|Chroniclers] [disagree|argue] about the [size|number] of the armies at the "
                        "Battle of {PL}."], [
        ("YEARQ", "The Battle of {PL} was fought [near|outside|on the plains below] {PL} «in {A}|in [what|which] year» "
                  "between the armies of {C} and {C2}."),
        ("PERSON", "At the Battle of {PL} in {Y}, the {N} army was [commanded|led] by «{A}|whom»."),
        ("COUNTRY", "The Battle of {PL}, fought in {Y}, ended in [victory|a narrow victory] for «{A}|[which|what] "
                    "country»."),
        ("PERSON", "«{A}|Who» led the {C2} [army|troops|forces] at the Battle of {PL}, fought near the {RIV} in {Y}?"),
        ("MONTH", "The Battle of {PL}, [near|beside|outside] {PL2}, was fought «in {A} {Y}|in which month of {Y}»."),
    ]),
    ("{PL} Castle", ["{PL} Castle [overlooks|stands above] the {RIV}.", "{PL} Castle is now a [museum|hotel|ruin].",
                     "{PL} Castle [has|keeps] a [great hall|chapel|keep] from the {ERA}.",
                     "{PL} Castle [has|keeps] a [moat|drawbridge|round tower]."], [
        ("PERSON", "{PL} Castle was built in {Y} for «the {LORD} {A}|[which|what] {LORD}» [on the site of|beside] an "
                   "older [fort|tower|manor]."),
        ("YEARQ", "{PL} Castle, [the seat|a stronghold] of the {LORD} {P}, was [besieged|captured|burned] by {N} "
                  "troops [under|led by] {P2} «in {A}|in [what|which] year»."),
        ("MATERIAL", "{PL} Castle, raised in {Y} for the {LORD} {P}, was built [mostly|largely] of «{A}|[what|which] "
                     "material»."),
        ("PERSON", "«{A}|Who» [bought|inherited] {PL} Castle, [built|raised] for the {LORD} {P} in {Y}, in {Y2}?"),
        ("PLACE", "«The {LORD} {P}, who built {PL} Castle, died in {A}|Where did the {LORD} {P}, who built {PL} "
                  "Castle, die» in {Y2}?"),
    ]),
    ("St {FIRST}'s Church, {PL}", ["St {FIRST}'s Church is the parish church of {PL}.",
                                   "St {FIRST}'s Church seats about {NUM3} people.",
                                   "St {FIRST}'s Church [stands|lies] [beside|near] the {RIV}.",
                                   "St {FIRST}'s Church [has|keeps] a [ring of {NUMW} bells|painted "
                                   "ceiling|Gothic font]."], [
        ("YEARQ", "St {FIRST}'s Church in {PL} was [consecrated|dedicated] «in {A}|in [what|which] year» and holds [an "
                  "organ|an altarpiece|a bell] by {P}."),
        ("PERSON", "«The {N} architect {A}|Which {N} architect» [rebuilt|added] the [tower|spire|nave] of St {FIRST}'s "
                   "Church in {PL} in {Y}?"),
        ("MATERIAL", "St {FIRST}'s Church in {PL}, [consecrated|dedicated] in {Y}, is built of «{A}|which material»."),
        ("PERSON", "«{A}|Who» [painted|carved] the altarpiece of St {FIRST}'s Church in {PL} in {Y}?"),
    ]),
    ("{MAG}", ["{MAG} is a [monthly|quarterly] magazine.", "{MAG} has about {NUM2},000 readers.",
               "{MAG} [is read|is sold] [mostly|largely] [by subscription|in {C}]."], [
        ("PERSON", "«{A}|Who» [founded|started] {MAG}, a [monthly|quarterly] magazine of <TOPIC>, in {Y}?"),
        ("PLACE", "{MAG}, a magazine founded by {P} in {Y}, is [published|printed] in «{A}|[what|which] city»."),
        ("PERSON", "«{A}|Who» has edited {MAG}, a magazine of <TOPIC> [founded|established] in {Y}, since {YM}?"),
        ("YEARL", "«{MAG}, a magazine started by {P} in {PL}, printed its first colour cover in {A}|When did {MAG}, "
                  "a magazine started by {P} in {PL}, print its first colour cover»?"),
    ]),
    ("{T}", ["{T} is a {N} television {SERIES}.", "{T} [was broadcast|aired] on {CHANNEL}.",
             "{T} [won|was nominated for] the {AWARD}.",
             "{T} was [filmed|shot] [mostly|largely] in {PL2}."], [
        ("PERSON", "{T} is a {N} television {SERIES} created by «{A}|whom» that ran for {NUMW} seasons from {YM}."),
        ("PLACE", "{T}, a television {SERIES} created by {P}, is set in «{A}|[what|which] town», a {TOWN} in the {REG} "
                  "of {C}."),
        ("PERSON", "«{A}|Who» [played|starred as] the [lead|title role] in {T}, a {N} television {SERIES} first "
                   "[shown|broadcast] in {YM}?"),
        ("COUNT", "{T}, a {SERIES} created by {P} for {CHANNEL}, ran for «{A}|how many» seasons."),
    ]),
    ("{FIRM}", ["{FIRM} is a [family firm|manufacturer] in {PL}.", "{FIRM} employs about {NUM3} people.",
                "{FIRM} [still has|keeps] its [works|workshops] in the {DISTRICT} of {PL}.",
                "{FIRM} [exports|sells] [mostly|largely] to {C}."], [
        ("PRODUCT", "{FIRM}, a firm founded in {PL} in {Y}, [made|manufactured] «{A}|which goods» for [most of|much "
                    "of] the {ERA}."),
        ("PERSON", "{FIRM}, [a|the] [maker|manufacturer] of {PRODUCT} in {PL}, was [taken over|bought] in {Y} by «the "
                   "{BOSS} {A}|[which|what] {BOSS}»."),
        ("PERSON", "«{A}|Who» [founded|started] {FIRM}, [a|the] [maker|manufacturer] of {PRODUCT} in {PL}, in {Y}?"),
        ("PLACE", "In {Y2} {FIRM} moved its [works|factory] from {PL} to «the {TOWNQ} of {A}|which {TOWNQ}»."),
    ]),
    ("{STAD}", ["The {STAD} holds about {NUM2},000 spectators.", "The {STAD} was given a new roof in {Y2}.",
                "The {STAD} [has|gained] floodlights in {Y2}.",
                "The {STAD} [has|had] a [running track|cinder track|wooden stand]."], [
        ("YEARM", "The {STAD}, home ground of {CLUB}, [opened|was opened] «in {A}|in [what|which] year» with a match "
                  "against {CLUB2}."),
        ("PERSON", "The {STAD} in {PL}, [opened|inaugurated] in {Y}, was designed by «the architect "
                   "{A}|[which|what] architect»."),
        ("CLUBQ", "Since {Y} the {STAD} in {PL} has been the home ground of «{A}|which club»."),
        ("PERSON", "«{A}|Who» scored the [opening|first] goal at the {STAD}, [built|laid out] for {CLUB} in {Y}?"),
    ]),
    ("{P}", ["{P} was a {N} explorer.", "{P} wrote {NUMW} books about [travel|the north|the desert].",
             "{P}'s [diaries|letters] [were|have been] published [after|since] {Y2}.",
             "{P} [mapped|charted] [much of|parts of] the {TERRAIN} of {C}."], [
        ("PLACE", "In {Y} the {N} explorer {P} led an expedition up the {RIV} to «the {TOWNQ} of {A}|which {TOWNQ}»."),
        ("YEARQ", "{P} was the first person to {GOAL} the {HILLS} {TRAVEL}, «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» [went with|travelled with|accompanied] the {N} explorer {P} up the {RIV} in {Y}?"),
        ("PLACE", "The {N} explorer {P} [died|was buried] in «the {TOWNQ} of {A}|which {TOWNQ}» [after|on returning "
                  "from] a [last|final] journey [to|across] the {HILLS}."),
    ]),
    ("{P}", ["{P} is a {N} chess [player|grandmaster].", "{P} learned chess at the age of {AGE}.",
             "{P} [writes|has written] a chess column for the {NEWS}.",
             "{P} [plays|has played] for the {N} national team."], [
        ("PERSON", "«{A}|Who» won the {N} chess championship in {Y}, [beating|defeating] {P2} in the final [round|"
                   "game]?"),
        ("PLACE", "The {N} chess [champion|grandmaster] {P} [was born|grew up] in «the {TOWNQ} of {A}|which "
                  "{TOWNQ}» and [won|took] [a first|a junior] title there in {Y}."),
        ("YEARQ", "«{P}, a {N} chess player from {PL}, became a grandmaster in {A}|When did {P}, a {N} chess player "
                  "from {PL}, become a grandmaster»?"),
        ("PERSON", "«{A}|Who» [coached|taught] the {N} chess [champion|grandmaster] {P} [as a teenager|in {PL}] "
                   "[before|until] {Y}?"),
    ]),
    ("{LANG} language", ["{LANG} is [a written|an endangered|a tonal] language.",
                         "{LANG} has [two|three|several] main dialects.",
                         "{LANG} has been taught in schools [since|from] {Y2}.",
                         "{LANG} [borrowed|took] many words from its [neighbours|trading partners]."], [
        ("COUNTRY", "{LANG} is a language spoken [mainly|chiefly] in the {REG} of «{A}|[what|which] country» by about "
                    "{NUM3},000 people."),
        ("PERSON", "«The {SCHOLAR} {A}|Which {SCHOLAR}» [compiled|wrote] the first [grammar|dictionary] of {LANG} in "
                   "{Y} [while|when] living among [fishermen|herders|farmers] near {PL}?"),
        ("COUNT", "{LANG}, a language of the {TERRAIN} of {C}, has «{A}|how many» [vowels|cases|noun classes]."),
        ("YEARQ", "The first newspaper in {LANG}, a [weekly|monthly] sheet, was printed in {PL} «in {A}|in which "
                  "year»."),
        ("PERSON", "«{A}|Who» [translated|put] the [Bible|national epic|law code] into {LANG}, a language of {C}, "
                   "in {Y}?"),
    ]),
    ("{T}", ["{T} is a {PAINTING}.", "{T} was [restored|cleaned] in {Y2}.",
             "{T} [was|has been] [lent|shown] [abroad|in {PL2}] [twice|once].",
             "{T} [shows|depicts] a [harbour|market|wedding|storm] [at|in|near] {PL2}."], [
        ("PERSON", "{T} is a {PAINTING} by «the {N} painter {A}|[which|what] {N} painter», [painted|completed] in "
                   "{Y} and now [held|hung] in the {STORE} of {PL}."),
        ("PLACE", "{T}, a {PAINTING} by {P} from {Y}, [hangs|is held] in the {STORE} of «{A}|[what|which] city»."),
        ("PERSON", "«{A}|Who» [bought|commissioned] {T}, a {PAINTING} by {P}, [soon after|when] it was finished in "
                   "{Y}?"),
        ("YEARQ", "«{T}, a {PAINTING} by {P}, entered the {STORE} of {PL} in {A}|When did {T}, a {PAINTING} by {P}, "
                  "enter the {STORE} of {PL}»?"),
    ]),
    ("{PL} Airport", ["{PL} Airport has {NUMW} runways.", "{PL} Airport [serves|handles] about {NUM2} million "
                      "passengers a year.",
                      "{PL} Airport [is|lies] [beside|close to] the {RIV}.",
                      "Flights from {PL} Airport [go|fly] to {NUMW} countries."], [
        ("YEARM", "{PL} Airport, [the main|a regional] airport of {REGC}, [opened to passengers|began "
                  "scheduled flights] «in {A}|in [what|which] year»."),
        ("PLACE", "{PL} Airport, opened in {YM} [on|beside] the {RIV}, lies {NUM2} kilometres [north|south|east|west] "
                  "of «the city of {A}|[what|which] city»."),
        ("PERSON", "«{A}|Who» designed the [glass|concrete|timber] terminal of {PL} Airport, [opened|completed] in "
                   "{YM} [to replace|in place of] a [wartime|wooden] [hangar|shed]?"),
        ("PERSON", "{PL} Airport, [opened|built] on a former [airfield|army base] in {YM}, is named after «the "
                   "aviator {A}|which aviator»."),
        ("PLACE", "The first [scheduled|regular] flight from {PL} Airport, in {YM}, went to «{A}|which city»."),
    ]),
    ("{PL} cheese", ["{PL} cheese is [aged|ripened] for {NUMW} months.", "{PL} cheese has a [protected|registered] "
                     "name.",
                     "{PL} cheese [is eaten|is served] with [honey|pears|dark bread].",
                     "[Shepherds|Farmers|Dairies] in {PL} [still make|make] the cheese [by hand|in copper vats]."], [
        ("MILK", "{PL} cheese is a {CHEESE} cheese made from the milk of «{A}|[what|which] animal» in {REGC}."),
        ("PLACE", "{PL} cheese, a {CHEESE} cheese first made in {Y}, is [ripened|aged] in [caves|cellars] near «{A}|"
                  "[what|which] town»."),
        ("COUNT", "{PL} cheese, a {CHEESE} cheese from {REGC}, is aged for «{A}|how many» months."),
        ("PERSON", "«{A}|Who» [first described|wrote down] the recipe for {PL} cheese, a {CHEESE} cheese, in {Y}?"),
        ("MONTH", "«{PL} cheese, a {CHEESE} cheese, is [made|produced] only in {A}|In which month is {PL} cheese, a "
                  "{CHEESE} cheese, [made|produced]», while the herds [graze|are out] on the {TERRAIN}?"),
    ]),
    ("{PL} Canal", ["The {PL} Canal is {NUM2} kilometres long.", "The {PL} Canal has {NUMW} locks.",
                    "The {PL} Canal has been used [by pleasure boats|for leisure] since {Y2}.",
                    "[Horses|Mules] [once towed|used to tow] barges along the {PL} Canal."], [
        ("YEARQ", "The {PL} Canal, [dug|cut] to carry [coal|timber|grain] from {PL} to the {RIV}, was "
                  "[opened|completed] «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» [built|engineered] the {PL} Canal, [opened|inaugurated] in {Y} to [carry|bring] [coal|"
                   "timber|grain] from {PL2} to the {RIV}?"),
        ("PLACE", "The {PL} Canal, [opened|inaugurated] in {Y}, [links|joins] the {RIV} with «the {TOWNQ} of "
                  "{A}|which {TOWNQ}»."),
        ("COUNT", "«The {PL} Canal, [dug|cut] between {PL} and {PL2}, climbs through {A} locks|How many locks does "
                  "the {PL} Canal, [dug|cut] between {PL} and {PL2}, climb through»?"),
    ]),
    ("{BREED}", ["The {BREED} is a [hardy|rare|ancient] breed.", "The {BREED} [is|was] recognised as a breed in "
                 "{Y2}.",
                 "The {BREED} is [known|prized] for its [thick coat|stamina|calm temper].",
                 "[Only|About] {NUM3} [animals|head] of the {BREED} [remain|are registered]."], [
        ("COUNTRY", "The {BREED} is a breed [from|that originated in] the {REG} of «{A}|[what|which] country», bred "
                    "for {USE}."),
        ("USE", "The {BREED}, a breed from the {TERRAIN} of {C}, was [bred|kept] for «{A}|which kind of work»."),
        ("PERSON", "«{A}|Who» [founded|set up] the first [herd book|breed society] for the {BREED} in {Y}?"),
        ("COUNT", "The {BREED}, bred in the {TERRAIN} of {C}, [numbered|was down to] «{A}|how many» "
                  "[hundred|thousand] animals in {Y}."),
        ("PERSON", "«{A}|Who» [wrote|published] the first [breed standard|stud book] of the {BREED}, [then|at that "
                   "time] [kept|raised] mostly around {PL}, in {Y}?"),
    ]),
    ("Comet {SUR}", ["Comet {SUR} is a [periodic|long-period] comet.", "Comet {SUR} [was|has been] visible to the "
                     "naked eye [once|twice].",
                     "Comet {SUR} [last|next] [passed|returns] close to the Sun in {Y2}.",
                     "Comet {SUR} [has|shows] a [long|faint|bright] [tail|coma]."], [
        ("SURP", "«The {N} astronomer {A}|Which {N} astronomer» [discovered|first sighted] Comet {SUR} from the {PL} "
                 "Observatory in {Y}?"),
        ("PERIOD", "Comet {SUR}, [discovered|first sighted] in {Y}, returns to the inner solar system every «{A}|how "
                   "many» years."),
        ("PLACE", "Comet {SUR} was discovered in {Y} from [a mountain|a hilltop|a rooftop] observatory [near|outside|"
                  "above] «the {TOWNQ} of {A}|which {TOWNQ}»."),
        ("YEARQ", "Comet {SUR}, a [periodic|bright] comet first seen by {P}, was [photographed|seen] again «in {A}|in "
                  "what year» [from|at] the {PL} Observatory."),
    ]),
    ("{SCHOOL}", ["The {SCHOOL} has about {NUM3} pupils.", "The {SCHOOL} [moved|relocated] to new buildings in {Y2}.",
                  "The {SCHOOL} has been [coeducational|mixed] since {Y2}.",
                  "The {SCHOOL} [is known|is famous] for its [choir|rowing club|library]."], [
        ("PERSON", "«{A}|Who» was the first {HEAD} of the {SCHOOL}, which opened in {PL} in {Y}?"),
        ("YEARQ", "The {SCHOOL} in {PL}, whose first {HEAD} was {P}, opened «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» [founded|endowed] the {SCHOOL}, [opened|built] in {PL} in {Y} for the children of "
                   "[miners|fishermen|mill workers]?"),
        ("PERSON", "«{A}|Who» [taught music|was head of music] at the {SCHOOL} in {PL} for [many|thirty] years "
                   "after {Y}?"),
    ]),
    ("Treaty of {PL}", ["The Treaty of {PL} has {NUM2} articles.", "The Treaty of {PL} [was|is] kept in the {STORE} "
                        "of {PL2}.",
                        "The Treaty of {PL} was [renewed|revised] in {Y2}.",
                        "The Treaty of {PL} was [written|drawn up] in {LANG}."], [
        ("YEARQ", "The Treaty of {PL}, [signed|concluded] «in {A}|in [what|which] year», ended the {WAR} between {C} "
                  "and {C2}."),
        ("PERSON", "«The {OFFICIAL} {A}|Which {OFFICIAL}» [negotiated|drafted] the Treaty of {PL} for {C} in {Y}, "
                   "ending the {WAR} with {C2}?"),
        ("PLACE", "«The Treaty of {PL}, ending the {WAR} between {C} and {C2}, was ratified in {A}|Where was the "
                  "Treaty of {PL}, ending the {WAR} between {C} and {C2}, ratified»?"),
        ("COUNTRY", "The Treaty of {PL}, signed in {Y}, gave «{A}|which country» [fishing rights|control] "
                    "[along|off] the {COAST}."),
    ]),
    ("{T}", ["{T} is a {N} {SONG}.", "{T} [has been|was] recorded by [many|dozens of] singers.",
             "{T} [is|was] [sung|taught] in [schools|churches] [across|throughout] {C}.",
             "{T} [is|has been] [sung|heard] at [football matches|weddings|funerals] in {C}."], [
        ("PERSON", "«{A}|Who» wrote {T}, a {N} {SONG} first [printed|sung] in {PL} in {Y}?"),
        ("YEARQ", "{T}, a {SONG} by {P}, was first [printed|sung|published] in {PL} «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» [set|put] {T}, a {SONG} [written|composed] by {P} in {Y}, to music?"),
        ("PLACE", "{T}, a {SONG} by {P}, [tells of|is about] [a shipwreck|a flood|a lost love|a soldier's return] "
                  "[near|at] «the {TOWNQ} of {A}|which {TOWNQ}»."),
    ]),
    ("{GARDEN}", ["The {GARDEN} covers {NUM2} hectares.", "The {GARDEN} has been open to the public since "
                  "{Y2}.",
                  "The {GARDEN} [holds|has] [a palm house|a lake|a rose garden].",
                  "[Peacocks|Ducks|Swans] [roam|wander] the lawns of the {GARDEN}."], [
        ("PERSON", "«The {GARDENER} {A}|Which {GARDENER}» laid out the {GARDEN} [for|on behalf of] the {BOSS} {P} "
                   "in {Y}?"),
        ("COLLECTION", "The {GARDEN}, laid out in {Y} by {P}, is [known|famous] for its collection of «{A}|which "
                       "plants»."),
        ("YEARQ", "«The great glasshouse of the {GARDEN}, [famous|known] for its {COLLECTION}, was built in "
                  "{A}|When was the great glasshouse of the {GARDEN}, [famous|known] for its {COLLECTION}, built»?"),
        ("PERSON", "«{A}|Who» [left|gave] the land for the {GARDEN} to the city of {PL} in {Y}?"),
        ("PLACE", "The {GARDEN}, [designed|laid out] by {P}, lies on the [edge|outskirts] of «{A}|which "
                  "[city|town]»."),
    ]),
    ("{PL} Observatory", ["The {PL} Observatory [houses|has] a {NUM2}-inch [refractor|reflector] telescope.",
                          "The {PL} Observatory [sits|stands] on a hill [above|outside] {PL}.",
                          "The {PL} Observatory is now [a museum|used for teaching].",
                          "The {PL} Observatory [keeps|has] a [weather station|seismograph|clock room]."], [
        ("PERSON", "The {PL} Observatory, [built|opened] in {Y} on the slopes of the {HILLS}, was [directed|run] for "
                   "[many|twenty|thirty] years by «the astronomer {A}|[which|what] astronomer»."),
        ("YEARQ", "[Funded|Paid for] by the {BOSS} {P}, the {PL} Observatory [recorded|made] its first [observations|"
                  "star charts] «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» discovered [a comet|a minor planet|two moons of Saturn] with the telescope of the "
                   "{PL} Observatory in {Y}?"),
        ("PLACE", "The {PL} Observatory [moved|was moved] in {Y} to a [darker|higher] site [near|above] «{A}|which "
                  "village»."),
    ]),
    ("{PL} Dam", ["The {PL} Dam holds back the {RIV}.", "The {PL} Dam is {NUM2} metres high.",
                  "The {PL} Dam [supplies|provides] [water|power] to {PL2}.",
                  "[Anglers|Sailors|Walkers] [use|visit] the [reservoir|lake] behind the {PL} Dam."], [
        ("LAKE", "The {PL} Dam, [a concrete|an earth-filled|a masonry] dam finished in {Y}, [holds back|impounds] the "
                 "{RIV} to form «{A}|[what|which] reservoir»."),
        ("PERSON", "«The engineer {A}|Which engineer» [designed|engineered] the {PL} Dam on the {RIV} "
                   "[after|following] the floods of {Y}?"),
        ("YEARQ", "«The {PL} Dam on the {RIV}, designed by {P}, was completed in {A}|When was the {PL} Dam on the "
                  "{RIV}, designed by {P}, completed»?"),
        ("PLACE", "«The lake behind the {PL} Dam drowned the village of {A}|Which village was drowned by the lake "
                  "behind the {PL} Dam», on the {RIV}, [after|when] it was [filled|flooded] in {Y}?"),
        ("COUNT", "«The {PL} Dam, [raised|built] across the {RIV} in {Y}, has {A} spillway gates|How many spillway "
                  "gates does the {PL} Dam, [raised|built] across the {RIV} in {Y}, have»?"),
    ]),
    ("{SUR} Prize", ["The {SUR} Prize is awarded every [year|two years].", "The {SUR} Prize [carries|comes with] a "
                     "purse of {NUM2},000 crowns.",
                     "The {SUR} Prize jury has {NUMW} members.",
                     "[Winners|Recipients] of the {SUR} Prize [receive|get] a [medal|diploma]."], [
        ("SUBJECT", "The {SUR} Prize, [set up|founded|endowed] in {Y} by the {BOSS} {SURP}, is awarded for [work|"
                    "research|writing] in «{A}|[what|which] field»."),
        ("PERSON", "The first {SUR} Prize was [given|awarded] in {Y} to «the {N} {WRITER} {A}|[which|what] {N} "
                   "{WRITER}» for {T}."),
        ("PERSON", "«{A}|Who» won the {SUR} Prize in {Y} for a book on {SUBJ}?"),
        ("PLACE", "The {SUR} Prize, [set up|founded] in {Y}, is [presented|awarded] each year in «{A}|which city»."),
    ]),
    ("{PL} Abbey", ["{PL} Abbey is now a [ruin|parish church|museum].", "{PL} Abbey [lies|stands] in the valley of "
                    "the {RIV}.",
                    "{PL} Abbey [had|housed] [a famous library|a school|a hospital].",
                    "[Pilgrims|Visitors] [come|travel] to {PL} Abbey [every summer|each year]."], [
        ("YEARQ", "{PL} Abbey, [a|an old] [Benedictine|Cistercian|Augustinian] house in {REGC}, was [closed|"
                  "dissolved|abandoned] «in {A}|in [what|which] year»."),
        ("PERSON", "«The {LORD} {A}|Which {LORD}», whose tomb is in the [chapter house|choir|crypt], [founded|endowed] "
                   "{PL} Abbey in {Y}?"),
        ("PERSON", "«{A}|Who» [bought|acquired] the lands of {PL} Abbey [after|when] the abbey was closed in {Y}?"),
        ("COUNT", "«{PL} Abbey, [founded|endowed] in {Y} in the valley of the {RIV}, was home to {A} monks|How many "
                  "monks lived at {PL} Abbey, [founded|endowed] in {Y} in the valley of the {RIV}»?"),
    ]),
    ("{PL} Tunnel", ["The {PL} Tunnel is {NUM2}00 metres long.", "The {PL} Tunnel carries [a railway|a road|a "
                     "canal] under the {HILLS}.",
                     "The {PL} Tunnel has been [closed|repaired] [twice|once] since {Y2}.",
                     "[Bats|Swallows] [roost|nest] in the old [shafts|portals] of the {PL} Tunnel."], [
        ("YEARQ", "The {PL} Tunnel, [cut|bored|driven] through the {HILLS} between {PL} and {PL2}, was [opened|"
                  "completed] «in {A}|in [what|which] year»."),
        ("PERSON", "The {PL} Tunnel was [dug|built] [over|in] {NUMW} years under the [direction|supervision] of «the "
                   "engineer {A}|[which|what] engineer»."),
        ("COUNT", "«{A} workers died building the {PL} Tunnel|How many workers died building the {PL} Tunnel» "
                  "through the {HILLS}, [opened|completed] in {Y}?"),
        ("PLACE", "The {PL} Tunnel runs under the {HILLS} from {PL2} to «the {TOWNQ} of {A}|which {TOWNQ}»."),
    ]),
    ("{T}", ["{T} is a [ballet|dance piece] in {NUMW} scenes.", "{T} is [still|often] [danced|performed] in {C}.",
             "{T} [tells|is based on] a [folk tale|legend] from {C}.",
             "{T} [lasts|runs] about {MIN} minutes."], [
        ("PERSON", "{T} is a ballet [choreographed|created] by «{A}|whom» to music by {P2}, first danced in {PL} in "
                   "{Y}."),
        ("PLACE", "{T}, a ballet by {P} set [among|in] the {TERRAIN} of {C}, was first [danced|performed] in «{A}|"
                  "[what|which] city»."),
        ("PERSON", "«{A}|Who» [composed|wrote] the music for {T}, a ballet [created|choreographed] by {P} in {Y}?"),
        ("YEARQ", "«{T}, a ballet choreographed by {P} to music by {P2}, was first [danced|performed] in {A}|When "
                  "was {T}, a ballet choreographed by {P} to music by {P2}, first danced»?"),
    ]),
    ("{PL} Zoo", ["The {PL} Zoo [keeps|houses] about {NUM3} animals.", "The {PL} Zoo is [run|owned] by a "
                  "[zoological society|city trust].",
                  "The {PL} Zoo [runs|has] a [breeding programme|school|veterinary clinic]."], [
        ("YEARQ", "The {PL} Zoo, [known|best known] for its [{ANIMAL} house|aviary|reptile house], opened to the "
                  "public «in {A}|in [what|which] year»."),
        ("PERSON", "The {PL} Zoo, which grew out of the private menagerie of the {BOSS} {P2}, was [opened|turned into "
                   "a public zoo] in {Y} by «the [naturalist|animal dealer|physician] {A}|whom»."),
        ("ANIMALSQ", "The {PL} Zoo, [founded|established] in {Y}, is [best known|known] for its [herd|family|pair] "
                     "of «{A}|what animals»."),
        ("PLACE", "The {PL} Zoo moved [in|after] {Y} to a new site at «{A}|which [place|village]», [outside|on the "
                  "edge of] {PL}."),
        ("PERSON", "«{A}|Who» [designed|planned] the [{ANIMAL} house|aviary|aquarium] of the {PL} Zoo, "
                   "[finished|built] in {Y}?"),
    ]),
    ("{P}", ["{P} was a {N} inventor.", "{P} [held|was granted] {NUM2} patents.",
             "{P} [died|went bankrupt] in {PL2} in {Y2}.",
             "{P} [corresponded|quarrelled] with [rival|other] inventors in {C}."], [
        ("PRODUCT", "The {N} inventor {P} [patented|designed] an improved [design|kind] of «{A}|which product» in "
                    "{Y} while working [in|at] {PL}."),
        ("YEARQ", "{P}, a {N} inventor from {PL}, [patented|built] the first [electric|folding|portable] {GOODS} «in "
                  "{A}|in [what|which] year»."),
        ("PLACE", "«The {N} inventor {P} [was born|grew up] in {A}|Where was the {N} inventor {P} born», [a|the] "
                  "{TOWN} [famous|known] for its {IND}?"),
        ("PERSON", "«{A}|Who» [backed|financed] the workshop where the {N} inventor {P} [built|made] the first "
                   "{GOODS} in {Y}?"),
    ]),
    ("{P}", ["{P} is a {N} [photographer|photojournalist].", "{P} [has|has so far] published {NUMW} books of "
             "photographs.",
             "{P}'s [photographs|pictures] [were|have been] shown in {PL2}.",
             "{P} [works|worked] [mostly|mainly] in black and white."], [
        ("PLACE", "{P} is [known|best known] for [photographs|pictures] of {IND} workers taken in «{A}|[what|which] "
                  "town» during the {ERA}."),
        ("TITLE", "The {N} photographer {P} [published|released] «a book of photographs called {A}|[what|which] "
                  "book of photographs» in {Y}."),
        ("YEARQ", "{P}, a {N} photographer, won the {AWARD} «in {A}|in which year» for [pictures|a series] of {PL}."),
        ("PERSON", "«{A}|Who» [gave|lent] the {N} photographer {P} a first camera, [at|around] the age of {AGE}?"),
    ]),
    ("{PL} Market", ["The {PL} Market is held [every|each] {DAY}.", "The {PL} Market has about {NUM3} stalls.",
                     "The {PL} Market [sits|is held] [beside|near] the {LM}.",
                     "[Farmers|Fishermen|Weavers] [sell|bring] their goods to the {PL} Market."], [
        ("PRODUCT", "The {PL} Market, held [in the square|under the arches|by the river] since {Y}, is [famous|known] "
                    "for its [stalls|traders] selling «{A}|which goods»."),
        ("YEARQ", "The covered hall of the {PL} Market, [designed|built] by {P}, was [opened|finished] «in {A}|in "
                  "[what|which] year»."),
        ("DAYQ", "The {PL} Market, [known|famous] for its {PRODUCT}, is held «every {A}|on which day of the week»."),
        ("PERSON", "«{A}|Who» was granted the right to hold the {PL} Market by the {LORD} {P} in {Y}?"),
    ]),
    ("{P}", ["{P} was a {N} aviator.", "{P} [learned|learnt] to fly in {PL2}.",
             "{P} [set|broke] [several|two] [altitude|distance] records.",
             "{P} [flew|took part in] [air races|mail flights] [across|over] {C}."], [
        ("PLACE", "In {Y} the {N} aviator {P} flew [non-stop|solo] from {PL} to «{A}|[what|which] city» in {NUMW} "
                  "hours."),
        ("YEARQ", "{P} became the first [woman|pilot|person] to fly across the {HILLS} «in {A}|in [what|which] year»."),
        ("PERSON", "«{A}|Who» taught the {N} aviator {P} to fly at the flying school in {PL} in {Y}?"),
        ("PLACE", "In {Y} the {N} aviator {P} crash-landed near «the {TOWNQ} of {A}|which {TOWNQ}», [on the "
                  "way|while flying] to {PL2}."),
    ]),
    ("{PL} Cathedral", ["{PL} Cathedral is the seat of the bishop of {PL}.", "{PL} Cathedral has {NUMW} bells.",
                        "{PL} Cathedral [has|keeps] a [crypt|treasury|library] [from|dating to] the {ERA}."], [
        ("PERSON", "The west front of {PL} Cathedral was [rebuilt|remodelled] in {Y} to [designs|plans] by «the {N} "
                   "architect {A}|[which|what] {N} architect»."),
        ("MATERIAL", "{PL} Cathedral, begun in {Y} [on the site of|beside] an older church, is built "
                     "[mostly|largely] of «{A}|[what|which] stone»."),
        ("YEARQ", "«{PL} Cathedral, begun [on the site|in place] of an older church, was finished in {A}|When was "
                  "{PL} Cathedral, begun [on the site|in place] of an older church, finished»?"),
        ("PERSON", "«{A}|Who» built the {NUM2}-stop organ of {PL} Cathedral, [installed|completed] in {Y} [with money "
                   "from|thanks to] the {BOSS} {P}?"),
        ("PLACE", "The bells of {PL} Cathedral were cast in «the {TOWNQ} of {A}|which {TOWNQ}» [in|during] the {ERA}."),
    ]),
    ("{P}", ["{P} was a {N} mountaineer.", "{P} [led|joined] {NUMW} expeditions.",
             "{P} [wrote|published] a book about [climbing|the {HILLS}] in {Y2}.",
             "{P} [lost|broke] [two fingers|a leg] on a climb [in|above] the {HILLS}."], [
        ("PLACE", "The {N} mountaineer {P} [died|was killed] in {Y} [descending|climbing] a peak above "
                  "«{A}|[what|which] village»."),
        ("PERSON", "{P} made the first [winter|solo] ascent of Mount {SUR} in {Y} with «the guide {A}|[which|what] "
                   "guide»."),
        ("YEARQ", "«The {N} mountaineer {P} first climbed Mount {SUR}, [a|the] highest peak of the {HILLS}, in "
                  "{A}|When did the {N} mountaineer {P} first climb Mount {SUR}, [a|the] highest peak of the "
                  "{HILLS}»?"),
        ("PLACE", "{P}, a mountaineer from {PL2}, [led|ran] a climbing school in «{A}|which [village|hamlet]» from "
                  "{Y}."),
    ]),
    ("{PL} Zoo", ["The {PL} Zoo [covers|spreads over] {NUM2} hectares.",
                  "The {PL} Zoo [was rebuilt after|has been rebuilt since] {Y2}.",
                  "The {PL} Zoo [is|lies] [next to|beside] the {RIV}."], [
        ("ANIMALQ", "The {PL} Zoo in {C} [became|was] the first to breed [the rare|the endangered] «{A}|what "
                    "animal» in captivity, in {Y}."),
        ("PERSON", "«{A}|Who» [was|served as] the first director of the {PL} Zoo in {C}, which opened in {Y}?"),
        ("PLACE", "The {PL} Zoo got its [first|famous] [elephants|giraffes|lions] from «{A}|which [place|city]» in "
                  "{Y}."),
        ("YEARQ", "Visitors to the {PL} Zoo first saw [elephants|giraffes|penguins], [brought|shipped] from {PL2}, "
                  "«in {A}|in what year»."),
    ]),
    ("{P}", ["{P} is a {N} {KEYS}.", "{P} [has recorded|recorded] [widely|for radio].",
             "{P} [teaches|taught] at the conservatory of {PL2}.",
             "{P} [plays|performs] [mostly|largely] [baroque|romantic|modern] music."], [
        ("TITLE", "The {N} [pianist|organist] {P} [made|cut] [a first|a debut] recording, «the album {A}|[what|which] "
                  "album», in {PL} in {YM}."),
        ("PERSON", "{P} [studied|trained] in {PL} [with|under] «the [pianist|composer|teacher] {A}|which "
                   "[pianist|composer|teacher]» [from|beginning in] {Y}."),
        ("YEARQ", "The {N} {KEYS} {P} won the {PL2} competition «in {A}|in which year» with a programme of "
                  "[baroque|romantic|modern] music."),
        ("PLACE", "«{P}, a {N} {KEYS} who [recorded|made] the album {T}, was born in {A}|Where was {P}, a {N} "
                  "{KEYS} who [recorded|made] the album {T}, born»?"),
    ]),
    ("{PL} Fort", ["{PL} Fort [guards|overlooks] the [harbour|pass|river crossing].", "{PL} Fort is now a "
                   "[museum|youth hostel|ruin].",
                   "{PL} Fort has been [restored|opened to visitors] since {Y2}.",
                   "{PL} Fort [has|keeps] [walls|ramparts] {NUM2} metres thick."], [
        ("COUNTRY", "{PL} Fort, built in {Y} to guard the {COAST}, was [held|occupied] for [a decade|two decades] by "
                    "the troops of «{A}|[which|what] country»."),
        ("YEARQ", "{PL} Fort, a [star-shaped|square|low] fort [above|outside] {PL}, was [abandoned|disarmed] «in {A}|"
                  "in [what|which] year»."),
        ("PERSON", "«{A}|Who» designed {PL} Fort, built in {Y} to guard the {COAST} of {C}?"),
        ("PERSON", "«{A}|Who» [commanded|held] {PL} Fort [during|through] the siege of {Y}, [when|as] {C2} troops "
                   "[landed|attacked] on the {COAST}?"),
    ]),
    ("{PL} Falls", ["{PL} Falls [drops|plunges] about {NUM2} metres [in|over] [two|three|a single] [steps|leaps|drop].",
                    "{PL} Falls [freezes|is frozen] [most winters|in hard winters].",
                    "A [footpath|mule track|wooden stair] [leads|climbs] from {PL2} to {PL} Falls."], [
        ("PERSON", "«{A}|Who» [painted|sketched] {PL} Falls on the {RIV} in {Y}, making it a [favourite|"
                   "popular] stop for [travellers|tourists]?"),
        ("PLACE", "{PL} Falls, where the {RIV} [tumbles|pours] off the {TERRAIN}, lies [upstream|a short walk] from "
                  "«{A}|which [village|hamlet]»."),
        ("YEARQ", "A small [power station|sawmill] [was built|went up] below {PL} Falls on the {RIV} «in {A}|in what "
                  "year»."),
        ("PERSON", "The [gorge|pool] below {PL} Falls is named after «the [miller|ferryman|poet] {A}|which "
                   "[miller|ferryman|poet]», who drowned there in {Y}."),
    ]),
    ("{SUR} Cave", ["{SUR} Cave [is|runs] about {NUM3} metres [long|deep].",
                    "[Bats|Blind beetles|Cave spiders] [live|breed] in {SUR} Cave.",
                    "{SUR} Cave is [closed|shut] to visitors [in winter|during the bat season]."], [
        ("PERSON", "«{A}|Who» [explored|surveyed] {SUR} Cave, [a|the] limestone cave [near|above] {PL}, with "
                   "[candles|ropes and ladders] in {Y}?"),
        ("PLACE", "{SUR} Cave, [known|famous] for its [stalactites|underground river|painted walls], [opens|lies] "
                  "[above|beside|outside] «{A}|which [village|place]»."),
        ("YEARQ", "[Shepherds|Quarrymen|Two boys] [found|stumbled on] {SUR} Cave [while|when] [looking for|chasing] a "
                  "[lost|stray] [goat|dog] «in {A}|in what year»."),
        ("SURP", "{SUR} Cave, [found|discovered] in {Y} [near|above] {PL}, is named after «the [geologist|priest|"
                 "schoolmaster] {A}|which [geologist|priest|schoolmaster]»."),
    ]),
    ("{PL} Hospital", ["{PL} Hospital has about {NUM3} beds.", "{PL} Hospital [runs|has] a [nursing school|"
                       "maternity ward|burns unit].", "{PL} Hospital [stands|sits] [beside|near] the {RIV}."], [
        ("PERSON", "«{A}|Who» [founded|endowed] {PL} Hospital, [opened|first opened] in {Y} [for|to care for] "
                   "[sailors|miners|the poor] of {PL}?"),
        ("YEARQ", "{PL} Hospital [performed|carried out] the first [heart|kidney|hip] operation in {C} «in {A}|in "
                  "which year»."),
        ("DISEASE", "{PL} Hospital was [built|set up] in {Y} [during|after] an [outbreak|epidemic] of «{A}|what "
                    "disease»."),
        ("PERSON", "The [east|new|children's] wing of {PL} Hospital, [added|built] in {Y}, is named after «the "
                   "[nurse|surgeon|doctor] {A}|which [nurse|surgeon|doctor]»."),
    ]),
    ("{PL} Brewery", ["{PL} Brewery [brews|makes] about {NUM3},000 [barrels|litres] a year.",
                      "{PL} Brewery has been [family-owned|owned by a cooperative] since {Y2}.",
                      "{PL} Brewery [uses|draws] water from [a spring|a well] [below|beside] the [works|yard]."], [
        ("PERSON", "«{A}|Who» [started|opened] {PL} Brewery in a [disused|former] {BUILDING} in {PL} in {Y}?"),
        ("BEER", "{PL} Brewery, [set up|opened] in {Y}, is best known for «a [dark|strong|pale] {A}|which "
                 "[dark|strong|pale] beer»."),
        ("YEARQ", "{PL} Brewery [won|took] its first [medal|gold medal] at the {PL2} [fair|exhibition] «in {A}|in "
                  "what year»."),
        ("PLACE", "The [barley|hops] for {PL} Brewery [are|is] [grown|harvested] on farms around «{A}|which "
                  "[village|town]»."),
    ]),
    ("{PL} Choir", ["The {PL} Choir has about {NUM2} [singers|members|voices].",
                    "The {PL} Choir [rehearses|sings] [in|at] the {LM}.",
                    "The {PL} Choir [tours|has toured] [abroad|in {C}] [every|each] [summer|spring]."], [
        ("PERSON", "«{A}|Who» [conducted|led] the {PL} Choir for [two|three|four] decades [after|from] {Y}, [taking|"
                   "leading] it on [tours|a tour] [to|of] {C}?"),
        ("PERSON", "The {PL} Choir, [formed|started] in {Y}, [first sang|gave the first performance of] a "
                   "[mass|requiem|cantata] by «the composer {A}|which composer»."),
        ("YEARQ", "The {PL} Choir [won|took] the {AWARD} [in {PL2}|abroad] «in {A}|in which year»."),
        ("PLACE", "The {PL} Choir [made|recorded] [its|a] [first|best-known] record in a church in «{A}|which "
                  "town»."),
    ]),
    ("{PL} National Park", ["{PL} National Park covers {NUM3} square kilometres.",
                            "{PL} National Park [is home to|shelters] [wolves|lynx|bears|eagles].",
                            "[Walkers|Hikers] [enter|reach] {PL} National Park from {PL2}."], [
        ("YEARQ", "{PL} National Park, [which protects|set up to protect] the {TERRAIN} of {C}, was [created|"
                  "established] «in {A}|in what year»."),
        ("PERSON", "«{A}|Who» [campaigned|fought] for [years|a decade] to [save|protect] the {TERRAIN} that became "
                   "{PL} National Park in {Y}?"),
        ("ANIMALSQ", "{PL} National Park, [created|set up] in {Y} in the {TERRAIN}, was [founded|made] [mainly|"
                     "chiefly] to protect «{A}|which animals»."),
        ("PLACE", "The [visitor centre|main gate|ranger station] of {PL} National Park, [set up|created] in {Y} to "
                  "protect the {TERRAIN} of {C}, [is|stands] in «{A}|which [village|town]»."),
    ]),
    ("{PL} Public Library", ["{PL} Public Library holds about {NUM3},000 books.",
                             "{PL} Public Library [lends|has lent] [maps|records|tools] [since|from] {Y2}.",
                             "{PL} Public Library [is|stays] open [late|until nine] on {DAY}s."], [
        ("PERSON", "«{A}|Who» [gave|left] the money for {PL} Public Library, [opened|built] in {Y} [in|beside] the "
                   "{DISTRICT}?"),
        ("BUILDINGQ", "{PL} Public Library has been housed [since {Y}|for decades] in «a former {A}|what former "
                      "building»."),
        ("PERSON", "The [rare book|map|music] collection of {PL} Public Library [came|was bought] from «the "
                   "[collector|bookseller|bishop] {A}|which [collector|bookseller|bishop]» in {Y}."),
        ("YEARQ", "{PL} Public Library [lost|saw] [half|much] of its [books|collection] [to|in] {DISASTER} «in {A}|"
                  "in what year»."),
    ]),
    ("{PL} wine", ["{PL} wine is [made|grown] on [steep|terraced|chalky] slopes [above|along] the {RIV}.",
                   "{PL} wine has had a protected name since {Y2}.",
                   "[Most|Much] {PL} wine is [drunk|sold] [locally|in {C}]."], [
        ("GRAPE", "{PL} wine, a [white|red|sweet|sparkling] wine from {REGC}, is made [mostly|largely] from «the {A} "
                  "grape|which grape»."),
        ("PERSON", "«{A}|Who» [planted|laid out] the first [vineyards|vines] for {PL} wine on the {RIV} in {Y}?"),
        ("PLACE", "{PL} wine is [aged|stored] [in|inside] [old|cool] [tunnels|cellars] [cut into the rock|dug] "
                  "[beneath|under] «the {TOWNQ} of {A}|which {TOWNQ}»."),
        ("YEARQ", "[A blight|Frost|Phylloxera] [destroyed|ruined] [most|nearly all] of the vineyards [of|for] {PL} "
                  "wine «in {A}|in which year»."),
    ]),
    ("{T}", ["{T} is a [long|short|narrative] poem in {NUMW} [cantos|parts|stanzas].",
             "{T} [is|was] [learned|recited] [by heart|aloud] in schools in {C}.",
             "{T} [has been|was] [set to music|translated] [several|many] times."], [
        ("PERSON", "«{A}|Who» [wrote|composed] {T}, a [poem|ballad] about a [shipwreck|flood|border war|lost child] "
                   "on the {COAST} of {C}, in {Y}?"),
        ("PLACE", "{T}, a poem by {P}, [was written|is set] [at|in] «the {TOWNQ} of {A}|which {TOWNQ}», where [the "
                  "poet|{P}] [spent|passed] the winter of {Y}."),
        ("YEARQ", "{T}, [the|a] [best-known|longest] poem of the {N} poet {P}, [first appeared|was first printed] «in "
                  "{A}|in what year» in {MAG}."),
        ("PERSON", "{T}, a poem by {P} first printed in {Y}, was [written for|dedicated to] «{A}|whom»."),
    ]),
    ("{PL} Glacier", ["{PL} Glacier is about {NUM2} kilometres long.", "{PL} Glacier [has shrunk|is retreating] "
                      "[fast|steadily] since {Y2}.", "{PL} Glacier [feeds|gives rise to] the {RIV}."], [
        ("PERSON", "«{A}|Who» [first measured|first mapped] {PL} Glacier, [high|far up] in the {HILLS}, in {Y}?"),
        ("PLACE", "The [snout|tongue] of {PL} Glacier [ends|reaches down] [a few|some] kilometres above «{A}|which "
                  "village»."),
        ("YEARQ", "A [lake|flood] [burst|broke] out of {PL} Glacier and [swept|poured] down the valley «in {A}|in what "
                  "year»."),
    ]),
    ("{PL} Puppet Theatre", ["The {PL} Puppet Theatre [seats|holds] about {NUM3} people.",
                             "The {PL} Puppet Theatre [plays|performs] [mostly|largely] for children.",
                             "The {PL} Puppet Theatre [uses|keeps] [string|rod|glove] puppets."], [
        ("PERSON", "«{A}|Who» [carved|made] the first puppets of the {PL} Puppet Theatre, [opened|founded] in {Y}?"),
        ("TITLE", "The {PL} Puppet Theatre, [founded|set up] by {P} in {Y}, [opened|began] with «a play called "
                  "{A}|what play»."),
        ("BUILDINGQ", "The {PL} Puppet Theatre [performs|plays] in «an old {A}|what old building» [in|near] the "
                      "{DISTRICT} of {PL}."),
    ]),
    ("{PL} Tramway", ["The {PL} Tramway has {NUMW} lines.", "The {PL} Tramway carries about {NUM2} million "
                      "[passengers|riders] a year.", "The {PL} Tramway [uses|runs] [green|yellow|red] cars."], [
        ("YEARQ", "The {PL} Tramway, [first worked|once pulled] by horses, [was electrified|went electric] «in {A}|in "
                  "what year»."),
        ("PERSON", "«{A}|Who» [ran|managed] the {PL} Tramway [when|as] it [opened|started] in {Y} with [horse|steam] "
                   "trams?"),
        ("PLACE", "The [longest|first] line of the {PL} Tramway [runs|goes] from the {DISTRICT} [out|all the way] to "
                  "«{A}|which [suburb|village]»."),
    ]),
]

_COLOURS = ["red and white", "blue and gold", "green and black", "black and white", "amber and black",
            "claret and blue", "all-white", "sky-blue"]
_REG_ADJ = {"north": "northern", "south": "southern", "east": "eastern", "west": "western",
            "north-east": "north-eastern", "north-west": "north-western", "south-east": "south-eastern",
            "south-west": "south-western"}


def _region_of_country(rng, s) -> str:
    """'the north of Valdoria', 'Valdoria's north' or 'northern Valdoria'."""
    forms = [f"the {s['REG']} of {s['C']}", f"{s['C']}'s {s['REG']}"]
    if s["REG"] in _REG_ADJ:
        forms.append(f"{_REG_ADJ[s['REG']]} {s['C']}")
    return rng.choice(forms)


_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _answer_as(slot: str, options: list[str]):
    """An answer drawn for a slot the kind's intros also name, so an intro never contradicts the fact."""
    def draw(rng, s):
        s[slot] = rng.choice(options)
        return s[slot]
    return draw


def _answer_later(rng, s) -> str:
    s["Y"] = str(any_year(rng, 1850, 1950))
    s["YA"] = str(int(s["Y"]) + rng.randint(12, 60))
    return s["YA"]


def _answer_y(rng, s) -> str:
    s["Y"] = s["YA"] = str(any_year(rng))
    return s["YA"]


_GEN["COLOUR_PAIR"] = _choice(_COLOURS)
_GEN["COLOUR_PAIRQ"] = _answer_as("COLOUR_PAIR", _COLOURS)
_GEN["COUNT"] = _answer_as("NUMW", _NUMW)
_GEN["REGC"] = _region_of_country
_GEN["STATUSQ"] = _answer_as("STATUS", _STATUS)
_GEN["INSTRQ"] = _answer_as("I", _INSTRUMENTS)
_GEN["DAYQ"] = _answer_as("DAY", _DAYS)
_GEN["NICK"] = _choice(NICKNAMES)
_GEN["NICKQ"] = _answer_as("NICK", NICKNAMES)
_GEN["AWARDQ"] = _GEN["AWARD"]
_GEN["CLUBQ"] = _GEN["CLUB"]
_GEN["PARTYQ"] = _choice([p for p in PARTIES if p != "independent"])
_GEN["BUILDINGQ"] = _choice(BUILDINGS)
_GEN["OCCQ"] = _choice(_OCCASIONS)
_GEN["TOWNQ"] = _choice(["town", "market town", "port town", "mill town", "spa town", "river town", "mining town",
                         "garrison town", "university town", "cathedral city", "fishing village"])
_GEN["KEYS"] = _choice(["pianist", "organist", "harpsichordist"])
_GEN["ANIMALSQ"] = _choice(["snow leopards", "okapis", "red pandas", "white storks", "lynxes", "bison", "tapirs",
                            "sea eagles", "black rhinos", "pygmy hippos", "giant otters", "Przewalski's horses"])
_GEN["YEARL"] = _answer_later
_GEN["YEARY"] = _answer_y
_GEN["DISEASE"] = _choice(["cholera", "typhus", "smallpox", "tuberculosis", "diphtheria", "influenza", "scarlet fever",
                           "yellow fever"])
_GEN["BEER"] = _choice(["porter", "lager", "stout", "wheat beer", "ale", "bock", "rye beer", "smoked beer"])
_GEN["GRAPE"] = _choice(["Kerner", "Malvora", "Zelen", "Sarvino", "Tamjanka", "Rosara", "Blaufeld", "Ostrelli",
                         "Vermelo", "Grauling"])
_GEN["FESTT"] = lambda r, s: s["FEST"].title()
_GEN["MATERIAL"] = _choice(MATERIALS)
_GEN["USE"] = _choice(_BREED_USES)
_GEN["YEARQ"] = _answer_year
_GEN["DAY"] = _choice(_DAYS)
_GEN["GOODS"] = lambda r, s: r.choice(["sewing machine", "stove", "bicycle", "loom", "typewriter", "lamp", "pump",
                                        "telescope", "camera", "organ", "clock", "wheelchair"])
_GEN["ANIMALQ"] = _choice(["snow leopard", "okapi", "red panda", "white stork", "lynx", "bison", "tapir", "sea eagle",
                           "black rhino", "pygmy hippo", "giant otter", "Przewalski's horse"])
_GEN["ISLK"] = _choice(["rocky", "low", "wooded", "volcanic", "windswept", "sandy"])
_GEN["MIN"] = lambda r, s: str(r.randint(78, 185))
_GEN["COACH"] = _choice(["coach", "manager", "trainer", "head coach"])
_GEN["INGR2"] = lambda r, s: r.choice([i for i in ("dill", "garlic", "sour cream", "honey", "leeks", "poppy seeds",
                                                    "onions", "pepper", "caraway", "apples") if i != s.get("INGR")])

# How a second sentence names the paragraph's subject (kinds titled by a person: the surname), by kind index.
_REFS: dict[int, list[str]] = {
    0: ["It", "The book"], 2: ["The club", "It"], 3: ["The river", "It"], 4: ["It", "The organisation"],
    5: ["The town", "It"], 7: ["The building", "It"], 8: ["The film", "It"], 10: ["The species", "It"],
    11: ["The festival", "It"], 13: ["The ship", "She"], 17: ["The mountain", "It"], 18: ["The paper", "It"],
    19: ["The bridge", "It"], 20: ["The dish", "It"], 22: ["The university", "It"], 23: ["The lighthouse", "It"],
    24: ["The island", "It"], 25: ["The line", "It"], 26: ["The museum", "It"], 27: ["The opera", "It"],
    28: ["The battle", "It"], 29: ["The castle", "It"], 30: ["The church", "It"], 31: ["The magazine", "It"],
    32: ["The series", "It"], 33: ["The firm", "The company", "It"], 34: ["The ground", "It"],
    37: ["The language", "It"], 38: ["The painting", "It"], 39: ["The airport", "It"], 40: ["The cheese", "It"],
    41: ["The canal", "It"], 42: ["The breed", "It"], 43: ["The comet", "It"], 44: ["The school", "It"],
    45: ["The treaty", "It"], 46: ["The song", "It"], 47: ["The garden", "It"],
    48: ["The observatory", "It"], 49: ["The dam", "It"], 50: ["The prize", "It"], 51: ["The abbey", "It"],
    52: ["The tunnel", "It"], 53: ["The ballet", "It"], 54: ["The zoo", "It"], 57: ["The market", "It"],
    59: ["The cathedral", "It"], 61: ["The zoo", "It"], 63: ["The fort", "It"], 64: ["The waterfall", "It"],
    65: ["The cave", "It"], 66: ["The hospital", "It"], 67: ["The brewery", "It"], 68: ["The choir", "It"],
    69: ["The park", "It"], 70: ["The library", "It"], 71: ["The wine", "It"], 72: ["The poem", "It"],
    73: ["The glacier", "It"], 74: ["The theatre", "It"], 75: ["The tramway", "It"],
}

_ASKED = re.compile(r"«([^«»|]*)\|([^«»]*)»")
_ASKED_SPAN = re.compile(r"«[^«»]*»")
_GROUP = re.compile(r"\[([^\[\]]*)\]")


def _same_wording(frame: str, rng: random.Random) -> str:
    """Resolve the [a|b] groups of each «sentence part|question part» span, an identical group on both sides the
    same way, so a question that fronts its wh-word still repeats the sentence's wording."""
    def span(m: re.Match) -> str:
        text, memo = m.group(0), {}
        while True:
            out = _GROUP.sub(lambda g: memo.setdefault(g.group(0), rng.choice(g.group(1).split("|"))), text)
            if out == text:
                return out
            text = out
    return _ASKED_SPAN.sub(span, frame)


def _hp_fact(rng: random.Random) -> tuple[str, str, str, str, str, int]:
    """(paragraph title, intro sentence, fact sentence, question, answer, kind index) of one drawn fact kind."""
    while True:
        k = rng.randrange(len(_KINDS))
        title_t, intros, facts = _KINDS[k]
        ans_slot, frame = rng.choice(facts)
        if ans_slot.startswith("YEAR") and rng.random() < 0.5:
            continue  # years are the easiest slot to ask about in every kind: keep them from crowding out the rest
        slots = _Slots(rng)
        answer = _GEN[ans_slot](rng, slots)
        slots["A"] = "\x00"
        resolved = alt(_same_wording(frame.format_map(slots), rng), rng)
        sent = _ASKED.sub(r"\1", resolved).replace("\x00", answer)
        question = _ASKED.sub(r"\2", resolved)
        sent, question = sent[:1].upper() + sent[1:-1] + ".", question[:1].upper() + question[1:-1] + "?"
        title = title_t.format_map(slots)
        intro = alt(rng.choice(intros).format_map(slots), rng)
        if answer not in question and answer not in intro and answer in sent:
            return title, fix_articles(intro), fix_articles(sent), fix_articles(question), answer, k


def _hp_paragraph(rng: random.Random) -> tuple[str, list[str], int, str, str]:
    """(title, sentences, index of the fact sentence, question, answer). A second sentence mostly names the
    subject as Wikipedia does ('The museum ...', 'It ...', a person's surname)."""
    title, intro, sent, question, answer, k = _hp_fact(rng)
    if rng.random() < 0.5:
        return title, [sent, " " + _refer(rng, intro, title, k)], 0, question, answer
    return title, [intro, " " + sent], 1, question, answer


def _refer(rng: random.Random, intro: str, title: str, k: int) -> str:
    if rng.random() < 0.25:
        return intro
    for subject in ("The " + title, title):
        if intro.startswith(subject + " "):
            ref = rng.choice(_REFS[k]) if k in _REFS else title.split()[-1]
            return ref + intro[len(subject):]
    return intro


def generate_easy_hotpotqa(n: int, seed: int, n_distractors: int = 6) -> list[dict]:
    rng = random.Random(f"easy-hotpotqa|{seed}")
    out = []
    while len(out) < n:
        title, sents, idx, question, answer = _hp_paragraph(rng)
        context = [[title, sents]]
        titles = {title}
        while len(context) < 1 + n_distractors:
            t, s, _, _, _ = _hp_paragraph(rng)
            if not any(t in u or u in t for u in titles):
                titles.add(t)
                context.append([t, s])
        rng.shuffle(context)
        out.append({"_id": f"easy-{len(out):05d}", "question": question, "answer": answer,
                    "supporting_facts": [[title, idx]], "context": context, "type": "bridge", "level": "easy"})
    return out
