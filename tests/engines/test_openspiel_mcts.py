"""The OpenSpiel-backed MCTS agent: action maps checked move by move against OpenSpiel, seeded self-play, strength."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from engines import load_game
from engines.agents import OpenSpielMCTSAgent, RandomAgent
from engines.agents.openspiel_mcts import MISSING_OPENSPIEL, import_pyspiel, load_spiel_game, mapping_for, moves_between
from engines.match import play_match
from jbag_pipeline.play.selfplay import play_selfplay
from jbag_pipeline.presets import GameRun, get_preset

try:
    import pyspiel  # noqa: F401
except ImportError:
    pyspiel = None
needs_pyspiel = pytest.mark.skipif(pyspiel is None, reason="OpenSpiel (pyspiel) is not installed: pip install -e '.[openspiel]'")

ROOT = Path(__file__).resolve().parents[2]
CASES = [("connect4", {}), ("connect4", {"rows": 6, "cols": 7}), ("connect4", {"rows": 5, "cols": 6, "win_length": 3}),
         ("dots_and_boxes", {}), ("dots_and_boxes", {"rows": 2, "cols": 3}), ("tictactoe", {})]


def board_of_spiel(game_name: str, spiel_state) -> list:
    """The board of an OpenSpiel state in our JSON's terms, parsed from its text rendering."""
    lines = str(spiel_state).splitlines()
    if game_name in ("connect4", "tictactoe"):
        return [list(line) for line in lines if line]  # rows from the top, "x" / "o" / "."
    # dots_and_boxes: box rows are the odd lines, a box's owner ("1" / "2" / blank) every 4th character from 2
    owner = {" ": -1, "1": 0, "2": 1}
    return [owner[line[2 + 4 * c]] for line in lines[1:-1:2] for c in range((len(line) - 1) // 4)]


def board_of_ours(game_name: str, state) -> list:
    doc = state.to_json()
    return doc["boxOwners"] if game_name == "dots_and_boxes" else doc["board"]


@needs_pyspiel
@pytest.mark.parametrize("game_name,params", CASES)
def test_actions_boards_and_returns_agree_with_openspiel_in_random_games(game_name, params):
    game = load_game(game_name, **params)
    mapping, spiel_game = mapping_for(game_name), load_spiel_game(game)
    for seed in range(15):
        rng, ours, theirs = random.Random(seed), game.new_state(), spiel_game.new_initial_state()
        while True:
            assert ours.is_terminal() == theirs.is_terminal()
            assert board_of_ours(game_name, ours) == board_of_spiel(game_name, theirs)
            if ours.is_terminal():
                break
            assert ours.current_player == theirs.current_player()
            legal = ours.legal_actions()
            assert sorted(mapping.to_spiel(game, a) for a in legal) == theirs.legal_actions()
            assert [mapping.from_spiel(game, mapping.to_spiel(game, a)) for a in legal] == legal
            action = legal[rng.randrange(len(legal))]
            ours.apply(action)
            theirs.apply_action(mapping.to_spiel(game, action))
        assert ours.returns() == [int(r) for r in theirs.returns()]


def test_actions_without_openspiel_counterpart_are_rejected():
    game = load_game("connect4")
    with pytest.raises(ValueError, match="action 8 has no OpenSpiel counterpart"):
        mapping_for("connect4").to_spiel(game, 8)
    with pytest.raises(ValueError, match="no OpenSpiel counterpart for game 'cant_stop'"):
        mapping_for("cant_stop")


def test_moves_between_finds_a_whole_dots_and_boxes_turn_with_captures():
    game = load_game("dots_and_boxes", rows=2, cols=3)
    mapping, found = mapping_for("dots_and_boxes"), 0
    for seed in range(40):
        rng, state = random.Random(seed), game.new_state()
        while not state.is_terminal():
            before, mover = state.clone(), state.current_player
            while not state.is_terminal() and state.current_player == mover:  # the whole turn
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
            moves = moves_between(before, state, mapping.candidates(before, state))
            replayed = before.clone()
            for action in moves:
                replayed.apply(action)
            assert replayed.key() == state.key()
            found += len(moves) > 1
    assert found >= 10  # turns with captures were among them
    assert moves_between(game.new_state(), game.new_state(), []) == []


@needs_pyspiel
def test_agent_rejects_a_state_it_cannot_follow():
    game = load_game("connect4")
    agent = OpenSpielMCTSAgent(game, simulations=10, seed=0)
    state = game.new_state()
    for column in (0, 0, 1, 1):  # two turns of each seat: more than one opponent turn since the agent's start
        state.apply(column)
    with pytest.raises(ValueError, match="does not follow from the last one"):
        agent.choose(state)


@needs_pyspiel
@pytest.mark.parametrize("game_name", ["connect4", "dots_and_boxes", "tictactoe"])
def test_selfplay_with_openspiel_is_the_same_twice_and_differs_by_seed(game_name):
    run = GameRun(params={"rows": 2, "cols": 3} if game_name == "dots_and_boxes" else {},
                  selfplay_agent="openspiel_mcts", openspiel_simulations=50)
    first_games, first_states = play_selfplay(game_name, run, [7, 8, 9])
    again_games, again_states = play_selfplay(game_name, run, [7, 8, 9])
    assert first_games.equals(again_games) and first_states.equals(again_states)
    assert first_games["agents"][0].to_list() == ["openspiel_mcts(simulations=50,rollouts=1)"] * 2
    replay = load_game(game_name, **run.params)
    for actions in first_games["actions"]:  # every recorded move was legal in our engine, which ended the game
        state = replay.new_state()
        for action in orjson.loads(actions):
            state.apply(action)
        assert state.is_terminal()
    if game_name != "tictactoe":  # tictactoe's strong play draws the same way from every seed
        assert first_games["actions"].n_unique() > 1


@needs_pyspiel
def test_openspiel_agent_beats_random_play_in_connect4():
    game, wins = load_game("connect4"), 0
    for i in range(6):
        seat = i % 2  # three games in each seat
        agents = [RandomAgent(), RandomAgent()]
        agents[seat] = OpenSpielMCTSAgent(game, simulations=300, seed=i)
        wins += play_match(game, agents, seed=i).winner == seat
    assert wins >= 5


def test_missing_pyspiel_gives_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` raise ImportError
    with pytest.raises(ImportError) as caught:
        import_pyspiel()
    assert str(caught.value) == MISSING_OPENSPIEL and "\n" not in MISSING_OPENSPIEL and ".[openspiel]" in MISSING_OPENSPIEL
    run = GameRun(selfplay_agent="openspiel_mcts")
    with pytest.raises(ImportError, match=r"\.\[openspiel\]"):
        play_selfplay("connect4", run, [0])


def test_jbag_imports_and_plays_python_mcts_without_pyspiel():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "import engines.agents, jbag_pipeline.presets\n"
            "from jbag_pipeline.play.selfplay import play_selfplay\n"
            "games, _ = play_selfplay('tictactoe', jbag_pipeline.presets.GameRun(mcts_iterations=5), [0])\n"
            "print(games['agents'][0][0])")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "mcts(iterations=5,rollout=100)"


def test_presets_choose_the_selfplay_agent_per_game():
    for name in ("demo", "paper"):
        games = get_preset(name).games
        # tic-tac-toe stays on Python MCTS: strong play wins it from seat 0 only, leaving selection nothing to learn
        chosen = {g for g, run in games.items() if run.selfplay_agent == "openspiel_mcts"}
        assert chosen == {"connect4", "dots_and_boxes"}
    assert {run.selfplay_agent for run in get_preset("smoke").games.values()} == {"mcts"}  # CI stays on Python MCTS
    with pytest.raises(ValueError, match="selfplay_agent must be one of"):
        GameRun(selfplay_agent="alphazero")
    with pytest.raises(ValueError, match="openspiel_simulations must be an int >= 1"):
        GameRun(openspiel_simulations=0)
