"""Easy StrategyQA items: a yes/no question restating one fact (see rc1.data.builtin_easy).

Each fact domain ("kind") states one claim about a subject: a predicate holding the key detail {v} and a few
modifiers (participial phrases, appositions, relative clauses, adverbials) that say more about the subject.
`_render` lays the same claim out as the fact sentence and as the question in one of several sentence
structures (plain, apposition, fronted clause, trailing clause, "Is it true that ..."), the same words in
both, so the question restates its evidence while the family does not repeat one frame."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from rc1.data.builtin_easy_common import (
    ANIMAL, ARTS, CLUBS, COUNTRIES, CRE_A, CRE_B, DISH_A, DISH_B, ERAS, FESTIVALS, INDUSTRY, INGREDIENTS, LANDMARK,
    MATERIALS, MONTHS, MUSIC, NATS, ORG, REGIONS, SCIENCE, SPORTS, TERRAIN, TOWNS, WRITERS, any_person, any_place,
    any_title, any_year, fix_articles, other_than,
)
from rc1.text import ngrams, words
from rc1.data.builtin_vocab import CITY_ADJ, LOCAL_FOODS, PERSON_ADJ, PLACE_ADJ, RIVERS_A, RIVERS_B, TITLE_ADJ, \
    TITLE_NOUN, cap, surname

# ------------------------------------------------------------------ vocabulary of the easy StrategyQA kinds
SQ_FOODS = {"herbivore": ["grass", "fruit", "leaves", "seeds", "bark", "roots", "berries", "nectar", "moss", "algae",
                          "lichen", "pine needles", "fallen figs", "acorns", "water lilies", "seaweed", "clover",
                          "pollen", "wild oats", "cactus pads"],
            "carnivore": ["insects", "snails", "small fish", "frogs", "worms", "crabs", "mice", "spiders", "beetles",
                          "shrimp", "eels", "termites", "grasshoppers", "mussels", "moths", "tadpoles"]}
SQ_ENDURE = ["hold its breath", "stay under water", "go without food", "fly without landing", "survive without water",
             "stay buried in the mud", "hang motionless from a branch", "sleep through the cold", "swim against the current",
             "keep its eggs warm without eating", "stand on one leg", "glide on rising air"]
SQ_SIZE = ["small", "little", "rare", "tiny", "shy", "secretive", "nocturnal", "slender", "dwarf", "long-tailed",
           "striped", "spotted", "burrowing", "short-legged", "sharp-eyed", "pale", "speckled", "sleek"]
SQ_RANGES = ["Mountains", "Hills", "Highlands", "Uplands", "Fells", "Peaks"]
SQ_MUSEUMS = ["National Gallery", "Museum of Fine Arts", "Municipal Museum", "Civic Art Collection",
              "Academy Gallery", "Palace Museum", "Cathedral Treasury", "Modern Art Hall"]
SQ_MEDIA = ["oil", "tempera", "watercolour", "charcoal", "pastel", "gouache", "ink"]
SQ_INSTRUMENTS = ["cello", "oboe", "violin", "harp", "trumpet", "bassoon", "clarinet", "piano", "viola", "flute",
                  "horn", "guitar", "accordion", "marimba", "double bass", "harpsichord"]
SQ_WORK_FORMS = ["Concerto", "Rhapsody", "Fantasia", "Serenade", "Suite", "Nocturne", "Sonata", "Ballade"]
SQ_SKY = ["comet", "asteroid", "nebula", "star cluster", "variable star", "supernova", "dwarf galaxy", "double star"]
SQ_BRIDGE_TYPES = ["suspension", "cantilever", "stone arch", "swing", "cable-stayed", "truss", "pontoon",
                   "covered timber", "lift", "brick viaduct"]
SQ_PARTIES = ["Liberal", "Labour", "Green", "Conservative", "Agrarian", "Social Democratic", "Radical", "Farmers'",
              "Christian Democratic", "Progressive", "Centre", "Workers'"]
SQ_BIRDS = ["puffins", "gannets", "terns", "cormorants", "pelicans", "albatrosses", "kittiwakes", "penguins",
            "herons", "flamingos", "storks", "shearwaters", "guillemots", "spoonbills"]
SQ_PLANT_A = ["Marsh", "Frost", "Dune", "Cliff", "Dawn", "Ember", "Silver", "Moon", "Velvet", "Shadow", "Lantern",
              "Copper", "Amber", "Bell", "Thorn", "Saffron", "Mist", "Ash"]
SQ_PLANT_B = ["Lily", "Orchid", "Bellflower", "Thistle", "Poppy", "Iris", "Heather", "Sage", "Crocus", "Violet",
              "Primrose", "Clover", "Gentian", "Campion", "Mallow", "Larkspur"]
SQ_PLANT_KINDS = ["shrub", "climbing vine", "low herb", "flowering tree", "creeping perennial", "bulb", "wildflower",
                  "marsh plant", "alpine cushion plant"]
SQ_COLOURS = ["white", "yellow", "crimson", "violet", "orange", "pink", "scarlet", "purple", "cream", "magenta"]
SQ_FIELDS = ["medicine", "law", "architecture", "agriculture", "music", "mining", "forestry", "theology", "engineering",
             "economics", "veterinary science", "navigation", "pharmacy", "fine art", "astronomy"]
SQ_UNIS = ["University", "Polytechnic", "Technical College", "Academy", "Lyceum", "Athenaeum", "Institute"]
SQ_FILM_GENRES = ["drama", "comedy", "documentary", "thriller", "western", "war film", "musical", "crime film",
                  "ghost story", "road movie", "costume drama", "silent film"]
SQ_DEVICES = ["folding bicycle", "steam plough", "diving bell", "pressure cooker", "typewriter", "ice skate",
              "gas lamp", "sewing machine", "pocket camera", "seed drill", "cable car", "hearing trumpet",
              "bread slicer", "water meter", "traffic light", "fire escape"]
SQ_EVENTS = ["high jump", "pole vault", "marathon", "400 metres", "javelin", "long jump", "shot put", "steeplechase",
             "decathlon", "hammer throw", "triple jump", "discus", "100 metres", "race walk"]
SQ_SHIP_TYPES = ["steamer", "schooner", "clipper", "paddle steamer", "icebreaker", "ferry", "whaler", "tall ship",
                 "mail ship", "liner", "lightship", "cable layer"]
SQ_LINES = ["Line", "Navigation Company", "Shipping Company", "Packet Company", "Steamship Line"]
SQ_FREQ = ["daily", "weekly", "fortnightly", "monthly", "quarterly"]
SQ_PAPERS = ["Gazette", "Courier", "Herald", "Chronicle", "Post", "Observer", "Sentinel", "Tribune", "Messenger",
             "Examiner", "Echo", "Dispatch"]
SQ_STREETS = ["Harbour Street", "the market square", "Cathedral Lane", "Mill Road", "the river embankment",
              "Station Road", "Bridge Street", "the old ramparts"]
SQ_OCCASIONS = ["festivals", "weddings", "harvest time", "winter evenings", "funerals", "market days", "name days",
                "the first snowfall", "christenings", "midsummer", "fishing-fleet homecomings", "family reunions"]
SQ_DISH_KINDS = ["dish", "stew", "pastry", "soup", "flatbread", "dumpling", "pie", "porridge", "casserole"]
SQ_SOURCES = ["according to the {pl} Almanac of {y}", "according to {p}'s guidebook of {y}",
              "as the {pl} Almanac of {y} records", "as {p} noted in {y}", "in the {y} edition of the {pl} Gazetteer",
              "going by the {y} {c} yearbook", "as {p}'s travel diary of {y} describes",
              "if the {pl} Encyclopedia of {y} is right", "as {p} reported in the {pl} Courier in {y}"]


@dataclass
class _Claim:
    """One fact about `subj`: `aux` + `pred` in the question ('Is' + 'a port town on ...'), `finite` in the fact
    (defaults to aux + pred; 'feeds on ...' for a 'Does' question). `mods` are (kind, text) with kind
    'part' (participial: fronted or apposed), 'np' (apposition), 'rel' (relative clause), 'adv' (adverbial:
    fronted or trailing). None of them holds the asked detail."""
    subj: str
    aux: str
    pred: str
    finite: str = ""
    mods: list[tuple[str, str]] = field(default_factory=list)
    step1: list[str] = field(default_factory=list)
    step2: str = "Is #1 {v}?"
    value: str = ""
    alts: list[str] = field(default_factory=list)
    description: str = ""


def _c(rng, seq):
    return rng.choice(seq)


_GROUP = re.compile(r"\[([^\[\]]*)\]")


def _r(rng: random.Random, text: str) -> str:
    """`text` with its [a|b|c] groups resolved (innermost first; an empty option drops the group)."""
    while "[" in text:
        text = _GROUP.sub(lambda m: rng.choice(m.group(1).split("|")), text)
    return " ".join(text.split())


def _claim(rng, subj, preds, mods, step1, value, alts, description, step2="Is #1 {v}?") -> _Claim:
    """A claim with one of `preds` ((aux, question predicate, fact predicate or '')), every phrase resolved."""
    aux, pred, finite = _c(rng, preds)
    state = rng.getstate()
    pred_r = _r(rng, pred)
    if finite:  # written group for group like `pred`: the same draws give the same words
        rng.setstate(state)
        finite_r = _r(rng, finite)
    else:
        finite_r = ""
    return _Claim(_r(rng, subj), aux, pred_r, finite_r,
                  mods=[(m[0], _r(rng, m[1])) + tuple(m[2:]) for m in mods],
                  step1=[_r(rng, x) for x in step1], step2=step2, value=value, alts=alts, description=description)


def _adj(rng, p=0.35):
    return f"{_c(rng, PLACE_ADJ)} " if rng.random() < p else ""


def _kind_diet(rng, p, pl, y, nat, c):
    cr = f"{_c(rng, CRE_A)} {_c(rng, CRE_B)}"
    diet = _c(rng, list(SQ_FOODS))
    ter = _c(rng, TERRAIN)
    an = _c(rng, ANIMAL)
    size = _c(rng, SQ_SIZE)
    return _claim(rng, f"the {cr}", [
        ("does", "[feed|live|survive|subsist] [mainly|mostly|chiefly|largely] on {v}",
         "[feeds|lives|survives|subsists] [mainly|mostly|chiefly|largely] on {v}"),
        ("does", "[forage|hunt|search] [mostly|mainly] for {v}", "[forages|hunts|searches] [mostly|mainly] for {v}"),
        ("is", "an animal [whose diet|whose food] [consists|is made up] [mostly|largely] of {v}", ""),
        ("does", "depend [almost entirely|for most of its food] on {v}", "depends [almost entirely|for most of its food] on {v}"),
    ], [("np", f"a {size} {diet} of the {ter} of {c}", "where"),
        ("part", f"[first described|named|catalogued|photographed|rediscovered|sketched] by {p} in {y}"),
        ("rel", f"which [is found only|lives only|still thrives] in the {ter} of {c}", "where"),
        ("adv", f"in the {ter} of {c}", "where"), ("np", f"a {size} {an} [of|native to|from] {c}", "where"),
        ("adv", "[in winter|during the dry season|in spring|after dark|at dawn|in the breeding season]")],
        [f"What does the {cr} [mainly|chiefly] [feed on|eat]?", f"What is the [main|usual] food of the {cr}?"],
        _c(rng, SQ_FOODS[diet]), SQ_FOODS[diet], "species of animal")


def _kind_endure(rng, p, pl, y, nat, c):
    cr = f"{_c(rng, CRE_A)} {_c(rng, CRE_B)}"
    act = _c(rng, SQ_ENDURE)
    num = _c(rng, ["two", "three", "five", "six", "ten", "twelve", "twenty", "forty", "eight", "fifteen"])
    an = _c(rng, ANIMAL)
    return _claim(rng, f"the {cr}", [
        ("can", f"{act} for up to {num} {{v}}", ""), ("can", f"{act} for as long as {num} {{v}}", ""),
        ("is", f"able to {act} for up to {num} {{v}}", ""),
    ], [("np", f"a {_c(rng, SQ_SIZE)} {an} [of|from|native to] [{c}|{pl}]", "np"),
        ("rel", f"which {p} [filmed|tracked|tagged|watched|studied] [in {y}|for {rng.randint(2, 30)} years]"),
        ("part", f"[found|seen|common] [along|among|across] the {_c(rng, TERRAIN)} of {c}"),
        ("adv", "[in captivity|in the wild|when threatened|in cold weather|during droughts]")],
        [f"For how long can the {cr} {act}?", f"How long is the {cr} able to {act}?"],
        _c(rng, ["minutes", "hours", "days", "weeks"]), ["minutes", "hours", "days", "weeks", "months"],
        "species of animal", step2=f"Is #1 at least {num} {{v}}?")


def _kind_town(rng, p, pl, y, nat, c):
    town, side = _c(rng, TOWNS), _c(rng, REGIONS[:8])
    coast = "[coast|shore|seaboard|coastline]"
    return _claim(rng, pl, [
        ("is", f"a [{_c(rng, CITY_ADJ)} |]{town} on the {side} {coast} of {{v}}", ""),
        ("does", f"[lie|sit|stand] on the {side} {coast} of {{v}}", f"[lies|sits|stands] on the {side} {coast} of {{v}}"),
        ("is", f"[the largest|the oldest|the busiest|the only] {town} on the {side} {coast} of {{v}}", ""),
        ("does", f"belong to {{v}}, [on|along] its {side} {coast}", f"belongs to {{v}}, [on|along] its {side} {coast}"),
    ], [("part", f"[known|famous|noted|remembered|prized] for its [{_c(rng, INDUSTRY)} [industry|trade|works]|annual "
                 f"{_c(rng, FESTIVALS)} [fair|festival]|{_c(rng, LOCAL_FOODS)}]"),
        ("np", f"the [birthplace|home town|last home] of the {_c(rng, WRITERS + ARTS)} {p}"),
        ("rel", f"which [was granted its charter|got its railway station|lost half its houses to a fire] in {y}", "y"),
        ("part", f"[first settled|fortified|rebuilt] in {y}", "y"),
        ("adv", f"[today|since {y}|after {y}]", "y")],
        [f"[What|Which] country is {pl} in?", f"In which country does {pl} lie?"], c, COUNTRIES, "town")


def _kind_born(rng, p, pl, y, nat, c):
    occ = _c(rng, WRITERS + ARTS + SCIENCE + MUSIC)
    ev = rng.randrange(5)
    step = {0: [f"In what year was {p} born?", f"When was {p} born?"],
            1: [f"In what year did {p} [move to|settle in] {pl}?"],
            2: [f"When did {p} open a [studio|workshop] in {pl}?"],
            3: [f"In what year did {p} die?", f"When did {p} die?"],
            4: [f"When did {p} marry?", f"In what year did {p} marry?"]}[ev]
    preds = {0: [("was", f"born in {pl} in {{v}}", ""), ("was", f"born in {{v}} in {pl}", "")],
             1: [("did", f"[move to|settle in|emigrate to] {pl} in {{v}}", f"[moved to|settled in|emigrated to] {pl} in {{v}}")],
             2: [("did", f"open a [studio|workshop|small school] in {pl} in {{v}}",
                  f"opened a [studio|workshop|small school] in {pl} in {{v}}")],
             3: [("did", f"die in {pl} in {{v}}", f"died in {pl} in {{v}}"), ("was", f"buried in {pl} in {{v}}", "")],
             4: [("did", f"marry {any_person(rng)} in {pl} in {{v}}", f"married {any_person(rng)} in {pl} in {{v}}")]}[ev]
    if ev == 4:  # the same spouse in fact and question
        preds = [(a, q, q.replace("marry", "married")) for a, q, _ in preds]
    return _claim(rng, p, preds,
                  [("np", f"[a|the] [{_c(rng, PERSON_ADJ)} |]{nat} {occ}", "np"),
                   ("rel", f"who [trained under|studied with|worked for|corresponded with] {any_person(rng)}"),
                   ("part", f"[best remembered|known|admired|praised] for [a|one] [early|late|single|celebrated] "
                            f"[series of portraits|book of essays|string quartet|map of the coast|study of tides|"
                            f"set of harbour photographs|survey of {_c(rng, TERRAIN)}]")],
                  step, str(y), [str(y + d) for d in (-12, -7, -3, 4, 9, 15)], f"{nat} {occ}")


def _kind_founder(rng, p, pl, y, nat, c):
    org = f"{pl} {_c(rng, ORG)}"
    return _claim(rng, f"the {org}", [
        ("was", f"[founded|established|set up|started|chartered] in {y} by the {nat} {{v}} {p}", ""),
        ("was", f"[founded|established|set up|started] by [the {nat} {{v}} {p}|{p}, a {nat} {{v}},] in {y}", ""),
        ("did", f"[begin|start] [life|out] in {y} under the {nat} {{v}} {p}", f"[began|started] [life|out] in {y} under the {nat} {{v}} {p}"),
    ], [("part", f"[headquartered|based|still housed] in {any_place(rng)}"),
        ("rel", f"which [employed|had] {rng.randint(12, 900)} [people|workers|staff] by {min(2022, y + rng.randint(5, 40))}"),
        ("np", f"[one of the oldest|among the best-known|one of the smallest] [institutions|firms|bodies] of {c}")],
        [f"What was the profession of {p}, who founded the {org}?",
         f"What did {p}, the founder of the {org}, do for a living?"], _c(rng, SCIENCE), SCIENCE, "organization")


def _kind_dish(rng, p, pl, y, nat, c):
    dish = _c(rng, DISH_A) + _c(rng, DISH_B)
    kind = _c(rng, SQ_DISH_KINDS)
    return _claim(rng, dish, [
        ("is", f"a {nat} {kind} [made mainly from|prepared mostly from|cooked chiefly from|based mainly on|made largely from] {{v}}", ""),
        ("is", "[made|cooked|prepared] [mostly|mainly|chiefly] [from|with] {v}", ""),
        ("does", "[use|need|call for] {v} as its [main|chief|principal] ingredient",
         "[uses|needs|calls for] {v} as its [main|chief|principal] ingredient"),
    ], [("part", f"[served|eaten|shared|offered|cooked] at {_c(rng, SQ_OCCASIONS)}"),
        ("np", f"a [speciality|favourite|classic] of {pl}", "where"),
        ("np", f"a {nat} {kind}", "kind"),
        ("rel", f"which {p}'s [cookbook|recipe collection|kitchen diary] of {y} made famous"),
        ("adv", f"in the {_c(rng, REGIONS)} of {c}", "where")],
        [f"What is {dish} [mainly|chiefly] made from?", f"What is the main ingredient of {dish}?"],
        _c(rng, INGREDIENTS), INGREDIENTS, f"{nat} {kind}")


def _kind_landmark(rng, p, pl, y, nat, c):
    lm = f"{pl} {_c(rng, LANDMARK)}"
    river = f"{_c(rng, RIVERS_A)} {_c(rng, RIVERS_B)}"
    return _claim(rng, f"the {_adj(rng)}{lm}", [
        ("was", "[built|constructed|raised] [entirely|wholly|solely] [of|from|in] {v}", ""),
        ("is", "[made|built] [entirely|wholly|almost entirely] of {v}", ""),
        ("did", "[use|need] nothing but {v} for its walls", "[used|needed] nothing but {v} for its walls"),
    ], [("adv", f"in {y}", "y"), ("part", f"[designed|planned|drawn up] by the architect {p}"),
        ("rel", f"which [overlooks|stands beside|looks out over] [the {river}|a bend of the {river}]"),
        ("part", f"paid for by the [guilds|merchants|bishop|council|fishermen] of {pl}"),
        ("part", f"[completed|finished|opened] in {y}", "y")],
        [f"What material was the {lm} built of?", f"What is the {lm} made of?"],
        _c(rng, MATERIALS), MATERIALS, "building")


def _kind_novel(rng, p, pl, y, nat, c):
    t = any_title(rng)
    genre = _c(rng, ["novel", "memoir", "detective novel", "verse epic", "travel book", "family saga", "novella",
                     "book of stories", "satire", "ghost story"])
    return _claim(rng, t, [
        ("is", f"a {y} {genre} [written|composed|penned] [entirely|wholly|only] in {{v}}", ""),
        ("was", "[written|composed|first published] [entirely|wholly|only] in {v}", ""),
        ("did", "[first appear|come out] in {v}", "[first appeared|came out] in {v}"),
    ], [("part", f"[set in|taking place in] {pl} [during the {_c(rng, ERAS)}|in the {y - rng.randint(20, 200)}s]"),
        ("np", f"the [first|second|third|last|best-selling] book by {p}", "p"),
        ("rel", f"which {p} [finished|drafted|wrote] in {any_place(rng)}", "p"),
        ("adv", f"in {y}", "y")],
        [f"What language is {t} written in?", f"In which language did {p} write {t}?"], _c(rng, NATS), NATS, genre)


def _kind_festival(rng, p, pl, y, nat, c):
    fest = f"{pl} {_c(rng, FESTIVALS)} festival"
    return _claim(rng, f"the {fest}", [
        ("has", "been [held|celebrated|staged|hosted] every {v}", ""),
        ("does", "take place [each|every] {v}", "takes place [each|every] {v}"),
        ("is", "[held|celebrated|staged] [each year|every year|annually] in {v}", ""),
    ], [("adv", f"since {y}", "y"), ("part", f"[founded|started|begun] by {p}"),
        ("rel", f"which [draws visitors from all over|is famous throughout|attracts crowds from across] {c}"),
        ("part", f"[revived|renamed|moved to the harbour] in {min(2022, y + rng.randint(3, 60))}")],
        [f"In what month is the {fest} held?", f"When does the {fest} take place?"], _c(rng, MONTHS), MONTHS,
        "festival")


def _kind_club(rng, p, pl, y, nat, c):
    club = f"{pl} {_c(rng, CLUBS)}"
    wins = rng.randint(2, 19)
    return _claim(rng, club, [
        ("is", "a {v} club", ""), ("does", f"compete at {{v}} in the {nat} [first|second] division",
                                   f"competes at {{v}} in the {nat} [first|second] division"),
        ("is", "[best known|famous] for its {v} [team|side]", ""),
    ], [("rel", f"[that|which] has won the {nat} [championship|title|league title|cup] {wins} times"),
        ("part", f"[founded|formed] in {y}"), ("part", f"coached since {min(2022, y + rng.randint(20, 90))} by {p}"),
        ("np", f"the pride of {pl}")],
        [f"What sport does {club} play?", f"Which sport is {club} a club for?"], _c(rng, SPORTS), SPORTS,
        "sports club")


def _kind_river(rng, p, pl, y, nat, c):
    river = f"the {_c(rng, RIVERS_A)} {_c(rng, RIVERS_B)}"
    rng_name = _c(rng, SQ_RANGES)
    places = [any_place(rng) for _ in range(4)]
    return _claim(rng, river, [
        ("does", f"[rise|begin|spring] in the {{v}} {rng_name}", f"[rises|begins|springs] in the {{v}} {rng_name}"),
        ("does", f"have its source in the {{v}} {rng_name}", f"has its source in the {{v}} {rng_name}"),
        ("does", f"[start|set out] [high|far up] in the {{v}} {rng_name}", f"[starts|sets out] [high|far up] in the {{v}} {rng_name}"),
        ("is", f"fed by [springs|snowmelt|glaciers|bogs] [in|of] the {{v}} {rng_name}", ""),
    ], [("part", f"[flowing|running|winding] {rng.randint(40, 900)} km to the sea"),
        ("rel", f"which [passes|flows|runs] through {pl}"),
        ("np", f"the [longest|widest|fastest] river in the {_c(rng, REGIONS)} of {c}"),
        ("part", f"[mapped|explored|surveyed] by {p} in {y}")],
        [f"Where does {river} rise?", f"In which {rng_name.lower()} does {river} have its source?"], places[0],
        places, "river")


def _kind_painting(rng, p, pl, y, nat, c):
    t = f"{_c(rng, TITLE_ADJ)} {_c(rng, TITLE_NOUN)}"
    museum = _c(rng, SQ_MUSEUMS)
    places = [any_place(rng) for _ in range(4)]
    return _claim(rng, t, [
        ("does", f"hang in the {{v}} {museum}", f"hangs in the {{v}} {museum}"),
        ("is", f"[kept|held|displayed|on show] in the {{v}} {museum}", ""),
        ("does", f"belong to the {{v}} {museum}", f"belongs to the {{v}} {museum}"),
    ], [("part", f"painted by {p} in {y}", "p"),
        ("np", f"a [small|large|damaged|restored|] {_c(rng, SQ_MEDIA)} [painting|portrait|landscape] by {p}", "p"),
        ("rel", f"which {p} [finished|signed|sold] in {y}", "p"),
        ("part", f"[bought from|donated by|recovered from] the artist's [family|heirs|landlord] in {min(2020, y + rng.randint(10, 80))}")],
        [f"Where does the painting {t} hang?", f"Which museum [holds|owns] {t}?"], places[0], places, "painting")


def _kind_concerto(rng, p, pl, y, nat, c):
    t = f"the {_c(rng, TITLE_ADJ)} {_c(rng, SQ_WORK_FORMS)}"
    return _claim(rng, t, [
        ("was", "written for {v} and orchestra", ""), ("is", "a [piece|work|showpiece] for solo {v}", ""),
        ("does", "[give|hand] the solo part to the {v}", "[gives|hands] the solo part to the {v}"),
    ], [("part", f"[composed|written|completed] by the {nat} composer {p} in {y}", "y"),
        ("rel", f"which [had its premiere|was first played|opened the season] in {pl} in {y}", "y"),
        ("part", f"dedicated to {any_person(rng)}")],
        [f"What solo instrument is {t} written for?", f"Which instrument plays the solo in {t}?"],
        _c(rng, SQ_INSTRUMENTS), SQ_INSTRUMENTS, "piece of music")


def _kind_sky(rng, p, pl, y, nat, c):
    name = f"{surname(rng)}-{rng.randint(1, 99)}"
    return _claim(rng, p, [
        ("did", f"discover the {{v}} [now known as|later named|catalogued as] {name}",
         f"discovered the {{v}} [now known as|later named|catalogued as] {name}"),
        ("was", f"the first to [spot|observe|record] the {{v}} [now known as|called] {name}", ""),
        ("did", f"[find|photograph|chart] {name}, a {{v}} [no one had seen before|missing from older charts]",
         f"[found|photographed|charted] {name}, a {{v}} [no one had seen before|missing from older charts]"),
    ], [("np", f"a {nat} [astronomer|stargazer|observer]"), ("part", f"working at the {pl} Observatory"),
        ("adv", f"in {y}"), ("rel", "who [ground|built] [her|his|their] own [lenses|telescopes]")],
        [f"What kind of object is {name}, which {p} discovered?", f"What did {p} discover in {y}?"],
        _c(rng, SQ_SKY), SQ_SKY, f"{nat} astronomer")


def _kind_bridge(rng, p, pl, y, nat, c):
    br = f"the {surname(rng)} Bridge"
    river = f"{_c(rng, RIVERS_A)} {_c(rng, RIVERS_B)}"
    return _claim(rng, br, [
        ("is", f"a {{v}} bridge [over|across|spanning] the {river}", ""),
        ("does", f"[cross|span] the {river} as a {{v}} bridge", f"[crosses|spans] the {river} as a {{v}} bridge"),
        ("was", f"[built|rebuilt|designed] as a {{v}} bridge [to carry traffic over|after floods on] the {river}", ""),
    ], [("part", f"[opened to traffic|completed|widened] in {y}"),
        ("rel", f"which carries the [road|railway|tramline] from {pl} to {any_place(rng)}"),
        ("part", f"designed by the engineer {p}"),
        ("np", f"the [oldest|longest|busiest] crossing in the {_c(rng, REGIONS)} of {c}")],
        [f"What type of bridge is {br}?", f"How is {br} built?"], _c(rng, SQ_BRIDGE_TYPES), SQ_BRIDGE_TYPES,
        "bridge")


def _kind_mayor(rng, p, pl, y, nat, c):
    return _claim(rng, p, [
        ("was", f"elected mayor of {pl} as the {{v}} Party's candidate", ""),
        ("did", f"[win|take] the mayoralty of {pl} for the {{v}} Party", f"[won|took] the mayoralty of {pl} for the {{v}} Party"),
        ("did", f"[lead|run] the {{v}} Party in {pl}", f"[led|ran] the {{v}} Party in {pl}"),
    ], [("adv", f"in {y}"), ("np", f"a former [{_c(rng, WRITERS + SCIENCE)}|schoolteacher|dock worker|baker]"),
        ("rel", f"who was born in {any_place(rng)}"), ("part", f"[re-elected|defeated] in {y + 4}")],
        [f"Which party did {p} [stand for|represent] in {pl}?", f"For what party was {p} elected in {pl}?"],
        _c(rng, SQ_PARTIES), SQ_PARTIES, "politician")


def _kind_island(rng, p, pl, y, nat, c):
    isl = f"{any_place(rng)} Island"
    return _claim(rng, isl, [
        ("is", "home to a [large|famous|noisy|protected] colony of {v}", ""),
        ("does", "[host|shelter] [thousands|hundreds] of nesting {v}", "[hosts|shelters] [thousands|hundreds] of nesting {v}"),
        ("does", "[draw|attract] birdwatchers [who come|hoping] to see its {v}", "[draws|attracts] birdwatchers [who come|hoping] to see its {v}"),
        ("is", "[a breeding ground|the main nesting site] for {v} [in spring|every summer|]", ""),
    ], [("part", f"[lying|set] off the {_c(rng, REGIONS[:8])} coast of {c}"),
        ("rel", f"which can be reached only by [ferry|boat|mail boat] from {pl}"),
        ("np", f"a [rocky|windswept|treeless|low|steep] island of {rng.randint(2, 90)} square kilometres"),
        ("part", f"[surveyed|bought|settled] by {p} in {y}"), ("adv", "[every summer|each spring|in most years]")],
        [f"Which birds nest on {isl}?", f"What seabirds breed on {isl}?"], _c(rng, SQ_BIRDS), SQ_BIRDS, "island")


def _kind_plant(rng, p, pl, y, nat, c):
    plant = f"the {_c(rng, SQ_PLANT_A)} {_c(rng, SQ_PLANT_B)}"
    return _claim(rng, plant, [
        ("does", "[produce|bear|open] {v} flowers", "[produces|bears|opens] {v} flowers"),
        ("does", "flower {v}", "flowers {v}"), ("is", "covered in {v} [blossoms|blooms]", ""),
    ], [("np", f"a {_c(rng, SQ_PLANT_KINDS)} of the {_c(rng, TERRAIN)} of {c}"),
        ("part", f"[first described|named|collected] by {p} in {y}"),
        ("adv", "[in early spring|in late summer|in midwinter|in early autumn|in June|in May|after rain]"),
        ("rel", f"which grows wild [around|near|above] {pl}")],
        [f"What colour are the flowers of {plant}?", f"What colour does {plant} flower in?"],
        _c(rng, SQ_COLOURS), SQ_COLOURS, "plant")


def _kind_university(rng, p, pl, y, nat, c):
    uni = f"the {pl} {_c(rng, SQ_UNIS)}"
    return _claim(rng, uni, [
        ("is", "[best known|famous|renowned] for its [school|faculty] of {v}", ""),
        ("does", "[train|turn out] more {v} graduates than any other [school|college] in the country",
         "[trains|turns out] more {v} graduates than any other [school|college] in the country"),
        ("did", "[begin|start] as a [college|school] of {v}", "[began|started] as a [college|school] of {v}"),
        ("is", "where most of the country's {v} [students|professors] [train|trained]", ""),
    ], [("part", f"[founded|opened|chartered] in {y}"), ("rel", f"whose first [rector|dean|chancellor] was {p}"),
        ("adv", "today"), ("np", f"the oldest [college|seat of learning|school] in {c}")],
        [f"What is {uni} best known for?", f"Which [school|faculty] of {uni} is the most famous?"],
        _c(rng, SQ_FIELDS), SQ_FIELDS, "university")


def _kind_film(rng, p, pl, y, nat, c):
    t = any_title(rng)
    places = [any_place(rng) for _ in range(4)]
    return _claim(rng, t, [
        ("was", "[filmed|shot] [on location|entirely|mostly] in {v}", ""),
        ("did", "[use|choose] {v} for its [outdoor|street|harbour] scenes", "[used|chose] {v} for its [outdoor|street|harbour] scenes"),
        ("did", "[bring|take] its [cast|crew] to {v} for [six|eight|ten|twelve] weeks of shooting",
         "[brought|took] its [cast|crew] to {v} for [six|eight|ten|twelve] weeks of shooting"),
    ], [("np", f"a {y} {_c(rng, SQ_FILM_GENRES)} [directed|made] by {p}", "p"),
        ("part", f"directed by {p} in {y}", "p"),
        ("rel", f"which [won|was nominated for] the {_c(rng, TITLE_ADJ)} [Reel|Lens|Screen|Frame] Award")],
        [f"Where was {t} filmed?", f"In which town was {t} shot?"], places[0], places, "film")


def _kind_patent(rng, p, pl, y, nat, c):
    return _claim(rng, p, [
        ("did", "patent an improved {v}", "patented an improved {v}"),
        ("did", "[design|build|invent] [a new kind of|a cheaper] {v}", "[designed|built|invented] [a new kind of|a cheaper] {v}"),
        ("was", "granted a patent for a [lighter|safer|cheaper|folding] {v}", ""),
    ], [("np", f"a {nat} [engineer|inventor|clockmaker|mechanic] from {pl}"), ("adv", f"in {y}"),
        ("rel", f"who ran a [workshop|forge|repair shop] in {any_place(rng)}"), ("part", f"working with {any_person(rng)}")],
        [f"What did {p} [patent|invent]?", f"What invention is {p} known for?"], _c(rng, SQ_DEVICES), SQ_DEVICES,
        "inventor")


def _kind_athlete(rng, p, pl, y, nat, c):
    return _claim(rng, p, [
        ("did", f"set the {nat} record in the {{v}}", f"set the {nat} record in the {{v}}"),
        ("did", f"win the {nat} [title|championship] in the {{v}}", f"won the {nat} [title|championship] in the {{v}}"),
        ("was", f"the {nat} [champion|record holder] in the {{v}}", ""),
    ], [("adv", f"at {pl} in {y}"), ("np", f"a [farmer|student|soldier|teacher|postman|carpenter] from {any_place(rng)}"),
        ("part", f"[coached|trained] by {any_person(rng)}")],
        [f"In which event did {p} [compete|set a record]?", f"What was {p}'s event?"], _c(rng, SQ_EVENTS),
        SQ_EVENTS, "athlete")


def _kind_ship(rng, p, pl, y, nat, c):
    ship = f"the {_c(rng, ['SS', 'MV', 'PS', 'RMS'])} {any_place(rng)}"
    ports = [any_place(rng) for _ in range(4)]
    return _claim(rng, ship, [
        ("was", f"[launched|built] at {{v}} in {y}", ""),
        ("did", f"[leave|slide down] the slipway at {{v}} in {y}", f"[left|slid down] the slipway at {{v}} in {y}"),
        ("was", f"[fitted out|completed|registered] at {{v}} [in {y}|before her maiden voyage]", ""),
    ], [("np", f"a {_c(rng, SQ_SHIP_TYPES)} of the {surname(rng)} {_c(rng, SQ_LINES)}"),
        ("part", f"built for the {pl} [run|mail route|crossing]"),
        ("rel", f"which {p} captained for {rng.randint(3, 30)} years")],
        [f"Where was {ship} launched?", f"At which [port|yard] was {ship} built?"], ports[0], ports, "ship")


def _kind_paper(rng, p, pl, y, nat, c):
    paper = f"the {pl} {_c(rng, SQ_PAPERS)}"
    return _claim(rng, paper, [
        ("is", f"a {{v}} [newspaper|paper] [printed|published] in {_c(rng, NATS)}", ""),
        ("does", "come out [as a|in a] {v} edition", "comes out [as a|in a] {v} edition"),
        ("has", "[always been|been] published {v}", ""),
    ], [("part", f"founded by {p} in {y}"), ("rel", f"whose offices stand on {_c(rng, SQ_STREETS)}"),
        ("np", f"the [oldest|most-read|smallest] paper in {c}")],
        [f"How often does {paper} come out?", f"How frequently is {paper} published?"], _c(rng, SQ_FREQ),
        SQ_FREQ, "newspaper")


def _kind_lake(rng, p, pl, y, nat, c):
    lake = f"Lake {any_place(rng)}"
    depth = rng.randint(12, 480)
    vals = sorted({str(depth + d) for d in (-9, -5, 3, 7, 11, 20)} - {str(depth)})
    return _claim(rng, lake, [
        ("is", "{v} metres deep at its deepest point", ""), ("does", "reach a depth of {v} metres", "reaches a depth of {v} metres"),
    ], [("np", f"the largest lake in the {_c(rng, REGIONS)} of {c}"),
        ("part", f"[fed|drained] by the {_c(rng, RIVERS_A)} {_c(rng, RIVERS_B)}"),
        ("part", f"[sounded|measured|charted] by {p} in {y}"), ("rel", f"which freezes over most winters near {pl}")],
        [f"How deep is {lake}?", f"What is the greatest depth of {lake}?"], str(depth), [str(depth)] + vals, "lake")


def _kind_tower(rng, p, pl, y, nat, c):
    b = f"the {pl} {_c(rng, ['Bell Tower', 'Lighthouse', 'Water Tower', 'Radio Mast', 'Minaret', 'Watchtower', 'Chimney'])}"
    h = rng.randint(18, 240)
    vals = sorted({str(h + d) for d in (-8, -4, 3, 6, 12, 25)} - {str(h)})
    return _claim(rng, b, [
        ("is", "{v} metres [tall|high]", ""), ("does", "rise {v} metres above the [street|harbour|square]",
                                              "rises {v} metres above the [street|harbour|square]"),
        ("was", "built to a height of {v} metres", ""),
    ], [("part", f"[finished|completed|restored] in {y}"), ("rel", f"which {p} [designed|climbed|painted] in {y}"),
        ("np", f"the tallest structure in {pl}")],
        [f"How tall is {b}?", f"What is the height of {b}?"], str(h), [str(h)] + vals, "tower")


def _kind_treaty(rng, p, pl, y, nat, c):
    c2 = _c(rng, [x for x in COUNTRIES if x != c])
    ys = [str(y + d) for d in (-11, -6, -2, 3, 8, 14)]
    return _claim(rng, f"the Treaty of {pl}", [
        ("was", f"signed by {c} and {c2} in {{v}}", ""),
        ("did", f"[end|settle] the [border dispute|fishing quarrel|customs war] between {c} and {c2} in {{v}}",
         f"[ended|settled] the [border dispute|fishing quarrel|customs war] between {c} and {c2} in {{v}}"),
        ("did", "[come into force|take effect] in {v}", "[came into force|took effect] in {v}"),
    ], [("part", f"[drafted|negotiated|brokered] by the diplomat {p}"),
        ("rel", f"which [gave|returned] the [valley|island|port] of {any_place(rng)} to {c2}")],
        [f"When was the Treaty of {pl} signed?", f"In what year was the Treaty of {pl} agreed?"], str(y), [str(y)] + ys,
        "treaty")


def _kind_school(rng, p, pl, y, nat, c):
    return _claim(rng, p, [
        ("did", f"[study|train] at the {pl} [Academy|Conservatory|Polytechnic] under {{v}}",
         f"[studied|trained] at the {pl} [Academy|Conservatory|Polytechnic] under {{v}}"),
        ("was", f"a [pupil|student] of {{v}} at the {pl} [Academy|Conservatory]", ""),
        ("did", f"[learn|take lessons] from {{v}} [in {pl}|as a teenager in {pl}]", f"[learned|took lessons] from {{v}} [in {pl}|as a teenager in {pl}]"),
    ], [("np", f"a {nat} {_c(rng, MUSIC + ARTS)}"), ("adv", f"in the {y // 10 * 10}s"),
        ("part", f"[born|raised] in {any_place(rng)}")],
        [f"Who taught {p} at the {pl} school?", f"Under whom did {p} study?"], *_people(rng), "student")


def _people(rng):
    ps = [any_person(rng) for _ in range(4)]
    return ps[0], ps


def _kind_mine(rng, p, pl, y, nat, c):
    ores = ["copper", "tin", "silver", "coal", "iron ore", "salt", "zinc", "slate", "gold", "lead", "marble", "amber"]
    return _claim(rng, f"the {pl} mine", [
        ("was", "[worked|dug] for {v}", ""), ("did", "produce [mostly|chiefly] {v}", "produced [mostly|chiefly] {v}"),
        ("has", "yielded {v} [since|ever since] [its opening|it opened]", ""),
    ], [("part", f"[opened|sunk|closed] in {y}"), ("rel", f"which [employed|housed] {rng.randint(30, 3000)} miners"),
        ("np", f"the [deepest|oldest|largest] pit in the {_c(rng, REGIONS)} of {c}"), ("part", f"owned by {p}")],
        [f"What was mined at the {pl} mine?", f"What did the {pl} mine produce?"], _c(rng, ores), ores, "mine")



SQ_DOG_BREEDS_USE = ["herding sheep", "guarding farms", "hunting hares", "pulling sledges", "retrieving ducks",
                     "catching rats", "guarding flocks from wolves", "tracking deer", "droving cattle", "rescuing climbers"]
SQ_GRAPES = ["red", "white", "rosé", "sparkling", "sweet dessert", "fortified"]
SQ_CAVE_FINDS = ["painted handprints", "bear bones", "Roman coins", "a Bronze Age sword", "carved bone flutes",
                 "a hoard of amber beads", "charcoal drawings of horses", "a stone altar", "clay lamps"]
SQ_INSTR_ENS = ["string quartet", "brass band", "chamber orchestra", "male voice choir", "folk ensemble",
                "jazz big band", "piano trio", "wind quintet", "baroque ensemble"]
SQ_CROPS = ["tea", "hops", "saffron", "tobacco", "cherries", "lavender", "flax", "rice", "olives", "apricots",
            "potatoes", "sugar beet", "walnuts", "barley"]
SQ_GODS = ["the sea", "the harvest", "the moon", "travellers", "smiths", "the river", "the hearth", "healing"]
SQ_ROLES = ["the Countess", "the Ferryman", "the Miller's Daughter", "the Old King", "the Stranger", "the Widow",
            "the Apprentice", "the Fool", "the Lighthouse Keeper", "the Captain"]
SQ_VOICES = ["soprano", "mezzo-soprano", "contralto", "tenor", "baritone", "bass"]


def _kind_breed(rng, p, pl, y, nat, c):
    breed = f"the {pl} {_c(rng, ['Hound', 'Sheepdog', 'Terrier', 'Spaniel', 'Mastiff', 'Collie', 'Pointer', 'Laika'])}"
    return _claim(rng, breed, [
        ("was", "bred [for|mainly for|originally for] {v}", ""),
        ("was", "[first|originally] kept by [farmers|herders|villagers] for {v}", ""),
        ("is", "still used [for|today for] {v} [in the {reg} of {c}|in parts of {c}|]".replace("{reg}", _c(rng, REGIONS)).replace("{c}", c), ""),
    ], [("np", f"a [rough-coated|short-haired|long-legged|stocky|shaggy] dog [from|native to] the {_c(rng, TERRAIN)} of {c}"),
        ("part", f"[recognised|registered] as a breed in {y}"),
        ("rel", f"which {p} [bred|showed|wrote about] [for years|in the {y // 10 * 10}s]")],
        [f"What was {breed} bred for?", f"What work does {breed} do?"], _c(rng, SQ_DOG_BREEDS_USE),
        SQ_DOG_BREEDS_USE, "dog breed")


def _kind_vineyard(rng, p, pl, y, nat, c):
    estate = f"the {surname(rng)} [estate|vineyard|winery]"
    return _claim(rng, estate, [
        ("is", "[known|famous] [for|above all for] its {v} wine", ""),
        ("does", "[make|produce] [mostly|chiefly] {v} wine", "[makes|produces] [mostly|chiefly] {v} wine"),
        ("has", "[made|sold] {v} wine [for generations|since the {y}s]".replace("{y}", str(y // 10 * 10)), ""),
    ], [("part", f"[planted|founded|replanted] in {y}"), ("adv", f"on the slopes above {pl}"),
        ("np", f"[a family vineyard|the largest estate] in the {_c(rng, REGIONS)} of {c}"),
        ("rel", f"which {p} [ran|bought|inherited] in {y}")],
        [f"What kind of wine does {estate} make?", f"Which wine is {estate} known for?"],
        _c(rng, SQ_GRAPES), SQ_GRAPES, "winery")


def _kind_cave(rng, p, pl, y, nat, c):
    cave = f"the {any_place(rng)} [Cave|Grotto]"
    return _claim(rng, cave, [
        ("did", "[yield|give up|contain] {v}", "[yielded|gave up|contained] {v}"),
        ("was", "where [diggers|cavers|archaeologists] [found|uncovered] {v}", ""),
        ("is", "[famous|best known] for the {v} found [inside it|in its deepest chamber]", ""),
    ], [("part", f"[explored|excavated|mapped] by {p} in {y}", "y"), ("adv", f"in {y}", "y"),
        ("np", f"a [limestone|flooded|narrow|vast] cave [near|above|below] {pl}"),
        ("rel", f"which [opened to visitors|was sealed off] in {min(2022, y + rng.randint(2, 50))}")],
        [f"What was found in {cave}?", f"What did the excavation of {cave} turn up?"], _c(rng, SQ_CAVE_FINDS),
        SQ_CAVE_FINDS, "cave")


def _kind_ensemble(rng, p, pl, y, nat, c):
    grp = f"the {pl} {_c(rng, ['Players', 'Consort', 'Musicians', 'Society', 'Ensemble', 'Collective'])}"
    return _claim(rng, grp, [
        ("is", "a {v} [based|rehearsing] in {pl}".replace("{pl}", pl), ""),
        ("did", "[start out|begin] as a {v}", "[started out|began] as a {v}"),
        ("has", "[performed|toured] as a {v} [since {y}|for decades]".replace("{y}", str(y)), ""),
    ], [("part", f"[founded|formed|led] by {p}"), ("rel", f"which [recorded|released] {rng.randint(3, 40)} albums"),
        ("np", f"[one of the best-loved groups|the oldest group of its kind] in {c}")],
        [f"What kind of group is {grp}?", f"How is {grp} made up?"], _c(rng, SQ_INSTR_ENS), SQ_INSTR_ENS,
        "music group")


def _kind_valley(rng, p, pl, y, nat, c):
    valley = f"the {any_place(rng)} Valley"
    return _claim(rng, valley, [
        ("is", "[known|famous] for growing {v}", ""),
        ("does", "[grow|export|supply] most of the {v} [sold in|eaten in|grown in] {c}".replace("{c}", c),
         "[grows|exports|supplies] most of the {v} [sold in|eaten in|grown in] {c}".replace("{c}", c)),
        ("has", "[grown|farmed] {v} [for centuries|since the {y}s]".replace("{y}", str(y // 100 * 100)), ""),
    ], [("part", f"[watered|drained|cut] by the {_c(rng, RIVERS_A)} {_c(rng, RIVERS_B)}"),
        ("rel", f"whose [main|only] town is {pl}"), ("np", f"a [sheltered|fertile|terraced|narrow] valley in the {_c(rng, REGIONS)} of {c}")],
        [f"What is grown in {valley}?", f"Which crop is {valley} known for?"], _c(rng, SQ_CROPS), SQ_CROPS, "valley")


def _kind_temple(rng, p, pl, y, nat, c):
    t = f"the {_c(rng, ['temple', 'shrine', 'sanctuary', 'chapel'])} at {any_place(rng)}"
    return _claim(rng, t, [
        ("was", "dedicated to [a god|the spirit|the patron saint] of {v}", ""),
        ("did", "[honour|serve] the [god|spirit|patron] of {v}", "[honoured|served] the [god|spirit|patron] of {v}"),
    ], [("part", f"[dug up|restored|rebuilt] by {p} in {y}"), ("np", f"the [oldest|smallest|highest] [ruin|building] near {pl}"),
        ("rel", f"whose [columns|walls|steps] were carved from {_c(rng, MATERIALS)}")],
        [f"To whom was {t} dedicated?", f"Whom did {t} honour?"], _c(rng, SQ_GODS), SQ_GODS, "temple")


def _kind_opera(rng, p, pl, y, nat, c):
    op = f"the opera {_c(rng, TITLE_ADJ)} {_c(rng, TITLE_NOUN)}"
    role = _c(rng, SQ_ROLES)
    return _claim(rng, op, [
        ("does", f"give the role of {role} to a {{v}}", f"gives the role of {role} to a {{v}}"),
        ("does", f"have a {{v}} [singing|in the role of] {role}", f"has a {{v}} [singing|in the role of] {role}"),
        ("was", f"written with a {{v}} in [mind for|the part of] {role}", ""),
    ], [("part", f"[composed|written] by {p} in {y}"), ("rel", f"which [opened|had its premiere] in {pl} in {y}"),
        ("np", f"a [comic|tragic|short|three-act] opera [in {_c(rng, NATS)}|by {p}]")],
        [f"What voice sings {role} in {op}?", f"Who is {role} written for in {op}?"], _c(rng, SQ_VOICES), SQ_VOICES,
        "opera")


_KINDS = (_kind_diet, _kind_endure, _kind_town, _kind_born, _kind_founder, _kind_dish, _kind_landmark, _kind_novel,
          _kind_festival, _kind_club, _kind_river, _kind_painting, _kind_concerto, _kind_sky, _kind_bridge,
          _kind_mayor, _kind_island, _kind_plant, _kind_university, _kind_film, _kind_patent, _kind_athlete,
          _kind_ship, _kind_paper, _kind_lake, _kind_tower, _kind_treaty, _kind_school, _kind_mine, _kind_breed,
          _kind_vineyard, _kind_cave, _kind_ensemble, _kind_valley, _kind_temple, _kind_opera)

_IS_IT_TRUE = ["Is it true that", "Is it correct that", "Is it the case that", "Would it be right to say that",
               "Can you confirm that", "Am I right that", "Is it accurate to say that", "Do the records show that",
               "Would you agree that", "Did I read correctly that", "Is there truth in the claim that",
               "Can we say that", "Is it fair to say that", "Have I got it right that"]


MIN_OVERLAP = 0.5  # word 3-gram Jaccard of a fact with its question, below which no extra detail is added


def _jaccard3(a: str, b: str) -> float:
    x, y = set(ngrams(words(a), 3)), set(ngrams(words(b), 3))
    return len(x & y) / len(x | y) if x and y else 0.0


def _render(rng: random.Random, cl: _Claim) -> tuple[str, str]:
    """The fact sentence and the question for one claim, in the same words and one drawn structure."""
    aux = cl.aux
    finite = cl.finite or f"{aux} {cl.pred}"
    subj = cl.subj
    mods = [(m[0], m[1], m[2] if len(m) > 2 else m[1]) for m in cl.mods]
    rng.shuffle(mods)
    used: set[str] = set()

    def take(kinds, p):
        if rng.random() >= p:
            return None
        m = next((m for m in mods if m[0] in kinds and m[2] not in used), None)
        if m:
            used.add(m[2])
        return m and m[1]

    front = take(("part", "adv"), 0.45)
    appos = take(("np", "rel", "part"), 0.75)
    tail = take(("adv",), 0.5)
    # the fact often carries one more detail than the question asks back (as evidence sentences do)
    f_front, f_appos = front, appos
    if rng.random() < 0.8:
        if not appos:
            f_appos = take(("np", "rel", "part"), 1.0)
        elif not front:
            f_front = take(("part", "adv"), 1.0)
    if rng.random() < 0.08:  # a cited source at the end: the same words in fact and question
        src = _c(rng, SQ_SOURCES).format(y=any_year(rng, 1890, 2020), c=_c(rng, COUNTRIES), p=any_person(rng),
                                          pl=any_place(rng))
        tail = f"{tail}, {src}" if tail else f", {src}"
    sep = "" if tail and tail.startswith(",") else " "
    tail = f"{sep}{tail}" if tail else ""
    q_core = f"{subj}, {appos}, {cl.pred}{tail}" if appos else f"{subj} {cl.pred}{tail}"
    f_core = f"{subj}, {f_appos}, {finite}{tail}" if f_appos else f"{subj} {finite}{tail}"
    fact = f"{cap(f_front)}, {f_core}." if f_front else f"{cap(f_core)}."
    if (f_front, f_appos) != (front, appos) and _jaccard3(fact, q_core) < MIN_OVERLAP:
        # the extra detail would bury the restated words: an easy fact stays close to its question
        f_core = f"{subj}, {appos}, {finite}{tail}" if appos else f"{subj} {finite}{tail}"
        fact = f"{cap(front)}, {f_core}." if front else f"{cap(f_core)}."
    if front:
        question = f"{cap(front)}, {aux} {q_core}?"
    elif rng.random() < 0.15 and not f_front:
        question = f"{_c(rng, _IS_IT_TRUE)} {f_core}?"
    else:
        question = f"{cap(aux)} {q_core}?"
    return fact, question


def generate_easy_strategyqa(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"easy-strategyqa|{seed}")
    out = []
    while len(out) < n:
        p, pl, y, nat, c = any_person(rng), any_place(rng), any_year(rng), _c(rng, NATS), _c(rng, COUNTRIES)
        cl = _c(rng, _KINDS)(rng, p, pl, y, nat, c)
        yes = rng.random() < 0.55
        asked = cl.value if yes else other_than(rng, cl.alts, cl.value)
        fact_t, question_t = _render(rng, cl)
        fact, question = fact_t.format(v=cl.value), question_t.format(v=asked)
        if not yes and re.search(rf"\b{re.escape(asked)}\b", fact):
            continue  # the changed detail happens to be named elsewhere in the fact: draw another
        term = cl.subj.removeprefix("the ")
        out.append({"qid": f"easy-{len(out):05d}", "term": term, "description": cl.description,
                    "question": fix_articles(question), "answer": yes, "facts": [fix_articles(fact)],
                    "decomposition": [fix_articles(_c(rng, cl.step1)), cl.step2.format(v=asked)]})
    return out
