"""Rules, chance, serialisation and playouts of the Can't Stop engine."""

import random

import pytest

from engines import load_game
from engines.cant_stop import TRACK_LENGTHS, CantStop


def position(game=None, *, player=0, permanent=None, temporary=None, dice=(1, 1, 1, 1), phase="Decision", seed=0):
    """A state built through from_json: `permanent` maps seat -> {track: position}; tops complete tracks."""
    game = game or CantStop()
    doc = game.new_state().to_json()
    for seat, tracks in (permanent or {}).items():
        for track, value in tracks.items():
            doc["playerMarkerPositions"][seat][track] = value
            if value == TRACK_LENGTHS[track]:
                doc["completedColumns"][track] = True
    for track, value in (temporary or {}).items():
        doc["temporaryMarkerPositions"][track] = value
    doc.update(dice=list(dice), gamePhase=phase, turnOwner=player)
    return game.from_json(doc, seed=seed)


def rolled(dice, **kwargs):
    return position(dice=dice, phase="Allocation", **kwargs)


def test_defaults_follow_tag():
    game = load_game("cant_stop")
    assert game.n_players == 4
    assert TRACK_LENGTHS[2:] == (2, 4, 6, 8, 10, 12, 10, 8, 6, 4, 2)
    state = game.new_state()
    assert state.legal_actions() == ["roll", "stop"]
    assert (state.current_player, state.turn_counter, state.n_players) == (0, 0, 4)
    assert CantStop(n_players=2).new_state().n_players == 2


@pytest.mark.parametrize("params", [{"n_players": 1}, {"n_players": 5}, {"n_players": "4"}, {"tracks": 3}])
def test_bad_parameters_are_rejected(params):
    with pytest.raises(ValueError, match="cant_stop"):
        CantStop(**params)


def test_stop_before_rolling_is_legal_and_ends_the_turn():
    state = CantStop().new_state()
    before = state.to_json()["playerMarkerPositions"]
    state.apply("stop")
    assert state.current_player == 1 and state.turn_counter == 1
    assert state.to_json()["playerMarkerPositions"] == before


def test_a_roll_draws_four_dice_from_the_seeded_rng():
    one, other = CantStop().new_state(seed=7), CantStop().new_state(seed=7)
    one.apply("roll")
    other.apply("roll")
    assert one.dice == other.dice and all(1 <= d <= 6 for d in one.dice)
    assert one.to_json()["gamePhase"] == "Allocation"
    assert one.turn_counter == 0 and one.current_player == 0
    rolls = set()
    for seed in range(30):
        state = CantStop().new_state(seed=seed)
        state.apply("roll")
        rolls.add(state.dice)
    assert len(rolls) > 20


def test_each_legal_pairing_is_offered_once():
    assert rolled((1, 2, 3, 4)).legal_actions() == [(3, 7), (4, 6), (5, 5)]
    assert rolled((1, 1, 1, 1)).legal_actions() == [(2, 2)]
    assert rolled((1, 2, 1, 2)).legal_actions() == [(3, 3), (2, 4)]


def test_allocating_advances_temporary_markers_only():
    state = rolled((1, 2, 3, 4), permanent={0: {7: 2}})
    state.apply((3, 7))
    doc = state.to_json()
    assert doc["temporaryMarkerPositions"][3] == 1 and doc["temporaryMarkerPositions"][7] == 3
    assert doc["playerMarkerPositions"][0][7] == 2
    assert doc["gamePhase"] == "Decision" and state.legal_actions() == ["roll", "stop"]
    assert state.turn_counter == 0


def test_pairs_are_accepted_in_either_order_and_as_json_lists():
    for action in ((7, 3), [3, 7], [7, 3]):
        state = rolled((1, 2, 3, 4))
        state.apply(action)
        assert state.temporary == {3: 1, 7: 1}


def test_a_double_needs_room_for_two_steps():
    assert rolled((3, 4, 3, 4), permanent={0: {7: 11}}).legal_actions() == [(6, 8), (7,)]
    assert rolled((3, 4, 3, 4), permanent={0: {7: 10}}).legal_actions() == [(7, 7), (6, 8)]
    state = rolled((3, 4, 3, 4), permanent={0: {7: 10}})
    state.apply((7, 7))
    assert state.temporary == {7: 12}


def test_at_most_three_temporary_markers():
    two_used = rolled((1, 5, 3, 5), temporary={4: 1, 5: 1})
    assert two_used.legal_actions() == [(4, 10), (6,), (8,)]
    three_used = rolled((1, 5, 3, 5), temporary={4: 1, 5: 1, 6: 1})
    assert three_used.legal_actions() == [(6,), (4,)]


def test_bust_loses_the_temporary_progress_and_ends_the_turn():
    state = rolled((6, 6, 6, 6), permanent={0: {4: 1}}, temporary={4: 3, 5: 1, 6: 1})
    assert state.legal_actions() == ["bust"]
    state.apply("bust")
    doc = state.to_json()
    assert doc["temporaryMarkerPositions"] == [0] * 13
    assert doc["playerMarkerPositions"][0][4] == 1
    assert state.current_player == 1 and state.turn_counter == 1
    assert state.legal_actions() == ["roll", "stop"]


def test_stop_makes_progress_permanent_and_completes_tracks():
    state = position(permanent={1: {2: 1}}, temporary={2: 2, 7: 3})
    state.apply("stop")
    doc = state.to_json()
    assert doc["playerMarkerPositions"][0][2] == 2 and doc["playerMarkerPositions"][0][7] == 3
    assert doc["playerMarkerPositions"][1][2] == 1  # the other marker stays, but no longer counts
    assert doc["completedColumns"][2] and not doc["completedColumns"][7]
    assert state.scores() == [1.0, 0.0, 0.0, 0.0]
    assert state.current_player == 1 and state.turn_counter == 1 and not state.is_terminal()


def test_a_completed_track_blocks_everyone():
    assert rolled((1, 1, 3, 4), permanent={1: {2: 2}}).legal_actions() == [(4, 5), (7,)]
    assert rolled((1, 1, 1, 1), permanent={1: {2: 2}}).legal_actions() == ["bust"]
    # a track topped this turn is not completed yet, but has no room left
    assert rolled((6, 6, 1, 1), temporary={12: 2}).legal_actions() == [(7, 7), (2,)]


def test_owning_three_tracks_wins_at_once():
    state = position(permanent={0: {2: 2, 12: 2}, 2: {3: 3}}, temporary={3: 4})
    assert state.scores() == [2.0, 0.0, 0.0, 0.0] and not state.is_terminal()
    state.apply("stop")
    assert state.is_terminal()
    assert state.scores() == [3.0, 0.0, 0.0, 0.0]
    assert state.returns() == [1, -1, -1, -1] and state.winner() == 0
    assert state.legal_actions() == [] and state.turn_counter == 1
    doc = state.to_json()
    assert doc["gameStatus"] == "GAME_END" and doc["turnOwner"] == -1
    assert doc["playerResults"] == ["WIN_GAME", "LOSE_GAME", "LOSE_GAME", "LOSE_GAME"]
    with pytest.raises(ValueError, match="illegal action 'roll'"):
        state.apply("roll")


@pytest.mark.parametrize(
    "phase, action",
    [("Allocation", "roll"), ("Allocation", "stop"), ("Allocation", "bust"), ("Allocation", (2, 3)),
     ("Allocation", (3,)), ("Decision", (3, 7)), ("Decision", "bust"), ("Decision", "fly"), ("Decision", 7)],
)
def test_illegal_actions_are_rejected(phase, action):
    state = position(dice=(1, 2, 3, 4), phase=phase)
    with pytest.raises(ValueError, match=f"cant_stop: illegal action .* in phase {phase}"):
        state.apply(action)


def test_a_clone_rolls_the_same_dice_and_is_independent():
    state = CantStop().new_state(seed=3)
    copy = state.clone()
    for _ in range(5):
        for s in (state, copy):
            s.apply("roll")
            s.apply(s.legal_actions()[0])
        assert state.to_json() == copy.to_json()
    copy.apply("stop")
    assert state.current_player == 0 and copy.current_player == 1
    assert state.temporary and not copy.temporary


def test_rolls_of_a_clone_do_not_advance_the_originals_dice():
    state = CantStop().new_state(seed=5)
    copy = state.clone()
    copy.apply("roll")
    first = copy.dice
    copy.apply(copy.legal_actions()[0])
    copy.apply("roll")
    state.apply("roll")
    assert state.dice == first


def test_determinize_keeps_the_board_and_resamples_future_dice():
    state = CantStop().new_state(seed=3)
    state.apply("roll")
    state.apply(state.legal_actions()[0])
    futures = set()
    for seed in range(10):
        sample = state.determinize(0, random.Random(seed))
        assert sample.to_json() == state.to_json()
        sample.apply("roll")
        futures.add(sample.dice)
    assert len(futures) > 1
    one, other = (state.determinize(0, random.Random(4)) for _ in range(2))
    one.apply("roll")
    other.apply("roll")
    assert one.dice == other.dice


def random_playout(game, seed):
    state, rng = game.new_state(seed), random.Random(seed)
    docs = [state.to_json()]
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        docs.append(state.to_json())
    return docs


def test_random_play_is_deterministic_from_the_seed():
    game = CantStop(n_players=2)
    assert random_playout(game, 5) == random_playout(game, 5)
    assert random_playout(game, 5) != random_playout(game, 6)


def test_from_json_round_trips_and_restarts_chance_from_the_seed():
    game = CantStop()
    docs = random_playout(game, 12)
    for doc in docs[::7] + [docs[-1]]:
        state = game.from_json(doc, seed=9)
        assert state.to_json() == doc
        assert state.is_terminal() == (doc["gameStatus"] == "GAME_END")
    middle = next(d for d in docs[40:] if d["gamePhase"] == "Decision" and any(d["temporaryMarkerPositions"]))
    one, other = game.from_json(middle, seed=9), game.from_json(middle, seed=9)
    one.apply("roll")
    other.apply("roll")
    assert one.dice == other.dice and one.legal_actions() == other.legal_actions()


@pytest.mark.parametrize(
    "path, value, message",
    [
        (["completedColumns", 5], True, "track 5 must be completed"),
        (["playerMarkerPositions", 1, 2], 3, r"playerMarkerPositions\[1\] must be 13 ints"),
        (["playerMarkerPositions", 0, 7], 2, "not a legal turn in progress"),  # temporary 1 is behind it
        (["temporaryMarkerPositions"], [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], "not a legal turn in progress"),
        (["dice"], [1, 2, 3, 7], "dice must be 4 ints"),
        (["nPlayers"], 3, "nPlayers"),
        (["gamePhase"], "Rolling", "gamePhase"),
        (["turnOwner"], 4, "turnOwner"),
        (["gameStatus"], "GAME_END", "field 'gameStatus'"),
        (["gameType"], "Connect4", "not a CantStop"),
    ],
)
def test_from_json_rejects_inconsistent_documents(path, value, message):
    doc = position(temporary={7: 1}).to_json()
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError, match=message):
        CantStop().from_json(doc)


def check_board(state):
    """Permanent markers lie within their tracks; a track is completed iff exactly one marker tops it."""
    for seat in range(state.n_players):
        row = state.permanent[seat]
        assert row[0] == row[1] == 0 and all(0 <= row[t] <= TRACK_LENGTHS[t] for t in range(2, 13))
    for track in range(2, 13):
        at_top = sum(row[track] == TRACK_LENGTHS[track] for row in state.permanent)
        assert at_top <= 1 and state.completed[track] == (at_top == 1)


@pytest.mark.slow
def test_thousand_random_playouts_keep_the_invariants():
    game = CantStop()
    for seed in range(1000):
        state, rng = game.new_state(seed), random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            turn = state.turn_counter
            state.apply(legal[int(rng.random() * len(legal))])
            if state.turn_counter != turn:
                assert state.turn_counter == turn + 1 and not state.temporary
            elif state.temporary:
                own, temporary = state.permanent[state.player], state.temporary
                assert len(temporary) <= 3
                for track, at in temporary.items():
                    assert own[track] < at <= TRACK_LENGTHS[track] and not state.completed[track]
        check_board(state)  # permanent markers only move up, so the final board bounds every earlier one
        scores = state.scores()
        assert scores[state.winner()] >= 3 and sorted(scores)[-2] < 3  # one stop may complete two tracks
        assert sum(state.returns()) == 2 - game.n_players


def test_replay_reproduces_recorded_states():
    from engines.agents import RandomAgent
    from engines.match import play_match, replay

    game = load_game("cant_stop")
    record = play_match(game, [RandomAgent(seed=s) for s in range(4)], seed=42)
    last = record.states[-1]
    assert last.doc["gameStatus"] == "GAME_END" and len(record.states) == last.turn
    assert all(not any(s.doc["temporaryMarkerPositions"]) for s in record.states)
    again = replay(game, 42, record.actions)
    assert [s.doc for s in again.states] == [s.doc for s in record.states]
    assert again.returns == record.returns


def test_mcts_self_play_finishes():
    from engines.agents import MCTSAgent
    from engines.match import play_match

    game = load_game("cant_stop")
    agents = [MCTSAgent(iterations=8, rollout_length=20, seed=seat) for seat in range(4)]
    record = play_match(game, agents, seed=5, max_actions=3000)
    assert max(record.scores) >= 3 and record.winner is not None
