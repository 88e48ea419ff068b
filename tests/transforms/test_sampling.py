"""Tokenization frequencies: full, interval (terminal always kept), random (hash-decided), SQL == Python."""

import polars as pl
import pytest

from jbag_pipeline.transforms.sampling import FREQUENCIES, sampled_states
from tests.helpers.sampling import random_keeps, sample_state_indices, state_hash


def _tables(trajectories: list[tuple[str, int, int, int]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """states and games frames for (game, game_id, n_states, n_players) trajectories; the last state is terminal."""
    states = pl.DataFrame(
        [{"game": g, "game_id": gid, "state_idx": j, "turn": j + 1, "player": j % p, "is_terminal": j == n - 1,
          "doc": "{}"} for g, gid, n, p in trajectories for j in range(n)],
        schema={"game": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32, "turn": pl.Int32,
                "player": pl.Int8, "is_terminal": pl.Boolean, "doc": pl.String})
    games = pl.DataFrame([{"game": g, "game_id": gid, "seed": 1, "n_players": p, "winner": 0}
                          for g, gid, _, p in trajectories],
                         schema={"game": pl.String, "game_id": pl.Int64, "seed": pl.Int64, "n_players": pl.Int8,
                                 "winner": pl.Int8})
    return states, games


def test_full_keeps_every_state():
    assert sample_state_indices(5, 4, 2, "full", 0, 1) == [0, 1, 2, 3, 4]


def test_interval_takes_every_nth_recorded_state_and_the_terminal_state():
    assert sample_state_indices(7, 6, 2, "interval", 0, 1) == [1, 3, 5, 6]
    assert sample_state_indices(7, 6, 3, "interval", 0, 1) == [2, 5, 6]
    assert sample_state_indices(6, 5, 3, "interval", 0, 1) == [2, 5]  # terminal already on the interval
    assert sample_state_indices(2, 1, 4, "interval", 0, 1) == [1]  # shorter than one interval: terminal only
    assert sample_state_indices(4, None, 2, "interval", 0, 1) == [1, 3]  # a truncated game has no terminal


def test_state_hash_is_splitmix64():
    # splitmix64 seeded with 0: first output 0xE220A8397B1DCDAF, second 0x6E789E6AA1B965F4 (reference values)
    assert state_hash(0, 0, 0) == 0xE220A8397B1DCDAF
    assert state_hash(0, 0, 1) == 0x6E789E6AA1B965F4


def test_random_is_reproducible_and_depends_on_seed_and_game():
    first = sample_state_indices(200, 199, 2, "random", 7, 3)
    assert first == sample_state_indices(200, 199, 2, "random", 7, 3)
    assert first != sample_state_indices(200, 199, 2, "random", 8, 3)
    assert first != sample_state_indices(200, 199, 2, "random", 7, 4)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_random_keeps_about_one_state_in_n_players_and_mixes_seats(n_players):
    n = 30_000
    kept = sample_state_indices(n, n - 1, n_players, "random", 12345, 99)
    assert abs(len(kept) / n - 1 / n_players) < 0.015
    by_seat = [sum(1 for j in kept if j % n_players == seat) for seat in range(n_players)]
    assert min(by_seat) > 0.8 * len(kept) / n_players  # not locked to one seat's turns, as a fixed interval is


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="unknown frequency"):
        sample_state_indices(3, 2, 2, "often", 0, 1)
    with pytest.raises(ValueError, match="n_players"):
        sample_state_indices(3, 2, 0, "random", 0, 1)
    with pytest.raises(ValueError, match="terminal_idx"):
        sample_state_indices(3, 3, 2, "interval", 0, 1)


@pytest.mark.parametrize("run_seed", [0, 42, -5, 2**63 - 1])
def test_sql_agrees_with_python(run_seed):
    trajectories = [("connect4", 1, 23, 2), ("connect4", 2, 4, 2), ("cant_stop", -7, 31, 4),
                    ("cant_stop", 2**40 + 3, 17, 3), ("tictactoe", 1, 1, 2)]
    states, games = _tables(trajectories)
    sampled = sampled_states(states, games, run_seed)
    assert sampled.columns == ["game", "frequency", "game_id", "state_idx"]
    assert sampled.dtypes == [pl.String, pl.String, pl.Int64, pl.Int32]
    for game, game_id, n, n_players in trajectories:
        for frequency in FREQUENCIES:
            got = sampled.filter((pl.col("game") == game) & (pl.col("game_id") == game_id)
                                 & (pl.col("frequency") == frequency))["state_idx"].to_list()
            assert got == sample_state_indices(n, n - 1, n_players, frequency, run_seed, game_id), (game, frequency)


def test_sql_random_matches_python_over_many_states():
    states, games = _tables([("g", 5, 3000, 3)])
    random_rows = sampled_states(states, games, 2024).filter(pl.col("frequency") == "random")["state_idx"].to_list()
    assert random_rows == [j for j in range(3000) if random_keeps(2024, 5, j, 3)]
    assert 850 < len(random_rows) < 1150


def test_sampled_states_rejects_states_without_a_game_row():
    states, games = _tables([("g", 1, 3, 2), ("g", 2, 3, 2)])
    with pytest.raises(ValueError, match="game_id 2"):
        sampled_states(states, games.filter(pl.col("game_id") == 1), 0)
    with pytest.raises(ValueError, match="lacks columns"):
        sampled_states(states.drop("is_terminal"), games, 0)
