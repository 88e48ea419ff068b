"""Card-engine MCTS speed: ours against the engines of the base commit (4412511), in one run.

The base commit's engines/ is extracted with `git archive` into a temporary folder; every measurement runs
in its own subprocess whose PYTHONPATH puts either that folder or this checkout first, alternating old and new
(the old one first on even repeats), so both see the same load; each times its work in CPU seconds
(time.process_time), which other processes on a shared machine disturb far less than wall time. A "card_mcts"
measurement is one MCTSAgent decision at each of several states spread over a seeded random game (iterations/s);
a "card_selfplay" one plays whole self-play games as the pipeline does (one MCTSAgent a seat seeded seed*16+seat,
every recorded state serialised with orjson; games/s), and hashes its records (actions, every state's JSON, the
outcome): ours must equal the base's, byte for byte, or the run stops. Budgets: "demo" and "reproduce" (each preset's iterations
and rollout length per game; a setting whose budget equals an earlier one's for that game is measured once, its
benchmark naming both) and "paper" (1000 iterations, rollouts of 100; decisions only).
The ratio is the median over repeats of ours / base measured back to back.
`python bench_card_engines.py [REPEATS [GAME|SETTING|selfplay|decisions ...]]` measures only the named games,
settings and kinds.
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
DECISIONS = {"demo": 40, "reproduce": 40, "paper": 2}  # decisions timed per measurement
SELFPLAY_SETTINGS = ("demo", "reproduce")  # whole self-play games are measured at the presets' budgets only
SELFPLAY_GAMES = {"dominion": 3, "seven_wonders": 3, "sea_salt_paper": 4, "cant_stop": 12}  # games per measurement
KINDS = ("decisions", "selfplay")


def budgets() -> dict[str, dict[str, tuple[int, int]]]:
    """setting -> game -> (iterations, rollout_length); demo and reproduce read from jbag_pipeline's presets."""
    from jbag_pipeline.presets import PRESETS
    per_setting = {}
    for setting in ("demo", "reproduce"):
        runs = PRESETS[setting].games
        per_setting[setting] = {g: (runs[g].mcts_iterations, runs[g].rollout_length) for g in GAMES}
    per_setting["paper"] = {g: PAPER for g in GAMES}
    return per_setting


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


def measure_once(engines_root: Path, game: str, iterations: int, rollout: int, count: int,
                 kind: str = "decisions") -> dict:
    """{"per_s": iterations/s (kind "decisions", `count` decisions) or games/s (kind "selfplay", `count` games),
    "records": the self-play records' sha256 (selfplay only)} of one measurement in a fresh interpreter importing
    `engines` from `engines_root`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(engines_root), str(ROOT)])}
    command = [sys.executable, str(Path(__file__).resolve()), f"--{kind}", game, str(iterations), str(rollout),
               str(count)]
    done = subprocess.run(command, env=env, cwd=engines_root, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bench_card_engines: worker {game} under {engines_root} failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    expected = (engines_root / "engines").resolve()
    if Path(result["engines"]).resolve() != expected:
        raise RuntimeError(f"bench_card_engines: worker imported engines from {result['engines']}, not {expected}")
    return result


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
    return {"per_s": iterations * len(states) / seconds, "engines": str(Path(engines.__file__).parent)}


def selfplay_worker(game_name: str, iterations: int, rollout: int, games: int) -> dict:
    """In the subprocess: `games` self-play games (seeds 0, 1, ...) as jbag_pipeline.play.selfplay plays them;
    "records" hashes, after the timing, what the states table keeps of them."""
    import hashlib

    import orjson

    import engines
    from engines import load_game
    from engines.agents.mcts import MCTSAgent
    from engines.match import play_match

    game = load_game(game_name)
    start, records = time.process_time(), []
    for seed in range(games):
        agents = [MCTSAgent(iterations=iterations, rollout_length=rollout, seed=seed * 16 + seat)
                  for seat in range(game.n_players)]
        record = play_match(game, agents, seed=seed)
        records.append((record, [orjson.dumps(state.doc) for state in record.states]))  # the states' doc column
    seconds = time.process_time() - start
    digest = hashlib.sha256()
    for record, docs in records:
        digest.update(orjson.dumps([record.actions, record.returns, record.scores, record.winner, record.n_actions]))
        for state, doc in zip(record.states, docs):
            digest.update(orjson.dumps([state.state_idx, state.turn, state.player]) + doc)
    return {"per_s": games / seconds, "records": digest.hexdigest(), "engines": str(Path(engines.__file__).parent)}


def run(repeats: int = 5, games: tuple[str, ...] = GAMES, settings: tuple[str, ...] | None = None,
        kinds: tuple[str, ...] = KINDS) -> list[dict]:
    per_setting = budgets()
    unknown = (sorted(set(games) - set(GAMES)) + sorted(set(settings or ()) - set(per_setting))
               + sorted(set(kinds) - set(KINDS)))
    if unknown:
        raise ValueError(f"bench_card_engines: unknown game(s) or setting(s) {unknown}; choose from {list(GAMES)}, "
                         f"{list(per_setting)} and {list(KINDS)}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="jbag-card-engines-") as folder:
        base = extract_base(Path(folder))
        for kind in kinds:
            for game in games:
                for label, (iterations, rollout), setting in _budgets_to_measure(per_setting, game, settings, kind):
                    count = SELFPLAY_GAMES[game] if kind == "selfplay" else DECISIONS[setting]
                    ours, old, ratios = [], [], []
                    for r in range(repeats):
                        order = (base, ROOT) if r % 2 == 0 else (ROOT, base)
                        results = {root: measure_once(root, game, iterations, rollout, count, kind) for root in order}
                        check_records(results[ROOT], results[base], game, iterations, rollout)
                        speeds = {root: result["per_s"] for root, result in results.items()}
                        ours.append(speeds[ROOT])
                        old.append(speeds[base])
                        ratios.append(speeds[ROOT] / speeds[base])
                    name, metric = ("card_selfplay", "games/s") if kind == "selfplay" else ("card_mcts", "iterations/s")
                    benchmark = f"{name}/{game}/{label} ({iterations} iterations, rollout {rollout})"
                    rows.append({"benchmark": benchmark, "subject": "ours", "metric": metric,
                                 "median": statistics.median(ours), "ratio": statistics.median(ratios)})
                    rows.append({"benchmark": benchmark, "subject": f"engines of {BASE_COMMIT}", "metric": metric,
                                 "median": statistics.median(old), "ratio": None})
    return rows


def check_records(ours: dict, base: dict, game: str, iterations: int, rollout: int) -> None:
    """Stop the run when our self-play records differ from the base commit's from the same seeds."""
    if ours.get("records") != base.get("records"):
        raise RuntimeError(f"bench_card_engines: {game} self-play records ({iterations} iterations, rollout "
                           f"{rollout}) differ from those of {BASE_COMMIT}: {ours.get('records')} != "
                           f"{base.get('records')}")


def _budgets_to_measure(per_setting: dict, game: str, settings: tuple[str, ...] | None, kind: str) -> list:
    """(label, budget, first setting) per distinct budget of `game` among the chosen settings; settings with the
    same budget share one measurement whose label joins their names ("demo, reproduce")."""
    chosen = [s for s in per_setting if (not settings or s in settings)
              and (kind != "selfplay" or s in SELFPLAY_SETTINGS)]
    distinct: dict[tuple[int, int], list[str]] = {}
    for setting in chosen:
        distinct.setdefault(per_setting[setting][game], []).append(setting)
    return [(", ".join(names), budget, names[0]) for budget, names in distinct.items()]


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] in ("--decisions", "--selfplay"):
        measure = worker if sys.argv[1] == "--decisions" else selfplay_worker
        print(json.dumps(measure(sys.argv[2], *map(int, sys.argv[3:]))))
    else:
        try:
            if len(sys.argv) > 1 and not sys.argv[1].isdigit():
                raise ValueError(f"bench_card_engines: REPEATS must be a positive int, got {sys.argv[1]!r}")
            repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
            names = sys.argv[2:]
            setting_names = set(budgets())
            games = tuple(n for n in names if n not in setting_names and n not in KINDS)
            results = run(repeats, games or GAMES, tuple(n for n in names if n in setting_names) or None,
                          tuple(n for n in names if n in KINDS) or KINDS)
        except ValueError as exc:
            print(f"bench_card_engines: {exc}" if "bench_card_engines" not in str(exc) else exc, file=sys.stderr)
            sys.exit(2)
        for result in results:
            ratio = "" if result["ratio"] is None else f"  ratio {result['ratio']:.2f}"
            print(f"{result['benchmark']:66s} {result['subject']:20s} {result['median']:10.1f} "
                  f"{result['metric']}{ratio}")
