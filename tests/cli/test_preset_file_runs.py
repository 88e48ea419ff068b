"""Preset files in runs: `jbag run --preset FILE.toml` refuses a bad file in one line before anything is created,
and a good file reaches every process that builds tables (the CLI's runs, the Dagster run config, the local
workers' side-by-side runs) with the same tables as the equivalent built-in preset."""

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import polars as pl

import jbag_pipeline.cli.commands as cli
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.assets.selfplay import selfplay
from jbag_pipeline.cli.runner import materialize_all
from jbag_pipeline.definitions import ALL_ASSETS
from jbag_pipeline.resources import JbagCompute, JbagSettings, LakeResource
from jbag_pipeline.resources.io_manager import lake_resources

REPO = Path(__file__).resolve().parents[2]
GAME = "tictactoe"
SMALL = 'base = "smoke"\n[games.tictactoe]\nselfplay_games = 3\n[games.connect4]\nselfplay_games = 2\n'

# each argv runs in one subprocess: (file text, the error line's end); JBAG_PRESET names the file for `ingest`
BAD_FILES = [
    ("top_kk = 3\n", "top_kk: unknown key (did you mean 'top_k'?)"),
    ('[games.connect4]\nselfplay_games = "400"\n', "games.connect4.selfplay_games: expected an integer, got a string"),
    ("[games.chess]\nselfplay_games = 3\n", "games.chess: unknown game"),
    ('base = "huge"\n', "base: expected a built-in preset"),
    ('base = "smoke\n', "not valid TOML"),
    (None, "cannot read it (No such file or directory)"),
]
SCRIPT = """
import contextlib, io, json, sys
import jbag_pipeline.cli.commands as cli
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    out.append([rc, err.getvalue()])
print(json.dumps({"results": out, "dagster_imported": "dagster" in sys.modules}))
"""


def write(folder: Path, text: str, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def test_a_bad_preset_file_is_one_line_exit_2_and_creates_nothing(tmp_path):
    presets, work = tmp_path / "presets", tmp_path / "work"
    work.mkdir()
    files = [write(presets, text, f"bad{i}.toml") if text is not None else presets / "missing.toml"
             for i, (text, _) in enumerate(BAD_FILES)]
    argvs = [["run", "--preset", str(f), "--data-dir", str(work / "data")] for f in files]
    argvs.append(["ingest", "game.json", "--data-dir", str(work / "data")])
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(argvs)], cwd=work, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "JBAG_PRESET": str(files[0]),
                               "DAGSTER_HOME": str(work / "home")}, timeout=120)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    expected = [*((f, why) for f, (_, why) in zip(files, BAD_FILES)), (files[0], BAD_FILES[0][1])]
    for argv, (path, why), (rc, err) in zip(argvs, expected, answer["results"]):
        assert rc == 2, (argv, err)
        assert err.count("\n") == 1 and err.startswith(f"jbag {argv[0]}: error: preset file {path}: {why}"), err
    assert list(work.iterdir()) == []  # no data directory, no DAGSTER_HOME
    assert not answer["dagster_imported"]


def _selfplay(root: Path, preset: str, run_config: dict | None = None, **settings) -> dg.ExecuteInProcessResult:
    return dg.materialize([selfplay], partition_key=GAME, instance=dg.DagsterInstance.ephemeral(),
                          resources=lake_resources(JbagSettings(preset=preset, **settings),
                                                   LakeResource(data_dir=str(root))),
                          run_config=run_config, raise_on_error=False)


def test_a_file_with_only_its_base_builds_the_base_presets_tables(tmp_path):
    path = write(tmp_path / "presets", 'base = "smoke"\n', "smoke_copy.toml")
    for preset, root in ((str(path), tmp_path / "file"), ("smoke", tmp_path / "built_in")):
        assert _selfplay(root, preset, seed=3).success
    for table in ("selfplay_games", "selfplay_states"):
        from_file = lake.read_table(tmp_path / "file", table, {"game": GAME})
        assert from_file.equals(lake.read_table(tmp_path / "built_in", table, {"game": GAME})), table
    # the files differ only in their lineage, which names the preset
    assert lake.read_lineage(lake.partition_path(tmp_path / "file", "selfplay_games", {"game": GAME})) == \
        {GAME: [{"preset": "smoke_copy", "seed": 3}]}


def test_the_dagster_run_config_takes_a_preset_file(tmp_path):
    good = write(tmp_path / "presets", SMALL, "small.toml")
    bad = write(tmp_path / "presets", "[games.tictactoe]\nselfplay_games = 0.5\n", "bad.toml")
    def config(preset: Path, root: Path) -> dict:  # run config replaces the resources' whole config
        return {"resources": {"settings": {"config": {"preset": str(preset)}},
                              "lake": {"config": {"data_dir": str(root)}}}}

    result = _selfplay(tmp_path / "default", "smoke", config(good, tmp_path / "data"))
    assert result.success
    assert len(lake.read_table(tmp_path / "data", "selfplay_games", {"game": GAME})) == 3
    (games,) = [m for m in result.asset_materializations_for_node("selfplay") if m.asset_key.path == ["selfplay_games"]]
    assert games.metadata["preset"].value == "small"
    failed = _selfplay(tmp_path / "default", "smoke", config(bad, tmp_path / "other"))
    assert not failed.success
    # the settings resource checks its preset as it starts: the run fails before any op, naming file and key
    (failure,) = [e for e in failed.all_events if e.event_type_value == "RESOURCE_INIT_FAILURE"]
    assert failure.event_specific_data.error.message == ("jbag_pipeline.preset_files.PresetFileError: preset file "
                                                         f"{bad}: games.tictactoe.selfplay_games: expected an integer, "
                                                         "got a number (0.5)\n")
    assert not any(e.is_step_start for e in failed.all_events)
    assert not (tmp_path / "other").exists()


def test_jbag_run_and_its_local_workers_read_the_file(tmp_path, monkeypatch, capsys):
    """The CLI passes the file (relative here) as its absolute path; the side-by-side runs in the local pool's
    workers re-read it there."""
    write(tmp_path, SMALL, "small.toml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    assert cli.main(["run", "--preset", "small.toml", "--select", "selfplay_games", "--games", GAME,
                     "--compute", "inline", "--data-dir", "cli"]) == 0
    assert f"jbag run: preset small (file {tmp_path / 'small.toml'}), seed 0" in capsys.readouterr().out
    assert len(lake.read_table(tmp_path / "cli", "selfplay_games", {"game": GAME})) == 3

    home = tmp_path / "local_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    settings = JbagSettings(preset=str(tmp_path / "small.toml"))
    location = LakeResource(data_dir=str(tmp_path / "local"))
    results = materialize_all(ALL_ASSETS, settings, location, select=["selfplay_games"], games=["connect4", GAME],
                              instance=dg.DagsterInstance.local_temp(str(home)),
                              compute=JbagCompute(backend="local", workers=2), progress=lambda _: None)
    assert [r.games for r in results[:2]] == [2, 3]  # connect4, tictactoe: each worker's own count from the file
    counts = {game: len(lake.read_table(location.root(), "selfplay_games", {"game": game}))
              for game in ("connect4", GAME)}
    assert counts == {"connect4": 2, GAME: 3}
    assert pl.read_parquet(lake.partition_path(location.root(), "selfplay_games", {"game": GAME})).equals(
        lake.read_table(tmp_path / "cli", "selfplay_games", {"game": GAME}))
