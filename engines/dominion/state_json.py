"""Reading a Dominion state document back (Dominion.from_json): field types, card names, turn consistency."""

from __future__ import annotations

from collections import Counter

from engines.dominion.cards import BUY, CARDS, PLAY, effect_actions

PENDING_FIELDS = {"CELLAR": {"discarded"}, "MILITIA": {"target", "stage"}, "REMODEL": set(), "MINE": set(),
                  "WORKSHOP": set()}  # required besides "card"; REMODEL and MINE add "trashed" once they trash
TURN_FIELDS = (("turn_player", "turnPlayer"), ("actions", "actionsLeft"), ("buys", "buysLeft"),
               ("spent", "spentSoFar"), ("additional_spend", "additionalSpend"),
               ("merchants_played", "merchantsPlayed"), ("round_counter", "roundCounter"),
               ("turn_counter", "turnCounter"))


def read_state_fields(state, doc: dict, supply_cards: set[str]) -> None:
    """Copy the fields of `doc` into the fresh `state`, checking each one's type and card names."""
    n = state.n_players
    supply = _field(doc, "cardsIncludedInGame", dict)
    if set(supply) != supply_cards or not all(_is_count(v) for v in supply.values()):
        raise ValueError("dominion: from_json cardsIncludedInGame must give a count for every supply card")
    state.supply = dict(supply)
    state.hands = _zones(doc, "playerHands", n)
    state.draw_piles = _zones(doc, "playerDrawPiles", n)
    state.discards = _zones(doc, "playerDiscards", n)
    state.tableaux = _zones(doc, "playerTableaux", n)
    state.revealed = _zones(doc, "revealedHandCards", n)
    state.trash = _cards(_field(doc, "trashPile", list), "trashPile")
    state.defence_status = list(_field(doc, "defenceStatus", list))
    state.phase = _field(doc, "gamePhase", str)
    for attribute, name in TURN_FIELDS:
        setattr(state, attribute, _field(doc, name, int))
    if "pendingEffect" in doc:
        state.pending = dict(_field(doc, "pendingEffect", dict))
    state.terminal = doc.get("gameStatus") == "GAME_END"


def valid_turn(state) -> bool:
    """Whether phase, seats, counters, defences, revealed cards and the pending effect fit together."""
    n = state.n_players
    if not (state.phase in (PLAY, BUY) and 0 <= state.turn_player < n and len(state.defence_status) == n
            and all(isinstance(d, bool) for d in state.defence_status)
            and all(not r or not Counter(r) - Counter(h) for r, h in zip(state.revealed, state.hands))
            and all(_is_count(getattr(state, attribute)) for attribute, _ in TURN_FIELDS)):
        return False
    pending = state.pending
    if pending is None:
        return True
    card = pending.get("card")
    if card not in PENDING_FIELDS:
        return False
    optional = {"trashed"} if card in ("REMODEL", "MINE") else set()
    if not PENDING_FIELDS[card] <= set(pending) - {"card"} <= PENDING_FIELDS[card] | optional:
        return False
    if card == "MILITIA":
        victim = pending["target"]
        if victim not in set(range(n)) - {state.turn_player} or state.defence_status[victim]:
            return False
        hand = state.hands[victim]
        if not (pending["stage"] == "react" and "MOAT" in hand or pending["stage"] == "discard" and len(hand) > 3):
            return False
    if pending.get("trashed", "COPPER") not in CARDS or not _is_count(pending.get("discarded", 0)):
        return False
    return bool(effect_actions(state))


def _field(doc: dict, name: str, kind: type):
    value = doc.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"dominion: from_json field {name!r} must be a {kind.__name__}, got {value!r}")
    return value


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _cards(value, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(card, str) and card in CARDS for card in value):
        raise ValueError(f"dominion: from_json {where} must be a list of card names, got {value!r}")
    return list(value)


def _zones(doc: dict, name: str, n_players: int) -> list[list[str]]:
    zones = _field(doc, name, list)
    if len(zones) != n_players:
        raise ValueError(f"dominion: from_json {name} must have one list per seat ({n_players})")
    return [_cards(zone, f"{name}[{seat}]") for seat, zone in enumerate(zones)]
