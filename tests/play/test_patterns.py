"""Winning patterns: one seat's patterns in a recorded game, per game, and their table over groups of games."""

from collections import Counter

import orjson
import polars as pl
import pytest

from engines import GAMES, load_game
from engines.agents import RandomAgent
from engines.dominion.cards import BUY
from engines.match import play_match
from jbag_pipeline.play.patterns import pattern_table, seat_patterns
from jbag_pipeline.schemas import MCTS_PATTERNS

VERTICAL = [0, 1, 0, 1, 0, 1, 0]  # seat 0 stacks column 0, seat 1 column 1: seat 0 wins upwards
# seat 0 wins on the rising diagonal (column c, row c from the bottom) with its 11th move, into column 3
DIAGONAL = [0, 1, 1, 2, 2, 3, 2, 3, 7, 3, 3]
# Can't Stop, 2 seats, seed 7: seat 0 rolls four times and busts, seat 1 rolls once and stops, seat 0 stops at once
CANT_STOP = ["roll", [5, 7], "roll", [5, 7], "roll", [7, 10], "roll", "bust", "roll", [6, 6], "stop", "stop"]
KINDS = {"connect4": {"column", "win_line"}, "cant_stop": {"turn_end", "rolls_per_turn"}, "dominion": {"buy"}}


def test_connect4_vertical_and_diagonal_wins_and_columns():
    assert seat_patterns("connect4", {}, 0, VERTICAL, 0) == [("column", "0", 4), ("win_line", "vertical", 1)]
    assert seat_patterns("connect4", {}, 0, VERTICAL, 1) == [("column", "1", 3)]
    assert seat_patterns("connect4", {}, 0, DIAGONAL, 0) == [
        ("column", "0", 1), ("column", "1", 1), ("column", "2", 2), ("column", "3", 1), ("column", "7", 1),
        ("win_line", "diagonal", 1)]
    assert seat_patterns("connect4", {}, 0, DIAGONAL, 1) == [("column", "1", 1), ("column", "2", 1), ("column", "3", 3)]


def test_connect4_counts_each_direction_of_a_winning_move_once():
    """Seat 0's last move, into column 3, completes a column and a falling diagonal at once (a random game's)."""
    actions = [3, 5, 2, 4, 5, 7, 6, 4, 3, 7, 4, 2, 3, 6, 3]
    assert seat_patterns("connect4", {}, 0, actions, 0) == [
        ("column", "2", 1), ("column", "3", 4), ("column", "4", 1), ("column", "5", 1), ("column", "6", 1),
        ("win_line", "anti_diagonal", 1), ("win_line", "vertical", 1)]


def test_cant_stop_turn_ends_and_rolls_per_turn():
    assert seat_patterns("cant_stop", {"n_players": 2}, 7, CANT_STOP, 0) == [
        ("rolls_per_turn", "0", 1), ("rolls_per_turn", "4", 1), ("turn_end", "bust", 1), ("turn_end", "stop", 1)]
    assert seat_patterns("cant_stop", {"n_players": 2}, 7, CANT_STOP, 1) == [
        ("rolls_per_turn", "1", 1), ("turn_end", "stop", 1)]


class BuyLog(RandomAgent):
    """A random agent that counts its own buys, and its passes on a buy left, as it chooses them."""

    def begin_game(self, state, seat):
        self.buys = Counter()

    def choose(self, state):
        action = super().choose(state)
        if isinstance(action, tuple) and action[0] == "buy":
            self.buys[action[1]] += 1
        elif action == "end_phase" and state.phase == BUY and state.pending is None:
            self.buys["nothing"] += 1
        return action


def test_dominion_buys_match_what_each_seat_chose():
    game = load_game("dominion", n_players=2)
    agents = [BuyLog(), BuyLog()]
    record = play_match(game, agents, seed=11, record_states=False)
    actions = orjson.loads(orjson.dumps(record.actions))
    for seat, agent in enumerate(agents):
        found = seat_patterns("dominion", {"n_players": 2}, 11, actions, seat)
        assert {kind for kind, _, _ in found} == {"buy"}
        assert {pattern: count for _, pattern, count in found} == dict(agent.buys)
        assert sum(agent.buys.values()) > 10  # a real game's buys, not a handful


def test_other_games_name_their_action_types():
    dots = seat_patterns("dots_and_boxes", {"rows": 1, "cols": 1}, 0, [0, 1, 2, 3], 0)
    assert dots == [("action", "offers_box", 1), ("action", "safe", 1)]  # lines 0 and 2 (the third side)
    assert seat_patterns("dots_and_boxes", {"rows": 1, "cols": 1}, 0, [0, 1, 2, 3], 1) == [
        ("action", "completes_box", 1), ("action", "safe", 1)]
    assert seat_patterns("tictactoe", {}, 0, [4, 0, 1, 7, 2], 0) == [
        ("action", "center", 1), ("action", "corner", 1), ("action", "edge", 1)]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_patterns_for_every_seat_of_a_random_game(name):
    game = load_game(name)
    record = play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=4, record_states=False)
    actions = orjson.loads(orjson.dumps(record.actions))
    per_seat = [seat_patterns(name, {}, 4, actions, seat) for seat in range(game.n_players)]
    for found in per_seat:
        assert found and all(count > 0 for _, _, count in found)
        assert {kind for kind, _, _ in found} <= KINDS.get(name, {"action"})
    if name not in KINDS:  # one pattern per action, each of one seat
        assert sum(count for found in per_seat for _, _, count in found) == len(actions)


def test_bad_inputs_name_the_game_seed_and_action():
    with pytest.raises(ValueError, match=r"connect4 seed 5: action 2 \(9\) is not legal"):
        seat_patterns("connect4", {}, 5, [0, 1, 9], 0)
    with pytest.raises(ValueError, match=r"connect4 seed 5: action 8 \(0\) is not legal"):  # column 0 is full
        seat_patterns("connect4", {}, 5, [0] * 9, 0)
    with pytest.raises(ValueError, match=r"connect4 seed 5: seat 2 is not in 0..1"):
        seat_patterns("connect4", {}, 5, VERTICAL, 2)
    with pytest.raises(ValueError, match=r"unknown game 'chess' \(seed 5\)"):
        seat_patterns("chess", {}, 5, [], 0)


def _row(game, agent, seat, seed, params, actions):
    return {"game": game, "agent": agent, "opponent": "mcts", "seat": seat, "seed": seed,
            "params": orjson.dumps(params).decode(), "score": 0, "actions": orjson.dumps(actions).decode()}


def test_pattern_table_counts_per_game_and_shares():
    games = pl.DataFrame([_row("connect4", "jsonbag", 0, 0, {}, VERTICAL),
                          _row("connect4", "jsonbag", 0, 1, {}, DIAGONAL), _row("connect4", "osla", 1, 0, {}, VERTICAL),
                          _row("cant_stop", "jsonbag", 0, 7, {"n_players": 2}, CANT_STOP)],
                         schema_overrides={"seat": pl.Int8, "seed": pl.Int64, "score": pl.Int8})
    table = pattern_table(games, ["game", "agent", "opponent"])
    assert table.schema == pl.Schema(MCTS_PATTERNS)
    rows = [row[1:2] + row[3:] for row in table.iter_rows()]  # without game and opponent
    assert rows == [
        ("jsonbag", "rolls_per_turn", "0", 1, 1, 1.0, 0.5), ("jsonbag", "rolls_per_turn", "4", 1, 1, 1.0, 0.5),
        ("jsonbag", "turn_end", "bust", 1, 1, 1.0, 0.5), ("jsonbag", "turn_end", "stop", 1, 1, 1.0, 0.5),
        ("jsonbag", "column", "0", 5, 2, 2.5, 0.5), ("jsonbag", "column", "2", 2, 2, 1.0, 0.2),
        ("jsonbag", "column", "1", 1, 2, 0.5, 0.1), ("jsonbag", "column", "3", 1, 2, 0.5, 0.1),
        ("jsonbag", "column", "7", 1, 2, 0.5, 0.1),
        ("jsonbag", "win_line", "diagonal", 1, 2, 0.5, 0.5), ("jsonbag", "win_line", "vertical", 1, 2, 0.5, 0.5),
        ("osla", "column", "1", 3, 1, 3.0, 1.0)]
    assert table["game"].to_list() == ["cant_stop"] * 4 + ["connect4"] * 8


def test_pattern_table_rejects_missing_columns_and_bad_keys():
    games = pl.DataFrame([_row("connect4", "jsonbag", 0, 0, {}, VERTICAL)])
    with pytest.raises(ValueError, match=r"lacks columns \['actions'\]"):
        pattern_table(games.drop("actions"), ["game", "agent"])
    with pytest.raises(ValueError, match="keys must be distinct columns"):
        pattern_table(games, ["game", "count"])
    assert pattern_table(games.clear(), ["game", "agent"]).height == 0
