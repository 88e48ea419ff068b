"""The match runner records a state per completed turn plus the terminal state, and replays exactly."""

import json

import pytest

from engines import load_game
from engines.agents import MCTSAgent, OSLAAgent, RandomAgent
from engines.base import Game, State
from engines.match import MatchRecord, agent_seed, play_match, replay


class TwoStepState(State):
    """Toy: every turn is two actions (0, "a") or (1, "b"); the game stops after `length` actions."""

    n_players = 2

    def __init__(self, length):
        self.length, self.actions = length, []

    @property
    def current_player(self):
        return len(self.actions) // 2 % 2

    @property
    def turn_counter(self):
        return len(self.actions) // 2

    def legal_actions(self):
        return [] if self.is_terminal() else [(0, "a"), (1, "b")]

    def apply(self, action):
        if action not in self.legal_actions():
            raise ValueError(f"toy: illegal action {action!r}")
        self.actions.append(action)

    def clone(self):
        other = TwoStepState(self.length)
        other.actions = self.actions[:]
        return other

    def is_terminal(self):
        return len(self.actions) >= self.length

    def scores(self):
        ones = sum(a[0] for a in self.actions)
        return [float(ones), float(len(self.actions) - ones)]

    def returns(self):
        if not self.is_terminal():
            return [0, 0]
        s = self.scores()
        return [0, 0] if s[0] == s[1] else [1, -1] if s[0] > s[1] else [-1, 1]

    def to_json(self):
        return {"actions": [list(a) for a in self.actions], "turn": self.turn_counter}


class TwoStepGame(Game):
    name = "two_step"
    n_players = 2

    def __init__(self, length):
        self.params = {"length": length}

    def new_state(self, seed=0):
        return TwoStepState(self.params["length"])


def random_pair():
    return [RandomAgent(), RandomAgent()]


def test_connect4_match_records_every_move_and_ends_with_the_terminal_state():
    game = load_game("connect4")
    record = play_match(game, random_pair(), seed=12)
    assert isinstance(record, MatchRecord) and record.seed == 12
    assert record.n_actions == len(record.actions) == len(record.states)
    assert [s.state_idx for s in record.states] == list(range(record.n_actions))
    assert [s.turn for s in record.states] == list(range(1, record.n_actions + 1))
    assert [s.player for s in record.states] == [i % 2 for i in range(record.n_actions)]
    last = record.states[-1].doc
    assert last["gameStatus"] == "GAME_END" and last["moveCount"] == record.n_actions
    final = game.from_json(last)
    assert record.returns == final.returns() and record.scores == final.scores()
    assert record.winner == final.winner()
    assert json.loads(json.dumps(record.actions)) == record.actions


def test_matches_are_deterministic_from_the_match_seed():
    game = load_game("tictactoe")
    used = random_pair()
    play_match(game, used, seed=99)
    assert play_match(game, used, seed=3) == play_match(game, random_pair(), seed=3)  # agents are re-seeded
    actions = {tuple(play_match(game, random_pair(), seed=s).actions) for s in range(10)}
    assert len(actions) > 5


def test_agent_seeds_depend_on_match_seed_and_seat():
    assert agent_seed(5, 0) == agent_seed(5, 0)
    seeds = {agent_seed(m, seat) for m in range(50) for seat in range(4)}
    assert len(seeds) == 200


@pytest.mark.parametrize("name", ["connect4", "tictactoe"])
def test_replay_reproduces_the_record_exactly(name):
    game = load_game(name)
    agents = [MCTSAgent(iterations=30), OSLAAgent()]
    record = play_match(game, agents, seed=4)
    actions = json.loads(json.dumps(record.actions))
    assert replay(game, 4, actions) == record
    partial = replay(game, 4, actions[:3])
    assert partial.states == record.states[:3] and partial.winner is None and partial.returns == [0, 0]


def test_states_are_recorded_at_turn_ends_and_the_terminal_state_once():
    record = play_match(TwoStepGame(length=5), random_pair(), seed=1)
    assert [(s.state_idx, s.turn, s.player) for s in record.states] == [(0, 1, 0), (1, 2, 1), (2, 2, 0)]
    assert [len(s.doc["actions"]) for s in record.states] == [2, 4, 5]
    assert all(isinstance(a, list) for a in record.actions)
    assert replay(TwoStepGame(length=5), 1, record.actions) == record

    exact = play_match(TwoStepGame(length=4), random_pair(), seed=1)
    assert [(s.turn, s.player) for s in exact.states] == [(1, 0), (2, 1)]


@pytest.mark.parametrize("name", ["connect4", "dominion"])
def test_a_match_without_states_is_the_same_match(name):
    game = load_game(name)
    full = play_match(game, [OSLAAgent() for _ in range(game.n_players)], seed=6)
    bare = play_match(game, [OSLAAgent() for _ in range(game.n_players)], seed=6, record_states=False)
    assert full.states and bare.states == []
    assert (bare.actions, bare.returns, bare.scores, bare.winner, bare.n_actions) == \
        (full.actions, full.returns, full.scores, full.winner, full.n_actions)


def test_runaway_games_and_bad_seating_raise_clear_errors():
    with pytest.raises(RuntimeError, match="two_step with seed 7 did not end within 10 actions"):
        play_match(TwoStepGame(length=50), random_pair(), seed=7, max_actions=10)
    with pytest.raises(ValueError, match="needs 2 agents, got 1"):
        play_match(load_game("connect4"), [RandomAgent()], seed=0)
    agent = RandomAgent()
    with pytest.raises(ValueError, match="separate agent object"):
        play_match(load_game("connect4"), [agent, agent], seed=0)

    class NoReset:
        def choose(self, state):
            return state.legal_actions()[0]
    with pytest.raises(ValueError, match=r"seat 1 \(NoReset\) is not an Agent: it has no name, reset, begin_game$"):
        play_match(load_game("connect4"), [RandomAgent(), NoReset()], seed=0)


def test_replay_rejects_an_illegal_action():
    with pytest.raises(ValueError, match="illegal action 4"):
        replay(load_game("tictactoe"), 0, [4, 4])
