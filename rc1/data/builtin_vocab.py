"""Word lists and the phrase grammar of the builtin generators.

Broad on purpose: the pool's diversity gate measures distinct word bigrams over a sample of user turns,
so a handful of names, nouns and sentence frames would make a builtin pool fail it. The generators
write every sentence as a small grammar: `[a|b|c]` groups (nestable, an empty option drops the group)
resolved by `alt`, over large open-class vocabularies (names built from syllables, places, objects,
occupations, foods, occasions ...), so the same fact comes out in many wordings.
"""

from __future__ import annotations

import random
import re

_ALT = re.compile(r"\[([^\[\]]*\|[^\[\]]*)\]")
_MACRO = re.compile(r"<([A-Z][A-Z0-9_]*)>")
_SPACE_PUNCT = re.compile(r"\s+([,.?!;:)])")
_DOUBLE_PUNCT = re.compile(r"([,;:])\s*([,.?!;:])")
_ARTICLE = re.compile(r"\b([Aa])n? (?=(\w+))")
_CONSONANT_SOUND = ("uni", "use", "usu", "uto", "eu", "one", "once", "ur", "ewe")
_VOWEL_SOUND = ("hour", "honest", "honour", "honor", "heir")

# <NAME> in a sentence frame: a phrase (itself a frame) from MACROS, or a fresh generated token from
# GENERATED (a new place, surname, person ... each time); filled in before the [a|b] groups are chosen.
MACROS: dict[str, str] = {}
GENERATED: dict[str, "callable"] = {}


def _expand(m: re.Match, rng: random.Random, local: dict | None) -> str:
    key = m.group(1)
    if local and key in local:
        return rng.choice(local[key])
    if key in GENERATED:
        return GENERATED[key](rng)
    return MACROS[key]


def alt(text: str, rng: random.Random, local: dict | None = None) -> str:
    """Expand <MACROS> (`local`: extra ones, each a list of options, e.g. the ways to name a paragraph's
    subject), then resolve every [a|b|c] group in `text` to one of its options, innermost groups first,
    so groups nest; an empty option drops the group. Whitespace is collapsed, stray spaces before
    punctuation and doubled commas removed, 'a'/'an' fixed before the word that follows, and the first
    letter capitalized."""
    for _ in range(8):
        if "<" not in text:
            break
        out = _MACRO.sub(lambda m: _expand(m, rng, local), text)
        if out == text:
            break
        text = out
    while "|" in text:
        out = _ALT.sub(lambda m: rng.choice(m.group(1).split("|")), text)
        if out == text:
            break
        text = out
    out = " ".join(text.split())
    out = _SPACE_PUNCT.sub(r"\1", out)
    out = _DOUBLE_PUNCT.sub(lambda m: m.group(2) if m.group(2) in ".?!" else m.group(1), out)
    out = _ARTICLE.sub(_article, out)
    return out[:1].upper() + out[1:]


def _article(m: re.Match) -> str:
    return m.group(1) + ("n " if vowel_sound(m.group(2)) else " ")


def vowel_sound(word: str) -> bool:
    """Whether `word` is read with a leading vowel sound ('an hour', 'an 1880s house', 'a university')."""
    w = word.lower()
    if w[:1].isdigit():
        return w.startswith("8") or (w.startswith("18") and len(w) == 4) or w in ("11", "18") or \
            (w.startswith("11") and len(w) == 4)
    if w.startswith(_VOWEL_SOUND):
        return True
    if w.startswith(_CONSONANT_SOUND):
        return False
    return w[:1] in "aeiou"


def pick(rng: random.Random, frames, **slots) -> str:
    """One of `frames`, its {slots} filled, its [a|b] groups resolved."""
    return alt(rng.choice(frames).format(**slots), rng)


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def words_of(text: str) -> list[str]:
    return text.split()


# ------------------------------------------------------------------ people and places
FEMALE_NAMES = words_of("""
Aaliyah Ada Aditi Aiko Alessia Alma Amara Ana Andrea Anika Astrid Ayesha Beatriz Bianca Camila Carmen Cecile
Chiara Clara Dalia Daniela Deepa Elena Elif Emma Esther Fatima Fiona Freya Giulia Greta Hana Hannah Helga Ida Ilse
Imani Ines Ingrid Isabel Jana Julia Kamala Katya Keiko Layla Leila Lina Lucia Mai Mariam Marisol Maya Mei Mina Nadia
Naledi Nia Nina Nora Priya Rania Rosa Saanvi Sadia Salma Sara Selin Shira Sofia Sunita Tamar Uma Valentina Vera
Yara Yasmin Zainab Zara Zuri Abigail Agnes Alice Amelia Angela Audrey Barbara Beatrice Bethany Carla Caroline Chloe
Claire Daisy Diana Dorothy Edith Eleanor Eliza Emily Eva Evelyn Florence Frances Gemma Georgia Gloria Grace Hazel
Heather Helen Holly Irene Iris Jasmine Jenna Jennifer Jessica Joan Joy Judith June Karen Kate Laura Lauren Leah Lily
Lorna Lucy Lydia Madeline Margaret Maria Martha Megan Melissa Miriam Molly Monica Nicole Olivia Patricia Pearl
Phoebe Rachel Rebecca Rose Ruby Ruth Sandra Sophie Stella Susan Tessa Ursula Vanessa Violet Wendy Yvonne Adaeze
Aisha Akua Amani Anaya Asha Chanda Chiamaka Darya Esi Farah Ifeoma Ikram Lakshmi Meera Nalani Nkechi Parisa Quynh
Sakura Shreya Zanele Zeynep Ayumi Dilnoza Fumiko Gulnara Leilani Noor Pilar Rocio Sanna Ulla Wilhelmina Ximena
Zofia Berit Dagny Fenna Hedda Kirsi Maren Petra Ragna Sigrid Tove
""")
MALE_NAMES = words_of("""
Abebe Adebayo Ahmed Akira Alejandro Ali Amir Anders Anton Arjun Aurelio Bao Benedikt Boris Bruno Chen Chidi Damian
Darius Diego Dmitri Emeka Emil Enzo Felipe Femi Gabriel Gaurav Haruto Hassan Hiro Ibrahim Isaac Ivan Jamal Javier
Joao Jonas Jorge Kai Karim Kenji Kofi Lars Leon Luca Luis Malik Marco Mateo Mehmet Milan Miro Nasser Niko Noah Olu
Omar Oskar Paolo Pavel Rafael Rahul Ravi Rui Samir Santiago Sergio Soren Tariq Thabo Theo Tomas Victor Wei Xavier
Yusuf Zoltan Adrian Alan Albert Andre Arthur Benjamin Bernard Caleb Carlos Charles Christopher Colin Connor Daniel
David Declan Dominic Douglas Edward Elliot Eric Ethan Felix Frank George Gordon Graham Henry Hugo Ian Jack Jacob
James Jason Joel Joseph Julian Keith Kevin Lewis Louis Luke Malcolm Martin Matthew Michael Nathan Neil Nicholas
Oliver Owen Patrick Paul Peter Philip Quentin Richard Robert Roger Russell Samuel Sean Simon Stanley Stephen
Thomas Timothy Tobias Trevor Vincent Walter William Zachary Abdul Arash Aziz Babajide Bilal Farid Goran Hamid
Haruki Kaveh Kwame Mandla Mansur Minh Obinna Rashid Reza Sanjay Sipho Siddharth Tendai Tunde Vikram Yaw Bongani
Cyrus Emre Habib Ilya Jurgen Makoa Ozan Timur Viggo Yerlan Agustin Casimir Eero Gunnar Ingvar Jarno Lasse Nils Otto
""")
NEUTRAL_NAMES = words_of("Jordan Robin Rin Yuki Jin Lin Mika Kalani Lior Jiho Hyun Seo Tae Jae Dae Thanh Zhen Yoshi")
FIRST_NAMES = FEMALE_NAMES + MALE_NAMES + NEUTRAL_NAMES
_FEMALE = frozenset(FEMALE_NAMES)
_MALE = frozenset(MALE_NAMES)


def is_female(first_name: str, rng: random.Random) -> bool:
    """The pronoun a story uses for a first name (names used for either: a coin flip)."""
    if first_name in _FEMALE:
        return True
    if first_name in _MALE:
        return False
    return rng.random() < 0.5


# Surnames and places are built from syllables: thousands of distinct, pronounceable names.
SURNAME_PARTS_A = words_of("""Ash Bel Bran Cal Dun El Fen Gar Hal Ith Jor Kel Lor Mar Nor Os Pell Quin Ros Sel Tor Ul
Var Wen Yar Zel Ab Bar Cor Dar Eber Fair Gold Hart Iver Kings Lang Mor Nether Oak Pem Red Stan Thorn Up West Alder
Birch Brock Carr Crane Dray Fal Fox Glen Grey Hay Holt Kirk Lock Mill Moss Pike Rook Rush Salt Shel Stock Swan Tall
Wade Whit Wolf Wyn""")
SURNAME_PARTS_B = words_of("""brook by combe dale den field ford gate hart holm hurst ley mere mont ridge stead ton vale
wick worth acre bourne castle ell fold grave ham ing lock more nash ock rick shaw stone thwaite wood beck bridge
burn cott croft hill horn land low man mead more ney ridge rigg sett well win""")
SURNAME_FOREIGN = words_of("""Abara Achterberg Adeyemi Albescu Almeida Andersen Arslan Azevedo Bakshi Balogun Barros
Bergstrom Bianchi Bondarenko Castellano Cervantes Chaudhry Cruz Dahl Dimitrov Dubois Eriksen Esposito Fagerlund
Ferreira Fiorentino Gallo Gonzaga Haddad Halvorsen Hashemi Horvath Ibarra Ivanova Jaramillo Jensen Kahale Kamau
Kaplan Kato Kovacs Kowalski Lindqvist Lombardi Lopes Mahlangu Marchetti Medina Mendoza Mikkelsen Moreau Murakami
Nakamura Navarro Nowak Nwosu Okafor Okonkwo Oliveira Ortega Osei Pacheco Petrov Quintero Rahimi Ramos Rasmussen
Rinaldi Sadeghi Salazar Santos Sato Sokolov Suzuki Takahashi Tanaka Toivonen Torres Uzun Valdez Varga Vasquez
Vieira Virtanen Wojcik Yamamoto Yilmaz Zamora Zielinski""")

PLACE_PARTS_A = words_of("""Al Bar Cor Dra Es Fal Gil Hav Ir Kar Lun Mor Nes Or Pra Quel Rav Sal Tam Ul Vel Wyn Yor
Zan Ber Cas Dor Fen Gal Har Kes Lis Mir Ost Pel Sor Tre Val Ama Bel Cin Del Ern Fro Gor Hel Isk Jas Kol Lem Mar Nor
Oda Pov Ris Sib Tor Ven Wol Ab Bri Cal Dun Ebb Fa Gra Hol Ilm Kai Lor Mel Nev Ov Pen Rho Sten Tul Vor""")
PLACE_PARTS_B = words_of("""aro bury dale enza haven ia ika ino mont ora port sk stad tova ville wick yne zia ford grad
abad burg cester dorf elle holm ica jord kirk lund minster nova osa polis rovo sund tal wald by mouth stow hampton
field gate ridge lea moor ness thorpe wich anza era esti ivo ovar uma""")
COUNTRY_NAMES = words_of("""Valdoria Mereth Kastovia Ostrelle Brunmark Teralind Quorvath Silvane Harrowmere Dalvania
Estrond Pellinor Zarathis Corvenia Ulmaris Averon Rhovany Kelmora Isandor Fenwyr Tolvaine Marquesa Norvell Sabrevia""")
LANGUAGES = ["Valdorian", "Merethi", "Kastovian", "Ostrellan", "Brunmarkish", "Teralindic", "Silvanese", "Estrondi",
             "Pellinoran", "Corvenian", "Ulmaric", "Averonese", "Harrowish", "Dalvanian", "Quorvathi", "Zarathic"]
REGIONS = ["north", "south", "east", "west", "north-east", "north-west", "south-east", "south-west", "interior",
           "central highlands", "coastal lowlands", "far north", "river delta", "eastern uplands", "western plains",
           "lake district", "southern hills", "border country"]

RIVERS_A = words_of("""Amber Silver Crane Willow Iron Falcon Heron Stone Misty Copper Ember Cedar Frost Golden Raven
Alder Badger Bright Clear Dark Elder Fern Flint Green Hazel Kestrel Lark Marrow Otter Quiet Red Rowan Salmon Sedge
Slate Swift Thistle White Wren""")
RIVERS_B = ["River", "Brook", "Water", "Run", "Stream", "Burn", "Beck"]
LANDMARKS = [
    "clock tower", "stone bridge", "glass observatory", "harbor lighthouse", "old cathedral", "botanical garden",
    "opera house", "covered market", "city fortress", "marble library", "salt museum", "canal lock", "bell tower",
    "summer palace", "rope bridge", "windmill row", "sea wall", "painted gatehouse", "copper-domed mosque",
    "hilltop monastery", "tram depot museum", "printing museum", "glasshouse conservatory", "ruined abbey",
    "puppet theatre", "floating market", "railway viaduct", "tide mill", "carved fountain", "lantern festival grounds",
    "astronomical clock", "sculpture park", "river baths", "funicular railway", "timbered guildhall", "whaling museum",
    "amphitheatre ruins", "cliffside chapel", "spice warehouse", "mosaic courtyard", "weavers' quarter",
    "great organ", "ice caves", "orchid house", "bridge of locks", "hot springs", "stepwell", "tea terraces",
]
CITY_KINDS = ["city", "town", "market town", "port city", "river town", "cathedral city", "spa town",
              "university town", "provincial capital", "mill town", "fishing town", "garrison town", "hill town",
              "railway town", "harbor town", "trading city", "walled town", "mining town"]
CITY_ADJ = ["small", "sprawling", "hilly", "coastal", "walled", "medieval", "industrial", "quiet", "busy", "windswept",
            "leafy", "compact", "historic", "fast-growing", "terraced", "lakeside", "sleepy", "cosmopolitan",
            "picturesque", "fortified", "prosperous", "weathered", "well-kept", "low-lying", "mountain"]
INDUSTRIES = ["shipbuilding", "publishing", "textiles", "optics", "railways", "pharmaceuticals", "printing",
              "glassmaking", "tea trading", "clockmaking", "telegraphy", "mining", "aviation", "banking", "porcelain",
              "brewing", "timber", "salt panning", "wool", "leatherwork", "fishing", "fruit canning", "tobacco",
              "paper milling", "bicycle making", "piano building", "cement", "silk weaving", "dairy", "wine making",
              "steel", "cork", "soap making", "instrument making", "insurance", "shipping", "tourism", "pottery",
              "furniture", "radio manufacturing", "chocolate making", "rope making", "lace making", "dyeing"]
LOCAL_FOODS = ["smoked eel", "plum dumplings", "honey cake", "black rye bread", "fish stew", "walnut pastries",
               "sour cherry soup", "cheese pies", "pickled herring", "chestnut flour pancakes", "lamb flatbreads",
               "saffron buns", "spiced sausages", "apple cider", "barley beer", "poppy-seed rolls", "goat cheese",
               "bean soup", "almond nougat", "fried trout", "mushroom pies", "buckwheat noodles", "fig jam",
               "oyster broth", "rose-petal sweets", "salted caramels", "pepper bread", "crab cakes", "quince paste"]
FESTIVALS = ["lantern", "harvest", "kite", "boat", "cheese", "jazz", "puppet", "folk dance", "film", "poetry",
             "flower", "midsummer", "chestnut", "wine", "brass band", "ice sculpture", "storytelling", "balloon",
             "street theatre", "choir", "fireworks", "book", "apple", "salmon", "horse", "accordion"]
SEASONS = ["spring", "summer", "autumn", "winter", "early spring", "late summer", "midwinter", "early autumn"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
CLUB_SUFFIX = ["Rovers", "United", "Athletic", "Wanderers", "Rangers", "City", "Albion", "Harriers", "Town", "Olympic"]
SPORTS_LOCAL = ["football", "rowing", "handball", "ice hockey", "rugby", "basketball", "cricket", "volleyball",
                "water polo", "cycling", "chess", "fencing"]
TERRAIN = ["hills", "marshes", "pine forests", "vineyards", "salt flats", "limestone cliffs", "sand dunes",
           "orchards", "moors", "tea gardens", "rice paddies", "wheat fields", "olive groves", "fjords",
           "birch woods", "reed beds", "chalk downs", "lava fields"]

OCCUPATIONS = ["painter", "novelist", "physicist", "architect", "composer", "botanist", "cartographer", "engineer",
               "historian", "sculptor", "poet", "economist", "chemist", "film director", "photographer",
               "astronomer", "mathematician", "playwright", "geologist", "choreographer", "journalist", "linguist",
               "marine biologist", "violinist", "illustrator", "explorer", "surgeon", "philosopher", "pianist",
               "zoologist", "translator", "essayist", "archaeologist", "inventor", "diplomat", "singer",
               "printmaker", "anthropologist", "glass artist", "landscape designer", "puppeteer", "cellist"]
FIELDS_OF_WORK = {
    "painter": "painting", "novelist": "novel", "physicist": "treatise", "architect": "building",
    "composer": "symphony", "botanist": "field guide", "cartographer": "atlas", "engineer": "bridge design",
    "historian": "history", "sculptor": "sculpture", "poet": "poetry collection", "economist": "treatise",
    "chemist": "monograph", "film director": "film", "photographer": "photo book", "astronomer": "star catalogue",
    "mathematician": "monograph", "playwright": "play", "geologist": "survey", "choreographer": "ballet",
    "journalist": "memoir", "linguist": "dictionary", "marine biologist": "documentary", "violinist": "album",
    "illustrator": "picture book", "explorer": "travel journal", "surgeon": "textbook", "philosopher": "essay",
    "pianist": "recording", "translator": "translation", "zoologist": "field study", "essayist": "essay collection", "archaeologist": "excavation report",
    "inventor": "patent", "diplomat": "memoir", "singer": "album", "printmaker": "print series",
    "anthropologist": "ethnography", "glass artist": "window cycle", "landscape designer": "garden",
    "puppeteer": "puppet play", "cellist": "recording",
}
PERSON_ADJ = ["celebrated", "prolific", "self-taught", "reclusive", "influential", "restless", "largely forgotten",
              "award-winning", "experimental", "pioneering", "versatile", "outspoken", "meticulous", "widely travelled",
              "controversial", "much-admired", "eccentric", "prize-winning", "gifted", "tireless", "little-known",
              "flamboyant", "shy", "ambitious", "devout", "radical", "cautious", "popular", "pragmatic", "idealistic",
              "stubborn", "visionary", "modest", "charismatic", "sharp-witted", "soft-spoken", "unconventional",
              "prolific young", "wealthy", "penniless", "hard-working", "respected", "beloved", "mercurial"]
HOBBIES = ["beekeeping", "mountaineering", "sailing", "chess", "falconry", "birdwatching", "gardening", "fencing",
           "rowing", "carpentry", "cooking", "kite flying", "stamp collecting", "fly fishing", "pottery", "cycling",
           "astronomy", "cross-country skiing", "calligraphy", "bookbinding", "dancing", "hiking", "cave diving"]
AWARDS_A = ["Golden", "Silver", "Crystal", "Laurel", "Northern", "Meridian", "Harbor", "Lantern", "Amber", "Iron"]
AWARDS_B = ["Quill", "Medal", "Prize", "Star", "Compass", "Wreath", "Key", "Crown", "Anchor", "Lyre"]

TITLE_ADJ = words_of("""Silent Hidden Broken Golden Distant Burning Quiet Winter Crimson Endless Hollow Northern
Restless Paper Glass Salt Iron Last Secret Wandering Sleeping Open Lost Bright Amber Borrowed Copper Drowned Emerald
Fading Gentle Hungry Idle Jade Kindred Lonely Midnight Narrow Olive Patient Rusted Scarlet Tender Velvet Wild Yellow
Forgotten Second Southern Eastern Burnt Feathered Frozen Blue Hundredth Invisible Little Painted Quiet Sunken Tin
White Windward Bitter Careful Crooked Early Faithful Grey Heavy Honest Late Long Marble Small Strange Sweet Twelve""")
TITLE_NOUN = words_of("""Harbor Orchard Lantern Meridian Garden Tide Archive Compass Valley Season Mirror Border
Signal Voyage Atlas Chorus Threshold Island Furnace Letters Horizon Canal Kingdom Ledger Anchor Bridge Cathedral Delta
Estuary Fountain Glacier Hymn Inheritance Journey Keel Labyrinth Monsoon Nocturne Observatory Pilgrim Quarry Reef
Sonata Tapestry Underground Vineyard Wharf Orchid Ember Parade Lighthouse Caravan Almanac Apprentice Ballad Cartographer
Daughter Engine Ferryman Gardener Hour Inventory Juggler Key Lamp Mapmaker Nightingale Oracle Promise Quilt Rain
Shepherd Telegram Umbrella Violin Weaver Year Clockmaker Salt Kite Window Staircase""")
ORG_KIND = ["Institute", "Company", "Works", "Foundation", "Observatory", "Academy", "Press", "Laboratories", "Society",
            "Guild", "Conservatory", "Shipyard", "Bank", "Orchestra", "Museum", "Brewery", "Mill", "Theatre",
            "Ironworks", "Seminary", "Quartet", "Cooperative", "Foundry", "Tannery", "Glassworks", "Distillery",
            "Pottery", "Ropeworks", "Dockyard", "Mint", "Almanac", "Circus", "Choir", "Bakery", "Printworks",
            "Exchange", "Syndicate", "Brotherhood", "Trust", "Agency", "Workshop", "Atelier", "Ensemble"]
UNIVERSITY_SUFFIX = ["University", "Polytechnic", "College", "Academy", "Institute", "Conservatory", "Lyceum",
                     "Seminary", "Athenaeum", "Gymnasium", "Normal School", "Technical College", "Art School",
                     "Music Academy", "Mining Academy", "Medical School", "Agricultural College", "Naval College",
                     "Design School", "Observatory School"]

# ------------------------------------------------------------------ StrategyQA-like
DIETS = {"herbivore": ["grass", "fruit", "leaves", "seeds", "bark", "roots", "berries", "nectar", "moss", "algae"],
         "carnivore": ["fish", "insects", "small rodents", "meat", "frogs", "snails", "worms", "lizards", "crabs",
                       "bird eggs"]}
CREATURE_A = words_of("""Marsh Dune Cliff Glacier Ember Moss Reed Thorn Ridge Lagoon Cinder Frost Canyon Tundra Kelp
Bramble Pebble Mangrove Scrub Cave Fen Heath Tide Prairie""")
CREATURE_B = words_of("""Strider Lopper Glider Warbler Muncher Prowler Skimmer Burrower Dasher Stalker Hopper Creeper
Diver Nibbler Shrike Vole Gecko Newt Lemming Finch Marten Loach""")
SUBSTANCES = [("beeswax", 62), ("paraffin", 37), ("butter", 32), ("chocolate", 34), ("lead", 327), ("tin", 232),
              ("ice", 0), ("coconut oil", 24), ("candle gel", 70), ("shea butter", 35), ("cocoa butter", 36),
              ("sulfur", 115), ("gallium", 30), ("palm wax", 60), ("lard", 40), ("soy wax", 49), ("aluminium", 660),
              ("zinc", 420), ("bismuth", 271), ("solder", 183), ("hard caramel", 160), ("ghee", 45)]

# ------------------------------------------------------------------ GSM8K-like
ITEMS = [  # (singular, plural, low price, high price)
    ("notebook", "notebooks", 2, 9), ("pencil case", "pencil cases", 3, 12), ("bag of rice", "bags of rice", 4, 15),
    ("box of crayons", "boxes of crayons", 2, 8), ("kite", "kites", 6, 20), ("puzzle", "puzzles", 7, 25),
    ("potted fern", "potted ferns", 5, 18), ("jar of honey", "jars of honey", 4, 14), ("scarf", "scarves", 8, 30),
    ("board game", "board games", 12, 45), ("loaf of bread", "loaves of bread", 2, 7), ("mug", "mugs", 3, 11),
    ("paperback", "paperbacks", 5, 16), ("bottle of juice", "bottles of juice", 2, 6), ("lamp", "lamps", 15, 60),
    ("pair of socks", "pairs of socks", 2, 9), ("sketchbook", "sketchbooks", 4, 13), ("basket of plums", "baskets of plums", 3, 10),
    ("tennis ball can", "tennis ball cans", 3, 9), ("bird feeder", "bird feeders", 9, 28), ("candle", "candles", 2, 12),
    ("packet of seeds", "packets of seeds", 1, 5), ("phone charger", "phone chargers", 8, 25), ("toy car", "toy cars", 3, 14),
    ("watering can", "watering cans", 6, 19), ("picture frame", "picture frames", 4, 22), ("pillow", "pillows", 7, 26),
    ("rain jacket", "rain jackets", 25, 80), ("pair of gloves", "pairs of gloves", 5, 21), ("yoga mat", "yoga mats", 10, 35),
    ("water bottle", "water bottles", 4, 18), ("bunch of tulips", "bunches of tulips", 5, 15), ("tea towel", "tea towels", 2, 8),
    ("jigsaw", "jigsaws", 8, 24), ("cookbook", "cookbooks", 12, 38), ("flashlight", "flashlights", 6, 22),
    ("umbrella", "umbrellas", 7, 28), ("bar of soap", "bars of soap", 1, 6), ("pack of batteries", "packs of batteries", 3, 12),
    ("sun hat", "sun hats", 9, 30), ("dog collar", "dog collars", 6, 20), ("cactus", "cacti", 3, 15),
    ("carton of eggs", "cartons of eggs", 2, 6), ("wheel of cheese", "wheels of cheese", 12, 40), ("melon", "melons", 2, 7),
    ("pineapple", "pineapples", 2, 6), ("bag of flour", "bags of flour", 2, 9), ("ream of paper", "reams of paper", 4, 12),
    ("paintbrush", "paintbrushes", 2, 11), ("tube of paint", "tubes of paint", 3, 13), ("ball of yarn", "balls of yarn", 3, 10),
    ("guitar string set", "guitar string sets", 6, 18), ("comic book", "comic books", 3, 9), ("backpack", "backpacks", 18, 60),
    ("pair of sneakers", "pairs of sneakers", 30, 95), ("helmet", "helmets", 20, 65), ("bike light", "bike lights", 8, 24),
    ("thermos", "thermoses", 11, 32), ("frying pan", "frying pans", 14, 48), ("cutting board", "cutting boards", 6, 25),
    ("sack of potatoes", "sacks of potatoes", 3, 11), ("crate of apples", "crates of apples", 8, 26), ("coconut", "coconuts", 2, 5),
    ("jar of pickles", "jars of pickles", 3, 8), ("bottle of olive oil", "bottles of olive oil", 6, 19),
    ("fishing rod", "fishing rods", 20, 70), ("hammock", "hammocks", 25, 75), ("deck of cards", "decks of cards", 2, 8),
    ("pair of earrings", "pairs of earrings", 9, 40), ("wall calendar", "wall calendars", 5, 16), ("desk fan", "desk fans", 14, 45),
    ("chess set", "chess sets", 15, 55), ("soccer ball", "soccer balls", 9, 30), ("skipping rope", "skipping ropes", 3, 10),
    ("sack of bird seed", "sacks of bird seed", 6, 22), ("roll of tape", "rolls of tape", 1, 5), ("stapler", "staplers", 4, 14),
    ("headlamp", "headlamps", 12, 35), ("apron", "aprons", 6, 20), ("bunch of bananas", "bunches of bananas", 1, 4),
    ("tin of biscuits", "tins of biscuits", 4, 15), ("photo album", "photo albums", 8, 30), ("kettle", "kettles", 15, 50),
    ("jar of jam", "jars of jam", 3, 9), ("box of tea", "boxes of tea", 3, 12), ("bag of coffee", "bags of coffee", 6, 18),
    ("set of paints", "sets of paints", 7, 30), ("clay pot", "clay pots", 3, 16), ("doormat", "doormats", 6, 22),
    ("bath towel", "bath towels", 7, 25), ("pair of jeans", "pairs of jeans", 20, 70), ("wool hat", "wool hats", 8, 28),
    ("bicycle bell", "bicycle bells", 3, 12), ("pack of pens", "packs of pens", 2, 9), ("magnifying glass", "magnifying glasses", 4, 15),
    ("garden hose", "garden hoses", 12, 40), ("bag of apples", "bags of apples", 3, 8), ("lemon tart", "lemon tarts", 3, 10),
    ("tube of glue", "tubes of glue", 1, 5), ("pocket knife", "pocket knives", 8, 35), ("beach towel", "beach towels", 9, 28),
    ("sleeping bag", "sleeping bags", 25, 90), ("camping stove", "camping stoves", 20, 70), ("rope swing", "rope swings", 15, 45),
    ("bird bath", "bird baths", 18, 60), ("plant pot", "plant pots", 2, 14), ("spice jar", "spice jars", 2, 7),
    ("teapot", "teapots", 9, 32), ("wine glass", "wine glasses", 3, 12), ("cereal box", "cereal boxes", 3, 7),
    ("dog bed", "dog beds", 15, 55), ("cat toy", "cat toys", 2, 9), ("hair clip", "hair clips", 1, 6),
    ("puzzle book", "puzzle books", 4, 12), ("road map", "road maps", 3, 11), ("alarm clock", "alarm clocks", 6, 24),
    ("travel mug", "travel mugs", 6, 20), ("lunch box", "lunch boxes", 5, 18), ("rubber duck", "rubber ducks", 1, 6),
    ("paper lantern", "paper lanterns", 2, 9), ("flower vase", "flower vases", 7, 30), ("wooden spoon", "wooden spoons", 2, 8),
    ("notepad", "notepads", 1, 6), ("harmonica", "harmonicas", 9, 35), ("jar of olives", "jars of olives", 3, 10),
]
SHOPS = ["market", "bookshop", "hardware store", "garden center", "corner shop", "craft fair", "flea market",
         "bakery", "stationery store", "farm stand", "toy store", "street bazaar", "department store", "thrift shop",
         "pharmacy", "sports outlet", "grocery store", "night market", "museum gift shop", "charity shop",
         "outdoor store", "supermarket", "village store", "online shop", "wholesale club", "garage sale", "pet shop",
         "music shop", "hobby store", "campus shop", "duty-free shop", "kitchenware store", "antique fair"]
BAKED = ["cookies", "muffins", "cupcakes", "dumplings", "empanadas", "bagels", "scones", "samosas", "tarts",
         "pretzels", "brownies", "rolls", "croissants", "macarons", "doughnuts", "cinnamon buns", "flapjacks",
         "madeleines", "pierogi", "biscotti", "spring rolls", "meat pies", "rice balls", "oatcakes", "pastries",
         "baklava squares", "churros", "pancakes", "waffles", "tamales", "crumpets", "éclairs", "fruit buns",
         "cheese straws", "gingerbread men", "lemon bars", "hand pies", "focaccia squares", "profiteroles",
         "shortbread fingers", "pasties", "bao buns", "arepas", "knishes", "pakoras", "falafel", "blinis", "tartlets"]
PLANTS = ["tomato plants", "pepper plants", "sunflowers", "bean stalks", "strawberry plants", "lettuce heads",
          "rose bushes", "pumpkin vines", "basil plants", "cabbages", "cucumber vines", "zucchini plants",
          "eggplants", "marigolds", "carrot rows", "chili plants", "blueberry bushes", "lavender shrubs",
          "garlic bulbs", "onion sets", "kale plants", "melon vines", "raspberry canes", "dahlias"]
VEHICLES = [("car", "drives"), ("van", "drives"), ("bus", "travels"), ("train", "travels"), ("motorbike", "rides"),
            ("truck", "drives"), ("ferry", "sails"), ("scooter", "rides"), ("camper van", "drives"),
            ("tractor", "rumbles along"), ("sailboat", "sails"), ("minibus", "travels"), ("pickup truck", "drives"),
            ("tram", "runs"), ("cargo barge", "moves"), ("delivery van", "drives")]
CONTAINERS = ["tank", "pool", "barrel", "cistern", "aquarium", "water tower", "rain tank", "trough", "bathtub",
              "pond", "paddling pool", "reservoir", "watering trough", "fish tank", "vat", "hot tub"]
SPORTS = [("basketball", "points"), ("hockey", "goals"), ("soccer", "goals"), ("volleyball", "points"),
          ("rugby", "tries"), ("handball", "goals"), ("water polo", "goals"), ("cricket", "runs"),
          ("lacrosse", "goals"), ("netball", "goals"), ("baseball", "runs"), ("darts", "points"), ("bowling", "pins"),
          ("archery", "points"), ("table tennis", "points"), ("badminton", "points")]
COLLECTIBLES = ["beer mats", "train tickets", "maps", "key rings", "pencils", "vintage buttons", "feathers", "matchboxes",
                "toy trains", "football cards", "sea glass", "pin badges", "coins", "stickers", "stamps", "trading cards", "marbles", "seashells", "postcards", "coins", "badges",
                "buttons", "keychains", "bottle caps", "pressed flowers", "vinyl records", "comic books", "fridge magnets",
                "toy soldiers", "enamel pins", "fossils", "pebbles", "bookmarks", "matchbox cars", "tea tins"]
JOBS = ["florist", "removal helper", "ice-cream seller", "tour guide", "photographer's assistant", "kitchen porter",
        "market trader", "stable hand", "ticket collector", "window cleaner", "sound technician", "tutor", "barista", "dog walker", "lifeguard", "cashier", "gardener", "delivery rider", "babysitter",
        "library assistant", "bike mechanic", "waiter", "painter", "camp counselor", "dishwasher", "swim coach",
        "lab assistant", "museum guide", "cleaner", "usher", "shelf stacker", "fruit picker", "receptionist",
        "car washer", "piano teacher", "translator", "snow shoveler", "house sitter", "referee", "bookkeeper"]
EVENTS = ["harvest supper", "duck race", "jumble sale", "fashion show", "wine tasting", "tombola", "barn dance",
          "scarecrow contest", "poetry evening", "sponsored walk", "school fair", "charity run", "bake sale", "car wash", "concert", "raffle", "book sale", "talent show",
          "garden tour", "quiz night", "dance recital", "flea market", "film night", "art auction", "fun run",
          "pancake breakfast", "craft market", "spelling bee", "charity gala", "plant sale", "chili cook-off",
          "carol concert", "open-air cinema", "pet show", "sponsored swim"]
ANIMALS_FARM = [("chickens", 2), ("ducks", 2), ("geese", 2), ("cows", 4), ("goats", 4), ("sheep", 4), ("pigs", 4),
                ("horses", 4), ("llamas", 4), ("turkeys", 2), ("donkeys", 4), ("alpacas", 4), ("ostriches", 2),
                ("rabbits", 4), ("emus", 2), ("peacocks", 2), ("yaks", 4), ("camels", 4)]
RELATIVES = ["aunt", "uncle", "grandmother", "grandfather", "cousin", "neighbor", "roommate", "coach", "teacher",
             "best friend", "older sister", "younger brother", "niece", "nephew", "landlady", "classmate",
             "colleague", "boss", "godmother", "stepfather", "little sister", "big brother", "mother", "father",
             "grandson", "granddaughter", "pen pal", "flatmate", "piano teacher", "team captain"]
OCCASIONS = ["birthday party", "picnic", "camping trip", "family reunion", "book club meeting", "housewarming",
             "graduation party", "science fair", "school play", "soccer tournament", "wedding", "baby shower",
             "retirement party", "street party", "holiday dinner", "anniversary", "farewell lunch", "potluck",
             "sleepover", "game night", "garden party", "beach day", "road trip", "harvest festival",
             "neighborhood cleanup", "charity drive", "chess tournament", "end-of-term celebration", "barbecue",
             "New Year's party", "office party", "craft workshop", "choir rehearsal"]
TIMES = ["On Saturday morning", "Last weekend", "During the summer holidays", "Before the school year starts",
         "Every Sunday", "In early March", "Over the long weekend", "On the first day of the festival",
         "After work on Friday", "One rainy afternoon", "At the start of the month", "During spring break",
         "On a cold winter evening", "The week before the exams", "Early one morning", "On market day",
         "Just before the holidays", "In the middle of July", "On the last day of term", "Over the past month",
         "On a sunny Tuesday", "Late on Thursday", "During the autumn fair", "First thing on Monday"]
ERRANDS = ["stocking up for the week", "running errands", "shopping for a gift", "getting supplies",
           "buying things for a new flat", "preparing for a trip", "restocking the pantry", "fixing up the shed",
           "getting ready for guests", "buying presents", "replacing old things", "treating the family"]
UNITS_TIME = {"minutes": 60, "hours": 24}
SUBJECTS = ["maths", "history", "biology", "geography", "chemistry", "art", "music", "French", "physics",
            "economics", "literature", "Spanish", "computer science", "drama", "astronomy"]
SCHOOL_CLUBS = ["chess club", "robotics team", "choir", "debate society", "drama group", "coding club",
                "photography club", "orchestra", "gardening club", "science club", "film society", "book club",
                "hiking club", "model rocketry club", "newspaper team", "cooking club", "mural project"]
INGREDIENTS = ["flour", "oats", "lentils", "rice", "sugar", "cornmeal", "butter", "chickpeas", "semolina",
               "quinoa", "cocoa powder", "grated cheese", "ground almonds", "couscous", "polenta", "brown sugar"]
DISHES = ["stew", "porridge", "curry", "risotto", "soup", "pilaf", "cake", "casserole", "flatbread", "crumble",
          "dal", "bread", "granola", "pie filling", "pudding", "paella"]
SPENDING = ["bus fare and snacks", "lunches", "rent", "phone bills", "comics", "train tickets", "cinema tickets",
            "video games", "art supplies", "petrol", "coffee", "gym fees", "music lessons", "streaming subscriptions",
            "bike repairs", "takeaway meals", "concert tickets", "books", "groceries", "gifts"]
GOALS = ["a new bicycle", "a laptop", "a guitar", "a camera", "a school trip", "a pair of skates", "a telescope",
         "concert tickets", "a tent", "a drone", "a sewing machine", "a violin", "a games console", "a drum kit",
         "a surfboard", "a microscope", "a keyboard", "a scooter", "a week at camp", "a pottery course"]
CRAFTS = ["bracelets", "candles", "greeting cards", "pot holders", "keyrings", "bookmarks", "birdhouses", "soaps",
          "tote bags", "clay pots", "friendship bands", "wooden spoons", "knitted hats", "paper lanterns", "coasters"]
PETS = [("dog", "cans of food"), ("cat", "pouches of food"), ("rabbit", "handfuls of pellets"),
        ("parrot", "scoops of seed"), ("hamster", "spoonfuls of mix"), ("tortoise", "leaves of lettuce"),
        ("guinea pig", "carrot sticks"), ("ferret", "scoops of kibble")]


_TRIPLE = re.compile(r"(\w)\1\1")


def person_name(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAME_FOREIGN)}"
    return f"{rng.choice(FIRST_NAMES)} {_compound_surname(rng)}"


def _compound_surname(rng: random.Random) -> str:
    return _TRIPLE.sub(r"\1\1", rng.choice(SURNAME_PARTS_A) + rng.choice(SURNAME_PARTS_B))  # no 'Carrrick'


def surname(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(SURNAME_FOREIGN)
    return _compound_surname(rng)


def place_name(rng: random.Random) -> str:
    return rng.choice(PLACE_PARTS_A) + rng.choice(PLACE_PARTS_B)


def title_name(rng: random.Random) -> str:
    pattern = rng.randrange(9)
    adj, noun, noun2 = rng.choice(TITLE_ADJ), rng.choice(TITLE_NOUN), rng.choice(TITLE_NOUN)
    if pattern == 0:
        return f"The {adj} {noun}"
    if pattern == 1:
        return f"{noun} of {place_name(rng)}"
    if pattern == 2:
        return f"{adj} {noun}"
    if pattern == 3:
        return f"{noun} for {rng.choice(FIRST_NAMES)}"
    if pattern == 4:
        return f"{noun} and {noun2}" if noun != noun2 else f"{adj} {noun}"
    if pattern == 5:
        article = "The" if noun.endswith("s") else "An" if adj[0] in "AEIOU" else "A"
        return f"{article} {adj} {noun} in {place_name(rng)}"
    if pattern == 6:
        return f"{rng.choice(FIRST_NAMES)}'s {noun}"
    if pattern == 7:
        return f"{cap(rng.choice(OBJECT_ADJ))} {cap(rng.choice(GOODS))}"
    return f"{cap(rng.choice(NATURE))} at {place_name(rng)}"


def award_name(rng: random.Random) -> str:
    return f"{rng.choice(AWARDS_A)} {rng.choice(AWARDS_B)}"


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


# ------------------------------------------------------------------ generated tokens and shared phrases
STREET_KINDS = ["Street", "Lane", "Road", "Square", "Row", "Quay", "Avenue", "Gate", "Walk", "Terrace", "Market",
                "Embankment"]
PAPER_KINDS = ["Herald", "Courier", "Gazette", "Post", "Chronicle", "Observer", "Messenger", "Tribune", "Ledger",
               "Sentinel", "Mercury", "Argus", "Clarion", "Dispatch", "Echo", "Examiner", "Journal", "Record", "Times",
               "Standard", "Advertiser", "Bulletin", "Review", "Register"]
HILL_KINDS = ["Hills", "Downs", "Heights", "Fells", "Ridge", "Uplands", "Mountains", "Crags"]
DISTRICTS = ["old town", "harbour district", "market quarter", "cathedral close", "station district", "university quarter",
             "weavers' quarter", "riverside", "upper town", "lower town", "tannery district", "new town", "dockyard",
             "garden suburb", "castle hill", "fish market", "merchants' quarter", "mill district"]
BUILDINGS = ["grain exchange", "town hall", "customs house", "corn mill", "covered bazaar", "bishop's palace",
             "wool hall", "synagogue", "railway station", "opera house", "guildhall", "tram depot", "prison",
             "hospital", "arsenal", "cloth hall", "seminary", "lighthouse", "salt store", "theatre"]
MATERIALS = ["red brick", "grey limestone", "yellow sandstone", "timber", "granite", "white stucco", "basalt",
             "dressed stone", "concrete", "slate", "pink marble", "flint"]
DISASTERS = ["a great fire", "a flood", "an earthquake", "a cholera outbreak", "a hurricane", "a siege",
             "an explosion at the gasworks", "a landslide", "a winter storm", "a typhus epidemic"]
NICKNAMES = ["the White City", "the City of Bells", "the Little Capital", "the Salt Town", "the Town of Bridges",
             "the Green Gate", "the Pearl of the Valley", "the Windy City", "the Copper Town", "the Lantern Town",
             "the City of Clocks", "the Old Lady", "the Harbour of Songs", "the Garden Town"]
PRODUCTS = ["pocket watches", "sewing machines", "lenses", "railway carriages", "fountain pens", "dictionaries",
            "radios", "bicycles", "tinned fish", "porcelain dolls", "maps", "woollen blankets", "barometers",
            "pianos", "typewriters", "fishing nets", "lamps", "biscuits", "medicines", "sailcloth"]
MOTTO_WORDS = ["Patience", "Light", "Craft", "Truth", "Courage", "Measure", "Faith", "Work", "Water", "Memory",
               "Order", "Honour", "Steady", "Forward", "Together", "Always"]
CHILD_RANKS = ["eldest", "youngest", "second", "third", "fourth", "fifth"]
LEGACY = ["a street", "a school", "a prize", "a crater on the moon", "a ferry", "a rose variety", "a lecture hall",
          "a mountain hut", "a scholarship", "a public library", "a park bench", "a train", "an asteroid", "a square"]
STORES = ["State Archive", "National Library", "University Library", "City Museum", "Academy Archive", "Record Office",
          "Folk Museum", "Print Room", "Map Library", "Manuscript Room", "Regional Archive", "Art Gallery",
          "Design Museum", "Book Museum", "Cathedral Library", "Harbour Museum", "Heritage Centre", "Photo Archive"]


def street_name(rng: random.Random) -> str:
    return f"{surname(rng)} {rng.choice(STREET_KINDS)}"


GENERATED.update({
    "PLACE": place_name,
    "SURNAME": surname,
    "PERSON": person_name,
    "FIRST": lambda r: r.choice(FIRST_NAMES),
    "TITLE": title_name,
    "STREET": street_name,
    "PAPER": lambda r: f"{place_name(r)} {r.choice(PAPER_KINDS)}",
    "HILLS": lambda r: f"{place_name(r)} {r.choice(HILL_KINDS)}",
    "LAKE": lambda r: f"Lake {place_name(r)}",
    "MOUNT": lambda r: f"Mount {surname(r)}",
    "AWARD": award_name,
    "DISTRICT": lambda r: r.choice(DISTRICTS),
    "BUILDING": lambda r: r.choice(BUILDINGS),
    "MATERIAL": lambda r: r.choice(MATERIALS),
    "INDUSTRY": lambda r: r.choice(INDUSTRIES),
    "FOOD": lambda r: r.choice(LOCAL_FOODS),
    "OCCUPATION": lambda r: r.choice(OCCUPATIONS),
    "SUBJECT": lambda r: r.choice(SUBJECTS),
    "HOBBY": lambda r: r.choice(HOBBIES),
    "MONTH": lambda r: r.choice(MONTHS),
    "SEASON": lambda r: r.choice(SEASONS),
    "TERRAIN": lambda r: r.choice(TERRAIN),
    "PRODUCT": lambda r: r.choice(PRODUCTS),
    "LEGACY": lambda r: r.choice(LEGACY),
    "STORE": lambda r: f"{place_name(r)} {r.choice(STORES)}",
    "SMALLN": lambda r: r.choice(["two", "three", "four", "five", "six", "seven", "eight", "nine"]),
    "RELATIVE": lambda r: r.choice(RELATIVES),
    "OCCASION": lambda r: r.choice(OCCASIONS),
})
GENERATED.update({
    "LANGUAGE": lambda r: r.choice(LANGUAGES),
    "ORGKIND": lambda r: r.choice(ORG_KIND),
    "COUNTRY": lambda r: r.choice(COUNTRY_NAMES),
    "N2": lambda r: str(r.randint(2, 19)),
    "N3": lambda r: str(r.randint(20, 990)),
    "ANIMAL": lambda r: r.choice([a for a, _ in ANIMALS_FARM] + ["foxes", "storks", "otters", "herons", "wolves",
                                                                  "beavers", "swallows", "bats"]),
})


# ------------------------------------------------------------------ open-class words for background prose
ADJECTIVES = words_of("""
ancient amber battered bitter blazing bleak bold brass brave brisk brittle broad bronze busy calm careful carved
cheap cheerful chilly clever cloudy clumsy coarse cobbled colourful comic copper cosy crimson crooked crowded cruel
curious damp dainty dark dazzling deep delicate dense dim distant dizzy dreamy dry dusty eager early earnest eerie
elegant empty enormous faded faint famous fancy fearless feeble fierce fine flat fluffy foggy fragile fragrant
frantic fresh frosty frozen gentle giant gilded glassy gleaming gloomy glossy golden graceful grand grassy greasy
greedy grim gritty hairy handsome hasty hazy heavy hidden hollow homely honest hopeful huge humble humid icy idle
immense inky ivory jagged jolly keen kindly knotted lacy lame lanky large lavish lazy leafy lean lively lofty lonely
loud lucky lumpy lush mellow merry messy mighty misty modest mossy muddy murky musty narrow neat nervous nimble noble
noisy odd oily old orderly ornate pale patchy patient peaceful pearly pebbled plain playful pleasant plump polished
portly precious prickly proud puzzled quaint quick quiet ragged rapid rare rattling raw restless rich rigid ripe
rocky rosy rough round rowdy royal rugged rusty sandy savage scarlet scented secret serene shabby shady shallow sharp
shiny short shy silent silken silver simple sleek sleepy slender slim slippery slow smoky smooth snowy soft solemn
sombre sooty sour sparkling speckled spicy splendid spotted squat stately steady steep sticky stiff stony stormy
stout strange striped strong sturdy sunny swift tall tame tangled tart tattered tender thick thin thorny thrifty
tidy tiny tired towering tranquil tricky twisted ugly uneven upright urgent vast velvet vivid wary watery weary
wet whispering wide wild windy wise witty wobbly wooden woollen worn yellow young zealous""")
GOODS = words_of("""
anchors anvils aprons baskets beads bells belts blankets boots bottles bowls bracelets brooms brushes buckets
buttons cabinets candles canoes carpets carts chairs chests chisels clocks coats combs compasses cups curtains
cushions daggers dolls drums easels fans fiddles flags flasks flutes globes gloves goblets hammers harps hats
helmets hinges inkwells jackets jugs kettles keys knives ladders lamps lanterns locks looms lutes maps masks mirrors
mittens nails needles nets oars ovens paddles pails pans pendants pipes pitchers plates ploughs pots quilts rakes
ribbons rings robes ropes rugs saddles sails saucers scales scarves scissors shawls shields shovels sickles sieves
skates sledges slippers spades spindles spoons stools stoves tables tankards teapots telescopes thimbles tiles
tongs trays trowels trumpets tubs umbrellas urns vases violins wagons wheels whistles windmills yokes
barrels bicycles birdcages bookends boxes bridles buoys cameras canvases chandeliers corkscrews crates crowns
doorknobs funnels gramophones hourglasses kites mangles medals microscopes mugs organs pianos postcards rattles
sandals sextants shutters stamps tapestries thermometers tiaras toys typewriters valves wardrobes weathervanes""")
OBJECT_ADJ = words_of("""antique battered brass bronze carved copper gilded hand-painted iron ivory lacquered miniature
old ornate painted pewter polished rusty silver tin wooden woollen glass enamel embroidered folding clockwork
cast-iron porcelain leather wicker oak walnut marble earthenware stoneware silk linen felt horn bone paper
homemade handmade secondhand broken rare early mass-produced imported local tiny giant
decorated engraved""")
CRAFT_PLACES = words_of("""bakery brewery bookbindery forge pottery tannery sawmill dairy smithy distillery
glassworks foundry printworks boatyard ropewalk mill chandlery apothecary saddlery cooperage""")
NATURE = words_of("""beetles mosses lichens ferns orchids mushrooms seaweeds grasses fossils minerals crystals
shells butterflies moths dragonflies songbirds owls bats frogs newts eels trout salmon oysters crabs corals tides
glaciers volcanoes caves springs meteorites comets clouds storms winds rainbows""")
TOPICS_A = ["the history of", "the making of", "the trade in", "the care of", "the folklore of", "the decline of",
            "the measurement of", "the design of", "the collecting of", "the chemistry of", "the repair of",
            "the price of", "the migration of", "the naming of", "the songs about"]


def topic(rng: random.Random) -> str:
    """An open-ended subject of study or writing ('the folklore of copper kettles in Lundale')."""
    k = rng.randrange(5)
    if k == 0:
        return f"{rng.choice(TOPICS_A)} {rng.choice(OBJECT_ADJ)} {rng.choice(GOODS)}"
    if k == 1:
        return f"the {rng.choice(NATURE)} of {place_name(rng)}"
    if k == 2:
        return f"{rng.choice(TOPICS_A)} {rng.choice(NATURE)}"
    if k == 3:
        return f"{rng.choice(OBJECT_ADJ)} {rng.choice(GOODS)} and {rng.choice(GOODS)}"
    return f"the {rng.choice(CRAFT_PLACES)} trade of {place_name(rng)}"


GENERATED.update({
    "ADJ": lambda r: r.choice(ADJECTIVES),
    "GOODS": lambda r: r.choice(GOODS),
    "THINGS": lambda r: f"{r.choice(OBJECT_ADJ)} {r.choice(GOODS)}",
    "TOPIC": topic,
    "CRAFTPLACE": lambda r: r.choice(CRAFT_PLACES),
    "NATURE": lambda r: r.choice(NATURE),
})


# modifiers: an optional adjective or adverb in front of a noun or verb ('the restored clock tower',
# 'briefly worked for'), drawn from lists that fit the kind of thing they modify
PLACE_ADJ = words_of("""old restored crumbling famous little-known rebuilt elegant medieval baroque whitewashed
red-roofed half-timbered weathered grand modest squat slender crooked gilded shabby handsome sprawling tiny
towering sunlit shadowy windswept ivy-covered moss-grown fire-damaged lovingly-kept neglected celebrated beloved
much-photographed fortified domed arcaded colonnaded brick stone timber copper-roofed gothic neo-classical
modernist hilltop riverside lakeside harbourside""")
WORK_ADJ = words_of("""short long early late ambitious experimental celebrated lyrical sprawling compact unfinished
much-revised influential modest daring gloomy playful tender angry dreamlike meticulous strange quiet restless
luminous austere witty melancholy dense slender sombre joyful unsettling""")
ADVERBS = words_of("""briefly quietly reluctantly finally eventually secretly suddenly famously unexpectedly
hastily cautiously boldly rashly generously dutifully eagerly openly privately""")
COLOURS = words_of("""red blue green yellow white black grey orange purple pink brown teal navy cream lilac
turquoise crimson olive silver golden""")


def maybe(rng: random.Random, words: list[str], p: float = 0.45) -> str:
    """A word from `words` followed by a space, with probability p; else ''."""
    return rng.choice(words) + " " if rng.random() < p else ""


GENERATED.update({
    "APLACE": lambda r: maybe(r, PLACE_ADJ, 0.5),
    "AWORK": lambda r: maybe(r, WORK_ADJ, 0.4),
    "ADV": lambda r: maybe(r, ADVERBS, 0.35),
    "AOBJ": lambda r: maybe(r, OBJECT_ADJ, 0.4),
    "COLOUR": lambda r: r.choice(COLOURS),
    "PADJ": lambda r: r.choice(PERSON_ADJ),
})

MACROS.update({
    "EACH": "[each|apiece|a piece|each one|per item|each]",
    "ALL": "[in total|altogether|in all|all together|overall|combined|]",
    "LEFT": "[left|left over|remaining|still left]",
    "FIND": "[Find|Work out|Calculate|Figure out|Determine]",
    "HOWMANY": "[How many|How many|Exactly how many|Just how many]",
    "THEN": "[Then|After that|Later|Next|Afterwards|Later on]",
})


def listing(items: list[str]) -> str:
    """'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


GENERATED.update({
    "PEOPLE": lambda r: listing([person_name(r) for _ in range(r.randint(3, 5))]),
    "PLACES": lambda r: listing([place_name(r) for _ in range(r.randint(3, 5))]),
    "TITLES": lambda r: listing([f'"{title_name(r)}"' for _ in range(r.randint(3, 4))]),
})

GENERATED.update({
    "NOUN_ANY": lambda r: r.choice(TITLE_NOUN).lower(),
    "ANIMALSING": lambda r: r.choice(["heron", "fox", "badger", "owl", "goat", "hare", "crane", "otter", "wolf", "stag",
                                      "boar", "swan", "raven", "lynx", "seal", "bear", "falcon", "eel"]),
    "INGR": lambda r: r.choice(["flour", "butter", "honey", "lentils", "smoked fish", "sour cream", "dill", "garlic",
                                "walnuts", "plums", "barley", "cabbage", "leeks", "cheese", "mushrooms", "chestnuts",
                                "pork", "lamb", "beans", "poppy seeds", "apples", "onions", "rye", "cream", "quince"]),
})


_QUOTED_SPAN = re.compile(r'"[^"]*"')
_CAPITALIZED = re.compile(r"\b[A-Z][\w'-]*")


def skeleton(text: str) -> str:
    """`text` with quoted titles and capitalized words masked: two questions with the same skeleton differ
    only in the names they mention (a near-duplicate the pool's shadow guard may not be able to render apart)."""
    return _CAPITALIZED.sub("N", _QUOTED_SPAN.sub("Q", text))
