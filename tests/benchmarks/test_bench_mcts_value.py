"""bench_mcts_value: the three searchers at the demo budget, the same seeds per decision, rows feeding the 3x target."""

import pytest

from benchmarks import bench_mcts_value, bench_value
from benchmarks.run_all import validate_rows
from benchmarks.targets import check_all

TARGET = "JSON-Bag MCTS iterations/s within 3x of score MCTS (issue 28)"


def test_the_searchers_take_the_demo_budget_and_the_leaf_evaluators_asked_for():
    agents = bench_mcts_value.searchers("dominion", [{".a": 1}, {".b": 1}], [".a", ".b"])
    assert list(agents) == ["score MCTS", "ours (jsonbag top100)", "baseline heuristic MCTS"]
    assert {agent.iterations for agent in agents.values()} == {15}
    reference = agents["score MCTS"].evaluator
    assert (reference.name, reference.rollout_length, reference.cutoff) == ("rollout", 10, "score")
    ours, heuristic = agents["ours (jsonbag top100)"].evaluator, agents["baseline heuristic MCTS"].evaluator
    assert (ours.depth, ours.rule, heuristic.depth, heuristic.rule) == (bench_mcts_value.LEAF_DEPTH, "share",
                                                                        bench_mcts_value.LEAF_DEPTH, "lead")
    assert ours.value_function.features == [".a", ".b"]


def test_each_decision_is_searched_from_a_reset_to_its_own_seed():
    calls = []

    class Recorder:
        def reset(self, seed):
            calls.append(("reset", seed))

        def choose(self, state):
            calls.append(("choose", state))

    assert bench_mcts_value.search_all(Recorder(), ["s0", "s1"]) >= 0
    assert calls == [("reset", 0), ("choose", "s0"), ("reset", 1), ("choose", "s1")]
    calls.clear()
    bench_mcts_value.search_all(Recorder(), ["s0", "s1"], bench_mcts_value.WARMUP_SEED)
    assert calls[::2] == [("reset", bench_mcts_value.WARMUP_SEED), ("reset", bench_mcts_value.WARMUP_SEED + 1)]


def test_rows_give_iterations_per_second_with_ratios_to_score_mcts_and_feed_the_target(monkeypatch):
    monkeypatch.setattr(bench_value, "TRAINING_GAMES", 6)
    monkeypatch.setattr(bench_value, "DECISION_GAMES", 1)
    monkeypatch.setattr(bench_value, "MAX_DECISIONS", 3)
    rows = validate_rows("bench_mcts_value", bench_mcts_value.run(repeats=1, games=("tictactoe",)))
    assert [row["subject"] for row in rows] == ["score MCTS", "ours (jsonbag top100)", "baseline heuristic MCTS"]
    assert {(row["benchmark"], row["metric"]) for row in rows} == {("mcts_value/tictactoe", "iterations/s")}
    reference = rows[0]["median"]
    assert rows[0]["ratio"] is None and all(row["median"] > 0 for row in rows)
    assert [row["ratio"] for row in rows[1:]] == [pytest.approx(row["median"] / reference) for row in rows[1:]]
    verdict = {v.target.name: v for v in check_all(rows)}[TARGET]
    assert verdict.n_rows == 1 and verdict.worst["subject"] == "ours (jsonbag top100)"


def test_the_target_asks_a_third_of_score_mcts_speed():
    rows = [{"benchmark": "mcts_value/dominion", "subject": "ours (jsonbag top100)", "metric": "iterations/s",
             "median": 1.0, "ratio": ratio} for ratio in (0.5, 0.3)]
    verdicts = {v.target.name: v for v in check_all(rows[:1])}, {v.target.name: v for v in check_all(rows)}
    assert [v[TARGET].status for v in verdicts] == ["met", "missed"]


@pytest.mark.parametrize("repeats, games, message", [(0, None, "repeats must be a positive int"),
                                                      (1, ("chess",), r"unknown games \['chess'\]")])
def test_bad_arguments_fail_in_one_line_before_measuring(repeats, games, message, monkeypatch):
    monkeypatch.setattr(bench_mcts_value, "training_model", lambda game: pytest.fail("measured anyway"))
    with pytest.raises(ValueError, match=message):
        bench_mcts_value.run(repeats, games)
