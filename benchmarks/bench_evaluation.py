"""The evaluation group's CPU: this checkout against other commits on the same games, tables compared.

Each base commit is extracted with `git archive` into a temporary folder; every measurement runs in its own
subprocess whose PYTHONPATH puts that folder or this checkout first, alternating old and new, and times its work in
CPU seconds (time.process_time). Two kinds, both on one lake of upstream tables (self-play to selected features,
built by this checkout's `jbag run --select` unless --data-dir holds them):
- "games": play_control and play_evaluation of every pair the preset evaluates, at the preset's games per seat
  (or --games-per-seat): the games of evaluation_control and evaluation_games, callable at any commit since 4412511.
- "ops": evaluation_control, evaluation_games, learning_curve and value_function_ablation materialised one after
  another by Dagster in the subprocess (inline games) on a fresh copy of the lake; a commit without these assets is
  skipped.
Each subject's tables are digested (every column but wall seconds), and a base whose tables differ from ours is
reported. The ratio is the base's CPU s over ours (a speed-up), the median over repeats of back-to-back pairs.
`python -m benchmarks.bench_evaluation [--games G,..] [--base C ..] [--kind games|ops] [--repeats N]
[--games-per-seat N] [--data-dir DIR]`.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE_COMMITS = ("4412511",)  # issue 25's reference
GAMES = ("connect4", "dominion")
KINDS = ("games", "ops")
OPS = ("evaluation_control", "evaluation_games", "learning_curve", "value_function_ablation")
UPSTREAM = ("selfplay_games", "selfplay_states", "sampled_states", "state_tokens", "trajectory_bags",
            "winner_prototypes", "segmented_bags", "selected_features", "feature_summary",
            "counters_kept_prototypes", "counters_kept_features")


def extract(commit: str, folder: Path) -> Path:
    """The tree of `commit` under `folder` (git archive); a clear error when git or the commit is missing."""
    archive, tree = folder / f"{commit}.tar", folder / commit
    try:
        with open(archive, "wb") as out:
            subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=out, stderr=subprocess.PIPE, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace").strip()
        raise RuntimeError(f"bench_evaluation: cannot extract {commit} with git archive: {detail or exc}") from exc
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def prepare_lake(data: Path, games: tuple[str, ...], preset: str) -> None:
    """The upstream tables of `games` in `data`, by this checkout's `jbag run` (skipped for games that have them)."""
    missing = [g for g in games if not (data / "lake" / "selected_features" / f"game={g}").exists()]
    if not missing:
        return
    env = {**os.environ, "DAGSTER_HOME": str(data / "dagster_home"), "PYTHONPATH": str(ROOT)}
    (data / "dagster_home").mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "jbag_pipeline.cli", "run", "--preset", preset, "--data-dir", str(data),
               "--games", ",".join(missing), "--compute", "inline", "--select", ",".join(UPSTREAM)]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bench_evaluation: preparing the lake failed:\n{done.stderr[-2000:]}")


def games_settings(game: str, preset_name: str, per_seat: int | None) -> dict:
    """What the "games" kind plays, from this checkout's preset, so that every subject plays the same games."""
    from jbag_pipeline.play.evaluation import split_pair
    from jbag_pipeline.assets.evaluation import evaluated_pairs
    from jbag_pipeline.model.variants import SENSITIVITY_VARIANT
    from jbag_pipeline.presets import game_run, get_preset

    preset = get_preset(preset_name)
    return {"seed": preset.seed, "per_seat": per_seat or game_run(preset, game).eval_games_per_seat,
            "blacklist": list(preset.blacklist_for(game)),
            "pairs": [p for p in evaluated_pairs(preset) if split_pair(p)[1] != SENSITIVITY_VARIANT]}


def measure_once(tree: Path, kind: str, game: str, data: Path, settings: dict, scratch: Path) -> dict:
    """One subprocess importing jbag_pipeline from `tree`: {"cpu": {name: s}, "digests": {name: digest}}, or {}
    when `tree` has not the ops."""
    if kind == "ops":  # every subject writes its own tables on a fresh copy of the lake
        copy = scratch / "data"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(data / "lake", copy / "lake")
        data = copy
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, game, str(data), json.dumps(settings)]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bench_evaluation: {kind} worker for {game} under {tree} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result and Path(result.pop("package")).resolve() != (tree / "jbag_pipeline").resolve():
        raise RuntimeError(f"bench_evaluation: the worker did not import jbag_pipeline from {tree}")
    return result


def _digest(frame) -> str:
    kept = [c for c in frame.columns if c != "seconds"]  # wall time differs between runs
    return hashlib.sha256(frame.select(kept).write_csv().encode()).hexdigest()[:16]


def games_worker(game: str, data: Path, settings: dict) -> dict:
    """In the subprocess: play_control, then play_evaluation of each pair, each timed in CPU s."""
    import polars as pl

    import jbag_pipeline
    from engines import load_game
    from jbag_pipeline.model.tokenize import TokenFilter
    from jbag_pipeline.model.value_tables import make_jsonbag_value

    # the evaluation arena is jbag_pipeline/play since 449ce24, jbag_pipeline/agents before (4412511); asked by path, as
    # an editable install would import a missing subpackage from its own checkout
    package = "play" if (Path(jbag_pipeline.__file__).parent / "play").is_dir() else "agents"
    arena = importlib.import_module(f"jbag_pipeline.{package}.evaluation")
    play_control, play_evaluation, split_pair = arena.play_control, arena.play_evaluation, arena.split_pair

    prototypes, features = (pl.read_parquet(data / "lake" / table / f"game={game}" / "part.parquet")
                            for table in ("winner_prototypes", "selected_features"))
    n_players, seed, per_seat = load_game(game).n_players, settings["seed"], settings["per_seat"]
    token_filter = TokenFilter(settings["blacklist"])
    cpu, digests = {}, {}
    start = time.process_time()
    games = play_control(game, {}, per_seat, seed)
    cpu["control"], digests["control"] = time.process_time() - start, _digest(games)
    for pair in settings["pairs"]:
        frequency, variant = split_pair(pair)

        def value(frequency=frequency, variant=variant):
            return make_jsonbag_value(prototypes, features, frequency, variant, n_players, token_filter=token_filter)

        start = time.process_time()
        games = play_evaluation(game, {}, frequency, variant, value, per_seat, seed)
        cpu[pair], digests[pair] = time.process_time() - start, _digest(games)
    return {"cpu": cpu, "digests": digests, "package": str(Path(jbag_pipeline.__file__).parent)}


def ops_worker(game: str, data: Path, settings: dict) -> dict:
    """In the subprocess: the evaluation ops of `game` materialised one after another, each timed in CPU s."""
    import dagster as dg
    import polars as pl

    import jbag_pipeline
    from jbag_pipeline.definitions import ALL_ASSETS
    from jbag_pipeline.resources import JbagCompute, JbagSettings

    names = {key.to_user_string() for assets_def in ALL_ASSETS for key in assets_def.keys}
    if not set(OPS) <= names:
        return {}
    try:
        from jbag_pipeline.resources import LakeResource
        from jbag_pipeline.resources.io_manager import lake_resources

        resources = lake_resources(JbagSettings(preset=settings["preset"]), LakeResource(data_dir=str(data)),
                                   JbagCompute(backend="inline"))
    except ImportError:  # a tree from before the lake resource (324b662 and older): the data directory in settings
        from jbag_pipeline.storage.io_manager import lake_resources

        resources = lake_resources(JbagSettings(preset=settings["preset"], data_dir=str(data)),
                                   JbagCompute(backend="inline"))
    instance = dg.DagsterInstance.ephemeral()
    cpu, digests = {}, {}
    for op in OPS:
        start = time.process_time()
        dg.materialize(ALL_ASSETS, selection=[op], partition_key=game, resources=resources, instance=instance,
                       raise_on_error=True)
        cpu[op] = time.process_time() - start
        digests[op] = _digest(pl.read_parquet(data / "lake" / op / f"game={game}" / "part.parquet"))
    return {"cpu": cpu, "digests": digests, "package": str(Path(jbag_pipeline.__file__).parent)}


def run(repeats: int = 3, games: tuple[str, ...] = ("dominion",), bases: tuple[str, ...] = BASE_COMMITS,
        kinds: tuple[str, ...] = ("games",), per_seat: int | None = 5, data_dir: Path | None = None,
        preset: str = "demo") -> list[dict]:
    """Rows per (kind, game, base); the suite's default (`jbag bench`) is Dominion's games, 5 a seat, which first
    builds Dominion's demo tables (a few CPU minutes); the command line measures more."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"bench_evaluation: unknown kind(s) {unknown}; choose from {list(KINDS)}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="jbag-bench-evaluation-") as folder:
        scratch = Path(folder)
        data = data_dir or scratch / "upstream"
        prepare_lake(data, games, preset)
        trees = {commit: extract(commit, scratch) for commit in bases}
        for kind in kinds:
            for game in games:
                settings = games_settings(game, preset, per_seat) if kind == "games" else {"preset": preset}
                for commit, tree in trees.items():
                    rows += _side_by_side(kind, game, commit, tree, data, settings, repeats, scratch)
    return rows


def _side_by_side(kind, game, commit, tree, data, settings, repeats, scratch) -> list[dict]:
    """Rows of one (kind, game) against one base: per measured name, our median CPU s and the median speed-up."""
    ours, base = [], []
    for r in range(repeats):
        order = (tree, ROOT) if r % 2 == 0 else (ROOT, tree)
        results = {t: measure_once(t, kind, game, data, settings, scratch) for t in order}
        if not results[tree]:
            return [{"benchmark": f"evaluation_{kind}/{game}", "subject": commit, "metric": "skipped: no such ops",
                     "median": 0.0, "ratio": None}]
        ours.append(results[ROOT])
        base.append(results[tree])
    rows = []
    names = list(ours[0]["cpu"]) + ["total"]
    for name in names:
        mine = [sum(o["cpu"].values()) if name == "total" else o["cpu"][name] for o in ours]
        theirs = [sum(b["cpu"].values()) if name == "total" else b["cpu"][name] for b in base]
        same = name == "total" or base[0]["digests"][name] == ours[0]["digests"][name]
        benchmark = f"evaluation_{kind}/{game}/{name}" + ("" if same else " (tables differ)")
        rows.append({"benchmark": benchmark, "subject": "ours", "metric": "CPU s", "median": statistics.median(mine),
                     "ratio": statistics.median(t / m for t, m in zip(theirs, mine))})
        rows.append({"benchmark": benchmark, "subject": commit, "metric": "CPU s",
                     "median": statistics.median(theirs), "ratio": None})
    return rows


def _main(argv: list[str]) -> None:
    if argv[:1] == ["--worker"]:
        kind, game, data, settings = argv[1:5]
        worker = games_worker if kind == "games" else ops_worker
        result = worker(game, Path(data), json.loads(settings))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(prog="bench_evaluation")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default connect4,dominion)")
    parser.add_argument("--base", action="append", help=f"a commit to compare with (default {BASE_COMMITS[0]})")
    parser.add_argument("--kind", action="append", choices=KINDS, help="games and/or ops (default both)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games-per-seat", type=int, default=None, help="games kind: instead of the preset's")
    parser.add_argument("--data-dir", type=Path, default=None, help="a data directory holding the upstream tables")
    parser.add_argument("--preset", default="demo")
    args = parser.parse_args(argv)
    rows = run(args.repeats, tuple(args.games.split(",")), tuple(args.base or BASE_COMMITS),
               tuple(args.kind or KINDS), args.games_per_seat, args.data_dir, args.preset)
    for row in rows:
        ratio = f"  speed-up {row['ratio']:.2f}x" if row["ratio"] is not None else ""
        print(f"{row['benchmark']:60s} {row['subject']:10s} {row['median']:9.2f} {row['metric']}{ratio}")


if __name__ == "__main__":
    _main(sys.argv[1:])
