"""Card-engine MCTS speed: iterations/s of ours against the engines of the base commit (4412511), in one run.

The base commit's engines/ is extracted with `git archive` into a temporary folder; every measurement runs
in its own subprocess whose PYTHONPATH puts either that folder or this checkout first, alternating old and new
(the old one first on even repeats), so both see the same load; each times its decisions in CPU seconds
(time.process_time), which other processes on a shared machine disturb far less than wall time. A measurement
is one MCTSAgent decision at each of several states spread over a seeded random game, with the presets'
budgets: "demo" (the demo preset's iterations and rollout length per game), "reproduce" (40 iterations,
rollouts of 10 actions, [Reproduce]'s self-play) and "paper" (1000 iterations, rollouts of 100 actions).
The ratio is the median over repeats of ours / base measured back to back.
`python bench_card_engines.py [REPEATS [GAME|SETTING ...]]` measures only the named games and settings.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE_COMMIT = "4412511"  # the engines before the issue-25 speed-ups (38b7c38 was the one before those of 4412511)
GAMES = ("dominion", "seven_wonders", "sea_salt_paper", "cant_stop")
PAPER = (1000, 100)  # the paper preset's MCTS iterations and rollout length
REPRODUCE = (40, 10)  # [Reproduce]'s self-play budget (issue 24: 30-40 iterations, rollouts of 10)
DECISIONS = {"demo": 40, "reproduce": 40, "paper": 2}  # decisions timed per measurement


def budgets() -> dict[str, dict[str, tuple[int, int]]]:
    """setting -> game -> (iterations, rollout_length), the demo one read from jbag_pipeline's presets."""
    from jbag_pipeline.presets import PRESETS
    demo = PRESETS["demo"].games
    return {"demo": {g: (demo[g].mcts_iterations, demo[g].rollout_length) for g in GAMES},
            "reproduce": {g: REPRODUCE for g in GAMES}, "paper": {g: PAPER for g in GAMES}}


def extract_base(folder: Path, commit: str = BASE_COMMIT) -> Path:
    """engines/ of `commit` under `folder` (via git archive); a clear error when git or the commit is missing."""
    archive = folder / "engines.tar"
    try:
        with open(archive, "wb") as out:
            subprocess.run(["git", "archive", commit, "engines"], cwd=ROOT, stdout=out, stderr=subprocess.PIPE,
                           check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        raise RuntimeError(f"bench_card_engines: cannot extract engines/ of {commit} with git archive: "
                           f"{detail.decode(errors='replace').strip() or exc}") from exc
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "base", filter="data")
    return folder / "base"


def measure_once(engines_root: Path, game: str, iterations: int, rollout: int, decisions: int) -> float:
    """Iterations/s of one measurement in a fresh interpreter importing `engines` from `engines_root`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(engines_root), str(ROOT)])}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", game, str(iterations), str(rollout),
               str(decisions)]
    done = subprocess.run(command, env=env, cwd=engines_root, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bench_card_engines: worker {game} under {engines_root} failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    expected = (engines_root / "engines").resolve()
    if Path(result["engines"]).resolve() != expected:
        raise RuntimeError(f"bench_card_engines: worker imported engines from {result['engines']}, not {expected}")
    return result["iterations_per_s"]


def worker(game_name: str, iterations: int, rollout: int, decisions: int) -> dict:
    """In the subprocess: MCTS decisions at `decisions` states spread over a seeded random game."""
    import random

    import engines
    from engines import load_game
    from engines.agents.mcts import MCTSAgent

    game = load_game(game_name)
    state, rng, choices = game.new_state(seed=0), random.Random(0), []
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) > 1:
            choices.append(state.clone())
        state.apply(legal[rng.randrange(len(legal))])
    states = choices[:: max(1, len(choices) // decisions)][:decisions]
    agent = MCTSAgent(iterations=iterations, rollout_length=rollout, seed=1)
    start = time.process_time()  # CPU time: the machine is shared, and other processes' load is not ours
    for position in states:
        agent.choose(position)
    seconds = time.process_time() - start
    return {"iterations_per_s": iterations * len(states) / seconds, "engines": str(Path(engines.__file__).parent)}


def run(repeats: int = 5, games: tuple[str, ...] = GAMES, settings: tuple[str, ...] | None = None) -> list[dict]:
    per_setting = budgets()
    unknown = sorted(set(games) - set(GAMES)) + sorted(set(settings or ()) - set(per_setting))
    if unknown:
        raise ValueError(f"bench_card_engines: unknown game(s) or setting(s) {unknown}; choose from {list(GAMES)} "
                         f"and {list(per_setting)}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="jbag-card-engines-") as folder:
        base = extract_base(Path(folder))
        for setting, per_game in per_setting.items():
            if settings and setting not in settings:
                continue
            for game, (iterations, rollout) in ((g, per_game[g]) for g in games):
                ours, old, ratios = [], [], []
                for r in range(repeats):
                    order = (base, ROOT) if r % 2 == 0 else (ROOT, base)
                    speeds = {root: measure_once(root, game, iterations, rollout, DECISIONS[setting])
                              for root in order}
                    ours.append(speeds[ROOT])
                    old.append(speeds[base])
                    ratios.append(speeds[ROOT] / speeds[base])
                benchmark = f"card_mcts/{game}/{setting} ({iterations} iterations, rollout {rollout})"
                rows.append({"benchmark": benchmark, "subject": "ours", "metric": "iterations/s",
                             "median": statistics.median(ours), "ratio": statistics.median(ratios)})
                rows.append({"benchmark": benchmark, "subject": f"engines of {BASE_COMMIT}", "metric": "iterations/s",
                             "median": statistics.median(old), "ratio": None})
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], *map(int, sys.argv[3:]))))
    else:
        try:
            if len(sys.argv) > 1 and not sys.argv[1].isdigit():
                raise ValueError(f"bench_card_engines: REPEATS must be a positive int, got {sys.argv[1]!r}")
            repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
            names = sys.argv[2:]
            games = tuple(n for n in names if n in GAMES or n not in budgets())
            results = run(repeats, games or GAMES, tuple(n for n in names if n in budgets()) or None)
        except ValueError as exc:
            print(f"bench_card_engines: {exc}" if "bench_card_engines" not in str(exc) else exc, file=sys.stderr)
            sys.exit(2)
        for result in results:
            ratio = "" if result["ratio"] is None else f"  ratio {result['ratio']:.2f}"
            print(f"{result['benchmark']:58s} {result['subject']:22s} {result['median']:10.0f} it/s{ratio}")
