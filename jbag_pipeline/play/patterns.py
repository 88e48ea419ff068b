"""How agents win: one seat's patterns in a recorded game (Connect4 winning lines and columns, Can't Stop turn ends
and rolls per turn, Dominion buys, the other games' action types), and their table over groups of games.

Pure functions without Dagster. The seat that made each action is the replayed state's current_player.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

import orjson
import polars as pl

from engines import load_game
from engines.base import Action, Game, State, normalize_action
from engines.dominion.cards import BUY
from jbag_pipeline.play.habits import cant_stop_turns

Pattern = tuple[str, str]  # (kind, pattern)
Namer = Callable[[State, Action], "Pattern | None"]  # an action's pattern, from the state it is applied to
ROLLS_CAPPED = 5  # Can't Stop turns of this many rolls or more share the pattern "5+"
TICTACTOE_CELLS = ("corner", "edge", "corner", "edge", "center", "edge", "corner", "edge", "corner")  # by cell 0..8
GAME_COLUMNS = ("game", "seat", "seed", "params", "actions")  # what pattern_table reads besides the keys
TABLE_COLUMNS = ("kind", "pattern", "count", "games", "per_game", "share")  # what it adds to the keys


def _replay(game: Game, seed: int, actions: list, watch: Callable[[State, int, Action], None]) -> State:
    """The final state of `actions` applied from game.new_state(seed); watch(state, mover, action) sees every
    action before it is applied. An action not among the legal ones raises a ValueError naming its index."""
    state = game.new_state(seed=seed)
    for index, recorded in enumerate(actions):
        action = normalize_action(recorded)
        if action not in state.legal_actions():
            raise ValueError(f"seat_patterns: {game.name} seed {seed}: action {index} ({recorded!r}) is not legal "
                             f"there")
        watch(state, state.current_player, action)
        state.apply(action)
    return state


def _seat_actions(namer: Namer, game: Game, seed: int, actions: list, seat: int) -> tuple[Counter, State]:
    """The patterns `namer` gives `seat`'s actions (None: no pattern), and the final state."""
    found: Counter = Counter()

    def watch(state: State, mover: int, action: Action) -> None:
        if mover == seat:
            pattern = namer(state, action)
            if pattern is not None:
                found[pattern] += 1

    return found, _replay(game, seed, actions, watch)


def _connect4(game: Game, seed: int, actions: list, seat: int) -> Counter:
    """The seat's moves per column and, if it won, each direction of its four-in-a-row once."""
    found, final = _seat_actions(lambda state, column: ("column", str(column)), game, seed, actions, seat)
    if final.winner() == seat:
        found.update(("win_line", direction) for direction in game.run_directions(final.seat_bits()[seat]))
    return found


def _cant_stop(game: Game, seed: int, actions: list, seat: int) -> Counter:
    """Per finished turn of the seat: how it ended (stop / bust) and its rolls ("0" .. "4", "5+")."""
    moves: list = []
    _replay(game, seed, actions, lambda state, mover, action: moves.append((mover, action)))
    found: Counter = Counter()
    for turn in cant_stop_turns(moves):
        if turn.seat == seat and turn.end is not None:
            found["turn_end", turn.end] += 1
            found["rolls_per_turn", str(turn.rolls) if turn.rolls < ROLLS_CAPPED else f"{ROLLS_CAPPED}+"] += 1
    return found


def _dominion_buy(state: State, action: Action) -> Pattern | None:
    """The card of a buy; "nothing" for ending the Buy phase with a buy left (the engine's end_phase)."""
    if type(action) is tuple and action[0] == "buy":
        return "buy", action[1]
    if action == "end_phase" and state.phase == BUY and state.pending is None:
        return "buy", "nothing"
    return None


def _dots_and_boxes_line(state: State, line: int) -> Pattern:
    """completes_box (the mover moves again), offers_box (a box's third side) or safe."""
    drawn = state.drawn | 1 << line
    sides = [(drawn & mask).bit_count() for _, mask in state.game.boxes_of_line[line]]
    return "action", "completes_box" if 4 in sides else "offers_box" if 3 in sides else "safe"


def _tictactoe_cell(state: State, cell: int) -> Pattern:
    """center, corner or edge."""
    return "action", TICTACTOE_CELLS[cell]


def _first_element(state: State, action: Action) -> Pattern:
    """A named action's name, a tuple action's first element."""
    return "action", action[0] if type(action) is tuple else action


def _sea_salt_paper_action(state: State, action: Action) -> Pattern:
    """As _first_element, with the duo's kind: duo_boat, duo_fish, duo_crab, duo_swimmer_shark."""
    if type(action) is tuple and action[0] == "duo":
        return "action", f"duo_{action[1]}"
    return _first_element(state, action)


def _per_action(namer: Namer, game: Game, seed: int, actions: list, seat: int) -> Counter:
    """The patterns `namer` gives `seat`'s actions."""
    return _seat_actions(namer, game, seed, actions, seat)[0]


PATTERNS: dict[str, Callable[[Game, int, list, int], Counter]] = {  # game -> the seat's pattern counter
    "connect4": _connect4,
    "cant_stop": _cant_stop,
    "dominion": partial(_per_action, _dominion_buy),
    "dots_and_boxes": partial(_per_action, _dots_and_boxes_line),
    "tictactoe": partial(_per_action, _tictactoe_cell),
    "sea_salt_paper": partial(_per_action, _sea_salt_paper_action),
    "seven_wonders": partial(_per_action, _first_element),
}


def seat_patterns(game_name: str, params: dict, seed: int, actions: list, seat: int) -> list[tuple[str, str, int]]:
    """(kind, pattern, count) of `seat` in the game `game_name`(**params) seeded `seed` with the recorded `actions`
    (JSON-decoded), sorted by kind and pattern."""
    counter = PATTERNS.get(game_name)
    if counter is None:
        raise ValueError(f"seat_patterns: unknown game {game_name!r} (seed {seed}); known: {sorted(PATTERNS)}")
    if not isinstance(params, dict) or not isinstance(actions, list):
        raise ValueError(f"seat_patterns: {game_name} seed {seed}: params must be a dict and actions a list, got "
                         f"{type(params).__name__} and {type(actions).__name__}")
    game = load_game(game_name, **params)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.n_players:
        raise ValueError(f"seat_patterns: {game_name} seed {seed}: seat {seat!r} is not in 0..{game.n_players - 1}")
    found = counter(game, seed, actions, seat)
    return [(kind, pattern, count) for (kind, pattern), count in sorted(found.items())]


def pattern_table(games: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Patterns per group of `games` rows (one seat of one game each: the `keys` columns, game, seat, seed, params
    and actions as JSON strings): per (keys..., kind, pattern) the count summed over the group's games, the group's
    games, count per game and the pattern's share of its kind in the group; sorted by keys, kind, count descending
    and pattern."""
    keys = list(keys)
    if not keys or len(set(keys)) != len(keys) or set(keys) & set(TABLE_COLUMNS):
        raise ValueError(f"pattern_table: keys must be distinct columns other than {list(TABLE_COLUMNS)}, got {keys}")
    needed = list(dict.fromkeys([*keys, *GAME_COLUMNS]))
    missing = [column for column in needed if column not in games.columns]
    if missing:
        raise ValueError(f"pattern_table: games lacks columns {missing} (has {games.columns})")
    nulls = [column for column, count in games.select(needed).null_count().row(0, named=True).items() if count]
    if nulls:
        raise ValueError(f"pattern_table: games has nulls in {nulls}")
    rows = games.select(needed).with_row_index("row")
    events = [(row, kind, pattern, count)
              for row, game, seat, seed, params, actions in rows.select("row", *GAME_COLUMNS).iter_rows()
              for kind, pattern, count in seat_patterns(game, orjson.loads(params), seed, orjson.loads(actions), seat)]
    counted = (pl.DataFrame(events, schema={"row": pl.UInt32, "kind": pl.String, "pattern": pl.String,
                                            "count": pl.Int64}, orient="row")
               .join(rows.select("row", *keys), on="row")
               .group_by(*keys, "kind", "pattern").agg(pl.col("count").sum()))
    group_games = rows.group_by(keys).agg(games=pl.len().cast(pl.Int64))
    return (counted.join(group_games, on=keys)
            .with_columns(per_game=pl.col("count") / pl.col("games"),
                          share=pl.col("count") / pl.col("count").sum().over(*keys, "kind"))
            .select(*keys, *TABLE_COLUMNS)
            .sort([*keys, "kind", "count", "pattern"], descending=[False] * (len(keys) + 1) + [True, False]))
