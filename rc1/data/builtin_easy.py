"""The easy family of the builtin generators: single-step items whose question closely restates its evidence.

Real QA data has lookup-style items next to the multi-step ones; without them a builtin pool has no seed whose
question overlaps its support, and "easy" would mean nothing. Each family writes one fact sentence and asks
about it in nearly the same words, in the official schema of its dataset:
- HotpotQA: a cloze-style single-hop question on one sentence of a gold paragraph (type 'bridge', level 'easy'),
  the paragraph among generated distractor paragraphs, `supporting_facts` pointing at that sentence, which
  contains the answer;
- StrategyQA: a yes/no question restating one fact (as asked, or with one detail changed: then the answer is
  no), with `facts` and a two-step `decomposition` consistent with the answer;
- GSM8K: one- or two-step word problems whose solution lines restate the givens before computing,
  with <<a+b=c>> annotations and a '#### n' line.
Deterministic for (n, seed); ids are 'easy-NNNNN'.
"""

from __future__ import annotations

import random
import re

from rc1.data.builtin_vocab import FEMALE_NAMES, FIRST_NAMES, GOODS, JOBS, MALE_NAMES, OBJECT_ADJ, RELATIVES, SHOPS, \
    alt, person_name, place_name, title_name

# ------------------------------------------------------------------ vocabulary
_SUR_A = """Ash Bel Bran Cal Dun El Fen Gar Hal Ith Jor Kel Lor Mar Nor Os Pell Quin Ros Sel Tor Ul Var Wen Yar Zel
Ard Bry Cor Dal Ev Fal Grim Hol Ker Lin Mor Ner Ost Ren Stav Tam Vel Wil""".split()
_SUR_B = """brook by combe dale den field ford gate hart holm hurst ley mere mont ridge stead ton vale well wick worth
more ling sen berg strom ani etti ova enko ez ar ic in ez quist""".split()
_PLACE_A = """Al Bar Cor Dra Es Fal Gil Hav Ir Kar Lun Mor Nes Or Pra Quel Rav Sal Tam Ul Vel Wyn Yor Zan Bel Cas Dor
Ember Fen Gor Hel Isk Jun Kel Lor Mir Nor Ost Pel Ros Sev Tor Ves""".split()
_PLACE_B = """aro bury dale enza haven ia ika ino mont ora port sk stad tova ville wick yne zia ford grad holm mouth
bridge field lund vik esse ano ost mar""".split()
_COUNTRIES = """Valdoria Mereth Kastovia Ostrelle Brunmark Teralind Quorvath Silvane Harrowmere Dalvania Estrond
Corvenna Lysmark Thessaly Norwend Palvera Sundria Vorland Ambria Kelmora""".split()
_NATS = """Valdorian Merethi Kastovian Ostrellan Brunmarkish Teralindic Quorvathi Silvanese Harrowmerian Dalvanian
Estrondi Corvennan Lysmarkish Norwendish Palveran Sundrian Vorlandic Ambrian Kelmoran""".split()
_REGIONS = ["north", "south", "east", "west", "north-east", "north-west", "south-east", "south-west", "central highlands", "lowlands", "coastal plain", "river delta", "upland interior", "lake district"]
_ADJ = """Silent Hidden Broken Golden Distant Burning Quiet Winter Crimson Endless Hollow Northern Paper Glass Iron
Amber Sleeping Falling Bright Last Second Velvet Salt Lonely Wandering Borrowed Painted Frozen Secret Open Narrow
Restless Drowned Scarlet Tender Wild Patient Little Long Stolen""".split()
_NOUN = """Harbor Orchard Lantern Meridian Garden Tide Archive Compass Valley Season Mirror Border River Delta Kingdom
Letters Hours Bridge Staircase Lighthouse Parade Feast Horizon Atlas Choir Winter Summer Country Window Road Station
Ferry Island Quarry Market Canal Forest Tower Cathedral Threshold""".split()
_GENRES = ["novel", "short story collection", "memoir", "play", "poetry collection", "detective novel",
           "children's book", "historical novel", "travel book", "graphic novel"]
_FILMS = ["drama film", "comedy film", "documentary", "thriller", "animated film", "war film", "musical film",
          "science fiction film", "romantic comedy", "crime film"]
_ARTS = ["painter", "sculptor", "photographer", "printmaker", "illustrator", "muralist", "ceramicist", "architect"]
_WRITERS = ["writer", "novelist", "poet", "playwright", "journalist", "essayist", "screenwriter", "historian"]
_MUSIC = ["composer", "singer-songwriter", "pianist", "jazz saxophonist", "conductor", "folk singer", "cellist",
          "rapper", "organist", "guitarist"]
_SCIENCE = ["physicist", "chemist", "botanist", "astronomer", "geologist", "mathematician", "cartographer",
            "marine biologist", "engineer", "economist", "linguist", "surgeon"]
_SPORTS = ["football", "rowing", "handball", "ice hockey", "rugby", "basketball", "cricket", "volleyball",
           "water polo", "bandy", "field hockey", "cycling"]
_CLUBS = ["Rovers", "United", "Athletic", "Wanderers", "Rangers", "City", "Albion", "Harriers", "Town", "Olympic",
          "Sporting", "Dynamo"]
_ORG = ["Institute", "Company", "Works", "Foundation", "Observatory", "Academy", "Press", "Laboratories", "Society",
        "Trust", "Brewery", "Shipyard", "Museum", "Conservatory", "Library"]
_LANDMARK = ["Clock Tower", "Old Bridge", "Town Hall", "Grand Theatre", "Central Station", "Opera House",
             "Lighthouse", "Botanical Garden", "Covered Market", "Cathedral", "Water Tower", "Customs House"]
_INDUSTRY = ["shipbuilding", "publishing", "textile", "optics", "railway", "pharmaceutical", "printing", "glassmaking",
             "brewing", "fishing", "timber", "porcelain", "watchmaking", "salt mining", "wine"]
_AWARD_A = ["Golden", "Silver", "Crystal", "Laurel", "Northern", "Meridian", "Harbor", "Lantern", "Amber", "Iron"]
_AWARD_B = ["Quill", "Medal", "Prize", "Star", "Compass", "Wreath", "Key", "Crown", "Anchor", "Lyre"]
_CRE_A = """Marsh Dune Cliff Glacier Ember Moss Reed Thorn Ridge Lagoon Cinder Frost Canyon Tundra Kelp Pebble Ash
Fern Silt Bramble Heath Coral Willow""".split()
_CRE_B = """Strider Lopper Glider Warbler Muncher Prowler Skimmer Burrower Dasher Stalker Hopper Creeper Finch Vole
Newt Shrike Gecko Loach Marten Plover""".split()
_ANIMAL = ["lizard", "bird", "fish", "frog", "beetle", "rodent", "bat", "snail", "moth", "turtle", "salamander"]
_TERRAIN = ["hills", "marshes", "pine forests", "salt flats", "limestone cliffs", "sand dunes", "river valleys",
            "mangrove swamps", "alpine meadows", "coastal reefs", "cloud forests", "volcanic islands"]
_FOODS = {"herbivore": ["grass", "fruit", "leaves", "seeds", "bark", "roots", "berries", "nectar", "moss", "algae"],
          "carnivore": ["insects", "snails", "small fish", "frogs", "worms", "crabs", "mice", "spiders"]}
_MATERIALS = ["red brick", "granite", "limestone", "timber", "sandstone", "marble", "cast iron", "basalt", "glass"]
_DISH_A = ["Kel", "Bor", "Tam", "Lus", "Vor", "Pel", "Zan", "Mir", "Quo", "Dras", "Fen", "Osk"]
_DISH_B = ["ava", "eni", "ruk", "olo", "ista", "ami", "ezza", "undo", "alka", "ishi"]
_INGREDIENTS = ["lentils", "rice", "buckwheat", "chickpeas", "smoked fish", "lamb", "goat cheese", "chestnuts",
                "cabbage", "barley", "corn", "mushrooms", "beets", "plums"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_FESTIVALS = ["lantern", "harvest", "kite", "boat", "cheese", "jazz", "puppet", "folk dance", "film", "poetry",
              "chess", "flower", "bread", "street theatre"]


_A_AN = re.compile(r"\b([Aa]) (?=(?![Uu]ni)[AEIOUaeiou]|18\d\d\b)")


_ERAS = ["1920s", "1950s", "1970s", "Second World War", "civil war", "great flood", "gold rush", "long winter of 1903",
         "last years of the monarchy", "railway boom", "occupation", "cold war"]
_TOWNS = ["market town", "port town", "fishing village", "mill town", "spa town", "cathedral city", "river town",
          "mining town", "garrison town", "university town"]
_WATERS = ["banks of a wide river", "shore of a deep lake", "edge of a sheltered bay", "mouth of a tidal estuary",
           "slopes of an old volcano", "edge of a salt marsh"]
_CHARACTERS = ["retired detective", "lighthouse keeper", "young widow", "travelling salesman", "ship's cook",
               "disgraced surgeon", "village schoolteacher", "border guard", "chess prodigy", "runaway bride"]
_PARTIES = ["Liberal", "Labour", "Green", "Conservative", "Agrarian", "Social Democratic", "Radical", "independent"]


# Wording variants: each item draws one variant per group and applies it to its fact, its question and its
# decomposition alike, so the question keeps restating its evidence word for word while the family as a whole
# does not repeat one frame. Groups are (forms...) -> variants with the same number of forms; lower-case phrases
# on word boundaries, so names, titles and answers (capitalized or numeric) are never touched.
_REWORD: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] = [
    (("founded in",), [("founded in",), ("established in",), ("set up in",), ("formed in",), ("started in",),
                       ("created in",), ("launched in",), ("organised in",)]),
    (("founded by",), [("founded by",), ("started by",), ("launched by",), ("set up by",), ("begun by",),
                       ("created by",), ("organised by",), ("initiated by",)]),
    (("founded",), [("founded",), ("established",), ("started",), ("set up",), ("formed",), ("chartered",)]),
    (("based in the town of",), [("based in the town of",), ("located in the town of",),
                                 ("settled in the town of",), ("at home in the town of",),
                                 ("playing its home games in the town of",), ("rooted in the town of",)]),
    (("rises in",), [("rises in",), ("begins in",), ("has its source in",), ("springs from",), ("starts in",),
                     ("originates in",)]),
    (("flows through",), [("flows through",), ("passes through",), ("runs through",), ("winds through",),
                          ("cuts through",), ("meanders through",), ("travels through",)]),
    (("emptying into",), [("emptying into",), ("draining into",), ("discharging into",), ("spilling into",),
                          ("flowing out into",), ("ending in",)]),
    (("institution",), [("institution",), ("body",), ("organisation",), ("establishment",), ("enterprise",),
                        ("concern",)]),
    (("headquartered in",), [("headquartered in",), ("seated in",), ("run from",), ("managed from",),
                             ("administered from",)]),
    (("known for its",), [("known for its",), ("famous for its",), ("noted for its",), ("renowned for its",),
                          ("celebrated for its",), ("remembered for its",), ("prized for its",)]),
    (("won the", "win the"), [("won the", "win the"), ("received the", "receive the"),
                              ("collected the", "collect the"), ("earned the", "earn the"),
                              ("took home the", "take home the"), ("was awarded the", "get awarded the")]),
    (("designed",), [("designed",), ("planned",), ("conceived",), ("laid out",), ("drew up",)]),
    (("completed in",), [("completed in",), ("finished in",), ("opened in",), ("inaugurated in",),
                         ("dedicated in",), ("unveiled in",)]),
    (("directed",), [("directed",), ("helmed",), ("filmed",), ("shot",)]),
    (("starring",), [("starring",), ("featuring",), ("casting",), ("headlined by",)]),
    (("served as mayor of",), [("served as mayor of",), ("was mayor of",), ("held office as mayor of",),
                               ("governed",), ("led the council of",), ("presided over",)]),
    (("politician",), [("politician",), ("party member",), ("activist",), ("councillor",), ("campaigner",),
                       ("reformer",)]),
    (("small",), [("small",), ("little",), ("rare",), ("tiny",), ("shy",), ("secretive",), ("nocturnal",),
                  ("slender",), ("dwarf",)]),
    (("native to",), [("native to",), ("endemic to",), ("at home in",), ("confined to",), ("restricted to",)]),
    (("held every",), [("held every",), ("celebrated every",), ("staged every",), ("organised every",),
                       ("hosted every",), ("put on every",)]),
    (("set in",), [("set in",), ("taking place in",), ("unfolding in",), ("situated in",), ("located in",)]),
    (("during the",), [("during the",), ("in the time of the",), ("in the days of the",), ("at the time of the",),
                       ("throughout the",)]),
    (("a town in",), [("a town in",), ("a village in",), ("a settlement in",), ("a borough in",),
                      ("a hamlet in",), ("a commune in",)]),
    (("created",), [("created",), ("made",), ("produced",), ("completed",), ("finished",), ("executed",)]),
    (("feeds mainly on",), [("feeds mainly on",), ("lives mostly on",), ("survives chiefly on",),
                            ("feeds largely on",), ("subsists mainly on",), ("depends mostly on",)]),
    (("coast",), [("coast",), ("shore",), ("seaboard",), ("coastline",)]),
    (("made mainly from",), [("made mainly from",), ("prepared mostly from",), ("cooked chiefly from",),
                             ("based mainly on",), ("built around",), ("made largely from",)]),
    (("served at",), [("served at",), ("eaten at",), ("enjoyed at",), ("shared at",), ("offered at",)]),
    (("built entirely of",), [("built entirely of",), ("constructed wholly of",), ("made entirely of",),
                              ("raised entirely in",), ("put up entirely in",), ("built solely of",)]),
    (("written entirely in",), [("written entirely in",), ("composed wholly in",), ("penned entirely in",),
                                ("written only in",), ("published entirely in",)]),
    (("has won", "won"), [("has won", "won"), ("has claimed", "claimed"), ("has taken", "taken"),
                          ("has captured", "captured"), ("has secured", "secured")]),
    (("championship",), [("championship",), ("title",), ("league title",), ("cup",), ("national crown",)]),
]
_REWORD_RES = [(tuple(re.compile(rf"\b{re.escape(f)}\b") for f in forms), variants) for forms, variants in _REWORD]


def _reword(rng: random.Random, texts: list[str]) -> list[str]:
    """The texts with one drawn variant per wording group, the same variant in every text."""
    for forms, variants in _REWORD_RES:
        if not any(r.search(t) for r in forms for t in texts):
            continue
        pick = rng.choice(variants)
        for r, v in zip(forms, pick):
            texts = [r.sub(v, t) for t in texts]
    return texts


def _an(text: str) -> str:
    """'a Ambrian poet' -> 'an Ambrian poet', 'a 1869 play' -> 'an 1869 play'."""
    return _A_AN.sub(r"\1n ", text)


def _person(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return person_name(rng)
    first = rng.choice(FEMALE_NAMES if rng.random() < 0.5 else MALE_NAMES)
    return f"{first} {rng.choice(_SUR_A)}{rng.choice(_SUR_B)}"


def _place(rng: random.Random) -> str:
    return place_name(rng) if rng.random() < 0.5 else rng.choice(_PLACE_A) + rng.choice(_PLACE_B)


def _title(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.5:
        return title_name(rng)
    if r < 0.7:
        return f"The {rng.choice(_ADJ)} {rng.choice(_NOUN)}"
    if r < 0.85:
        return f"{rng.choice(_ADJ)} {rng.choice(_NOUN)}"
    return f"The {rng.choice(_NOUN)} of {_place(rng)}"


def _year(rng: random.Random, lo: int = 1850, hi: int = 2015) -> int:
    return rng.randint(lo, hi)


def _other(rng: random.Random, options, value):
    alts = [o for o in options if o != value]
    return rng.choice(alts)


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
    p, pl, y, nat, c = _person(rng), _place(rng), _year(rng), rng.choice(_NATS), rng.choice(_COUNTRIES)
    reg = rng.choice(_REGIONS)
    if k == 0:
        t, g, occ = _title(rng), rng.choice(_GENRES), rng.choice(_WRITERS)
        sent = f"{t} is a {y} {g} by the {nat} {occ} {p}, set in the {reg} of {c} during the {rng.choice(_ERAS)}."
        tail = sent.split(", set in ", 1)[1]
        return t, f"{t} is a {g}.", sent, [
            f"{t} is a {y} {g} by what {nat} {occ}, set in {tail[:-1]}?",
            f"Which {nat} {occ} wrote {t}, a {y} {g} set in {tail[:-1]}?"], p
    if k == 1:
        t, occ = _title(rng), rng.choice(_ARTS)
        sent = f"{p} is a {nat} {occ} who created {t} in {pl}, a town in the {reg} of {c}, in {y}."
        return p, f"{p} (born {y - rng.randint(25, 60)}) is a {nat} {occ}.", sent, [
            f"{p} is a {nat} {occ} who created {t} in {pl}, a town in the {reg} of {c}, in what year?",
            f"In what year did the {nat} {occ} {p} create {t} in {pl}?"], str(y)
    if k == 2:
        club, sp, home = f"{pl} {rng.choice(_CLUBS)}", rng.choice(_SPORTS), _place(rng)
        sent = f"{club} is a {nat} {sp} club founded in {y} and based in the town of {home}."
        return club, f"{club} plays in the {nat} {sp} league.", sent, [
            f"{club} is a {nat} {sp} club founded in {y} and based in what town?",
            f"In what town is {club}, the {sp} club founded in {y}, based?"], home
    if k == 3:
        riv = f"{rng.choice(_ADJ)} River" if rng.random() < 0.5 else f"River {_place(rng)}"
        lake = f"Lake {_place(rng)}"
        sent = f"The {riv} rises in the {rng.choice(_TERRAIN)} of {c} and flows through {pl} before emptying into {lake}."
        return riv, f"The {riv} is a river in {c}.", sent, [
            sent.replace(f"into {lake}.", "into what lake?"),
            f"Into what lake does the {riv} empty after it flows through {pl}?"], lake
    if k == 4:
        org, city = f"{pl} {rng.choice(_ORG)}", _place(rng)
        sent = f"The {org} is a {nat} institution established in {y} by {p} and headquartered in the city of {city}."
        return org, f"The {org} has about {rng.randint(2, 90) * 10} staff.", sent, [
            sent.replace(f"the city of {city}.", "what city?"),
            f"What city is the {org}, established in {y} by {p}, headquartered in?"], city
    if k == 5:
        ind = rng.choice(_INDUSTRY)
        sent = f"{pl} is a {rng.choice(_TOWNS)} on the {rng.choice(_WATERS)} in the {reg} of {c}, known for its {ind} industry."
        return pl, f"{pl} has a population of about {rng.randint(3, 300) * 1000:,}.", sent, [
            sent.replace(f" of {c},", " of what country,").replace(".", "?"),
            f"The town of {pl}, known for its {ind} industry, lies in the {reg} of what country?"], c
    if k == 6:
        t, occ = _title(rng), rng.choice(_MUSIC)
        award = f"{rng.choice(_AWARD_A)} {rng.choice(_AWARD_B)}"
        sent = f"In {y} the {nat} {occ} {p} won the {award} for the album {t}."
        return p, f"{p} is a {nat} {occ}.", sent, [
            f"In {y} the {nat} {occ} {p} won the {award} for what album?",
            f"For which album did {p} win the {award} in {y}?"], t
    if k == 7:
        lm = f"{pl} {rng.choice(_LANDMARK)}"
        mat = rng.choice(_MATERIALS)
        sent = f"The {lm} is a {mat} building designed by the {nat} architect {p} and completed in {y}."
        return lm, f"The {lm} stands in the old town of {pl}.", sent, [
            f"The {lm} is a {mat} building designed by what {nat} architect and completed in {y}?",
            f"Which architect designed the {lm}, completed in {y}?"], p
    if k == 8:
        t, f, star = _title(rng), rng.choice(_FILMS), _person(rng)
        sent = f"{t} is a {y} {nat} {f} directed by {p} and starring {star} as a {rng.choice(_CHARACTERS)}."
        return t, f"{t} was shot in {pl}.", sent, [
            sent.replace(f"directed by {p}", "directed by whom").replace(".", "?"),
            f"Who directed {t}, the {y} {nat} {f} starring {star}?"], p
    if k == 9:
        y2 = y + rng.randint(2, 14)
        party = rng.choice(_PARTIES)
        sent = f"{p} was the {party} politician who served as mayor of {pl} from {y} to {y2}."
        return p, f"{p} was born in {c}.", sent, [
            f"Who was the {party} politician who served as mayor of {pl} from {y} to {y2}?",
            f"From {y} to {y2}, who served as mayor of {pl}?"], p
    if k == 10:
        cr, an, ter = f"{rng.choice(_CRE_A)} {rng.choice(_CRE_B)}", rng.choice(_ANIMAL), rng.choice(_TERRAIN)
        sent = f"The {cr} is a small species of {an} native to the {ter} in the {reg} of {c}."
        return cr, f"The {cr} was first described in {y}.", sent, [
            sent.replace(f" of {c}.", " of what country?"),
            f"The {cr}, a species of {an}, is native to the {ter} of which country?"], c
    fest, mon = rng.choice(_FESTIVALS), rng.choice(_MONTHS)
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
    pl = _place(rng)
    slots = {"P": _person(rng), "PL": pl, "Y": str(_year(rng)), "Y0": str(_year(rng, 1800, 1840)),
             "N": rng.choice(_NATS), "C": rng.choice(_COUNTRIES), "REG": rng.choice(_REGIONS),
             "I": rng.choice(_INSTRUMENTS), "R": rng.choice(["ten", "twelve", "fifteen", "twenty", "thirty"]),
             "V": f"SS {rng.choice(_ADJ)} {rng.choice(_NOUN)}" if rng.random() < 0.5 else f"{_place(rng)} {rng.choice(_NOUN)}",
             "S": rng.choice(_VESSELS), "D": rng.choice(_DISCOVERIES), "SP": rng.choice(_SPORTS),
             "POS": f"a {rng.choice(_POSITIONS)}", "CLUB": f"{_place(rng)} {rng.choice(_CLUBS)}",
             "SUBJ": rng.choice(_SUBJECTS_U), "SUR": _person(rng).split()[-1], "PK": rng.choice(_PEAK_KINDS),
             "H": _place(rng), "NEWS": rng.choice(_NEWS), "BR": f"{_place(rng)} Bridge", "BK": rng.choice(_BRIDGES),
             "RIV": f"{rng.choice(_ADJ)} River", "DISH": rng.choice(_DISH_A) + rng.choice(_DISH_B) + rng.choice(["", "ka", "li", "ne"]),
             "REC": rng.choice(_RECIPES), "OCC": rng.choice(["weddings", "harvest time", "midwinter", "funerals", "name days",
                                                            "market days", "christenings", "the spring fair",
                                                            "carnival", "the first snowfall", "Easter"])}
    answer = {"PLACE": _place, "PERSON": _person, "COUNTRY": lambda r: r.choice(_COUNTRIES), "TITLE": _title,
              "YEAR": lambda r: str(_year(r))}[ans_kind](rng)
    if ans_kind == "PERSON":
        slots["P"] = answer
    slots["A"] = "\x00"
    fact = alt(fact_t.format(**slots), rng)
    sent = _an(fact.replace("\x00", answer))
    question = fact.replace("\x00", alt(wh, rng).lower())
    if question.endswith("."):
        question = question[:-1] + "?"
    title = title_t.format(**slots)
    intro = alt(intro_t.format(**slots), rng)
    return title, intro, sent, [_an(question), _an(question)], answer


def _hp_paragraph(rng: random.Random) -> tuple[str, list[str], int, list[str], str]:
    """(title, sentences, index of the fact sentence, question frames, answer)."""
    title, intro, sent, frames, answer = _hp_fact(rng)
    intro, sent, *frames = [_an(t) for t in _reword(rng, [intro, sent, *frames])]
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


# ------------------------------------------------------------------ StrategyQA: a fact asked back
# (fact, question with {v} for the key detail, step 1 of the decomposition, step 2 with {v}, key value,
#  alternative values, term, description)
def _sq_item(rng: random.Random):
    k = rng.randrange(10)
    p, pl, y, nat, c = _person(rng), _place(rng), _year(rng), rng.choice(_NATS), rng.choice(_COUNTRIES)
    if k == 0:
        cr = f"{rng.choice(_CRE_A)} {rng.choice(_CRE_B)}"
        diet = rng.choice(list(_FOODS))
        food = rng.choice(_FOODS[diet])
        ter = rng.choice(_TERRAIN)
        return (f"The {cr} is a {diet} that feeds mainly on {{v}} in the {ter} of {c}.",
                f"Is the {cr} a {diet} that feeds mainly on {{v}} in the {ter} of {c}?",
                f"What does the {cr} mainly feed on?", "Is #1 {v}?", food, _FOODS[diet], cr, "species of animal")
    if k == 1:
        cr = f"{rng.choice(_CRE_A)} {rng.choice(_CRE_B)}"
        act = rng.choice(["hold its breath", "stay under water", "go without food", "fly without landing",
                          "survive without water", "stay buried in the mud"])
        num = rng.choice(["two", "three", "five", "ten", "twenty", "forty"])
        unit = rng.choice(["minutes", "hours", "days", "weeks"])
        an = rng.choice(_ANIMAL)
        return (f"The {cr}, a small {an} of {c}, can {act} for up to {num} {{v}}.",
                f"Can the {cr}, a small {an} of {c}, {act} for up to {num} {{v}}?",
                f"For how long can the {cr} {act}?", f"Is #1 at least {num} {{v}}?", unit,
                ["minutes", "hours", "days", "weeks", "months"], cr, "species of animal")
    if k == 2:
        reg = rng.choice(_REGIONS)
        town, side, ind = rng.choice(_TOWNS), rng.choice(_REGIONS[:8]), rng.choice(_INDUSTRY)
        return (f"{pl} is a {town} on the {side} coast of {{v}}, known for its {ind} industry.",
                f"Is {pl}, known for its {ind} industry, a {town} on the {side} coast of {{v}}?",
                f"What country is {pl} in?", "Is #1 {v}?", c, _COUNTRIES, pl, "town")
    if k == 3:
        occ = rng.choice(_WRITERS + _ARTS + _SCIENCE + _MUSIC)
        return (f"{p} was a {nat} {occ} born in {pl} in {{v}}.", f"Was {p} a {nat} {occ} born in {pl} in {{v}}?",
                f"In what year was {p} born?", "Is #1 {v}?", str(y), [str(y + d) for d in (-12, -7, -3, 4, 9, 15)],
                p, f"{nat} {occ}")
    if k == 4:
        org = f"{pl} {rng.choice(_ORG)}"
        return (f"The {org} was founded in {y} by the {nat} {{v}} {p}.",
                f"Was the {org} founded in {y} by the {nat} {{v}} {p}?",
                f"What was the profession of {p}, who founded the {org}?", "Is #1 {v}?", rng.choice(_SCIENCE),
                _SCIENCE, org, "organization")
    if k == 5:
        dish = rng.choice(_DISH_A) + rng.choice(_DISH_B)
        occ = rng.choice(["festivals", "weddings", "harvest time", "winter evenings", "funerals", "market days"])
        return (f"{dish} is a {nat} dish made mainly from {{v}} and served at {occ}.",
                f"Is {dish} a {nat} dish made mainly from {{v}} and served at {occ}?",
                f"What is {dish} mainly made from?", "Is #1 {v}?", rng.choice(_INGREDIENTS), _INGREDIENTS, dish,
                f"{nat} dish")
    if k == 6:
        lm = f"{pl} {rng.choice(_LANDMARK)}"
        return (f"The {lm} was built entirely of {{v}} in {y} by the architect {p}.",
                f"Was the {lm} built entirely of {{v}} in {y} by the architect {p}?",
                f"What material was the {lm} built of?", "Is #1 {v}?", rng.choice(_MATERIALS), _MATERIALS, lm,
                "building")
    if k == 7:
        t = _title(rng)
        lang = rng.choice(_NATS)
        return (f"{t} is a {y} novel written entirely in {{v}} by {p}.",
                f"Is {t} a {y} novel written entirely in {{v}} by {p}?",
                f"What language is {t} written in?", "Is #1 {v}?", lang, _NATS, t, "novel")
    if k == 8:
        fest = rng.choice(_FESTIVALS)
        return (f"The {pl} {fest} festival has been held every {{v}} since {y}.",
                f"Has the {pl} {fest} festival been held every {{v}} since {y}?",
                f"In what month is the {pl} {fest} festival held?", "Is #1 {v}?", rng.choice(_MONTHS), _MONTHS,
                f"{pl} {fest} festival", "festival")
    club = f"{pl} {rng.choice(_CLUBS)}"
    sp = rng.choice(_SPORTS)
    wins = rng.randint(2, 19)
    return (f"{club} is a {{v}} club that has won the {nat} championship {wins} times.",
            f"Is {club} a {{v}} club that has won the {nat} championship {wins} times?",
            f"What sport does {club} play?", "Is #1 {v}?", sp, _SPORTS, club, "sports club")


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
        asked = value if yes else _other(rng, alts, value)
        fact, question, step1, step2 = _reword(rng, [fact.format(v=value), question.format(v=asked), step1,
                                                      step2.format(v=asked)])
        if rng.random() < 0.6:  # a source named at the end of both the fact and the question: same words, more varied ones
            src = alt(rng.choice(_SQ_LEADS).format(pl=_place(rng), y=_year(rng, 1890, 2020)), rng)
            src = src[:1].lower() + src[1:]
            fact, question = f"{fact[:-1]}, {src}.", f"{question[:-1]}, {src}?"
        out.append({"qid": f"easy-{len(out):05d}", "term": term, "description": description,
                    "question": _an(question), "answer": yes, "facts": [_an(fact)],
                    "decomposition": [step1, step2]})
    return out


# ------------------------------------------------------------------ GSM8K: one or two steps, givens restated
_THINGS = ["apples", "stickers", "marbles", "books", "pencils", "stamps", "shells", "postcards", "cookies", "coins",
           "beads", "seashells", "comic books", "trading cards", "tomatoes", "eggs", "candles", "buttons", "plants",
           "balloons", "crayons", "ribbons", "jars of jam", "bottles of juice", "notebooks", "bracelets", "puzzles"]
_GET = [("buys", "bought"), ("finds", "found"), ("gets", "got"), ("is given", "was given"), ("picks up", "picked up"),
        ("collects", "collected"), ("receives", "received"), ("wins", "won")]
_LOSE = [("gives away", "gave away"), ("sells", "sold"), ("loses", "lost"), ("donates", "donated"),
         ("uses", "used"), ("trades away", "traded away"), ("misplaces", "misplaced"), ("breaks", "broke")]
_WHERE = ["at the bakery", "after the parade", "at the swimming pool", "in the park", "at the bookshop",
          "from her grandmother", "from his cousin", "at the carnival", "on the school trip", "at the toy store",
          "at the harbor", "on Wednesday", "on her birthday", "at the garage sale", "from the teacher",
          "at the craft fair", "in the garden", "at the train station", "from a classmate", "at the farm stand",
          "at the market", "at a yard sale", "at school", "from a neighbor", "at the fair", "at the library sale",
          "from her aunt", "from his uncle", "on Saturday", "on the way home", "at the corner shop", "at camp",
          "from a friend", "during the holidays", "at the flea market", "on Monday", "at the museum shop"]
_GROUPS = [("box", "boxes"), ("bag", "bags"), ("crate", "crates"), ("pack", "packs"), ("tray", "trays"),
           ("basket", "baskets"), ("jar", "jars"), ("shelf", "shelves"), ("row", "rows"), ("tin", "tins")]


_HAS = ["{n} has {a} {t}.", "{n} owns {a} {t}.", "{n} starts the week with {a} {t}.", "{n} keeps {a} {t} in a {box}.",
        "{n} already has {a} {t} at home.", "At first {n} has {a} {t}."]
_BOXES = ["shoebox", "drawer", "cupboard", "backpack", "tin", "cardboard box", "basket", "cabinet", "crate"]
_ASK = {"now": ["How many {t} does {n} have now?", "How many {t} does {n} have altogether now?",
                "What is the number of {t} {n} has now?"],
        "left": ["How many {t} does {n} have left?", "How many {t} remain with {n}?",
                 "What number of {t} does {n} keep?", "How many {t} stay with {n} afterwards?", "How many {t} are left for {n}?",
                 "How many {t} does {n} still have left?"],
        "all": ["How many {t} does {n} have in all?", "Altogether, how many {t} does {n} have?",
                "Counting every one, how many {t} are there?", "How many {t} are there altogether?", "How many {t} are there in all?",
                "What is the total number of {t} in all?"],
        "end": ["How many {t} does {n} have at the end?", "At the end, how many {t} does {n} have?",
                "How many {t} are left with {n} at the end?"]}


_THING_ADJ = """red blue green yellow purple striped spotted glass wooden paper metal silver golden tiny large shiny
old new rare foreign handmade painted glittery plastic velvet ceramic woolen polished chocolate lemon cherry vintage
pocket mini""".split()
_PUTS = ["puts them into", "packs them into", "sorts them into", "divides them into", "shares them out into",
         "splits them into", "arranges them into", "stacks them into", "loads them into", "bundles them into"]


_HAS_MORE = ["{n}, a [young|keen|retired|busy|tired|cheerful] {job} from {town}, has {a} {t}.",
             "{n} [keeps|stores|hides|has] {a} {t} [in a|inside a|at the back of a] {box} [at home|under the bed|in the attic|in the hall|by the window].",
             "[On Sunday|Before lunch|One morning|Last spring|In March|After school|Early on] {n} [counts|lines up|sorts out|lays out] {a} {t}.",
             "{n} [inherits|is left|takes over] {a} {t} from {rel}.",
             "The {town} [club|shop|school|library|museum] [lends|gives|sends] {n} {a} {t}."]
_ASK_GRAMMAR = {"now": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} own|are with {n}|"
                       "belong to {n}|does {n} now hold] [now|at this point|by now|after that|in total now]?",
                "left": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} keep|"
                        "remain with {n}|stay with {n}|does {n} still hold] [left|afterwards|after that|now|at the end of the day]?",
                "all": "[How many|Exactly how many|What number of|In total, how many|Altogether, how many] {t} [does {n} have|"
                       "are there|does {n} own|are packed away|are stored] [in all|altogether|in total|combined|]?",
                "end": "[How many|Exactly how many|What number of|Just how many] {t} [does {n} have|does {n} keep|"
                       "are left with {n}|remain with {n}|does {n} end up with] [at the end|in the end|by evening|"
                       "at the finish|when it is all over]?"}


def _ask(rng: random.Random, kind: str, n: str, t: str) -> str:
    if rng.random() < 0.25:
        return rng.choice(_ASK[kind]).format(n=n, t=t)
    return alt(_ASK_GRAMMAR[kind].format(n=n, t=t), rng)


def _where(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return rng.choice(_WHERE)
    if r < 0.6:
        return f"at the {place_name(rng)} {rng.choice(SHOPS)}"
    if r < 0.8:
        return f"from {rng.choice(FIRST_NAMES)}'s {rng.choice(RELATIVES)}"
    w = alt("[on the way to|on the way back from|near|outside|behind] the [old|new|busy|little|] "
            "[mill|harbour|church|bus depot|stadium|post office|bakery|ferry terminal|orchard|swimming baths]", rng)
    return w[:1].lower() + w[1:]


def _gsm_item(rng: random.Random) -> dict:
    """A one- or two-step problem; each solution line first restates the givens it uses, in the question's words."""
    n = rng.choice(FIRST_NAMES) if rng.random() < 0.6 else rng.choice(FEMALE_NAMES + MALE_NAMES)
    t, where, box = rng.choice(_THINGS), _where(rng), rng.choice(_BOXES)
    if rng.random() < 0.5:
        t = f"{rng.choice(OBJECT_ADJ)} {rng.choice(GOODS)}"
    elif rng.random() < 0.8:
        t = f"{rng.choice(_THING_ADJ)} {t}"
    k = rng.randrange(5)
    a, b = rng.randint(8, 90), rng.randint(3, 60)
    if k == 1:
        a += b
    if rng.random() < 0.5:
        has = rng.choice(_HAS).format(n=n, a=a, t=t, box=box)
    else:
        has = alt(rng.choice(_HAS_MORE).format(n=n, a=a, t=t, box=box, job=rng.choice(JOBS), town=place_name(rng),
                                               rel=f"{rng.choice(['her', 'his', 'a'])} {rng.choice(RELATIVES)}"), rng)
    get, lose = rng.choice(_GET)[0], rng.choice(_LOSE)[0]
    if k == 0:
        s2 = f"{n} {get} {b} more {t} {where}."
        q, ans = [has, s2, _ask(rng, "now", n, t)], a + b
        sol = [f"{has} {s2[:-1]}, so {n} has {a} + {b} = <<{a}+{b}={ans}>>{ans} {t} now."]
    elif k == 1:
        s2 = f"{n} {lose} {b} of the {t} {where}."
        q, ans = [has, s2, _ask(rng, "left", n, t)], a - b
        sol = [f"{has} {s2[:-1]}, so {n} has {a} - {b} = <<{a}-{b}={ans}>>{ans} {t} left."]
    elif k == 2:
        g, gs = rng.choice(_GROUPS)
        a, b = rng.randint(3, 15), rng.randint(4, 24)
        s1 = alt(f"{n} [has|owns|brings|carries|orders|fills] {a} {gs} of {t} [|for the {rng.choice(_FAIRS)}|"
                 f"{where}].", rng)
        s2 = alt(f"[Each|Every] {g} [holds|contains|has room for|takes] {b} {t}.", rng)
        q, ans = [s1, s2, _ask(rng, "all", n, t)], a * b
        sol = [f"{s1} {s2[:-1]}, so there are {a} * {b} = <<{a}*{b}={ans}>>{ans} {t} in all."]
    elif k == 3:
        g, gs = rng.choice(_GROUPS)
        per, ans = rng.randint(3, 12), rng.randint(2, 12)
        a = per * ans
        s1 = f"{n} has {a} {t} and {rng.choice(_PUTS)} {gs} of {per} {t} each."
        q = [s1, alt(rng.choice([f"How many {gs} does {n} [fill|use|need|end up with]?",
                                 f"How many {gs} of {per} does {n} [fill|pack|make]?",
                                 f"How many full {gs} [does {n} end up with|are there|come out of it]?"]), rng)]
        sol = [f"{s1[:-1]}, so {n} fills {a} / {per} = <<{a}/{per}={ans}>>{ans} {gs}."]
    else:
        c = rng.randint(2, a + b - 1)
        s2 = f"{n} {get} {b} more {t} {where}."
        s3 = alt(f"[Then|After that|Later|Next|That evening|The next day] {n} {lose} {c} of the {t}.", rng)
        q, ans = [has, s2, s3, _ask(rng, "end", n, t)], a + b - c
        sol = [f"{has} {s2[:-1]}, so {n} has {a} + {b} = <<{a}+{b}={a + b}>>{a + b} {t}.",
               f"{s3[:-1]}, so {n} has {a + b} - {c} = <<{a + b}-{c}={ans}>>{ans} {t} at the end."]
    return {"question": " ".join(q), "answer": "\n".join(sol) + f"\n#### {ans}"}


_FAIRS = ["school fair", "bake sale", "street party", "church fete", "harvest supper", "village show", "jumble sale",
          "charity market", "summer camp", "scout jamboree"]


def generate_easy_gsm8k(n: int, seed: int) -> list[dict]:
    rng = random.Random(f"easy-gsm8k|{seed}")
    return [_gsm_item(rng) for _ in range(n)]


EASY_GENERATORS = {"hotpotqa": generate_easy_hotpotqa, "strategyqa": generate_easy_strategyqa,
                   "gsm8k": generate_easy_gsm8k}
