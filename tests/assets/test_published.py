"""published_value_functions and published_vf_evaluation materialise on the smoke preset from a tiny published
folder (tmp): tables with their schemas, provenance and the unreachable Can't Stop features in the metadata, every
asset check passing; without the folder both write zero-row or skipped tables and say why."""

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.published import DIR_VARIABLE, published_value_functions, published_vf_evaluation
from jbag_pipeline.model.published import PUBLISHED_FOLDERS
from jbag_pipeline.presets import PRESETS, game_run
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.schemas import PUBLISHED_VALUE_FUNCTIONS, PUBLISHED_VF_EVALUATION
from tests.helpers.materialize import check_results, declared_checks, materialize, materialize_with
from tests.helpers.published import write_published

ASSETS = [published_value_functions, published_vf_evaluation]
PLAYED = {"connect4": 2, "dots_and_boxes": 2, "cant_stop": 4, "dominion": 4, "sea_salt_paper": 4,
          "seven_wonders": 4}  # game -> seats: every published game (each speaks TAG's dialect)


def _metadata(result, asset: str) -> dict:
    (event,) = [e for e in result.get_asset_materialization_events()
                if e.event_specific_data.materialization.asset_key.to_user_string() == asset]
    return {k: getattr(v, "value", v) for k, v in event.event_specific_data.materialization.metadata.items()}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = write_published(tmp_path_factory.mktemp("vf") / "published")
    root = tmp_path_factory.mktemp("lake")
    config = {"ops": {"published_value_functions": {"config": {"published_vf_dir": str(folder)}}}}
    return root, materialize(ASSETS, root, run_config=config)


def test_both_tables_have_their_schemas(run):
    root, _ = run
    functions = lake.read_table(root, "published_value_functions")
    evaluation = lake.read_table(root, "published_vf_evaluation")
    assert functions.schema == pl.Schema(PUBLISHED_VALUE_FUNCTIONS)
    assert evaluation.schema == pl.Schema(PUBLISHED_VF_EVALUATION)
    assert sorted(functions["game"].unique()) == sorted(PUBLISHED_FOLDERS)


def test_every_game_is_played_in_every_seat(run):
    root, _ = run
    evaluation = lake.read_table(root, "published_vf_evaluation")
    for game, seats in PLAYED.items():
        rows = evaluation.filter(pl.col("game") == game)
        assert rows["scope"].to_list() == [f"seat {s}" for s in range(seats)] + ["overall"]
        per_seat = game_run(PRESETS["smoke"], game).eval_games_per_seat
        assert rows.filter(pl.col("scope") != "overall")["games"].to_list() == [per_seat] * seats
        assert rows["control_win_rate"].is_between(0, 1).all() and rows["verdict"].is_not_null().all()
    assert sorted(PLAYED) == sorted(PUBLISHED_FOLDERS) and "skipped" not in evaluation["scope"].to_list()


def test_metadata_has_provenance_and_unreachable_features(run):
    root, result = run
    functions = _metadata(result, "published_value_functions")
    assert functions["source"] == "someone/TabletopGames" and functions["license"] == "MIT"
    assert functions["commit"] == "0123456789abcdef0123456789abcdef01234567"
    evaluation = _metadata(result, "published_vf_evaluation")
    assert evaluation["unreachable_features"] == {"connect4": 0, "dots_and_boxes": 0, "cant_stop": 1, "dominion": 0,
                                                  "sea_salt_paper": 0, "seven_wonders": 0}
    overall = lake.read_table(root, "published_vf_evaluation").filter(pl.col("scope") == "overall")
    (note,) = overall.filter(pl.col("game") == "cant_stop")["note"]
    assert note.startswith("1 of 11 published features") and "(tick)" in note


def test_every_check_passes(run):
    _, result = run
    results = check_results(result)
    assert set(results) == declared_checks(ASSETS)
    assert all(results.values())


def test_without_the_folder_both_assets_say_why(tmp_path, monkeypatch):
    monkeypatch.delenv(DIR_VARIABLE, raising=False)
    result = materialize(ASSETS, tmp_path)
    assert "skipped: no published value-function folder" in _metadata(result, "published_value_functions")["status"]
    assert lake.read_table(tmp_path, "published_value_functions").is_empty()
    evaluation = lake.read_table(tmp_path, "published_vf_evaluation")
    assert sorted(evaluation["game"]) == sorted(PUBLISHED_FOLDERS) and set(evaluation["scope"]) == {"skipped"}
    assert all(check_results(result).values())
    monkeypatch.setenv(DIR_VARIABLE, str(tmp_path / "nowhere"))
    result = materialize([published_value_functions], tmp_path)
    assert "nowhere does not exist" in _metadata(result, "published_value_functions")["status"]


def test_a_broken_file_fails_the_run_naming_it(tmp_path):
    folder = write_published(tmp_path / "published")
    (folder / "Connect4" / "prototype0.json").write_text('{".a.1": 1.5}')
    config = {"ops": {"published_value_functions": {"config": {"published_vf_dir": str(folder)}}}}
    result = materialize_with([published_value_functions], JbagSettings(preset="smoke"), tmp_path,
                              run_config=config, instance=dg.DagsterInstance.ephemeral(), raise_on_error=False)
    assert not result.success
    assert not lake.table_exists(tmp_path, "published_value_functions")  # never a half-written table
    (failure,) = [e for e in result.all_events if e.is_step_failure]
    assert "Connect4/prototype0.json: field '.a.1': count must be an integer" in str(failure.step_failure_data.error)


def test_the_report_puts_them_beside_the_paper_and_our_verdicts(run):
    from jbag_pipeline.report import published_comparison, write_report

    root, _ = run
    markdown = (write_report(root).parent / "report.md").read_text()
    section = markdown.split("## The authors' published value functions in our engines")[1]
    assert all(game in section for game in PUBLISHED_FOLDERS) and "loses to baseline" in section
    published = lake.read_table(root, "published_vf_evaluation")
    verdicts = pl.DataFrame({"game": ["connect4"], "best_pair": ["full-full"], "win_rate": [0.6],
                             "verdict": ["better"]})
    table = published_comparison(published, verdicts)
    assert table["game"].to_list() == sorted(PUBLISHED_FOLDERS)  # one row per game: overall or skipped
    row = table.filter(pl.col("game") == "connect4").row(0, named=True)
    assert (row["our_best_pair"], row["our_win_rate"], row["our_verdict"]) == ("full-full", 0.6, "better")
    assert row["paper_claim"].startswith("beats baseline")
    assert table.filter(pl.col("game") == "cant_stop")["our_best_pair"].to_list() == [None]
