"""Every value class is an engines.agents.ValueFunction, and OSLA takes nothing else; a GameStartValue gets each
game's initial state (the seat's sample of it) from play_match through OSLA."""

import pytest

from engines.agents import (GameStartValue, MemorylessValue, OSLAAgent, ScoreValue, SimultaneousOSLAAgent,
                            ValueFunction)
from engines import GAMES
from engines.agents.baseline import baseline_value
from engines.agents.heuristics import HEURISTICS
from engines.match import play_match
from engines.sea_salt_paper.game import SeaSaltPaper
from engines.tictactoe import TicTacToe
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.model.value import DeterminizedJsonBagValue, JsonBagValue

PROTOTYPES = [{".a": 1}, {".b": 1}]


def every_value():
    yield ScoreValue()
    yield from (make() for make in HEURISTICS.values())
    yield from (baseline_value(game) for game in GAMES)
    yield JsonBagValue(PROTOTYPES)
    yield DeterminizedJsonBagValue(PROTOTYPES, [".a"], frequency="random")


@pytest.mark.parametrize("value", list(every_value()), ids=lambda v: type(v).__name__)
def test_every_value_class_implements_the_protocol_explicitly(value):
    assert isinstance(value, ValueFunction)
    assert ValueFunction in type(value).__mro__  # declared, not just the right method names
    value.reset()


def test_osla_resets_its_value_at_every_game_and_rejects_what_is_not_a_value_function():
    class Counting(MemorylessValue):
        resets = 0

        def reset(self):
            self.resets += 1

        def value(self, state, seat):
            return 0.0

    value = Counting()
    agent = OSLAAgent(value=value, seed=0)
    agent.choose(TicTacToe().new_state())
    agent.reset(1)
    assert value.resets == 2

    class NoReset:
        def begin_decision(self, state, seat):
            pass

        def value(self, state, seat):
            return 0.0

    for make in (OSLAAgent, SimultaneousOSLAAgent):
        with pytest.raises(ValueError, match="must be a ValueFunction"):
            make(value=NoReset())


class StartRecording(MemorylessValue):
    """A GameStartValue that records the initial samples and the decisions' samples it was shown."""

    def __init__(self):
        self.starts, self.samples = [], []

    def begin_game(self, state, seat):
        self.starts.append((state, seat))

    def begin_decision(self, state, seat):
        self.samples.append(state.to_json())

    def value(self, state, seat):
        return 0.0


class DecisionRecording(StartRecording):
    begin_game = None  # the same value without the hook: not a GameStartValue


def test_play_match_hands_a_game_start_value_its_seats_sample_of_the_initial_state():
    game, seed, seat = SeaSaltPaper(), 17, 2
    initial = game.new_state(seed)
    with_hook, without = StartRecording(), DecisionRecording()
    assert isinstance(with_hook, GameStartValue) and not isinstance(without, GameStartValue)
    records = []
    for value in (with_hook, without):
        agents = [OSLAAgent(value=value if p == seat else ScoreValue()) for p in range(game.n_players)]
        records.append(play_match(game, agents, seed=seed))
    [(sample, seen_by)] = with_hook.starts  # once per game, after reset, with the agent's seat
    assert seen_by == seat and sample is not initial
    assert sample.observation_json(seat) == initial.observation_json(seat)  # the seat's view of the deal, as it is
    assert sample.to_json() != initial.to_json()  # what it cannot see is re-sampled
    assert records[0].actions == records[1].actions  # the decisions' draws do not move with the hook
    assert with_hook.samples == without.samples


def test_an_agent_without_begin_game_is_refused_by_name():
    class Plain:
        name = "plain"

        def __init__(self):
            self.agent = OSLAAgent(seed=0)

        def reset(self, seed):
            self.agent.reset(seed)

        def choose(self, state):
            return self.agent.choose(state)

    with pytest.raises(ValueError, match=r"seat 0 \(Plain\) is not an Agent: it has no begin_game$"):
        play_match(TicTacToe(), [Plain(), Plain()], seed=3)


def test_values_defaults_to_value_per_state_and_the_json_bag_batch_equals_it():
    game = SeaSaltPaper()
    state = game.new_state(5)
    children = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        children.append(child)
    for value in (ScoreValue(), baseline_value("sea_salt_paper")):
        assert value.values(children, 1) == [value.value(child, 1) for child in children]
    prototypes = [tokenize_state(children[seat % len(children)].to_json()) for seat in range(game.n_players)]
    for features in (None, sorted(set(prototypes[0]) ^ set(prototypes[1]))):
        value = DeterminizedJsonBagValue(prototypes, features)
        value.begin_decision(state, 1)
        batch = value.values(children, 1)
        one_by_one = ValueFunction.values(value, children, 1)  # the protocol's default: value() per state
        assert len(batch) == len(children) and len(set(batch.tolist())) > 1
        assert batch.tolist() == pytest.approx(one_by_one, rel=0, abs=1e-12)
