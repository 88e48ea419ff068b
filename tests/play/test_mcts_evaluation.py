"""JSON-Bag values inside MCTS: the leaf's value is the JSON-Bag formula, JSON-Bag MCTS wins and blocks in Connect4,
and the MCTS evaluation's games and statistics."""

from __future__ import annotations

import functools
import random
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from scipy.spatial.distance import jensenshannon

from engines import load_game
from engines.agents import MCTSAgent, ValueEvaluator
from jbag_pipeline.analysis.statistics import holm, stratified_exact_p, wilson_interval
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_state
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.play.mcts_evaluation import (DECIDED_HALF_WIDTH, MATCHUPS, make_agent, matchups_with_controls,
                                                mcts_summary, play_mcts_evaluation)
from jbag_pipeline.presets import GameRun
from jbag_pipeline.schemas import MCTS_EVALUATION_SUMMARY
from tests.helpers.value_tables import lake_tables


def _shares(bag: dict[str, float], features: list[str]) -> np.ndarray:
    counts = np.array([bag.get(token, 0.0) for token in features])
    return counts / counts.sum()


def test_a_leaf_is_valued_by_the_json_bag_formula():
    game = load_game("tictactoe")
    state = game.new_state(seed=0)
    for action in (4, 0):
        state.apply(action)
    leaf = state.clone()
    leaf.apply(8)
    prototypes = [{"board.0.1": 3, "board.4.0": 2, "board.8.0": 1, "turn": 2},
                  {"board.0.1": 1, "board.4.0": 1, "board.8.0": 4, "turn": 5}]
    keep = TokenFilter()
    document_tokens = [keep.apply(tokenize_state(s.to_json(), num_suffix=True)).kept for s in (state, leaf)]
    features = sorted(set().union(*document_tokens))[:12] + ["board.0.1", "board.8.0"]
    features = list(dict.fromkeys(features))
    prototypes = [{**{t: 1 + i + seat for i, t in enumerate(features)}, **bag} for seat, bag in enumerate(prototypes)]
    evaluator = ValueEvaluator(DeterminizedJsonBagValue(prototypes, features), depth=0, rule="share")
    seat = state.current_player
    evaluator.begin_decision(state, seat, random.Random(0))
    rewards = evaluator.evaluate(leaf, random.Random(0).random)
    # by hand: the trajectory (the decision's sample: a clone in a perfect-information game) plus the leaf's tokens,
    # restricted to the features, against each seat's prototype restricted alike; V_i = (1 - d_i) / sum_j (1 - d_j)
    bag = {t: document_tokens[0].get(t, 0) + document_tokens[1].get(t, 0) for t in features}
    closeness = [1 - jensenshannon(_shares(bag, features), _shares(p, features), base=2) for p in prototypes]
    expected = closeness[seat] / sum(closeness)
    assert rewards[seat] == pytest.approx(expected, abs=1e-12)
    assert rewards[1 - seat] == pytest.approx(1 - expected, abs=1e-12)


@pytest.fixture(scope="module")
def connect4_value():
    game = load_game("connect4")
    prototypes, features = lake_tables(game, n_games=8, seed=3)
    return functools.partial(make_jsonbag_value, prototypes, features, "full", "full", game.n_players)


def _connect4_after(actions: list[int]):
    state = load_game("connect4").new_state(seed=0)
    for action in actions:
        state.apply(action)
    return state


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_json_bag_mcts_takes_an_immediate_win_and_blocks_an_immediate_loss(connect4_value, seed):
    agent = MCTSAgent(200, evaluator=ValueEvaluator(connect4_value(), 0, "share"), seed=seed)
    win_now = _connect4_after([0, 1, 0, 1, 0, 1])  # seat 0 to move: column 0 wins, column 1 would let seat 1 win
    assert agent.choose(win_now) == 0
    must_block = _connect4_after([0, 1, 0, 1, 0])  # seat 1 to move: only column 0 stops seat 0's four
    assert agent.choose(must_block) == 0


def test_every_agent_kind_is_built_and_bad_kinds_are_refused(connect4_value):
    run = GameRun(mcts_iterations=7, rollout_length=3, mcts_leaf_depth=2)
    names = {kind: make_agent(kind, "connect4", run, connect4_value).name for kind in
             ("score_mcts", "jsonbag_mcts", "heuristic_mcts", "jsonbag_osla", "baseline_osla")}
    assert names["jsonbag_mcts"] == "jsonbag_mcts" and names["score_mcts"] == "score_mcts"
    jsonbag = make_agent("jsonbag_mcts", "connect4", run, connect4_value)
    assert (jsonbag.iterations, jsonbag.evaluator.depth, jsonbag.evaluator.rule) == (7, 2, "share")
    with pytest.raises(ValueError, match="unknown agent 'mcts'"):
        make_agent("mcts", "connect4", run, connect4_value)
    with pytest.raises(ValueError, match="'jsonbag_osla' needs a JSON-Bag value"):
        make_agent("jsonbag_osla", "connect4", run, None)
    with pytest.raises(ValueError, match="a matchup pairs two different agents"):
        matchups_with_controls([("score_mcts", "score_mcts")])
    assert matchups_with_controls(MATCHUPS)[-3:] == [("score_mcts", "score_mcts"), ("jsonbag_osla", "jsonbag_osla"),
                                                     ("baseline_osla", "baseline_osla")]


def test_the_value_pair_is_checked():
    assert GameRun(mcts_value_pair="interval-full_seg").mcts_value_pair == "interval-full_seg"
    for bad in ("full", "full-full_counters_kept", "everything-full", 3):
        with pytest.raises(ValueError, match="mcts_value_pair must be 'frequency-variant'"):
            GameRun(mcts_value_pair=bad)


def test_the_games_meet_the_same_seeds_and_replay_alike(connect4_value):
    run = GameRun(mcts_iterations=5, rollout_length=5, mcts_eval_games_per_seat=2)
    games = play_mcts_evaluation("connect4", {}, run, 11, connect4_value)
    assert games.height == len(matchups_with_controls()) * 2 * 2
    seeds = games.group_by("agent", "opponent").agg(pl.col("seed").sort())["seed"].to_list()
    assert all(s == seeds[0] for s in seeds)  # common random numbers: every matchup and control on the same seeds
    again = play_mcts_evaluation("connect4", {}, run, 11, connect4_value)
    assert games.drop("cpu_seconds").equals(again.drop("cpu_seconds"))
    summary = mcts_summary(games)
    assert summary.columns == list(MCTS_EVALUATION_SUMMARY)
    assert sorted(set(summary.select("agent", "opponent").iter_rows())) == sorted(MATCHUPS)


def _games(rows: dict[tuple[str, str, int], list[int]]) -> pl.DataFrame:
    return pl.DataFrame([{"game": "g", "agent": agent, "opponent": opponent, "iterations": 50, "leaf_depth": 0,
                          "value_pair": "full-full", "seat": seat, "game_index": i, "score": score}
                         for (agent, opponent, seat), scores in rows.items() for i, score in enumerate(scores)],
                        schema_overrides={"iterations": pl.Int32, "leaf_depth": pl.Int32, "seat": pl.Int8,
                                          "score": pl.Int8})


def test_the_summary_of_a_hand_built_result_set():
    fisher_exact = pytest.importorskip("scipy.stats").fisher_exact
    a = [1] * 8 + [-1] * 2  # seat 0: 8 of 10
    b = [1] * 6 + [0] * 1 + [-1] * 3  # seat 1: 6 of 10, a draw
    control0, control1 = [1] * 5 + [-1] * 5, [1] * 3 + [-1] * 7
    weak0, weak1 = [1] * 4 + [-1] * 6, [1] * 3 + [-1] * 7
    games = _games({("jsonbag_mcts", "score_mcts", 0): a, ("jsonbag_mcts", "score_mcts", 1): b,
                    ("jsonbag_osla", "score_mcts", 0): weak0, ("jsonbag_osla", "score_mcts", 1): weak1,
                    ("score_mcts", "score_mcts", 0): control0, ("score_mcts", "score_mcts", 1): control1})
    summary = mcts_summary(games)
    overall = summary.filter((pl.col("agent") == "jsonbag_mcts") & (pl.col("scope") == "overall")).row(0, named=True)
    assert (overall["games"], overall["wins"], overall["draws"], overall["losses"]) == (20, 14, 1, 5)
    assert overall["win_rate"] == 0.7 and overall["control_win_rate"] == 0.4
    assert (overall["win_rate_low"], overall["win_rate_high"]) == pytest.approx(wilson_interval(14, 20), abs=1e-12)
    assert overall["win_rate_half_width"] == pytest.approx((overall["win_rate_high"] - overall["win_rate_low"]) / 2)
    assert overall["decided"] is (overall["win_rate_half_width"] <= DECIDED_HALF_WIDTH)
    assert overall["p_value_vs_control"] == pytest.approx(stratified_exact_p([(8, 10, 5, 10), (6, 10, 3, 10)]))
    seat0 = summary.filter((pl.col("agent") == "jsonbag_mcts") & (pl.col("scope") == "seat 0")).row(0, named=True)
    assert seat0["p_value_vs_control"] == pytest.approx(fisher_exact([[8, 2], [5, 5]])[1], abs=1e-12)
    # Holm across the game's two matchups against score MCTS, per scope
    weak = summary.filter((pl.col("agent") == "jsonbag_osla") & (pl.col("scope") == "overall")).row(0, named=True)
    adjusted = holm([overall["p_value_vs_control"], weak["p_value_vs_control"]])
    assert (overall["p_value_holm"], weak["p_value_holm"]) == pytest.approx(tuple(adjusted))
    assert overall["verdict"] == ("better" if adjusted[0] < 0.05 else "no clear difference")


def test_the_summary_needs_each_opponents_control():
    games = _games({("jsonbag_mcts", "jsonbag_osla", 0): [1, 1], ("jsonbag_mcts", "jsonbag_osla", 1): [1, -1]})
    with pytest.raises(ValueError, match="opponent 'jsonbag_osla' has no control games"):
        mcts_summary(games)
    assert mcts_summary(games.clear()).columns == list(MCTS_EVALUATION_SUMMARY)
