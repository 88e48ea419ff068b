"""Dots and Boxes as TAG plays it (docs/RULES.md 2.2): R x C boxes, default 5 high x 7 wide, 2 players.

Lines use the neutral encoding of docs/DESIGN.md section 1: horizontal lines first (id = r*C + c, r = 0..R),
then vertical lines (id = (R+1)*C + r*(C+1) + c, c = 0..C). Completing one or more boxes gives the mover
another move within the same turn; a turn ends when a move completes no box or when the game ends.
Drawn lines and owned boxes are bit sets (Python ints); with a list of the free lines that clones share,
a state is a handful of ints and a clone copies no board.
"""

from __future__ import annotations

from array import array

import engines.dots_and_boxes.tag_json as dots_and_boxes_tag
from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, TAG, Game, State, check_dialect,
                          check_params, common_json, returns_from_scores, same_game, turn_changes)
from engines.info import GameInfo, OpenSpielInfo

GAME_TYPE = "DotsAndBoxes"
N_PLAYERS = 2
_OWNER_BYTES = bytes.maketrans(b"0123", b"\xff\x00\x01\x01")  # hex digit (seat 0 bit + 2 * seat 1 bit) -> owner


def owners_of_bits(bits_by_seat: list[int], size: int) -> list[int]:
    """Owner seat of items 0..size-1 (bit i of a seat's set is item i; seat 1 wins a tie), -1 if none.
    Each set's binary digits read as hex make item i hex digit i, so one sum codes every item in C-level steps."""
    first, second = bits_by_seat
    codes = int(format(first, "b"), 16) + 2 * int(format(second, "b"), 16)
    owner_bytes = format(codes, f"0{size}x")[::-1].encode().translate(_OWNER_BYTES)
    owners = array("b", owner_bytes).tolist()  # signed bytes: 0xff is -1
    del owners[size:]
    return owners


def line_ids_of_box(rows: int, cols: int, r: int, c: int) -> tuple[int, int, int, int]:
    """The (top, bottom, left, right) line ids of box (r, c) in the neutral encoding."""
    first_vertical = (rows + 1) * cols
    top = r * cols + c
    left = first_vertical + r * (cols + 1) + c
    return top, top + cols, left, left + 1


def drawn_since(before: "DotsAndBoxesState", after: "DotsAndBoxesState") -> list[int]:
    """Lines free in `before` and drawn in `after`: the only moves that can lead from one to the other."""
    still_free = set(after.legal_actions())
    return [line for line in before.legal_actions() if line not in still_free]


class DotsAndBoxes(Game):
    """The game: board size and the per-line box masks shared by all its states."""

    name = "dots_and_boxes"
    info = GameInfo(
        baseline_heuristic="win_loss_scaled_score",
        outcome_fields=COMMON_OUTCOME_FIELDS, turn_order_fields=COMMON_TURN_ORDER_FIELDS,
        tag=dots_and_boxes_tag, tag_game_type=dots_and_boxes_tag.GAME_TYPE,
        # our neutral line ids (horizontal lines row by row, then vertical ones) are OpenSpiel's actions
        openspiel=OpenSpielInfo("dots_and_boxes", lambda p: {"num_rows": p["rows"], "num_cols": p["cols"]},
                                lambda game: game.n_lines, drawn_since))
    n_players = N_PLAYERS

    def __init__(self, **params):
        self.params = check_params(self.name, params, {"rows": 5, "cols": 7})
        self.rows, self.cols = self.params["rows"], self.params["cols"]
        for key in ("rows", "cols"):
            value = self.params[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"dots_and_boxes: parameter {key} must be an int >= 1, got {value!r}")
        self.n_boxes = self.rows * self.cols
        self.n_lines = (self.rows + 1) * self.cols + self.rows * (self.cols + 1)
        self.all_lines = (1 << self.n_lines) - 1
        self.all_boxes = (1 << self.n_boxes) - 1
        self.box_line_masks = []
        boxes_of_line: list[list[tuple[int, int]]] = [[] for _ in range(self.n_lines)]
        for r in range(self.rows):
            for c in range(self.cols):
                lines = line_ids_of_box(self.rows, self.cols, r, c)
                mask = sum(1 << line for line in lines)
                self.box_line_masks.append(mask)
                for line in lines:
                    boxes_of_line[line].append((1 << (r * self.cols + c), mask))
        # For each line: (box bit, that box's line mask) for the one or two boxes it borders.
        self.boxes_of_line = tuple(tuple(pairs) for pairs in boxes_of_line)
        # json_changes: the to_json locations of each line's and box's owner, and of each seat's box count
        self.line_locations = tuple(("lineOwners", line) for line in range(self.n_lines))
        self.box_locations = tuple(("boxOwners", box) for box in range(self.n_boxes))
        self.box_count_locations = (("nCellsPerPlayer", 0), ("nCellsPerPlayer", 1))

    def new_state(self, seed: int = 0) -> "DotsAndBoxesState":
        """The empty board with seat 0 to move; the game has no chance, so `seed` changes nothing."""
        return DotsAndBoxesState(self)

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> "DotsAndBoxesState":
        """Rebuild a state from `to_json` output, checking it against this game's board size."""
        if check_dialect(self.name, dialect) == TAG:
            return dots_and_boxes_tag.from_tag_json(self, doc)
        if not isinstance(doc, dict) or doc.get("gameType") != GAME_TYPE:
            raise ValueError(f"dots_and_boxes.from_json: doc is not a {GAME_TYPE} state document")
        turn_owner, turn_counter = doc.get("turnOwner"), doc.get("turnCounter")
        state = self.state_from_owners(doc.get("lineOwners"), doc.get("boxOwners"), turn_owner, turn_counter,
                                       "dots_and_boxes.from_json")
        rebuilt = state.to_json()
        for key in doc.keys() - rebuilt.keys():
            raise ValueError(f"dots_and_boxes.from_json: unknown field {key!r}")
        for key, value in rebuilt.items():
            if doc.get(key) != value:
                raise ValueError(f"dots_and_boxes.from_json: field {key} = {doc.get(key)!r} contradicts the board")
        return state

    def state_from_owners(self, line_owners, box_owners, turn_owner, turn_counter, where: str) -> "DotsAndBoxesState":
        """The state with these owner seats (-1 none) per line id and box; `turn_owner` is the mover (any value
        once the game is over: the last mover if it is a seat); errors start with `where`."""
        state = DotsAndBoxesState(self)
        for key, owners, count in (("lineOwners", line_owners, self.n_lines), ("boxOwners", box_owners, self.n_boxes)):
            if not isinstance(owners, list) or len(owners) != count or any(type(o) is not int or not -1 <= o <= 1 for o in owners):
                raise ValueError(f"{where}: {key} must be {count} seats in -1..1, got {owners!r}")
        for line, seat in enumerate(line_owners):
            if seat >= 0:
                state.lines_by[seat] |= 1 << line
                state.drawn |= 1 << line
        state.free = [line for line in state.free if not state.drawn >> line & 1]
        for box, seat in enumerate(box_owners):
            if seat >= 0:
                state.boxes_by[seat] |= 1 << box
                state.owned |= 1 << box
        for box, mask in enumerate(self.box_line_masks):
            if bool(state.owned >> box & 1) != (state.drawn & mask == mask):
                raise ValueError(f"{where}: box {box} is owned iff its four lines are drawn")
        if type(turn_counter) is not int or turn_counter < 0:
            raise ValueError(f"{where}: turnCounter must be an int >= 0, got {turn_counter!r}")
        if not state.is_terminal() and turn_owner not in (0, 1):
            raise ValueError(f"{where}: turnOwner must be 0 or 1, got {turn_owner!r}")
        state.player = turn_owner if turn_owner in (0, 1) else 0
        state.turn_counter = turn_counter
        return state


class DotsAndBoxesState(State):
    """A position: drawn lines and owned boxes as bit sets per seat, the mover and the turn count."""

    __slots__ = ("game", "lines_by", "drawn", "free", "boxes_by", "owned", "player", "turn_counter")
    n_players = N_PLAYERS

    def __init__(self, game: DotsAndBoxes):
        self.game = game
        self.lines_by = [0, 0]  # lines drawn by each seat
        self.drawn = 0  # union of lines_by
        self.free = list(range(game.n_lines))  # undrawn lines, ascending; shared by clones, replaced on change
        self.boxes_by = [0, 0]  # boxes owned by each seat
        self.owned = 0  # union of boxes_by
        self.player = 0
        self.turn_counter = 0

    @property
    def current_player(self) -> int:
        return self.player

    def legal_actions(self) -> list[int]:
        """Undrawn line ids in increasing order (none once the game is over: every line is drawn)."""
        return self.free[:]

    def apply(self, action: int) -> None:
        """Draw line `action`; claim the boxes it completes; pass the turn if it completed none."""
        game = self.game
        if type(action) is not int or not 0 <= action < game.n_lines:
            raise ValueError(f"dots_and_boxes: action {action!r} is not a line id in 0..{game.n_lines - 1}")
        bit = 1 << action
        if self.drawn & bit:
            raise ValueError(f"dots_and_boxes: line {action} is already drawn")
        player = self.player
        self.drawn |= bit
        self.lines_by[player] |= bit
        free = self.free[:]
        free.remove(action)
        self.free = free
        completed = 0
        for box_bit, mask in game.boxes_of_line[action]:
            if self.drawn & mask == mask:
                completed |= box_bit
        if completed:
            self.boxes_by[player] |= completed
            self.owned |= completed
            if self.owned == game.all_boxes:
                self.turn_counter += 1  # the game's end also ends the mover's turn
        else:
            self.player = 1 - player
            self.turn_counter += 1

    def clone(self) -> "DotsAndBoxesState":
        other = DotsAndBoxesState.__new__(DotsAndBoxesState)
        other.game = self.game
        other.lines_by = self.lines_by[:]
        other.drawn = self.drawn
        other.free = self.free
        other.boxes_by = self.boxes_by[:]
        other.owned = self.owned
        other.player = self.player
        other.turn_counter = self.turn_counter
        return other

    def is_terminal(self) -> bool:
        return self.owned == self.game.all_boxes

    def scores(self) -> list[float]:
        """Boxes owned per seat."""
        return [float(b.bit_count()) for b in self.boxes_by]

    def returns(self) -> list[int]:
        if self.owned != self.game.all_boxes:
            return [0, 0]
        return returns_from_scores([b.bit_count() for b in self.boxes_by])

    def key(self) -> tuple:
        """Drawn lines, box owners and the mover (-1 once the game is over: the last mover is not part of the
        final position); who drew which line does not change the position."""
        mover = -1 if self.owned == self.game.all_boxes else self.player
        return (self.drawn, self.boxes_by[0], self.boxes_by[1], mover)

    def json_changes(self, reference) -> list[tuple] | None:
        """The to_json() values in which this state differs from `reference` (State.json_changes), from the bit
        sets: each line and box whose owner changed, the box counts, the common fields."""
        if type(reference) is not DotsAndBoxesState or (reference.game is not self.game and
                                                         not same_game(reference.game, self.game)):
            return None
        game, found = self.game, []
        _owner_changes(reference.lines_by, self.lines_by, game.line_locations, found)
        old_boxes, new_boxes = reference.boxes_by, self.boxes_by
        if old_boxes != new_boxes:
            _owner_changes(old_boxes, new_boxes, game.box_locations, found)
            for seat, location in enumerate(game.box_count_locations):
                before, after = old_boxes[seat].bit_count(), new_boxes[seat].bit_count()
                if before != after:
                    found.append((location, before, after))
        all_boxes = game.all_boxes
        turn_changes(reference.turn_counter, self.turn_counter, -1 if reference.owned == all_boxes else reference.player,
                     -1 if self.owned == all_boxes else self.player, reference, self, found)
        return found

    def to_json(self, dialect: str = OURS) -> dict:
        """Owner seat of each line (by line id) and box (row-major), -1 if none; box counts per seat."""
        if dialect != OURS and check_dialect("dots_and_boxes", dialect) == TAG:
            return dots_and_boxes_tag.tag_json(self)
        n_lines = self.game.n_lines
        lines, boxes = self.lines_by, self.boxes_by
        # one pass over lines and boxes together: box b is item n_lines + b
        line_owners = owners_of_bits([lines[0] | boxes[0] << n_lines, lines[1] | boxes[1] << n_lines],
                                     n_lines + self.game.n_boxes)
        box_owners = line_owners[n_lines:]
        del line_owners[n_lines:]
        return {
            "lineOwners": line_owners,
            "boxOwners": box_owners,
            "nCellsPerPlayer": [boxes[0].bit_count(), boxes[1].bit_count()],
            **common_json(self, GAME_TYPE),
        }


def _owner_changes(old: list[int], new: list[int], locations: tuple, found: list) -> None:
    """Append (location, old owner, new owner) of every item whose owner differs between two per-seat bit sets
    (owners as owners_of_bits reads them: seat 1 where both hold an item, -1 where none)."""
    changed = (old[0] ^ new[0]) | (old[1] ^ new[1])
    while changed:
        bit = changed & -changed
        changed ^= bit
        before = 1 if old[1] & bit else 0 if old[0] & bit else -1
        after = 1 if new[1] & bit else 0 if new[0] & bit else -1
        if before != after:
            found.append((locations[bit.bit_length() - 1], before, after))
