"""Play a seeded match between agents, recording states as docs/DESIGN.md section 2 says; replay a record."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engines.agents.agent import missing_agent_members
from engines.base import Action, Game, State, normalize_action


@dataclass
class StateRecord:
    """One recorded state: its index in the match, the turn counter, the seat whose turn ended, the JSON."""

    state_idx: int
    turn: int
    player: int
    doc: dict


@dataclass
class MatchRecord:
    """A whole match: replayable from `seed` and `actions` (JSON-serialisable, tuples stored as lists)."""

    seed: int
    actions: list = field(default_factory=list)
    states: list[StateRecord] = field(default_factory=list)
    returns: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    winner: int | None = None
    n_actions: int = 0


def agent_seed(match_seed: int, seat: int) -> int:
    """The RNG seed of the agent in `seat` for the match seeded `match_seed` (stable across runs)."""
    return random.Random(f"agent:{match_seed}:{seat}").getrandbits(63)


def play_match(game: Game, agents: list, seed: int, max_actions: int = 100_000,
               record_states: bool = True) -> MatchRecord:
    """Play one game of `game` from `game.new_state(seed)`; agents[seat] plays seat. Every agent (engines.agents.Agent)
    is re-seeded (reset), then sees the initial state (begin_game), then chooses its seat's moves. record_states=False
    records the actions and the outcome only (`states` stays empty), sparing a to_json() per turn to callers that
    keep no states."""
    if len(agents) != game.n_players:
        raise ValueError(f"play_match: {game.name} needs {game.n_players} agents, got {len(agents)}")
    if len({id(agent) for agent in agents}) != len(agents):
        raise ValueError("play_match: pass a separate agent object for every seat")
    for seat, agent in enumerate(agents):
        missing = missing_agent_members(agent)
        if missing:
            raise ValueError(f"play_match: the agent in seat {seat} ({type(agent).__name__}) is not an Agent: it has "
                             f"no {', '.join(missing)}")
    for seat, agent in enumerate(agents):
        agent.reset(agent_seed(seed, seat))
    state = game.new_state(seed=seed)
    for seat, agent in enumerate(agents):  # every agent sees the initial state (TAG's initializePlayer)
        agent.begin_game(state, seat)
    recorder = _Recorder(seed, state, record_states)
    while not state.is_terminal():
        if recorder.record.n_actions >= max_actions:
            raise RuntimeError(f"play_match: {game.name} with seed {seed} did not end within {max_actions} actions")
        action = agents[state.current_player].choose(state)
        recorder.step(state, action)
    return recorder.finish(state)


def replay(game: Game, seed: int, actions: list) -> MatchRecord:
    """Re-apply recorded `actions` from `game.new_state(seed)`, recording states exactly as play_match did."""
    state = game.new_state(seed=seed)
    recorder = _Recorder(seed, state)
    for action in actions:
        recorder.step(state, normalize_action(action))
    return recorder.finish(state)


class _Recorder:
    """Applies actions to a state and records it after every completed turn and at the end."""

    def __init__(self, seed: int, state: State, record_states: bool = True):
        self.record = MatchRecord(seed=seed)
        self.last_player = state.current_player
        self.saved_last = False  # whether the state after the latest action is recorded
        self.record_states = record_states

    def step(self, state: State, action: Action) -> None:
        player, turn = state.current_player, state.turn_counter
        state.apply(action)
        self.record.actions.append(_jsonable(action))
        self.record.n_actions += 1
        self.last_player = player
        self.saved_last = state.turn_counter > turn
        if self.saved_last:
            self._save(state, player)

    def finish(self, state: State) -> MatchRecord:
        """Record the terminal state unless already recorded; fill in the outcome (all zero if unfinished)."""
        record = self.record
        if state.is_terminal() and not self.saved_last:
            self._save(state, self.last_player)
        record.returns = list(state.returns())
        record.scores = list(state.scores())
        record.winner = state.winner()
        return record

    def _save(self, state: State, player: int) -> None:
        if not self.record_states:
            return
        states = self.record.states
        states.append(StateRecord(len(states), state.turn_counter, player, state.to_json()))


def _jsonable(action: Action) -> Action:
    if isinstance(action, tuple):
        return [_jsonable(a) for a in action]
    return action
