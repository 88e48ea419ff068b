"""Random-Forest feature selection: planted tokens are found, segmented union, adaptive k, draws excluded."""

import numpy as np
import polars as pl
import pytest

from jbag_pipeline.model.selection import TokenRanking, adaptive_k, bag_matrix, rank_tokens, select_features, top_k
from jbag_pipeline.schemas import SEGMENTED_BAGS


def _bags(winners: list[int | None], informative: str, *, frequency: str = "full", segment: int = 1,
          seed: int = 0, n_noise: int = 150) -> pl.DataFrame:
    """Normalised bags: 25 noise tokens each, plus `informative` with a high count only when seat 1 won."""
    rng = np.random.default_rng(seed)
    rows = []
    for game_id, winner in enumerate(winners):
        counts = {f".noise.{t}": int(rng.integers(1, 6)) for t in rng.choice(n_noise, 25, replace=False)}
        counts[informative] = int(rng.integers(8, 12)) if winner == 1 else int(rng.integers(0, 2))
        total = sum(counts.values())
        rows += [("g", frequency, segment, game_id, token, c / total) for token, c in counts.items() if c]
    return pl.DataFrame(rows, schema=SEGMENTED_BAGS, orient="row")


def _games(winners: list[int | None]) -> pl.DataFrame:
    return pl.DataFrame({"game": "g", "game_id": list(range(len(winners))), "winner": winners},
                        schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8})


WINNERS = [i % 2 for i in range(60)]


def test_bag_matrix_is_sparse_with_one_cell_per_row():
    bags = _bags(WINNERS[:10], ".signal")
    matrix, game_ids, tokens = bag_matrix(bags)
    assert matrix.format == "csr" and matrix.nnz == len(bags)
    assert game_ids.tolist() == list(range(10)) and tokens == sorted(set(bags["token"]))
    assert np.allclose(np.asarray(matrix.sum(axis=1)).ravel(), 1.0, atol=1e-6)


def test_selection_recovers_a_planted_informative_token():
    result = select_features(_bags(WINNERS, ".signal"), _games(WINNERS), k=5, n_estimators=30, seed=1)
    full = result.features.filter(pl.col("variant") == "full").sort("rank")
    assert full["token"][0] == ".signal"
    assert full["rank"].to_list() == [1, 2, 3, 4, 5] and full["segment"].is_null().all()
    assert full["importance"].to_list() == sorted(full["importance"].to_list(), reverse=True)
    summary = result.summary.filter(pl.col("variant") == "full").row(0, named=True)
    assert summary["tokens_kept"] == 5 and summary["n_trajectories"] == 60
    assert summary["accuracy"] > 0.8


def test_selection_is_deterministic_for_a_seed():
    bags, games = _bags(WINNERS, ".signal"), _games(WINNERS)
    first = select_features(bags, games, k=5, n_estimators=10, seed=3)
    second = select_features(bags, games, k=5, n_estimators=10, seed=3)
    assert first.features.equals(second.features) and first.summary.equals(second.summary)


def test_selection_without_accuracy_selects_the_same_tokens():
    bags = pl.concat([_bags(WINNERS, ".early", segment=1, seed=1), _bags(WINNERS, ".late", segment=2, seed=2)])
    games = _games(WINNERS)
    with_accuracy = select_features(bags, games, k=5, n_estimators=20, seed=3)
    without = select_features(bags, games, k=5, n_estimators=20, seed=3, accuracy=False)
    assert without.features.equals(with_accuracy.features)
    assert without.summary.drop("accuracy").equals(with_accuracy.summary.drop("accuracy"))
    assert without.summary["accuracy"].is_null().all() and with_accuracy.summary["accuracy"].is_not_null().all()


def test_segmented_variant_is_the_union_of_per_segment_top_k_with_the_earliest_segment():
    early = _bags(WINNERS, ".early", segment=1, seed=1)
    late = _bags(WINNERS, ".late", segment=2, seed=2)
    bags, games = pl.concat([early, late]), _games(WINNERS)
    result = select_features(bags, games, k=3, n_estimators=30, seed=0)
    seg = result.features.filter(pl.col("variant") == "full_seg")
    winners = games.filter(pl.col("winner").is_not_null())
    expected: dict[str, int] = {}
    for segment, dataset in ((1, early), (2, late)):
        ranking = rank_tokens(dataset, winners, n_estimators=30, seed=0)
        for token in ranking.tokens[: top_k(ranking, 3)]:
            expected.setdefault(token, segment)
    assert dict(zip(seg["token"], seg["segment"])) == expected
    assert expected[".early"] == 1 and expected[".late"] == 2
    assert len(seg) > 3  # the union may exceed k
    assert result.summary.filter(pl.col("variant") == "full_seg")["tokens_kept"].item() == len(seg)
    # the non-segmented variant ranks the whole trajectory (the last segment) only
    assert result.features.filter(pl.col("variant") == "full").sort("rank")["token"][0] == ".late"


def test_adaptive_k_takes_the_fewest_tokens_covering_the_share():
    ranking = TokenRanking(["a", "b", "c", "d", "e"], np.array([0.5, 0.3, 0.15, 0.05, 0.0]), None, 10)
    assert adaptive_k(ranking, 0.9) == 3
    assert adaptive_k(ranking, 0.8) == 2
    assert adaptive_k(ranking, 0.5) == 1
    assert adaptive_k(ranking, 1.0) == 4  # never a zero-importance token
    with pytest.raises(ValueError, match="share"):
        adaptive_k(ranking, 0.0)


def test_adaptive_and_none_variants_on_frequency_full():
    bags, games = _bags(WINNERS, ".signal"), _games(WINNERS)
    result = select_features(bags, games, k=5, n_estimators=20, seed=0, adaptive_share=0.6)
    none = result.features.filter(pl.col("variant") == "none").sort("rank")
    assert set(none["token"]) == set(bags["token"])
    total = none["importance"].sum()
    adaptive = result.features.filter(pl.col("variant") == "adaptive").sort("rank")
    covered = adaptive["importance"].sum() / total
    assert covered >= 0.6 and covered - adaptive["importance"][-1] / total < 0.6
    assert adaptive["token"].to_list() == none["token"][: len(adaptive)].to_list()


def test_variants_per_frequency_and_draws_excluded():
    winners = WINNERS[:40] + [None] * 10
    bags = pl.concat([_bags(winners, ".signal", frequency=f, segment=s, seed=s)
                      for f in ("full", "interval", "random") for s in (1, 2)])
    draw_only = pl.DataFrame([("g", "full", 2, 45, ".draw_only", 0.5)], schema=SEGMENTED_BAGS, orient="row")
    result = select_features(pl.concat([bags, draw_only]), _games(winners), k=4, n_estimators=10, seed=0)
    assert ".draw_only" not in result.features["token"].to_list()
    assert sorted(result.summary["variant"]) == sorted(
        ["full", "interval", "random", "full_seg", "interval_seg", "random_seg", "none", "adaptive"])
    assert set(result.summary["n_trajectories"]) == {40}
    assert (result.features.group_by("variant").len()["len"] > 0).all()


def test_without_a_segment_column_only_whole_trajectory_variants_are_made():
    bags = _bags(WINNERS, ".signal").drop("segment")
    result = select_features(bags, _games(WINNERS), k=3, n_estimators=10, seed=0)
    assert sorted(result.summary["variant"]) == ["adaptive", "full", "none"]


def test_bad_input_raises():
    bags = _bags(WINNERS, ".signal")
    with pytest.raises(ValueError, match="two seats"):
        select_features(bags, _games([1] * 60), k=3, n_estimators=5)
    with pytest.raises(ValueError, match="no games row"):
        select_features(bags, _games(WINNERS[:30]), k=3, n_estimators=5)
    with pytest.raises(ValueError, match="lacks columns"):
        select_features(bags.drop("p"), _games(WINNERS))
    with pytest.raises(ValueError, match="k must be"):
        select_features(bags, _games(WINNERS), k=0)
    with pytest.raises(ValueError, match="adaptive_share"):
        select_features(bags, _games(WINNERS), adaptive_share=1.5)


def test_a_forest_fit_on_the_sparse_matrix_is_the_dense_fit():
    """The CSR matrix rank_tokens fits on holds the same values as its dense form, and scikit-learn's forest with
    the same random_state grows the same trees on either: the same importances, the same selected tokens."""
    from sklearn.ensemble import RandomForestClassifier

    bags = _bags([i % 3 % 2 for i in range(90)], ".planted", seed=4)
    matrix, game_ids, tokens = bag_matrix(bags)
    dense = matrix.toarray()
    assert dense.dtype == np.float32 and np.count_nonzero(dense) == matrix.nnz == len(bags)
    for row in (0, 45, 89):
        part = bags.filter(pl.col("game_id") == game_ids[row])
        assert dense[row, [tokens.index(t) for t in part["token"]]].tolist() == \
            part["p"].cast(pl.Float32).to_list()
    labels = np.array([i % 3 % 2 for i in range(90)])
    fits = [RandomForestClassifier(n_estimators=15, random_state=7, n_jobs=1).fit(x, labels) for x in (matrix, dense)]
    assert np.array_equal(fits[0].feature_importances_, fits[1].feature_importances_)
    for sparse_tree, dense_tree in zip(fits[0].estimators_, fits[1].estimators_):
        assert np.array_equal(sparse_tree.tree_.feature, dense_tree.tree_.feature)
        assert np.array_equal(sparse_tree.tree_.threshold, dense_tree.tree_.threshold)
    ranking = rank_tokens(bags, _games([i % 3 % 2 for i in range(90)]), n_estimators=15, seed=7)
    order = np.lexsort((np.arange(len(tokens)), -fits[1].feature_importances_))
    assert ranking.tokens[:top_k(ranking, 10)] == [tokens[i] for i in order[:top_k(ranking, 10)]]
    assert ranking.tokens[0] == ".planted"
