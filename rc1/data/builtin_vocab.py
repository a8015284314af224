"""Word lists for the builtin generators. Broad on purpose: the pool's diversity gates look at n-grams,
so a handful of names and nouns would make a builtin pool fail them."""

from __future__ import annotations

import random
import re

_ALT = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")


def alt(text: str, rng: random.Random) -> str:
    """Resolve every [a|b|c] group in `text` to one of its options (an empty option drops the group);
    the builtin generators write their sentences this way so the same fact is phrased many ways."""
    out = _ALT.sub(lambda m: rng.choice(m.group(1).split("|")), text)
    out = " ".join(out.split())
    out = re.sub(r"\s+([,.?!;:])", r"\1", out)
    return out[:1].upper() + out[1:]

FIRST_NAMES = """
Aaliyah Abebe Ada Adebayo Aditi Ahmed Aiko Akira Alejandro Alessia Ali Alma Amara Amir Ana Anders Andrea Anika
Anton Arjun Astrid Aurelio Ayesha Bao Beatriz Benedikt Bianca Boris Bruno Camila Carmen Cecile Chen Chiara Chidi
Clara Dalia Damian Daniela Darius Deepa Diego Dmitri Elena Elif Emeka Emil Emma Enzo Esther Fatima Felipe Femi
Fiona Freya Gabriel Gaurav Giulia Greta Hana Hannah Haruto Hassan Helga Hiro Ibrahim Ida Ilse Imani Ines Ingrid
Isaac Isabel Ivan Jamal Jana Javier Jin Joao Jonas Jorge Julia Kai Kamala Karim Katya Kenji Keiko Kofi Lars Layla
Leila Leon Lin Lina Luca Lucia Luis Mai Malik Marco Mariam Marisol Mateo Maya Mehmet Mei Mika Milan Mina Miro
Nadia Naledi Nasser Nia Niko Nina Noah Nora Olu Omar Oskar Paolo Pavel Priya Rafael Rahul Rania Ravi Rosa Rui
Saanvi Sadia Salma Samir Santiago Sara Selin Sergio Shira Sofia Soren Sunita Tamar Tariq Thabo Theo Tomas Uma
Valentina Vera Victor Wei Xavier Yara Yasmin Yusuf Zainab Zara Zoltan Zuri
""".split()

SURNAME_PARTS_A = ("Ash Bel Bran Cal Dun El Fen Gar Hal Ith Jor Kel Lor Mar Nor Os Pell Quin Ros Sel Tor Ul Var Wen Yar Zel "
                   "Ab Bar Cor Dar Eber Fair Gold Hart Iver Kings Lang Mor Nether Oak Pem Red Stan Thorn Up West").split()
SURNAME_PARTS_B = ("brook by combe dale den field ford gate hart holm hurst ley mere mont ridge stead ton vale wick worth "
                   "acre bourne castle ell fold grave ham ing lock more nash ock rick shaw stone thwaite wood").split()

PLACE_PARTS_A = ("Al Bar Cor Dra Es Fal Gil Hav Ir Kar Lun Mor Nes Or Pra Quel Rav Sal Tam Ul Vel Wyn Yor Zan Ber "
                 "Cas Dor Fen Gal Har Kes Lis Mir Ost Pel Sor Tre Val Ama Bel Cin Del Ern Fro Gor Hel Isk Jas Kol "
                 "Lem Mar Nor Oda Pov Ris Sib Tor Ven Wol").split()
PLACE_PARTS_B = ("aro bury dale enza haven ia ika ino mont ora port sk stad tova ville wick yne zia ford grad "
                 "abad burg cester dorf elle ford holm ica jord kirk lund minster nova osa polis rovo sund tal wald").split()
COUNTRY_NAMES = ("Valdoria Mereth Kastovia Ostrelle Brunmark Teralind Quorvath Silvane Harrowmere Dalvania Estrond "
                 "Pellinor Zarathis Corvenia Ulmaris Averon Rhovany Kelmora Isandor Fenwyr Tolvaine Marquesa Norvell "
                 "Sabrevia").split()

RIVERS_A = "Amber Silver Crane Willow Iron Falcon Heron Stone Misty Copper Ember Cedar Frost Golden Raven".split()
RIVERS_B = "River Brook Water Run".split()
LANDMARKS = ("clock tower|stone bridge|glass observatory|harbor lighthouse|old cathedral|botanical garden|opera house|"
             "covered market|city fortress|marble library|salt museum|canal lock|bell tower|summer palace").split("|")
OCCUPATIONS = ("painter|novelist|physicist|architect|composer|botanist|cartographer|engineer|historian|sculptor|poet|"
               "economist|chemist|film director|photographer|astronomer|mathematician|playwright|geologist|"
               "choreographer|journalist|linguist|marine biologist|violinist").split("|")
FIELDS_OF_WORK = {
    "painter": "painting", "novelist": "novel", "physicist": "treatise", "architect": "building design",
    "composer": "symphony", "botanist": "field guide", "cartographer": "atlas", "engineer": "bridge design",
    "historian": "history", "sculptor": "sculpture", "poet": "poetry collection", "economist": "treatise",
    "chemist": "monograph", "film director": "film", "photographer": "photo book", "astronomer": "star catalogue",
    "mathematician": "monograph", "playwright": "play", "geologist": "survey", "choreographer": "ballet",
    "journalist": "memoir", "linguist": "dictionary", "marine biologist": "documentary", "violinist": "album",
}
TITLE_ADJ = ("Silent Hidden Broken Golden Distant Burning Quiet Winter Crimson Endless Hollow Northern Restless "
             "Paper Glass Salt Iron Last Secret Wandering Sleeping Open Lost Bright Amber Borrowed Copper Drowned "
             "Emerald Fading Gentle Hungry Idle Jade Kindred Lonely Midnight Narrow Olive Patient Quiet Rusted "
             "Scarlet Tender Velvet Wild Yellow Forgotten Second Southern Eastern Burnt Feathered Frozen").split()
TITLE_NOUN = ("Harbor Orchard Lantern Meridian Garden Tide Archive Compass Valley Season Mirror Border Signal "
              "Voyage Atlas Chorus Threshold Island Furnace Letters Horizon Canal Kingdom Ledger Anchor Bridge "
              "Cathedral Delta Estuary Fountain Glacier Hymn Inheritance Journey Keel Labyrinth Monsoon Nocturne "
              "Observatory Pilgrim Quarry Reef Sonata Tapestry Underground Vineyard Winter Wharf Orchid Ember "
              "Parade Lighthouse Caravan Almanac").split()
ORG_KIND = ("Institute|Company|Works|Foundation|Observatory|Academy|Press|Laboratories|Society|Guild|Conservatory|"
            "Shipyard|Trading House|Bank").split("|")
INDUSTRIES = ("shipbuilding|publishing|textiles|optics|railways|pharmaceuticals|printing|glassmaking|tea trading|"
              "clockmaking|telegraphy|mining|aviation|banking|porcelain").split("|")
UNIVERSITY_SUFFIX = ["University", "Polytechnic", "College", "Academy of Sciences"]

# GSM8K-like scenarios
ITEMS = [  # (singular, plural, low price, high price)
    ("notebook", "notebooks", 2, 9), ("pencil case", "pencil cases", 3, 12), ("bag of rice", "bags of rice", 4, 15),
    ("box of crayons", "boxes of crayons", 2, 8), ("kite", "kites", 6, 20), ("puzzle", "puzzles", 7, 25),
    ("potted fern", "potted ferns", 5, 18), ("jar of honey", "jars of honey", 4, 14), ("scarf", "scarves", 8, 30),
    ("board game", "board games", 12, 45), ("loaf of bread", "loaves of bread", 2, 7), ("mug", "mugs", 3, 11),
    ("paperback", "paperbacks", 5, 16), ("bottle of juice", "bottles of juice", 2, 6), ("lamp", "lamps", 15, 60),
    ("pair of socks", "pairs of socks", 2, 9), ("sketchbook", "sketchbooks", 4, 13), ("basket of plums", "baskets of plums", 3, 10),
    ("tennis ball can", "tennis ball cans", 3, 9), ("bird feeder", "bird feeders", 9, 28), ("candle", "candles", 2, 12),
    ("packet of seeds", "packets of seeds", 1, 5), ("phone charger", "phone chargers", 8, 25), ("toy car", "toy cars", 3, 14),
]
SHOPS = ["market", "bookshop", "hardware store", "garden center", "corner shop", "craft fair", "flea market",
         "bakery", "stationery store", "farm stand", "toy store", "street bazaar"]
BAKED = ["cookies", "muffins", "cupcakes", "dumplings", "empanadas", "bagels", "scones", "samosas", "tarts", "pretzels",
         "brownies", "rolls"]
PLANTS = ["tomato plants", "pepper plants", "sunflowers", "bean stalks", "strawberry plants", "lettuce heads",
          "rose bushes", "pumpkin vines", "basil plants", "cabbages"]
VEHICLES = [("car", "drives"), ("van", "drives"), ("bus", "travels"), ("train", "travels"), ("motorbike", "rides"),
            ("truck", "drives"), ("ferry", "sails"), ("scooter", "rides")]
CONTAINERS = ["tank", "pool", "barrel", "cistern", "aquarium", "water tower", "rain tank", "trough"]
SPORTS = [("basketball", "points"), ("hockey", "goals"), ("soccer", "goals"), ("volleyball", "points"),
          ("rugby", "tries"), ("handball", "goals"), ("water polo", "goals"), ("cricket", "runs")]
COLLECTIBLES = ["stickers", "stamps", "trading cards", "marbles", "seashells", "postcards", "coins", "badges",
                "buttons", "keychains"]
JOBS = ["tutor", "barista", "dog walker", "lifeguard", "cashier", "gardener", "delivery rider", "babysitter",
        "library assistant", "bike mechanic", "waiter", "painter"]
EVENTS = ["school fair", "charity run", "bake sale", "car wash", "concert", "raffle", "book sale", "talent show",
          "garden tour", "quiz night"]
ANIMALS_FARM = [("chickens", 2), ("ducks", 2), ("geese", 2), ("cows", 4), ("goats", 4), ("sheep", 4), ("pigs", 4),
                ("horses", 4), ("llamas", 4), ("turkeys", 2)]

# StrategyQA-like
DIETS = {"herbivore": ["grass", "fruit", "leaves", "seeds"], "carnivore": ["fish", "insects", "small rodents", "meat"]}
CREATURE_A = "Marsh Dune Cliff Glacier Ember Moss Reed Thorn Ridge Lagoon Cinder Frost".split()
CREATURE_B = "Strider Lopper Glider Warbler Muncher Prowler Skimmer Burrower Dasher Stalker".split()
LANGUAGES = ["Valdorian", "Merethi", "Kastovian", "Ostrellan", "Brunmarkish", "Teralindic", "Silvanese", "Estrondi",
             "Pellinoran", "Corvenian", "Ulmaric", "Averonese"]
SUBSTANCES = [("beeswax", 62), ("paraffin", 37), ("butter", 32), ("chocolate", 34), ("lead", 327), ("tin", 232),
              ("ice", 0), ("coconut oil", 24), ("candle gel", 70), ("shea butter", 35), ("cocoa butter", 36),
              ("sulfur", 115)]


def person_name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAME_PARTS_A)}{rng.choice(SURNAME_PARTS_B)}"


def place_name(rng: random.Random) -> str:
    return rng.choice(PLACE_PARTS_A) + rng.choice(PLACE_PARTS_B)


def title_name(rng: random.Random) -> str:
    pattern = rng.randrange(4)
    adj, noun, noun2 = rng.choice(TITLE_ADJ), rng.choice(TITLE_NOUN), rng.choice(TITLE_NOUN)
    if pattern == 0:
        return f"The {adj} {noun}"
    if pattern == 1:
        return f"{noun} of the {adj} {noun2}" if noun != noun2 else f"{adj} {noun}"
    if pattern == 2:
        return f"{adj} {noun}"
    return f"{noun} for {rng.choice(FIRST_NAMES)}"


def unique(rng: random.Random, make, taken: set[str], tries: int = 200) -> str:
    """A fresh name from `make(rng)`; appends a roman numeral when the space is crowded."""
    for _ in range(tries):
        name = make(rng)
        if name not in taken:
            taken.add(name)
            return name
    base = make(rng)
    for suffix in ("II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"):
        if f"{base} {suffix}" not in taken:
            taken.add(f"{base} {suffix}")
            return f"{base} {suffix}"
    i = 11
    while f"{base} {i}" in taken:
        i += 1
    taken.add(f"{base} {i}")
    return f"{base} {i}"
