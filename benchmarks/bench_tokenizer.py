"""Tokenizer speed from JSON text: ours vs a naive json.loads + recursive walk + Counter, and orjson.loads alone.

States are the recorded states of a few seeded random games of every registered game (the reference
example trajectories if the engines cannot play yet). Mode "both" with the positive-integer rule, as the
pipeline tokenizes. The three subjects are timed interleaved over the same texts (CPU time of this
process); medians of `repeats`.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

import orjson

from jbag_pipeline.model.tokenize import parse_json, tokenize_state

GAMES_PER_ENGINE = 4
MAX_STATES = 120
MIN_SECONDS = 0.2  # each timing repeats the states until it lasts about this long
NAIVE = "naive json.loads+walk+Counter"
REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "jsonbag_reference"


def naive_tokens(node, prefix: str, tokens: list, weights: Counter) -> None:
    """The rules written straight down: one recursion per path prefix, as the reference tokenizer walks."""
    if isinstance(node, dict):
        children = [([f"{prefix}.{key}"], value) for key, value in node.items()]
    else:
        children = [([f"{prefix}[{i}]", prefix], value) for i, value in enumerate(node)]
    for paths, value in children:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                pass
        for path in paths:
            if isinstance(value, (dict, list)):
                naive_tokens(value, path, tokens, weights)
            else:
                tokens.append(f"{path}.{value}")
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    weights[path] += value


def naive_bag(text: str) -> dict[str, int]:
    tokens, weights = [], Counter()
    naive_tokens(json.loads(text), "", tokens, weights)
    counts = Counter(tokens)
    counts.update(weights)
    return dict(counts)


def our_bag(text: str) -> dict[str, int]:
    return tokenize_state(parse_json(text), mode="both", num_suffix=True)


def recorded_texts() -> dict[str, list[str]]:
    """Game name -> JSON texts of recorded states, from our engines or else from the reference trajectories."""
    try:
        from engines import GAMES, load_game
        from engines.agents import RandomAgent
        from engines.match import play_match
    except ImportError:
        return reference_texts()
    texts = {}
    for name in sorted(GAMES):
        game = load_game(name)
        docs = []
        for seed in range(GAMES_PER_ENGINE):
            record = play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=seed)
            docs += [state.doc for state in record.states]
        texts[name] = [json.dumps(doc) for doc in docs[:MAX_STATES]]
    return texts


def reference_texts() -> dict[str, list[str]]:
    texts: dict[str, list[str]] = {}
    for path in sorted(REFERENCE.glob("example_trajectories/*/*.json")):
        for state in json.loads(path.read_text()):
            state.pop("historyText", None)
            texts.setdefault(f"reference:{path.parent.name}", []).append(json.dumps(state))
    return {name: states[:MAX_STATES] for name, states in texts.items()}


def _seconds(function, texts: list[str], loops: int) -> float:
    """CPU seconds of this process (the machine may be shared) for `loops` passes over `texts`."""
    start = time.process_time()
    for _ in range(loops):
        for text in texts:
            function(text)
    return (time.process_time() - start) / loops


def run(repeats: int = 5) -> list[dict]:
    """states/s and tokens/s per game for ours and the naive reference (ratio = ours/naive), states/s of orjson."""
    subjects = {"ours": our_bag, NAIVE: naive_bag, "orjson.loads (parse floor)": orjson.loads}
    rows = []
    for game, texts in recorded_texts().items():
        if any(our_bag(text) != naive_bag(text) for text in texts):
            raise AssertionError(f"bench_tokenizer: ours and the naive walk disagree on {game}")
        n_tokens = sum(sum(our_bag(text).values()) for text in texts)
        loops = {name: max(1, round(MIN_SECONDS / max(_seconds(f, texts, 1), 1e-6))) for name, f in subjects.items()}
        seconds: dict[str, list[float]] = {name: [] for name in subjects}
        for repeat in range(repeats):
            order = list(subjects)[repeat % 3:] + list(subjects)[:repeat % 3]  # rotate who goes first
            for name in order:
                seconds[name].append(_seconds(subjects[name], texts, loops[name]))
        medians = {name: statistics.median(values) for name, values in seconds.items()}
        for metric, amount in (("states/s", len(texts)), ("tokens/s", n_tokens)):
            for name, median in medians.items():
                if metric == "tokens/s" and subjects[name] is orjson.loads:
                    continue  # parsing makes no tokens
                ratio = medians[NAIVE] / median if name == "ours" else None
                rows.append({"benchmark": f"tokenizer/{game}", "subject": name, "metric": metric,
                             "median": amount / median, "ratio": ratio})
    return rows


if __name__ == "__main__":
    for row in run():
        ratio = "" if row["ratio"] is None else f"  ratio {row['ratio']:.2f}"
        print(f"{row['benchmark']:32s} {row['subject']:32s} {row['median']:12.1f} {row['metric']}{ratio}")
