"""Connect4 as TAG plays it: an 8x8 board, 4 in a row, pieces drop to the lowest empty cell.

Bitboards: column c holds bits c*(rows+1) .. c*(rows+1)+rows-1 from the bottom up; the extra bit on top
of every column stays empty, so shifted runs never wrap from one column into the next.
A turn is a single move; the game score is the result (+1 / -1 / 0), as in TAG.
"""

from __future__ import annotations

from typing import Hashable

import engines.connect4.tag_json as connect4_tag
from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, TAG, AlternatingTwoSeatState, Game,
                          check_dialect, check_params, common_json, same_game, turn_changes)
from engines.info import GameInfo, OpenSpielInfo

PIECES = ("x", "o")  # seat 0, seat 1 (TAG's names)
EMPTY = "."
DIRECTIONS = ("vertical", "horizontal", "diagonal", "anti_diagonal")  # of a run; diagonal rises to the right
_CELL_BYTES = bytes.maketrans(b"0123", (EMPTY + PIECES[0] + PIECES[1] + PIECES[1]).encode())  # hex code -> cell


class Connect4(Game):
    """Connect4 with `rows` x `cols` cells and `win_length` in a row to win (TAG: gridSize 8, winCount 4)."""

    name = "connect4"
    info = GameInfo(
        baseline_heuristic="win_loss_scaled_score",
        outcome_fields=(*COMMON_OUTCOME_FIELDS, "winnerCells"),  # empty until a line is won
        turn_order_fields=(*COMMON_TURN_ORDER_FIELDS, "moveCount"),  # moves played so far
        tag=connect4_tag, tag_game_type=connect4_tag.GAME_TYPE,
        # column c (0 = left) is action c in both, seat 0 is "x" in both (TAG's 8x8 board given as rows/columns)
        openspiel=OpenSpielInfo("connect_four", lambda p: {"rows": p["rows"], "columns": p["cols"],
                                                           "x_in_row": p["win_length"]}, lambda game: game.cols))
    n_players = 2
    defaults = {"rows": 8, "cols": 8, "win_length": 4}

    def __init__(self, **params):
        self.params = check_params(self.name, params, self.defaults)
        for key, value in self.params.items():
            if type(value) is not int:
                raise ValueError(f"connect4: parameter {key} must be an int, got {value!r}")
        rows, cols, win = self.params["rows"], self.params["cols"], self.params["win_length"]
        if win < 2:
            raise ValueError(f"connect4: win_length must be >= 2, got {win}")
        if rows < win or cols < win:
            raise ValueError(f"connect4: rows ({rows}) and cols ({cols}) must be >= win_length ({win})")
        self.rows, self.cols, self.win_length = rows, cols, win
        self.height = rows + 1  # bits per column, including the empty guard bit
        self.bottom = [1 << (c * self.height) for c in range(cols)]
        self.top = [1 << (c * self.height + rows - 1) for c in range(cols)]
        self.column = [((1 << rows) - 1) << (c * self.height) for c in range(cols)]
        self.column_bits = [(self.column[c], self.bottom[c], self.top[c]) for c in range(cols)]
        self.n_cells = rows * cols
        # to_json lists the board as one character per bit, highest bit first: row r (from the top) is then
        # every height-th character backwards from index cols * height - rows + r
        self.cells_format = f"0{cols * self.height}x"
        self.row_slices = tuple(slice(start, None, -self.height)
                                for start in range(cols * self.height - rows, cols * self.height))
        # json_changes: a cell's bit -> (its location in to_json, its column); a column's heights location
        self.cell_places = {1 << (c * self.height + bit_row): (("board", rows - 1 - bit_row, c), c)
                            for c in range(cols) for bit_row in range(rows)}
        self.height_locations = tuple(("heights", c) for c in range(cols))
        self.min_win_moves = 2 * win - 1
        # one (step, shifts) per DIRECTIONS entry: up a column, across a row, up and to the right, down and to the right
        self.run_shifts = [(step, _doubling_shifts(step, win)) for step in (1, self.height, self.height + 1, self.height - 1)]
        self.shift_groups = tuple(tuple(shifts) for _, shifts in self.run_shifts)
        # Runs of up to 4 need at most two shifts per direction; has_run then skips its inner loop
        # (a second shift of 0 leaves a run of 2 unchanged). None for longer runs.
        self.shift_pairs = tuple((shifts + (0,))[:2] for shifts in self.shift_groups) if win <= 4 else None

    def new_state(self, seed: int = 0) -> "Connect4State":
        return Connect4State(self)

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> "Connect4State":
        """Rebuild a state from its to_json document; any field inconsistent with the board is rejected."""
        if check_dialect(self.name, dialect) == TAG:
            return connect4_tag.from_tag_json(self, doc)
        if not isinstance(doc, dict) or not isinstance(doc.get("board"), list):
            raise ValueError("connect4 from_json: document must be a dict with a 'board' list")
        state = self.state_from_board(doc["board"], "connect4 from_json")
        rebuilt = state.to_json()
        for key in list(doc) + list(rebuilt):
            if doc.get(key) != rebuilt.get(key):
                raise ValueError(f"connect4 from_json: field {key!r} is {doc.get(key)!r}, the board implies {rebuilt.get(key)!r}")
        return state

    def state_from_board(self, board: list, where: str) -> "Connect4State":
        """The state whose board (rows from the top of 'x' / 'o' / '.' cells) is `board`; errors start with `where`."""
        if len(board) != self.rows or any(not isinstance(row, list) or len(row) != self.cols for row in board):
            raise ValueError(f"{where}: 'board' must be {self.rows} rows of {self.cols} cells")
        seats = [0, 0]
        for r, row in enumerate(board):
            bit_row = self.rows - 1 - r
            for c, cell in enumerate(row):
                if cell == EMPTY:
                    continue
                if cell not in PIECES:
                    raise ValueError(f"{where}: board[{r}][{c}] is {cell!r}, expected one of 'x', 'o', '.'")
                seats[PIECES.index(cell)] |= 1 << (c * self.height + bit_row)
        mask = seats[0] | seats[1]
        for c in range(self.cols):
            column = (mask & self.column[c]) >> (c * self.height)
            if column & (column + 1):
                raise ValueError(f"{where}: column {c} has a piece above an empty cell")
        n0, n1 = seats[0].bit_count(), seats[1].bit_count()
        if n0 not in (n1, n1 + 1):
            raise ValueError(f"{where}: {n0} 'x' pieces and {n1} 'o' pieces cannot alternate from 'x'")
        state = Connect4State(self)
        state._moves = n0 + n1
        state._mask = mask
        state._current = seats[state._moves & 1]
        state._legal = [c for c in range(self.cols) if not mask & self.top[c]]
        winners = [p for p in (0, 1) if self.has_run(seats[p])]
        if len(winners) == 2:
            raise ValueError(f"{where}: both players have a winning line")
        if winners:
            if winners[0] != (state._moves - 1) & 1:
                raise ValueError(f"{where}: seat {winners[0]} has a winning line but did not move last")
            state._winner = winners[0]
            state._over = True
        else:
            state._over = state._moves == self.n_cells
        return state

    def has_run(self, bits: int) -> bool:
        """True when `bits` contain win_length consecutive pieces in any direction."""
        if self.shift_pairs is not None:
            for first, second in self.shift_pairs:
                run = bits & (bits >> first)
                if run & (run >> second):
                    return True
            return False
        for shifts in self.shift_groups:
            run = bits
            for shift in shifts:
                run &= run >> shift
            if run:
                return True
        return False

    def run_cells(self, bits: int) -> list[list[int]]:
        """All [row-from-top, col] cells on a winning run of `bits`, sorted."""
        cells = set()
        for step, shifts in self.run_shifts:
            run = _run_starts(bits, shifts)
            while run:
                start = (run & -run).bit_length() - 1
                run &= run - 1
                for i in range(self.win_length):
                    column, row = divmod(start + i * step, self.height)
                    cells.add((self.rows - 1 - row, column))
        return [list(cell) for cell in sorted(cells)]

    def run_directions(self, bits: int) -> list[str]:
        """The DIRECTIONS in which `bits` hold win_length in a row, each once."""
        return [direction for direction, (_, shifts) in zip(DIRECTIONS, self.run_shifts) if _run_starts(bits, shifts)]


def _run_starts(bits: int, shifts: list[int]) -> int:
    """The pieces of `bits` that start a run along one direction, given that direction's doubling shifts."""
    for shift in shifts:
        bits &= bits >> shift
    return bits


def _doubling_shifts(step: int, length: int) -> list[int]:
    """Shift amounts that reduce a bitboard to the starts of runs of `length` along `step` in few ANDs."""
    shifts, covered = [], 1
    while covered < length:
        extra = min(covered, length - covered)
        shifts.append(extra * step)
        covered += extra
    return shifts


class Connect4State(AlternatingTwoSeatState):
    """A Connect4 position: the mover's pieces, all pieces, the move count and the outcome."""

    __slots__ = ("_game", "_current", "_mask", "_moves", "_legal", "_winner", "_over")
    n_players = 2

    def __init__(self, game: Connect4):
        self._game = game
        self._current = 0  # pieces of the player to move
        self._mask = 0  # all pieces
        self._moves = 0
        self._legal = list(range(game.cols))  # shared between clones; replaced, never mutated
        self._winner = -1
        self._over = False

    @property
    def game(self) -> Connect4:
        return self._game

    def legal_actions(self) -> list[int]:
        return [] if self._over else self._legal[:]

    def apply(self, action: int) -> None:
        if self._over or type(action) is not int or action not in self._legal:
            raise ValueError(f"connect4: illegal action {action!r}; legal actions: {self.legal_actions()}")
        game = self._game
        column, bottom, top = game.column_bits[action]
        mask = self._mask
        bit = (mask & column) + bottom
        mover = self._current | bit
        mask |= bit
        self._mask = mask
        self._current = mover ^ mask  # the opponent's pieces: they move next
        moves = self._moves + 1
        self._moves = moves
        if bit & top:
            self._legal = [c for c in self._legal if c != action]
        if moves >= game.min_win_moves and game.has_run(mover):
            self._winner = (moves - 1) & 1
            self._over = True
        elif moves == game.n_cells:
            self._over = True

    def random_playout(self, rand, max_actions: int) -> None:
        """Apply up to `max_actions` uniformly random moves, each legal_actions()[int(rand() * n)].

        The same moves as that loop over legal_actions() and apply() (MCTS rollouts rely on it), with the
        state kept in local variables: a rollout is most of an MCTS iteration.
        """
        game = self._game
        column_bits, has_run, min_win_moves, n_cells = game.column_bits, game.has_run, game.min_win_moves, game.n_cells
        legal, current, mask, moves, over = self._legal, self._current, self._mask, self._moves, self._over
        for _ in range(max_actions):
            if over:
                break
            action = legal[int(rand() * len(legal))]
            column, bottom, top = column_bits[action]
            bit = (mask & column) + bottom
            mover = current | bit
            mask |= bit
            current = mover ^ mask
            moves += 1
            if bit & top:
                legal = [c for c in legal if c != action]
            if moves >= min_win_moves and has_run(mover):
                self._winner = (moves - 1) & 1
                over = True
            elif moves == n_cells:
                over = True
        self._legal, self._current, self._mask, self._moves, self._over = legal, current, mask, moves, over

    def clone(self) -> "Connect4State":
        other = Connect4State.__new__(Connect4State)
        other._game = self._game
        other._current = self._current
        other._mask = self._mask
        other._moves = self._moves
        other._legal = self._legal
        other._winner = self._winner
        other._over = self._over
        return other

    def seat_bits(self) -> tuple[int, int]:
        """Pieces of seat 0 and seat 1 as bitboards."""
        other = self._mask ^ self._current
        return (self._current, other) if self._moves & 1 == 0 else (other, self._current)

    def key(self) -> Hashable:
        return self.seat_bits()

    def json_changes(self, reference) -> list[tuple] | None:
        """The to_json() values in which this state differs from `reference` (State.json_changes), from the
        bitboards: each changed cell, the heights of its column, the winning cells, the move count, the common fields."""
        if type(reference) is not Connect4State or (reference._game is not self._game and
                                                     not same_game(reference._game, self._game)):
            return None
        game, found = self._game, []
        old_moves, moves, old_mask, mask = reference._moves, self._moves, reference._mask, self._mask
        old_x = reference._current if old_moves & 1 == 0 else old_mask ^ reference._current  # seat 0's pieces
        new_x = self._current if moves & 1 == 0 else mask ^ self._current
        changed = (old_x ^ new_x) | (old_mask ^ mask)  # where seat 0's pieces or all pieces differ
        if changed and not changed & (changed - 1):  # one cell (a child of a decision: a JSON-Bag OSLA's many calls)
            location, column = game.cell_places[changed]
            found.append((location, _cell(old_x, old_mask, changed), _cell(new_x, mask, changed)))
            bits = game.column[column]
            before, after = (old_mask & bits).bit_count(), (mask & bits).bit_count()
            if before != after:
                found.append((game.height_locations[column], before, after))
        elif changed:
            places, columns = game.cell_places, []
            while changed:
                bit = changed & -changed
                changed ^= bit
                location, column = places[bit]
                found.append((location, _cell(old_x, old_mask, bit), _cell(new_x, mask, bit)))
                if column not in columns:
                    columns.append(column)
            for column in columns:
                bits = game.column[column]
                before, after = (old_mask & bits).bit_count(), (mask & bits).bit_count()
                if before != after:
                    found.append((game.height_locations[column], before, after))
        if reference._winner >= 0 or self._winner >= 0:
            before = game.run_cells(reference.seat_bits()[reference._winner]) if reference._winner >= 0 else []
            after = game.run_cells(self.seat_bits()[self._winner]) if self._winner >= 0 else []
            if before != after:
                found.append((_WINNER_CELLS, before, after))
        if old_moves != moves:
            found.append((_MOVE_COUNT, old_moves, moves))
        turn_changes(old_moves, moves, -1 if reference._over else old_moves & 1, -1 if self._over else moves & 1,
                     reference, self, found)
        return found

    def to_json(self, dialect: str = OURS) -> dict:
        if dialect != OURS and check_dialect("connect4", dialect) == TAG:
            return connect4_tag.tag_json(self)
        game = self._game
        bits = self.seat_bits()
        # each seat's binary digits read as hex make bit i hex digit i, so one sum codes every cell (0 / 1 / 2)
        codes = int(format(bits[0], "b"), 16) + 2 * int(format(bits[1], "b"), 16)
        cells = list(format(codes, game.cells_format).encode().translate(_CELL_BYTES).decode())
        mask = self._mask
        return {
            "board": list(map(cells.__getitem__, game.row_slices)),
            "heights": [(mask & column).bit_count() for column in game.column],
            "winnerCells": game.run_cells(bits[self._winner]) if self._winner >= 0 else [],
            "moveCount": self._moves,
            **common_json(self, "Connect4"),
        }


_WINNER_CELLS, _MOVE_COUNT = ("winnerCells",), ("moveCount",)


def _cell(seat0: int, mask: int, bit: int) -> str:
    """The to_json cell of `bit`, given seat 0's pieces and all pieces."""
    return (PIECES[0] if seat0 & bit else PIECES[1]) if mask & bit else EMPTY
