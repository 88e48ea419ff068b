"""Dominion card data and the multi-step effects of the First Game kingdom (TAG games/dominion).

Effects that need decisions put a small JSON-ready dict in `state.pending`; while it is set, the legal
actions come from `effect_actions` and are resolved by `apply_effect_action`. A step with no possible
choice is skipped. The deciding seat can be another player (Militia victims).
"""

from __future__ import annotations

from typing import NamedTuple


class CardType(NamedTuple):
    """Static card data as TAG's cards/CardType.java: cost, money, VP and the +bonuses of an action."""

    cost: int
    treasure: int = 0
    victory_points: int = 0
    is_action: bool = False
    plus_actions: int = 0
    plus_cards: int = 0
    plus_buys: int = 0
    plus_money: int = 0


CARDS: dict[str, CardType] = {
    "PROVINCE": CardType(8, victory_points=6),
    "DUCHY": CardType(5, victory_points=3),
    "ESTATE": CardType(2, victory_points=1),
    "GOLD": CardType(6, treasure=3),
    "SILVER": CardType(3, treasure=2),
    "COPPER": CardType(0, treasure=1),
    "CELLAR": CardType(2, is_action=True, plus_actions=1),
    "MARKET": CardType(5, is_action=True, plus_actions=1, plus_cards=1, plus_buys=1, plus_money=1),
    "MERCHANT": CardType(3, is_action=True, plus_actions=1, plus_cards=1),
    "MILITIA": CardType(4, is_action=True, plus_money=2),
    "MINE": CardType(5, is_action=True),
    "MOAT": CardType(2, is_action=True, plus_cards=2),
    "REMODEL": CardType(4, is_action=True),
    "SMITHY": CardType(4, is_action=True, plus_cards=3),
    "VILLAGE": CardType(3, is_action=True, plus_actions=2, plus_cards=1),
    "WORKSHOP": CardType(3, is_action=True),
}
BASE_CARDS = ("PROVINCE", "DUCHY", "ESTATE", "GOLD", "SILVER", "COPPER")
FIRST_GAME_KINGDOM = ("CELLAR", "MARKET", "MERCHANT", "MILITIA", "MINE", "MOAT", "REMODEL", "SMITHY", "VILLAGE", "WORKSHOP")
CARD_ORDER = {name: i for i, name in enumerate(BASE_CARDS + FIRST_GAME_KINGDOM)}
# Supply cards as TAG offers them: most expensive first (ties in CARD_ORDER).
BY_COST_DESCENDING = tuple(sorted(CARD_ORDER, key=lambda c: (-CARDS[c].cost, CARD_ORDER[c])))
# Per budget (0..most expensive card), the supply cards it can pay for, most expensive first.
MAX_COST = max(data.cost for data in CARDS.values())
AFFORDABLE = tuple(tuple(c for c in BY_COST_DESCENDING if CARDS[c].cost <= budget) for budget in range(MAX_COST + 1))

PLAY, BUY = "Play", "Buy"  # turn phases
WORKSHOP_MAX_COST = 4
REMODEL_BONUS = 2
MINE_BONUS = 3
MILITIA_HAND_LIMIT = 3


def distinct_in_order(cards) -> list[str]:
    """The distinct card names of `cards` in canonical order (so choices never depend on hand order)."""
    return sorted(set(cards), key=CARD_ORDER.__getitem__)


def gain_options(state, max_cost: int, treasures_only: bool = False) -> list[str]:
    """Supply cards with count > 0 and cost <= max_cost, most expensive first."""
    supply = state.supply
    return [c for c in AFFORDABLE[min(max_cost, MAX_COST)]
            if supply.get(c, 0) > 0 and (not treasures_only or CARDS[c].treasure)]


def play_card(state, card: str) -> None:
    """The turn player plays action `card`: to the tableau, -1 action, the card's bonuses, then its effect."""
    seat = state.turn_player
    state.move_from_hand(seat, card, state.tableaux[seat])
    data = CARDS[card]
    state.actions += data.plus_actions - 1
    state.buys += data.plus_buys
    state.additional_spend += data.plus_money
    state.draw(seat, data.plus_cards)
    hand = state.hands[seat]
    if card == "CELLAR":
        state.pending = {"card": "CELLAR", "discarded": 0}
    elif card == "MERCHANT":
        state.merchants_played += 1
    elif card == "MILITIA":
        state.pending = {"card": "MILITIA", "target": seat, "stage": ""}
        _advance_militia(state, (seat + 1) % state.n_players)
    elif card == "REMODEL" and hand:
        state.pending = {"card": "REMODEL"}
    elif card == "MINE" and any(CARDS[c].treasure for c in hand):
        state.pending = {"card": "MINE"}
    elif card == "WORKSHOP" and gain_options(state, WORKSHOP_MAX_COST):
        state.pending = {"card": "WORKSHOP"}


def effect_actions(state) -> list:
    """Legal actions of the decision that `state.pending` is waiting for."""
    pending = state.pending
    card = pending["card"]
    hand = state.hands[state.current_player]
    if card == "CELLAR":
        return [("discard", c) for c in distinct_in_order(hand)] + ["done"]
    if card == "MILITIA":
        if pending["stage"] == "react":
            return ["reveal_moat", "done"]
        return [("discard", c) for c in distinct_in_order(hand)]
    if card == "WORKSHOP":
        return [("gain", c) for c in gain_options(state, WORKSHOP_MAX_COST)]
    trashed = pending.get("trashed")
    if card == "REMODEL":
        if not trashed:
            return [("trash", c) for c in distinct_in_order(hand)]
        return [("gain", c) for c in gain_options(state, CARDS[trashed].cost + REMODEL_BONUS)]
    if not trashed:  # MINE
        return [("trash", c) for c in distinct_in_order(c for c in hand if CARDS[c].treasure)]
    return [("gain", c) for c in gain_options(state, CARDS[trashed].cost + MINE_BONUS, treasures_only=True)]


def apply_effect_action(state, action) -> None:
    """Resolve one decision of the pending effect; `action` is already known to be legal."""
    pending = state.pending
    card = pending["card"]
    seat = state.current_player
    if card == "CELLAR":
        if action == "done":
            state.pending = None
            state.draw(seat, pending["discarded"])
        else:
            state.move_from_hand(seat, action[1], state.discards[seat])
            pending["discarded"] += 1
    elif card == "MILITIA":
        _apply_militia(state, action, seat)
    elif card == "WORKSHOP":
        state.pending = None
        state.gain(seat, action[1])
    elif action[0] == "trash":  # REMODEL or MINE
        trashed = action[1]
        state.move_from_hand(seat, trashed, state.trash)
        pending["trashed"] = trashed
        if not effect_actions(state):
            state.pending = None
    else:  # REMODEL or MINE gain
        state.pending = None
        state.gain(seat, action[1], to_hand=(card == "MINE"))


def _apply_militia(state, action, victim: int) -> None:
    pending = state.pending
    if action == "reveal_moat":
        state.defence_status[victim] = True
        if "MOAT" not in state.revealed[victim]:  # re-revealing shows no new card
            state.revealed[victim].append("MOAT")
        _advance_militia(state, (victim + 1) % state.n_players)
        return
    if action == "done":  # declined to reveal a Moat
        stage = _militia_stage(state, victim, reaction_offered=True)
        if stage:
            pending["stage"] = stage
        else:
            _advance_militia(state, (victim + 1) % state.n_players)
        return
    state.move_from_hand(victim, action[1], state.discards[victim])
    if len(state.hands[victim]) <= MILITIA_HAND_LIMIT:
        _advance_militia(state, (victim + 1) % state.n_players)


def _militia_stage(state, victim: int, reaction_offered: bool) -> str:
    """What `victim` must decide now: "react" (may reveal Moat), "discard", or "" (nothing)."""
    if state.defence_status[victim]:
        return ""
    hand = state.hands[victim]
    if not reaction_offered and "MOAT" in hand:
        return "react"
    return "discard" if len(hand) > MILITIA_HAND_LIMIT else ""


def _advance_militia(state, seat: int) -> None:
    """Point Militia at the next victim (in seat order from `seat`) with a decision, or finish it."""
    attacker = state.turn_player
    while seat != attacker:
        stage = _militia_stage(state, seat, reaction_offered=False)
        if stage:
            state.pending["target"] = seat
            state.pending["stage"] = stage
            return
        seat = (seat + 1) % state.n_players
    state.pending = None
