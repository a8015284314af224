"""A generated mini-wiki (cities, people, works, organizations and the relations between them: birthplace,
teacher, employer, founder, creator, premiere city, twin town) with one paragraph per entity.

Paragraphs are lists of sentences (the first without, later ones with a leading space, as in HotpotQA)
and remember which sentence states which attribute, so supporting_facts point at real sentences. Every
sentence is drawn from several frames with phrase alternatives, and each paragraph adds a few
background sentences (economy, food, festivals, awards, reception ...) so no two read alike.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field

from rc1.data import builtin_vocab as V
from rc1.data.builtin_vocab import alt


@dataclass(eq=False)
class Paragraph:
    title: str
    sentences: list[str] = field(default_factory=list)
    where: dict[str, int] = field(default_factory=dict)  # attribute -> sentence index

    def add(self, attr: str, text: str) -> None:
        self.where[attr] = len(self.sentences)
        self.sentences.append(text if not self.sentences else " " + text)

    def as_context(self) -> list:
        return [self.title, list(self.sentences)]


@dataclass(eq=False)
class City:
    name: str
    country: str
    founded: int
    population: int
    river: str
    landmark: str
    summer_temp: int
    region: str = ""
    kind: str = "city"
    adj: str = ""
    industries: tuple[str, str] = ("", "")
    food: str = ""
    festival: str = ""
    terrain: str = ""
    twin: "City | None" = None
    para: Paragraph | None = None


@dataclass(eq=False)
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
    mentor: "Person | None" = None
    employer: "Org | None" = None
    award: tuple[str, int] | None = None
    para: Paragraph | None = None

    @property
    def pron(self) -> str:
        return "She" if self.she else "He"

    @property
    def poss(self) -> str:
        return "Her" if self.she else "His"

    @property
    def obj(self) -> str:
        return "her" if self.she else "him"

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def last(self) -> str:
        return self.name.split()[-1]


@dataclass(eq=False)
class Work:
    title: str
    kind: str
    year: int
    creator: Person
    language: str
    pages: int
    premiere: City | None = None
    para: Paragraph | None = None

    @property
    def bookish(self) -> bool:
        return self.kind in BOOK_KINDS

    @property
    def has_language(self) -> bool:
        return self.kind in BOOK_KINDS or self.kind in SPOKEN_KINDS


@dataclass(eq=False)
class Org:
    name: str
    kind: str
    founded: int
    founder: Person
    city: City
    industry: str
    staff: int = 0
    para: Paragraph | None = None


@dataclass
class Wiki:
    cities: list[City]
    people: list[Person]
    works: list[Work]
    orgs: list[Org]
    others: list[Paragraph] = field(default_factory=list)  # articles no question asks about

    def paragraphs(self) -> list[Paragraph]:
        return [e.para for group in (self.cities, self.people, self.works, self.orgs) for e in group] + self.others


BOOK_KINDS = frozenset({"novel", "treatise", "field guide", "atlas", "history", "poetry collection", "monograph",
                        "star catalogue", "play", "survey", "memoir", "dictionary", "picture book", "travel journal",
                        "textbook", "essay", "essay collection", "excavation report", "ethnography", "translation"})
SPOKEN_KINDS = frozenset({"film", "documentary", "album", "puppet play", "recording"})
MUSIC_KINDS = frozenset({"symphony", "album", "recording", "ballet"})
NARRATIVE_KINDS = frozenset({"novel", "play", "memoir", "picture book", "travel journal", "film", "documentary",
                             "puppet play", "poetry collection", "essay", "essay collection", "ballet"})
QUALITIES = ["restraint", "bold colours", "dense imagery", "dry humour", "careful structure", "cool palette",
             "unusual ending", "spare style", "sense of scale", "rich detail", "use of light", "political edge", "warmth", "ambition",
             "technical daring", "quiet melancholy", "playful tone", "precision", "strange beauty", "clarity"]
THEMES = ["exile", "memory", "a family quarrel", "a flood", "the sea", "lost letters", "a long winter", "first love",
          "a border town", "old age", "a failed harvest", "a journey north", "a shipwreck", "two rival bakers",
          "a stolen inheritance", "a village election", "the end of an empire", "a missing brother", "a lighthouse keeper",
          "childhood on a farm", "a railway strike", "a travelling circus", "a forbidden marriage", "a plague year"]
TEMPERAMENTS = ["witty", "shy", "stubborn", "generous", "quick-tempered", "patient", "secretive", "charming",
                "restless", "modest", "sharp-tongued", "kind", "demanding", "absent-minded", "cheerful", "austere"]
ORIGINS = ["a trading post", "a fishing village", "a river crossing", "a monastic settlement", "a toll station",
           "a mining camp", "a market for the surrounding farms", "a fortified camp", "a ferry landing",
           "a salt-trading stop", "a pilgrims' rest", "a shipyard settlement"]
EMBLEMS = ["a heron", "an anchor", "a lantern", "two crossed keys", "a wheatsheaf", "a fox", "a compass rose",
           "a bell", "an oak leaf", "a ship under sail", "a beehive", "a rising sun", "a swan", "a hammer and gear"]
ROLES = ["an adviser", "a director", "a researcher", "a manager", "a designer", "a consultant", "an archivist",
         "a board member", "an editor", "a chief engineer", "a lecturer"]


def an(word: str) -> str:
    """'a' or 'an' before `word` (by its spelling, plus the '18xx' years read 'an eighteen...')."""
    w = str(word)
    return "an" if w[:1].lower() in "aeiou" or w.startswith(("18", "8", "11")) else "a"


def century(year: int) -> str:
    c = year // 100 + 1
    suffix = "th" if 10 <= c % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(c % 10, "th")
    return f"{c}{suffix}"


def language_of(country: str) -> str:
    return V.LANGUAGES[V.COUNTRY_NAMES.index(country) % len(V.LANGUAGES)]


_LIST_ATTRS = frozenset({"circle", "pupils", "minor_works", "homes", "neighbours", "people", "districts", "parts", "collection",
                         "owners", "directors", "offices", "clients"})


def _fill(p: Paragraph, rng: random.Random, first: tuple[str, str], rest: list[tuple[str, str]],
          extra: list[tuple[str, str]], k_extra: tuple[int, int], last: list[tuple[str, str]] = (),
          local: dict | None = None, keep: dict[str, float] | None = None, events: list[str] = ()) -> None:
    """First sentence, then the attribute sentences (each optional one kept with its probability in
    `keep`, as articles differ in what they state), k background sentences and the events, shuffled."""
    p.add(first[0], alt(first[1], rng, local))
    keep = keep or {}
    rest = [(a, t) for a, t in rest if rng.random() < keep.get(a, 1.0)]
    lists = [e for e in extra if e[0] in _LIST_ATTRS]
    extra = [e for e in extra if e[0] not in _LIST_ATTRS]
    body = rest + rng.sample(extra, k=min(len(extra), rng.randint(*k_extra)))
    body += rng.sample(lists, k=min(len(lists), rng.randint(2, 3)))
    body += [(f"event{i}", e) for i, e in enumerate(events)]
    rng.shuffle(body)
    for attr, text in list(body) + list(last):
        p.add(attr, alt(text, rng, local))


# ------------------------------------------------------------------ paragraphs
# Sentences name their subject through <S> (and <SP> for its possessive), filled per sentence from the
# paragraph's ways of naming it (the name, a short name, 'the town', a pronoun), as an encyclopedia does.
def _years(rng: random.Random, lo: int, hi: int) -> int:
    return rng.randint(min(lo, hi), max(lo, hi))


# ------------------------------------------------------------------ background events
# Each event is a verb phrase for the paragraph's subject; a sentence puts a time phrase around it.
# Many events, each with its own alternatives and generated names, so no two biographies read alike.
PERSON_EVENTS = [
    "moved to <PLACE>[ with <PO> family| for work| after a quarrel with <PO> publisher|]",
    "opened a [small|tiny|rented] [studio|workshop|office|school] in <PLACE>",
    "fell out with the <OCCUPATION> <PERSON>",
    "lost [most of|all] <PO> savings in the collapse of the <SURNAME> Bank",
    "toured <COUNTRY> [with a travelling exhibition|giving lectures|by bicycle|on foot]",
    "lectured at the <PLACE> [School of <SUBJECT>|Academy|Institute]",
    "published a [pamphlet|short book|series of essays] on <SUBJECT>",
    "built a house [near|beside|above] <LAKE>",
    "was briefly [imprisoned|arrested|fined] for [debt|unpaid taxes|a satirical poster]",
    "joined an expedition to the <HILLS>",
    "founded a [reading circle|choir|chess club|night school] in <PLACE>",
    "recovered from a [serious|long|mysterious] illness[ in a sanatorium near <PLACE>|]",
    "began a long correspondence with <PERSON>",
    "bought a [farm|vineyard|windmill|boathouse] outside <PLACE>",
    "took up <HOBBY>",
    "was elected to the <PLACE> [Academy|Society of Arts|city council]",
    "sold a first [painting|manuscript|design|commission] to <PERSON>",
    "met the <OCCUPATION> <PERSON>[, a lifelong friend|, later a bitter rival|]",
    "spent a [winter|summer|year] in <PLACE>[ studying <SUBJECT>|]",
    "sailed to <PLACE> [on a cargo ship|as a deckhand|with <PERSON>]",
    "gave a [series|course] of [lectures|talks|radio talks] on <SUBJECT>",
    "[survived|escaped] a [shipwreck|fire|train crash] [off <PLACE>|near <PLACE>]",
    "worked [briefly|for a season] as a [tutor|clerk|ship's cook|translator|stage hand] in <PLACE>",
    "[inherited|was left] a [small fortune|house|library] from [an aunt|an uncle|a godfather] in <PLACE>",
    "[campaigned|wrote pamphlets] for [women's suffrage|cleaner rivers|free schools|a new railway]",
    "became an honorary citizen of <PLACE>",
    "[turned down|refused|accepted] a [professorship|post|chair] at the <PLACE> [Academy|University]",
    "[designed|painted|restored] [a chapel|the ceiling of a theatre|a mural] in <PLACE>",
    "[taught|coached] <SUBJECT> at a [girls'|village|night] school in <PLACE>",
    "[edited|founded|ran] the <PAPER>[ for <N2> years|]",
    "kept [bees|goats|pigeons|a small orchard] [behind the house|on the roof|in the garden]",
    "[helped|organized] [flood relief|a soup kitchen|a hospital appeal] in <PLACE>",
    "[exhibited|performed|read] at the <SURNAME> [Gallery|Hall|Theatre] in <PLACE>",
    "was [portrayed|painted|photographed] by the <OCCUPATION> <PERSON>",
    "[learned|began to study] <LANGUAGE>",
    "[received|was awarded] an honorary degree from the <PLACE> [University|Polytechnic]",
    "[lost|sold] <PO> [library|collection|studio] [in a fire|to pay debts|at auction]",
    "[walked|cycled|rode] from <PLACE> to <PLACE> [in <N2> days|on a bet|for charity]",
    "[shared|rented] a [flat|house|studio] in <PLACE> with <PERSON>",
    "[wrote|drafted] a [manifesto|guidebook|cookery book|children's book] about <SUBJECT>",
    "[went|travelled] to <COUNTRY> to [study|draw|record|collect] <ANIMAL>",
    "[won|lost] a [lawsuit|bitter dispute] over [a patent|a will|an unpaid fee] with <PERSON>",
    "[wrote|published|finished] a [study|monograph|long essay|survey] of <TOPIC>",
    "[collected|hoarded|catalogued] <THINGS>[ from <PLACE>|]",
    "opened a <CRAFTPLACE> in <PLACE>[ with <PERSON>|]",
    "[studied|drew|photographed] the <NATURE> of the <HILLS>",
    "[bought|was given] a [collection|crate|cabinet] of <THINGS> [from <PERSON>|at a fair in <PLACE>]",
    "[lectured|wrote] on <TOPIC> [for the <PAPER>|at the <STORE>|in <PLACE>]",
    "[apprenticed|worked] at a <CRAFTPLACE> [near <PLACE>|in <PLACE>|owned by <PERSON>]",
]
CITY_EVENTS = [
    "[dug|built|opened] a new [harbour|canal basin|dry dock]",
    "saw the <APLACE><BUILDING> [burn down|collapse|demolished] and [rebuilt|replaced] in <MATERIAL>",
    "opened its first [tram line|gas works|public library|electric power station|swimming baths]",
    "[elected|chose] <PERSON> as [its first|a reforming|its youngest] mayor",
    "tore down its [old|medieval] [walls|gates|ramparts][ to make room for <STREET>|]",
    "[gained|opened] a museum of <SUBJECT>",
    "[lost|closed] its [last|oldest] [brewery|shipyard|coal pit|textile mill]",
    "hosted the national [rowing|chess|cycling|choir|ploughing] championship",
    "[was occupied|was besieged|changed hands] [during a border war|for <N2> months|twice]",
    "[laid out|opened] the <SURNAME> Gardens [on the site of an old <APLACE><BUILDING>|beside the <APLACE><DISTRICT>|]",
    "[received|welcomed] [thousands of|several hundred] refugees from <PLACE>",
    "[built|opened] a [new|second] bridge over [the river|the harbour]",
    "[became|was made] the seat of a [bishop|provincial governor|district court]",
    "[paved|lit] its main streets[ with gas lamps| with electric lamps|]",
    "[suffered|endured] <N2> [hard winters|failed harvests|floods] in a row",
    "[grew|doubled|swelled] [rapidly|in size|within a generation] [after|with] the arrival of <INDUSTRY>",
    "[hosted|held] a [world fair|trade fair|royal wedding|peace conference]",
    "[restored|rebuilt|reopened] the <APLACE><DISTRICT> [after decades of neglect|with help from <PLACE>|]",
    "[banned|welcomed] [motor cars|street markets|horse trams] from the <APLACE><DISTRICT>",
    "[merged|joined] with the [neighbouring|nearby] village of <PLACE>",
    "[opened|gained] a [university|teacher-training college|naval academy|school of <SUBJECT>]",
    "[was connected|got connected] to the [telegraph|telephone|electricity] network",
    "[commissioned|raised] a [statue|monument|fountain] to <PERSON> [in the main square|by the harbour|]",
    "[lost|gave up] its [market|city] rights to <PLACE>",
    "[started|founded] an annual [regatta|horse fair|book fair|film festival]",
    "[became|grew] [known|famous] for its <THINGS>",
    "[opened|gained] a museum of <THINGS>[ in a former <APLACE><BUILDING>|]",
    "[lost|closed] its last <CRAFTPLACE>",
    "[built|opened] a [market hall|exchange] for the trade in <GOODS>",
    "[sent|shipped] <THINGS> to <COUNTRY> [by the cartload|by sea|by rail]",
]
ORG_EVENTS = [
    "opened a [branch|second workshop|sales office] in <PLACE>",
    "merged with the <SURNAME> <ORGKIND>",
    "[lost|saw] its first [workshop|premises|warehouse] [burn down|destroyed in a flood]",
    "[nearly went|came close to going] bankrupt",
    "won a contract to supply <PRODUCT> to the <COUNTRY> [navy|railways|post office]",
    "[moved into|expanded into|gave up] <INDUSTRY>",
    "[appointed|hired] <PERSON> as [director|chief engineer|chair]",
    "[launched|introduced] its first <PRODUCT>",
    "[faced|went through] a [strike|lockout] that lasted <N2> weeks",
    "[bought|took over] a [rival|smaller firm|bankrupt mill] in <PLACE>",
    "[moved|relocated] its [printing works|factory|archive|workshops] to a former <APLACE><BUILDING>",
    "[celebrated|marked] its [fiftieth|hundredth] anniversary with [a parade|an exhibition|a free concert]",
    "[sponsored|funded] the <SURNAME> [Prize|Lecture|Scholarship]",
    "[was nationalised|was sold to <PERSON>|was bought by its workers]",
    "[opened|built] a [school|clinic|housing estate|sports ground] for its workers",
    "[exported|shipped] <PRODUCT> to <COUNTRY> [for the first time|in large numbers]",
    "[lost|won] a [long|famous] lawsuit against the <SURNAME> <ORGKIND>",
    "[published|printed] a history of itself written by <PERSON>",
    "[switched|converted] its [works|mills|plant] to [electric power|steam|solar power]",
    "[closed|sold off] its branch in <PLACE>",
    "[began|started] making <THINGS>[ for export|]",
    "[took over|bought] a <CRAFTPLACE> in <PLACE>",
    "[won|received] a medal for its <THINGS> at a fair in <PLACE>",
    "[stopped|gave up] making <GOODS>",
]
WORK_EVENTS = [
    "was [banned|censored|withdrawn] in <COUNTRY> for <N2> years",
    "was translated into <LANGUAGE>[ by <PERSON>|]",
    "sold at auction for <N3>,000 [crowns|florins|marks|ducats]",
    "received a [famous|scathing|glowing] review from the <OCCUPATION> <PERSON>",
    "was [restored|re-edited|remastered] [by <PERSON>|at the <STORE>|]",
    "[toured|travelled to] <N2> [cities|countries|museums]",
    "was [stolen|lost|misplaced] and [recovered|found] [in <PLACE>|years later in an attic|]",
    "inspired the <OCCUPATION> <PERSON>",
    "[sold|shifted] <N3>,000 copies[ in a new edition|]",
    "[was set to music|was parodied|was quoted in parliament] [by <PERSON>|in <COUNTRY>|]",
    "[caused|sparked] a [scandal|quarrel|debate] in <PLACE>",
    "was [reissued|reprinted|republished] by the <PLACE> Press",
    "[appeared|was shown] [on a postage stamp|on a banknote|in a school textbook] in <COUNTRY>",
    "[won|earned] its [maker|creator] a [grant|pension|commission] from <PLACE>",
    "[was|has been] [taught|studied|performed] in [schools|universities|village halls] across <COUNTRY>",
    "[was|got] [bound|framed|displayed] [together with|beside|alongside] a set of <THINGS>",
    "[gave|lent] its title to a [ship|racehorse|pub|street] in <PLACE>",
]
TIMES_LIFE = ["In {y}", "On {date}", "On {date},", "Around {y}", "By {y}", "In {m} {y}", "In {m} {y},", "On {date}",
              "At {a}", "Aged {a},", "In {y}, aged {a},", "When {a},"]
TIMES_PLAIN = ["In {y}", "On {date}", "On {date},", "Around {y}", "By {y}", "In {m} {y}", "In {m} {y},", "On {date}"]


def date(rng: random.Random, y: int) -> str:
    """A day of year y written as '12 March 1897'."""
    return f"{rng.randint(1, 28)} {rng.choice(V.MONTHS)} {y}"


VERBS_OBJECT = ["bought", "sold", "inherited", "lost", "restored", "repaired", "collected", "donated", "exhibited",
                "catalogued", "sketched", "photographed", "described", "auctioned", "insured", "shipped", "hid",
                "rediscovered", "valued", "mended"]
VERBS_TOPIC = ["wrote about", "published a study of", "drafted a pamphlet on", "lectured on", "gave talks on",
               "taught a course on", "researched", "surveyed", "kept notes on", "made a film about",
               "wrote a column on", "compiled a bibliography of", "organized an exhibition on", "broadcast a series on"]
VERBS_PLACE = ["moved to", "travelled to", "sailed to", "walked to", "returned to", "settled in", "fled to", "visited",
               "toured", "spent a winter in", "spent a summer in", "emigrated to", "cycled to", "lodged in",
               "took a cure in", "went on a pilgrimage to"]
VERBS_PERSON = ["met", "quarrelled with", "befriended", "worked with", "collaborated with", "corresponded with",
                "shared a studio with", "sued", "was photographed by", "was painted by", "hired", "nursed",
                "went into business with", "was interviewed by", "debated", "toured with", "fell out with"]
VERBS_FOUND = ["founded", "opened", "ran", "joined", "left", "chaired", "funded", "co-founded", "revived", "closed"]
CLUBS = ["chess club", "choir", "reading circle", "night school", "cycling club", "rowing crew", "debating society",
         "theatre troupe", "cooperative bakery", "lending library", "savings bank", "mutual aid society",
         "brass band", "puppet theatre", "hiking club", "photography society", "folk dance group"]
PP_OBJECT = ["from <PERSON>", "in <PLACE>", "for <N3> crowns", "at a fair in <PLACE>", "for the <STORE>",
             "on behalf of <PERSON>", "after a visit to <PLACE>", "with <PERSON>", "from a dealer in <PLACE>", ""]
PP_TOPIC = ["for the <PAPER>", "at the <STORE>", "with <PERSON>", "in <PLACE>", "for <N2> years", "for radio", ""]
PP_PLACE = ["with <PO> <RELATIVE>", "for <N2> months", "on a cargo ship", "by train", "with <PERSON>",
            "to study <SUBJECT>", "for the <PAPER>", "after a quarrel with <PERSON>", ""]
PP_PERSON = ["in <PLACE>", "at the <STORE>", "on a journey to <PLACE>", "over <TOPIC>", "during a stay in <PLACE>", ""]


def _person_vp(rng: random.Random) -> str:
    k = rng.randrange(6)
    if k == 0:
        return f"{rng.choice(VERBS_OBJECT)} a [set|pair|collection|crate|cabinet|dozen] of <THINGS> {rng.choice(PP_OBJECT)}"
    if k == 1:
        return f"{rng.choice(VERBS_TOPIC)} <TOPIC> {rng.choice(PP_TOPIC)}"
    if k == 2:
        return f"{rng.choice(VERBS_PLACE)} [<PLACE>|<COUNTRY>] {rng.choice(PP_PLACE)}"
    if k == 3:
        return f"{rng.choice(VERBS_PERSON)} the <OCCUPATION> <PERSON> {rng.choice(PP_PERSON)}"
    if k == 4:
        return f"{rng.choice(VERBS_FOUND)} a {rng.choice(CLUBS)} in <PLACE>[ with <PERSON>|]"
    return rng.choice(PERSON_EVENTS)

CITY_BUILD = (["built", "opened", "rebuilt", "completed", "laid out", "put up", "raised"],
              ["the <SURNAME> Bridge", "a new <APLACE><BUILDING>", "the <SURNAME> Gardens", "a <CRAFTPLACE> on <STREET>",
               "the <PLACE> Gate", "the <SURNAME> Market", "a <MATERIAL> <BUILDING>", "the <SURNAME> Baths", "the <PLACE> Road",
               "a second <BUILDING>", "the <SURNAME> Hall"],
              ["designed by the architect <PERSON>", "paid for by <PERSON>", "on the site of the old <BUILDING>",
               "with money from <PLACE>", "at a cost of <N3>,000 crowns", "to plans by <PERSON>", "in <MATERIAL>", ""])
CITY_LOSE = (["lost", "demolished", "closed", "sold off", "gave up"],
             ["its <APLACE><BUILDING>", "the old <BUILDING>", "a <CRAFTPLACE> on <STREET>", "the <SURNAME> Market",
              "its last <CRAFTPLACE>", "the <PLACE> Gate"],
             ["after a fire", "against the wishes of the council", "to pay its debts", "after a flood", "to <PERSON>", ""])
CITY_MEND = (["restored", "enlarged", "modernised", "converted", "renamed", "repainted"],
             ["its <APLACE><BUILDING>", "the old <BUILDING>", "the <SURNAME> Bridge", "its <APLACE><DISTRICT>",
              "the <SURNAME> Baths"],
             ["with help from <PLACE>", "for the <OCCASION>", "under the mayor <PERSON>", "at a cost of <N3>,000 crowns",
              "in <MATERIAL>", ""])
ORG_ACQUIRE = (["opened", "bought", "leased", "built", "took over", "rebuilt"],
               ["a branch in <PLACE>", "a <CRAFTPLACE> in <PLACE>", "a warehouse on <STREET>", "a former <APLACE><BUILDING>",
                "a shop in <PLACE>", "the <PLACE> works", "a second site on <STREET>"],
               ["for <N3>,000 crowns", "with help from <PERSON>", "at the urging of <PERSON>", "in a deal with <PERSON>", ""])
ORG_DEAL = (["merged with", "signed a contract with", "won an order from", "lost an order from", "sued", "partnered with",
             "bought out", "supplied"],
            ["the <SURNAME> <ORGKIND>", "the <PLACE> <ORGKIND>", "the <PLACE> <ORGKIND>", "the <SURNAME> <ORGKIND>"],
            ["after a long dispute", "during a strike", "for <N3>,000 crowns", "with help from <PERSON>", ""])
ORG_STAFF = (["hired", "appointed", "lost", "sacked", "promoted"],
             ["<PERSON> as [director|chief engineer|designer|treasurer]"],
             ["after a long dispute", "during a strike", "at the urging of <PERSON>", ""])
WORK_VERBS = ["was translated into <LANGUAGE>", "was reissued", "was banned in <COUNTRY>", "was exhibited in <PLACE>",
              "was performed in <PLACE>", "was sold to <PERSON>", "was quoted by <PERSON>", "was adapted by <PERSON>",
              "was restored", "was catalogued", "was studied by <PERSON>", "was praised by <PERSON>",
              "was attacked in the <PAPER>", "was bought by the <STORE>", "toured <COUNTRY>"]
WORK_PPS = ["for <N3>,000 crowns", "by <PERSON>", "for the <PLACE> [festival|fair|library]", "in a new edition",
            "after years of neglect", "to mark the <OCCASION>", "in <PLACE>", "with a preface by <PERSON>", ""]


def _city_vp(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(CITY_EVENTS)
    verbs, things, pps = rng.choice([CITY_BUILD, CITY_BUILD, CITY_LOSE, CITY_MEND])
    return f"{rng.choice(verbs)} {rng.choice(things)} {rng.choice(pps)}"


def _org_vp(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(ORG_EVENTS)
    verbs, things, pps = rng.choice([ORG_ACQUIRE, ORG_ACQUIRE, ORG_DEAL, ORG_STAFF])
    return f"{rng.choice(verbs)} {rng.choice(things)} {rng.choice(pps)}"


def _work_vp(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(WORK_EVENTS)
    return f"{rng.choice(WORK_VERBS)} {rng.choice(WORK_PPS)}"


def _event(rng: random.Random, events, lo: int, hi: int, born: int | None = None) -> str:
    adv = "<ADV>" if born is not None else ""
    """'<time phrase> <S> <event>.' or '<S> <event> in <year>.' for a year between lo and hi; `events` is a
    list of verb phrases or a function drawing one."""
    y = _years(rng, lo, hi)
    vp = events(rng) if callable(events) else rng.choice(events)
    if rng.random() < 0.3:
        return f"<S> {adv}{vp} in {y}."
    times = TIMES_LIFE if born is not None and y - born >= 14 else TIMES_PLAIN
    time = rng.choice(times).format(y=y, m=rng.choice(V.MONTHS), a=(y - born) if born else 0, date=date(rng, y))
    return f"{time} <S> {adv}{vp}."


def _city_paragraph(rng: random.Random, c: City) -> Paragraph:
    n, y, pop, t, kind, adj, reg, co = c.name, c.founded, f"{c.population:,}", c.summer_temp, c.kind, c.adj, c.region, c.country
    other = rng.choice([x for x in V.COUNTRY_NAMES if x != co])
    local = {"S": [n, n, n, f"the {kind}", "it"], "SP": [f"{n}'s", f"{n}'s", "its", f"the {kind}'s"]}
    intro = rng.choice([
        f"{n} is a {adj} {kind} in the {reg} of {co}.",
        f"{n} is a {kind} [located|situated|lying] in the {reg} of {co}[, [close to|not far from|a short drive from] <PLACE>|].",
        f"The {kind} of {n} [lies|sits|stands] in the {reg} of {co}[, among {c.terrain}|, at the foot of the <HILLS>|].",
        f"{n}, [once|formerly|historically] [called|known as] <PLACE>, is a {adj} {kind} in {co}.",
        f"Set in the {reg} of {co}, {n} is a {adj} {kind} [surrounded by|ringed by|among] {c.terrain}.",
        f"{n} is a {kind} and [municipality|district seat|parish] in {co}[, [close to|near] the border with {other}|].",
        f"[Nicknamed|Known as|Often called] \"{rng.choice(V.NICKNAMES)}\", {n} is a {adj} {kind} in {co}.",
        f"{n} is the [chief|main|oldest] {kind} of the <PLACE> [valley|district|province|county] in {co}.",
        f"Lying [between|below] the <HILLS> and [the coast|<LAKE>|the <PLACE> marshes], {n} is a {adj} {kind} in {co}.",
        f"{n} ([in {language_of(co)}|locally] <PLACE>) is a {kind} in the {reg} of {co}.",
    ])
    warm = "mild" if t < 21 else "warm" if t < 30 else "hot"
    y2 = _years(rng, y + 20, 2015)
    rest = [
        ("founded", rng.choice([
            f"<S> was founded in {y} as {rng.choice(ORIGINS)}.",
            f"<S> [received|was granted|obtained] [its|a] [charter|market rights|city status|first privileges] in {y}.",
            f"[Records|Surviving charters|Old chronicles|Tax rolls] date <SP> founding to {y}.",
            f"[Settlers|Traders|Monks|Fishermen|Miners|Refugees] from <PLACE> [established|founded|built] {n} in {y}.",
            f"Local historians [give|put|accept] {y} as the year of <SP> founding.",
            f"<SP> [first|earliest] [streets|walls|stone houses|wharves] were laid out in {y}[, the date usually given for its founding|, which is taken as its founding date].",
            f"{n} [dates from|goes back to|was founded in] {y}, when <PERSON> [built|raised|paid for] a [mill|chapel|fort|bridge|toll house] [there|on the site].",
            f"Founded in {y} [by <PERSON>|on the site of an older village|as {rng.choice(ORIGINS)}], {n} [grew|developed|expanded] [quickly|slowly|steadily] [after the railway arrived|in the {century(y2)} century|].",
            f"<S> [was founded|came into being|was established] in {y}.",
            f"<SP> founding in {y} is [celebrated|remembered|marked] every <MONTH> with a [parade|procession|fair|bell concert]."])),
        ("river", rng.choice([
            f"The {c.river} flows through <SP> <APLACE><DISTRICT>.",
            f"<S> lies on the [banks|north bank|south bank|east bank|west bank] of the {c.river}[, [about|some] {rng.randint(5, 90)} km [upstream|downstream] of <PLACE>|].",
            f"<SP> [harbour|quays|port] [opens|looks] onto the {c.river}.",
            f"The {c.river} [divides|splits|cuts] {n} into [two halves|an old and a new quarter|northern and southern districts].",
            f"[Several|Dozens of|A few|{rng.randint(3, 14)}] [bridges|footbridges|ferries] cross the {c.river} [in {n}|inside the municipal limits|within <SP> boundaries].",
            f"[Barges|Ferries|Rowing boats|Timber rafts] still [work|ply|use] the {c.river}, which [winds|bends|runs] past <SP> [town hall|main square|station|<APLACE><BUILDING>].",
            f"<S> [grew up|was built|stands] [at|on] a [ford|bend|crossing|confluence] of the {c.river}.",
            f"The {c.river} [meets|joins|enters] [the sea|<LAKE>|the <PLACE> estuary] [just below|a few kilometres past|beyond] {n}.",
            f"[Built|Spread out] along the {c.river}, {n} [has|keeps] [an old|a busy|a restored] [waterfront|riverside promenade|towpath]."])),
        ("population", rng.choice([
            f"As of the [last|latest|most recent] census <S> had a population of {pop}.",
            f"About {pop} people live in {n}.",
            f"<SP> population was [counted|recorded|put] at {pop} [in the most recent census|at the last count|in the census].",
            f"The census [recorded|counted|found] {pop} [inhabitants|residents|people] [in {n}|in the municipality].",
            f"{pop} people were living in {n} at the [last|most recent|latest] census.",
            f"<S> [has|is home to|counts] [roughly|about|some|around] {pop} [inhabitants|residents|people|souls].",
            f"With {pop} [inhabitants|residents], {n} is [one of the [bigger|livelier] places|a [middling|sizeable|modest] {kind}] of the {reg}.",
            f"[The municipality|Greater {n}] [had|counted|numbered] {pop} [residents|inhabitants] at the [last census|latest count].",
            f"<SP> population, {pop} at the [last|latest] census, [has grown|has fallen|is rising|is shrinking|has held steady] [since the {rng.randint(195, 201) * 10}s|in recent decades|over the past century]."])),
        ("landmark", rng.choice([
            f"<S> is known for its <APLACE>{c.landmark}.",
            f"Visitors come to {n} [mainly|above all|chiefly] for the <APLACE>{c.landmark}.",
            f"<SP> best-known sight is the <APLACE>{c.landmark}.",
            f"[Guidebooks|Visitors|Travel writers] [single out|praise|point to] <SP> <APLACE>{c.landmark}.",
            f"The {c.landmark}, [restored|rebuilt|opened] in {y2}, is <SP> [most famous|best-known|most visited] [sight|landmark|attraction].",
            f"<SP> [pride|most photographed corner|chief attraction] is the <APLACE>{c.landmark}.",
            f"[Most|Many] [tourists|visitors|day-trippers] in {n} [head|go] straight for the <APLACE>{c.landmark}.",
            f"The {c.landmark} [draws|attracts|brings in] [thousands of|crowds of|coachloads of] visitors to {n} [each year|every summer].",
            f"Postcards of {n} [almost always|usually|nearly all] show the <APLACE>{c.landmark}."])),
        ("climate", rng.choice([
            f"Summer afternoons in {n} typically reach {t} degrees Celsius.",
            f"In July the temperature [in {n}|there] usually peaks [around|at about|near] {t} °C.",
            f"Summers are {warm}, with [afternoon|daytime] highs of about {t} °C.",
            f"[Average|Typical] July highs in {n} [reach|sit at|are] {t} degrees.",
            f"On a summer afternoon the [thermometer|temperature] [typically|usually] climbs to {t} °C.",
            f"<SP> climate is [temperate|continental|maritime|dry|humid], and [summer|July] [afternoons|days] [reach|average|top out at] {t} °C.",
            f"[In high summer|At the height of summer|In July and August] {n} [warms|heats up] to about {t} °C [in the afternoon|by mid-afternoon].",
            f"<SP> [summer|July] [maximum|high] [averages|is about|is typically] {t} °C[, with [cool|cold|wet|snowy|windy] winters|]."])),
    ]
    if c.twin is not None:
        tw = c.twin.name
        rest.append(("twin", rng.choice([
            f"<S> is twinned with {tw}.",
            f"<S> has a [twinning|partnership|sister-city] [agreement|arrangement] with {tw}.",
            f"Since {_years(rng, 1950, 2015)} {n} has been [twinned|paired] with {tw}.",
            f"<SP> [twin town|sister city|partner town] is {tw}.",
            f"[School exchanges|Choir visits|Football friendlies|Student exchanges] [tie|link] {n} to its twin town, {tw}.",
            f"A [partnership|twinning] [signed|agreed] in {_years(rng, 1950, 2015)} links {n} with {tw}."])))
    i1, i2 = c.industries
    extra = [
        ("bridge", f"The <SURNAME> Bridge, [built|completed|opened] in {_years(rng, y + 10, 2010)}, [links|joins|connects] <SP> <APLACE><DISTRICT> [with|to] [the suburb of|the village of|] <PLACE>."),
        ("economy", f"<SP> [economy|prosperity|wealth] [rests|depends|was built] on {i1} and {i2}[, and the <SURNAME> {rng.choice(V.ORG_KIND)} is the largest employer|]."),
        ("food", f"[Cooks|Bakers|Taverns|Street vendors] in {n} are [known|famed|praised] for {c.food}, [traditionally|usually|often] [served|eaten] with <FOOD>."),
        ("festival", f"Each <MONTH> the {n} {c.festival.title()} Festival [fills|takes over|brings crowds to] <STREET>."),
        ("sport", f"{n} {rng.choice(V.CLUB_SUFFIX)}, the local {rng.choice(V.SPORTS_LOCAL)} club, [[plays|trains] at <SURNAME> Park|has played at <SURNAME> Park since {_years(rng, 1890, 2015)}]."),
        ("rail", f"[A railway|The <SURNAME> Line|A branch line|The coast railway] [reached {n}|opened] in {_years(rng, max(y, 1840), 1930)}, [linking|connecting] <S> with <PLACE> and <PLACE>."),
        ("paper", f"<SP> [daily|weekly] newspaper, the <PAPER>, [was founded|first appeared] in {_years(rng, max(y, 1780), 1990)}."),
        ("disaster", f"In {_years(rng, y + 5, 1990)} {rng.choice(V.DISASTERS)} [destroyed|damaged|gutted] [much of|part of] <SP> <APLACE><DISTRICT>[, which was rebuilt in <MATERIAL>|]."),
        ("street", "<SP> main street, <STREET>, [runs|leads|climbs] from the <APLACE><BUILDING> to the [railway station|harbour|market square|<APLACE><BUILDING>]."),
        ("geography", f"<S> [sits|stands|lies] [at|about] {rng.randint(2, 140) * 10} metres above sea level, [between|below|beside] <MOUNT> and <LAKE>."),
        ("council", f"[Since {_years(rng, 1945, 2015)} {n} has been|<S> is] [governed|run] by a mayor and a council of {rng.randint(9, 41)} members."),
        ("history", f"In the {century(_years(rng, y, 1900))} century {n} was a [centre|hub|stronghold] of <INDUSTRY>[ and <INDUSTRY>|]."),
        ("notable", "The <OCCUPATION> <PERSON> [grew up|lived|spent a childhood|kept a studio] in <SP> <APLACE><DISTRICT>."),
        ("school", f"[The|A] <PLACE> [School of <SUBJECT>|teacher-training college|music school] [has|keeps] [a campus|its main building|a branch] in {n}."),
        ("terrain", f"The [countryside|land|district] around {n} is [known for|dotted with|made up of] {c.terrain}."),
        ("neighbours", "[Neighbouring|Nearby|Surrounding] [towns|villages|places|settlements] [include|are] <PLACES>."),
        ("people", f"[Notable people|Natives|Famous residents] of {n} [include|are|have included] <PEOPLE>."),
        ("districts", "<SP> [districts|quarters|neighbourhoods|wards|parishes] [include|are|take their names from] <PLACES>."),
    ]
    events = [_event(rng, _city_vp, max(y + 10, 1820), 2020) for _ in range(rng.randint(1, 3))]
    p = Paragraph(c.name)
    _fill(p, rng, ("intro", intro), rest, extra, (1, 3), local=local, events=events,
          keep={"founded": 0.7, "river": 0.7, "population": 0.7, "landmark": 0.7, "climate": 0.7})
    return p


def _person_paragraph(rng: random.Random, x: Person) -> Paragraph:
    n, c, occ, b, last = x.name, x.city, x.occupation, x.born, x.last
    was = "was" if x.died else "is"
    if rng.random() < 0.6:
        life = f"{date(rng, b)} – {date(rng, x.died)}" if x.died else f"born {date(rng, b)}"
    else:
        life = f"{b}–{x.died}" if x.died else f"born {b}"
    adj = rng.choice(V.PERSON_ADJ)
    p_, po = x.pron.lower(), x.poss.lower()
    local = {"S": [last, last, n, p_], "SP": [f"{last}'s", f"{last}'s", po], "PO": [po]}
    intro = rng.choice([
        f"{n} ({life}) {was} a {occ} from {c.name}, {c.country}.",
        f"{n} (born in {c.name} in {b}) {was} a {occ}.",
        f"{n}, [born|who was born] in {c.name} in {b}, {was} a {adj} {occ}.",
        f"{n} ({life}), a native of {c.name}, {was} a {adj} {occ}.",
        f"{n} ({life}) {was} a {c.name}-born {occ}[ active in <PLACE>| and teacher|].",
        f"A native of {c.name}, {n} ({life}) {was} a {adj} {occ}.",
        f"{n} ({life}) {was} a {adj} {occ} [from|originally from] {c.name} in the {c.region} of {c.country}.",
        f"{n} ({life}) {was} a {occ} and [collector|traveller|teacher|diarist] from {c.name}.",
        f"The {occ} {n} ({life}) came from {c.name}, a {c.kind} in {c.country}.",
        f"{n} {was} a {adj} {occ}; {p_} was born in {c.name} on {date(rng, b)}.",
        f"{c.name}, in {c.country}, is the birthplace of the {occ} {n} ({life}).",
        f"{c.name} was the birthplace of {n} ({life}), a {adj} {occ}.",
    ])
    l0, l1 = x.languages
    ya = _years(rng, b + 17, b + 24)
    rest = [
        ("education", rng.choice([
            f"<S> studied at {x.university}[ under <PERSON>| alongside <PERSON>|].", f"<S> trained at {x.university}[ from {ya} to {ya + rng.randint(2, 5)}|].",
            f"After school <S> enrolled at {x.university}[, paid for by <PO> <RELATIVE>|].",
            f"<S> [graduated from|was educated at|took a degree at] {x.university}[ in <SUBJECT>|].",
            f"[At|Aged] {ya - b} <S> [went|moved] to {x.university} to study <SUBJECT>.",
            f"<SP> [education|training|studies] [took place|was completed] at {x.university}[, where {p_} read <SUBJECT>|].",
            f"<S> [spent|passed] {rng.randint(2, 6)} years at {x.university}[, [first|mainly] studying <SUBJECT>|].",
            f"[A scholarship|A grant from the <SURNAME> Foundation|Family money] [took|sent] {last} to {x.university} in {ya}.",
            f"<S> [was a student|read <SUBJECT>] at {x.university} [in the {ya // 10 * 10}s|from {ya} to {ya + rng.randint(2, 5)}].",
            f"On {date(rng, ya)} <S> [entered|enrolled at|was admitted to] {x.university}."])),
    ]
    if rng.random() < 0.4:
        rest.append(("languages", rng.choice([
            f"<S> spoke {l0} and {l1}.", f"<SP> working languages were {l0} and {l1}.",
            f"<S> [wrote|worked|lectured] in both {l0} and {l1}.",
            f"Besides {po} native {l0}, {last} [was fluent in|spoke|had learned] {l1}.",
            f"<S> [grew up speaking|was raised in] {l0} and [later|soon] [learned|mastered|picked up] {l1}."])))
    if x.work is not None:
        w = x.work
        rest.append(("work", rng.choice([
            f"<SP> best-known {w.kind} is \"{w.title}\".",
            f"<S> is remembered above all for the {w.kind} \"{w.title}\".",
            f"[Critics|Most readers|Historians] [regard|consider] the {w.kind} \"{w.title}\" <SP> [finest|most important|defining] work.",
            f"<SP> [reputation|fame] rests [mainly|largely] on the {w.kind} \"{w.title}\".",
            f"[Today|Nowadays] <S> is [chiefly|mostly|best] known for \"{w.title}\", a {w.kind}[ [admired|discussed|studied] in schools|].",
            f"[Of all|Among] <SP> [works|many works], the {w.kind} \"{w.title}\" [is the most famous|made the biggest impression|is the best remembered].",
            f"The {w.kind} \"{w.title}\" made <SP> name.",
            f"<SP> [signature|most celebrated|breakthrough] {w.kind} is \"{w.title}\"."])))
    if x.mentor is not None:
        m = x.mentor
        rest.append(("mentor", rng.choice([
            f"<S> [studied under|was a pupil of|apprenticed with|was trained by] the {m.occupation} {m.name}.",
            f"<SP> [teacher|mentor|first teacher] was the {m.occupation} {m.name}.",
            f"As a young {occ} <S> [learned|worked] [alongside|under] {m.name}.",
            f"{m.name}, a {m.occupation}, [taught|trained|mentored] {last} [early on|in the {(b + 20) // 10 * 10}s|for several years].",
            f"<S> [owed|credited] much of {po} [craft|technique|early success] to {po} [teacher|mentor], {m.name}.",
            f"[Under|With] the guidance of {m.name}, <S> [learned|mastered|took up] [the trade|the craft|the basics]."])))
    if x.employer is not None:
        o = x.employer
        yj = _years(rng, max(o.founded, b + 20), min(x.died or 2024, b + 60))
        rest.append(("employer", rng.choice([
            f"<S> later worked for the {o.name}[ as {rng.choice(ROLES)}|].",
            f"<S> spent {rng.randint(3, 25)} years at the {o.name}.",
            f"For much of {po} career <S> [was employed by|worked at|served] the {o.name}.",
            f"<S> joined the {o.name} as {rng.choice(ROLES)}[ in {yj}|].",
            f"In {yj} <S> [took a post|found work|was hired] at the {o.name}.",
            f"<SP> [day job|salaried post|steady income] came from the {o.name}, where {p_} [worked|served] as {rng.choice(ROLES)}."])))
    extra = [
        ("hobby", "<SP> [lifelong|great|chief] [passion|pastime|hobby] was <HOBBY>."),
        ("temper", f"[Contemporaries|Friends|Colleagues|Students] [described|remembered] {last} as {rng.choice(TEMPERAMENTS)} and {rng.choice(TEMPERAMENTS)}."),
        ("travel", f"[In|During] {po} [twenties|thirties|forties] <S> [travelled|lived|worked] [for a time|for several years|briefly] in <PLACE>."),
        ("parents", f"<SP> [father|mother] <FIRST> {last} was a <OCCUPATION>[ from <PLACE>|]."),
        ("siblings", f"<S> was the {rng.choice(V.CHILD_RANKS)} of {rng.randint(2, 9)} children[ of a <OCCUPATION>|]."),
        ("marriage", f"In {_years(rng, b + 20, min(x.died or 2020, b + 45))} <S> married the <OCCUPATION> <PERSON>[; they had <SMALLN> children|]."),
        ("students", "<SP> [students|pupils|assistants] included <PERSON> and <PERSON>."),
        ("legacy", f"<LEGACY> in <PLACE> [is|was] named after {last}."),
        ("papers", "<SP> [papers|letters|notebooks|diaries] are [kept|held|preserved] at the <STORE>."),
        ("council", f"<S> [served on|sat on] the <PLACE> [town council|city council|school board] for {rng.randint(2, 20)} years."),
        ("friend", "<S> was a [close friend|rival|correspondent|neighbour] of the <OCCUPATION> <PERSON>."),
        ("circle", "<SP> [circle|friends|collaborators|correspondents|closest friends|regular visitors] [included|counted|took in|were] <PEOPLE>."),
        ("pupils", "[Among <SP> [students|pupils|apprentices] were|<SP> [students|pupils|apprentices|assistants] [included|numbered]|<S> [taught|trained|mentored]] <PEOPLE>."),
        ("minor_works", "[Other|Lesser-known|Early|Later] works [include|are|comprise] <TITLES>."),
        ("homes", "<S> [lived|had homes|kept rooms|rented houses|stayed] in <PLACES>[ over the years| at various times|]."),
    ]
    if x.award is not None:
        extra.append(("award", f"In {x.award[1]} <S> [received|won|was awarded] the {x.award[0]}[ for <TITLE>|]."))
    last_s = []
    if x.died:
        d = x.died
        dd = date(rng, d)
        cause = rng.choice(["of pneumonia", "after a fall", "in a train accident", f"in {po} sleep", "of a heart attack",
                            "after a long illness", "of tuberculosis", "during a heatwave", "in a boating accident",
                            "of influenza", "after a short illness", "of old age"])
        last_s.append(("died", rng.choice([
            f"<S> died in {d}.", f"<S> retired to the coast and died in {d}.",
            f"<S> died in {d}, [aged|at the age of] {d - b}.",
            f"[After a long illness|Following a short illness|Still working], <S> died in {d}.",
            f"<S> spent {po} last years in <PLACE> and died there in {d}.",
            f"<S> died [at home|in hospital|abroad|in <PLACE>] on {dd}.",
            f"<SP> death on {dd} [was widely mourned|came as a shock|went almost unnoticed].",
            f"<S> [lived|kept working] until {po} death in {d}.",
            f"<S> died {cause} in <PLACE> on {dd}.",
            f"<S> died {cause} in {d}[, leaving {po} [papers|estate|house] to <PERSON>|].",
            f"On {dd} <S> died {cause}[ at {d - b}|].",
            f"<S> died in {d} {cause}[ and was buried in <PLACE>|]."])))
    end = min(x.died or 2024, 2024)
    events = [_event(rng, _person_vp, b + 15, end, born=b) for _ in range(rng.randint(1, 3))]
    if x.died and rng.random() < 0.15:
        last_s = []
    p = Paragraph(x.name)
    _fill(p, rng, ("born", intro), rest, extra, (0, 2), last_s, local=local, events=events,
          keep={"education": 0.75, "work": 0.9})
    return p


def _work_paragraph(rng: random.Random, w: Work) -> Paragraph:
    t, k, y, cr = w.title, w.kind, w.year, w.creator
    adj = rng.choice(["short", "long", "early", "late", "ambitious", "experimental", "celebrated", "lyrical",
                      "sprawling", "compact", "unfinished", "much-revised", "influential", "modest", "daring"])
    crn, occ = cr.name, cr.occupation
    local = {"S": [f"\"{t}\"", f"\"{t}\"", f"the {k}", "it"], "SP": ["its", f"the {k}'s"]}
    parts = ("[movements|tracks|sections]" if k in MUSIC_KINDS else "[chapters|parts|sections]" if w.bookish
             else "[parts|sections|panels]")
    p = Paragraph(t)
    with_creator = [
        f"\"{t}\" is a {y} {k} by {occ} {crn}.",
        f"\"{t}\" ({y}) is a {adj} {k} by the {occ} {crn}.",
        f"Completed in {y}, \"{t}\" is a {k} by {crn}.",
        f"\"{t}\" is a {k} that {crn} [finished|completed|released] in {y}.",
        f"\"{t}\" is a {adj} {k} [made|created|produced] by {crn} in {y}.",
        f"In {y} the {occ} {crn} [completed|finished|released] \"{t}\", a {adj} {k}.",
    ]
    without = [f"\"{t}\" is a {k} completed in {y}.", f"\"{t}\" is a {adj} {k} from {y}.",
               f"\"{t}\" is a {k} first [released|presented|issued] in {y}.", f"\"{t}\" ({y}) is a {adj} {k}.",
               f"[First|Initially] [released|shown|issued] in {y}, \"{t}\" is a {adj} {k}."]
    lead = rng.randrange(len(with_creator) + len(without))
    lang = w.language
    rest = [
        ("language", rng.choice([
            f"<S> was first published in {lang}[ by the <PLACE> Press|, in <PLACE>|].", f"The original is in {lang}.",
            f"<S> was [written|produced|first issued] in {lang}[ and translated into <LANGUAGE> by <PERSON>|].",
            f"<SP> original language is {lang}[; <PERSON> later made the <LANGUAGE> version|].",
            f"[Although|Though] [widely|often] translated, <S> was [written|composed|first issued] in {lang}.",
            f"{crn} [wrote|made] <S> in {lang}[, {cr.poss.lower()} [first|second] language|].",
            f"The {lang} [text|original] of \"{t}\" [appeared|came out] on {date(rng, y)}.",
            f"<S> [exists|survives] in {lang}[, with a <LANGUAGE> translation by <PERSON>| and in a later <LANGUAGE> version]."]
            if w.has_language else [
            f"<SP> [catalogue|accompanying text|first description] was [written|published] in {lang}[ by <PERSON>|].",
            f"The [notes|papers|records] [on|about] \"{t}\" were first [written|published] in {lang}[ in <PLACE>|].",
            f"[<PERSON> wrote|The <STORE> holds] the first {lang} [description|account] of <S>."])),
        ("pages", rng.choice([
            f"The standard edition [of \"{t}\"|] runs to {w.pages} pages.", f"The first edition had {w.pages} pages.",
            f"[In print|As a book] <S> [fills|runs to|comes to] {w.pages} pages.",
            f"<SP> [full|complete|unabridged] text [fills|runs to|covers] {w.pages} pages.",
            f"<SP> [first printing|original edition] [ran to|had] {w.pages} pages[ in <PLACE>|]."]
            if w.bookish else [
            f"The [catalogue|companion book|printed score|book] that accompanies \"{t}\" runs to {w.pages} pages.",
            f"<SP> [printed|published] [catalogue|documentation] [fills|runs to] {w.pages} pages."])),
    ]
    if w.premiere is not None:
        pr = w.premiere.name
        rest.append(("premiere", rng.choice([
            f"<S> was first [presented|shown|introduced to the public] in {pr}.",
            f"[The premiere|<SP> first public showing|The launch] took place in {pr}.",
            f"{pr} [saw|hosted] <SP> [premiere|first presentation|public debut].",
            f"[Audiences|The public] first [saw|met|encountered] \"{t}\" in {pr}[, at the <SURNAME> [Hall|Gallery|Theatre|bookshop]|].",
            f"<S> [had|received] its [premiere|first showing|launch] in {pr}[ in {y}|]."])))
    extra = [
        ("reception", f"[In the <PAPER>, |Writing in the <PAPER>, |]<PERSON> [praised|admired|questioned|attacked|defended] <SP> {rng.choice(QUALITIES)}."),
        ("people", "[It features|Its figures include|Among its characters are|It portrays|It names] <PEOPLE>."),
        ("parts", f"[Its|The] {parts} [are titled|are called|bear the names|carry the titles] <TITLES>."),
        ("owners", "[Owners|Later owners|Its owners|Collectors who owned it] [included|were|counted] <PEOPLE>."),
    ]
    if w.kind in NARRATIVE_KINDS:
        extra += [
            ("adaptation", f"[A radio|A stage|A television|An opera|A film] adaptation followed in {min(2024, y + rng.randint(2, 60))}."),
            ("theme", f"<S> [deals with|is about|explores|follows] {rng.choice(THEMES)}[ in <PLACE>|]."),
            ("sequel", f"A [sequel|companion piece|second part], \"<TITLE>\", [appeared|followed] in {min(2024, y + rng.randint(1, 12))}."),
        ]
    else:
        extra.append(("collection", "<S> [hangs|stands|is kept|is shown] in the <STORE> beside <TITLES>."))
    events = [_event(rng, _work_vp, y + 1, 2024) for _ in range(rng.randint(0, 2))] if y < 2023 else []
    keep = {"language": 0.7, "pages": 0.7 if w.bookish else 0.4}
    if lead < len(with_creator):
        _fill(p, rng, ("intro", with_creator[lead]), rest, extra, (1, 2), local=local, keep=keep, events=events)
        p.where["creator"] = p.where["intro"]
    else:
        rest.append(("creator", rng.choice([
            f"<S> was created by {crn}.", f"<SP> author is {crn}.",
            f"{crn} [made|produced|created] <S> [over several years|in a rented studio|after a long journey].",
            f"<S> is the work of the {occ} {crn}.",
            f"[<SP> author|<SP> maker|The person behind it] [is|was] the {occ} {crn}.",
            f"{crn} [worked on|spent {rng.randint(2, 9)} years on] <S> [in a rented studio|at night|between other commissions]."])))
        _fill(p, rng, ("intro", without[lead - len(with_creator)]), rest, extra, (1, 2), local=local, keep=keep,
              events=events)
    p.where["year"] = p.where["intro"]
    return p


def _org_paragraph(rng: random.Random, o: Org) -> Paragraph:
    n, ind, f, cn = o.name, o.industry, o.founder, o.city.name
    kl = o.kind.lower()
    local = {"S": [f"the {n}", f"the {n}", "it", f"the {kl}"], "SP": ["its", f"the {n}'s"]}
    intro = rng.choice([
        f"The {n} is a {ind} {kl} based in {cn}.",
        f"The {n} is an organization active in {ind}, headquartered in {cn}.",
        f"The {n} is a {ind} [firm|enterprise|concern|body] with its [seat|headquarters|main office] in {cn}.",
        f"Based in {cn}, the {n} [works|operates|is active] in {ind}.",
        f"The {n} ([founded as|originally] the <PLACE> {o.kind}) is a {ind} {kl} in {cn}.",
        f"The {n} is a [private|family-owned|cooperative|publicly listed|non-profit] {kl} in {cn}, [working|specialising] in {ind}.",
        f"[Headquartered|Based] in {cn}, the {n} is [one of the [older|larger|better-known] {ind} businesses|a [small|mid-sized|busy] {ind} business] [in {o.city.country}|of the region].",
        f"The {n} [runs|operates] [its|a] {ind} business from [offices|a building|a former <APLACE><BUILDING>] in {cn}.",
    ])
    rest = [
        ("founded", rng.choice([
            f"<S> was established in {o.founded}.", f"<S> opened its doors in {o.founded}.",
            f"<SP> [founding charter|first board meeting] dates from {o.founded}.",
            f"<S> has existed since {o.founded}.", f"<S> was [set up|incorporated|registered] in {o.founded}.",
            f"<SP> history [begins|starts] in {o.founded}[, in a [single room|rented shed|back office]|].",
            f"{o.founded} is [given|recorded|celebrated] as <SP> founding year."])),
        ("founder", rng.choice([
            f"<SP> founder was {f.name}.", f"{f.name} set up <S> with family money.",
            f"<S> was [founded|started|set up] by the {f.occupation} {f.name}.",
            f"{f.name}, a {f.occupation}, [founded|started] <S> [after returning from abroad|with two partners|with a small loan|as a cooperative].",
            f"<S> owes its existence to {f.name}.",
            f"{f.name} [dreamed up|launched|created] the {kl} [with help from <PERSON>|on borrowed money|almost by accident]."])),
        ("staff", rng.choice([
            f"<S> [employs|has] about {o.staff:,} [people|staff|employees].",
            f"[Some|About|Roughly] {o.staff:,} people work [there|for the {n}].",
            f"<SP> [staff|workforce] numbers [about|around|some] {o.staff:,}.",
            f"[Today|At present|Nowadays] <S> [employs|keeps on] [about|around|some] {o.staff:,} [staff|people|workers].",
            f"[About|Some|Around] {o.staff:,} [employees|people] [are on <SP> payroll|work for the {n}]."])),
    ]
    decade = rng.randint(min(max(o.founded, 1900), 2010) // 10, 201) * 10
    extra = [
        ("emblem", f"<SP> [emblem|logo|crest] shows {rng.choice(EMBLEMS)}."),
        ("history", f"[In|During] the {decade}s <S> [expanded into|moved into|experimented with] <INDUSTRY>."),
        ("archive", "<SP> archive [holds|keeps|preserves] [letters|ledgers|photographs|drawings] from [the early years|its first decades|the founder's time]."),
        ("leader", f"Since {_years(rng, o.founded + 5, 2023)} <S> has been [led|directed|run] by <PERSON>."),
        ("motto", f"<SP> motto is \"{rng.choice(V.MOTTO_WORDS)} and {rng.choice(V.MOTTO_WORDS)}\"."),
        ("branch", "<S> [owns|runs|has] a [branch|workshop|warehouse|small office] in <PLACE>[ and another in <PLACE>|]."),
        ("directors", "<SP> [directors|chairs|managers|presidents] [included|were|have been] <PEOPLE>."),
        ("offices", "<S> [has|keeps|runs|maintains] [offices|branches|depots|agencies] in <PLACES>."),
        ("clients", "[Its|Notable] [clients|customers|partners|patrons] [include|have included|were] <PEOPLE>."),
    ]
    events = [_event(rng, _org_vp, o.founded + 1, 2024) for _ in range(rng.randint(1, 3))] if o.founded < 2023 else []
    p = Paragraph(o.name)
    _fill(p, rng, ("hq", intro), rest, extra, (0, 2), local=local, events=events,
          keep={"founded": 0.75, "founder": 0.85, "staff": 0.65})
    return p


# ------------------------------------------------------------------ other articles (distractor passages)
# Mountains, ships, newspapers, festivals, animal species, dishes, clubs and buildings: no question is asked
# about them, but they sit among the distractor passages as they would in an encyclopedia.
OTHER_FACTS = [
    "<S> [appears|is mentioned|features] in [the novel|a poem|a song|a painting|a travel guide] \"<TITLE>\" by <PERSON>.",
    "[Postcards|Old photographs|Drawings|Maps] of <S> [are kept|survive] in the <STORE>.",
    "<S> [was|has been] [studied|surveyed|described|measured] by <PEOPLE>.",
    "[In {y1}|On {d1}] <S> was [visited|inspected|praised] by <PERSON>[, a <OCCUPATION> from <PLACE>|].",
    "The <PAPER> [called <S>|described <S> as] \"<ADJ> and <ADJ>\"[ in {y1}|].",
]


def _other_fill(rng: random.Random, title: str, intro: str, facts: list[str], local: dict, k: tuple[int, int]) -> Paragraph:
    p = Paragraph(title)
    p.add("intro", alt(intro, rng, local))
    y1 = rng.randint(1850, 2022)
    facts = facts + [f.format(y1=y1, d1=date(rng, y1)) for f in rng.sample(OTHER_FACTS, 2)]
    for i, f in enumerate(rng.sample(facts, k=min(len(facts), rng.randint(*k)))):
        p.add(f"fact{i}", alt(f, rng, local))
    return p


def _mountain(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    name = V.unique(rng, lambda r: f"Mount {V.surname(r)}" if r.random() < 0.5 else f"{V.place_name(r)} {r.choice(['Peak', 'Crag', 'Fell', 'Horn', 'Dome', 'Pike'])}", taken)
    h, y = rng.randint(600, 4800), rng.randint(1780, 1990)
    local = {"S": [name, name, "the peak", "it", "the mountain"], "SP": [f"{name}'s", "its", "the peak's"]}
    intro = rng.choice([f"{name} is a {h:,}-metre [peak|mountain|summit] in the <HILLS> of {c.country}.",
                        f"{name} ({h:,} m) [rises|stands|towers] above {c.name} in {c.country}.",
                        f"[At|With a height of] {h:,} metres, {name} is the [highest|second-highest|best-known] summit of the <HILLS>."])
    facts = [f"<S> was first climbed on {date(rng, y)} by <PEOPLE>.",
             f"[Its|The] [north|south|east|west] face [was|remained] unclimbed until {y + rng.randint(5, 40)}.",
             f"The [usual|normal|easiest] route [starts|begins] at <PLACE> and takes [about|some] {rng.randint(4, 14)} hours.",
             "<SP> slopes are [covered with|known for] <TERRAIN>[ and <NATURE>|].",
             f"[A hut|A refuge|A chapel] [named after|built by] <PERSON> [stands|sits] at {rng.randint(300, h - 100):,} metres.",
             "[The|Its] [glacier|snowfield|cirque], the <SURNAME> [Glacier|Cirque|Snowfield], [feeds|drains into] <LAKE>.",
             "[Climbers|Hikers|Skiers] [call|know] <S> \"the <ADJ> <NOUN_ANY>\"."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _ship(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    name = V.unique(rng, lambda r: f"{r.choice(['SS', 'MV', 'HMS', 'RV', 'SV'])} {r.choice([V.surname(r), V.place_name(r), r.choice(V.FIRST_NAMES)])}", taken)
    y, length = rng.randint(1840, 2000), rng.randint(30, 280)
    kind = rng.choice(["steamship", "sailing ship", "cargo ship", "ferry", "research vessel", "schooner", "liner",
                       "icebreaker", "paddle steamer", "lightship", "fishing trawler", "training ship"])
    local = {"S": [name, name, f"the {kind}", "she"], "SP": [f"{name}'s", "her", f"the {kind}'s"]}
    intro = rng.choice([f"{name} was a {kind} launched at {c.name} on {date(rng, y)}.",
                        f"{name} is a {length}-metre {kind} built in {y} for the <SURNAME> <ORGKIND>.",
                        f"The {kind} {name} ({y}) [sailed|worked|served] out of {c.name} for [many|some|nearly {rng.randint(10, 60)}] years."])
    facts = ["<S> was designed by <PERSON> and built by the <PLACE> <ORGKIND>.",
             "<S> [carried|transported] <GOODS> [between|from] <PLACE> [and|to] <PLACE>.",
             f"<S> [ran aground|was damaged in a storm|caught fire|collided with a tug] off <PLACE> in {y + rng.randint(1, 40)}.",
             "<SP> [captains|masters] [included|were] <PEOPLE>.",
             f"<S> was [sold|renamed|broken up|sunk as a reef] in {y + rng.randint(10, 70)}.",
             f"<S> [was|is] {length} metres long and [carried|had room for] {rng.randint(8, 1200)} [passengers|crew|people].",
             "A model of <S> [stands|is kept] in the <STORE>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _newspaper(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    name = V.unique(rng, lambda r: f"{c.name} {r.choice(V.PAPER_KINDS)}" if r.random() < 0.6 else f"The {r.choice(V.TITLE_ADJ)} {r.choice(V.PAPER_KINDS)}", taken)
    y = rng.randint(max(1750, c.founded), 2005)
    local = {"S": [f"the {name}" if not name.startswith("The") else name, "it", "the paper"], "SP": ["its", "the paper's"]}
    intro = rng.choice([f"The {name} is a [daily|weekly|evening] newspaper published in {c.name} since {y}.".replace("The The", "The"),
                        f"{name if name.startswith('The') else 'The ' + name} was [founded|first printed] in {c.name} on {date(rng, y)}.",
                        f"Founded in {y} by <PERSON>, the {name} is [the oldest|a long-running|a small] newspaper in {c.country}.".replace("the The", "The")])
    facts = ["<SP> [editors|publishers] have included <PEOPLE>.",
             f"<S> [sells|printed|prints] about {rng.randint(2, 300) * 1000:,} copies [a day|a week|an issue].",
             f"<S> [moved|relocated] to offices on <STREET> in {y + rng.randint(5, 80)}.",
             f"<S> [broke|ran] the story of <TOPIC> in {y + rng.randint(1, 100)}.",
             "<S> was [banned|suspended|closed] [for <N2> months|twice|briefly] [during a border war|by the governor <PERSON>|after a libel case].",
             "<SP> [columnists|contributors|cartoonists] [included|have included] <PEOPLE>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _festival(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    kind = rng.choice(V.FESTIVALS)
    name = V.unique(rng, lambda r: f"{c.name} {kind.title()} Festival", taken)
    y = rng.randint(max(1850, c.founded), 2015)
    local = {"S": [f"the {name}", "the festival", "it"], "SP": ["its", "the festival's"]}
    intro = rng.choice([f"The {name} is an annual {kind} festival held in {c.name} every <MONTH>.",
                        f"The {name}, first held in {y}, [fills|takes over] <STREET> each <MONTH>.",
                        f"Every <MONTH> since {y}, {c.name} [has hosted|hosts] the {name}."])
    facts = ["<S> was [started|founded|dreamed up] by <PERSON>[ and <PERSON>|].",
             f"<S> [draws|attracts] about {rng.randint(2, 400) * 1000:,} visitors.",
             "[Past guests|Performers|Prize-winners] have included <PEOPLE>.",
             "<SP> [emblem|mascot|symbol] is a <ADJ> <ANIMALSING>.",
             f"<S> was [cancelled|moved to <PLACE>|cut short] in {y + rng.randint(1, 40)} [because of a flood|after a storm|for lack of money].",
             "[The highlight|The closing night|The opening parade] [features|includes] <THINGS> and <FOOD>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _species(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    name = V.unique(rng, lambda r: f"{r.choice(V.CREATURE_A)} {r.choice(V.CREATURE_B).lower()}", taken)
    latin = f"{rng.choice(['Felis', 'Ardea', 'Lutra', 'Salmo', 'Rana', 'Vulpes', 'Picus', 'Sorex', 'Cervus', 'Anas', 'Corvus', 'Lacerta'])} {V.place_name(rng).lower()}ensis"
    local = {"S": [f"the {name}", "it", "the species", f"the {name}"], "SP": ["its", "the species'"]}
    diet = rng.choice(list(V.DIETS))
    intro = rng.choice([f"The {name} ({latin}) is a small {diet} [found in|living in|native to] the <TERRAIN> of {c.country}.",
                        f"The {name} is a [rare|common|shy|noisy] {diet} first described by <PERSON> in {rng.randint(1760, 1990)}."])
    food = " and ".join(rng.sample(V.DIETS[diet], 2))
    facts = [f"<S> [feeds|lives] [mainly|mostly] on {food}.",
             f"Adults [reach|grow to] about {rng.randint(2, 90)} cm and [live|survive] up to {rng.randint(2, 30)} years.",
             f"<S> [nests|breeds|hibernates] in <TERRAIN> [near|around] {c.name}.",
             f"[Its numbers|The population] [fell|rose|halved|doubled] after {rng.randint(1900, 2015)}[ because of <INDUSTRY>|].",
             "[Local|Village|Old] [songs|stories|proverbs] in <PLACE> [call it|know it as] \"the <ADJ> <NOUN_ANY>\".",
             "A [colony|population|pair] [lives|was found] in the grounds of the <STORE>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _dish(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    base = rng.choice(V.DISHES + ["pie", "soup", "bread", "cake", "sausage", "dumpling", "pudding", "flatbread", "stew",
                                  "tart", "broth", "pastry", "salad", "roast", "casserole"])
    name = V.unique(rng, lambda r: f"{c.name} {base}" if r.random() < 0.5 else f"{V.surname(r)} {base}", taken)
    local = {"S": [name, "the dish", "it"], "SP": ["its", "the dish's"]}
    intro = rng.choice([f"{name} is a [traditional|regional|festive|simple] dish from {c.name} in {c.country}.",
                        f"{name} is a {c.country} [speciality|favourite|street food] [named after|first made in] {c.name}."])
    facts = ["<S> is made with <INGR>, <INGR> and <INGR>.",
             f"[Legend|Local lore|A story] [says|has it that] <PERSON> [invented|first cooked|sold] it at the <OCCASION> of {rng.randint(1700, 1990)}.",
             "<S> is [usually|traditionally|often] [served|eaten] with <FOOD> [at|during] the <OCCASION>.",
             "The [best-known|oldest|most famous] [version|recipe] comes from a <CRAFTPLACE> on <STREET>.",
             "[A contest|A festival|A fair] for <S> [is held|takes place] in <PLACE> every <MONTH>."]
    return _other_fill(rng, name, intro, facts, local, (2, 4))


def _club(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    sport = rng.choice(V.SPORTS_LOCAL)
    name = V.unique(rng, lambda r: f"{c.name} {r.choice(V.CLUB_SUFFIX)}" if r.random() < 0.5 else f"{V.place_name(r)} {r.choice(V.CLUB_SUFFIX)}", taken)
    y = rng.randint(1860, 2005)
    local = {"S": [name, "the club", "it"], "SP": ["its", "the club's"]}
    intro = rng.choice([f"{name} is a {sport} club based in {c.name}, founded in {y}.",
                        f"{name} ({y}) is a {sport} club that [plays|competes] at <SURNAME> Park in {c.name}."])
    facts = ["<SP> [colours|kit colours] are <COLOUR> and <COLOUR>.",
             f"<S> won the national [cup|league|title] in {min(2024, y + rng.randint(5, 60))}.",
             "[Famous|Notable|Former] players include <PEOPLE>.",
             "<SP> [nickname|supporters' name for it] is \"the <ADJ> <NOUN_ANY>\".",
             f"<SP> [rivals|great rivals] are <PLACE> {rng.choice(V.CLUB_SUFFIX)}.",
             f"[Crowds of|Up to] {rng.randint(1, 60) * 500:,} [fans|spectators] [watch|attend] <SP> home games."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


OTHER_KINDS = (_mountain, _ship, _newspaper, _festival, _species, _dish, _club)


def _lake(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    name = V.unique(rng, lambda r: f"Lake {V.place_name(r)}" if r.random() < 0.6 else f"{V.place_name(r)} {r.choice(['Mere', 'Water', 'Loch', 'Pool', 'Tarn', 'Reservoir'])}", taken)
    area, depth = round(rng.uniform(0.4, 90.0), 1), rng.randint(4, 320)
    local = {"S": [name, name, "the lake", "it"], "SP": ["its", "the lake's"]}
    intro = rng.choice([f"{name} is a [glacial|shallow|deep|reed-fringed|mountain|man-made] lake [near|north of|south of|east of|west of] {c.name} in {c.country}.",
                        f"{name} ({area} km²) lies [in|among] the <HILLS>, [about|some] {rng.randint(3, 60)} km from {c.name}.",
                        f"Covering {area} km², {name} is the [largest|deepest|coldest|best-known] lake of the {c.region} of {c.country}."])
    facts = [f"<S> [reaches|has] a [maximum|greatest] depth of {depth} m.",
             "<S> is fed by the <PLACE> [Brook|Beck|Stream] and [drains|empties] into the <PLACE> [River|Water].",
             "<SP> [shores|banks] are [lined with|known for] <TERRAIN>[ and <NATURE>|].",
             f"[A ferry|A steamer|A rowing club] has [crossed|used|worked] <S> since {rng.randint(1850, 2010)}.",
             f"<S> [froze over|flooded the valley|dried out] in {rng.randint(1700, 2020)}[, according to <PERSON>|].",
             "[Villages|Hamlets|Resorts] on <SP> shore include <PLACES>.",
             "[Legend|Local lore] [says|holds] that a <ADJ> <ANIMALSING> lives in <S>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _island(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    name = V.unique(rng, lambda r: f"{V.place_name(r)} Island" if r.random() < 0.5 else f"{r.choice(['Isle of', 'Holm of'])} {V.place_name(r)}", taken)
    area, pop = round(rng.uniform(0.2, 60.0), 1), rng.randint(0, 4000)
    local = {"S": [name, name, "the island", "it"], "SP": ["its", "the island's"]}
    intro = rng.choice([f"{name} is a [small|rocky|low|wooded|windswept] island off the coast [near|of] {c.name}, {c.country}.",
                        f"{name} ({area} km²) is an island in {c.country}[ with {pop:,} inhabitants| that has been uninhabited since {rng.randint(1850, 1990)}]."])
    facts = ["<S> is reached by [a ferry|a causeway|a mail boat|a footbridge] from <PLACE>.",
             f"<SP> [lighthouse|chapel|harbour wall] was [built|rebuilt] in {rng.randint(1700, 1990)} by <PERSON>.",
             "<S> is [famous|known] for <NATURE>[ and <THINGS>|].",
             f"[Shipwrecks|Wrecks] off <S> include the <SURNAME> ({rng.randint(1800, 1990)}) and the <PLACE> ({rng.randint(1800, 1990)}).",
             f"[Its|The] [last|only] [school|shop|pub] [closed|opened] in {rng.randint(1900, 2020)}.",
             "<PEOPLE> [lived|were born] on <S>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _railway(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    other = V.place_name(rng)
    name = V.unique(rng, lambda r: f"{c.name}–{other} Railway" if r.random() < 0.5 else f"{V.surname(r)} Line", taken)
    y, km = rng.randint(1835, 1960), rng.randint(8, 260)
    local = {"S": [f"the {name}", "the line", "it"], "SP": ["its", "the line's"]}
    intro = rng.choice([f"The {name} is a {km} km railway between {c.name} and {other} in {c.country}.",
                        f"The {name}, opened on {date(rng, y)}, links {c.name} with {other}.",
                        f"Built between {y} and {y + rng.randint(1, 9)}, the {name} [runs|climbs|winds] from {c.name} to {other}."])
    facts = ["<S> was [engineered|surveyed|built] by <PERSON>[ for the <SURNAME> <ORGKIND>|].",
             "<SP> stations include <PLACES>.",
             f"<S> [crosses|passes] the <SURNAME> Viaduct and [a|the] {rng.randint(200, 3000)} m <PLACE> Tunnel.",
             f"[Passenger services|Goods trains|Steam trains] [stopped|ended|were withdrawn] in {rng.randint(max(y + 10, 1900), 2020)}.",
             "<S> [carried|mainly carried] <GOODS> and <GOODS> [to the coast|to <PLACE>|from the <HILLS>].",
             f"[A heritage group|Volunteers|The <PLACE> Railway Society] [reopened|restored|runs] part of <S>[ in {rng.randint(1970, 2020)}|]."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


def _abbey(rng: random.Random, c: City, taken: set[str]) -> Paragraph:
    kind = rng.choice(["Abbey", "Priory", "Cathedral", "Chapel", "Castle", "Manor", "Tower", "Palace", "Hall", "Mill"])
    name = V.unique(rng, lambda r: f"{V.place_name(r)} {kind}" if r.random() < 0.6 else f"{V.surname(r)} {kind}", taken)
    y = rng.randint(1100, 1900)
    local = {"S": [name, name, f"the {kind.lower()}", "it"], "SP": ["its", f"the {kind.lower()}'s"]}
    intro = rng.choice([f"{name} is a [ruined|restored|medieval|baroque|half-timbered] {kind.lower()} [near|outside|in] {c.name}, {c.country}.",
                        f"{name} was built in {y} [for|by] <PERSON>[ on the site of an older <BUILDING>|].",
                        f"[Standing|Set] [above|beside|below] {c.name}, {name} dates from {y}."])
    facts = [f"<S> was [designed|rebuilt|extended] by <PERSON> in {y + rng.randint(10, 200)}.",
             "<SP> [walls|towers|windows] are [of|made of] <MATERIAL>[ and <MATERIAL>|].",
             f"<S> [was damaged|burned|was looted|was flooded] in {y + rng.randint(20, 300)}[ during a war with <COUNTRY>|].",
             "[Owners|Residents|Abbots] of <S> [included|were] <PEOPLE>.",
             "<S> [now houses|is now|today holds] [a museum of <THINGS>|a school|a hotel|the <STORE>|a concert hall].",
             "[A tunnel|A legend|A ghost story] [links|connects] <S> [with|to] <PLACE>."]
    return _other_fill(rng, name, intro, facts, local, (3, 5))


OTHER_KINDS = OTHER_KINDS + (_lake, _island, _railway, _abbey)




# ------------------------------------------------------------------ the wiki
def build_wiki(rng: random.Random, n_people: int, paragraphs: bool = True) -> Wiki:
    """Entities and relations for n_people people (cities, works, organizations in proportion); with
    `paragraphs`, every entity's article plus as many other articles (mountains, ships, ...) as people."""
    taken: set[str] = set(V.COUNTRY_NAMES)
    n_cities = max(12, n_people // 4)
    cities = []
    for _ in range(n_cities):
        name = V.unique(rng, V.place_name, taken)
        river = V.unique(rng, lambda r: f"{r.choice(V.RIVERS_A + [V.place_name(r)])} {r.choice(V.RIVERS_B)}", taken)
        c = City(name, rng.choice(V.COUNTRY_NAMES), rng.randint(900, 1900),
                 rng.randint(20, 900) * 1000 + rng.randint(0, 999), river, rng.choice(V.LANDMARKS), rng.randint(14, 42))
        c.region, c.kind, c.adj = rng.choice(V.REGIONS), rng.choice(V.CITY_KINDS), rng.choice(V.CITY_ADJ)
        c.industries = tuple(rng.sample(V.INDUSTRIES, 2))
        c.food, c.festival, c.terrain = rng.choice(V.LOCAL_FOODS), rng.choice(V.FESTIVALS), rng.choice(V.TERRAIN)
        cities.append(c)
    for c in cities:
        if rng.random() < 0.5:
            c.twin = rng.choice([o for o in rng.sample(cities, 3) if o is not c] or [cities[0] if c is not cities[0] else cities[1]])
    universities = [f"{V.unique(rng, V.place_name, taken)} {rng.choice(V.UNIVERSITY_SUFFIX)}"
                    for _ in range(max(6, n_cities // 3))]
    people = []
    for _ in range(n_people):
        born = rng.randint(1820, 1990)
        died = born + rng.randint(35, 95) if born < 1950 or rng.random() < 0.2 else None
        died = died if died is not None and died <= 2024 else None
        city = rng.choice(cities)
        langs = [language_of(city.country)]
        langs.append(rng.choice([lang for lang in V.LANGUAGES if lang != langs[0]]))
        name = V.unique(rng, V.person_name, taken)
        x = Person(name, V.is_female(name.split()[0], rng), born, died, city, rng.choice(V.OCCUPATIONS), langs,
                   rng.choice(universities))
        if rng.random() < 0.4:
            x.award = (V.award_name(rng), min(born + rng.randint(25, 60), died or 2024))
        people.append(x)
    by_birth = sorted(people, key=lambda p: p.born)
    births = [p.born for p in by_birth]
    for x in people:
        if rng.random() < 0.4:
            lo, hi = bisect.bisect_left(births, x.born - 50), bisect.bisect_right(births, x.born - 15)
            if hi > lo:
                x.mentor = by_birth[rng.randrange(lo, hi)]
    works = []
    for person in rng.sample(people, k=len(people) * 2 // 3):
        year = min(person.born + rng.randint(22, 60), person.died or 2024)
        w = Work(V.unique(rng, V.title_name, taken), V.FIELDS_OF_WORK[person.occupation], year, person,
                 rng.choice(person.languages), rng.randint(9, 90) * 10)
        if rng.random() < 0.6:
            w.premiere = rng.choice(cities)
        person.work = w
        works.append(w)
    orgs = []
    for founder in rng.sample(people, k=max(8, len(people) // 3)):
        kind = rng.choice(V.ORG_KIND)
        stem = rng.choice([founder.last, V.place_name(rng), rng.choice(V.TITLE_ADJ), rng.choice(V.RIVERS_A)])
        name = V.unique(rng, lambda r, s=stem, k=kind: f"{s} {k}", taken)
        year = min(founder.born + rng.randint(25, 55), 2024)
        staff = rng.randint(1, 60) * rng.choice([1, 10, 100]) + rng.randint(0, 9)
        orgs.append(Org(name, kind, year, founder, rng.choice(cities), rng.choice(V.INDUSTRIES), staff))
    for x in people:
        if rng.random() < 0.35:
            last = x.died or 2024
            fits = [o for o in rng.sample(orgs, min(6, len(orgs))) if o.founder is not x and o.founded <= last - 10]
            if fits:
                x.employer = fits[0]
    wiki = Wiki(cities, people, works, orgs)
    if not paragraphs:
        return wiki
    for c in cities:
        c.para = _city_paragraph(rng, c)
    for x in people:
        x.para = _person_paragraph(rng, x)
    for w in works:
        w.para = _work_paragraph(rng, w)
    for o in orgs:
        o.para = _org_paragraph(rng, o)
    wiki.others = [rng.choice(OTHER_KINDS)(rng, rng.choice(cities), taken) for _ in range(n_people)]
    return wiki
