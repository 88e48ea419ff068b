"""ingested_games materialises the trajectory files of <data dir>/inbox into the ingest tables; a broken file is
quarantined. The asset declares no asset checks."""

import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.ingest import INGEST_KEYS, ingested_games
from tests.helpers.materialize import check_results, materialize
from tests.helpers.nim_files import nim_inbox

N_GAMES = 12


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("ingest")
    inbox = nim_inbox(root, N_GAMES)
    return root, inbox, materialize([ingested_games], root)


def test_ingested_tables(run):
    root, _, result = run
    games = lake.read_table(root, "ingested_games")
    assert games.sort("game_id").select("game", "game_id", "winner", "n_states").rows() == [
        ("nim", i, i % 2, 3 + i % 4) for i in range(1, N_GAMES + 1)]
    states = lake.read_table(root, "ingested_states")
    assert len(states) == int(games["n_states"].sum())
    tokens = lake.read_table(root, "ingested_tokens")
    assert tokens.select("game_id", "state_idx").unique().height == len(states) and tokens["count"].min() >= 1
    assert len(lake.read_table(root, "ingested_sources")) == N_GAMES
    metadata = result.asset_materializations_for_node("ingested_games")
    assert {m.asset_key.to_user_string() for m in metadata} == set(INGEST_KEYS)


def test_broken_file_is_quarantined(run):
    root, inbox, _ = run
    quarantine = lake.read_table(root, "ingest_quarantine")
    assert quarantine["file"].to_list() == [str(inbox / "nim-99.json")]


def test_ingest_declares_no_checks(run):
    assert check_results(run[2]) == {}
