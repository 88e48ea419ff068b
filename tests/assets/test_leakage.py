"""leaky_tokens and counters_kept materialise for one game; the blacklist removes every leaky token."""

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.leakage import counters_kept, leaky_tokens
from jbag_pipeline.assets.model import sampled_states, state_tokens
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.presets import PRESETS
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize

LEAKAGE = [leaky_tokens, counters_kept]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("leakage")
    materialize([selfplay, state_tokens, sampled_states], root, partition_key=GAME)
    return root, materialize(LEAKAGE, root, partition_key=GAME)


def test_leaky_tokens_on_smoke_self_play(run):
    root, result = run
    table = lake.read_table(root, "leaky_tokens", {"game": GAME})
    assert {"token", "seat", "accuracy_low", "majority_accuracy", "n_test", "blacklisted"} <= set(table.columns)
    assert result.asset_materializations_for_node("leaky_tokens")[0].metadata["tokens_tested"].value > 0
    assert table.filter(~pl.col("blacklisted")).is_empty()


def test_leaky_token_outside_the_blacklist_fails_the_check(tmp_path):
    """60 games in which `.sneaky` (not blacklisted) and `.gameStatus.WIN` (blacklisted) occur iff seat 0 won."""
    winners = [i % 2 for i in range(60)]
    games = pl.DataFrame({"game": GAME, "game_id": range(60), "winner": winners},
                         schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8})
    rows = [(i, ".board[0][0].x") for i in range(60)]
    rows += [(i, token) for i, w in enumerate(winners) if w == 0 for token in (".sneaky", ".gameStatus.WIN")]
    tokens = pl.DataFrame({"game": GAME, "game_id": [r[0] for r in rows], "state_idx": 0,
                           "token": [r[1] for r in rows], "count": 1},
                          schema={"game": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32, "token": pl.String,
                                  "count": pl.Int64})
    lake.write_table(games, tmp_path, "selfplay_games", {"game": GAME})
    lake.write_table(tokens, tmp_path, "state_tokens", {"game": GAME})
    result = materialize([leaky_tokens], tmp_path, partition_key=GAME)  # the check warns: the run still succeeds
    table = lake.read_table(tmp_path, "leaky_tokens", {"game": GAME})
    leaky = dict(table.group_by("token").agg(pl.col("blacklisted").first()).iter_rows())
    assert leaky[".sneaky"] is False and leaky[".gameStatus.WIN"] is True  # (the board token's share leaks too)
    assert check_results(result) == {("leaky_tokens", "no_leaky_token_kept"): False}


def test_counters_kept_keeps_turn_order_fields(run):
    root, _ = run
    prototypes = lake.read_table(root, "counters_kept_prototypes", {"game": GAME})
    features = lake.read_table(root, "counters_kept_features", {"game": GAME})
    assert set(prototypes["frequency"]) == {"full"}
    assert ((prototypes.group_by("seat").agg(pl.col("p").sum())["p"] - 1).abs() < 1e-9).all()
    assert set(features["variant"]) == {"full"} and len(features) <= PRESETS["smoke"].top_k
    dropped = PRESETS["smoke"].blacklist_for(GAME, keep_counters=True)
    assert "turnCounter" not in dropped
    assert not any(field in token for token in prototypes["token"] for field in dropped)


def test_leakage_checks(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks(LEAKAGE)
    assert all(checks.values()), checks
