"""The baseline OSLA of every game as TAG configures it: the per-game heuristics on hand-built states, the
simultaneous OSLA of 7 Wonders (rounds resolved before valuing, hidden state never read) and the factory."""

from __future__ import annotations

import random

import pytest

from engines import GAMES, load_game
from engines.agents import OSLAAgent, ScoreValue, SimultaneousOSLAAgent, baseline_agent, baseline_value
from engines.agents.heuristics import (PureScoreValue, ScoreAndHandValue, WinLossScaledScoreValue,
                                       Wonders7Value)
from engines.agents.simultaneous_osla import finish_round_randomly
from engines.sea_salt_paper.cards import kinds
from engines.sea_salt_paper.state_json import OVER
from engines.seven_wonders.cards import INDEX, RESOURCES, WONDERS
from tests.helpers.states import random_play_states


def play(state, actions):
    for action in actions:
        state.apply(action)
    return state


def random_finish(state, seed: int):
    rng = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


# ----- TAG's ScoreHeuristic and PureScoreHeuristic ------------------------------------------------------------------

def test_win_loss_scaled_score_in_connect4_and_tictactoe():
    value = WinLossScaledScoreValue()
    running = play(load_game("connect4").new_state(), [0, 6, 1, 6, 2, 7])
    assert value.value(running, 0) == value.value(running, 1) == 0.0
    won = play(running.clone(), [3])  # seat 0 completes the bottom row
    assert value.value(won, 0) == 1.5 and value.value(won, 1) == -0.5  # the score -1, halved
    x_wins = play(load_game("tictactoe").new_state(), [0, 3, 1, 4, 2])
    assert value.value(x_wins, 0) == 1.5 and value.value(x_wins, 1) == -0.5


def test_win_loss_scaled_score_in_dots_and_boxes_scales_boxes_only_at_the_end():
    game, value = load_game("dots_and_boxes", rows=2, cols=2), WinLossScaledScoreValue()
    state, rng = game.new_state(), random.Random(4)
    while not state.is_terminal():
        assert [value.value(state, p) for p in (0, 1)] == state.scores()  # boxes owned, unscaled while running
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    boxes, results = state.scores(), state.returns()
    factors = {1: 1.5, -1: 0.5, 0: 1.0}
    assert [value.value(state, p) for p in (0, 1)] == [boxes[p] * factors[results[p]] for p in (0, 1)]
    assert sum(boxes) == 4


def test_pure_score_is_the_raw_score_even_for_a_lost_game():
    value = PureScoreValue()
    dominion = load_game("dominion").new_state(seed=2)
    assert [value.value(dominion, p) for p in range(4)] == [3.0] * 4  # three Estates each
    finished = random_finish(dominion, seed=2)
    assert [value.value(finished, p) for p in range(4)] == finished.scores()
    assert min(finished.returns()) == -1  # someone lost, and still gets the raw score
    cant_stop = random_finish(load_game("cant_stop").new_state(seed=1), seed=1)
    assert [value.value(cant_stop, p) for p in range(4)] == cant_stop.scores()
    assert max(cant_stop.scores()) == 3.0


# ----- Sea Salt and Paper: ScoreAndHandHeuristic -------------------------------------------------------------------

def sea_salt_paper(totals, hand0=(), phase=None):
    state = load_game("sea_salt_paper").new_state(seed=0)
    state.totals = list(totals)
    state.hands[0] = kinds(*hand0)
    state.played = [[] for _ in range(4)]
    state.recount()  # the hands' counts and points follow the cards placed above
    if phase is not None:
        state.phase = phase
    return state


def test_score_and_hand_adds_the_hand_to_the_banked_points_over_the_threshold():
    value = ScoreAndHandValue()
    penguins = ("PINK PENGUIN COLLECTOR", "PURPLE PENGUIN COLLECTOR")  # 1 + 2 points
    assert value.value(sea_salt_paper([12, 0, 0, 0], penguins), 0) == pytest.approx(15 / 30)
    assert value.value(sea_salt_paper([12, 0, 0, 0]), 0) == pytest.approx(12 / 30)
    assert value.value(sea_salt_paper([29, 0, 0, 0], penguins), 0) == 0.99  # only a won game reaches 1


def test_score_and_hand_at_the_end_of_the_game():
    value = ScoreAndHandValue()
    over = sea_salt_paper([31, 20, 5, 0], ("PINK PENGUIN COLLECTOR",), phase=OVER)
    assert [value.value(over, p) for p in range(4)] == [1.0, -1.0, -1.0, -1.0]
    tied = sea_salt_paper([31, 31, 5, 0], ("PINK PENGUIN COLLECTOR",), phase=OVER)
    assert tied.returns()[:2] == [0, 0]
    assert value.value(tied, 0) == 0.99  # a draw: the banked total (its last hand banked), clamped


# ----- 7 Wonders: the VP estimate and the simultaneous OSLA ---------------------------------------------------------

EPHESUS, ALEXANDRIA, HALICARNASSUS, RHODES = ("TheTempleOfArtemisInEphesus", "TheLighthouseOfAlexandria",
                                              "TheMausoleumOfHalicarnassus", "TheColossusOfRhodes")


def seven_wonders(hands, shields=(0, 0, 0, 0), age=1, coins=3):
    """Age-`age` position, nothing built: boards Ephesus, Alexandria, Halicarnassus, Rhodes (day side, nobody
    produces stone), `coins` each (or per seat)."""
    game = load_game("seven_wonders")
    state = game.new_state(0)
    state.age, state.direction = age, -1 if age == 2 else 1
    state.hands = [list(h) for h in hands]
    state.played, state.discard = [[] for _ in range(4)], []
    state.boards = [[wonder, 0, 1, False] for wonder in (EPHESUS, ALEXANDRIA, HALICARNASSUS, RHODES)]
    state.res = [[0] * len(RESOURCES) for _ in range(4)]
    for seat, (wonder, *_) in enumerate(state.boards):
        state.res[seat][INDEX[WONDERS[wonder].resource]] = 1
        state.res[seat][INDEX["Coin"]] = coins[seat] if isinstance(coins, list) else coins
        state.res[seat][INDEX["Shield"]] = shields[seat]
    return game.from_json(state.to_json(), seed=1)


def test_vp_estimate_fights_the_running_age_now():
    state = seven_wonders([["Baths"] * 3] * 4, shields=(1, 0, 0, 0))
    assert state.scores() == [1.0] * 4  # 3 coins each
    assert state.vp_estimates() == [1 + 2, 1 - 1, 1, 1 - 1]  # seat 0 beats both neighbours in age I
    assert Wonders7Value().value(state, 0) == pytest.approx(3 / 4)
    age_two = seven_wonders([["Aqueduct"] * 3] * 4, shields=(1, 0, 0, 0), age=2)
    assert age_two.vp_estimates() == [1 + 6, 0, 1, 0]  # 3 per conflict in age II
    losing = seven_wonders([["Baths"] * 3] * 4, shields=(0, 1, 0, 1))
    assert losing.vp_estimates() == [-1, 3, -1, 3] and Wonders7Value().value(losing, 0) == -0.25
    assert Wonders7Value().value(seven_wonders([["Baths"] * 3] * 4, coins=0), 0) == 0.0  # total 0


def test_two_moves_that_differ_only_after_the_round_resolves():
    # Seat 0 (Ephesus: papyrus, 3 coins) chooses first. The others hold Scriptoriums they cannot pay for (no
    # papyrus, no coins to trade), so each can only discard one: the round's outcome is fixed once resolved.
    state = seven_wonders([["Altar", "Scriptorium", "Scriptorium"]] + [["Scriptorium"] * 3] * 3, coins=[3, 0, 0, 0])
    legal = state.legal_actions()
    assert legal == [("play", "Altar", 0, 0), ("play", "Scriptorium", 0, 0), ("discard", "Altar"),
                     ("discard", "Scriptorium")]
    value, sample = Wonders7Value(), state.clone()
    plain, simultaneous = OSLAAgent(value=value), SimultaneousOSLAAgent(value=value)
    right_after = [value.value(plain.child(sample, a), 0) for a in legal]
    assert right_after == [1.0] * 4  # the choice is still hidden: every move looks the same (1 VP of 1 in all)
    resolved = [simultaneous.child(sample, a) for a in legal]
    assert not any(child.round_in_progress() for child in resolved)
    assert all(len(hand) == 2 for child in resolved for hand in child.hands)
    assert all(child.res[seat][INDEX["Coin"]] == 3 for child in resolved for seat in (1, 2, 3))  # they discarded
    # Altar: 3 + 1 VP against 1 for each other seat; Scriptorium: 1 (science) + 1; a discard: 6 coins, 2 VP
    assert [value.value(child, 0) for child in resolved] == [pytest.approx(4 / 7), 0.4, 0.4, 0.4]
    for seed in range(5):
        assert SimultaneousOSLAAgent(value=value, seed=seed).choose(state) == ("play", "Altar", 0, 0)


def mid_round_states(n_games: int, every: int) -> list:
    return random_play_states(load_game("seven_wonders"), n_games, every)


def test_simultaneous_osla_never_reads_hidden_state():
    agent = baseline_agent("seven_wonders")
    states = mid_round_states(n_games=2, every=13)[:8]
    moved = 0
    for state in states:
        seat = state.current_player
        permuted = state.determinize(seat, random.Random(5))  # the same observation, hidden cards and choices moved
        assert permuted.observation_json(seat) == state.observation_json(seat)
        moved += permuted.to_json() != state.to_json()
        agent.reset(3)
        first = agent.choose(state)
        agent.reset(3)
        assert agent.choose(permuted) == first
    assert moved == len(states) >= 6
    assert sum(state.round_in_progress() for state in states) >= 4  # seats after the first to choose


def test_simultaneous_osla_is_seeded_and_leaves_the_state_alone():
    state = mid_round_states(n_games=1, every=9)[2]
    before = state.to_json()
    picks = [baseline_agent("seven_wonders", seed=s).choose(state) for s in range(6)]
    assert picks == [baseline_agent("seven_wonders", seed=s).choose(state) for s in range(6)]
    assert state.to_json() == before


def test_finish_round_needs_a_game_with_simultaneous_rounds():
    with pytest.raises(ValueError, match="has no simultaneous rounds"):
        finish_round_randomly(load_game("connect4").new_state(), random.Random(0))


# ----- the factory -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_baseline_that_plays_a_legal_game(name):
    game = load_game(name)
    agents = [baseline_agent(name, seed=seat) for seat in range(game.n_players)]
    assert isinstance(agents[0], SimultaneousOSLAAgent) == (name == "seven_wonders")
    state, decisions = game.new_state(seed=1), 0
    while not state.is_terminal() and decisions < 60:
        state.apply(agents[state.current_player].choose(state))  # apply rejects an illegal action
        decisions += 1


def test_baseline_values_per_game_and_the_named_options():
    expected = {"connect4": WinLossScaledScoreValue, "dots_and_boxes": WinLossScaledScoreValue,
                "tictactoe": WinLossScaledScoreValue, "cant_stop": PureScoreValue, "dominion": PureScoreValue,
                "sea_salt_paper": ScoreAndHandValue, "seven_wonders": Wonders7Value}
    assert {name: type(baseline_value(name)) for name in GAMES} == expected
    assert type(baseline_value("dominion", heuristic="score_margin")) is ScoreValue
    assert type(baseline_agent("seven_wonders", heuristic="score_margin").value_function) is ScoreValue
    assert baseline_value("dominion") is not baseline_value("dominion")  # a fresh object per agent


def test_factory_rejects_unknown_games_and_heuristics():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        baseline_agent("chess")
    with pytest.raises(ValueError, match="unknown heuristic 'vp'"):
        baseline_value("dominion", heuristic="vp")
    with pytest.raises(ValueError, match="'score_and_hand' is for sea_salt_paper only"):
        baseline_value("connect4", heuristic="score_and_hand")
