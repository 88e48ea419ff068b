"""selfplay_strength's games and table: seeds apart from the evaluation's, statistics from the games, habits."""

from dataclasses import replace

import orjson
import polars as pl

from engines import load_game
from jbag_pipeline.play.evaluation import evaluation_seed
from jbag_pipeline.play.habits import Habits, seat_habits
from jbag_pipeline.play.selfplay import play_selfplay
from jbag_pipeline.play.strength import play_strength, seconds_per_decision, selfplay_habits, strength_table
from jbag_pipeline.analysis.statistics import wilson_interval
from jbag_pipeline.presets import PRESETS, game_run

SMOKE = PRESETS["smoke"]


def _strength(game: str, games_per_seat: int):
    run = replace(game_run(SMOKE, game), strength_games_per_seat=games_per_seat)
    n_players = load_game(game, **run.params).n_players
    return run, n_players, play_strength(game, run.params, run, n_players, base_seed=3)


def test_table_statistics_on_a_small_run():
    run, n_players, games = _strength("tictactoe", 4)
    assert games.select("seat", "game_index").rows() == [(s, i) for s in range(2) for i in range(4)]
    assert games["seed"].n_unique() == 8
    assert not set(games["seed"]) & {evaluation_seed(3, "tictactoe", s, i) for s in range(2) for i in range(4)}
    table = strength_table("tictactoe", run, games, n_players, None, 0)
    row = table.row(0, named=True)
    wins = int((games["score"] == 1).sum())
    assert (row["n"], row["wins"], row["draws"]) == (8, wins, int((games["score"] == 0).sum()))
    assert row["win_rate"] == wins / 8
    assert (row["win_rate_low"], row["win_rate_high"]) == wilson_interval(wins, 8)
    assert row["chance_rate"] == 0.5
    seat_rates = games.group_by("seat").agg((pl.col("score") == 1).mean())["score"].to_list()
    assert row["worst_seat_win_rate"] == min(seat_rates)
    assert row["selfplay_agent"] == "mcts(iterations=10,rollout=20)"
    assert row["rolls_per_turn"] is None and row["busts_per_turn"] is None
    assert "seconds_per_decision" not in row and seconds_per_decision(games) > 0  # only in the metadata


def test_games_are_deterministic():
    _, _, first = _strength("tictactoe", 3)
    _, _, second = _strength("tictactoe", 3)
    assert first.drop("seconds", "others_seconds").equals(second.drop("seconds", "others_seconds"))


def test_cant_stop_habits_from_selfplay_games():
    run = game_run(SMOKE, "cant_stop")
    games, _ = play_selfplay("cant_stop", run, [1, 2])
    habits = selfplay_habits("cant_stop", games)
    per_game = [sum(seat_habits("cant_stop", orjson.loads(a), 4), Habits()) for a in games["actions"]]
    assert habits == per_game[0] + per_game[1]
    assert habits.turns > 0 and habits.rolls > 0
    table = strength_table("cant_stop", run, _strength("cant_stop", 1)[2], 4, habits, len(games))
    row = table.row(0, named=True)
    assert row["rolls_per_turn"] == habits.rolls / habits.turns
    assert row["busts_per_turn"] == habits.busts / habits.turns
    assert (row["n"], row["chance_rate"], row["selfplay_games"]) == (4, 0.25, 2)
    assert selfplay_habits("tictactoe", play_selfplay("tictactoe", game_run(SMOKE, "tictactoe"), [1])[0]) is None
