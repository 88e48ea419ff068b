"""catalog materialises DuckDB views over one game's real self-play and token tables; its check passes."""

import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.catalog import catalog
from jbag_pipeline.assets.model import state_tokens
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.storage.catalog import catalog_path
from jbag_pipeline.storage.query import open_catalog
from tests.helpers.materialize import GAME, check_results, declared_checks, materialize
from tests.helpers.storage import run_query


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("catalog")
    materialize([selfplay, state_tokens], root, partition_key=GAME)
    return root, materialize([catalog], root)


def query(root, sql: str) -> list[tuple]:
    con = open_catalog(root)
    try:
        return run_query(con, sql)[1]
    finally:
        con.close()


def test_catalog_views_answer_for_the_lake(run):
    root, result = run
    assert catalog_path(root).is_file()
    games = lake.read_table(root, "selfplay_games")
    tokens = lake.read_table(root, "state_tokens")
    assert query(root, "SELECT game, count(*) FROM games GROUP BY game") == [(GAME, len(games))]
    assert query(root, "SELECT sum(count) FROM tokens") == [(int(tokens["count"].sum()),)]
    metadata = result.asset_materializations_for_node("catalog")[0].metadata
    assert metadata["view_count"].value >= 3  # games, states and tokens at least


def test_catalog_check(run):
    _, result = run
    checks = check_results(result)
    assert set(checks) == declared_checks([catalog])
    assert all(checks.values()), checks
