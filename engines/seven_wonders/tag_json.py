"""7 Wonders in TAG's JSON dialect (Wonders7GameStateContainer; docs/RULES.md sections 1 and 2.6).

Our document already has TAG's container fields (currentAge, playerResources, playerHands, playedCards, ageDeck,
discardPile, wonderBoardDeck, playerWonderBoard); TAG's leaves out the direction (it follows from the age),
the round's choices so far and the seat building from the discard pile, and adds the common fields. So a TAG
document is read as a round in which nobody has chosen yet. `tick` is TAG's count of actions, which is our
turn_counter (every choice and every Halicarnassus build is one); TAG's turnCounter counts the choices of the
round, plus one from round 1 on (the last choice of the round before is counted after the round was reset).

TAG records at ROUND_OVER (engines/tag_json.py): when every seat's choice has been executed, before the hands
pass on, with the tick of the round's last choice, turnOwner 0 and turnCounter nPlayers (nPlayers - 1 in round
0). Our engine passes the hands at once, so the translator writes a recorded moment from the state at the start
of the next round by passing the hands back, and reads one by passing them on. The last round of an age is
the exception (AGE_END_UNKNOWN): TAG records it with one card in each hand, then discards those cards, scores
military and deals the next age; our engine does all that at once, and the next age's state no longer tells
which card each seat held last (nor does Babylon's night side say whether it built it), so such a record is
a position our engine never holds, and reading it is a clear error.

Translates between our document and TAG's, so it needs no engine import: the game object is passed in.
"""

from __future__ import annotations

from engines.tag_json import (GAME_END, LIVE, ROUND_OVER, check_game_type, check_moment, common_fields, int_field,
                              match_rebuilt)

GAME_TYPE = "Wonders7"
MOMENTS = (LIVE, ROUND_OVER)
UNKNOWN_FIELDS = ()  # fields of a TAG document that the position does not determine
AGE_END_UNKNOWN = "a record of an age's last round (one card in each hand)"  # states our engine never holds
CONTAINER_FIELDS = ("currentAge", "playerResources", "playerHands", "playedCards", "ageDeck", "discardPile",
                    "wonderBoardDeck", "playerWonderBoard")
CARDS_PER_HAND, LAST_AGE = 7, 3


def direction_of_age(age: int) -> int:
    """Hands pass to the left (+1) in ages I and III, to the right (-1) in age II (it flips at every age end)."""
    return 1 if age % 2 else -1


def pass_hands(hands: list, direction: int, times: int = 1) -> list:
    """The hands after passing `times` times in `direction` (seat i receives seat i + direction's hand)."""
    shift = (direction * times) % len(hands)
    return hands[shift:] + hands[:shift]


def rounds_done(age: int, hand_size: int) -> int:
    """TAG's roundCounter at the start of a round: 6 rounds per age, each hand one card shorter per round."""
    if age > LAST_AGE:
        return LAST_AGE * (CARDS_PER_HAND - 1)
    return (age - 1) * (CARDS_PER_HAND - 1) + CARDS_PER_HAND - hand_size


def tag_counters(doc: dict, moment: str) -> tuple[int, int, int, int]:
    """(tick, roundCounter, turnCounter, turnOwner) of our document `doc` at `moment`."""
    n, ticks = doc["nPlayers"], doc["turnCounter"]
    age, hand_size = doc["currentAge"], len(doc["playerHands"][0]["components"])
    if doc["gameStatus"] == GAME_END:
        return ticks, rounds_done(age, 0), 0, 0
    if moment == ROUND_OVER:
        pending = any(c is not None for c in doc["turnActions"]) or doc["buildFromDiscardPlayer"] >= 0
        if pending or hand_size >= CARDS_PER_HAND:
            raise ValueError(f"seven_wonders (tag): a round is over only at the start of the next round of an age, "
                             f"not with {hand_size} cards in hand or choices pending ({AGE_END_UNKNOWN} is not "
                             "a position of our engine)")
        last_round = rounds_done(age, hand_size) - 1
        return ticks - 1, last_round, n - 1 if last_round == 0 else n, 0
    chosen = sum(c is not None for c in doc["turnActions"])
    round_counter = rounds_done(age, hand_size + (1 if doc["buildFromDiscardPlayer"] >= 0 else 0))
    owner = doc["turnOwner"]
    return ticks, round_counter, chosen + (1 if round_counter > 0 else 0), owner


def tag_document(doc: dict, moment: str = LIVE) -> dict:
    """TAG's document of the state whose document (our dialect) is `doc`, serialised at `moment`."""
    check_moment("seven_wonders (tag)", moment, MOMENTS)
    tick, round_counter, turn_counter, turn_owner = tag_counters(doc, moment)
    out = {field: doc[field] for field in CONTAINER_FIELDS}
    if moment == ROUND_OVER and doc["gameStatus"] != GAME_END:
        out["playerHands"] = pass_hands(doc["playerHands"], -doc["direction"])  # back to where they were played
    results = doc["playerResults"] if doc["gameStatus"] == GAME_END else None
    out.update(common_fields(GAME_TYPE, doc["nPlayers"], tick, round_counter, turn_counter, turn_owner, results))
    return out


def tag_json(state, moment: str = LIVE) -> dict:
    """TAG's document of 7 Wonders `state` serialised at `moment`."""
    return tag_document(state.to_json(), moment)


def recorded_moment(doc: dict) -> str:
    """ROUND_OVER for a running game whose turnCounter has reached the round's last choice (TAG's recorder writes
    only there and at the end), else LIVE."""
    n, round_counter = doc.get("nPlayers"), doc.get("roundCounter")
    last_choice = n - 1 if round_counter == 0 else n
    if doc.get("gameStatus") != GAME_END and doc.get("turnCounter") == last_choice and doc.get("turnOwner") == 0:
        return ROUND_OVER
    return LIVE


def is_age_end_record(doc: dict) -> bool:
    """Whether `doc` is TAG's record of an age's last round, which our engine never holds (AGE_END_UNKNOWN)."""
    hands = doc.get("playerHands") or [{}]
    return (recorded_moment(doc) == ROUND_OVER and isinstance(hands[0], dict)
            and len(hands[0].get("components") or []) == 1)


def from_tag_json(game, doc: dict, seed: int = 0, moment: str | None = None):
    """The state of TAG document `doc` in `game` (re-sized to the document's nPlayers) at the start of a round;
    a ROUND_OVER record is read as the start of the next round. Later ages are dealt from `seed`. A record of an
    age's last round, or a document in the middle of a round, is a clear error; every field must be the one the
    position implies."""
    where = "seven_wonders from_json (tag)"
    check_game_type(where, doc, GAME_TYPE)
    n = int_field(where, doc, "nPlayers", 3)
    if n != game.n_players:
        game = type(game)(**{**game.params, "n_players": n})
    moment = check_moment(where, recorded_moment(doc) if moment is None else moment, MOMENTS)
    tick, age = int_field(where, doc, "tick"), int_field(where, doc, "currentAge", 1)
    over = doc.get("gameStatus") == GAME_END
    hands = doc.get("playerHands")
    if not isinstance(hands, list) or len(hands) != n:
        raise ValueError(f"{where}: playerHands must be a list of {n} decks")
    if moment == ROUND_OVER and not over:
        if is_age_end_record(doc):
            raise ValueError(f"{where}: {AGE_END_UNKNOWN} is a position our engine never holds: it discards "
                             "the last cards, scores military and deals the next age at once")
        hands = pass_hands(hands, direction_of_age(age))
        tick += 1
    elif not over and (doc.get("turnOwner") != 0 or doc.get("turnCounter") != (doc.get("roundCounter") != 0)):
        raise ValueError(f"{where}: a document in the middle of a round (turnCounter {doc.get('turnCounter')!r}, "
                         f"turnOwner {doc.get('turnOwner')!r}) hides the choices made so far, which TAG's "
                         "container does not record")
    ours = {field: doc.get(field) for field in CONTAINER_FIELDS}
    ours.update({"playerHands": hands, "direction": direction_of_age(age), "turnActions": [None] * n,
                 "buildFromDiscardPlayer": -1, "gameType": GAME_TYPE, "turnCounter": tick,
                 "turnOwner": -1 if over else 0, "nPlayers": n,
                 "gameStatus": GAME_END if over else "ONGOING",  # base.common_json's spelling
                 "playerResults": doc.get("playerResults") if over else ["GAME_ONGOING"] * n})
    state = game.from_json(ours, seed)
    match_rebuilt(where, doc, tag_json(state, moment))
    return state
