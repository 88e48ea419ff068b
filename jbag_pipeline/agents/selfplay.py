"""Self-play: MCTS plays every seat; each match becomes a `games` row and its recorded `states` rows.

The preset's GameRun.selfplay_agent picks our Python MCTS ("mcts") or OpenSpiel's C++ MCTS ("openspiel_mcts").
"""

from __future__ import annotations

import orjson
import polars as pl

from engines import load_game
from engines.agents import MCTSAgent, OpenSpielMCTSAgent
from engines.match import play_match
from jbag_pipeline.presets import GameRun
from jbag_pipeline.storage.schemas import SELFPLAY_GAMES as GAMES_SCHEMA, SELFPLAY_STATES as STATES_SCHEMA


def selfplay_seeds(run_seed: int, block: int, n_games: int) -> list[int]:
    """Seeds of one block of self-play games; a later block (scheduled rerun) never repeats an earlier seed."""
    start = run_seed * 1_000_000_000 + block * 1_000_000
    return [start + i for i in range(n_games)]


def selfplay_agents(game, run: GameRun, seed: int) -> list:
    """One self-play agent per seat of `game` for the game seeded `seed`, as `run.selfplay_agent` says."""
    if run.selfplay_agent == "openspiel_mcts":
        return [OpenSpielMCTSAgent(game, simulations=run.openspiel_simulations, rollouts=run.openspiel_rollouts,
                                   seed=seed * 16 + seat) for seat in range(game.n_players)]
    return [MCTSAgent(iterations=run.mcts_iterations, rollout_length=run.rollout_length, seed=seed * 16 + seat)
            for seat in range(game.n_players)]


def selfplay_agent_label(run: GameRun) -> str:
    """The `agents` column entry of a self-play seat."""
    if run.selfplay_agent == "openspiel_mcts":
        return f"openspiel_mcts(simulations={run.openspiel_simulations},rollouts={run.openspiel_rollouts})"
    return f"mcts(iterations={run.mcts_iterations},rollout={run.rollout_length})"


def play_selfplay(game_name: str, run: GameRun, seeds: list[int]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Play one MCTS self-play game per seed; returns the (games, states) tables. game_id = seed."""
    game = load_game(game_name, **run.params)
    game_rows, state_rows = [], []
    for seed in seeds:
        agents = selfplay_agents(game, run, seed)
        record = play_match(game, agents, seed=seed)
        game_rows.append({
            "game": game_name, "game_id": seed, "seed": seed, "n_players": game.n_players,
            "params": orjson.dumps(game.params, option=orjson.OPT_SORT_KEYS).decode(),
            "agents": [selfplay_agent_label(run)] * game.n_players,
            "winner": record.winner, "returns": list(record.returns), "scores": [float(s) for s in record.scores],
            "actions": orjson.dumps(record.actions).decode(), "n_actions": len(record.actions),
            "n_states": len(record.states),
        })
        last = len(record.states) - 1
        for s in record.states:
            state_rows.append({
                "game": game_name, "game_id": seed, "state_idx": s.state_idx, "turn": s.turn, "player": s.player,
                "is_terminal": s.state_idx == last, "doc": orjson.dumps(s.doc).decode(),
            })
    return pl.DataFrame(game_rows, schema=GAMES_SCHEMA), pl.DataFrame(state_rows, schema=STATES_SCHEMA)
