"""7 Wonders card, wonder and age-deck tables, as TAG's `games/wonders7/cards` defines them (our own tables).

TAG departures from the printed game that these tables keep: Colossus (day) stage 2 gives 5 shields;
Babylon produces Wood, Olympia and Giza produce Clay; Temple has no chain; Olympia's powers are
TAG's (see seven_wonders.py). Ludus, TreeFarm, ForestCave and Mine only appear with 5+ players.
"""

from __future__ import annotations

from dataclasses import dataclass

# TAG's Resource enum, in order; playerResources documents list every key in this order.
RESOURCES = (
    "Wood", "Stone", "Clay", "Ore", "BasicWild", "Wood_Clay", "Stone_Clay", "Ore_Clay", "Wood_Stone",
    "Wood_Ore", "Stone_Ore", "Glass", "Papyrus", "Textile", "RareWild", "Cog", "Compass", "Tablet",
    "ScienceWild", "Shield", "Victory", "Coin",
)
INDEX = {name: i for i, name in enumerate(RESOURCES)}

# The seven tradeable goods, in the order of payment vectors: 4 basic (brown) then 3 rare (grey).
GOODS = ("Wood", "Stone", "Clay", "Ore", "Glass", "Papyrus", "Textile")
BASIC_GOODS = frozenset(range(4))
# Producers of one unit of any good in a set; the first six can be bought by neighbours, wilds cannot.
CHOICE_PRODUCERS = (
    ("Wood_Clay", (0, 2)), ("Stone_Clay", (1, 2)), ("Ore_Clay", (3, 2)), ("Wood_Stone", (0, 1)),
    ("Wood_Ore", (0, 3)), ("Stone_Ore", (1, 3)), ("BasicWild", (0, 1, 2, 3)), ("RareWild", (4, 5, 6)),
)
TRADEABLE_CHOICES = 6

BUILDING_TYPES = (
    "RawMaterials", "ManufacturedGoods", "CivilianStructures", "ScientificStructures",
    "CommercialStructures", "MilitaryStructures", "Guilds",
)
RAW, MANUFACTURED, CIVILIAN, SCIENTIFIC, COMMERCIAL, MILITARY, GUILD = BUILDING_TYPES


@dataclass(frozen=True, slots=True)
class Effect:
    """Gain `multiplier` x (cards of type `counts` of self and/or neighbours) of `resource`.

    `function` replaces the card count: "stages" counts built wonder stages, "complete_wonder" gives
    `multiplier` once the wonder is finished (TAG writes these as a lambda, serialised as gainFunction {}).
    """

    resource: str
    multiplier: int
    self_: bool
    neighbours: bool
    counts: str | None = None
    function: str | None = None


@dataclass(frozen=True, slots=True)
class Card:
    """One card type: name, age, building type, costs, production, chain prerequisites and effects."""

    name: str
    age: int
    kind: str
    cost: tuple = ()  # ((resource, n), ...)
    produces: tuple = ()
    chains: tuple = ()  # names of cards that make this one free
    instant: tuple = ()
    end_game: tuple = ()


def _card(name, age, kind, cost=None, produces=None, chains=(), instant=(), end_game=()):
    return Card(name, age, kind, tuple((cost or {}).items()), tuple((produces or {}).items()),
                tuple(chains), tuple(instant), tuple(end_game))


def _vp_per(counts, multiplier, self_, neighbours):
    return Effect("Victory", multiplier, self_, neighbours, counts)


def _coin_per(counts, multiplier, self_, neighbours):
    return Effect("Coin", multiplier, self_, neighbours, counts)


_CARDS = [
    # Age I
    _card("LumberYard", 1, RAW, None, {"Wood": 1}),
    _card("StonePit", 1, RAW, None, {"Stone": 1}),
    _card("ClayPool", 1, RAW, None, {"Clay": 1}),
    _card("OreVein", 1, RAW, None, {"Ore": 1}),
    _card("TreeFarm", 1, RAW, {"Coin": 1}, {"Wood_Clay": 1}),
    _card("Excavation", 1, RAW, {"Coin": 1}, {"Stone_Clay": 1}),
    _card("ClayPit", 1, RAW, {"Coin": 1}, {"Ore_Clay": 1}),
    _card("TimberYard", 1, RAW, {"Coin": 1}, {"Wood_Stone": 1}),
    _card("ForestCave", 1, RAW, {"Coin": 1}, {"Wood_Ore": 1}),
    _card("Mine", 1, RAW, {"Coin": 1}, {"Stone_Ore": 1}),
    _card("Loom", 1, MANUFACTURED, None, {"Textile": 1}),
    _card("Glassworks", 1, MANUFACTURED, None, {"Glass": 1}),
    _card("Press", 1, MANUFACTURED, None, {"Papyrus": 1}),
    _card("Workshop", 1, SCIENTIFIC, {"Glass": 1}, {"Cog": 1}),
    _card("Scriptorium", 1, SCIENTIFIC, {"Papyrus": 1}, {"Tablet": 1}),
    _card("Apothecary", 1, SCIENTIFIC, {"Textile": 1}, {"Compass": 1}),
    _card("Baths", 1, CIVILIAN, None, {"Victory": 3}),
    _card("Altar", 1, CIVILIAN, None, {"Victory": 3}),
    _card("Theatre", 1, CIVILIAN, None, {"Victory": 3}),
    _card("Well", 1, CIVILIAN, None, {"Victory": 3}),
    _card("Tavern", 1, COMMERCIAL, None, {"Coin": 5}),
    _card("EastTradingPost", 1, COMMERCIAL),
    _card("WestTradingPost", 1, COMMERCIAL),
    _card("Marketplace", 1, COMMERCIAL),
    _card("Stockade", 1, MILITARY, None, {"Shield": 1}),
    _card("Barracks", 1, MILITARY, None, {"Shield": 1}),
    _card("GuardTower", 1, MILITARY, None, {"Shield": 1}),
    # Age II
    _card("Sawmill", 2, RAW, {"Coin": 1}, {"Wood": 2}),
    _card("Quarry", 2, RAW, {"Coin": 1}, {"Stone": 2}),
    _card("Brickyard", 2, RAW, {"Coin": 1}, {"Clay": 2}),
    _card("Foundry", 2, RAW, {"Coin": 1}, {"Ore": 2}),
    _card("LoomAge2", 2, MANUFACTURED, None, {"Textile": 1}),
    _card("GlassworksAge2", 2, MANUFACTURED, None, {"Glass": 1}),
    _card("PressAge2", 2, MANUFACTURED, None, {"Papyrus": 1}),
    _card("Dispensary", 2, SCIENTIFIC, {"Ore": 2, "Glass": 1}, {"Compass": 1}, ["Apothecary"]),
    _card("Laboratory", 2, SCIENTIFIC, {"Clay": 2, "Papyrus": 1}, {"Cog": 1}, ["Workshop"]),
    _card("Library", 2, SCIENTIFIC, {"Stone": 2, "Textile": 1}, {"Tablet": 1}, ["Scriptorium"]),
    _card("School", 2, SCIENTIFIC, {"Wood": 1, "Papyrus": 1}, {"Tablet": 1}),
    _card("Statue", 2, CIVILIAN, {"Ore": 2, "Wood": 1}, {"Victory": 4}, ["Well"]),
    _card("Aqueduct", 2, CIVILIAN, {"Stone": 3}, {"Victory": 5}, ["Baths"]),
    _card("Courthouse", 2, CIVILIAN, {"Clay": 2, "Textile": 1}, {"Victory": 4}, ["Scriptorium"]),
    _card("Temple", 2, CIVILIAN, {"Wood": 1, "Clay": 1, "Glass": 1}, {"Victory": 4}),
    _card("Caravansery", 2, COMMERCIAL, {"Wood": 2}, {"BasicWild": 1}, ["Marketplace"]),
    _card("Forum", 2, COMMERCIAL, {"Clay": 2}, {"RareWild": 1}, ["EastTradingPost", "WestTradingPost"]),
    _card("Vineyard", 2, COMMERCIAL, instant=[_coin_per(RAW, 1, True, True)]),
    _card("Bazaar", 2, COMMERCIAL, instant=[_coin_per(MANUFACTURED, 2, True, True)]),
    _card("Walls", 2, MILITARY, {"Stone": 3}, {"Shield": 2}),
    _card("TrainingGround", 2, MILITARY, {"Ore": 2, "Wood": 1}, {"Shield": 2}),
    _card("Stables", 2, MILITARY, {"Clay": 1, "Wood": 1, "Ore": 1}, {"Shield": 2}, ["Apothecary"]),
    _card("ArcheryRange", 2, MILITARY, {"Wood": 2, "Ore": 1}, {"Shield": 2}, ["Workshop"]),
    # Age III
    _card("Observatory", 3, SCIENTIFIC, {"Ore": 2, "Glass": 1, "Textile": 1}, {"Cog": 1}, ["Laboratory"]),
    _card("University", 3, SCIENTIFIC, {"Wood": 2, "Glass": 1, "Papyrus": 1}, {"Tablet": 1}, ["Library"]),
    _card("Academy", 3, SCIENTIFIC, {"Stone": 3, "Glass": 1}, {"Compass": 1}, ["School"]),
    _card("Study", 3, SCIENTIFIC, {"Wood": 1, "Papyrus": 1, "Textile": 1}, {"Cog": 1}, ["School"]),
    _card("Lodge", 3, SCIENTIFIC, {"Clay": 2, "Papyrus": 1, "Textile": 1}, {"Compass": 1}, ["Dispensary"]),
    _card("TownHall", 3, CIVILIAN, {"Stone": 2, "Ore": 1, "Glass": 1}, {"Victory": 6}),
    _card("Senate", 3, CIVILIAN, {"Wood": 2, "Stone": 1, "Ore": 1}, {"Victory": 6}, ["Library"]),
    _card("Pantheon", 3, CIVILIAN, {"Clay": 2, "Ore": 1, "Glass": 1, "Papyrus": 1, "Textile": 1},
          {"Victory": 7}, ["Altar"]),
    _card("Palace", 3, CIVILIAN, {g: 1 for g in GOODS}, {"Victory": 8}),
    _card("Gardens", 3, CIVILIAN, {"Clay": 2, "Wood": 1}, {"Victory": 5}, ["Theatre"]),
    _card("ChamberOfCommerce", 3, COMMERCIAL, {"Clay": 2, "Papyrus": 1},
          instant=[_coin_per(MANUFACTURED, 2, True, False)], end_game=[_vp_per(MANUFACTURED, 2, True, False)]),
    _card("Arena", 3, COMMERCIAL, {"Stone": 2, "Ore": 1}, chains=["Dispensary"],
          instant=[Effect("Coin", 3, True, False, function="stages")],
          end_game=[Effect("Victory", 1, True, False, function="stages")]),
    _card("Haven", 3, COMMERCIAL, {"Clay": 2}, chains=["Forum"],
          instant=[_coin_per(RAW, 1, True, False)], end_game=[_vp_per(RAW, 1, True, False)]),
    _card("Lighthouse", 3, COMMERCIAL, {"Glass": 1, "Stone": 1}, chains=["Caravansery"],
          instant=[_coin_per(COMMERCIAL, 1, True, False)], end_game=[_vp_per(COMMERCIAL, 1, True, False)]),
    _card("Ludus", 3, COMMERCIAL, {"Stone": 1, "Ore": 1},
          instant=[_coin_per(MILITARY, 3, True, False)], end_game=[_vp_per(MILITARY, 1, True, False)]),
    _card("SiegeWorkshop", 3, MILITARY, {"Clay": 3, "Wood": 1}, {"Shield": 3}, ["Laboratory"]),
    _card("Fortifications", 3, MILITARY, {"Ore": 3, "Clay": 1}, {"Shield": 3}, ["Walls"]),
    _card("Arsenal", 3, MILITARY, {"Wood": 2, "Ore": 1, "Textile": 1}, {"Shield": 3}),
    _card("Circus", 3, MILITARY, {"Stone": 3, "Ore": 1}, {"Shield": 3}, ["TrainingGround"]),
    _card("Castrum", 3, MILITARY, {"Clay": 2, "Wood": 1, "Papyrus": 1}, {"Shield": 3}),
    # Guilds (Age III; nPlayers + 2 of them, drawn at random)
    _card("WorkersGuild", 3, GUILD, {"Ore": 2, "Clay": 1, "Stone": 1, "Wood": 1},
          end_game=[_vp_per(RAW, 1, False, True)]),
    _card("CraftsmenGuild", 3, GUILD, {"Ore": 2, "Stone": 2}, end_game=[_vp_per(MANUFACTURED, 2, False, True)]),
    _card("TradersGuild", 3, GUILD, {"Ore": 2, "Clay": 1, "Glass": 1, "Papyrus": 1},
          end_game=[_vp_per(COMMERCIAL, 1, False, True)]),
    _card("PhilosophersGuild", 3, GUILD, {"Clay": 3, "Papyrus": 1, "Textile": 1},
          end_game=[_vp_per(SCIENTIFIC, 1, False, True)]),
    _card("SpiesGuild", 3, GUILD, {"Clay": 2, "Glass": 1}, end_game=[_vp_per(MILITARY, 1, False, True)]),
    _card("DecoratorsGuild", 3, GUILD, {"Ore": 2, "Stone": 2, "Glass": 2},
          end_game=[Effect("Victory", 7, True, False, function="complete_wonder")]),
    _card("ShipownersGuild", 3, GUILD, {"Wood": 3, "Glass": 1, "Papyrus": 1},
          end_game=[_vp_per(MANUFACTURED, 1, True, False), _vp_per(RAW, 1, True, False),
                    _vp_per(GUILD, 1, True, False)]),
    _card("BuildersGuild", 3, GUILD, {"Stone": 3, "Clay": 2, "Glass": 1},
          end_game=[Effect("Victory", 1, True, True, function="stages")]),
    _card("MagistratesGuild", 3, GUILD, {"Wood": 3, "Stone": 1, "Textile": 1},
          end_game=[_vp_per(CIVILIAN, 1, False, True)]),
    _card("ScientistsGuild", 3, GUILD, {"Wood": 2, "Ore": 2, "Papyrus": 1}, {"ScienceWild": 1}),
]
CARDS: dict[str, Card] = {card.name: card for card in _CARDS}
GUILDS = tuple(card.name for card in _CARDS if card.kind == GUILD)  # TAG's order of the guild pool

# Cards that count as the same structure for the no-duplicates rule (TAG: the age I and II goods).
SAME_STRUCTURE = {"Loom": "Loom", "LoomAge2": "Loom", "Glassworks": "Glassworks",
                  "GlassworksAge2": "Glassworks", "Press": "Press", "PressAge2": "Press"}

# Age decks: the 3-player list, then the cards each extra player adds (TAG createAgeDeck).
_AGE_DECKS = {
    1: [
        ["LumberYard", "StonePit", "ClayPool", "OreVein", "ClayPit", "TimberYard", "Press", "Loom", "Glassworks",
         "Baths", "Altar", "Theatre", "EastTradingPost", "WestTradingPost", "Marketplace", "Stockade", "Barracks",
         "GuardTower", "Apothecary", "Workshop", "Scriptorium"],
        ["LumberYard", "OreVein", "Excavation", "Well", "Tavern", "GuardTower", "Scriptorium"],
        ["StonePit", "ClayPool", "ForestCave", "Altar", "Tavern", "Barracks", "Apothecary"],
        ["TreeFarm", "Mine", "Press", "Loom", "Glassworks", "Theatre", "Marketplace"],
        ["Well", "Baths", "Tavern", "EastTradingPost", "WestTradingPost", "Stockade", "Workshop"],
    ],
    2: [
        ["Sawmill", "Quarry", "Foundry", "Brickyard", "LoomAge2", "GlassworksAge2", "PressAge2", "Aqueduct",
         "Temple", "Courthouse", "Statue", "Stables", "ArcheryRange", "Walls", "Library", "Laboratory",
         "Dispensary", "School", "Caravansery", "Forum", "Vineyard"],
        ["Sawmill", "Quarry", "Foundry", "Brickyard", "TrainingGround", "Dispensary", "Bazaar"],
        ["LoomAge2", "GlassworksAge2", "PressAge2", "Courthouse", "Stables", "Laboratory", "Caravansery"],
        ["Temple", "ArcheryRange", "TrainingGround", "Library", "Caravansery", "Forum", "Vineyard"],
        ["Statue", "Aqueduct", "Walls", "TrainingGround", "School", "Forum", "Bazaar"],
    ],
    3: [
        ["Gardens", "Senate", "TownHall", "Pantheon", "Palace", "University", "Lodge", "Study", "Academy",
         "Observatory", "SiegeWorkshop", "Arsenal", "Fortifications", "Arena", "Lighthouse", "Haven"],
        ["Gardens", "ChamberOfCommerce", "Haven", "Circus", "Castrum", "University"],
        ["Senate", "Ludus", "Arena", "SiegeWorkshop", "Arsenal", "Study"],
        ["TownHall", "Pantheon", "Lighthouse", "ChamberOfCommerce", "Circus", "Lodge"],
        ["Palace", "Castrum", "Fortifications", "University", "Observatory", "Ludus"],
    ],
}
MIN_PLAYERS, MAX_PLAYERS = 3, 7
CARDS_PER_HAND = 7


def age_deck(age: int, n_players: int) -> list[str]:
    """The non-guild cards of `age` for `n_players` (age III adds nPlayers + 2 random guilds on top)."""
    if age not in _AGE_DECKS or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise ValueError(f"seven_wonders: no age deck for age {age!r} with {n_players!r} players")
    deck = []
    for extra in _AGE_DECKS[age][: n_players - MIN_PLAYERS + 1]:
        deck.extend(extra)
    return deck


@dataclass(frozen=True, slots=True)
class Wonder:
    """A wonder board: its starting resource and, per side (day 0, night 1), stage costs and rewards."""

    name: str
    resource: str
    costs: tuple  # costs[side][stage] = ((resource, n), ...)
    rewards: tuple  # rewards[side][stage] = ((resource, n), ...)


def _wonder(name, resource, day_costs, day_rewards, night_costs, night_rewards):
    def pairs(stages):
        return tuple(tuple(stage.items()) for stage in stages)
    return Wonder(name, resource, (pairs(day_costs), pairs(night_costs)), (pairs(day_rewards), pairs(night_rewards)))


_WONDERS = [
    _wonder("TheColossusOfRhodes", "Ore",
            [{"Wood": 2}, {"Clay": 3}, {"Ore": 4}], [{"Victory": 3}, {"Shield": 5}, {"Victory": 7}],
            [{"Stone": 3}, {"Ore": 4}],
            [{"Shield": 1, "Coin": 3, "Victory": 3}, {"Shield": 1, "Coin": 4, "Victory": 4}]),
    _wonder("TheLighthouseOfAlexandria", "Glass",
            [{"Stone": 2}, {"Ore": 3}, {"Papyrus": 1, "Textile": 1}],
            [{"Victory": 3}, {"BasicWild": 1}, {"Victory": 7}],
            [{"Clay": 2}, {"Ore": 3}, {"Wood": 4}], [{"BasicWild": 1}, {"RareWild": 1}, {"Victory": 7}]),
    _wonder("TheTempleOfArtemisInEphesus", "Papyrus",
            [{"Clay": 2}, {"Wood": 2}, {"Ore": 2, "Glass": 1}], [{"Victory": 3}, {"Coin": 9}, {"Victory": 7}],
            [{"Stone": 2}, {"Wood": 2}, {"Ore": 2, "Textile": 1}],
            [{"Coin": 4, "Victory": 2}, {"Coin": 4, "Victory": 3}, {"Coin": 4, "Victory": 5}]),
    _wonder("TheHangingGardensOfBabylon", "Wood",
            [{"Clay": 2}, {"Ore": 2, "Textile": 1}, {"Wood": 4}], [{"Victory": 3}, {"ScienceWild": 1}, {"Victory": 7}],
            [{"Stone": 2}, {"Clay": 3, "Glass": 1}], [{}, {"ScienceWild": 1}]),
    _wonder("TheStatueOfZeusInOlympia", "Clay",
            [{"Stone": 2}, {"Wood": 2}, {"Clay": 3}], [{"Victory": 3}, {}, {"Victory": 7}],
            [{"Ore": 2}, {"Clay": 3}, {"Glass": 1, "Papyrus": 1, "Textile": 1}],
            [{"Victory": 2}, {"Victory": 3}, {"Victory": 5}]),
    _wonder("TheMausoleumOfHalicarnassus", "Textile",
            [{"Ore": 2}, {"Glass": 1, "Papyrus": 1}, {"Stone": 3}], [{"Victory": 3}, {}, {"Victory": 7}],
            [{"Clay": 2}, {"Glass": 1, "Papyrus": 1}, {"Wood": 3}], [{"Victory": 2}, {"Victory": 1}, {}]),
    _wonder("ThePyramidsOfGiza", "Clay",
            [{"Wood": 2}, {"Clay": 2, "Textile": 1}, {"Stone": 4}], [{"Victory": 3}, {"Victory": 5}, {"Victory": 7}],
            [{"Wood": 2}, {"Stone": 3}, {"Clay": 3}, {"Stone": 4, "Papyrus": 1}],
            [{"Victory": 3}, {"Victory": 5}, {"Victory": 5}, {"Victory": 7}]),
]
WONDERS: dict[str, Wonder] = {wonder.name: wonder for wonder in _WONDERS}
WONDER_ORDER = tuple(wonder.name for wonder in _WONDERS)  # TAG's default wonder list
COLOSSUS, ALEXANDRIA, EPHESUS, BABYLON, OLYMPIA, HALICARNASSUS, GIZA = WONDER_ORDER
