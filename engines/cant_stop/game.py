"""Can't Stop as TAG plays it (docs/RULES.md 2.3): 4 d6, tracks 2..12, 3 temporary markers, 3 tracks to win.

TAG departs from the printed game: its track lengths are 2,4,6,8,10,12,10,8,6,4,2 (printed: 3..13).
A turn is everything from a player's first decision to their stop or bust; `turn_counter` counts turns.
Phases: in "Decision" the actions are "roll" and "stop" (stopping before any roll is legal); after a roll,
in "Allocation", each pairing of the dice whose two sums are legal together is a sorted pair such as (7, 9),
else each legal single sum of the other pairings is offered once, e.g. (7,); with no option only "bust".
Dice come from the state's seeded random.Random, so a game is reproducible from its seed and actions.
"""

from __future__ import annotations

import random
from _random import Random as _CRandom
from operator import and_, eq, sub

import engines.cant_stop.tag_json as cant_stop_tag
from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, TAG, Game, State, check_dialect,
                          check_params, common_json, normalize_action, returns_from_scores, same_game, turn_changes)
from engines.info import GameInfo

GAME_TYPE = "CantStop"
TRACK_LENGTHS = (0, 0, 2, 4, 6, 8, 10, 12, 10, 8, 6, 4, 2)  # by dice sum; 0 and 1 are unused, as in TAG
SLOTS = len(TRACK_LENGTHS)  # a seat's marker slots, indexed by dice sum
TRACKS = range(2, 13)
MARKERS = 3
TRACKS_TO_WIN = 3
DECISION, ALLOCATION = "Decision", "Allocation"
ROLL, STOP, BUST = "roll", "stop", "bust"


def _pairings(value: int) -> tuple:
    """The distinct sorted sum pairs of the three ways to pair the dice of roll `value` (as roll() decodes it)."""
    d = (value % 6 + 1, value // 6 % 6 + 1, value // 36 % 6 + 1, value // 216 + 1)
    pairings = []
    for a, b in ((d[0] + d[1], d[2] + d[3]), (d[0] + d[2], d[1] + d[3]), (d[0] + d[3], d[1] + d[2])):
        pairing = (a, b) if a <= b else (b, a)
        if pairing not in pairings:
            pairings.append(pairing)
    return tuple(pairings)


def roll_value(getrandbits) -> int:
    """rng.randrange(6**4) from the rng's `getrandbits`, with CPython's rejection sampling inlined (the same draws)."""
    value = getrandbits(11)  # (6**4).bit_length()
    while value >= 1296:
        value = getrandbits(11)
    return value


def seeded_random(seed: int) -> random.Random:
    """random.Random(seed) for an int `seed` (the same state), seeded by _random without Random's Python layers."""
    rng = random.Random.__new__(random.Random)
    _CRandom.seed(rng, seed)
    rng.gauss_next = None  # as Random.seed sets it
    return rng


ROLLS = tuple((value % 6 + 1, value // 6 % 6 + 1, value // 36 % 6 + 1, value // 216 + 1) for value in range(6**4))
PAIRINGS_BY_ROLL = tuple(map(_pairings, range(6**4)))
PAIRINGS = dict(zip(ROLLS, PAIRINGS_BY_ROLL))  # dice -> pairings, in roll() order
SINGLES = {pairing: tuple({(track,): None for track in pairing}) for pairings in PAIRINGS_BY_ROLL
           for pairing in pairings}  # pairing -> its distinct single-sum allocations, in order


class CantStop(Game):
    """The game: only the number of players (2..4, default 4) varies."""

    name = "cant_stop"
    info = GameInfo(
        baseline_heuristic="pure_score", outcome_fields=COMMON_OUTCOME_FIELDS,
        turn_order_fields=COMMON_TURN_ORDER_FIELDS, tag=cant_stop_tag, tag_game_type=cant_stop_tag.GAME_TYPE)

    def __init__(self, **params):
        self.params = check_params(self.name, params, {"n_players": 4})
        n = self.params["n_players"]
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
            raise ValueError(f"cant_stop: parameter n_players must be an int in 2..4, got {n!r}")
        self.n_players = n

    def new_state(self, seed: int = 0) -> "CantStopState":
        """An empty board with seat 0 to decide; every later roll is drawn from `seed`."""
        return CantStopState(self, random.Random(seed))

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> "CantStopState":
        """Rebuild a state from `to_json` output (`dialect`); rolls after the restart are drawn from `seed`."""
        if check_dialect(self.name, dialect) == TAG:
            return cant_stop_tag.from_tag_json(self, doc, seed)
        where = "cant_stop.from_json"
        if not isinstance(doc, dict) or doc.get("gameType") != GAME_TYPE:
            raise ValueError(f"{where}: doc is not a {GAME_TYPE} state document")
        if doc.get("nPlayers") != self.n_players:
            raise ValueError(f"{where}: nPlayers is {doc.get('nPlayers')!r}, this game has {self.n_players}")
        state = CantStopState(self, random.Random(seed))
        completed = doc.get("completedColumns")
        if not isinstance(completed, list) or len(completed) != 13 or any(type(c) is not bool for c in completed):
            raise ValueError(f"{where}: completedColumns must be 13 booleans, got {completed!r}")
        rows = doc.get("playerMarkerPositions")
        if not isinstance(rows, list) or len(rows) != self.n_players:
            raise ValueError(f"{where}: playerMarkerPositions must have one row per player, got {rows!r}")
        permanent = [track_positions(row, f"{where}: playerMarkerPositions[{p}]") for p, row in enumerate(rows)]
        state.board = [position for row in permanent for position in row]
        state.set_completed(tuple(completed))
        positions = track_positions(doc.get("temporaryMarkerPositions"), f"{where}: temporaryMarkerPositions")
        temporary = {t: position for t, position in enumerate(positions) if position}
        dice = doc.get("dice")
        if not isinstance(dice, list) or len(dice) != 4 or any(type(v) is not int or not 1 <= v <= 6 for v in dice):
            raise ValueError(f"{where}: dice must be 4 ints in 1..6, got {dice!r}")
        state.dice = tuple(dice)
        if doc.get("gamePhase") not in (DECISION, ALLOCATION):
            raise ValueError(f"{where}: gamePhase must be {DECISION!r} or {ALLOCATION!r}, got {doc.get('gamePhase')!r}")
        state.phase = doc["gamePhase"]
        turn_counter = doc.get("turnCounter")
        if type(turn_counter) is not int or turn_counter < 0:
            raise ValueError(f"{where}: turnCounter must be an int >= 0, got {turn_counter!r}")
        state.turn_counter = turn_counter
        for track in TRACKS:
            at_top = [p for p in range(self.n_players) if permanent[p][track] == TRACK_LENGTHS[track]]
            if len(at_top) > 1 or bool(at_top) != state.completed[track]:
                raise ValueError(f"{where}: track {track} must be completed iff exactly one player is at its top")
        winners = [p for p in range(self.n_players) if state.owned_tracks(p) >= TRACKS_TO_WIN]
        if len(winners) > 1:
            raise ValueError(f"{where}: players {winners} all own {TRACKS_TO_WIN} tracks")
        turn_owner = doc.get("turnOwner")
        if winners:
            state.won_by = state.player = winners[0]
        elif type(turn_owner) is not int or not 0 <= turn_owner < self.n_players:
            raise ValueError(f"{where}: turnOwner must be a seat in 0..{self.n_players - 1}, got {turn_owner!r}")
        else:
            state.player = turn_owner
        if winners and (temporary or state.phase != DECISION):
            raise ValueError(f"{where}: a finished game has no temporary markers and is in phase {DECISION!r}")
        mover = permanent[state.player]
        if len(temporary) > MARKERS or any(
            state.completed[t] or position <= mover[t] for t, position in temporary.items()
        ):
            raise ValueError(f"{where}: temporaryMarkerPositions {positions} are not a legal turn in progress")
        state.rooms = [list(map(sub, state.open_length, row)) for row in permanent]
        for track, position in temporary.items():
            state.markers.append(track)
            state.rooms[state.player][track] = TRACK_LENGTHS[track] - position
        if state.phase == ALLOCATION:
            state.options = state.allocations(PAIRINGS[state.dice])
        rebuilt = state.to_json()
        for key in doc.keys() | rebuilt.keys():
            if doc.get(key) != rebuilt.get(key):
                raise ValueError(f"{where}: field {key!r} is {doc.get(key)!r}, the board implies {rebuilt.get(key)!r}")
        return state


def track_positions(row, where: str) -> list[int]:
    """Check a list of 13 marker positions by dice sum (0 on the unused 0 and 1) and return a copy."""
    if (
        not isinstance(row, list)
        or len(row) != 13
        or any(type(v) is not int for v in row)
        or any(not 0 <= row[t] <= TRACK_LENGTHS[t] for t in range(13))
    ):
        raise ValueError(f"{where} must be 13 ints, each within its track length {list(TRACK_LENGTHS)}, got {row!r}")
    return row[:]


class CantStopState(State):
    """Permanent markers (a flat board), completed tracks, this turn's temporary markers, dice and phase."""

    __slots__ = ("game", "n_players", "board", "completed", "open_length", "owned", "rooms", "markers", "dice",
                 "phase", "options", "player", "turn_counter", "won_by", "rng", "rng_shared")

    def __init__(self, game: CantStop, rng: random.Random):
        self.game = game
        self.n_players = game.n_players
        self.board = [0] * (SLOTS * game.n_players)  # board[seat * SLOTS + track]: permanent marker position
        # completed[track], open_length[track] (its length, 0 once completed) and owned[seat] (completed tracks
        # topped by seat) change only when a stop completes a track: tuples shared by clones and replaced
        self.completed = (False,) * SLOTS
        self.open_length = TRACK_LENGTHS
        self.owned = (0,) * game.n_players
        # rooms[seat][track] = steps left to the top (<= 0 once completed) from seat's marker: the mover's
        # temporary one where it has one, else the permanent one; markers = the mover's temporary markers' tracks
        self.rooms = [list(TRACK_LENGTHS) for _ in range(game.n_players)]
        self.markers: list[int] = []
        self.dice = (1, 1, 1, 1)  # the last roll; ones before the first roll
        self.phase = DECISION
        self.options: tuple = ()  # allocation actions for the current dice (Allocation phase only)
        self.player = 0
        self.turn_counter = 0
        self.won_by = -1
        self.rng = rng
        self.rng_shared = False  # True while a clone may hold the same rng: copy it before drawing

    @property
    def current_player(self) -> int:
        return self.player

    @property
    def permanent(self) -> tuple:
        """permanent[seat][track] (index = dice sum; 0 and 1 unused): permanent marker positions."""
        board = self.board
        return tuple(tuple(board[start:start + SLOTS]) for start in range(0, len(board), SLOTS))

    @property
    def temporary(self) -> dict[int, int]:
        """track -> position of the mover's temporary marker on it."""
        room = self.rooms[self.player]
        return {track: TRACK_LENGTHS[track] - room[track] for track in self.markers}

    def legal_actions(self) -> list:
        if self.won_by >= 0:
            return []
        if self.phase == DECISION:
            return [ROLL, STOP]
        return list(self.options) if self.options else [BUST]

    def apply(self, action) -> None:
        """Apply `action` for the current player; a ValueError names an illegal one and what is legal."""
        if self.won_by < 0:  # the usual legal actions first, as the checks below would find them
            if self.phase == DECISION:
                if action == ROLL:
                    self.roll()
                    return
                if action == STOP:
                    self.stop()
                    return
            elif type(action) is tuple and action in self.options:
                self.advance(action)
                return
        if type(action) is list:
            action = normalize_action(action)
        if type(action) is tuple and len(action) == 2 and type(action[0]) is int and type(action[1]) is int:
            action = (min(action), max(action))
        if self.won_by >= 0:
            legal = False
        elif self.phase == DECISION:
            legal = action == ROLL or action == STOP
        elif self.options:
            legal = type(action) is tuple and action in self.options
        else:
            legal = action == BUST
        if not legal:
            raise ValueError(
                f"cant_stop: illegal action {action!r} in phase {self.phase}; legal: {self.legal_actions()}"
            )
        if action == ROLL:
            self.roll()
        elif action == STOP:
            self.stop()
        elif action == BUST:
            self.drop_progress()
            self.end_turn()
        else:
            self.advance(action)

    def advance(self, tracks: tuple) -> None:
        """One step on each track of the allocation `tracks` (two on a double), placing markers as needed."""
        room, markers = self.rooms[self.player], self.markers
        for track in tracks:
            room[track] -= 1
            if track not in markers:
                markers.append(track)
        self.phase = DECISION

    def random_playout(self, rand, max_actions: int) -> None:
        """Apply up to `max_actions` moves legal_actions()[int(rand() * n)], as the generic MCTS rollout does,
        without apply's checks (every action is taken from the legal list). The moves are written out here, on
        locals written back at the end, as this is where MCTS spends its time."""
        if self.won_by >= 0:
            return
        rooms, markers, board = self.rooms, self.markers, self.board  # mutated in place, never replaced
        allocating, options, player, n_players = self.phase == ALLOCATION, self.options, self.player, self.n_players
        allocations, getrandbits, value, turns, room = self.allocations, None, -1, 0, rooms[player]
        for _ in range(max_actions):
            if allocating:
                allocating = False
                if options:
                    for track in options[int(rand() * len(options))]:  # advance
                        room[track] -= 1
                        if track not in markers:
                            markers.append(track)
                    continue
                rand()  # the only legal action, "bust", is still drawn: drop_progress
                start, open_length = player * SLOTS, self.open_length
                for track in markers:
                    room[track] = open_length[track] - board[start + track]
            elif rand() < 0.5:  # int(rand() * 2) == 0: roll
                if getrandbits is None:
                    getrandbits = self.own_rng().getrandbits
                value = getrandbits(11)  # roll_value
                while value >= 1296:
                    value = getrandbits(11)
                options = allocations(PAIRINGS_BY_ROLL[value])
                allocating = True
                continue
            else:  # stop: settle
                start = player * SLOTS
                topped = False
                for track in markers:
                    board[start + track] = TRACK_LENGTHS[track] - room[track]
                    if room[track] == 0:
                        topped = True
                if topped:
                    self.complete([track for track in markers if room[track] == 0])
            markers.clear()  # end_turn
            turns += 1
            options = ()
            if self.won_by >= 0:
                break
            player = self.player = (player + 1) % n_players
            room = rooms[player]
        if value >= 0:
            self.dice = ROLLS[value]
        self.phase, self.options = ALLOCATION if allocating else DECISION, options
        self.turn_counter += turns

    def own_rng(self) -> random.Random:
        """The rng, first copied if a clone may share it."""
        if self.rng_shared:
            own = random.Random.__new__(random.Random)
            own.setstate(self.rng.getstate())
            self.rng, self.rng_shared = own, False
        return self.rng

    def roll(self) -> None:
        """Roll the 4 dice and list the allocations they allow."""
        value = roll_value((self.own_rng() if self.rng_shared else self.rng).getrandbits)
        self.dice = ROLLS[value]  # four independent d6 from one draw
        self.phase = ALLOCATION
        self.options = self.allocations(PAIRINGS_BY_ROLL[value])

    def allocations(self, pairings: tuple) -> tuple:
        """TAG's allocation actions for the dice with these `pairings`: legal pairings, else legal single sums."""
        # is_legal written out: a step needs room on its track, a track without a marker needs a free one
        room, markers = self.rooms[self.player], self.markers
        free = MARKERS - len(markers)
        options = []
        for pairing in pairings:
            a, b = pairing
            if a == b:
                if room[a] >= 2 and (free or a in markers):
                    options.append(pairing)
            elif room[a] > 0 and room[b] > 0 and (free > 1 or (a not in markers) + (b not in markers) <= free):
                options.append(pairing)
        if len(options) == len(pairings):
            return pairings
        for pairing in pairings:
            if pairing not in options:
                for single in SINGLES[pairing]:
                    if single not in options and room[single[0]] > 0 and (free or single[0] in markers):
                        options.append(single)
        return tuple(options)

    def is_legal(self, tracks: tuple) -> bool:
        """Each track open with room for its steps, and a free temporary marker for each new track.

        Equivalent to TAG's count (3 - markers placed + markers on these tracks >= distinct tracks).
        """
        steps = len(tracks) if tracks[0] == tracks[-1] else 1  # (7, 7) is two steps on one track
        new_markers = 0
        for track in tracks if steps == 1 else tracks[:1]:
            if self.rooms[self.player][track] < steps:
                return False
            if track not in self.markers:
                new_markers += 1
        return new_markers <= MARKERS - len(self.markers)

    def stop(self) -> None:
        """Make the temporary progress permanent and end the turn."""
        self.settle()
        self.end_turn()

    def settle(self) -> None:
        """Temporary progress made permanent; tracks it topped are completed, which may win the game."""
        board, room, markers = self.board, self.rooms[self.player], self.markers
        start = self.player * SLOTS
        for track in markers:
            board[start + track] = TRACK_LENGTHS[track] - room[track]
        topped = [track for track in markers if room[track] == 0]
        markers.clear()
        if topped:
            self.complete(topped)

    def drop_progress(self) -> None:
        """A bust: the temporary markers go, the mover's room is measured from its permanent markers again."""
        room, board, open_length = self.rooms[self.player], self.board, self.open_length
        start = self.player * SLOTS
        for track in self.markers:
            room[track] = open_length[track] - board[start + track]
        self.markers.clear()

    def complete(self, topped: list) -> None:
        """The mover completes the `topped` tracks, which may win the game (only now can it reach the target)."""
        player = self.player
        completed, open_length, owned = list(self.completed), list(self.open_length), list(self.owned)
        for track in topped:
            completed[track], open_length[track] = True, 0
        owned[player] += len(topped)  # no other seat tops these tracks
        self.completed, self.open_length, self.owned = tuple(completed), tuple(open_length), tuple(owned)
        for room in self.rooms:  # the open length drops to 0: so does every seat's room, by the track's length
            for track in topped:
                room[track] -= TRACK_LENGTHS[track]
        if owned[player] >= TRACKS_TO_WIN:
            self.won_by = player

    def set_completed(self, completed: tuple) -> None:
        """Set the completed tracks and what follows from them with the board: open lengths, owned tracks."""
        self.completed = completed
        self.open_length = tuple(0 if done else length for done, length in zip(completed, TRACK_LENGTHS))
        board = self.board
        self.owned = tuple(sum(map(and_, map(eq, board[start:start + SLOTS], TRACK_LENGTHS), completed))
                           for start in range(0, len(board), SLOTS))

    def end_turn(self) -> None:
        """Count the turn (its markers settled or dropped); the next seat decides unless the game is over."""
        self.turn_counter += 1
        self.phase = DECISION
        self.options = ()
        if self.won_by < 0:
            self.player = (self.player + 1) % self.n_players

    def owned_tracks(self, seat: int) -> int:
        """Completed tracks on which `seat`'s permanent marker stands at the top."""
        return self.owned[seat]

    def clone(self) -> "CantStopState":
        """An independent copy that will roll the same dice (it shares the rng until either side rolls)."""
        self.rng_shared = True
        return self.copy_with(self.rng, shared=True)

    def determinize(self, player: int, rng: random.Random) -> "CantStopState":
        """A copy whose future dice are re-seeded from `rng`: the board is public, later rolls are not."""
        return self.copy_with(seeded_random(rng.getrandbits(64)), shared=False)

    def copy_with(self, rng: random.Random, shared: bool) -> "CantStopState":
        other = CantStopState.__new__(CantStopState)
        other.game = self.game
        other.n_players = self.n_players
        other.board = self.board[:]
        other.completed = self.completed
        other.open_length = self.open_length
        other.owned = self.owned
        other.rooms = list(map(list, self.rooms))
        other.markers = self.markers[:]
        other.dice = self.dice
        other.phase = self.phase
        other.options = self.options
        other.player = self.player
        other.turn_counter = self.turn_counter
        other.won_by = self.won_by
        other.rng = rng
        other.rng_shared = shared
        return other

    def is_terminal(self) -> bool:
        return self.won_by >= 0

    def scores(self) -> list[float]:
        """Completed tracks owned per seat (TAG's game score)."""
        return list(map(float, self.owned))

    def progress(self) -> list[float]:
        """Per seat: completed tracks owned plus the banked share of every open track climbed (temporary
        markers left out: a bust would lose them); a finer score for MCTS's cut-off rollouts."""
        board, open_length = self.board, self.open_length
        return [owned + sum(board[start + track] / TRACK_LENGTHS[track] for track in TRACKS if open_length[track])
                for owned, start in zip(self.owned, range(0, len(board), SLOTS))]

    def returns(self) -> list[int]:
        if self.won_by < 0:
            return [0] * self.n_players
        return returns_from_scores(list(self.owned))

    def key(self) -> tuple:
        """The position: markers, completed tracks, mover, phase and (when they matter) the dice."""
        return (
            self.permanent,
            self.completed,
            tuple(sorted(self.temporary.items())),
            self.player,
            self.phase,
            self.dice if self.phase == ALLOCATION else None,
            self.won_by,
        )

    def json_changes(self, reference) -> list[tuple] | None:
        """The to_json() values in which this state differs from `reference` (State.json_changes): completed
        columns, permanent and temporary markers and dice item by item, the phase, the common fields."""
        if type(reference) is not CantStopState or (reference.game is not self.game and
                                                    not same_game(reference.game, self.game)):
            return None
        found = []
        if reference.completed != self.completed:
            _item_changes(_COMPLETED, reference.completed, self.completed, found)
        old_board, board = reference.board, self.board
        if old_board != board:
            for index in range(len(board)):
                if old_board[index] != board[index]:
                    found.append((_MARKER_PLACES[index], old_board[index], board[index]))
        old_temporary, temporary = reference._temporary(), self._temporary()
        if old_temporary != temporary:
            _item_changes(_TEMPORARY, old_temporary, temporary, found)
        if reference.dice != self.dice:
            _item_changes(_DICE, reference.dice, self.dice, found)
        if reference.phase != self.phase:
            found.append((_PHASE, reference.phase, self.phase))
        turn_changes(reference.turn_counter, self.turn_counter, -1 if reference.won_by >= 0 else reference.player,
                     -1 if self.won_by >= 0 else self.player, reference, self, found)
        return found

    def _temporary(self) -> list[int]:
        """to_json's temporaryMarkerPositions: this turn's marker height per track, 0 where none."""
        temporary = [0] * SLOTS
        room = self.rooms[self.player]
        for track in self.markers:
            temporary[track] = TRACK_LENGTHS[track] - room[track]
        return temporary

    def to_json(self, dialect: str = OURS) -> dict:
        """TAG's container fields, plus this turn's temporary markers (0 = none) and the phase."""
        if dialect != OURS and check_dialect("cant_stop", dialect) == TAG:
            return cant_stop_tag.tag_json(self)
        board = self.board
        return {
            "completedColumns": list(self.completed),
            "playerMarkerPositions": [board[start:start + SLOTS] for start in range(0, len(board), SLOTS)],
            "temporaryMarkerPositions": self._temporary(),
            "dice": list(self.dice),
            "gamePhase": self.phase,
            **common_json(self, GAME_TYPE),
        }


_COMPLETED, _TEMPORARY, _DICE, _PHASE = ("completedColumns",), ("temporaryMarkerPositions",), ("dice",), ("gamePhase",)
_MARKER_PLACES = tuple(("playerMarkerPositions", index // SLOTS, index % SLOTS) for index in range(SLOTS * 4))  # 4 seats


def _item_changes(location: tuple, old, new, found: list) -> None:
    """Append the items in which two lists differ (json_changes), or the whole list when their lengths differ."""
    if len(old) != len(new):
        found.append((location, list(old), list(new)))
        return
    for i, (before, after) in enumerate(zip(old, new)):
        if before != after:
            found.append(((*location, i), before, after))
