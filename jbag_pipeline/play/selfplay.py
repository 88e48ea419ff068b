"""Self-play: MCTS plays every seat; each match becomes a `games` row and its recorded `states` rows.

The preset's GameRun.selfplay_agent picks our Python MCTS ("mcts") or OpenSpiel's C++ MCTS ("openspiel_mcts").
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import polars as pl

from engines import load_game
from engines.agents import MCTSAgent, OpenSpielMCTSAgent
from engines.match import play_match
from jbag_pipeline.compute import Compute, run_batch
from jbag_pipeline.presets import GameRun, MCTSSettings
from jbag_pipeline.schemas import SELFPLAY_GAMES as GAMES_SCHEMA, SELFPLAY_STATES as STATES_SCHEMA


def selfplay_seeds(run_seed: int, block: int, n_games: int) -> list[int]:
    """Seeds of one block of self-play games; a later block (scheduled rerun) never repeats an earlier seed."""
    start = run_seed * 1_000_000_000 + block * 1_000_000
    return [start + i for i in range(n_games)]


def selfplay_agents(game, run: GameRun, seed: int) -> list:
    """One self-play agent per seat of `game` for the game seeded `seed`, as `run.selfplay_agent` says."""
    if run.selfplay_agent == "openspiel_mcts":
        return [OpenSpielMCTSAgent(game, simulations=run.openspiel_simulations, rollouts=run.openspiel_rollouts,
                                   seed=seed * 16 + seat) for seat in range(game.n_players)]
    return [mcts_agent(run.mcts_settings(), seed * 16 + seat) for seat in range(game.n_players)]


def mcts_agent(settings: MCTSSettings, seed: int) -> MCTSAgent:
    """Our Python MCTS with `settings` (the default cutoff and exploration give the agent of earlier releases)."""
    return MCTSAgent(iterations=settings.iterations, exploration=settings.exploration,
                     rollout_length=settings.rollout_length, cutoff=settings.cutoff, seed=seed)


def selfplay_agent_label(run: GameRun) -> str:
    """The `agents` column entry of a self-play seat."""
    if run.selfplay_agent == "openspiel_mcts":
        return f"openspiel_mcts(simulations={run.openspiel_simulations},rollouts={run.openspiel_rollouts})"
    return run.mcts_settings().label()


@dataclass(frozen=True)
class SelfplayGames:
    """The task of playing self-play games of one game at one budget: seeds -> ((games row, states rows), ...).

    A picklable callable, so a chunk of seeds can be played in another process or on a Dask worker.
    """

    game_name: str
    run: GameRun

    def __call__(self, seeds: list[int]) -> list[tuple[dict, list[dict]]]:
        game = load_game(self.game_name, **self.run.params)
        return [self._play(game, seed) for seed in seeds]

    def _play(self, game, seed: int) -> tuple[dict, list[dict]]:
        run = self.run
        agents = selfplay_agents(game, run, seed)  # built here: OpenSpiel's bots do not pickle
        record = play_match(game, agents, seed=seed)
        game_row = {
            "game": self.game_name, "game_id": seed, "seed": seed, "n_players": game.n_players,
            "params": orjson.dumps(game.params, option=orjson.OPT_SORT_KEYS).decode(),
            "agents": [selfplay_agent_label(run)] * game.n_players,
            "winner": record.winner, "returns": list(record.returns), "scores": [float(s) for s in record.scores],
            "actions": orjson.dumps(record.actions).decode(), "n_actions": len(record.actions),
            "n_states": len(record.states),
        }
        last = len(record.states) - 1
        state_rows = [{
            "game": self.game_name, "game_id": seed, "state_idx": s.state_idx, "turn": s.turn, "player": s.player,
            "is_terminal": s.state_idx == last, "doc": orjson.dumps(s.doc).decode(),
        } for s in record.states]
        return game_row, state_rows


def play_selfplay(game_name: str, run: GameRun, seeds: list[int],
                  compute: Compute | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Play one MCTS self-play game per seed on `compute` (None: inline); returns the (games, states) tables in
    seed order. game_id = seed."""
    played = run_batch(compute, SelfplayGames(game_name, run), seeds)
    game_rows = [game_row for game_row, _ in played]
    state_rows = [row for _, rows in played for row in rows]
    return pl.DataFrame(game_rows, schema=GAMES_SCHEMA), pl.DataFrame(state_rows, schema=STATES_SCHEMA)
