"""Winner classification: held-out split, prefixes, frequencies, feature variants and the majority baseline."""

import numpy as np
import polars as pl
import pytest

from jbag_pipeline.assets.classification import accuracy_check
from jbag_pipeline.analysis.classification import (
    PREFIXES, classification_rows, split_games, token_overlap, train_selected_features, variant_classification_table,
    variant_combos, winner_classification_table,
)
from jbag_pipeline.model.variants import FEATURE_VARIANTS
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.transforms.segments import segmented_bags
from jbag_pipeline.model.selection import select_features
from jbag_pipeline.analysis.statistics import wilson_interval


def _tables(n_games: int = 20):
    games, states, tokens = [], [], []
    for game_id in range(n_games):
        winner = game_id % 2 if game_id % 5 else None  # every fifth game a draw
        games.append({"game": "g", "game_id": game_id, "winner": winner})
        for idx in range(4):
            states.append({"game": "g", "game_id": game_id, "state_idx": idx})
            tokens.append({"game": "g", "game_id": game_id, "state_idx": idx, "token": ".common", "count": 3})
            mark = ".mark.a" if winner == 0 else ".mark.b" if winner == 1 else ".mark.c"
            tokens.append({"game": "g", "game_id": game_id, "state_idx": idx, "token": mark, "count": 1})
            tokens.append({"game": "g", "game_id": game_id, "state_idx": idx,
                           "token": f".playerResults.{winner}", "count": 1})
    schema = {"winner": pl.Int8}
    return (pl.DataFrame(tokens), pl.DataFrame(states), pl.DataFrame(games, schema_overrides=schema))


def test_split_holds_out_the_last_decided_games():
    _, _, games = _tables()
    train, test = split_games(games, 0.25)
    decided = [g for g in range(20) if g % 5]
    assert train + test == decided and len(test) == 4


def test_planted_token_is_found_at_every_prefix_and_outcome_tokens_are_filtered():
    tokens, states, games = _tables()
    table = winner_classification_table(tokens, states, games, test_share=0.25, blacklist=("playerResults",))
    assert table["prefix"].to_list() == [0.25, 0.5, 0.75, 1.0]
    assert table["accuracy"].to_list() == [1.0] * 4
    assert table["majority_accuracy"][0] == 0.5  # the four test games are won by seats 1, 0, 1, 0


def test_without_signal_accuracy_is_the_tie_break_not_perfect():
    tokens, states, games = _tables()
    tokens = tokens.filter(~pl.col("token").str.starts_with(".mark"))
    table = winner_classification_table(tokens, states, games, test_share=0.25, blacklist=("playerResults",))
    assert table["accuracy"][3] < 1.0


# --- per frequency and feature variant -------------------------------------------------------------------

N_STATES = 6  # recorded states per game; interval (2 seats) keeps state_idx 1, 3, 5


def _game_tables(n_games: int, winner_of, tokens_of) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(state_tokens, states, games) of two-seat games; tokens_of(game_id, winner, state_idx) -> {token: count}."""
    games, states, tokens = [], [], []
    for game_id in range(n_games):
        winner = winner_of(game_id)
        games.append({"game": "g", "game_id": game_id, "winner": winner, "n_players": 2})
        for idx in range(N_STATES):
            states.append({"game": "g", "game_id": game_id, "state_idx": idx, "is_terminal": idx == N_STATES - 1})
            for token, count in tokens_of(game_id, winner, idx).items():
                tokens.append({"game": "g", "game_id": game_id, "state_idx": idx, "token": token, "count": count})
    return (pl.DataFrame(tokens, schema_overrides={"state_idx": pl.Int32}),
            pl.DataFrame(states, schema_overrides={"state_idx": pl.Int32}),
            pl.DataFrame(games, schema_overrides={"winner": pl.Int8, "n_players": pl.Int8}))


def _planted(game_id, winner, idx):
    """A seat mark in the even-indexed states only (which interval never samples), beside a common token."""
    bag = {".common": 3, f".playerResults.{winner}": 1}
    if idx % 2 == 0:
        bag[f".mark.{winner}"] = 1
    return bag


def _features(**variants) -> pl.DataFrame:
    rows = [{"game": "g", "variant": variant, "token": token, "importance": 1.0, "rank": rank + 1, "segment": None}
            for variant, tokens in variants.items() for rank, token in enumerate(tokens)]
    return pl.DataFrame(rows, schema_overrides={"rank": pl.Int32, "segment": pl.Int32})


def _row(table, frequency, variant, prefix=1.0):
    rows = table.filter((pl.col("frequency") == frequency) & (pl.col("feature_variant") == variant)
                        & (pl.col("prefix") == prefix))
    assert rows.height == 1
    return rows.row(0, named=True)


def test_planted_token_gives_accuracy_one_above_majority_where_its_states_are_sampled():
    tokens, states, games = _game_tables(100, lambda g: g % 2, _planted)
    sampled = sampled_states(states, games, run_seed=0)
    features = _features(full=[".mark.0", ".mark.1"], random=[".common"])
    table = variant_classification_table(tokens, states, games, sampled, features, 0.3, ("playerResults",))
    assert table.select("frequency", "feature_variant").unique(maintain_order=True).rows() == [
        ("full", "none"), ("interval", "none"), ("random", "none"), ("full", "full"), ("full", "random")]
    assert table.height == 5 * len(PREFIXES)
    test_winners = [g % 2 for g in range(70, 100)]
    for frequency, variant in (("full", "none"), ("full", "full")):
        for prefix in PREFIXES:
            row = _row(table, frequency, variant, prefix)
            assert (row["n_train"], row["n_test"], row["correct"], row["accuracy"]) == (70, 30, 30, 1.0)
            assert row["accuracy_low"] == pytest.approx(wilson_interval(30, 30)[0]) and row["accuracy_high"] == 1.0
            assert row["majority_accuracy"] == 0.5 and row["above_majority"]
    assert _row(table, "full", "full")["n_tokens"] == 2 and _row(table, "full", "none")["n_tokens"] is None
    # interval samples only odd states, which carry no mark: every bag is alike and P-NNS ties to seat 0.
    interval = _row(table, "interval", "none")
    assert interval["correct"] == test_winners.count(0) and not interval["above_majority"]
    # the variant keeping only the common token sees no difference either.
    assert _row(table, "full", "random")["accuracy"] == 0.5
    # random keeps about half the states: most test games keep a marked one.
    assert _row(table, "random", "none")["accuracy"] > 0.7


def _noise_tables(seed: int, n_games: int = 200):
    """Winners and tokens drawn independently: no token carries any signal."""
    rng = np.random.default_rng(seed)
    winners = rng.integers(0, 2, n_games).tolist()
    noise = {(g, i): {f".noise.{k}": int(rng.integers(1, 4)) for k in rng.choice(6, 3, replace=False)}
             for g in range(n_games) for i in range(N_STATES)}
    return _game_tables(n_games, lambda g: winners[g], lambda g, w, i: noise[g, i])


def test_bags_without_signal_give_intervals_covering_the_majority():
    covered, rows = 0, 0
    for seed in range(5):
        tokens, states, games = _noise_tables(seed)
        table = variant_classification_table(tokens, states, games, sampled_states(states, games, run_seed=0),
                                             _features(full=[".noise.0", ".noise.1"]), 0.3, ())
        assert table.height == 4 * len(PREFIXES) and (table["n_test"] == 60).all()
        covers = (table["accuracy_low"] <= table["majority_accuracy"]) & \
            (table["majority_accuracy"] <= table["accuracy_high"])
        covered, rows = covered + int(covers.sum()), rows + table.height
        assert table["accuracy"].max() < 0.8
    assert covered >= 0.85 * rows, f"{covered} of {rows} intervals cover the majority baseline"


def test_restricted_bag_without_any_selected_token_is_empty_and_ties():
    tokens, states, games = _game_tables(20, lambda g: g % 2, _planted)
    table = variant_classification_table(tokens, states, games, sampled_states(states, games, run_seed=0),
                                         _features(full=[".absent"]), 0.3, ("playerResults",))
    row = _row(table, "full", "full")
    assert row["n_tokens"] == 1 and row["correct"] == [g % 2 for g in range(14, 20)].count(0)


def test_winner_classification_is_the_full_every_token_slice():
    tokens, states, games = _game_tables(40, lambda g: g % 2 if g % 7 else None, _planted)
    sampled = sampled_states(states, games, run_seed=0)
    whole = winner_classification_table(tokens, states, games, 0.3, ("playerResults",))
    per_variant = variant_classification_table(tokens, states, games, sampled, _features(full=[".common"]), 0.3,
                                               ("playerResults",))
    assert whole.equals(per_variant.filter((pl.col("frequency") == "full") & (pl.col("feature_variant") == "none")))


def test_outcome_tokens_are_filtered_before_classifying():
    tokens, states, games = _game_tables(40, lambda g: g % 2, lambda g, w, i: {".common": 2, f".playerResults.{w}": 1})
    leaky = winner_classification_table(tokens, states, games, 0.3, ())
    filtered = winner_classification_table(tokens, states, games, 0.3, ("playerresults",))
    assert leaky["accuracy"].to_list() == [1.0] * 4
    assert filtered["accuracy"].to_list() == [0.5] * 4  # ties to seat 0, which won half of the test games


def test_too_few_decided_games_give_null_rows_and_bad_input_raises():
    tokens, states, games = _game_tables(3, lambda g: 0 if g == 0 else None, _planted)
    table = winner_classification_table(tokens, states, games, 0.3, ())
    assert table.height == len(PREFIXES) and table["accuracy"].null_count() == len(PREFIXES)
    assert (table["n_train"] == 1).all() and (table["n_test"] == 0).all()
    tokens, states, games = _game_tables(10, lambda g: g % 2, _planted)
    with pytest.raises(ValueError, match="state_tokens lacks columns \\['count'\\]"):
        winner_classification_table(tokens.drop("count"), states, games, 0.3, ())
    with pytest.raises(ValueError, match="need sampled_states"):
        classification_rows(tokens, states, games, None, 0.3, (), [("interval", "none", None)])
    with pytest.raises(ValueError, match="unknown frequency 'weekly'"):
        classification_rows(tokens, states, games, None, 0.3, (), [("weekly", "none", None)])
    with pytest.raises(ValueError, match="unknown variants \\['best'\\]"):
        variant_combos(_features(best=[".common"]))
    with pytest.raises(ValueError, match="held-out games have no states"):
        winner_classification_table(tokens, states.filter(pl.col("game_id") < 5), games, 0.3, ())


def test_variants_are_selected_on_training_games_only():
    # A token present only in held-out games, perfectly separating them: a selection on all games may pick it,
    # one on the training games never can.
    def tokens_of(game_id, winner, idx):
        bag = {".common": 2, f".weak.{(game_id // 3) % 2}": 1}
        if game_id >= 28:
            bag[f".leak.{winner}"] = 1
        return bag

    tokens, states, games = _game_tables(40, lambda g: g % 2, tokens_of)
    segmented = segmented_bags(tokens, sampled_states(states, games, run_seed=0), n_segments=2)
    options = {"k": 5, "n_estimators": 10, "seed": 0, "adaptive_share": 0.9}
    on_train = train_selected_features(segmented, games, 0.3, **options)
    on_all = select_features(segmented, games, **options).features
    assert ".leak.0" in set(on_all["token"]) and not on_train["token"].str.starts_with(".leak").any()
    assert set(on_train["variant"]) == set(on_all["variant"])
    overlap = token_overlap(on_train, on_all)
    assert overlap["variant"].to_list() == list(FEATURE_VARIANTS)
    none = overlap.filter(pl.col("variant") == "none").row(0, named=True)
    assert (none["train_tokens"], none["agent_tokens"], none["shared_tokens"]) == (3, 5, 3)  # + .leak.0/1


def test_no_selection_when_training_games_were_won_by_one_seat():
    tokens, states, games = _game_tables(20, lambda g: 0 if g < 14 else 1, _planted)
    segmented = segmented_bags(tokens, sampled_states(states, games, run_seed=0), n_segments=2)
    assert train_selected_features(segmented, games, 0.3, k=5, n_estimators=5, seed=0, adaptive_share=0.9) is None
    table = variant_classification_table(tokens, states, games, sampled_states(states, games, run_seed=0), None,
                                         0.3, ())
    variants = table.filter(pl.col("feature_variant") != "none")
    assert variants.select("feature_variant").unique(maintain_order=True)["feature_variant"].to_list() == \
        [v for v in FEATURE_VARIANTS if v != "none"]
    assert variants["accuracy"].null_count() == variants.height
    assert table.filter(pl.col("feature_variant") == "none")["accuracy"].null_count() == 0


def test_accuracy_check_flags_an_accuracy_outside_its_interval():
    tokens, states, games = _game_tables(20, lambda g: g % 2, _planted)
    table = winner_classification_table(tokens, states, games, 0.3, ("playerResults",))
    assert accuracy_check(table, "winner_classification").passed
    broken = table.with_columns(pl.when(pl.col("prefix") == 0.5).then(0.1).otherwise(pl.col("accuracy_high"))
                                .alias("accuracy_high"))
    result = accuracy_check(broken, "winner_classification")
    assert not result.passed and result.metadata["rows_out_of_range"].value == 1
