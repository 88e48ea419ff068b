"""Self-play agent backed by OpenSpiel's C++ MCTS (`pyspiel.MCTSBot` with `pyspiel.RandomRolloutEvaluator`).

The agent keeps an OpenSpiel state in step with our engine's state: at every decision it finds the
opponent's moves since its own last move (searching our engine), applies them to the OpenSpiel state, asks
the bot, and mirrors the chosen move into its copy; play_match applies it to the real state, so records stay
our JSON. OpenSpiel (pip package open-spiel, the `openspiel` extra) is imported only when an agent is built.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from engines.base import Action, Game, State
from engines.registry import GAMES, game_info

MISSING_OPENSPIEL = ("openspiel_mcts needs OpenSpiel (pyspiel), which is not installed: "
                     "pip install -e '.[openspiel]' (open-spiel==2.0.2)")


def import_pyspiel():
    """The pyspiel module, or an ImportError whose one line names the extra to install."""
    try:
        import pyspiel
    except ImportError:
        raise ImportError(MISSING_OPENSPIEL) from None
    return pyspiel


def _same_number(game: str, size: Callable[[Game], int]) -> Callable[[Game, Action], int]:
    """An action map for games that number their actions as OpenSpiel does: checks the id is in range."""
    def to_spiel(our_game: Game, action: Action) -> int:
        if type(action) is not int or not 0 <= action < size(our_game):
            raise ValueError(f"{game}: action {action!r} has no OpenSpiel counterpart (0..{size(our_game) - 1})")
        return action
    return to_spiel


@dataclass(frozen=True)
class SpielMapping:
    """How one of our games is played in OpenSpiel: its name, parameters and action numbering."""

    spiel_name: str
    spiel_params: Callable[[dict], dict]  # our game params -> OpenSpiel game params
    to_spiel: Callable[[Game, Action], int]  # our action -> OpenSpiel action
    from_spiel: Callable[[Game, int], Action]  # OpenSpiel action -> our action
    candidates: Callable[[State, State], list]  # actions that may lead from one state to a later one


def mapping_for(game_name: str) -> SpielMapping:
    """The mapping of `game_name` from its GameInfo's OpenSpiel counterpart (the same action ids in both)."""
    spiel = game_info(game_name).openspiel
    if spiel is None:
        supported = sorted(name for name in GAMES if game_info(name).openspiel is not None)
        raise ValueError(f"openspiel_mcts: no OpenSpiel counterpart for game {game_name!r}; supported: {supported}")
    return SpielMapping(spiel.name, spiel.params, _same_number(game_name, spiel.n_actions), lambda g, a: int(a),
                        spiel.candidates)


def load_spiel_game(game: Game):
    """The OpenSpiel game equal to our `game` with its parameters."""
    mapping = mapping_for(game.name)
    return import_pyspiel().load_game(mapping.spiel_name, mapping.spiel_params(game.params))


def moves_between(before: State, after: State, candidates: list) -> list | None:
    """The moves of the player to move in `before` that reach `after` within that player's turn, or None.

    Depth-first over `candidates`: a branch ends when the turn passes or the game ends; it succeeds when the
    position key equals `after`'s. [] when both are the same position.
    """
    target = after.key()
    if before.key() == target:
        return []
    mover = before.current_player

    def search(state: State, remaining: list) -> list | None:
        legal = set(state.legal_actions())
        for i, action in enumerate(remaining):
            if action not in legal:
                continue
            child = state.clone()
            child.apply(action)
            if child.key() == target:
                return [action]
            if child.is_terminal() or child.current_player != mover:
                continue
            rest = search(child, remaining[:i] + remaining[i + 1:])
            if rest is not None:
                return [action] + rest
        return None

    return search(before, list(candidates))


class OpenSpielMCTSAgent:
    """OpenSpiel's C++ UCT with random rollouts for one of our games; deterministic from `seed`.

    `simulations` per decision (MCTSBot's max_simulations), `rollouts` random rollouts per leaf, `uct_c` on
    returns in [-1, 1] (2.0 equals our MCTSAgent's exploration 1.0 on rewards in [0, 1]). It must see every
    decision of its seat in a game, from reset(seed) on, as play_match does.
    """

    def __init__(self, game: Game, simulations: int = 1000, rollouts: int = 1, uct_c: float = 2.0,
                 solve: bool = False, max_memory_mb: int = 1000, seed: int = 0):
        for key, value in (("simulations", simulations), ("rollouts", rollouts), ("max_memory_mb", max_memory_mb)):
            if type(value) is not int or value < 1:
                raise ValueError(f"openspiel_mcts: {key} must be a positive int, got {value!r}")
        if not uct_c >= 0:
            raise ValueError(f"openspiel_mcts: uct_c must be >= 0, got {uct_c!r}")
        self.name = "openspiel_mcts"
        self.game = game
        self.mapping = mapping_for(game.name)
        self._pyspiel = import_pyspiel()
        self.spiel_game = load_spiel_game(game)
        self.simulations, self.rollouts, self.uct_c = simulations, rollouts, float(uct_c)
        self.solve, self.max_memory_mb = bool(solve), max_memory_mb
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Start a new game: fresh bot and evaluator seeded from `seed`, both states at the initial position."""
        rng = random.Random(seed)
        bot_seed, rollout_seed = rng.getrandbits(31), rng.getrandbits(31)  # C++ ints
        self._evaluator = self._pyspiel.RandomRolloutEvaluator(self.rollouts, rollout_seed)
        self._bot = self._pyspiel.MCTSBot(self.spiel_game, self._evaluator, self.uct_c, self.simulations,
                                          self.max_memory_mb, self.solve, bot_seed, False)
        self._ours = self.game.new_state()
        self._spiel = self.spiel_game.new_initial_state()

    def begin_game(self, state: State, seat: int) -> None:
        """Nothing kept: the first choose() follows the game from the initial position reset() set up."""

    def choose(self, state: State) -> Action:
        self._follow(state)
        legal = state.legal_actions()
        if not legal:
            raise ValueError("openspiel_mcts: the state has no legal actions (is the game over?)")
        if len(legal) == 1:
            action = legal[0]  # a forced move needs no search (as MCTSAgent)
        else:
            action = self.mapping.from_spiel(self.game, self._bot.step(self._spiel))
        self._apply(action)
        return action

    def _apply(self, action: Action) -> None:
        self._spiel.apply_action(self.mapping.to_spiel(self.game, action))
        self._ours.apply(action)

    def _follow(self, state: State) -> None:
        """Apply the opponent's moves since our last move to both copies; check both agree with `state`."""
        moves = moves_between(self._ours, state, self.mapping.candidates(self._ours, state))
        if moves is None:
            raise ValueError("openspiel_mcts: this state does not follow from the last one the agent saw by one "
                             "turn of the opponent; call reset(seed) at the start of every game")
        for action in moves:
            self._apply(action)
        ours = sorted(self.mapping.to_spiel(self.game, a) for a in state.legal_actions())
        if ours != sorted(self._spiel.legal_actions()) or state.current_player != self._spiel.current_player():
            raise RuntimeError(f"openspiel_mcts: the OpenSpiel state of {self.game.name} diverged from ours")
