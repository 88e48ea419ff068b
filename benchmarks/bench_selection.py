"""Feature selection on 1,000 synthetic trajectories over a 20,000-token vocabulary: time and peak RSS.

Ours ranks tokens from a sparse CSR matrix of the long bag table; the reference is the naive approach, the
same seeded forest on a dense vocabulary-wide matrix. Times are interleaved medians. Memory is measured in
a fresh interpreter per subject that loads the saved bags and runs the subject once: peak RSS is its VmHWM
(ru_maxrss would carry the forking parent's size), growth is that peak minus the RSS after loading.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
from sklearn.ensemble import RandomForestClassifier

from jbag_pipeline.model.selection import bag_matrix, rank_tokens, select_features

N_TRAJECTORIES, VOCABULARY, DRAWS_PER_TRAJECTORY, TREES = 1000, 20_000, 2000, 100


def synthetic_bags(seed: int = 0, segment: int = 1) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Zipf-distributed token draws per trajectory (about 1,000 distinct tokens each); token 7 marks seat 1 wins.

    `seed` varies the draws (one dataset per segment), never the winners."""
    winners = np.random.default_rng(0).integers(0, 2, N_TRAJECTORIES)  # the same games whatever the seed
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, VOCABULARY + 1)
    weights /= weights.sum()
    ids, tokens, counts = [], [], []
    for game_id in range(N_TRAJECTORIES):
        drawn, drawn_counts = np.unique(rng.choice(VOCABULARY, DRAWS_PER_TRAJECTORY, p=weights), return_counts=True)
        keep = drawn != 7
        drawn, drawn_counts = drawn[keep], drawn_counts[keep]
        if winners[game_id] == 1:
            drawn, drawn_counts = np.append(drawn, 7), np.append(drawn_counts, 20)
        ids.append(np.full(len(drawn), game_id))
        tokens.append(drawn)
        counts.append(drawn_counts / drawn_counts.sum())
    bags = pl.DataFrame({"game_id": np.concatenate(ids), "token_id": np.concatenate(tokens),
                         "p": np.concatenate(counts)}).select(
        pl.lit("synthetic").alias("game"), pl.lit("full").alias("frequency"),
        pl.lit(segment, dtype=pl.Int32).alias("segment"), "game_id",
        pl.format(".synthetic.token.{}", "token_id").alias("token"), "p")
    games = pl.DataFrame({"game": "synthetic", "game_id": np.arange(N_TRAJECTORIES), "winner": winners})
    return bags, games


def ours(bags: pl.DataFrame, games: pl.DataFrame) -> None:
    rank_tokens(bags, games, n_estimators=TREES, seed=0)


def dense_reference(bags: pl.DataFrame, games: pl.DataFrame) -> None:
    matrix, game_ids, _ = bag_matrix(bags)
    winners = dict(zip(games["game_id"].to_list(), games["winner"].to_list()))
    labels = np.array([winners[g] for g in game_ids.tolist()])
    forest = RandomForestClassifier(n_estimators=TREES, random_state=0, n_jobs=1, oob_score=True)
    forest.fit(matrix.toarray(), labels)
    np.argsort(-forest.feature_importances_)


SUBJECTS = {"ours": ours, "dense-matrix": dense_reference}


def _status_mb(field: str) -> float:
    """A memory field of /proc/self/status (VmRSS now, VmHWM peak) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"/proc/self/status has no {field} line")


def _memory_mb(subject: str, folder: Path) -> dict[str, float]:
    """Peak RSS and growth over the loaded inputs of a fresh interpreter running `subject` once."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_selection", "--memory", subject, str(folder)],
                         cwd=root, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run(repeats: int = 5) -> list[dict]:
    bags, games = synthetic_bags()
    times: dict[str, list[float]] = {name: [] for name in SUBJECTS}
    for _ in range(repeats):
        for name, subject in SUBJECTS.items():
            start = time.perf_counter()
            subject(bags, games)
            times[name].append(time.perf_counter() - start)
    segmented = pl.concat([synthetic_bags(seed=s, segment=s)[0] for s in (1, 2, 3, 4)])  # timed once
    start = time.perf_counter()
    select_features(segmented, games, k=100, n_estimators=TREES, seed=0)
    all_variants = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        bags.write_parquet(Path(folder) / "bags.parquet")
        games.write_parquet(Path(folder) / "games.parquet")
        memory = {name: _memory_mb(name, Path(folder)) for name in SUBJECTS}
    name = f"selection {N_TRAJECTORIES} trajectories x {VOCABULARY} tokens, {TREES} trees"
    ours_s, ref_s = statistics.median(times["ours"]), statistics.median(times["dense-matrix"])
    return [
        {"benchmark": f"{name}: one variant", "subject": "ours", "metric": "s", "median": ours_s,
         "ratio": ours_s / ref_s},
        {"benchmark": f"{name}: one variant", "subject": "dense-matrix", "metric": "s", "median": ref_s,
         "ratio": None},
        *[{"benchmark": f"{name}: one variant", "subject": subject, "metric": f"{metric} MB",
           "median": memory[subject][metric],
           "ratio": memory["ours"][metric] / memory["dense-matrix"][metric] if subject == "ours" else None}
          for metric in ("peak RSS", "RSS growth") for subject in SUBJECTS],
        {"benchmark": f"{name}: full, full_seg (N_S=4), none, adaptive", "subject": "ours", "metric": "s",
         "median": all_variants, "ratio": None},
    ]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--memory":
        bags = pl.read_parquet(Path(sys.argv[3]) / "bags.parquet")
        games = pl.read_parquet(Path(sys.argv[3]) / "games.parquet")
        loaded = _status_mb("VmRSS")
        SUBJECTS[sys.argv[2]](bags, games)
        peak = _status_mb("VmHWM")
        print(json.dumps({"peak RSS": peak, "RSS growth": peak - loaded}))
    else:
        for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
            print(row)
