"""7 Wonders state documents in TAG's shape (Wonders7GameStateContainer) and their inverse.

Fields: currentAge, playerResources (all 22 resources), playerHands, playedCards, ageDeck, discardPile,
wonderBoardDeck, playerWonderBoard as TAG serialises them; then what a full state also needs: direction,
turnActions (the round's choices so far, null where a seat has not chosen) and buildFromDiscardPlayer
(-1 unless Halicarnassus is choosing); then engines.base.common_json. Hand decks keep TAG's names
("Player hand<k>") as they travel round the table. An observation replaces what the viewer cannot see
by counts: hidden decks have no components and a hiddenCount; hidden choices read "HIDDEN".
"""

from __future__ import annotations

from engines.base import Items, common_json, common_key, normalize_action
from engines.seven_wonders.cards import CARDS, MAX_PLAYERS, RESOURCES, WONDERS

GAME_TYPE = "Wonders7"
HIDDEN = "HIDDEN"


def effect_json(effect) -> dict:
    if effect.function is not None:  # TAG: a lambda, serialised with the constructor's defaults
        return {"resource": effect.resource, "multiplier": 1, "self": True, "neighbours": False, "gainFunction": {}}
    return {"resource": effect.resource, "multiplier": effect.multiplier, "self": effect.self_,
            "neighbours": effect.neighbours, "type": effect.counts}


def card_json(name: str) -> dict:
    card = CARDS[name]
    return {
        "buildingType": card.kind, "cardType": name, "constructionCost": dict(card.cost),
        "resourcesProduced": dict(card.produces), "prerequisiteCard": list(card.chains),
        "instantEffects": [effect_json(e) for e in card.instant],
        "endGameEffects": [effect_json(e) for e in card.end_game],
        "type": "CARD", "properties": {}, "componentName": name,
    }


def board_json(wonder: str, side: int, stage: int, used: bool) -> dict:
    data = WONDERS[wonder]
    return {
        "wonderType": wonder, "effectUsed": used, "wonderStage": stage, "wonderSide": side,
        "constructionCosts": [dict(c) for c in data.costs[side]], "stageProduce": [dict(r) for r in data.rewards[side]],
        "totalWonderStages": len(data.costs[side]), "type": "CARD", "properties": {}, "componentName": wonder,
    }


def _card_parts(name: str) -> tuple:
    """card_json(name) as a template plus the static values its mutable fields are copied from."""
    doc, card = card_json(name), CARDS[name]
    return doc, doc["constructionCost"], doc["resourcesProduced"], doc["prerequisiteCard"], card.instant, card.end_game


def _board_parts(wonder: str, side: int) -> tuple:
    """board_json(wonder, side, 1, False) as a template plus the stage costs and rewards its lists copy."""
    doc = board_json(wonder, side, 1, False)
    return doc, tuple(doc["constructionCosts"]), tuple(doc["stageProduce"])


# Templates are never handed out: a document gets copies of them and of every container in them, so callers
# may mutate what they receive. Resource documents hold ints only (the engine's resources are ints) and are
# cached by value; callers get copies.
CARD_PARTS = {name: _card_parts(name) for name in CARDS}
BOARD_PARTS = {(wonder, side): _board_parts(wonder, side) for wonder in WONDERS for side in (0, 1)}
RESOURCE_DOCS: dict[tuple, dict] = {}
RESOURCE_DOCS_MAX = 4096  # the cache is emptied when it reaches this size


def cards_json(names: list[str]) -> list[dict]:
    """Fresh card_json documents for `names` (a template copy per card, its containers copied too)."""
    components = []
    for name in names:
        template, cost, produced, chains, instant, end_game = CARD_PARTS[name]
        card = template.copy()
        card["constructionCost"] = cost.copy() if cost else {}  # a literal is cheaper than copying an empty one
        card["resourcesProduced"] = produced.copy() if produced else {}
        card["prerequisiteCard"] = chains[:] if chains else []
        card["instantEffects"] = [effect_json(e) for e in instant] if instant else []
        card["endGameEffects"] = [effect_json(e) for e in end_game] if end_game else []
        card["properties"] = {}
        components.append(card)
    return components


def copied_board_json(wonder: str, side: int, stage: int, used: bool) -> dict:
    """board_json(wonder, side, stage, used), copied from a template."""
    template, costs, rewards = BOARD_PARTS[wonder, side]
    doc = template.copy()
    doc["effectUsed"] = used
    doc["wonderStage"] = stage
    doc["constructionCosts"] = copies(costs)
    doc["stageProduce"] = copies(rewards)
    doc["properties"] = {}
    return doc


def copies(dicts: tuple) -> list[dict]:
    """A list of shallow copies (a plain loop: faster than a comprehension for a few items)."""
    out = []
    for d in dicts:
        out.append(d.copy())
    return out


def deck_json(name: str, visibility: str, cards: list[str] | None, hidden_count: int = 0) -> dict:
    """A TAG Deck; `cards` None means hidden from the viewer (no components, a hiddenCount instead)."""
    if cards is None:
        return {"capacity": -1, "components": [], "hiddenCount": hidden_count, "visibility": visibility,
                "type": "DECK", "properties": {}, "componentName": name}
    return {"capacity": -1, "components": cards_json(cards), "visibility": visibility, "type": "DECK",
            "properties": {}, "componentName": name}


def resources_json(resources: list[int]) -> dict:
    """All 22 resources by name, in RESOURCES order (a copy of a cached document)."""
    key = tuple(resources)
    doc = RESOURCE_DOCS.get(key)
    if doc is None:
        if len(RESOURCE_DOCS) >= RESOURCE_DOCS_MAX:
            RESOURCE_DOCS.clear()
        doc = RESOURCE_DOCS[key] = dict(zip(RESOURCES, resources))
    return doc.copy()


def state_json(state, viewer: int | None = None) -> dict:
    """The full state (viewer None) or what seat `viewer` sees of it."""
    hands = []
    for seat, hand in enumerate(state.hands):
        visible = viewer is None or viewer == seat
        hands.append(deck_json(f"Player hand{state.hand_ids[seat]}", "VISIBLE_TO_OWNER",
                               hand if visible else None, len(hand)))
    discard_visible = viewer is None or viewer == state.builder
    choices = []
    for seat, action in enumerate(state.pending):
        if action is None:
            choices.append(None)
        else:
            choices.append(list(action) if viewer is None or viewer == seat else HIDDEN)
    return {
        "currentAge": state.age,
        "playerResources": [resources_json(r) for r in state.res],
        "playerHands": hands,
        "playedCards": [deck_json("Played Cards", "VISIBLE_TO_ALL", cards) for cards in state.played],
        "ageDeck": deck_json("Age Deck", "MIXED_VISIBILITY", []),
        "discardPile": deck_json("Discarded Cards", "HIDDEN_TO_ALL", state.discard if discard_visible else None,
                                 len(state.discard)),
        "wonderBoardDeck": {"capacity": -1,
                            "components": [copied_board_json(w, s, 1, False) for w, s in state.board_deck],
                            "visibility": "VISIBLE_TO_ALL", "type": "DECK", "properties": {},
                            "componentName": "Wonder Board Deck"},
        "playerWonderBoard": [copied_board_json(*board) for board in state.boards],
        "direction": state.direction,
        "turnActions": choices,
        "buildFromDiscardPlayer": state.builder,
        **common_json(state, GAME_TYPE),
    }


RESOURCE_PARTS = [[("playerResources", seat, name) for name in RESOURCES] for seat in range(MAX_PLAYERS)]
HAND_PARTS = [(("playerHands", seat), ("playerHands", seat, "components")) for seat in range(MAX_PLAYERS)]
PLAYED_PARTS = [(("playedCards", seat), ("playedCards", seat, "components")) for seat in range(MAX_PLAYERS)]


def state_parts(state) -> dict:
    """state_json(state) as json_parts: each resource, card and board by its value, decks and lists item by item;
    the root holds the common fields."""
    parts = {(): common_key(state), ("currentAge",): state.age, ("ageDeck",): None, ("discardPile",): None,
             ("discardPile", "components"): Items(state.discard), ("wonderBoardDeck",): None,
             ("wonderBoardDeck", "components"): Items(state.board_deck),
             ("playerWonderBoard",): Items(map(tuple, state.boards)), ("direction",): state.direction,
             ("turnActions",): Items(state.pending), ("buildFromDiscardPlayer",): state.builder}
    for seat, resources in enumerate(state.res):
        parts.update(zip(RESOURCE_PARTS[seat], resources))
    for seat, hand in enumerate(state.hands):
        whole, components = HAND_PARTS[seat]
        parts[whole] = state.hand_ids[seat]
        parts[components] = Items(hand)
    for seat, cards in enumerate(state.played):
        whole, components = PLAYED_PARTS[seat]
        parts[whole] = None
        parts[components] = Items(cards)
    return parts


def parse_state(state, doc: dict):
    """Fill a new state (SevenWondersState(game, seed)) from state_json output and return it; any field
    inconsistent with the rebuilt state is rejected."""
    where = "seven_wonders from_json"
    if not isinstance(doc, dict):
        raise ValueError(f"{where}: document must be a dict, got {type(doc).__name__}")
    n = state.game.n_players
    if doc.get("nPlayers") != n:
        raise ValueError(f"{where}: nPlayers is {doc.get('nPlayers')!r}, the game has {n} players")
    state.age = _int(doc, "currentAge", where)
    state.direction = _int(doc, "direction", where)
    state.turn_counter = _int(doc, "turnCounter", where)
    state.builder = _int(doc, "buildFromDiscardPlayer", where)
    state.res = [[_resource(r, name, f"{where}: playerResources[{seat}]") for name in RESOURCES]
                 for seat, r in enumerate(_list(doc, "playerResources", n, where))]
    hands = _list(doc, "playerHands", n, where)
    state.hands = [_cards(deck, f"{where}: playerHands[{seat}]") for seat, deck in enumerate(hands)]
    state.hand_ids = [_hand_id(deck, f"{where}: playerHands[{seat}]") for seat, deck in enumerate(hands)]
    if sorted(state.hand_ids) != list(range(n)):
        raise ValueError(f"{where}: hand deck names {state.hand_ids} are not Player hand0..{n - 1}")
    state.played = [_cards(deck, f"{where}: playedCards[{seat}]")
                    for seat, deck in enumerate(_list(doc, "playedCards", n, where))]
    state.discard = _cards(doc.get("discardPile"), f"{where}: discardPile")
    state.boards = [_board(b, f"{where}: playerWonderBoard[{seat}]")
                    for seat, b in enumerate(_list(doc, "playerWonderBoard", n, where))]
    deck = doc.get("wonderBoardDeck")
    if not isinstance(deck, dict) or not isinstance(deck.get("components"), list):
        raise ValueError(f"{where}: wonderBoardDeck must be a deck with a components list")
    state.board_deck = [tuple(_board(b, f"{where}: wonderBoardDeck")[:2]) for b in deck["components"]]
    choices = _list(doc, "turnActions", n, where)
    state.pending = [None if c is None else normalize_action(c) for c in choices]
    _check_round(state, where)
    rebuilt = state_json(state)
    for key in list(doc) + list(rebuilt):
        if doc.get(key) != rebuilt.get(key):
            raise ValueError(f"{where}: field {key!r} is {doc.get(key)!r}, the state implies {rebuilt.get(key)!r}")
    return state


def _check_round(state, where: str) -> None:
    """Choices so far must be made by seats 0..k-1 in order and be legal for them; hands must be equal."""
    n = state.n_players
    if not 1 <= state.age <= 4 or state.direction not in (1, -1):
        raise ValueError(f"{where}: currentAge {state.age} / direction {state.direction} out of range")
    sizes = {len(hand) for hand in state.hands}
    low, high = (0, 0) if state.age > 3 else (1, 6) if state.builder >= 0 else (2, 7)
    if len(sizes) != 1 or not low <= sizes.pop() <= high:
        raise ValueError(f"{where}: hand sizes {[len(h) for h in state.hands]} are impossible in age {state.age}")
    chosen = [c is not None for c in state.pending]
    if chosen != sorted(chosen, reverse=True) or all(chosen):
        raise ValueError(f"{where}: turnActions {state.pending} must be chosen by a prefix of seats, not all")
    if state.builder != -1 and (not 0 <= state.builder < n or any(chosen)):
        raise ValueError(f"{where}: buildFromDiscardPlayer {state.builder} is impossible here")
    for seat, choice in enumerate(state.pending):
        if choice is not None and choice not in state.seat_actions(seat):
            raise ValueError(f"{where}: turnActions[{seat}] {list(choice)} is not legal for that seat")


def _int(doc: dict, key: str, where: str) -> int:
    value = doc.get(key)
    if type(value) is not int:
        raise ValueError(f"{where}: {key} must be an int, got {value!r}")
    return value


def _list(doc: dict, key: str, n: int, where: str) -> list:
    value = doc.get(key)
    if not isinstance(value, list) or len(value) != n:
        raise ValueError(f"{where}: {key} must be a list of {n} entries")
    return value


def _resource(doc, name: str, where: str) -> int:
    if not isinstance(doc, dict) or type(doc.get(name)) is not int:
        raise ValueError(f"{where}: resource {name!r} must be an int")
    return doc[name]


def _cards(deck, where: str) -> list[str]:
    if not isinstance(deck, dict) or not isinstance(deck.get("components"), list):
        raise ValueError(f"{where}: must be a deck with a components list")
    names = []
    for i, card in enumerate(deck["components"]):
        name = card.get("cardType") if isinstance(card, dict) else None
        if name not in CARDS:
            raise ValueError(f"{where}: component {i} has unknown cardType {name!r}")
        names.append(name)
    return names


def _hand_id(deck: dict, where: str) -> int:
    name = deck.get("componentName", "")
    suffix = name[len("Player hand"):] if isinstance(name, str) and name.startswith("Player hand") else ""
    if not suffix.isdigit():
        raise ValueError(f"{where}: componentName {name!r} is not 'Player hand<k>'")
    return int(suffix)


def _board(doc, where: str) -> list:
    if not isinstance(doc, dict) or doc.get("wonderType") not in WONDERS or doc.get("wonderSide") not in (0, 1):
        raise ValueError(f"{where}: needs a known wonderType and wonderSide 0 or 1")
    stage, used = doc.get("wonderStage"), doc.get("effectUsed")
    total = len(WONDERS[doc["wonderType"]].costs[doc["wonderSide"]])
    if type(stage) is not int or not 1 <= stage <= total + 1 or type(used) is not bool:
        raise ValueError(f"{where}: wonderStage must be an int in 1..{total + 1} and effectUsed a bool")
    return [doc["wonderType"], doc["wonderSide"], stage, used]
