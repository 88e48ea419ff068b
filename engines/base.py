"""The engine contract every game implements (docs/DESIGN.md section 1).

A game is a factory of states; a state is mutable, cheap to clone and fully serialisable.
Chance (dice, shuffles) is drawn from the state's own seeded `random.Random`, so a game is
reproducible from its seed and action list.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any, Callable, Hashable

Action = Any  # int, str, or tuple of ints/strings; JSON arrays are accepted wherever a tuple is

# JSON dialects of State.to_json / Game.from_json: "ours" (what is recorded and tokenized) and "tag" (the
# document TAG's state container writes for the same state; not every engine speaks it).
OURS, TAG = "ours", "tag"
DIALECTS = (OURS, TAG)


def check_dialect(game: str, dialect: str, spoken: tuple[str, ...] = DIALECTS) -> str:
    """Return `dialect` if `game` speaks it, else raise a one-line error naming the dialects it speaks."""
    if dialect not in spoken:
        raise ValueError(f"{game}: unknown JSON dialect {dialect!r}; this game speaks {list(spoken)}")
    return dialect


def normalize_action(action: Action) -> Action:
    """Turn a JSON-decoded action (lists) into the hashable form engines use (tuples)."""
    if isinstance(action, list):
        return tuple(normalize_action(a) for a in action)
    return action


def result_names(returns: list[int]) -> list[str]:
    """TAG's `playerResults` names for +1 / 0 / -1 returns."""
    return ["WIN_GAME" if r > 0 else "LOSE_GAME" if r < 0 else "DRAW_GAME" for r in returns]


def returns_from_scores(scores: list) -> list[int]:
    """+1 for a single leader, 0 for every tied leader, -1 for everyone else (TAG's end-of-game ranking)."""
    best = max(scores)
    leaders = scores.count(best)
    return [(1 if leaders == 1 else 0) if s == best else -1 for s in scores]


COMMON_OUTCOME_FIELDS = ("gameStatus", "playerResults")  # common_json's fields that state the result
COMMON_TURN_ORDER_FIELDS = ("turnCounter", "turnOwner")  # common_json's fields that count turns or name the mover


def common_json(state: "State", game_type: str) -> dict:
    """The fields every state document ends with, named as TAG's AbstractGameStateContainer names them.

    `gameStatus` and `playerResults` state the outcome; the pipeline's token filter removes them.
    """
    n_players = state.n_players
    if state.is_terminal():
        return {"gameType": game_type, "turnCounter": state.turn_counter, "turnOwner": -1, "nPlayers": n_players,
                "gameStatus": "GAME_END", "playerResults": result_names(state.returns())}
    return {"gameType": game_type, "turnCounter": state.turn_counter, "turnOwner": state.current_player,
            "nPlayers": n_players, "gameStatus": "ONGOING", "playerResults": ["GAME_ONGOING"] * n_players}


class _Absent:
    """The type of ABSENT (one object, named in reprs)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()  # State.json_changes: the side of a change where the location is not in the document


class Items(tuple):
    """A json_parts key for a list: an item with a given key is the same subtree at whatever position it stands."""

    __slots__ = ()


def same_game(first: "Game", second: "Game") -> bool:
    """Whether two game objects make the same documents: the same object, or the same class and parameters."""
    return first is second or (type(first) is type(second) and first.params == second.params)


def turn_changes(old_turn: int, new_turn: int, old_owner: int, new_owner: int, old: "State", new: "State",
                 found: list) -> None:
    """Append to `found` the common_json fields in which `new` differs from `old` (State.json_changes' shared part,
    both states of one game: gameType and nPlayers are equal), from their turn counters and turn owners (-1 once the
    game is over)."""
    if old_turn != new_turn:
        found.append((_TURN_COUNTER, old_turn, new_turn))
    if old_owner != new_owner:
        found.append((_TURN_OWNER, old_owner, new_owner))
    if old_owner < 0 or new_owner < 0:  # a game over on either side: its outcome fields may differ
        before, after = common_json(old, ""), common_json(new, "")
        for key in ("gameStatus", "playerResults"):
            if before[key] != after[key]:
                found.append(((key,), before[key], after[key]))


_TURN_COUNTER, _TURN_OWNER = ("turnCounter",), ("turnOwner",)


def common_key(state: "State") -> tuple:
    """What sets common_json's fields (the game fixed): a json_parts key of the part that holds them."""
    if state.is_terminal():
        return state.turn_counter, -1, tuple(state.returns())
    return state.turn_counter, state.current_player


class State:
    """Base class of a game state. Subclasses implement every method that raises NotImplementedError."""

    n_players: int
    turn_counter: int  # number of completed turns; the match runner records a state when it increases

    @property
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def apply(self, action: Action) -> None:
        """Apply `action` for the current player; raise ValueError naming the action if it is illegal."""
        raise NotImplementedError

    def clone(self) -> "State":
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def returns(self) -> list[int]:
        """+1 win, -1 loss, 0 draw per seat (all tied leaders draw); all 0 while the game runs."""
        raise NotImplementedError

    def scores(self) -> list[float]:
        """The game's own score per seat (the baseline OSLA heuristic)."""
        raise NotImplementedError

    def score(self, seat: int) -> float:
        """scores()[seat]; an engine whose seats' scores cost much each may compute the one asked for alone."""
        return self.scores()[seat]

    def to_json(self, dialect: str = OURS) -> dict:
        """The full state as a JSON-compatible dict: ours (what is recorded and tokenized) or TAG's ("tag")."""
        raise NotImplementedError

    def key(self) -> Hashable:
        """Canonical hashable key: equal for the same position reached by different move orders."""
        raise NotImplementedError

    def observation_json(self, player: int) -> dict:
        """What `player` can see. Perfect-information games: the full state."""
        return self.to_json()

    def json_parts(self) -> dict[tuple, Hashable] | None:
        """to_json() (ours) as parts, for counting a document by what changed (None: not offered, count to_json()).

        Location (a tuple of dict keys and list indices from the root) -> key. The subtree at a location, with
        the subtrees of the other locations below it replaced by {} (which has no tokens), is the same whenever
        its key is the same, in one game; every value of the document lies in some location's subtree. An
        Items key stands for the list at its location item by item (no location lies below it)."""
        return None

    def json_changes(self, reference: "State") -> list[tuple] | None:
        """The values in which to_json() (ours) differs from `reference`'s, for counting a document as another plus
        what changed (None: not offered, or `reference` is not a state of the same game).

        A list of (location, before, after): location is a tuple of dict keys and list indices from the root,
        before and after the JSON values there; the other values of both documents are equal. A location may hold a
        whole container (a list that grew or shrank is one change at the list), or one side may be ABSENT: a dict
        key only one document has, or a list item past the other list's end (a list that grew or shrank at its
        end, item by item)."""
        return None

    def determinize(self, player: int, rng: random.Random) -> "State":
        """A full state consistent with `player`'s observation; hidden cards and future chance re-sampled.

        Perfect-information games without chance return a clone.
        """
        return self.clone()

    def determinizer(self, player: int) -> Callable[[random.Random], "State"]:
        """determinize(player, rng) as a function of the rng alone, valid while this state is unchanged: MCTS
        samples one an iteration. An engine may work out once here what does not depend on the rng."""
        return partial(self.determinize, player)

    def winner(self) -> int | None:
        """The single winning seat of a finished game, None on a draw or while the game runs."""
        if not self.is_terminal():
            return None
        winners = [p for p, r in enumerate(self.returns()) if r > 0]
        return winners[0] if len(winners) == 1 else None


class AlternatingTwoSeatState(State):
    """A two-seat state whose seats move in turn, one move a turn (`_moves` made so far), scored by its result alone:
    `_winner` is the winning seat (-1 while the game runs or on a draw) and `_over` whether it ended; returns and
    scores are +1 for the winner, -1 for the loser, 0 each on a draw."""

    __slots__ = ()
    _moves: int
    _winner: int
    _over: bool

    @property
    def current_player(self) -> int:
        return self._moves & 1

    @property
    def turn_counter(self) -> int:
        return self._moves

    def is_terminal(self) -> bool:
        return self._over

    def returns(self) -> list[int]:
        if self._winner < 0:
            return [0, 0]
        return [1, -1] if self._winner == 0 else [-1, 1]

    def scores(self) -> list[float]:
        return [float(r) for r in self.returns()]

class Game:
    """A game with fixed parameters; creates states. Subclasses set `name`, `info` (its GameInfo, engines/info.py),
    `n_players`, `params`."""

    name: str
    info: "GameInfo"  # engines.info.GameInfo (not imported: engines/info.py sits above this module)
    n_players: int
    params: dict

    def new_state(self, seed: int = 0) -> State:
        raise NotImplementedError

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> State:
        """Inverse of State.to_json in `dialect`; later chance is drawn from `seed`."""
        raise NotImplementedError


def check_params(game: str, given: dict, allowed: dict) -> dict:
    """Merge `given` over the defaults in `allowed`, rejecting unknown names with a clear error."""
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ValueError(f"{game}: unknown parameter(s) {unknown}; allowed: {sorted(allowed)}")
    return {**allowed, **given}
