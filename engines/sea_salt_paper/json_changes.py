"""Sea Salt & Paper's State.json_changes: the to_json() values in which a state differs from a reference, found deck by
deck and card by card (a child differs from its decision's sample in a few cards and fields).

Cards and a hand's per-card visibility are listed as shared read-only documents that hash (JsonCard, JsonOwners):
equal to the dicts and lists to_json() writes, and usable as keys, so a value can remember what each change counts.
"""

from __future__ import annotations

from itertools import compress, count
from operator import ne

from engines.base import ABSENT, same_game, turn_changes
from engines.sea_salt_paper.cards import NAMES, card_json
from engines.sea_salt_paper.state_json import CRAB, DISCARD, MAX_SEATS, OVER, OWNERS


class JsonCard(dict):
    """A card's document (cards.card_json) that hashes by its kind; never changed."""

    __slots__ = ("_hash",)

    def __init__(self, kind: int):
        super().__init__(card_json(kind))
        self._hash = hash(("JsonCard", kind))

    def __hash__(self) -> int:
        return self._hash


class JsonOwners(list):
    """An elementVisibility item (which seats see a hand card) that hashes; never changed."""

    __slots__ = ("_hash",)

    def __init__(self, owners: tuple):
        super().__init__(owners)
        self._hash = hash(("JsonOwners", owners))

    def __hash__(self) -> int:
        return self._hash


CARDS = [JsonCard(kind) for kind in range(len(NAMES))]
OWNER_ITEMS = [[JsonOwners(owners) for owners in by_seat] for by_seat in OWNERS]  # [n][seat]
_PLACES: dict[tuple, list[tuple]] = {}  # a list's location -> the locations of its items (grown as lists grow)
_HANDS = [(("playerHands", seat, "components"), ("playerHands", seat, "elementVisibility"),
           ("playerHands", seat, "visibility")) for seat in range(MAX_SEATS)]
_AREAS = [("playerDiscards", seat, "components") for seat in range(MAX_SEATS)]
_PILES = (("discardPile1", "components"), ("discardPile2", "components"))
_DRAW = ("drawPile", "components")
_PROTECTED, _TOTALS = ("protectedHands",), ("playerTotalScores",)


def item_places(location: tuple, size: int) -> list[tuple]:
    """The locations of items 0..size-1 (at least) of the list at `location`, made once and shared."""
    places = _PLACES.get(location)
    if places is None:
        places = _PLACES[location] = []
    if len(places) < size:
        places.extend((*location, i) for i in range(len(places), size + 16))
    return places


def card_changes(location: tuple, old: list[int], new: list[int], found: list) -> None:
    """Append the changes of a deck's components from engine list `old` to `new` (the document lists them top card
    first, the engine top card last): the cards that differ up to the shorter end, then those past it (ABSENT on
    the side that lacks them)."""
    old, new = old[::-1], new[::-1]
    n_old, n_new = len(old), len(new)
    places, cards = _PLACES.get(location), CARDS
    if places is None or len(places) < n_old or len(places) < n_new:
        places = item_places(location, max(n_old, n_new))
    for i in compress(count(), map(ne, old, new)):
        found.append((places[i], cards[old[i]], cards[new[i]]))
    if n_old > n_new:
        found.extend([(places[i], cards[old[i]], ABSENT) for i in range(n_new, n_old)])
    elif n_new > n_old:
        found.extend([(places[i], ABSENT, cards[new[i]]) for i in range(n_old, n_new)])


def _item_changes(location: tuple, old: list, new: list, found: list) -> None:
    """Append the items in which two lists of one length differ."""
    places = item_places(location, len(new))
    for i in compress(count(), map(ne, old, new)):
        found.append((places[i], old[i], new[i]))


def _phase_field(state, phase: str, value):
    """A field the document holds in `phase` only: its value then, else ABSENT."""
    return value if state.phase == phase else ABSENT


def sea_salt_paper_changes(state, reference) -> list[tuple] | None:
    """SeaSaltPaperState.json_changes: every deck's cards item by item (a hand's visibility items and field too),
    the scalar and per-seat fields, the phase's own fields (ABSENT outside it) and the common fields."""
    if type(reference) is not type(state) or not same_game(reference.game, state.game):
        return None
    found: list[tuple] = []
    if reference.hands != state.hands or reference.protected != state.protected:
        owners = OWNER_ITEMS[state.n_players]
        for seat, old, new in zip(count(), reference.hands, state.hands):
            components, visibility, field = _HANDS[seat]
            if old != new:
                card_changes(components, old, new, found)
                n_old, n_new = len(old), len(new)
                if n_old != n_new:
                    places, owner = item_places(visibility, max(n_old, n_new)), owners[seat]
                    if n_old > n_new:
                        found.extend([(places[i], owner, ABSENT) for i in range(n_new, n_old)])
                    else:
                        found.extend([(places[i], ABSENT, owner) for i in range(n_old, n_new)])
            was, now = reference.protected[seat], state.protected[seat]
            if was != now:
                found.append((field, "VISIBLE_TO_ALL" if was else "MIXED_VISIBILITY",
                              "VISIBLE_TO_ALL" if now else "MIXED_VISIBILITY"))
    if reference.played != state.played:
        for seat, old, new in zip(count(), reference.played, state.played):
            if old != new:
                card_changes(_AREAS[seat], old, new, found)
    if reference.piles != state.piles:
        for location, old, new in zip(_PILES, reference.piles, state.piles):
            if old != new:
                card_changes(location, old, new, found)
    if reference.draw_pile != state.draw_pile:
        card_changes(_DRAW, reference.draw_pile, state.draw_pile, found)
    if reference.last_chance != state.last_chance:
        found.append((("lastChance",), reference.last_chance, state.last_chance))
    if reference.protected != state.protected:
        _item_changes(_PROTECTED, reference.protected, state.protected, found)
    if reference.totals != state.totals:
        _item_changes(_TOTALS, reference.totals, state.totals, found)
    if reference.round_counter != state.round_counter:
        found.append((("roundCounter",), reference.round_counter, state.round_counter))
    if reference.first_player != state.first_player:
        found.append((("firstPlayer",), reference.first_player, state.first_player))
    if reference.phase != state.phase:
        found.append((("turnPhase",), reference.phase, state.phase))
    for key, phase, attribute in (("pendingDrawn", DISCARD, "pending_drawn"),
                                  ("pendingDiscards", DISCARD, "pending_discards"), ("crabPile", CRAB, "crab_pile")):
        before = _phase_field(reference, phase, getattr(reference, attribute))
        after = _phase_field(state, phase, getattr(state, attribute))
        if before != after:
            found.append(((key,), before, after))
    turn_changes(reference.turn_counter, state.turn_counter, -1 if reference.phase == OVER else reference.player,
                 -1 if state.phase == OVER else state.player, reference, state, found)
    return found
