"""Rules, encoding, serialisation and playouts of the Dots and Boxes engine."""

import random

import pytest

from engines import load_game
from engines.dots_and_boxes import DotsAndBoxes, line_ids_of_box


def play(state, lines):
    for line in lines:
        state.apply(line)
    return state


def test_default_board_is_tags_5_high_7_wide():
    game = load_game("dots_and_boxes")
    assert (game.rows, game.cols, game.n_lines, game.n_boxes) == (5, 7, 82, 35)
    assert game.new_state().legal_actions() == list(range(82))


def test_line_encoding_1x1():
    game = DotsAndBoxes(rows=1, cols=1)
    assert game.n_lines == 4
    assert line_ids_of_box(1, 1, 0, 0) == (0, 1, 2, 3)  # top, bottom, left, right


def test_line_encoding_2x3():
    game = DotsAndBoxes(rows=2, cols=3)
    assert (game.n_lines, game.n_boxes) == (17, 6)
    # horizontal ids r*C + c for r = 0..2, vertical ids 9 + r*4 + c for c = 0..3
    assert line_ids_of_box(2, 3, 0, 0) == (0, 3, 9, 10)
    assert line_ids_of_box(2, 3, 1, 2) == (5, 8, 15, 16)
    assert line_ids_of_box(2, 3, 0, 1) == (1, 4, 10, 11)
    state = play(game.new_state(), [5, 15, 8])
    state.apply(16)  # the fourth side of box (1, 2), row-major index 5
    assert state.to_json()["boxOwners"] == [-1, -1, -1, -1, -1, state.current_player]
    borders = [len(game.boxes_of_line[line]) for line in range(17)]
    assert borders == [1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 1]


def test_completing_a_box_gives_another_move_in_the_same_turn():
    state = play(DotsAndBoxes(rows=1, cols=2).new_state(), [0, 2, 4])  # seats 0, 1, 0
    assert state.current_player == 1 and state.turn_counter == 3
    state.apply(5)  # box 0 (lines 0, 2, 4, 5) is complete
    assert state.current_player == 1
    assert state.turn_counter == 3
    assert state.to_json()["boxOwners"] == [1, -1]
    assert state.scores() == [0.0, 1.0]


def test_no_box_passes_the_turn():
    state = DotsAndBoxes(rows=1, cols=2).new_state()
    state.apply(0)
    assert state.current_player == 1 and state.turn_counter == 1
    state.apply(1)
    assert state.current_player == 0 and state.turn_counter == 2


def test_one_line_can_complete_two_boxes():
    state = play(DotsAndBoxes(rows=1, cols=2).new_state(), [0, 1, 2, 3, 4, 6])
    mover = state.current_player
    state.apply(5)  # the middle line closes both boxes
    assert state.to_json()["boxOwners"] == [mover, mover]
    assert state.to_json()["nCellsPerPlayer"][mover] == 2
    assert state.is_terminal()
    assert state.returns()[mover] == 1 and state.returns()[1 - mover] == -1


def test_game_ends_when_every_box_is_owned_and_the_last_move_ends_the_turn():
    state = play(DotsAndBoxes(rows=1, cols=1).new_state(), [0, 1, 2])
    assert not state.is_terminal() and state.current_player == 1 and state.turn_counter == 3
    state.apply(3)
    assert state.is_terminal()
    assert state.legal_actions() == []
    assert state.turn_counter == 4
    assert state.returns() == [-1, 1]
    assert state.winner() == 1
    doc = state.to_json()
    assert doc["gameStatus"] == "GAME_END" and doc["turnOwner"] == -1
    assert doc["playerResults"] == ["LOSE_GAME", "WIN_GAME"]


def test_equal_boxes_is_a_draw():
    # 1x2: seat 0 closes box 0 with line 5, moves again with 3, and seat 1 closes box 1 with 6
    state = play(DotsAndBoxes(rows=1, cols=2).new_state(), [0, 2, 4, 1, 5, 3])
    assert state.to_json()["boxOwners"] == [0, -1] and state.current_player == 1
    state.apply(6)
    assert state.is_terminal()
    assert state.scores() == [1.0, 1.0]
    assert state.returns() == [0, 0]
    assert state.winner() is None


def test_to_json_lists_line_and_box_owners():
    state = play(DotsAndBoxes(rows=1, cols=1).new_state(), [2, 0])
    doc = state.to_json()
    assert doc["lineOwners"] == [1, -1, 0, -1]
    assert doc["boxOwners"] == [-1]
    assert doc["nCellsPerPlayer"] == [0, 0]
    assert (doc["gameType"], doc["turnCounter"], doc["turnOwner"], doc["nPlayers"]) == ("DotsAndBoxes", 2, 0, 2)


@pytest.mark.parametrize("action", [82, -1, "3", 2.0, True, None, [3]])
def test_malformed_actions_are_rejected(action):
    with pytest.raises(ValueError, match="dots_and_boxes: action"):
        load_game("dots_and_boxes").new_state().apply(action)


def test_a_drawn_line_cannot_be_drawn_again():
    state = play(load_game("dots_and_boxes").new_state(), [7])
    with pytest.raises(ValueError, match="line 7 is already drawn"):
        state.apply(7)


@pytest.mark.parametrize("params", [{"rows": 0}, {"cols": "7"}, {"rows": True}, {"size": 3}])
def test_bad_parameters_are_rejected(params):
    with pytest.raises(ValueError, match="dots_and_boxes"):
        DotsAndBoxes(**params)


def test_clone_is_independent():
    state = play(load_game("dots_and_boxes").new_state(), [0, 1])
    copy = state.clone()
    copy.apply(2)
    assert 2 in state.legal_actions() and 2 not in copy.legal_actions()
    assert state.to_json()["lineOwners"][2] == -1


def test_key_is_equal_for_transpositions():
    game = load_game("dots_and_boxes")
    one = play(game.new_state(), [0, 10, 20, 30])
    other = play(game.new_state(), [10, 0, 30, 20])  # every line drawn by the other seat
    assert one.key() == other.key()
    assert hash(one.key()) == hash(other.key())
    assert one.key() != play(game.new_state(), [0, 10, 20, 31]).key()
    assert one.key() != play(game.new_state(), [0, 10, 20]).key()  # other seat to move


def random_playout(game, seed):
    state, rng = game.new_state(seed), random.Random(seed)
    docs = []
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        docs.append(state.to_json())
    return docs


def test_random_play_is_deterministic_from_the_seed():
    game = DotsAndBoxes(rows=3, cols=4)
    assert random_playout(game, 5) == random_playout(game, 5)
    assert random_playout(game, 5) != random_playout(game, 6)


def test_from_json_round_trips_every_state_of_a_game():
    game = DotsAndBoxes(rows=3, cols=4)
    for doc in random_playout(game, 11):
        state = game.from_json(doc)
        assert state.to_json() == doc
        if not state.is_terminal():
            assert state.legal_actions() == [i for i, seat in enumerate(doc["lineOwners"]) if seat < 0]


def test_from_json_rejects_inconsistent_documents():
    game = DotsAndBoxes(rows=1, cols=2)
    doc = play(game.new_state(), [0, 2, 4, 5]).to_json()
    assert doc["boxOwners"] == [1, -1]
    bad_box = {**doc, "boxOwners": [1, 0]}
    with pytest.raises(ValueError, match="box 1 is owned iff"):
        game.from_json(bad_box)
    with pytest.raises(ValueError, match="nCellsPerPlayer"):
        game.from_json({**doc, "nCellsPerPlayer": [1, 0]})
    with pytest.raises(ValueError, match="lineOwners must be 7"):
        game.from_json({**doc, "lineOwners": doc["lineOwners"][:-1]})
    with pytest.raises(ValueError, match="lineOwners must be 7"):
        game.from_json({**doc, "lineOwners": [2] + doc["lineOwners"][1:]})
    with pytest.raises(ValueError, match="lineOwners must be 7"):
        game.from_json({**doc, "lineOwners": [True] + doc["lineOwners"][1:]})
    with pytest.raises(ValueError, match="not a DotsAndBoxes"):
        game.from_json({**doc, "gameType": "Connect4"})
    with pytest.raises(ValueError, match="unknown field"):
        game.from_json({**doc, "extra": 1})
    with pytest.raises(ValueError, match="turnOwner"):
        game.from_json({**doc, "turnOwner": 2})


def test_thousand_random_playouts_keep_the_invariants():
    game = load_game("dots_and_boxes")
    all_lines, all_boxes = game.all_lines, game.all_boxes
    for seed in range(1000):
        state, rng = game.new_state(seed), random.Random(seed)
        moves = passes = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            assert len(legal) == 82 - moves
            before = state.owned
            state.apply(legal[int(rng.random() * len(legal))])
            moves += 1
            passes += state.owned == before
            assert state.lines_by[0] & state.lines_by[1] == 0 and state.boxes_by[0] & state.boxes_by[1] == 0
            assert state.turn_counter == passes + state.is_terminal()
        assert moves == 82 and state.drawn == all_lines and state.owned == all_boxes
        assert sum(state.scores()) == 35 and sorted(state.returns()) == [-1, 1]


def test_replay_reproduces_recorded_states():
    from engines.agents import RandomAgent
    from engines.match import play_match, replay

    game = load_game("dots_and_boxes")
    record = play_match(game, [RandomAgent(seed=1), RandomAgent(seed=2)], seed=42)
    assert record.states[-1].doc["gameStatus"] == "GAME_END"
    assert record.n_actions == 82 and len(record.states) == record.states[-1].turn
    again = replay(game, 42, record.actions)
    assert [s.doc for s in again.states] == [s.doc for s in record.states]
    assert again.returns == record.returns


@pytest.mark.parametrize("params, lines, boxes", [({"rows": 2, "cols": 3}, 17, 6), ({}, 82, 35)])
def test_mcts_self_play_finishes(params, lines, boxes):
    from engines.agents import MCTSAgent
    from engines.match import play_match

    game = load_game("dots_and_boxes", **params)
    agents = [MCTSAgent(iterations=10, rollout_length=20, seed=seat) for seat in range(2)]
    record = play_match(game, agents, seed=3, max_actions=lines)
    assert record.n_actions == lines
    assert sum(record.scores) == boxes and record.states[-1].doc["gameStatus"] == "GAME_END"
