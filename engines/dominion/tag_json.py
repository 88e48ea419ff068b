"""Dominion in TAG's JSON dialect (DominionGameStateContainer; docs/RULES.md sections 1 and 2.5).

`cardsIncludedInGame` (current supply counts, in the key order of TAG's HashMap), `playerHands[p]` and
`playerDrawPiles[p]` as PartialObservableDecks (a hand is visible to its owner, a revealed card to everyone,
a draw pile to nobody), `playerDiscards[p]`, `playerTableaux[p]`, `trashPile` as Decks of cards
{"cardType": X, ..., "componentName": X}, and `defenceStatus[p]`. Deck names concatenate the seat and "1"
("Hand of Player 01"). TAG's Deck.add puts a card on top (index 0) and draw takes index 0, while our engine
appends to the end and draws from index 0 of the draw pile: so every zone but the draw pile is our list
reversed, the draw pile is the same list.

TAG's container leaves out the phase, actions, buys, spend, Merchant bonus and pending card effects, so a TAG
document is read as the start of the turn owner's turn (Play phase, 1 action, 1 buy, nothing spent, no effect
pending), and a mid-turn state written in TAG's dialect shows only its cards. `tick` (TAG's count of every
action) is the one field our engine cannot know (TICK_UNKNOWN is written, the document's tick is ignored).
TAG records at ROUND_OVER (engines/tag_json.py): after the last seat's turn, turnCounter = nPlayers, turnOwner 0,
roundCounter not yet increased; a TAG turnCounter counts the turns of the current round.

Translates between our document and TAG's, so it needs no engine import: the game object is passed in.
"""

from __future__ import annotations

from engines.tag_json import (GAME_END, LIVE, ROUND_OVER, TICK_UNKNOWN, check_game_type, check_moment,
                              common_fields, component, int_field, match_rebuilt)

GAME_TYPE = "Dominion"
MOMENTS = (LIVE, ROUND_OVER)
UNKNOWN_FIELDS = ("tick",)  # fields of a TAG document that the position does not determine
# The key order of TAG's cardsIncludedInGame (a HashMap of CardType) in the paper's trajectories.
SUPPLY_ORDER = ("ESTATE", "COPPER", "VILLAGE", "PROVINCE", "WORKSHOP", "DUCHY", "MILITIA", "SILVER", "MARKET",
                "MERCHANT", "MOAT", "CELLAR", "REMODEL", "GOLD", "MINE", "SMITHY")
ZONES = (("playerHands", "Hand"), ("playerDrawPiles", "Drawpile"), ("playerDiscards", "Discard"),
         ("playerTableaux", "Tableau"))


def _card(name: str) -> dict:
    return {"cardType": name, **component("CARD", name)}


def _deck(name: str, cards: list[str], visibility: str = "VISIBLE_TO_ALL") -> dict:
    return {"capacity": -1, "components": [_card(c) for c in cards], "visibility": visibility,
            **component("DECK", name)}


def _hidden_deck(name: str, cards: list[str], seen: list[list[bool]], deck_seen: list[bool]) -> dict:
    """A PartialObservableDeck: who sees the deck and, per card, who sees that card."""
    return {"deckVisibility": deck_seen, "elementVisibility": seen, **_deck(name, cards, "MIXED_VISIBILITY")}


def _hand_visibility(hand: list[str], revealed: list[str], seat: int, n_players: int) -> list[list[bool]]:
    """Per card of `hand` (TAG order): its owner sees it; a revealed card (the first copies) everyone sees."""
    public = list(revealed)
    rows = []
    for card in hand:
        if card in public:
            public.remove(card)
            rows.append([True] * n_players)
        else:
            rows.append([q == seat for q in range(n_players)])
    return rows


def tag_counters(doc: dict, moment: str) -> tuple[int, int, int]:
    """(roundCounter, turnCounter, turnOwner) of our document `doc` at `moment`."""
    n = doc["nPlayers"]
    round_counter, turns = doc["roundCounter"], doc["turnCounter"]
    if moment == ROUND_OVER and doc["gameStatus"] != GAME_END:
        if turns < n or turns % n or doc["turnPlayer"] != 0 or doc["gamePhase"] != "Play" or "pendingEffect" in doc:
            raise ValueError(f"dominion (tag): a round is over only at the start of seat 0's turn, not after "
                             f"{turns} turns in seat {doc['turnPlayer']}'s {doc['gamePhase']} phase")
        return round_counter - 1, n, 0
    return round_counter, turns - round_counter * n, doc["turnPlayer"]


def tag_document(doc: dict, moment: str = LIVE) -> dict:
    """TAG's document of the state whose document (our dialect) is `doc`, serialised at `moment`."""
    check_moment("dominion (tag)", moment, MOMENTS)
    n = doc["nPlayers"]
    results = doc["playerResults"] if doc["gameStatus"] == GAME_END else None
    round_counter, turn_counter, turn_owner = tag_counters(doc, moment)
    supply = doc["cardsIncludedInGame"]
    out = {"cardsIncludedInGame": {card: supply[card] for card in SUPPLY_ORDER if card in supply}}
    hidden = [False] * n
    for field, label in ZONES:
        decks = []
        for seat, cards in enumerate(doc[field]):
            name = f"{label} of Player {seat}1"
            if field == "playerHands":
                tag_cards = cards[::-1]
                seen = _hand_visibility(tag_cards, doc["revealedHandCards"][seat], seat, n)
                decks.append(_hidden_deck(name, tag_cards, seen, [q == seat for q in range(n)]))
            elif field == "playerDrawPiles":
                decks.append(_hidden_deck(name, list(cards), [list(hidden) for _ in cards], list(hidden)))
            else:
                decks.append(_deck(name, cards[::-1]))
        out[field] = decks
    out["trashPile"] = _deck("Trash", doc["trashPile"][::-1])
    out["defenceStatus"] = list(doc["defenceStatus"])
    out.update(common_fields(GAME_TYPE, n, TICK_UNKNOWN, round_counter, turn_counter, turn_owner, results))
    return out


def tag_json(state, moment: str = LIVE) -> dict:
    """TAG's document of Dominion `state` serialised at `moment`."""
    return tag_document(state.to_json(), moment)


def recorded_moment(doc: dict) -> str:
    """ROUND_OVER when a running game's turnCounter has reached nPlayers (TAG resets it as a round starts)."""
    if doc.get("gameStatus") != GAME_END and doc.get("turnCounter") == doc.get("nPlayers"):
        return ROUND_OVER
    return LIVE


def _zone_cards(where: str, doc: dict, field: str, n: int) -> list[list[dict]]:
    decks = doc.get(field)
    if not isinstance(decks, list) or len(decks) != n or any(
            not isinstance(d, dict) or not isinstance(d.get("components"), list) for d in decks):
        raise ValueError(f"{where}: {field} must be {n} decks with a 'components' list")
    return [d["components"] for d in decks]


def _names(where: str, cards: list, field: str) -> list[str]:
    names = [c.get("cardType") if isinstance(c, dict) else None for c in cards]
    if any(not isinstance(name, str) for name in names):
        raise ValueError(f"{where}: every card of {field} must be an object with a cardType")
    return names


def from_tag_json(game, doc: dict, seed: int = 0, moment: str | None = None):
    """The state of TAG document `doc` in `game` (re-sized to the document's nPlayers), at the start of the turn
    owner's turn; later reshuffles are drawn from `seed`. `moment` None: read off the counters. Every field but
    the tick must be the one the position implies."""
    where = "dominion from_json (tag)"
    check_game_type(where, doc, GAME_TYPE)
    n = int_field(where, doc, "nPlayers", 2)
    if n != game.n_players:
        game = type(game)(**{**game.params, "n_players": n})
    tick = doc.get("tick")
    if type(tick) is not int or tick < TICK_UNKNOWN:
        raise ValueError(f"{where}: tick must be an int >= {TICK_UNKNOWN}, got {tick!r}")
    moment = check_moment(where, recorded_moment(doc) if moment is None else moment, MOMENTS)
    round_counter, turn_counter = int_field(where, doc, "roundCounter"), int_field(where, doc, "turnCounter")
    turn_owner = int_field(where, doc, "turnOwner")
    over = doc.get("gameStatus") == GAME_END
    if moment == ROUND_OVER and not over:
        round_counter, turn_counter, turn_owner = round_counter + 1, 0, 0
    zones = {field: [_names(where, cards, field) for cards in _zone_cards(where, doc, field, n)]
             for field, _ in ZONES}
    hands = [[] for _ in range(n)]
    revealed = [[] for _ in range(n)]
    for seat, deck in enumerate(doc["playerHands"]):
        seen = deck.get("elementVisibility")
        if not isinstance(seen, list) or len(seen) != len(zones["playerHands"][seat]):
            raise ValueError(f"{where}: playerHands[{seat}].elementVisibility must have a row per card")
        hands[seat] = zones["playerHands"][seat][::-1]
        revealed[seat] = [card for card, row in zip(zones["playerHands"][seat], seen)
                          if isinstance(row, list) and row and all(seen_by is True for seen_by in row)][::-1]
    trash = doc.get("trashPile")
    if not isinstance(trash, dict) or not isinstance(trash.get("components"), list):
        raise ValueError(f"{where}: trashPile must be a deck with a 'components' list")
    supply = doc.get("cardsIncludedInGame")
    if not isinstance(supply, dict):
        raise ValueError(f"{where}: cardsIncludedInGame must be an object of supply counts")
    order = list(game.initial_supply())  # our engine's key order, so the position's key is ours
    ours = {
        "cardsIncludedInGame": {card: supply[card] for card in order + [c for c in supply if c not in order]
                                if card in supply},
        "playerHands": hands,
        "playerDrawPiles": zones["playerDrawPiles"],
        "playerDiscards": [cards[::-1] for cards in zones["playerDiscards"]],
        "playerTableaux": [cards[::-1] for cards in zones["playerTableaux"]],
        "trashPile": _names(where, trash["components"], "trashPile")[::-1],
        "defenceStatus": doc.get("defenceStatus"),
        "revealedHandCards": revealed,
        "gamePhase": "Play", "turnPlayer": turn_owner, "actionsLeft": 1, "buysLeft": 1, "spentSoFar": 0,
        "additionalSpend": 0, "merchantsPlayed": 0, "roundCounter": round_counter,
        "gameType": GAME_TYPE, "turnCounter": round_counter * n + turn_counter, "turnOwner": -1 if over else turn_owner,
        "nPlayers": n, "gameStatus": GAME_END if over else "ONGOING",  # base.common_json's spelling
        "playerResults": doc.get("playerResults") if over else ["GAME_ONGOING"] * n,
    }
    state = game.from_json(ours, seed)
    match_rebuilt(where, {**doc, "tick": TICK_UNKNOWN}, tag_json(state, moment))
    return state
