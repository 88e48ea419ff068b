"""Can't Stop in TAG's JSON dialect (CantStopGameStateContainer; docs/RULES.md sections 1 and 2.3).

`completedColumns[13]`, `playerMarkerPositions[p][13]` (indices 0 and 1 unused) and `dice[4]` as Dice components
(`diceType` "d6", `nSides`, `value`; the paper data has no `pdf` array). TAG's container leaves out this turn's
temporary markers and the phase, so a TAG document is read as a turn in its Decision phase with no temporary
progress, and a mid-turn state written in TAG's dialect shows only the permanent markers.

`tick` (TAG's count of all actions: rolls, allocations, passes) is the one field our engine cannot know: a
position does not tell how many rolls led to it and the engine counts turns, not actions. We write TICK_UNKNOWN
and ignore the document's tick when reading. TAG records at TURN_OVER (engines/tag_json.py); a document with a
real tick (>= 0) was written by TAG's recorder and is read at that moment unless told otherwise.

Translates between our document and TAG's, so it needs no engine import: the game object is passed in.
"""

from __future__ import annotations

from engines.tag_json import (GAME_END, LIVE, TICK_UNKNOWN, TURN_OVER, check_game_type, check_moment, common_fields,
                              component, int_field, match_rebuilt)

GAME_TYPE = "CantStop"
MOMENTS = (LIVE, TURN_OVER)
UNKNOWN_FIELDS = ("tick",)  # fields of a TAG document that the position does not determine
N_TRACK_SLOTS = 13


def _die(value: int) -> dict:
    return {"diceType": "d6", "nSides": 6, "value": value, **component("DICE", "DICE")}


def tag_counters(turn_counter: int, turn_owner: int, n_players: int, results: list[str] | None,
                 moment: str) -> tuple[int, int]:
    """(turnCounter, turnOwner) from our counters; the winning pass ends the game, not the turn (TAG counts no
    turn for it, ours does) and its player stays owner."""
    if results is not None:
        return turn_counter - 1, results.index("WIN_GAME")
    if moment == TURN_OVER:
        if turn_counter < 1:
            raise ValueError("cant_stop (tag): no turn is over before the first turn ends")
        return turn_counter - 1, (turn_owner - 1) % n_players
    return turn_counter, turn_owner


def tag_document(doc: dict, moment: str = LIVE) -> dict:
    """TAG's document of the state whose document (our dialect) is `doc`, serialised at `moment`."""
    check_moment("cant_stop (tag)", moment, MOMENTS)
    n_players = doc["nPlayers"]
    results = doc["playerResults"] if doc["gameStatus"] == GAME_END else None
    turn_counter, turn_owner = tag_counters(doc["turnCounter"], doc["turnOwner"], n_players, results, moment)
    return {
        "completedColumns": list(doc["completedColumns"]),
        "playerMarkerPositions": [list(row) for row in doc["playerMarkerPositions"]],
        "dice": [_die(value) for value in doc["dice"]],
        **common_fields(GAME_TYPE, n_players, TICK_UNKNOWN, 0, turn_counter, turn_owner, results),
    }


def tag_json(state, moment: str = LIVE) -> dict:
    """TAG's document of Can't Stop `state` serialised at `moment`."""
    return tag_document(state.to_json(), moment)


def recorded_moment(doc: dict) -> str:
    """TURN_OVER for a document with a real tick (TAG's recorder writes there), LIVE for ours (TICK_UNKNOWN)."""
    return LIVE if doc.get("tick") == TICK_UNKNOWN else TURN_OVER


def _dice_values(where: str, dice) -> list[int]:
    if not isinstance(dice, list) or len(dice) != 4 or any(not isinstance(d, dict) for d in dice):
        raise ValueError(f"{where}: dice must be 4 Dice objects, got {dice!r}")
    values = [d.get("value") for d in dice]
    if any(type(v) is not int or not 1 <= v <= 6 for v in values):
        raise ValueError(f"{where}: every die's value must be an int in 1..6, got {values!r}")
    return values


def from_tag_json(game, doc: dict, seed: int = 0, moment: str | None = None):
    """The state of TAG document `doc` in `game` (re-sized to the document's nPlayers), Decision phase, no
    temporary markers; later rolls are drawn from `seed`. `moment` None: TURN_OVER for a document with a real
    tick, LIVE for ours. Every field but the tick must be the one the position implies."""
    where = "cant_stop from_json (tag)"
    check_game_type(where, doc, GAME_TYPE)
    n_players = int_field(where, doc, "nPlayers", 2)
    if n_players != game.n_players:
        game = type(game)(n_players=n_players)
    tick = doc.get("tick")
    if type(tick) is not int or tick < TICK_UNKNOWN:
        raise ValueError(f"{where}: tick must be an int >= {TICK_UNKNOWN}, got {tick!r}")
    moment = check_moment(where, recorded_moment(doc) if moment is None else moment, MOMENTS)
    turn_counter, turn_owner = int_field(where, doc, "turnCounter"), int_field(where, doc, "turnOwner")
    over = doc.get("gameStatus") == GAME_END
    if over or moment == TURN_OVER:  # our count includes the turn TAG has not counted yet
        turn_counter += 1
    if moment == TURN_OVER and not over:
        turn_owner = (turn_owner + 1) % n_players
    ours = {
        "completedColumns": doc.get("completedColumns"),
        "playerMarkerPositions": doc.get("playerMarkerPositions"),
        "temporaryMarkerPositions": [0] * N_TRACK_SLOTS,
        "dice": _dice_values(where, doc.get("dice")),
        "gamePhase": "Decision",
        "gameType": GAME_TYPE, "turnCounter": turn_counter, "turnOwner": -1 if over else turn_owner,
        "nPlayers": n_players, "gameStatus": GAME_END if over else "ONGOING",  # base.common_json's spelling
        "playerResults": doc.get("playerResults") if over else ["GAME_ONGOING"] * n_players,
    }
    state = game.from_json(ours, seed)
    match_rebuilt(where, {**doc, "tick": TICK_UNKNOWN}, tag_json(state, moment))
    return state
