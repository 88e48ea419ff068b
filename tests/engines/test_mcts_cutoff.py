"""MCTS's progress cut-off: Can't Stop's progress(), its shares, and a search that scores banked progress rolls less."""

import pytest

from engines import load_game
from engines.agents import MCTSAgent
from engines.agents.leaf_evaluators import progress_rewards, rewards
from engines.cant_stop import SLOTS


def test_cant_stop_progress_counts_banked_steps_and_owned_tracks():
    state = load_game("cant_stop", n_players=2).new_state(seed=0)
    assert state.progress() == [0.0, 0.0]
    state.board[0 * SLOTS + 7] = 6  # seat 0 half way up track 7 (length 12)
    state.board[1 * SLOTS + 2] = 1  # seat 1 half way up track 2 (length 2)
    state.board[1 * SLOTS + 12] = 2  # and at the top of track 12 ...
    state.set_completed(tuple(t == 12 for t in range(SLOTS)))  # ... which it completed
    assert state.progress() == [0.5, 1.5]
    assert rewards(state) == [0.0, 1.0]  # scores: seat 1 owns a track
    assert progress_rewards(state) == [0.25, 0.75]
    state.board[0 * SLOTS + 8] = 10  # seat 0 at the top of open track 8 (length 10), not yet completed
    assert state.progress() == [1.5, 1.5]
    assert progress_rewards(state) == [0.5, 0.5] and rewards(state) == [0.0, 1.0]
    assert progress_rewards(load_game("cant_stop", n_players=3).new_state(seed=0)) == [1 / 3] * 3


def test_games_without_progress_score_as_before():
    state = load_game("tictactoe").new_state(seed=0)
    assert progress_rewards(state) == rewards(state)


def test_progress_cutoff_rolls_less_than_score_cutoff():
    """Scored on completed tracks only, a short rollout rarely sees a difference between rolling and stopping;
    scored on banked progress, stopping with progress in hand looks better than risking a bust."""
    game = load_game("cant_stop", n_players=2)

    def rolls(cutoff: str) -> int:
        count = 0
        for seed in range(6):
            state = game.new_state(seed=seed)
            agent = MCTSAgent(iterations=60, rollout_length=4, seed=seed, cutoff=cutoff)
            for _ in range(40):  # the opening of each game
                action = agent.choose(state)
                count += action == "roll"
                state.apply(action)
        return count

    assert rolls("progress") < rolls("score")


def test_unknown_cutoff_is_refused():
    with pytest.raises(ValueError, match="cutoff must be one of"):
        MCTSAgent(iterations=5, cutoff="heuristic")
