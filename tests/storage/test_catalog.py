"""The catalog: views over a published set of lake files, partitions of another run withheld, a portable data
directory, and group-readable files."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.catalog import catalog as catalog_asset
from jbag_pipeline.storage.catalog import PUBLISHED_FILE, published_dir, publish
from jbag_pipeline.storage.query import open_catalog
from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import lake_resources
from tests.helpers.storage import build_catalog, run_query

REPO = Path(__file__).resolve().parents[2]


def games(game: str, ids: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"game": [game] * len(ids), "game_id": ids})


def query(root: Path, sql: str) -> list[tuple]:
    con = open_catalog(root)
    try:
        return run_query(con, sql)[1]
    finally:
        con.close()


def test_views_keep_the_published_files_until_the_next_catalog(tmp_path):
    lake.write_table(games("a", [1, 2]), tmp_path, "selfplay_games", {"game": "a"})
    build_catalog(tmp_path)
    lake.write_table(games("a", [7, 8, 9]), tmp_path, "selfplay_games", {"game": "a"})  # a later run's partition
    lake.write_table(games("b", [5]), tmp_path, "selfplay_games", {"game": "b"})
    assert query(tmp_path, "SELECT game, game_id FROM games ORDER BY ALL") == [("a", 1), ("a", 2)]
    build_catalog(tmp_path)
    assert query(tmp_path, "SELECT game, game_id FROM games ORDER BY ALL") == [("a", 7), ("a", 8), ("a", 9), ("b", 5)]


def test_old_publications_are_removed_and_live_globs_never_see_published_files(tmp_path):
    lake.write_table(games("a", [1]), tmp_path, "selfplay_games", {"game": "a"})
    folders = [publish(tmp_path).folder for _ in range(4)]
    assert sorted(p.name for p in published_dir(tmp_path).iterdir()) == [f.name for f in folders[-2:]]
    assert (folders[-1] / "selfplay_games" / "game=a" / PUBLISHED_FILE).stat().st_ino == \
        lake.partition_path(tmp_path, "selfplay_games", {"game": "a"}).stat().st_ino  # a hard link, no copy
    assert [p.relative_to(tmp_path) for p in lake.lake_dir(tmp_path).rglob("*.parquet")] == \
        [Path("lake/selfplay_games/game=a/part.parquet")]
    assert lake.read_table(tmp_path, "selfplay_games").height == 1


FAKE_GAMES = dg.StaticPartitionsDefinition(["a", "b"])


@dg.asset(name="selfplay_games", partitions_def=FAKE_GAMES)
def fake_selfplay(context: dg.AssetExecutionContext, settings: JbagSettings) -> pl.DataFrame:
    seed = settings.get_preset().seed
    return games(context.partition_key, [seed * 10, seed * 10 + 1])


@dg.asset(name="state_tokens", partitions_def=FAKE_GAMES)
def fake_tokens(context: dg.AssetExecutionContext, selfplay_games: pl.DataFrame) -> pl.DataFrame:
    return pl.DataFrame({"game": context.partition_key, "game_id": selfplay_games["game_id"], "token": "t"})


@dg.asset(name="evaluation_summary")
def fake_summary(state_tokens: pl.DataFrame) -> pl.DataFrame:
    return state_tokens.group_by("game").len().sort("game")


def materialize(assets, root: Path, seed: int, game: str | None = None) -> dg.ExecuteInProcessResult:
    """Run `assets` (the lake IO manager writes them, with lineage) among the fakes and the catalog."""
    return dg.materialize([fake_selfplay, fake_tokens, fake_summary, catalog_asset],
                          selection=[key for a in assets for key in a.keys], partition_key=game,
                          instance=dg.DagsterInstance.ephemeral(),
                          resources=lake_resources(JbagSettings(preset="smoke", seed=seed),
                                                   LakeResource(data_dir=str(root))))


def test_partitions_built_from_another_runs_self_play_are_withheld_and_the_check_fails(tmp_path):
    for game in ("a", "b"):
        materialize([fake_selfplay, fake_tokens], tmp_path, seed=0, game=game)
    materialize([fake_summary], tmp_path, seed=0)
    seed0 = {"preset": "smoke", "seed": 0}
    assert lake.read_lineage(lake.partition_path(tmp_path, "state_tokens", {"game": "a"})) == {"a": [seed0]}
    assert lake.read_lineage(lake.partition_path(tmp_path, "evaluation_summary")) == {"a": [seed0], "b": [seed0]}
    materialize([fake_selfplay], tmp_path, seed=1, game="a")  # killed here: a's tokens and the summary are seed 0's

    result = materialize([catalog_asset], tmp_path, seed=1)
    (check,) = result.get_asset_check_evaluations()
    withheld = check.metadata["withheld"].value
    assert not check.passed and "state_tokens/game=a" in withheld and "evaluation_summary/all" in withheld
    assert ("built from a's self-play of preset smoke seed 0, but selfplay_games of a is now of preset smoke seed 1; "
            "re-materialise state_tokens") in withheld
    assert publish(tmp_path).withheld.keys() == {"state_tokens/game=a", "evaluation_summary/all"}
    # one generation per game in every view: a shows seed 1's games and no tokens, b seed 0 throughout
    assert query(tmp_path, "SELECT game, game_id FROM games ORDER BY ALL") == [("a", 10), ("a", 11), ("b", 0), ("b", 1)]
    assert query(tmp_path, "SELECT DISTINCT game, game_id FROM tokens ORDER BY ALL") == [("b", 0), ("b", 1)]
    assert query(tmp_path, "SELECT count(*) FROM duckdb_views() WHERE view_name = 'evaluation_summary'") == [(0,)]

    materialize([fake_tokens], tmp_path, seed=1, game="a")  # the re-materialisations the messages ask for
    materialize([fake_summary], tmp_path, seed=1)
    assert publish(tmp_path).withheld == {}
    assert query(tmp_path, "SELECT DISTINCT game, game_id FROM tokens ORDER BY ALL") == \
        [("a", 10), ("a", 11), ("b", 0), ("b", 1)]
    assert query(tmp_path, "SELECT game, len FROM evaluation_summary ORDER BY game") == [("a", 2), ("b", 2)]
    (check,) = materialize([catalog_asset], tmp_path, seed=1).get_asset_check_evaluations()
    assert check.passed


def test_files_written_outside_a_dagster_step_carry_no_lineage_and_are_published(tmp_path):
    lake.write_table(games("a", [1]), tmp_path, "selfplay_games", {"game": "a"})
    lake.write_table(games("a", [1]), tmp_path, "state_tokens", {"game": "a"})
    assert lake.read_lineage(lake.partition_path(tmp_path, "state_tokens", {"game": "a"})) == {}
    assert publish(tmp_path).withheld == {}
    assert query(tmp_path, "SELECT count(*) FROM tokens") == [(1,)]


def jbag_sql(root: Path, sql: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "JBAG_DATA_DIR"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "jbag_pipeline.cli", "sql", sql, "--format", "csv",
                           "--data-dir", str(root)], cwd=root.parent, env=env, capture_output=True, text=True,
                          timeout=120)  # cwd: nothing may resolve against the repository or the old location


@pytest.mark.parametrize("relocate", ["copy", "move"])
def test_a_copied_or_moved_data_directory_keeps_answering_jbag_sql(tmp_path, relocate):
    original = tmp_path / "first" / "data"
    lake.write_table(games("a", [1, 2]), original, "selfplay_games", {"game": "a"})
    lake.write_table(games("b", [3]), original, "selfplay_games", {"game": "b"})
    build_catalog(original)
    moved = tmp_path / "second" / "data"
    moved.parent.mkdir()
    if relocate == "copy":
        shutil.copytree(original, moved)
    else:
        shutil.move(original, moved)
    shutil.rmtree(tmp_path / "first")

    sql = jbag_sql(moved, "SELECT game, count(*) AS n FROM games GROUP BY game ORDER BY game")
    assert (sql.returncode, sql.stdout, sql.stderr) == (0, "game,n\na,2\nb,1\n", "")


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_lake_and_catalog_files_follow_the_umask(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        path = lake.write_table(games("a", [1]), tmp_path, "selfplay_games", {"game": "a"})
        folder = publish(tmp_path).folder
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == mode
    assert (folder / "selfplay_games" / "game=a" / PUBLISHED_FILE).stat().st_mode & 0o777 == mode
    assert (tmp_path / "jbag.duckdb").stat().st_mode & 0o777 == mode


def test_a_truncated_lake_file_stops_the_catalog_with_its_name_and_keeps_the_old_views(tmp_path):
    path = lake.write_table(games("a", [1]), tmp_path, "selfplay_games", {"game": "a"})
    build_catalog(tmp_path)
    before = (tmp_path / "jbag.duckdb").read_bytes()
    truncated = path.with_name("truncated")
    truncated.write_bytes(path.read_bytes()[:20])
    os.replace(truncated, path)  # a new file, as every lake write is: the published link keeps the old one
    with pytest.raises(ValueError, match=r"selfplay_games/game=a/part.parquet is not a readable Parquet file"):
        build_catalog(tmp_path)
    assert (tmp_path / "jbag.duckdb").read_bytes() == before
    assert query(tmp_path, "SELECT game_id FROM games") == [(1,)]
    assert list(published_dir(tmp_path).iterdir()) == [publish_folder_of(tmp_path)]  # no half-built publication


def publish_folder_of(root: Path) -> Path:
    """The publication the catalog's views read."""
    con = open_catalog(root)
    try:
        (sql,) = run_query(con, "SELECT sql FROM duckdb_views() WHERE view_name = 'games'")[1][0]
    finally:
        con.close()
    return next(p for p in published_dir(root).iterdir() if p.name in sql)
