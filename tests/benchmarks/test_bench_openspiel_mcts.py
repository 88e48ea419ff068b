"""bench_openspiel_mcts: rows of both searchers on the same positions, and the 5x targets they feed."""

import pytest

from benchmarks import bench_openspiel_mcts
from benchmarks.run_all import validate_rows
from benchmarks.targets import check_all


def test_rows_pair_our_mcts_with_the_openspiel_bot_and_feed_the_targets(monkeypatch):
    if bench_openspiel_mcts.pyspiel is None:
        pytest.skip("OpenSpiel (pyspiel) is not installed: pip install -e '.[openspiel]'")
    monkeypatch.setattr(bench_openspiel_mcts, "ITERATIONS", {"connect4": 50, "dots_and_boxes": 20, "tictactoe": 50})
    rows = validate_rows("bench_openspiel_mcts", bench_openspiel_mcts.run(repeats=1))
    assert len(rows) == 12  # 3 games x 2 positions x 2 searchers
    for ours, theirs in zip(rows[::2], rows[1::2]):
        assert ours["benchmark"] == theirs["benchmark"] and ours["subject"].startswith("ours")
        assert theirs["subject"] == "pyspiel.MCTSBot"
        assert theirs["ratio"] == pytest.approx(theirs["median"] / ours["median"])
    verdicts = {v.target.name: v for v in check_all(rows)}
    for game in ("connect4", "dots_and_boxes", "tictactoe"):
        verdict = verdicts[f"OpenSpiel MCTS >= 5x our Python MCTS iterations/s, {game}"]
        assert verdict.n_rows == 2 and verdict.status in ("met", "missed")


def test_positions_are_the_opening_and_a_seeded_midgame():
    from engines import load_game

    game = load_game("connect4")
    (first, opening), (second, midgame) = bench_openspiel_mcts.positions(game, 5)
    assert (first, opening, second, len(midgame)) == ("opening", [], "after 5 moves", 5)
    assert bench_openspiel_mcts.positions(game, 5) == bench_openspiel_mcts.positions(game, 5)
