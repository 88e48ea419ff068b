"""The card engines' speed-ups keep every record byte-identical to the base commit 38b7c38.

The expected digests were recorded by running this module's `digests()` with the engines of 38b7c38
(`git archive 38b7c38 engines`, then `PYTHONPATH=<that folder> python tests/engines/test_records_identical.py`).
Each digest hashes, in order, every action and every recorded state's JSON text (key order included) of seeded
MCTS and random matches, the states left by seeded random rollouts, determinizations and MCTS choices.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engines import load_game
from engines.agents.leaf_evaluators import random_rollout
from engines.agents.mcts import MCTSAgent
from engines.agents.random_agent import RandomAgent
from engines.match import play_match

GAMES = ("cant_stop", "dominion", "sea_salt_paper", "seven_wonders")
EXPECTED = {  # recorded with the engines of 38b7c38
    "cant_stop": {
        "mcts_matches": "cb6dc14340558b180de7bcac246a4472948f7946d5501e0a9f6aee716b98b022",
        "random_matches": "7759be04f7977a79a496d12a09de0797e9576411852afa490e6ad8ec30f59dc5",
        "search": "9310df9df56e269f475e865fd761d96faa8c3f0f4997b80a188e256ffb8ce686",
    },
    "dominion": {
        "mcts_matches": "214e342aff80164f40a949ccf077e26c7ec1114fe54a4bb1984c1115af51784e",
        "random_matches": "aea6b954c087f9c3b52f714c76c9e065ee1c47d4a84f4c481a6ed349ccf0e61d",
        "search": "080515f425b1d7fe5e62004195f2a40fedf08902871fadd33d142cbaeb19e3f7",
    },
    "sea_salt_paper": {
        "mcts_matches": "1f5366de0e97339e6c29cef5a245eb9d9e9e40b0d66b80f8e82cea3859d8e6e5",
        "random_matches": "aa36475e2d1aeaaf4856a60b6ff7db0847e6db5ed8ca04f5bd395ae567cf537f",
        "search": "e18b627f1d3c117fbae31fbdff28f044fca52f3f591c302afeb12ae49e757205",
    },
    "seven_wonders": {
        "mcts_matches": "e6264ced62c038f057348993d4da8ec3b35fe401b47331fa5aa001f6306f330e",
        "random_matches": "fb0acf08c7769b43e0072f4385978525a08171544470e9841fc90e6e516d9afa",
        "search": "7bd06fe6099383fe2aa5b0252bca1a32fccf134c0df53b7363e960996e5e3979",
    },
}


def _text(value) -> bytes:
    return json.dumps(value, allow_nan=False).encode()


def match_digest(game, make_agent, seeds) -> str:
    """Hash of the actions, every recorded state document, returns, scores and winner of seeded matches."""
    h = hashlib.sha256()
    for seed in seeds:
        record = play_match(game, [make_agent() for _ in range(game.n_players)], seed=seed)
        h.update(_text(record.actions))
        for state in record.states:
            h.update(_text([state.state_idx, state.turn, state.player]) + _text(state.doc))
        h.update(_text([record.returns, record.scores, record.winner, record.n_actions]))
    return h.hexdigest()


def states_along(game, seed: int, count: int) -> list:
    """`count` states with a real choice, spread evenly over one seeded random game."""
    state, rng, found = game.new_state(seed=seed), random.Random(seed), []
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) > 1:
            found.append(state.clone())
        state.apply(legal[rng.randrange(len(legal))])
    step = max(1, len(found) // count)
    return found[::step][:count]


def search_digest(game) -> str:
    """Hash of random rollouts, determinizations (their legal actions too) and MCTS choices from mid-game states."""
    h = hashlib.sha256()
    for i, state in enumerate(states_along(game, seed=3, count=6)):
        rollout = state.clone()
        random_rollout(rollout, random.Random(i).random, 100)
        h.update(_text(rollout.to_json()))
        sample = state.determinize(state.current_player, random.Random(i))
        h.update(_text(sample.to_json()) + _text(sample.legal_actions()) + _text(state.to_json()))
        h.update(_text(MCTSAgent(iterations=40, rollout_length=100, seed=i).choose(state)))
    return h.hexdigest()


def digests(name: str) -> dict[str, str]:
    game = load_game(name)
    return {
        "mcts_matches": match_digest(game, lambda: MCTSAgent(iterations=6, rollout_length=20), seeds=(0, 1)),
        "random_matches": match_digest(game, lambda: RandomAgent(), seeds=(0, 1, 2)),
        "search": search_digest(game),
    }


@pytest.mark.parametrize("name", GAMES)
def test_records_match_the_base_commit(name):
    assert digests(name) == EXPECTED[name]


if __name__ == "__main__":
    print(json.dumps({name: digests(name) for name in GAMES}, indent=4))
