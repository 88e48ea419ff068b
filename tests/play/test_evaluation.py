"""Evaluation games: layout of the table, determinism, stable seeds, and replay of recorded games."""

from __future__ import annotations

import hashlib

import orjson
import polars as pl
import pytest

from engines import load_game
from engines.agents import RandomAgent
from engines.match import play_match, replay
from jbag_pipeline.play.evaluation import (CONTROL_GAMES_SCHEMA, EVALUATION_GAMES_SCHEMA, Arm, control_arm,
                                             evaluate_against_control, evaluation_seed, play_control,
                                             play_evaluation)
from jbag_pipeline.analysis.statistics import OVERALL, control_table
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.model.tokenize import tokenize_trajectory
from jbag_pipeline.model.prototypes import build_prototypes


def lake_tables(game, n_games: int = 6) -> tuple[pl.DataFrame, pl.DataFrame]:
    """winner_prototypes (frequency random) and selected_features (variant random_seg: 40 tokens) from random games."""
    records = [play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=i) for i in range(n_games)]
    bags = [tokenize_trajectory([s.doc for s in r.states], num_suffix=True) for r in records]
    prototypes = build_prototypes([(bag, r.winner) for bag, r in zip(bags, records)])
    rows = [{"game": game.name, "frequency": "random", "seat": seat, "token": token, "count": count, "p": count}
            for seat, bag in prototypes.items() for token, count in bag.items()]
    tokens = sorted(set().union(*bags))[::7][:40]
    features = pl.DataFrame({"game": game.name, "variant": "random_seg", "token": tokens, "importance": 1.0,
                             "rank": list(range(1, len(tokens) + 1)), "segment": 1})
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8}), features


def evaluate(name: str, variant: str, games_per_seat: int, base_seed: int, tables=None) -> pl.DataFrame:
    game = load_game(name)
    prototypes, features = tables or lake_tables(game)
    factory = lambda: make_jsonbag_value(prototypes, features, "random", variant, game.n_players)  # noqa: E731
    return play_evaluation(name, {}, "random", variant, factory, games_per_seat, base_seed)


def test_one_row_per_game_with_the_jsonbag_agent_in_every_seat():
    games = evaluate("connect4", "random_seg", games_per_seat=3, base_seed=1)
    assert games.schema == pl.Schema(EVALUATION_GAMES_SCHEMA)
    assert games["seat"].to_list() == [0, 0, 0, 1, 1, 1] and games["game_index"].to_list() == [0, 1, 2] * 2
    assert set(games["prototype_frequency"]) == {"random"} and set(games["feature_variant"]) == {"random_seg"}
    assert games["seed"].n_unique() == 6
    for row in games.iter_rows(named=True):
        assert row["seed"] == evaluation_seed(1, "connect4", row["seat"], row["game_index"])
        assert row["score"] == row["jsonbag_score"]  # Connect4's game score is its result
        assert row["opponents_best_score"] == -row["jsonbag_score"]
        assert row["n_actions"] == len(orjson.loads(row["actions"])) and row["seconds"] > 0
    assert orjson.loads(games["params"][0]) == {"cols": 8, "rows": 8, "win_length": 4}


@pytest.mark.parametrize(("name", "variant"), [("connect4", "none"), ("dominion", "random_seg")])
def test_same_seed_gives_an_identical_table(name, variant):
    tables = lake_tables(load_game(name), n_games=3)
    first = evaluate(name, variant, 1, base_seed=7, tables=tables).drop("seconds")
    again = evaluate(name, variant, 1, base_seed=7, tables=tables).drop("seconds")
    assert first.equals(again)
    other = evaluate(name, variant, 1, base_seed=8, tables=tables).drop("seconds")
    assert other["seed"].to_list() != first["seed"].to_list()


@pytest.mark.parametrize("name", ["connect4", "sea_salt_paper"])
def test_recorded_games_replay_to_the_same_result(name):
    games = evaluate(name, "random_seg", 1, base_seed=3)
    game = load_game(name, **orjson.loads(games["params"][0]))
    for row in games.iter_rows(named=True):
        record = replay(game, row["seed"], orjson.loads(row["actions"]))
        result = record.returns[row["seat"]]
        assert (result > 0) - (result < 0) == row["score"]
        assert record.scores[row["seat"]] == row["jsonbag_score"]
        assert max(s for p, s in enumerate(record.scores) if p != row["seat"]) == row["opponents_best_score"]
        assert record.n_actions == row["n_actions"]


def test_seeds_are_stable_and_depend_on_every_coordinate():
    seed = evaluation_seed(0, "connect4", 0, 0)
    assert seed == evaluation_seed(0, "connect4", 0, 0) and 0 <= seed < 2 ** 63
    assert seed == int.from_bytes(hashlib.blake2b(b"0|connect4|0|0", digest_size=8).digest(), "big") >> 1
    variants = [(1, "connect4", 0, 0), (0, "dominion", 0, 0), (0, "connect4", 1, 0), (0, "connect4", 0, 1)]
    assert len({seed, *(evaluation_seed(*v) for v in variants)}) == 5


def test_every_pair_and_the_control_meet_the_same_games():
    full = evaluate("connect4", "random_seg", games_per_seat=2, base_seed=5)
    none = evaluate("connect4", "none", games_per_seat=2, base_seed=5)
    control = play_control("connect4", {}, 2, 5)
    assert control.schema == pl.Schema(CONTROL_GAMES_SCHEMA)
    assert full["seed"].to_list() == none["seed"].to_list() == control["seed"].to_list()
    game = load_game("connect4")
    for row in control.iter_rows(named=True):  # baseline in every seat: the recorded game replays to its result
        record = replay(game, row["seed"], orjson.loads(row["actions"]))
        assert (record.returns[row["seat"]] > 0) - (record.returns[row["seat"]] < 0) == row["score"]


def test_evaluate_against_control_plays_every_arm_and_the_control_on_the_same_seeds():
    game = load_game("connect4")
    tables = lake_tables(game, n_games=3)
    factory = lambda: make_jsonbag_value(*tables, "random", "random_seg", game.n_players)  # noqa: E731
    arms = [Arm("random", "random_seg", factory, {"method": method}) for method in ("a", "b")]
    evaluated = evaluate_against_control("connect4", {}, arms, 2, 5, keys=("game", "method"))
    one = evaluate("connect4", "random_seg", games_per_seat=2, base_seed=5, tables=tables).drop("seconds")
    assert evaluated.games["method"].to_list() == ["a"] * 4 + ["b"] * 4
    assert evaluated.games.drop("seconds", "method").equals(pl.concat([one, one]))
    assert evaluated.control.equals(control_table(play_control("connect4", {}, 2, 5)))
    assert evaluated.control.equals(control_arm("connect4", {}, 2, 5))
    overall = evaluated.summary.filter(pl.col("scope") == OVERALL)
    assert overall["method"].to_list() == ["a", "b"] and overall["n"].to_list() == [4, 4]
    p_value = overall["p_value_vs_control"][0]  # the same arm twice: Holm over the game's two doubles its p
    assert overall["p_value_holm"].to_list() == [min(1.0, 2 * p_value)] * 2
    assert evaluated.summary.filter(pl.col("scope") != OVERALL)["seat"].to_list() == [0, 1, 0, 1]


def test_bad_arguments_are_rejected():
    game = load_game("tictactoe")
    prototypes, features = lake_tables(game, n_games=4)
    factory = lambda: make_jsonbag_value(prototypes, features, "random", "none", 2)  # noqa: E731
    with pytest.raises(ValueError, match="games_per_seat must be >= 0"):
        play_evaluation("tictactoe", {}, "random", "none", factory, -1, 0)
    with pytest.raises(ValueError, match="not 'full'"):
        play_evaluation("tictactoe", {}, "full", "none", factory, 1, 0)
    assert play_evaluation("tictactoe", {}, "random", "none", factory, 0, 0).is_empty()


@pytest.mark.parametrize("name", ["seven_wonders", "connect4"])
def test_the_jsonbag_osla_searches_as_the_games_baseline_does(name, monkeypatch):
    """7 Wonders' baseline plays each child on to the round's end (its choices are secret): so must the JSON-Bag
    OSLA, or the two would differ in more than their value."""
    import jbag_pipeline.play.evaluation as evaluation
    from engines.agents import SimultaneousOSLAAgent, baseline_agent
    from jbag_pipeline.play.jsonbag_agent import SimultaneousJsonBagOSLAAgent

    tasks = []
    monkeypatch.setattr(evaluation, "run_batch", lambda compute, task, items: tasks.append(task) or [])
    evaluate(name, "none", games_per_seat=1, base_seed=0)
    simultaneous = isinstance(baseline_agent(name), SimultaneousOSLAAgent)
    assert simultaneous == (name == "seven_wonders")
    assert isinstance(tasks[0].jsonbag, SimultaneousJsonBagOSLAAgent) == simultaneous
