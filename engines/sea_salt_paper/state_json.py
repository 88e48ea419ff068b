"""Sea Salt & Paper state documents: TAG's SSPGameStateContainer fields (decks as Gson writes them) and back.

Decks list their cards front first (index 0 = a pile's top card or a hand's newest card); the engine keeps
them the other way round (top last). Beyond TAG's fields a document has `roundCounter`, `firstPlayer`
(TAG common fields) and `turnPhase`, plus `pendingDrawn`/`pendingDiscards` in the DISCARD phase and
`crabPile` in the CRAB phase, so that any state, also mid-turn, can be restored.
"""

from __future__ import annotations

from collections import Counter

from engines.base import Items, common_json
from engines.sea_salt_paper.cards import DECK_COUNTS, IS_DUO, KIND_BY_NAME, NAMES, PAIR_SUITES, SUITE, card_json

GAME_TYPE = "SeaSaltPaper"
DRAW, DISCARD, DUO, CRAB, OVER = "DRAW", "DISCARD", "DUO", "CRAB", "GAME_OVER"
PHASES = (DRAW, DISCARD, DUO, CRAB, OVER)

# card_json of every kind; documents get copies (with a fresh "properties"), so callers may mutate them.
CARD_TEMPLATES = [card_json(kind) for kind in range(len(NAMES))]
MAX_SEATS = 4  # the game has 2..4 players
OWNERS = [[tuple(p == seat for p in range(n)) for seat in range(n)] for n in range(MAX_SEATS + 1)]  # [n][seat]
HAND_NAMES = [f"playerHand{seat}" for seat in range(MAX_SEATS)]
AREA_NAMES = [f"PlayerHandDiscard{seat}" for seat in range(MAX_SEATS)]


def state_document(state, observer: int | None) -> dict:
    """The full state (observer None) or what seat `observer` sees: unseen decks show only their size."""
    n = state.n_players
    doc = {
        "playerHands": [hand_json(p, hand, n, state.protected[p], observer in (None, p) or state.protected[p])
                        for p, hand in enumerate(state.hands)],
        "playerDiscards": [deck_json(AREA_NAMES[p], cards, "VISIBLE_TO_ALL", True)
                           for p, cards in enumerate(state.played)],
        "discardPile1": deck_json("discardPile1", state.piles[0], "VISIBLE_TO_ALL", True),
        "discardPile2": deck_json("discardPile2", state.piles[1], "VISIBLE_TO_ALL", True),
        "drawPile": deck_json("drawPile", state.draw_pile, "HIDDEN_TO_ALL", observer is None),
        "lastChance": state.last_chance,
        "protectedHands": state.protected[:],
        "playerTotalScores": state.totals[:],
        "roundCounter": state.round_counter,
        "firstPlayer": state.first_player,
        "turnPhase": state.phase,
    }
    if state.phase == DISCARD:
        doc["pendingDrawn"], doc["pendingDiscards"] = state.pending_drawn, state.pending_discards
    elif state.phase == CRAB:
        doc["crabPile"] = state.crab_pile
    doc.update(common_json(state, GAME_TYPE))
    return doc


HAND_PARTS = [(("playerHands", seat), ("playerHands", seat, "elementVisibility"), ("playerHands", seat, "components"))
              for seat in range(MAX_SEATS)]
AREA_PARTS = [(("playerDiscards", seat), ("playerDiscards", seat, "components")) for seat in range(MAX_SEATS)]
PILE_PARTS = [(("discardPile1",), ("discardPile1", "components")), (("discardPile2",), ("discardPile2", "components"))]
DRAW_PARTS = (("drawPile",), ("drawPile", "components"))
SAME_OWNER = [(None,) * size for size in range(sum(DECK_COUNTS.values()) + 1)]  # a hand's elementVisibility items


def state_parts(state) -> dict:
    """state_document(state, None) as json_parts: each deck's cards item by item (a card's key is its kind), the
    rest of each deck by what sets it, every other field by its value; the root holds what the outcome sets."""
    over = state.phase == OVER
    parts = {(): tuple(state.returns()) if over else None,
             ("lastChance",): state.last_chance, ("protectedHands",): tuple(state.protected),
             ("playerTotalScores",): tuple(state.totals), ("roundCounter",): state.round_counter,
             ("firstPlayer",): state.first_player, ("turnPhase",): state.phase,
             ("turnCounter",): state.turn_counter, ("turnOwner",): -1 if over else state.player}
    for seat, hand in enumerate(state.hands):
        whole, visibility, components = HAND_PARTS[seat]
        parts[whole] = state.protected[seat]
        parts[visibility] = Items(SAME_OWNER[len(hand)])
        parts[components] = Items(hand[::-1])
    for seat, cards in enumerate(state.played):
        whole, components = AREA_PARTS[seat]
        parts[whole] = None
        parts[components] = Items(cards[::-1])
    for (whole, components), cards in zip(PILE_PARTS, state.piles):
        parts[whole] = None
        parts[components] = Items(cards[::-1])
    parts[DRAW_PARTS[0]] = None
    parts[DRAW_PARTS[1]] = Items(state.draw_pile[::-1])
    if state.phase == DISCARD:
        parts[("pendingDrawn",)], parts[("pendingDiscards",)] = state.pending_drawn, state.pending_discards
    elif state.phase == CRAB:
        parts[("crabPile",)] = state.crab_pile
    return parts


def cards_json(cards: list[int]) -> list[dict]:
    """Fresh card_json documents, front card first (the engine keeps the top card last)."""
    components = []
    for kind in reversed(cards):
        card = CARD_TEMPLATES[kind].copy()
        card["properties"] = {}
        components.append(card)
    return components


def deck_json(name: str, cards: list[int], visibility: str, seen: bool) -> dict:
    """A TAG Deck as Gson writes it, front card first; an unseen deck shows its size, not its cards."""
    if seen:
        return {"capacity": -1, "components": cards_json(cards), "visibility": visibility, "type": "DECK",
                "properties": {}, "componentName": name}
    return {"capacity": -1, "size": len(cards), "visibility": visibility, "type": "DECK", "properties": {},
            "componentName": name}


def hand_json(seat: int, hand: list[int], n_players: int, protected: bool, seen: bool) -> dict:
    """A hand as TAG's PartialObservableDeck: every card visible to its owner only."""
    owner = list(OWNERS[n_players][seat])
    visibility = "VISIBLE_TO_ALL" if protected else "MIXED_VISIBILITY"
    if not seen:
        return {"deckVisibility": owner, "capacity": -1, "size": len(hand), "visibility": visibility,
                "type": "DECK", "properties": {}, "componentName": HAND_NAMES[seat]}
    elements = []
    for _ in hand:
        elements.append(owner[:])
    return {"deckVisibility": owner, "elementVisibility": elements, "capacity": -1, "components": cards_json(hand),
            "visibility": visibility, "type": "DECK", "properties": {}, "componentName": HAND_NAMES[seat]}


def cards_from_deck_json(deck, where: str) -> list[int]:
    """The cards of a full deck document in engine order (top card last)."""
    if not isinstance(deck, dict) or not isinstance(deck.get("components"), list):
        raise ValueError(f"{where}: expected a deck object with a 'components' list, got {str(deck)[:80]}")
    cards = []
    for i, card in enumerate(deck["components"]):
        name = card.get("componentName") if isinstance(card, dict) else None
        if name not in KIND_BY_NAME:
            raise ValueError(f"{where}: components[{i}] is not a Sea Salt & Paper card: {str(card)[:80]}")
        cards.append(KIND_BY_NAME[name])
    cards.reverse()
    return cards


def load_state(state, doc: dict) -> None:
    """Fill a fresh state from a to_json document; anything the rules or the document disallow raises ValueError."""
    where, n = "sea_salt_paper.from_json", state.n_players
    if not isinstance(doc, dict) or doc.get("gameType") != GAME_TYPE or doc.get("nPlayers") != n:
        raise ValueError(f"{where}: doc is not a {GAME_TYPE} state document for {n} players")
    for key in ("playerHands", "playerDiscards", "protectedHands", "playerTotalScores"):
        if not isinstance(doc.get(key), list) or len(doc[key]) != n:
            raise ValueError(f"{where}: {key} must be a list with one entry per player")
    state.hands = [cards_from_deck_json(h, f"{where}: playerHands[{p}]") for p, h in enumerate(doc["playerHands"])]
    state.played = [cards_from_deck_json(d, f"{where}: playerDiscards[{p}]")
                    for p, d in enumerate(doc["playerDiscards"])]
    state.piles = [cards_from_deck_json(doc.get(f"discardPile{i}"), f"{where}: discardPile{i}") for i in (1, 2)]
    state.draw_pile = cards_from_deck_json(doc.get("drawPile"), f"{where}: drawPile")
    state.recount()
    cards = state.all_cards()
    if cards != DECK_COUNTS:
        missing, extra = DECK_COUNTS - cards, cards - DECK_COUNTS
        raise ValueError(f"{where}: the cards are not the 58-card deck: missing "
                         f"{[NAMES[k] for k in missing.elements()]}, extra {[NAMES[k] for k in extra.elements()]}")
    state.protected, state.totals = doc["protectedHands"][:], doc["playerTotalScores"][:]
    state.phase, state.last_chance = doc.get("turnPhase"), doc.get("lastChance")
    state.round_counter, state.first_player = doc.get("roundCounter"), doc.get("firstPlayer")
    state.turn_counter = doc.get("turnCounter")
    state.player = doc.get("turnOwner") if state.phase != OVER else state.first_player
    state.pending_drawn, state.pending_discards = doc.get("pendingDrawn", 0), doc.get("pendingDiscards", 0)
    state.crab_pile = doc.get("crabPile", 0)
    problem = inconsistency(state)
    if problem:
        raise ValueError(f"{where}: {problem}")
    rebuilt = state.to_json()
    for key in list(doc) + list(rebuilt):
        if doc.get(key) != rebuilt.get(key):
            raise ValueError(f"{where}: field {key!r} is {str(doc.get(key))[:80]}, the state implies "
                             f"{str(rebuilt.get(key))[:80]}")


def inconsistency(state) -> str | None:
    """What makes a loaded state impossible under the rules, or None."""
    game, n, seats = state.game, state.n_players, range(state.n_players)
    ints = {"lastChance": state.last_chance, "roundCounter": state.round_counter, "turnCounter": state.turn_counter,
            "firstPlayer": state.first_player, "turnOwner": state.player, "pendingDrawn": state.pending_drawn,
            "pendingDiscards": state.pending_discards, "crabPile": state.crab_pile}
    bad = [k for k, v in ints.items() if type(v) is not int or v < (-1 if k == "lastChance" else 0)]
    if bad or any(type(t) is not int or t < 0 for t in state.totals):
        return f"fields {bad or ['playerTotalScores']} must be ints >= 0 (lastChance >= -1)"
    if any(type(b) is not bool for b in state.protected):
        return "protectedHands must be booleans"
    if state.phase not in PHASES:
        return f"turnPhase {state.phase!r} is not one of {list(PHASES)}"
    if state.player not in seats or state.first_player not in seats or state.last_chance >= n:
        return "turnOwner, firstPlayer and lastChance must be seats (lastChance -1 for none)"
    for p, area in enumerate(state.played):
        suites = Counter(SUITE[k] for k in area)
        if not all(IS_DUO[k] for k in area) or any(suites[s] % 2 for s in PAIR_SUITES) \
                or suites["SWIMMER"] != suites["SHARK"]:
            return f"playerDiscards[{p}] is not made of played duo pairs"
    if (max(state.totals) >= game.threshold) != (state.phase == OVER):
        return f"the game is over exactly when a total reaches {game.threshold}"
    if state.phase != OVER and (any(state.protected) and (state.last_chance == -1 or all(state.protected))
                                or state.last_chance != -1 and not state.protected[state.last_chance]):
        return "protectedHands must hold the LAST CHANCE caller, and not every seat, while the round runs"
    if state.phase == DISCARD and not 1 <= state.pending_discards <= min(state.pending_drawn, game.discard_count):
        return "pendingDiscards must be in 1..min(pendingDrawn, discard_count)"
    if state.pending_drawn > min(game.draw_count, len(state.hands[state.player])):
        return "pendingDrawn exceeds the draw count or the hand"
    if state.phase == CRAB and (state.crab_pile not in (1, 2) or not state.piles[state.crab_pile - 1]):
        return "crabPile must name a non-empty discard pile"
    return None
