"""Dominion's State.json_changes: the to_json() values in which a state differs from a reference, found zone by zone
(a child differs from its decision's sample in a handful of cards and counters, so nothing else is walked)."""

from __future__ import annotations

from itertools import compress, count
from operator import ne

from engines.base import ABSENT, same_game, turn_changes

MAX_SEATS = 4
_ZONE_PLACES = {key: [(key, seat) for seat in range(MAX_SEATS)]  # a zone's location per seat (one tuple each)
                for key in ("playerHands", "playerDrawPiles", "playerDiscards", "playerTableaux", "revealedHandCards")}
_PENDING = ("pendingEffect",)
_PLACES: dict[tuple, list[tuple]] = {}  # a list's location -> the locations of its items (grown as lists grow)


def item_places(location: tuple, size: int) -> list[tuple]:
    """The locations of items 0..size-1 (at least) of the list at `location`, made once and shared."""
    places = _PLACES.get(location)
    if places is None:
        places = _PLACES[location] = []
    if len(places) < size:
        places.extend((*location, i) for i in range(len(places), size + 16))
    return places


def list_changes(location: tuple, old: list, new: list, found: list) -> None:
    """Append the item changes from list `old` to list `new` at `location`: the items that differ up to the shorter
    list's end, then those past it (ABSENT on the side that lacks them)."""
    n_old, n_new = len(old), len(new)
    places = _PLACES.get(location)
    if places is None or len(places) < n_old or len(places) < n_new:
        places = item_places(location, max(n_old, n_new))
    for i in compress(count(), map(ne, old, new)):
        found.append((places[i], old[i], new[i]))
    if n_old > n_new:
        found.extend([(places[i], old[i], ABSENT) for i in range(n_new, n_old)])
    elif n_new > n_old:
        found.extend([(places[i], ABSENT, new[i]) for i in range(n_old, n_new)])


def dominion_changes(state, reference) -> list[tuple] | None:
    """DominionState.json_changes: supply piles, card zones item by item, trash and defences, the turn fields, the
    pending effect (whole, or ABSENT where there is none) and the common fields. (Attributes are read one by one,
    not by a loop over names: this runs for every child a JSON-Bag OSLA values.)"""
    if type(reference) is not type(state) or not same_game(reference.game, state.game):
        return None
    found: list[tuple] = []
    old_supply, supply = reference.supply, state.supply
    if old_supply != supply:
        for card, number in supply.items():
            before = old_supply[card]
            if before != number:
                found.append((("cardsIncludedInGame", card), before, number))
    for key, old_zones, zones in (("playerHands", reference.hands, state.hands),
                                  ("playerDrawPiles", reference.draw_piles, state.draw_piles),
                                  ("playerDiscards", reference.discards, state.discards),
                                  ("playerTableaux", reference.tableaux, state.tableaux),
                                  ("revealedHandCards", reference.revealed, state.revealed)):
        if old_zones != zones:
            for seat, old, new in zip(count(), old_zones, zones):
                if old != new:
                    list_changes(_ZONE_PLACES[key][seat], old, new, found)
    if reference.trash != state.trash:
        list_changes(("trashPile",), reference.trash, state.trash, found)
    if reference.defence_status != state.defence_status:
        list_changes(("defenceStatus",), reference.defence_status, state.defence_status, found)
    if reference.phase != state.phase:
        found.append((("gamePhase",), reference.phase, state.phase))
    if reference.turn_player != state.turn_player:
        found.append((("turnPlayer",), reference.turn_player, state.turn_player))
    if reference.actions != state.actions:
        found.append((("actionsLeft",), reference.actions, state.actions))
    if reference.buys != state.buys:
        found.append((("buysLeft",), reference.buys, state.buys))
    if reference.spent != state.spent:
        found.append((("spentSoFar",), reference.spent, state.spent))
    if reference.additional_spend != state.additional_spend:
        found.append((("additionalSpend",), reference.additional_spend, state.additional_spend))
    if reference.merchants_played != state.merchants_played:
        found.append((("merchantsPlayed",), reference.merchants_played, state.merchants_played))
    if reference.round_counter != state.round_counter:
        found.append((("roundCounter",), reference.round_counter, state.round_counter))
    old_pending, pending = reference.pending, state.pending
    if old_pending != pending:
        found.append((_PENDING, ABSENT if old_pending is None else dict(old_pending),
                      ABSENT if pending is None else dict(pending)))
    turn_changes(reference.turn_counter, state.turn_counter, -1 if reference.terminal else reference.current_player,
                 -1 if state.terminal else state.current_player, reference, state, found)
    return found
