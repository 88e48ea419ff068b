"""Dominion's State.json_changes: the to_json() values in which a state differs from a reference, found zone by zone
(a child differs from its decision's sample in a handful of cards and counters, so nothing else is walked)."""

from __future__ import annotations

from itertools import compress
from operator import ne

from engines.base import ABSENT, same_game, turn_changes

MAX_SEATS = 4
_HANDS, _DRAW_PILES, _DISCARDS, _TABLEAUX, _REVEALED = (  # a zone's location per seat (one tuple each)
    [(key, seat) for seat in range(MAX_SEATS)]
    for key in ("playerHands", "playerDrawPiles", "playerDiscards", "playerTableaux", "revealedHandCards"))
_TRASH, _DEFENCES, _PENDING = ("trashPile",), ("defenceStatus",), ("pendingEffect",)


def zone_changes(places: list[tuple], old_zones: list[list], zones: list[list], found: list) -> None:
    """Append a change for each seat whose zone differs: the zone's location (`places`, by seat), both lists."""
    found += compress(zip(places, old_zones, zones), map(ne, old_zones, zones))


def dominion_changes(state, reference) -> list[tuple] | None:
    """DominionState.json_changes: supply piles, each card zone that differs as a whole list (the value counts it
    item by item: a re-dealt draw pile differs at every position, which one change lists at the cost of one), trash
    and defences likewise, the turn fields, the pending effect (whole, or ABSENT where there is none) and the common
    fields. The lists are the states' own, to be read at once, never kept. (Attributes are read one by one, not by a
    loop over names: this runs for every child a JSON-Bag OSLA values.)"""
    if type(reference) is not type(state) or not same_game(reference.game, state.game):
        return None
    found: list[tuple] = []
    old_supply, supply = reference.supply, state.supply
    if old_supply != supply:
        for card, number in supply.items():
            before = old_supply[card]
            if before != number:
                found.append((("cardsIncludedInGame", card), before, number))
    if reference.hands != state.hands:
        zone_changes(_HANDS, reference.hands, state.hands, found)
    if reference.draw_piles != state.draw_piles:
        zone_changes(_DRAW_PILES, reference.draw_piles, state.draw_piles, found)
    if reference.discards != state.discards:
        zone_changes(_DISCARDS, reference.discards, state.discards, found)
    if reference.tableaux != state.tableaux:
        zone_changes(_TABLEAUX, reference.tableaux, state.tableaux, found)
    if reference.revealed != state.revealed:
        zone_changes(_REVEALED, reference.revealed, state.revealed, found)
    if reference.trash != state.trash:
        found.append((_TRASH, reference.trash, state.trash))
    if reference.defence_status != state.defence_status:
        found.append((_DEFENCES, reference.defence_status, state.defence_status))
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
