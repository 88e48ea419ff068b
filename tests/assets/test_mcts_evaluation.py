"""The MCTS evaluation assets materialise for one game (a preset file giving tic-tac-toe one game per seat on the
smoke preset): every matchup and control, the summary, and their checks."""

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.mcts_evaluation import mcts_evaluation_games, mcts_evaluation_summary, mcts_winning_patterns
from jbag_pipeline.assets.model import sampled_states, state_tokens, trajectory_bags, winner_prototypes
from jbag_pipeline.assets.selection import segmented_bags, selected_features
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.play.mcts_evaluation import MATCHUPS, matchups_with_controls
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.schemas import MCTS_EVALUATION_GAMES_STORED, MCTS_EVALUATION_SUMMARY, MCTS_PATTERNS
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize_with

UPSTREAM = [selfplay, state_tokens, sampled_states, trajectory_bags, winner_prototypes, segmented_bags,
            selected_features]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcts_evaluation")
    preset = root / "mcts.toml"
    preset.write_text(f'base = "smoke"\n[games.{GAME}]\nmcts_eval_games_per_seat = 1\n')
    settings = JbagSettings(preset=str(preset))
    results = [materialize_with(UPSTREAM, settings, root, partition_key=GAME,
                                instance=dg.DagsterInstance.ephemeral()),
               materialize_with([mcts_evaluation_games, mcts_winning_patterns], settings, root, partition_key=GAME,
                                instance=dg.DagsterInstance.ephemeral()),
               materialize_with([mcts_evaluation_summary], settings, root, instance=dg.DagsterInstance.ephemeral())]
    assert all(result.success for result in results)
    return root, results


def test_every_matchup_and_control_is_played_in_every_seat(run):
    root, _ = run
    games = lake.read_table(root, "mcts_evaluation_games", {"game": GAME})
    assert games.columns == list(MCTS_EVALUATION_GAMES_STORED)
    assert sorted(games.select("agent", "opponent", "seat").iter_rows()) == sorted(
        (agent, opponent, seat) for agent, opponent in matchups_with_controls() for seat in (0, 1))


def test_the_summary_has_each_matchup_per_seat_and_overall(run):
    root, _ = run
    summary = lake.read_table(root, "mcts_evaluation_summary")
    assert summary.columns == list(MCTS_EVALUATION_SUMMARY)
    overall = summary.filter(pl.col("scope") == "overall")
    assert sorted(overall.select("agent", "opponent").iter_rows()) == sorted(MATCHUPS)
    assert (overall["games"] == 2).all() and not overall["decided"].any()


def test_every_agent_has_its_action_types(run):
    root, _ = run
    patterns = lake.read_table(root, "mcts_winning_patterns", {"game": GAME})
    assert patterns.columns == list(MCTS_PATTERNS)
    assert set(patterns["kind"]) == {"action"}  # tic-tac-toe: center, corner or edge
    agents = sorted(patterns.select("agent", "opponent").unique().iter_rows())
    assert agents == sorted(matchups_with_controls()) and (patterns["games"] == 2).all()


def test_checks(run):
    _, results = run
    checks = {**check_results(results[1]), **check_results(results[2])}
    assert set(checks) == declared_checks([mcts_evaluation_games, mcts_winning_patterns, mcts_evaluation_summary])
    assert all(checks.values()), checks
