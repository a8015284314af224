"""Vocabulary and helpers shared by the easy-family generators (rc1.data.builtin_easy)."""

from __future__ import annotations

import random
import re

from rc1.data.builtin_vocab import FEMALE_NAMES, MALE_NAMES, person_name, place_name, title_name

# ------------------------------------------------------------------ vocabulary
SUR_A = """Ash Bel Bran Cal Dun El Fen Gar Hal Ith Jor Kel Lor Mar Nor Os Pell Quin Ros Sel Tor Ul Var Wen Yar Zel
Ard Bry Cor Dal Ev Fal Grim Hol Ker Lin Mor Ner Ost Ren Stav Tam Vel Wil""".split()
SUR_B = """brook by combe dale den field ford gate hart holm hurst ley mere mont ridge stead ton vale well wick worth
more ling sen berg strom ani etti ova enko ez ar ic in ez quist""".split()
PLACE_A = """Al Bar Cor Dra Es Fal Gil Hav Ir Kar Lun Mor Nes Or Pra Quel Rav Sal Tam Ul Vel Wyn Yor Zan Bel Cas Dor
Ember Fen Gor Hel Isk Jun Kel Lor Mir Nor Ost Pel Ros Sev Tor Ves""".split()
PLACE_B = """aro bury dale enza haven ia ika ino mont ora port sk stad tova ville wick yne zia ford grad holm mouth
bridge field lund vik esse ano ost mar""".split()
COUNTRIES = """Valdoria Mereth Kastovia Ostrelle Brunmark Teralind Quorvath Silvane Harrowmere Dalvania Estrond
Corvenna Lysmark Thessaly Norwend Palvera Sundria Vorland Ambria Kelmora""".split()
NATS = """Valdorian Merethi Kastovian Ostrellan Brunmarkish Teralindic Quorvathi Silvanese Harrowmerian Dalvanian
Estrondi Corvennan Lysmarkish Norwendish Palveran Sundrian Vorlandic Ambrian Kelmoran""".split()
REGIONS = ["north", "south", "east", "west", "north-east", "north-west", "south-east", "south-west", "central highlands", "lowlands", "coastal plain", "river delta", "upland interior", "lake district"]
ADJ = """Silent Hidden Broken Golden Distant Burning Quiet Winter Crimson Endless Hollow Northern Paper Glass Iron
Amber Sleeping Falling Bright Last Second Velvet Salt Lonely Wandering Borrowed Painted Frozen Secret Open Narrow
Restless Drowned Scarlet Tender Wild Patient Little Long Stolen""".split()
NOUN = """Harbor Orchard Lantern Meridian Garden Tide Archive Compass Valley Season Mirror Border River Delta Kingdom
Letters Hours Bridge Staircase Lighthouse Parade Feast Horizon Atlas Choir Winter Summer Country Window Road Station
Ferry Island Quarry Market Canal Forest Tower Cathedral Threshold""".split()
GENRES = ["novel", "short story collection", "memoir", "play", "poetry collection", "detective novel",
           "children's book", "historical novel", "travel book", "graphic novel"]
FILMS = ["drama film", "comedy film", "documentary", "thriller", "animated film", "war film", "musical film",
          "science fiction film", "romantic comedy", "crime film"]
ARTS = ["painter", "sculptor", "photographer", "printmaker", "illustrator", "muralist", "ceramicist", "architect"]
WRITERS = ["writer", "novelist", "poet", "playwright", "journalist", "essayist", "screenwriter", "historian"]
MUSIC = ["composer", "singer-songwriter", "pianist", "jazz saxophonist", "conductor", "folk singer", "cellist",
          "rapper", "organist", "guitarist"]
SCIENCE = ["physicist", "chemist", "botanist", "astronomer", "geologist", "mathematician", "cartographer",
            "marine biologist", "engineer", "economist", "linguist", "surgeon"]
SPORTS = ["football", "rowing", "handball", "ice hockey", "rugby", "basketball", "cricket", "volleyball",
           "water polo", "bandy", "field hockey", "cycling"]
CLUBS = ["Rovers", "United", "Athletic", "Wanderers", "Rangers", "City", "Albion", "Harriers", "Town", "Olympic",
          "Sporting", "Dynamo"]
ORG = ["Institute", "Company", "Works", "Foundation", "Observatory", "Academy", "Press", "Laboratories", "Society",
        "Trust", "Brewery", "Shipyard", "Museum", "Conservatory", "Library"]
LANDMARK = ["Clock Tower", "Old Bridge", "Town Hall", "Grand Theatre", "Central Station", "Opera House",
             "Lighthouse", "Botanical Garden", "Covered Market", "Cathedral", "Water Tower", "Customs House"]
INDUSTRY = ["shipbuilding", "publishing", "textile", "optics", "railway", "pharmaceutical", "printing", "glassmaking",
             "brewing", "fishing", "timber", "porcelain", "watchmaking", "salt mining", "wine"]
AWARD_A = ["Golden", "Silver", "Crystal", "Laurel", "Northern", "Meridian", "Harbor", "Lantern", "Amber", "Iron"]
AWARD_B = ["Quill", "Medal", "Prize", "Star", "Compass", "Wreath", "Key", "Crown", "Anchor", "Lyre"]
CRE_A = """Marsh Dune Cliff Glacier Ember Moss Reed Thorn Ridge Lagoon Cinder Frost Canyon Tundra Kelp Pebble Ash
Fern Silt Bramble Heath Coral Willow""".split()
CRE_B = """Strider Lopper Glider Warbler Muncher Prowler Skimmer Burrower Dasher Stalker Hopper Creeper Finch Vole
Newt Shrike Gecko Loach Marten Plover""".split()
ANIMAL = ["lizard", "bird", "fish", "frog", "beetle", "rodent", "bat", "snail", "moth", "turtle", "salamander"]
TERRAIN = ["hills", "marshes", "pine forests", "salt flats", "limestone cliffs", "sand dunes", "river valleys",
            "mangrove swamps", "alpine meadows", "coastal reefs", "cloud forests", "volcanic islands"]
FOODS = {"herbivore": ["grass", "fruit", "leaves", "seeds", "bark", "roots", "berries", "nectar", "moss", "algae"],
          "carnivore": ["insects", "snails", "small fish", "frogs", "worms", "crabs", "mice", "spiders"]}
MATERIALS = ["red brick", "granite", "limestone", "timber", "sandstone", "marble", "cast iron", "basalt", "glass"]
DISH_A = ["Kel", "Bor", "Tam", "Lus", "Vor", "Pel", "Zan", "Mir", "Quo", "Dras", "Fen", "Osk"]
DISH_B = ["ava", "eni", "ruk", "olo", "ista", "ami", "ezza", "undo", "alka", "ishi"]
INGREDIENTS = ["lentils", "rice", "buckwheat", "chickpeas", "smoked fish", "lamb", "goat cheese", "chestnuts",
                "cabbage", "barley", "corn", "mushrooms", "beets", "plums"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
FESTIVALS = ["lantern", "harvest", "kite", "boat", "cheese", "jazz", "puppet", "folk dance", "film", "poetry",
              "chess", "flower", "bread", "street theatre"]


_A_AN = re.compile(r"\b([Aa]) (?=(?![Uu]ni)[AEIOUaeiou]|18\d\d\b)")


ERAS = ["1920s", "1950s", "1970s", "Second World War", "civil war", "great flood", "gold rush", "long winter of 1903",
         "last years of the monarchy", "railway boom", "occupation", "cold war"]
TOWNS = ["market town", "port town", "fishing village", "mill town", "spa town", "cathedral city", "river town",
          "mining town", "garrison town", "university town"]
WATERS = ["banks of a wide river", "shore of a deep lake", "edge of a sheltered bay", "mouth of a tidal estuary",
           "slopes of an old volcano", "edge of a salt marsh"]
CHARACTERS = ["retired detective", "lighthouse keeper", "young widow", "travelling salesman", "ship's cook",
               "disgraced surgeon", "village schoolteacher", "border guard", "chess prodigy", "runaway bride"]
PARTIES = ["Liberal", "Labour", "Green", "Conservative", "Agrarian", "Social Democratic", "Radical", "independent"]


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


def reword(rng: random.Random, texts: list[str]) -> list[str]:
    """The texts with one drawn variant per wording group, the same variant in every text."""
    for forms, variants in _REWORD_RES:
        if not any(r.search(t) for r in forms for t in texts):
            continue
        pick = rng.choice(variants)
        for r, v in zip(forms, pick):
            texts = [r.sub(v, t) for t in texts]
    return texts


def fix_articles(text: str) -> str:
    """'a Ambrian poet' -> 'an Ambrian poet', 'a 1869 play' -> 'an 1869 play'."""
    return _A_AN.sub(r"\1n ", text)


def any_person(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return person_name(rng)
    first = rng.choice(FEMALE_NAMES if rng.random() < 0.5 else MALE_NAMES)
    return f"{first} {rng.choice(SUR_A)}{rng.choice(SUR_B)}"


def any_place(rng: random.Random) -> str:
    return place_name(rng) if rng.random() < 0.5 else rng.choice(PLACE_A) + rng.choice(PLACE_B)


def any_title(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.5:
        return title_name(rng)
    if r < 0.7:
        return f"The {rng.choice(ADJ)} {rng.choice(NOUN)}"
    if r < 0.85:
        return f"{rng.choice(ADJ)} {rng.choice(NOUN)}"
    return f"The {rng.choice(NOUN)} of {any_place(rng)}"


def any_year(rng: random.Random, lo: int = 1850, hi: int = 2015) -> int:
    return rng.randint(lo, hi)


def other_than(rng: random.Random, options, value):
    alts = [o for o in options if o != value]
    return rng.choice(alts)

