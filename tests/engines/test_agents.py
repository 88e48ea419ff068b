"""Random, MCTS and OSLA agents: tactics in Connect4, seeded determinism, and no peeking at hidden state."""

import math

import pytest

from engines import load_game
from engines.agents import MCTSAgent, OSLAAgent, RandomAgent, ScoreValue, ValueFunction
from engines.agents.leaf_evaluators import rewards
from engines.base import State
from engines.tictactoe import TicTacToeState

X_WINS_AT_3 = [0, 6, 1, 6, 2, 7]  # x to move: 0, 1, 2 on the bottom row, only column 3 wins
O_MUST_BLOCK_3 = [0, 6, 1, 6, 2]  # o to move: x wins at column 3 next unless o plays there


def connect4(actions):
    state = load_game("connect4").new_state()
    for action in actions:
        state.apply(action)
    return state


class HiddenCardGame(State):
    """Toy: seat 1 holds a hidden card 0..2; seat 0 guesses its parity, then seat 1 plays card or card+10.

    Seat 0 wins when its guess equals card % 2, so without peeking guess 0 is right 2/3 of the time.
    """

    n_players = 2

    def __init__(self, card):
        self.card, self.guess, self.reply = card, None, None
        self.determinized_by = []

    @property
    def current_player(self):
        return 0 if self.guess is None else 1

    @property
    def turn_counter(self):
        return (self.guess is not None) + (self.reply is not None)

    def legal_actions(self):
        if self.guess is None:
            return [0, 1]
        return [] if self.reply is not None else [self.card, self.card + 10]

    def apply(self, action):
        if action not in self.legal_actions():
            raise ValueError(f"toy: illegal action {action!r}")
        if self.guess is None:
            self.guess = action
        else:
            self.reply = action

    def clone(self):
        other = HiddenCardGame(self.card)
        other.guess, other.reply = self.guess, self.reply
        return other

    def is_terminal(self):
        return self.reply is not None

    def returns(self):
        if not self.is_terminal():
            return [0, 0]
        return [1, -1] if self.guess == self.card % 2 else [-1, 1]

    def scores(self):
        return [float(r) for r in self.returns()]

    def determinize(self, player, rng):
        self.determinized_by.append(player)
        sample = self.clone()
        if player != 1:
            sample.card = rng.randrange(3)
        return sample


class FrozenTicTacToe(TicTacToeState):
    """A Tic-Tac-Toe state that fails the test if an agent applies a move to it instead of to a copy."""

    def apply(self, action):
        raise AssertionError("agent mutated the state it was given")


def frozen_tictactoe(actions):
    state = load_game("tictactoe").new_state()
    for action in actions:
        state.apply(action)
    frozen = FrozenTicTacToe()
    frozen._seats, frozen._moves, frozen._winner, frozen._over = state._seats[:], state._moves, state._winner, state._over
    return frozen


def test_random_agent_is_legal_seeded_and_uniform():
    state = connect4([])
    picks = [RandomAgent(seed=s).choose(state) for s in range(400)]
    assert set(picks) == set(range(8))
    assert max(picks.count(a) for a in range(8)) < 80
    agent_a, agent_b = RandomAgent(seed=3), RandomAgent(seed=3)
    assert [agent_a.choose(state) for _ in range(20)] == [agent_b.choose(state) for _ in range(20)]
    agent_a.reset(3)
    assert agent_a.choose(state) == RandomAgent(seed=3).choose(state)
    assert state.to_json() == connect4([]).to_json()


def test_mcts_takes_an_immediate_win():
    for seed in range(3):
        assert MCTSAgent(iterations=300, seed=seed).choose(connect4(X_WINS_AT_3)) == 3


def test_mcts_blocks_an_immediate_loss():
    for seed in range(3):
        assert MCTSAgent(iterations=1500, seed=seed).choose(connect4(O_MUST_BLOCK_3)) == 3


def test_mcts_is_deterministic_from_its_seed_and_leaves_the_state_alone():
    state = connect4([3, 4])
    doc = state.to_json()
    first = [MCTSAgent(iterations=200, seed=7).choose(state) for _ in range(2)]
    agent = MCTSAgent(iterations=200, seed=7)
    assert [agent.choose(state)] == first[:1]
    assert first[0] == first[1]
    assert state.to_json() == doc
    picks = {MCTSAgent(iterations=30, seed=s).choose(state) for s in range(12)}
    assert len(picks) > 1  # the seed matters when the search is too short to decide
    assert MCTSAgent(iterations=50).choose(frozen_tictactoe([4])) in range(9)


def test_mcts_on_tictactoe_wins_and_blocks():
    assert MCTSAgent(iterations=400, seed=1).choose(frozen_tictactoe([0, 3, 1, 4])) == 2
    assert MCTSAgent(iterations=800, seed=1).choose(frozen_tictactoe([0, 4, 1])) == 2


def test_mcts_rejects_bad_settings():
    with pytest.raises(ValueError, match="iterations"):
        MCTSAgent(iterations=0)
    with pytest.raises(ValueError, match="exploration"):
        MCTSAgent(exploration=-1.0)
    with pytest.raises(ValueError, match="rollout_length"):
        MCTSAgent(rollout_length=-5)


class ScoredState:
    def __init__(self, scores, returns=None):
        self._scores, self._returns = scores, returns

    def is_terminal(self):
        return self._returns is not None

    def returns(self):
        return self._returns

    def scores(self):
        return self._scores


def test_mcts_rewards_come_from_the_result_or_the_score_lead():
    assert rewards(ScoredState([3, 9], returns=[-1, 1])) == [0.0, 1.0]
    assert rewards(ScoredState([4, 4, 1], returns=[0, 0, -1])) == [0.5, 0.5, 0.0]
    assert rewards(ScoredState([1, 4, 2, 0])) == [0.0, 1.0, 0.0, 0.0]
    assert rewards(ScoredState([3, 5, 5])) == [0.0, 0.5, 0.5]


def test_mcts_searches_fresh_determinizations_and_never_reads_hidden_cards():
    choices = {}
    for card in range(3):
        state = HiddenCardGame(card)
        choices[card] = MCTSAgent(iterations=300, seed=5).choose(state)
        assert state.determinized_by == [0] * 300
        assert state.guess is None
    assert choices == {0: 0, 1: 0, 2: 0}  # guess 0 is right for 2 of the 3 possible cards


def test_mcts_budget_and_cut_rollouts():
    state = connect4([])
    agent = MCTSAgent(iterations=64, rollout_length=0, seed=2)
    assert agent.choose(state) in range(8)  # every leaf scored as a tie: still a legal choice
    one_move_left = [0] * 8 + [1] * 8 + [4] + [2] * 8 + [3] * 8 + [4] * 7 + [5] * 7 + [6] * 8 + [7] * 8
    assert MCTSAgent(iterations=5, seed=0).choose(connect4(one_move_left)) == 5


def test_osla_takes_an_immediate_win():
    for seed in range(5):
        assert OSLAAgent(seed=seed).choose(connect4(X_WINS_AT_3)) == 3


def test_osla_breaks_ties_with_its_seeded_rng():
    state = connect4([])
    picks = [OSLAAgent(seed=s).choose(state) for s in range(40)]
    assert len(set(picks)) >= 5  # all eight children score 0
    assert picks == [OSLAAgent(seed=s).choose(state) for s in range(40)]
    assert state.to_json() == connect4([]).to_json()


class RecordingValue(ValueFunction):
    """Prefers children whose last piece went into column 5; records how it was called."""

    def __init__(self):
        self.decisions, self.valued, self.resets = [], [], 0

    def reset(self):
        self.resets += 1

    def begin_decision(self, state, seat):
        self.decisions.append((state, seat))

    def value(self, state, seat):
        doc = state.to_json()
        self.valued.append(doc["moveCount"])
        return float(doc["heights"][5]) if "heights" in doc else 0.0


def test_osla_uses_the_value_function_once_per_child():
    value = RecordingValue()
    agent = OSLAAgent(value=value, seed=1)
    assert value.resets == 1
    state = connect4([0, 1])
    assert agent.choose(state) == 5
    [(sample, seat)] = value.decisions  # the decision's determinized sample, not the real state itself
    assert sample is not state and sample.to_json() == state.to_json() and seat == 0
    assert value.valued == [3] * 8
    agent.reset(2)
    assert value.resets == 2


def test_osla_values_a_draw_by_the_value_function_and_rejects_nan():
    value = RecordingValue()
    state = frozen_tictactoe([0, 1, 2, 4, 3, 5, 7, 6])  # the last move fills the board with no line
    assert OSLAAgent(value=value).choose(state) == 8
    assert value.valued == [9]

    class NanValue(ScoreValue):
        def value(self, state, seat):
            return math.nan
    with pytest.raises(ValueError, match="NaN for action 0"):
        OSLAAgent(value=NanValue()).choose(connect4([]))


def test_osla_prefers_a_win_over_any_value():
    class Huge(ScoreValue):
        def value(self, state, seat):
            return 1e300
    assert OSLAAgent(value=Huge()).choose(connect4(X_WINS_AT_3)) == 3


def test_osla_determinizes_once_per_decision_and_never_reads_hidden_cards():
    class LovesGuess1(ScoreValue):
        def value(self, state, seat):
            return 1.0 if state.guess == 1 else 0.0
    guesser = HiddenCardGame(card=2)
    assert OSLAAgent(value=LovesGuess1(), seed=3).choose(guesser) == 1
    assert guesser.determinized_by == [0] and guesser.guess is None
    for seed in range(6):
        picks = {OSLAAgent(seed=seed).choose(HiddenCardGame(card)) for card in range(3)}
        assert len(picks) == 1  # only the seed, never the hidden card, decides the tie


def test_score_value_is_own_score_minus_best_opponent():
    value = ScoreValue()
    assert value.value(ScoredState([3.0, 7.0, 5.0]), 0) == -4.0
    assert value.value(ScoredState([3.0, 7.0, 5.0]), 1) == 2.0
    assert value.value(ScoredState([6.0]), 0) == 6.0


@pytest.mark.parametrize("agent", [RandomAgent(), MCTSAgent(iterations=10), OSLAAgent()])
def test_agents_refuse_a_finished_game(agent):
    with pytest.raises(ValueError, match="no legal actions"):
        agent.choose(connect4([0, 1, 0, 1, 0, 1, 0]))


def test_agents_have_names():
    assert [a.name for a in (RandomAgent(), MCTSAgent(), OSLAAgent())] == ["random", "mcts", "osla"]


@pytest.mark.parametrize("name", ["dominion", "sea_salt_paper", "cant_stop"])
def test_a_forced_move_unvalued_plays_the_same_games(name):
    """Baseline OSLAs skip building and valuing the one child of a forced move; the games stay the same."""
    from engines.agents import baseline_agent
    from engines.match import play_match

    game = load_game(name)
    for seed in range(2):
        fast = [baseline_agent(name) for _ in range(game.n_players)]
        slow = [baseline_agent(name) for _ in range(game.n_players)]
        for agent in slow:
            agent._forced_needs_no_child = False
        assert all(agent._forced_needs_no_child for agent in fast)
        played = play_match(game, fast, seed, record_states=False)
        assert played.actions == play_match(game, slow, seed, record_states=False).actions
