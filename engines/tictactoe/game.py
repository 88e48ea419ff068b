"""Tic-Tac-Toe on a 3x3 board; cells 0..8 row-major from the top-left, "x" (seat 0) moves first.

Each player's pieces are a 9-bit bitboard. A turn is a single move; the game score is the result.
"""

from __future__ import annotations

from typing import Hashable

from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, AlternatingTwoSeatState, Game, Items,
                          check_dialect, check_params, common_json, common_key, turn_changes)
from engines.info import GameInfo, OpenSpielInfo

PIECES = ("x", "o")
EMPTY = "."
LINES = (0b000000111, 0b000111000, 0b111000000,  # rows
         0b001001001, 0b010010010, 0b100100100,  # columns
         0b100010001, 0b001010100)  # diagonals
# Lookup tables over all 512 bitboards: the empty cells of an occupancy, and whether pieces hold a line.
EMPTY_CELLS = tuple(tuple(cell for cell in range(9) if not board >> cell & 1) for board in range(512))
HAS_LINE = tuple(any(board & line == line for line in LINES) for board in range(512))
# to_json tables: the cells of one row from its x bits | o bits << 3 ("o" where both are set, as before),
# and the [row, col] cells on the lines a bitboard holds
ROW_CELLS = tuple(tuple(PIECES[1] if key >> (3 + c) & 1 else PIECES[0] if key >> c & 1 else EMPTY for c in range(3))
                  for key in range(64))
LINE_CELLS = tuple(tuple((cell // 3, cell % 3) for cell in range(9)
                         if any(board & line == line and line >> cell & 1 for line in LINES))
                   for board in range(512))

CELL_LOCATIONS = tuple(("board", cell // 3, cell % 3) for cell in range(9))  # json_changes: a cell's location
_WINNER_CELLS, _MOVE_COUNT = ("winnerCells",), ("moveCount",)


class TicTacToe(Game):
    """Tic-Tac-Toe; it has no parameters."""

    name = "tictactoe"
    info = GameInfo(
        baseline_heuristic="win_loss_scaled_score",  # not in the papers: scored like Connect4 (+1 / 0 / -1)
        outcome_fields=(*COMMON_OUTCOME_FIELDS, "winnerCells"),  # empty until a line is won
        turn_order_fields=(*COMMON_TURN_ORDER_FIELDS, "moveCount"),  # moves played so far
        openspiel=OpenSpielInfo("tic_tac_toe", lambda p: {}, lambda game: 9))  # cell 3*row + col in both
    n_players = 2
    defaults: dict = {}

    def __init__(self, **params):
        self.params = check_params(self.name, params, self.defaults)

    def new_state(self, seed: int = 0) -> "TicTacToeState":
        return TicTacToeState()

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> "TicTacToeState":
        """Rebuild a state from its to_json document; any field inconsistent with the board is rejected."""
        check_dialect(self.name, dialect, (OURS,))  # TAG has no Tic-Tac-Toe in the papers' data
        board = doc.get("board") if isinstance(doc, dict) else None
        if not isinstance(board, list) or len(board) != 3 or any(not isinstance(row, list) or len(row) != 3 for row in board):
            raise ValueError("tictactoe from_json: document must be a dict whose 'board' is 3 rows of 3 cells")
        seats = [0, 0]
        for r, row in enumerate(board):
            for c, cell in enumerate(row):
                if cell == EMPTY:
                    continue
                if cell not in PIECES:
                    raise ValueError(f"tictactoe from_json: board[{r}][{c}] is {cell!r}, expected one of 'x', 'o', '.'")
                seats[PIECES.index(cell)] |= 1 << (3 * r + c)
        n0, n1 = seats[0].bit_count(), seats[1].bit_count()
        if n0 not in (n1, n1 + 1):
            raise ValueError(f"tictactoe from_json: {n0} 'x' pieces and {n1} 'o' pieces cannot alternate from 'x'")
        winners = [p for p in (0, 1) if HAS_LINE[seats[p]]]
        if len(winners) == 2:
            raise ValueError("tictactoe from_json: both players have a winning line")
        state = TicTacToeState()
        state._seats = seats
        state._moves = n0 + n1
        if winners:
            if winners[0] != (state._moves - 1) & 1:
                raise ValueError(f"tictactoe from_json: seat {winners[0]} has a winning line but did not move last")
            state._winner = winners[0]
        state._over = bool(winners) or state._moves == 9
        rebuilt = state.to_json()
        for key in list(doc) + list(rebuilt):
            if doc.get(key) != rebuilt.get(key):
                raise ValueError(f"tictactoe from_json: field {key!r} is {doc.get(key)!r}, the board implies {rebuilt.get(key)!r}")
        return state


class TicTacToeState(AlternatingTwoSeatState):
    """A Tic-Tac-Toe position: both players' bitboards, the move count and the outcome."""

    __slots__ = ("_seats", "_moves", "_winner", "_over")
    n_players = 2

    def __init__(self):
        self._seats = [0, 0]
        self._moves = 0
        self._winner = -1
        self._over = False

    def legal_actions(self) -> list[int]:
        if self._over:
            return []
        return list(EMPTY_CELLS[self._seats[0] | self._seats[1]])

    def apply(self, action: int) -> None:
        seats = self._seats
        if self._over or type(action) is not int or not 0 <= action < 9 or (seats[0] | seats[1]) >> action & 1:
            raise ValueError(f"tictactoe: illegal action {action!r}; legal actions: {self.legal_actions()}")
        mover = self._moves & 1
        pieces = seats[mover] | (1 << action)
        seats[mover] = pieces
        self._moves += 1
        if HAS_LINE[pieces]:
            self._winner = mover
            self._over = True
        elif self._moves == 9:
            self._over = True

    def clone(self) -> "TicTacToeState":
        other = TicTacToeState.__new__(TicTacToeState)
        other._seats = self._seats[:]
        other._moves = self._moves
        other._winner = self._winner
        other._over = self._over
        return other

    def key(self) -> Hashable:
        return (self._seats[0], self._seats[1])

    def json_parts(self) -> dict:
        """to_json() as parts (State.json_parts): the board row by row (a row's key: its cells' code); the root
        holds the move count and the common fields."""
        x, o = self._seats
        return {(): (self._moves, common_key(self)),
                ("board",): Items(((x & 7) | (o & 7) << 3, (x >> 3 & 7) | (o >> 3 & 7) << 3,
                                   (x >> 6) | (o >> 6) << 3)),
                ("winnerCells",): self._seats[self._winner] if self._winner >= 0 else None}

    def json_changes(self, reference) -> list[tuple] | None:
        """The to_json() values in which this state differs from `reference` (State.json_changes), from the
        bitboards: each changed cell, the winning cells, the move count, the common fields."""
        if type(reference) is not TicTacToeState:
            return None
        (old_x, old_o), (new_x, new_o) = reference._seats, self._seats
        changed, found = (old_x ^ new_x) | (old_o ^ new_o), []
        while changed:
            bit = changed & -changed
            changed ^= bit
            found.append((CELL_LOCATIONS[bit.bit_length() - 1], _cell(old_x, old_o, bit), _cell(new_x, new_o, bit)))
        if reference._winner >= 0 or self._winner >= 0:
            before, after = reference._winner_cells(), self._winner_cells()
            if before != after:
                found.append((_WINNER_CELLS, before, after))
        old_moves, moves = reference._moves, self._moves
        if old_moves != moves:
            found.append((_MOVE_COUNT, old_moves, moves))
        turn_changes(old_moves, moves, -1 if reference._over else old_moves & 1, -1 if self._over else moves & 1,
                     reference, self, found)
        return found

    def _winner_cells(self) -> list[list[int]]:
        """to_json's winnerCells."""
        return [[r, c] for r, c in LINE_CELLS[self._seats[self._winner]]] if self._winner >= 0 else []

    def to_json(self, dialect: str = OURS) -> dict:
        if dialect != OURS:
            check_dialect("tictactoe", dialect, (OURS,))
        x, o = self._seats
        return {
            "board": [list(ROW_CELLS[(x & 7) | (o & 7) << 3]), list(ROW_CELLS[(x >> 3 & 7) | (o >> 3 & 7) << 3]),
                      list(ROW_CELLS[(x >> 6) | (o >> 6) << 3])],
            "winnerCells": self._winner_cells(),
            "moveCount": self._moves,
            **common_json(self, "TicTacToe"),
        }


def _cell(x: int, o: int, bit: int) -> str:
    """The to_json cell of `bit` ("o" where both seats hold it, as ROW_CELLS codes it)."""
    return PIECES[1] if o & bit else PIECES[0] if x & bit else EMPTY
