"""Sea Salt & Paper in TAG's JSON dialect (SSPGameStateContainer; docs/RULES.md sections 1 and 2.4).

Our document already has TAG's container fields (playerHands, playerDiscards, discardPile1/2, drawPile,
lastChance, protectedHands, playerTotalScores, decks front card first); TAG's leaves out the turn phase and its
pending discards or crab pile, so a TAG document is read at a phase boundary (see the moments), and a mid-turn
state written in TAG's dialect shows only its cards. `firstPlayer` is the round's first player.

Fields our engine cannot know (UNKNOWN_FIELDS; written as -1 or by our rule (GUESSED_FIELDS), ignored when reading):
- `tick`: TAG counts every action, dummy DoNothing steps included; the engine counts turns.
- `turnCounter`: TAG counts the turns of the current round (reset at every deal), the engine those of the game,
  and a position does not tell how many turns the round has had. A TAG document's count is read into our
  turn_counter as counted from the round's start.
- `playerHands[].visibility`: TAG sets a hand VISIBLE_TO_ALL when LAST CHANCE protects it and never resets it,
  so it tells whether that seat was ever protected in an earlier round; ours is VISIBLE_TO_ALL while protected.

Moments (engines/tag_json.py). TAG records at TURN_OVER (turns whose round-local turnCounter is a multiple of
nPlayers; turnOwner the seat that just ended), read as the next seat's DRAW phase; at ROUND_OVER, after the round
is scored but before the next deal (a position our engine never holds: it deals at once); and at the end. A
ROUND_OVER record is read as the state one action earlier, the round-ending seat's DUO phase with the round not
yet banked, and written from that state by applying the round-ending action to a clone: the totals and the
LAST CHANCE protection come from the clone, the cards from the state. The action is end_turn when the draw pile
is empty or LAST CHANCE runs, else STOP (ROUND_ENDING_ACTIONS); calling LAST CHANCE on the turn that empties the
draw pile banks differently and cannot be told apart, so such a record is rejected.

Translates between our document and TAG's, so it needs no engine import: the game object is passed in.
"""

from __future__ import annotations

import copy

from engines.tag_json import (GAME_END, LIVE, ROUND_OVER, TICK_UNKNOWN, TURN_OVER, check_game_type, check_moment,
                              common_fields, int_field, match_rebuilt)

GAME_TYPE = "SeaSaltPaper"
MOMENTS = (LIVE, TURN_OVER, ROUND_OVER)
TURNS_UNKNOWN = -1  # written for TAG's round-local turnCounter
UNKNOWN_FIELDS = ("tick", "turnCounter", "playerHands.visibility")  # token paths, list indices left out
GUESSED_FIELDS = ("playerHands.visibility",)  # UNKNOWN_FIELDS written by our rule, not as -1: their tokens occur
CONTAINER_FIELDS = ("playerHands", "playerDiscards", "discardPile1", "discardPile2", "drawPile", "lastChance",
                    "protectedHands", "playerTotalScores")
DRAW, DUO, OVER = "DRAW", "DUO", "GAME_OVER"  # engines.sea_salt_paper.state_json's phases


def _hand_visibility(doc: dict) -> list[str]:
    """Our rule for every hand's `visibility`: VISIBLE_TO_ALL while LAST CHANCE protects it."""
    return ["VISIBLE_TO_ALL" if p else "MIXED_VISIBILITY" for p in doc["protectedHands"]]


def ending_action(state) -> str:
    """The action with which the current seat ends the round: end_turn on an empty draw pile or under LAST CHANCE
    (the last seat to be protected), else STOP."""
    if state.phase != DUO:
        raise ValueError(f"sea_salt_paper (tag): a round ends from the DUO phase, not from {state.phase}")
    action = "end_turn" if not state.draw_pile or state.last_chance != -1 else "stop"
    after = state.clone()
    if action not in after.legal_actions():
        raise ValueError(f"sea_salt_paper (tag): seat {state.player} cannot end the round ({action} is not legal)")
    after.apply(action)
    if after.round_counter == state.round_counter and not after.is_terminal():
        raise ValueError(f"sea_salt_paper (tag): {action} by seat {state.player} does not end the round here")
    return action


def round_over_document(state) -> dict:
    """Our document of the position between rounds that `state` (the round-ending seat's DUO phase) leads to:
    the round banked, the cards not yet re-dealt."""
    action = ending_action(state)
    after = state.clone()
    after.apply(action)
    doc = state.to_json()
    doc["playerTotalScores"] = list(after.totals)
    if state.draw_pile and state.last_chance != -1:  # the FINISH phase protects the last seat, then ends the round
        doc["protectedHands"] = [True] * state.n_players
    return doc


def tag_document(doc: dict, owner: int) -> dict:
    """TAG's document of our document `doc` (for ROUND_OVER: of the between-rounds position) with turn owner
    `owner`."""
    n = doc["nPlayers"]
    out = {field: copy.deepcopy(doc[field]) for field in CONTAINER_FIELDS}
    for hand, visibility in zip(out["playerHands"], _hand_visibility(doc)):
        hand["visibility"] = visibility
    results = doc["playerResults"] if doc["gameStatus"] == GAME_END else None
    out.update(common_fields(GAME_TYPE, n, TICK_UNKNOWN, doc["roundCounter"], TURNS_UNKNOWN, owner, results))
    out["firstPlayer"] = doc["firstPlayer"]
    return out


def tag_json(state, moment: str = LIVE) -> dict:
    """TAG's document of Sea Salt & Paper `state` serialised at `moment`: LIVE as it stands; TURN_OVER from the
    DRAW phase that follows a turn; ROUND_OVER from the round-ending seat's DUO phase (round_over_document)."""
    check_moment("sea_salt_paper (tag)", moment, MOMENTS)
    if state.is_terminal() or moment == LIVE:
        return tag_document(state.to_json(), state.player)
    if moment == TURN_OVER:
        if state.phase != DRAW:
            raise ValueError(f"sea_salt_paper (tag): a turn is over at the next seat's DRAW phase, not {state.phase}")
        return tag_document(state.to_json(), (state.player - 1) % state.n_players)
    return tag_document(round_over_document(state), state.player)


def recorded_moment(doc: dict) -> str:
    """LIVE for ours (tick -1) and the end; for TAG's records ROUND_OVER when the round is over (its turnCounter is
    no multiple of nPlayers, the draw pile is empty or every hand is protected), else TURN_OVER."""
    if doc.get("tick") == TICK_UNKNOWN or doc.get("gameStatus") == GAME_END:
        return LIVE
    n, turns = doc.get("nPlayers"), doc.get("turnCounter")
    draw = doc.get("drawPile") if isinstance(doc.get("drawPile"), dict) else {}
    if (isinstance(turns, int) and isinstance(n, int) and n > 0 and turns % n) or not draw.get("components") \
            or all(doc.get("protectedHands") or [False]):
        return ROUND_OVER
    return TURN_OVER


def _ours(doc: dict, n: int, phase: str, owner: int, turns: int, over: bool) -> dict:
    ours = {field: copy.deepcopy(doc.get(field)) for field in CONTAINER_FIELDS}
    if isinstance(ours["playerHands"], list) and isinstance(ours["protectedHands"], list):
        for hand, protected in zip(ours["playerHands"], ours["protectedHands"]):
            if isinstance(hand, dict):
                hand["visibility"] = "VISIBLE_TO_ALL" if protected is True else "MIXED_VISIBILITY"
    ours.update({"roundCounter": doc.get("roundCounter"), "firstPlayer": doc.get("firstPlayer"),
                 "turnPhase": OVER if over else phase, "gameType": GAME_TYPE, "turnCounter": turns,
                 "turnOwner": -1 if over else owner, "nPlayers": n,
                 "gameStatus": GAME_END if over else "ONGOING",  # base.common_json's spelling
                 "playerResults": doc.get("playerResults") if over else ["GAME_ONGOING"] * n})
    return ours


def _before_round_end(game, doc: dict, n: int, owner: int, turns: int, seed: int):
    """The round-ending seat's DUO phase that leads to the between-rounds record `doc`."""
    where = "sea_salt_paper from_json (tag)"
    ours = _ours(doc, n, DUO, owner, turns, False)
    protected = ours["protectedHands"]
    draw = ours["drawPile"] if isinstance(ours["drawPile"], dict) else {}
    if isinstance(protected, list) and len(protected) == n and draw.get("components") and ours["lastChance"] != -1:
        protected[owner] = False  # the FINISH phase protected the last seat just before the round ended
        ours["playerHands"][owner]["visibility"] = "MIXED_VISIBILITY"
    banked = game.from_json(ours, seed)  # totals as recorded; the banking depends on the cards only
    after = banked.clone()
    after.apply(ending_action(banked))
    totals = [2 * t - a for t, a in zip(banked.totals, after.totals)]  # recorded minus this round's points
    if any(t < 0 for t in totals):
        raise ValueError(f"{where}: playerTotalScores {banked.totals} are less than this round's points")
    ours["playerTotalScores"] = totals
    return game.from_json(ours, seed)


def from_tag_json(game, doc: dict, seed: int = 0, moment: str | None = None):
    """The state of TAG document `doc` in `game` (re-sized to the document's nPlayers); later deals, shuffles and
    steals are drawn from `seed`. `moment` None: read off the document (recorded_moment). Every field but the
    UNKNOWN_FIELDS must be the one the position implies."""
    where = "sea_salt_paper from_json (tag)"
    check_game_type(where, doc, GAME_TYPE)
    n = int_field(where, doc, "nPlayers", 2)
    if n != game.n_players:
        game = type(game)(**{**game.params, "n_players": n})
    for key in ("tick", "turnCounter"):
        value = doc.get(key)
        if type(value) is not int or value < -1:
            raise ValueError(f"{where}: {key} must be an int >= -1, got {value!r}")
    moment = check_moment(where, recorded_moment(doc) if moment is None else moment, MOMENTS)
    owner, over = int_field(where, doc, "turnOwner"), doc.get("gameStatus") == GAME_END
    if owner >= n:
        raise ValueError(f"{where}: turnOwner {owner} is not a seat of {n}")
    turns = max(doc["turnCounter"], 0)
    if over:
        state = game.from_json(_ours(doc, n, OVER, owner, turns + 1, True), seed)
        state.player = owner  # the seat whose turn ended the game (our document of an ended game omits it)
    elif moment == ROUND_OVER:
        state = _before_round_end(game, doc, n, owner, turns, seed)
    elif moment == TURN_OVER:
        state = game.from_json(_ours(doc, n, DRAW, (owner + 1) % n, turns + 1, False), seed)
    else:
        state = game.from_json(_ours(doc, n, DRAW, owner, turns, False), seed)
    rebuilt = tag_json(state, moment)
    known = {**doc, "tick": TICK_UNKNOWN, "turnCounter": TURNS_UNKNOWN}
    if isinstance(doc.get("playerHands"), list):
        known["playerHands"] = [{**hand, "visibility": v} if isinstance(hand, dict) else hand
                                for hand, v in zip(doc["playerHands"], _hand_visibility(rebuilt))]
    match_rebuilt(where, known, rebuilt)
    return state
