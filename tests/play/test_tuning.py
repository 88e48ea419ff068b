"""The tuning harness: candidates against the self-play agent, ranked best first, deterministically."""

import pytest

from jbag_pipeline.play.tuning import calibrate_iterations, play_tuning, tuning_table
from jbag_pipeline.presets import PRESETS, MCTSSettings, Preset, game_run, tuning_candidates

RUN = game_run(PRESETS["smoke"], "tictactoe")  # mcts(iterations=10,rollout=20) in the other seat
STRONG, WEAK = MCTSSettings(iterations=300, rollout_length=20), MCTSSettings(iterations=1, rollout_length=0)


def _table(seed: int = 0):
    candidates = (WEAK, STRONG)
    games = play_tuning("tictactoe", {}, RUN, candidates, 2, seed, games_per_seat=8)
    return games, tuning_table("tictactoe", RUN, candidates, games, 2)


def test_stronger_candidate_ranks_first():
    games, table = _table()
    assert table["candidate"].to_list() == [STRONG.label(), WEAK.label()]
    assert table["rank"].to_list() == [1, 2]
    strong, weak = table.rows(named=True)
    assert strong["win_rate"] > weak["win_rate"]
    assert strong["n"] == weak["n"] == 16
    assert strong["opponent"] == "mcts(iterations=10,rollout=20)" and strong["chance_rate"] == 0.5
    assert strong["seconds_per_decision"] > weak["seconds_per_decision"]  # 300 iterations cost more than 1
    assert strong["rolls_per_turn"] is None
    # every candidate meets the same seeds
    by_candidate = games.group_by("candidate").agg(games["seed"].sort().implode().alias("seeds"))
    assert by_candidate["seeds"].n_unique() == 1


def test_rerun_gives_the_same_table_but_time():
    timed = ["seconds_per_decision", "opponent_seconds_per_decision"]
    assert _table()[1].drop(timed).equals(_table()[1].drop(timed))


def test_cant_stop_rows_have_habits_and_progress_cutoff_plays():
    run = game_run(PRESETS["smoke"], "cant_stop")
    candidates = (MCTSSettings(5, 5, cutoff="progress"), MCTSSettings(5, 5, exploration=2.0))
    games = play_tuning("cant_stop", {}, run, candidates, 4, 0, games_per_seat=1)
    table = tuning_table("cant_stop", run, candidates, games, 4)
    assert set(table["candidate"]) == {"mcts(iterations=5,rollout=5,cutoff=progress)",
                                       "mcts(iterations=5,rollout=5,exploration=2)"}
    assert table["rolls_per_turn"].null_count() == 0 and table["busts_per_turn"].null_count() == 0
    assert (table["n"] == 4).all()


def test_calibrated_iterations_scale_with_the_time_budget():
    low = calibrate_iterations("tictactoe", {}, MCTSSettings(50, 10), 0.001)
    high = calibrate_iterations("tictactoe", {}, MCTSSettings(50, 10), 0.01)
    assert 1 <= low < high
    with pytest.raises(ValueError, match="seconds_per_decision must be > 0"):
        calibrate_iterations("tictactoe", {}, MCTSSettings(50, 10), 0)


def test_grid_checks():
    preset = Preset(name="x", seed=0, games={}, tuning_grid={"tictactoe": (WEAK, WEAK)})
    with pytest.raises(ValueError, match="repeats a candidate"):
        tuning_candidates(preset, "tictactoe")
    assert tuning_candidates(preset, "connect4") == ()
    with pytest.raises(ValueError, match="cutoff must be one of"):
        MCTSSettings(10, 10, cutoff="guess")
    with pytest.raises(ValueError, match="iterations must be an int >= 1"):
        MCTSSettings(0, 10)


def test_a_preset_file_sets_the_grid_as_inline_tables():
    from jbag_pipeline.preset_files import PresetFileError, preset_from_mapping

    grid = {"cant_stop": [{"iterations": 15, "rollout_length": 10, "cutoff": "progress"},
                          {"iterations": 20, "rollout_length": 10, "exploration": 2}]}
    preset = preset_from_mapping({"base": "smoke", "tuning_grid": grid}, "x")
    assert preset.tuning_grid["cant_stop"] == (MCTSSettings(15, 10, cutoff="progress"), MCTSSettings(20, 10, 2.0))
    assert preset.tuning_grid["dominion"] == PRESETS["smoke"].tuning_grid["dominion"]  # merged per game
    with pytest.raises(PresetFileError, match=r"tuning_grid\.cant_stop\[0\]\.rollout: unknown key"):
        preset_from_mapping({"base": "smoke", "tuning_grid": {"cant_stop": [{"iterations": 5, "rollout": 1}]}}, "x")
    with pytest.raises(PresetFileError, match="cutoff must be one of"):
        preset_from_mapping({"base": "smoke", "tuning_grid": {"cant_stop": [
            {"iterations": 5, "rollout_length": 1, "cutoff": "x"}]}}, "x")
