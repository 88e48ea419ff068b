"""Sea Salt & Paper cards and hand scoring, as TAG defines them (docs/RULES.md 2.4; TAG's `SeaSaltPaperParameters`,
`HandManager`).

A card is an int "kind" indexing KINDS (colour, suite, type); identical cards share a kind, so the 58-card
deck is a multiset of kinds. Bonuses are TAG's defaults.
"""

from __future__ import annotations

from collections import Counter

DUO, COLLECTOR, MULTIPLIER, MERMAID = "DUO", "COLLECTOR", "MULTIPLIER", "MERMAID"

# (suite, type, colours of its copies), in TAG's `cardsInit` order.
DECK_SPEC = (
    ("CRAB", DUO, ("LIGHT_BLUE", "LIGHT_BLUE", "BLUE", "BLUE", "YELLOW", "YELLOW", "GREEN", "GREY", "BLACK")),
    ("BOAT", DUO, ("LIGHT_BLUE", "LIGHT_BLUE", "BLUE", "BLUE", "YELLOW", "YELLOW", "BLACK", "BLACK")),
    ("FISH", DUO, ("BLUE", "BLUE", "BLACK", "BLACK", "YELLOW", "LIGHT_BLUE", "GREEN")),
    ("SHARK", DUO, ("LIGHT_BLUE", "BLUE", "BLACK", "GREEN", "PURPLE")),
    ("SWIMMER", DUO, ("LIGHT_BLUE", "LIGHT_BLUE", "BLUE", "YELLOW", "LIGHT_ORANGE")),
    ("SHELL", COLLECTOR, ("GREEN", "GREY", "LIGHT_BLUE", "BLUE", "BLACK", "YELLOW")),
    ("OCTOPUS", COLLECTOR, ("LIGHT_BLUE", "GREEN", "GREY", "PURPLE", "YELLOW")),
    ("PENGUIN", COLLECTOR, ("PINK", "LIGHT_ORANGE", "PURPLE")),
    ("SAILOR", COLLECTOR, ("ORANGE", "PINK")),
    ("BOAT", MULTIPLIER, ("PURPLE",)),
    ("FISH", MULTIPLIER, ("GREY",)),
    ("PENGUIN", MULTIPLIER, ("GREEN",)),
    ("SAILOR", MULTIPLIER, ("LIGHT_ORANGE",)),
    ("MERMAID", MERMAID, ("WHITE", "WHITE", "WHITE", "WHITE")),
)

COLLECTOR_BONUS = {"SHELL": (0, 2), "OCTOPUS": (0, 3), "PENGUIN": (1, 2), "SAILOR": (0, 5)}  # (base, increment)
MULTIPLIER_BONUS = {"BOAT": 1, "FISH": 1, "CRAB": 1, "PENGUIN": 2, "SAILOR": 3}  # per card of the suite
DUO_BONUS = {"CRAB": 1, "BOAT": 1, "FISH": 1, "SWIMMER": 1, "SHARK": 1}  # per pair
PAIR_SUITES = ("CRAB", "BOAT", "FISH")  # pairs of the same suite; SWIMMER pairs with SHARK

KINDS: list[tuple[str, str, str]] = []  # (colour, suite, type)
DECK: list[int] = []  # the 58 cards as kinds
for _suite, _type, _colours in DECK_SPEC:
    for _colour in _colours:
        if (_colour, _suite, _type) not in KINDS:
            KINDS.append((_colour, _suite, _type))
        DECK.append(KINDS.index((_colour, _suite, _type)))
DECK_COUNTS = Counter(DECK)

NAMES = [f"{colour} {suite} {ctype}" for colour, suite, ctype in KINDS]  # TAG's componentName
KIND_BY_NAME = {name: kind for kind, name in enumerate(NAMES)}
COLOUR = [colour for colour, _, _ in KINDS]
SUITE = [suite for _, suite, _ in KINDS]
TYPE = [ctype for _, _, ctype in KINDS]
IS_DUO = [ctype == DUO for ctype in TYPE]


def card_json(kind: int) -> dict:
    """The card as TAG's Gson writes a SeaSaltPaperCard."""
    colour, suite, ctype = KINDS[kind]
    return {"color": colour, "cardSuite": suite, "cardType": ctype, "type": "CARD", "properties": {},
            "componentName": NAMES[kind]}


SUITES = sorted({suite for suite in SUITE})
COLOURS = sorted({colour for colour in COLOUR})
SUITE_ID = [SUITES.index(s) for s in SUITE]
COLOUR_ID = [COLOURS.index(c) for c in COLOUR]
TYPE_ID = [(DUO, COLLECTOR, MULTIPLIER, MERMAID).index(t) for t in TYPE]  # 0 duo, 1 collector, 2 multiplier, 3 mermaid
COLLECTOR_IDS = [(SUITES.index(s), base, inc) for s, (base, inc) in COLLECTOR_BONUS.items()]
MULTIPLIER_BY_ID = [MULTIPLIER_BONUS.get(s, 0) for s in SUITES]
PAIR_IDS = [(SUITES.index(s), DUO_BONUS[s]) for s in PAIR_SUITES]
SWIMMER_ID, SHARK_ID, SWIMMER_SHARK_BONUS = SUITES.index("SWIMMER"), SUITES.index("SHARK"), DUO_BONUS["SWIMMER"]


def colour_counts(hand: list[int], played: list[int]) -> list[int]:
    """Cards per colour over hand and played duos (mermaids count as WHITE)."""
    counts = [0] * len(COLOURS)
    for kind in hand:
        counts[COLOUR_ID[kind]] += 1
    for kind in played:
        counts[COLOUR_ID[kind]] += 1
    return counts


def colour_bonus(hand: list[int], played: list[int], n_colours: int) -> int:
    """Sum of the `n_colours` largest colour counts over hand and played duos."""
    if n_colours <= 0:
        return 0
    return sum(sorted(colour_counts(hand, played), reverse=True)[:n_colours])


def pair_points(suite_counts: list[int]) -> int:
    """Points of the duo pairs among cards with these suite counts (same-suite pairs, swimmer with shark)."""
    points = min(suite_counts[SWIMMER_ID], suite_counts[SHARK_ID]) * SWIMMER_SHARK_BONUS
    for suite, bonus in PAIR_IDS:
        points += suite_counts[suite] // 2 * bonus
    return points


# Per-hand counts are kept per (suite, type) "slot": slot = suite id * N_TYPES + type id.
N_TYPES = 4
N_SLOTS = len(SUITES) * N_TYPES
SLOT = [SUITE_ID[kind] * N_TYPES + TYPE_ID[kind] for kind in range(len(KINDS))]
MERMAID_SLOT = SUITES.index(MERMAID) * N_TYPES + 3
SWIMMER_SLOT, SHARK_SLOT = SWIMMER_ID * N_TYPES, SHARK_ID * N_TYPES  # their duo cards
PAIR_SLOTS = [(suite * N_TYPES, bonus) for suite, bonus in PAIR_IDS]
COLLECTOR_SLOTS = [(suite * N_TYPES + 1, base, increment) for suite, base, increment in COLLECTOR_IDS]
MULTIPLIER_SLOTS = [(suite * N_TYPES + 2, suite, MULTIPLIER_BY_ID[suite]) for suite in range(len(SUITES))
                    if MULTIPLIER_BY_ID[suite] and suite * N_TYPES + 2 in SLOT]




def _slot_points(slot: int, count: int) -> int:
    """Points of `count` cards in `slot` from same-suite duo pairs and collectors (each slot scores alone)."""
    points = sum(count // 2 * bonus for pair_slot, bonus in PAIR_SLOTS if pair_slot == slot)
    return points + sum(base + increment * (count - 1) for collector_slot, base, increment in COLLECTOR_SLOTS
                        if collector_slot == slot and count)


# Per slot that scores alone, its points by card count: hand_points adds seven table entries instead of looping.
_MAX_SLOT = len(DECK)  # no slot holds more cards than the deck
(SLOT_1, POINTS_1), (SLOT_2, POINTS_2), (SLOT_3, POINTS_3), (SLOT_4, POINTS_4), (SLOT_5, POINTS_5), \
    (SLOT_6, POINTS_6), (SLOT_7, POINTS_7) = (
        (slot, tuple(_slot_points(slot, count) for count in range(_MAX_SLOT + 1)))
        for slot in sorted({slot for slot, _ in PAIR_SLOTS} | {slot for slot, _, _ in COLLECTOR_SLOTS}))


def slot_counts(hand: list[int]) -> list[int]:
    """Cards per (suite, type) slot of a hand."""
    counts = [0] * N_SLOTS
    for kind in hand:
        counts[SLOT[kind]] += 1
    return counts


def hand_points(hand: list[int], played: list[int], victory_threshold: int, counts: list[int] | None = None) -> int:
    """TAG's HandManager.calculatePoint: collectors, multipliers, mermaids, pairs in hand, played pairs.

    Multipliers count the suite's non-multiplier cards in hand plus those in the played-duo area.
    Four mermaids score exactly the victory threshold (TAG's stand-in for the instant win).
    `counts` is slot_counts(hand) when the caller has it already.
    """
    if counts is None:
        counts = slot_counts(hand)
    mermaids = counts[MERMAID_SLOT]
    if mermaids >= 4:
        return victory_threshold
    swimmers, sharks = counts[SWIMMER_SLOT], counts[SHARK_SLOT]
    score = ((swimmers if swimmers < sharks else sharks) * SWIMMER_SHARK_BONUS  # pairs in hand and collectors:
             + POINTS_1[counts[SLOT_1]] + POINTS_2[counts[SLOT_2]] + POINTS_3[counts[SLOT_3]]
             + POINTS_4[counts[SLOT_4]] + POINTS_5[counts[SLOT_5]] + POINTS_6[counts[SLOT_6]]
             + POINTS_7[counts[SLOT_7]])
    played_suites = None
    if played:  # no played duos score nothing
        played_suites = [0] * len(SUITES)
        for kind in played:
            played_suites[SUITE_ID[kind]] += 1
        score += pair_points(played_suites)
    for slot, suite, bonus in MULTIPLIER_SLOTS:
        if counts[slot]:  # each multiplier counts the suite's duo, collector and mermaid cards
            same_suite = counts[slot - 2] + counts[slot - 1] + counts[slot + 1]
            if played_suites is not None:
                same_suite += played_suites[suite]
            score += counts[slot] * bonus * same_suite
    if mermaids:
        colours = colour_counts(hand, played)
        score += max(colours) if mermaids == 1 else sum(sorted(colours, reverse=True)[:mermaids])
    return score


def kinds(*names: str) -> list[int]:
    """Cards by TAG name, e.g. kinds("BLUE CRAB DUO", "WHITE MERMAID MERMAID"); unknown names raise ValueError."""
    unknown = [n for n in names if n not in KIND_BY_NAME]
    if unknown:
        raise ValueError(f"sea_salt_paper: unknown card name(s) {unknown}")
    return [KIND_BY_NAME[n] for n in names]

