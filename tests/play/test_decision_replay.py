"""The JSON-Bag OSLA decides as it did at the base commit 4412511: every game's first decisions (chosen move and the
value of every child) against baseline OSLAs, with 60 features and unrestricted, replayed to 1e-12.

The expected decisions were recorded by running this module with the code of 4412511
(`git archive 4412511 engines jbag_pipeline tests` into a folder, then
`PYTHONPATH=<that folder> python tests/play/test_decision_replay.py`, which writes DECISIONS_FILE).
"""

from __future__ import annotations

import json
import math
from itertools import count
from pathlib import Path

import pytest

from engines import GAMES, load_game
from engines.agents import baseline_agent
from engines.match import agent_seed
from jbag_pipeline.play.jsonbag_agent import jsonbag_agent_class
from jbag_pipeline.model.value_tables import make_jsonbag_value
from tests.helpers.value_tables import lake_tables

DECISIONS_FILE = Path(__file__).with_name("decision_replay_4412511.json")
VARIANTS = ("full", "none")  # the lake_tables features (60 random tokens), and every token
DECISIONS = 12  # the JSON-Bag agent's first decisions of each game
MATCH_SEED = 7


def record_decisions(name: str, variant: str) -> list[dict]:
    """The JSON-Bag agent's first DECISIONS decisions in seeded games against baseline OSLAs, in the first seat whose
    prototype is not empty: per decision the chosen action and every child's value (infinities as strings)."""
    game = load_game(name)
    prototypes, features = lake_tables(game, n_games=4)
    seat = int(prototypes["seat"].min())
    jsonbag = jsonbag_agent_class(name)(make_jsonbag_value(prototypes, features, "full", variant, game.n_players))
    agents = [jsonbag if p == seat else baseline_agent(name) for p in range(game.n_players)]
    decisions, valued = [], []
    child_values = jsonbag.child_values

    def recording(legal, children, seat):
        values = child_values(legal, children, seat)
        valued.append(values)
        return values

    jsonbag.child_values = recording
    for match_seed in count(MATCH_SEED):  # as play_match plays each game, until DECISIONS decisions are seen
        for p, agent in enumerate(agents):
            agent.reset(agent_seed(match_seed, p))
        state = game.new_state(seed=match_seed)
        for p, agent in enumerate(agents):
            if callable(getattr(agent, "begin_game", None)):
                agent.begin_game(state, p)
        while not state.is_terminal():
            if len(decisions) == DECISIONS:
                return decisions
            mover = state.current_player
            action = agents[mover].choose(state)
            if mover == seat:
                decisions.append({"action": json.loads(json.dumps(action)),
                                  "values": [_jsonable(v) for v in valued[-1]]})
            state.apply(action)


def _jsonable(value: float) -> float | str:
    return value if math.isfinite(value) else repr(value)


def _number(value: float | str) -> float:
    return float(value)


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads(DECISIONS_FILE.read_text())


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_json_bag_osla_replays_the_base_commits_decisions(name, variant, expected):
    recorded = expected[name][variant]
    assert len(recorded) == DECISIONS
    replayed = record_decisions(name, variant)
    assert [d["action"] for d in replayed] == [d["action"] for d in recorded]
    for now, then in zip(replayed, recorded):
        assert len(now["values"]) == len(then["values"])
        for a, b in zip(now["values"], then["values"]):
            a, b = _number(a), _number(b)
            assert a == b or abs(a - b) <= 1e-12, (name, variant, now["action"], a, b)


if __name__ == "__main__":
    DECISIONS_FILE.write_text(json.dumps({name: {variant: record_decisions(name, variant) for variant in VARIANTS}
                                          for name in sorted(GAMES)}, indent=None) + "\n")
