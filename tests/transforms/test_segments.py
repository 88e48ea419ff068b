"""Segmented datasets: boundaries by recorded-state index, D_i truncated after segment i, p per (segment, game)."""

from collections import Counter

import polars as pl
import pytest

from jbag_pipeline.schemas import SAMPLED_STATES, STATE_TOKENS
from jbag_pipeline.transforms.segments import segmented_bags
from tests.helpers.segments import state_segment


def _state_tokens(lengths: dict[int, int]) -> pl.DataFrame:
    """Each state j of game g holds tokens s<j> (count j + 1), shared (count 1) and, on the last state, gameStatus."""
    rows = []
    for game_id, n in lengths.items():
        for j in range(n):
            rows += [("g", game_id, j, f".s{j}", j + 1), ("g", game_id, j, ".shared", 1)]
        rows.append(("g", game_id, n - 1, ".gameStatus.GAME_END", 1))
    return pl.DataFrame(rows, schema=STATE_TOKENS, orient="row")


def _sampled(lengths: dict[int, int], frequency: str = "full", keep=lambda j: True) -> pl.DataFrame:
    rows = [("g", frequency, game_id, j) for game_id, n in lengths.items() for j in range(n) if keep(j)]
    return pl.DataFrame(rows, schema=SAMPLED_STATES, orient="row")


def _expected(tokens: pl.DataFrame, game_id: int, states: list[int]) -> dict[str, float]:
    counts = Counter()
    for _, gid, j, token, count in tokens.iter_rows():
        if gid == game_id and j in states:
            counts[token] += count
    total = sum(counts.values())
    return {token: count / total for token, count in counts.items()}


def test_segment_boundaries_for_lengths_not_divisible_by_n_segments():
    assert [state_segment(j, 10, 4) for j in range(10)] == [1, 1, 1, 2, 2, 3, 3, 3, 4, 4]
    assert [state_segment(j, 6, 4) for j in range(6)] == [1, 1, 2, 3, 3, 4]
    assert [state_segment(j, 3, 4) for j in range(3)] == [1, 2, 3]  # segment 4 is empty
    assert [state_segment(j, 8, 4) for j in range(8)] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert [state_segment(j, 5, 1) for j in range(5)] == [1] * 5
    with pytest.raises(ValueError, match="n_segments"):
        state_segment(0, 5, 0)
    with pytest.raises(ValueError, match="state_idx"):
        state_segment(5, 5, 4)


@pytest.mark.parametrize("n_segments", [1, 3, 4])
def test_segmented_bags_truncate_each_trajectory_after_segment_i(n_segments):
    lengths = {1: 10, 2: 3, 3: 7}
    tokens = _state_tokens(lengths)
    bags = segmented_bags(tokens, _sampled(lengths), n_segments)
    assert bags.columns == ["game", "frequency", "segment", "game_id", "token", "p"]
    assert sorted(bags["segment"].unique().to_list()) == list(range(1, n_segments + 1))
    for game_id, n in lengths.items():
        for segment in range(1, n_segments + 1):
            states = [j for j in range(n) if state_segment(j, n, n_segments) <= segment]
            got = bags.filter((pl.col("game_id") == game_id) & (pl.col("segment") == segment))
            assert dict(zip(got["token"], got["p"])) == pytest.approx(_expected(tokens, game_id, states))


def test_last_segment_is_the_whole_trajectory_and_p_sums_to_one():
    lengths = {1: 9, 2: 5}
    tokens = _state_tokens(lengths)
    bags = segmented_bags(tokens, _sampled(lengths), 4)
    sums = bags.group_by("segment", "game_id").agg(pl.col("p").sum())["p"].to_list()
    assert sums == pytest.approx([1.0] * 8)
    whole = bags.filter((pl.col("game_id") == 1) & (pl.col("segment") == 4))
    assert dict(zip(whole["token"], whole["p"])) == pytest.approx(_expected(tokens, 1, list(range(9))))


def test_only_sampled_states_count_and_filtering_keeps_the_boundaries():
    lengths = {4: 8}
    tokens = _state_tokens(lengths)
    sampled = _sampled(lengths, "interval", keep=lambda j: j % 2 == 1 or j == 7)
    bags = segmented_bags(tokens, sampled, 4, blacklist=("gameStatus",))
    assert bags["frequency"].unique().to_list() == ["interval"]
    assert not bags["token"].str.contains("gameStatus").any()
    d2 = bags.filter(pl.col("segment") == 2)  # states 0..3 of 8, of which 1 and 3 are sampled
    expected = _expected(tokens.filter(~pl.col("token").str.contains("gameStatus")), 4, [1, 3])
    assert dict(zip(d2["token"], d2["p"])) == pytest.approx(expected)


def test_bad_input_raises():
    lengths = {1: 4}
    with pytest.raises(ValueError, match="n_segments"):
        segmented_bags(_state_tokens(lengths), _sampled(lengths), 0)
    with pytest.raises(ValueError, match="game_id 9"):
        segmented_bags(_state_tokens(lengths), _sampled({9: 2}), 4)
    with pytest.raises(ValueError, match="lacks columns"):
        segmented_bags(_state_tokens(lengths).drop("count"), _sampled(lengths), 4)
