"""reference_reproduction materialises the paper's agent-classification table from a subset of the shared
jsonbag_reference data (written to a tmp folder); its check reports the largest gap to the published numbers."""

from pathlib import Path

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.reference import reference_reproduction
from jbag_pipeline.model.reference import BAGS_FILE, GAMES, GAMES_FILE, METHODS, PUBLISHED
from tests.helpers.materialize import check_results, declared_checks, materialize, smoke_resources

REFERENCE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "jsonbag_reference"
GAMES_PER_CLASS = 20  # per (game, agent class): enough for both methods to run, seconds on the whole asset


@pytest.fixture(scope="module")
def subset(tmp_path_factory) -> Path:
    """The first GAMES_PER_CLASS games of every (game, agent class) of the reference data, bags and games."""
    if not (REFERENCE / BAGS_FILE).is_file():
        pytest.skip(f"{REFERENCE} is absent (it exists beside the repository only in the team's workspace and CI)")
    folder = tmp_path_factory.mktemp("jsonbag_reference")
    games = pl.read_parquet(REFERENCE / GAMES_FILE).sort("game", "agent_class", "game_id") \
        .group_by("game", "agent_class", maintain_order=True).head(GAMES_PER_CLASS)
    keys = games.select("game", "agent_class", "game_id")
    bags = pl.scan_parquet(REFERENCE / BAGS_FILE).join(keys.lazy(), on=["game", "agent_class", "game_id"]).collect()
    games.write_parquet(folder / GAMES_FILE)
    bags.write_parquet(folder / BAGS_FILE)
    return folder


@pytest.fixture(scope="module")
def run(subset, tmp_path_factory):
    root = tmp_path_factory.mktemp("reference")
    config = {"ops": {"reference_reproduction": {"config": {"reference_dir": str(subset), "n_splits": 2}}}}
    return root, materialize([reference_reproduction], root, run_config=config)


def test_reference_table(run):
    root, _ = run
    table = lake.read_table(root, "reference_reproduction")
    assert sorted(table.select("game", "method").rows()) == sorted((g, m) for g in GAMES for m in METHODS)
    assert all(row["published"] == PUBLISHED[row["method"]][row["game"]] for row in table.iter_rows(named=True))
    assert table["ours"].is_between(0, 1).all() and table["ours_sd"].is_not_null().all()


def test_reference_check_reports_the_largest_gap(run):
    root, result = run
    table = lake.read_table(root, "reference_reproduction")
    gap = float((table["ours"] - table["published"]).abs().max())
    (evaluation,) = result.get_asset_check_evaluations()
    assert set(check_results(result)) == declared_checks([reference_reproduction])
    assert evaluation.metadata["max_abs_gap"].value == pytest.approx(gap)
    assert evaluation.passed == (gap <= 0.1)


def test_without_a_reference_folder_the_run_fails_naming_the_setting(tmp_path, monkeypatch):
    monkeypatch.delenv("JBAG_REFERENCE_DIR", raising=False)
    with pytest.raises(ValueError, match="JBAG_REFERENCE_DIR"):
        dg.materialize([reference_reproduction], resources=smoke_resources(tmp_path),
                       instance=dg.DagsterInstance.ephemeral())
    assert not lake.table_exists(tmp_path, "reference_reproduction")
