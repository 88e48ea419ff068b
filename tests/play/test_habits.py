"""Can't Stop habit counters: per seat turns, rolls and busts from a game's actions."""

import pytest

from engines import load_game
from jbag_pipeline.play.habits import CantStopTurn, Habits, cant_stop_habits, cant_stop_turns, seat_habits


def test_counts_from_a_written_out_game():
    actions = ["roll", [7, 9], "roll", "bust",  # seat 0: two rolls, a bust
               "roll", [6, 8], "stop",  # seat 1: one roll, stops
               "stop",  # seat 0 stops before rolling
               "roll", "bust"]  # seat 1 busts
    assert cant_stop_habits(actions, 2) == [Habits(turns=2, rolls=2, busts=1), Habits(turns=2, rolls=2, busts=1)]
    assert Habits(4, 6, 1).per_turn() == (1.5, 0.25)
    assert Habits().per_turn() == (None, None)


def test_counts_a_hand_played_game():
    """Seat 0 rolls up to three times a turn, seat 1 once; counted as played, then from the recorded actions."""
    game = load_game("cant_stop", n_players=2)
    state = game.new_state(seed=5)
    expected = [Habits(), Habits()]
    actions, rolls_this_turn = [], 0
    while not state.is_terminal() and len(actions) < 2000:
        seat = state.current_player
        legal = state.legal_actions()
        if legal == ["roll", "stop"]:
            action = "roll" if rolls_this_turn < (3 if seat == 0 else 1) else "stop"
            rolls_this_turn += action == "roll"
        else:
            action = legal[0]
        state.apply(action)
        actions.append(list(action) if isinstance(action, tuple) else action)
        if action in ("stop", "bust"):
            expected[seat] = expected[seat] + Habits(1, rolls_this_turn, int(action == "bust"))
            rolls_this_turn = 0
    assert state.is_terminal()
    counted = cant_stop_habits(actions, 2)
    assert counted == expected
    assert counted[0].busts > 0  # the game has busts to count
    assert counted[1].rolls == counted[1].turns  # seat 1 rolls exactly once a turn


def test_games_without_habits_and_bad_actions():
    assert seat_habits("dominion", ["anything"], 4) is None
    assert seat_habits("cant_stop", ["roll", "stop"], 2) == [Habits(1, 1, 0), Habits()]
    with pytest.raises(ValueError, match="unknown action 'jump'"):
        cant_stop_habits(["jump"], 2)


def test_turns_from_seat_action_pairs():
    moves = [(0, "roll"), (0, [7, 9]), (0, "roll"), (0, "bust"), (1, "stop"), (0, "roll"), (0, [6])]
    assert cant_stop_turns(moves) == [CantStopTurn(0, 2, "bust"), CantStopTurn(1, 0, "stop"), CantStopTurn(0, 1, None)]
    with pytest.raises(ValueError, match="seat 1 moved in seat 0's turn"):
        cant_stop_turns([(0, "roll"), (1, "stop")])
