"""Connect4 in TAG's JSON dialect (Connect4GameStateContainer; docs/RULES.md sections 1 and 2.1).

`gridBoard` is a GridBoard of `width` x `height` BoardNodes, grid[y][x] with y = 0 the top row, each node named
"x" (seat 0), "o" (seat 1) or "." (empty); pieces are copies of a BoardNode(8, name), hence maxNeighbours 8,
empty cells have -1. `winnerCells` lists {"a": x, "b": y} of the first `winCount` cells of the first run TAG's
end check meets when it scans columns, rows, then diagonals (Connect4ForwardModel.checkGameEnd); ours lists
every cell of every run, sorted. TAG records at ROUND_OVER (see engines/tag_json.py), so recorded states
have an even number of pieces and the counters of the round's last move. The document states the board size
(`width`, `height`) but not `winCount`, which comes from the game.

Translates between our document and TAG's, so it needs no engine import: the game object is passed in.
"""

from __future__ import annotations

from engines.tag_json import (GAME_END, LIVE, ROUND_OVER, check_game_type, check_moment, common_fields, component,
                              int_field, match_rebuilt)

GAME_TYPE = "Connect4"
MOMENTS = (LIVE, ROUND_OVER)
UNKNOWN_FIELDS = ()  # fields of a TAG document that the position does not determine
_MAX_NEIGHBOURS = {"x": 8, "o": 8, ".": -1}


def _node(name: str) -> dict:
    return {"neighbours": {}, "neighbourSideMapping": {}, "maxNeighbours": _MAX_NEIGHBOURS[name],
            **component("BOARD_NODE", name)}


def scan_lines(width: int, height: int):
    """The cell lines (lists of (x, y)) in the order TAG's end check walks them."""
    for x in range(width):
        yield [(x, y) for y in range(height - 1, -1, -1)]
    for y in range(height - 1, -1, -1):
        yield [(x, y) for x in range(width)]

    def up_right(x, y):
        return [(x + i, y - i) for i in range(min(width - x, y + 1))]

    def up_left(x, y):
        return [(x - i, y - i) for i in range(min(x + 1, y + 1))]

    for y in range(height - 1, -1, -1):
        yield up_right(0, y)
    for x in range(1, width):
        yield up_right(x, height - 1)
        yield up_left(x, height - 1)
    for y in range(height - 2, -1, -1):
        yield up_left(width - 1, y)


def tag_winner_cells(board: list[list[str]], win_length: int) -> list[dict]:
    """TAG's winnerCells of `board` (rows from the top): the first run of `win_length` equal pieces it finds."""
    height, width = len(board), len(board[0])
    for line in scan_lines(width, height):
        run, last = [], None
        for x, y in line:
            cell = board[y][x]
            if cell == ".":
                run, last = [], None
            elif cell != last:
                run, last = [(x, y)], cell
            else:
                run.append((x, y))
                if len(run) == win_length:
                    return [{"a": a, "b": b} for a, b in run]
    return []


def tag_counters(moves: int, over: bool, moment: str) -> tuple[int, int, int, int]:
    """(tick, roundCounter, turnCounter, turnOwner) after `moves` moves; a game's end is the same at any moment."""
    if over:  # the last move ends the game instead of the turn
        last = moves - 1
        return moves, last // 2, last % 2, last % 2
    if moment == ROUND_OVER:
        if moves < 2 or moves % 2:
            raise ValueError(f"connect4 (tag): a round ends after an even number of moves, not after {moves}")
        return moves - 1, moves // 2 - 1, 2, 0
    return moves, moves // 2, moves % 2, moves % 2


def tag_document(doc: dict, win_length: int, moment: str = LIVE) -> dict:
    """TAG's document of the state whose document (our dialect) is `doc`, serialised at `moment`."""
    check_moment("connect4 (tag)", moment, MOMENTS)
    board = doc["board"]
    over = doc["gameStatus"] == GAME_END
    won = over and "WIN_GAME" in doc["playerResults"]
    tick, round_counter, turn_counter, turn_owner = tag_counters(doc["moveCount"], over, moment)
    return {
        "gridBoard": {"width": len(board[0]), "height": len(board),
                      "grid": [[_node(cell) for cell in row] for row in board],
                      **component("BOARD", "BOARD")},
        "winnerCells": tag_winner_cells(board, win_length) if won else [],
        **common_fields(GAME_TYPE, 2, tick, round_counter, turn_counter, turn_owner,
                        doc["playerResults"] if over else None),
    }


def tag_json(state, moment: str = LIVE) -> dict:
    """TAG's document of Connect4 `state` serialised at `moment`."""
    return tag_document(state.to_json(), state.game.win_length, moment)


def recorded_moment(doc: dict) -> str:
    """ROUND_OVER when the tick of a running game is one short of the pieces on its board, else LIVE."""
    grid = doc.get("gridBoard", {}).get("grid", [])
    moves = sum(1 for row in grid for node in row if node.get("componentName") != ".")
    return ROUND_OVER if doc.get("gameStatus") != GAME_END and doc.get("tick") == moves - 1 else LIVE


def from_tag_json(game, doc: dict, moment: str | None = None):
    """The state of TAG document `doc` in `game` (re-sized to the document's grid); `moment` None: read off the
    counters. Every field must be the one the board implies."""
    where = "connect4 from_json (tag)"
    check_game_type(where, doc, GAME_TYPE)
    grid_board = doc.get("gridBoard")
    if not isinstance(grid_board, dict) or not isinstance(grid_board.get("grid"), list):
        raise ValueError(f"{where}: gridBoard must be an object with a 'grid' list")
    width, height = int_field(where, grid_board, "width", 1), int_field(where, grid_board, "height", 1)
    grid = grid_board["grid"]
    if len(grid) != height or any(not isinstance(row, list) or len(row) != width for row in grid):
        raise ValueError(f"{where}: gridBoard.grid must be {height} rows of {width} nodes")
    if any(not isinstance(node, dict) for row in grid for node in row):
        raise ValueError(f"{where}: every gridBoard.grid cell must be a BoardNode object")
    if (height, width) != (game.rows, game.cols):
        game = type(game)(rows=height, cols=width, win_length=game.win_length)
    board = [[node.get("componentName") for node in row] for row in grid]
    state = game.state_from_board(board, where)
    match_rebuilt(where, doc, tag_json(state, recorded_moment(doc) if moment is None else moment))
    return state
