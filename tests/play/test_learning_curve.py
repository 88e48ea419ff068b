"""Learning curves on hand-built tables: nested shares, the selection frequency of a variant, the curve table
(Holm across the pairs of one share) and the presets' curve settings."""

from __future__ import annotations

import math
from dataclasses import replace

import polars as pl
import pytest

from jbag_pipeline.play.learning_curve import agent_and_budget, curve_table, nested_shares, selection_frequency
from jbag_pipeline.analysis.statistics import holm
from jbag_pipeline.presets import PRESETS
from jbag_pipeline.schemas import LEARNING_CURVE


def test_a_smaller_share_holds_the_first_games_and_is_a_subset_of_a_larger():
    ids = [7, 3, 11, 5, 2, 13, 17, 19, 23]
    shares = nested_shares(ids, (0.125, 0.25, 0.5, 1.0))
    assert {share: len(games) for share, games in shares.items()} == {0.125: 2, 0.25: 3, 0.5: 5, 1.0: 9}
    assert shares[0.125] == [2, 3] and shares[1.0] == sorted(ids)
    ordered = list(shares.values())
    for smaller, larger in zip(ordered, ordered[1:]):
        assert set(smaller) < set(larger)


def test_each_variant_is_selected_on_its_frequency():
    assert [selection_frequency(v) for v in ("full", "interval_seg", "random", "none", "adaptive")] == \
        ["full", "interval", "random", "full", "full"]
    assert agent_and_budget(["mcts(iterations=10,rollout=20)"] * 2) == ("mcts", "iterations=10,rollout=20")
    assert agent_and_budget(["openspiel_mcts(simulations=200,rollouts=1)"]) == ("openspiel_mcts",
                                                                                "simulations=200,rollouts=1")
    assert agent_and_budget(["b(x=1)", "a(x=2)"]) == ("a(x=2), b(x=1)", "")


def _curve_games(wins_of: dict[tuple[float, str], int], n: int = 20) -> pl.DataFrame:
    """Curve games of game g, seat 0 only: per (share, variant), `wins` wins of n games, the rest losses."""
    rows = [{"game": "g", "share": share, "train_games": math.ceil(share * 40), "prototype_frequency": "full",
             "feature_variant": variant, "seat": 0, "game_index": i, "score": 1 if i < wins else -1}
            for (share, variant), wins in wins_of.items() for i in range(n)]
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8, "score": pl.Int8, "train_games": pl.Int32})


def test_the_curve_table_adjusts_across_the_pairs_of_one_share_only():
    games = _curve_games({(0.5, "none"): 3, (0.5, "full"): 9, (1.0, "none"): 15, (1.0, "full"): 10})
    control = pl.DataFrame({"game": ["g"], "seat": [0], "games": [20], "wins": [8]},
                           schema_overrides={"seat": pl.Int8})
    table = curve_table(games, control, ["mcts(iterations=10,rollout=20)"])
    assert list(table.columns) == list(LEARNING_CURVE) and table.schema == pl.Schema(LEARNING_CURVE)
    assert table.select("share", "pair").rows() == [(0.5, "full-full"), (0.5, "full-none"), (1.0, "full-full"),
                                                    (1.0, "full-none")]
    assert table["train_games"].to_list() == [20, 20, 40, 40] and set(table["budget"]) == {"iterations=10,rollout=20"}
    for share in (0.5, 1.0):
        family = table.filter(pl.col("share") == share)
        assert family["p_value_holm"].to_list() == pytest.approx(holm(family["p_value_vs_control"].to_list()).tolist())
    assert table["win_rate"].to_list() == [0.45, 0.15, 0.5, 0.75]
    assert set(table["selfplay_agent"]) == {"mcts"}
    assert curve_table(games.clear(), control, ["x"]).schema == pl.Schema(LEARNING_CURVE)


def test_presets_check_the_curve_settings():
    assert PRESETS["smoke"].learning_curve_shares == (0.5, 1.0)
    assert PRESETS["demo"].learning_curve_shares == (0.5, 1.0)  # the decided rule's last two points
    assert PRESETS["paper"].learning_curve_shares == (0.125, 0.25, 0.5, 1.0)
    for bad in ((0.5,), (0.5, 0.25, 1.0), (0.0, 1.0), (0.5, 1.5), (), (0.5, 0.5, 1.0), [0.5, 1.0], (True, 1.0)):
        with pytest.raises(ValueError, match="learning_curve_shares"):
            replace(PRESETS["smoke"], learning_curve_shares=bad)
    with pytest.raises(ValueError, match="learning_curve_pairs"):
        replace(PRESETS["smoke"], learning_curve_pairs=("full-full", 3))
