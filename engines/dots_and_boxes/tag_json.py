"""Dots and Boxes in TAG's JSON dialect (DBGameStateContainer; docs/RULES.md sections 1 and 2.2).

`nCellsPerPlayer[p]`, `cellToOwnerMap{"(x,y)": seat}` of the owned boxes and `edgeToOwnerMap{"(x1,y1) -> (x2,y2)":
seat}` of the drawn lines, dots numbered (x, y) with x along the `cols` boxes of a row; an edge goes from its
lower to its higher dot. Our box (r, c) is TAG's cell (c, r); our horizontal line r*C + c joins dots (c, r) and
(c+1, r), our vertical line joins (c, r) and (c, r+1). TAG writes the maps in Java HashMap order; we write them
by line id and box index (map order makes no JSON-Bag token). The document does not state the board size
(only drawn lines and owned boxes), so it comes from the game. TAG records at TURN_OVER (engines/tag_json.py).

Translates between our document and TAG's, so it needs no engine import: the game object is passed in.
"""

from __future__ import annotations

import re

from engines.tag_json import (GAME_END, LIVE, TURN_OVER, check_game_type, check_moment, common_fields, int_field,
                              match_rebuilt)

GAME_TYPE = "DotsAndBoxes"
MOMENTS = (LIVE, TURN_OVER)
UNKNOWN_FIELDS = ()  # fields of a TAG document that the position does not determine
_POINT = r"\((\d+),(\d+)\)"
_CELL = re.compile(_POINT + r"$")
_EDGE = re.compile(_POINT + r" -> " + _POINT + r"$")


def edge_names(rows: int, cols: int) -> list[str]:
    """TAG's edge key of each of our line ids."""
    horizontal = [f"({c},{r}) -> ({c + 1},{r})" for r in range(rows + 1) for c in range(cols)]
    vertical = [f"({c},{r}) -> ({c},{r + 1})" for r in range(rows) for c in range(cols + 1)]
    return horizontal + vertical


def cell_names(rows: int, cols: int) -> list[str]:
    """TAG's cell key of each of our boxes (row-major)."""
    return [f"({c},{r})" for r in range(rows) for c in range(cols)]


def tag_counters(drawn: int, turn_counter: int, player: int, over: bool, moment: str) -> tuple[int, int, int]:
    """(tick, turnCounter, turnOwner) with `drawn` lines, our `turn_counter` and mover `player`.

    The game's last move completes a box, so TAG counts no turn for it (ours does) and the mover stays owner."""
    if over:
        return drawn, turn_counter - 1, player
    if moment == TURN_OVER:
        if drawn < 1 or turn_counter < 1:
            raise ValueError("dots_and_boxes (tag): no turn is over before the first line is drawn")
        return drawn - 1, turn_counter - 1, 1 - player
    return drawn, turn_counter, player


def tag_document(game, doc: dict, player: int, moment: str = LIVE) -> dict:
    """TAG's document of the state of `game` whose document (our dialect) is `doc` and whose mover (last mover
    once the game is over) is `player`, serialised at `moment`."""
    check_moment("dots_and_boxes (tag)", moment, MOMENTS)
    edges, cells = edge_names(game.rows, game.cols), cell_names(game.rows, game.cols)
    line_owners, box_owners = doc["lineOwners"], doc["boxOwners"]
    over = doc["gameStatus"] == GAME_END
    drawn = sum(1 for seat in line_owners if seat >= 0)
    tick, turn_counter, turn_owner = tag_counters(drawn, doc["turnCounter"], player, over, moment)
    return {
        "nCellsPerPlayer": list(doc["nCellsPerPlayer"]),
        "cellToOwnerMap": {cells[box]: seat for box, seat in enumerate(box_owners) if seat >= 0},
        "edgeToOwnerMap": {edges[line]: seat for line, seat in enumerate(line_owners) if seat >= 0},
        **common_fields(GAME_TYPE, 2, tick, 0, turn_counter, turn_owner, doc["playerResults"] if over else None),
    }


def tag_json(state, moment: str = LIVE) -> dict:
    """TAG's document of Dots and Boxes `state` serialised at `moment`."""
    return tag_document(state.game, state.to_json(), state.player, moment)


def recorded_moment(doc: dict) -> str:
    """TURN_OVER when the tick of a running game is one short of its drawn lines, else LIVE."""
    drawn = len(doc.get("edgeToOwnerMap", {}))
    return TURN_OVER if doc.get("gameStatus") != GAME_END and doc.get("tick") == drawn - 1 else LIVE


def _owners(where: str, doc: dict, key: str, names: list[str], pattern: re.Pattern) -> list[int]:
    """Owner seat (-1 none) per item of `names` from the map doc[key]."""
    entries = doc.get(key)
    if not isinstance(entries, dict):
        raise ValueError(f"{where}: {key} must be an object")
    index = {name: i for i, name in enumerate(names)}
    owners = [-1] * len(names)
    for name, seat in entries.items():
        if not pattern.match(name):
            raise ValueError(f"{where}: {key} key {name!r} is not written as TAG writes it")
        if name not in index:
            raise ValueError(f"{where}: {key} key {name!r} is off this game's board or not lower-to-higher")
        if seat not in (0, 1) or type(seat) is not int:
            raise ValueError(f"{where}: {key}[{name!r}] must be seat 0 or 1, got {seat!r}")
        owners[index[name]] = seat
    return owners


def from_tag_json(game, doc: dict, moment: str | None = None):
    """The state of TAG document `doc` in `game`; `moment` None: read off the tick (one short of the drawn
    lines in a running game: TURN_OVER). Every field must be the one the position implies."""
    where = "dots_and_boxes from_json (tag)"
    check_game_type(where, doc, GAME_TYPE)
    line_owners = _owners(where, doc, "edgeToOwnerMap", edge_names(game.rows, game.cols), _EDGE)
    box_owners = _owners(where, doc, "cellToOwnerMap", cell_names(game.rows, game.cols), _CELL)
    turn_counter, turn_owner = int_field(where, doc, "turnCounter"), int_field(where, doc, "turnOwner")
    if turn_owner > 1:
        raise ValueError(f"{where}: turnOwner must be 0 or 1, got {turn_owner}")
    over = all(seat >= 0 for seat in box_owners)
    moment = check_moment(where, recorded_moment(doc) if moment is None else moment, MOMENTS)
    if over or moment == TURN_OVER:  # our count includes the turn TAG has not counted yet
        turn_counter += 1
    player = 1 - turn_owner if moment == TURN_OVER and not over else turn_owner
    state = game.state_from_owners(line_owners, box_owners, player, turn_counter, where)
    match_rebuilt(where, doc, tag_json(state, moment))
    return state
