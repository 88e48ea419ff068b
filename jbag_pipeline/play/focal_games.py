"""Games with one agent under study in a seat and other agents elsewhere, each seat in turn: one row per game.

The shared engine of selfplay_strength (self-play agent against baseline OSLAs) and selfplay_tuning (an MCTS
candidate against the self-play agent). Game (seat, index) is seeded as the evaluation's games are
(evaluation_seed), under a label of its own so that they are other games than the evaluation's; every candidate
meets the same seeds (common random numbers). Decisions with more than one legal action are timed in CPU
seconds of the playing process, the only column that differs between reruns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import orjson
import polars as pl

from engines import load_game
from engines.base import Action, State
from engines.match import play_match
from jbag_pipeline.play.evaluation import evaluation_seed
from jbag_pipeline.play.habits import seat_habits
from jbag_pipeline.compute import Compute, run_batch

FOCAL_GAMES = {
    "seat": pl.Int8, "game_index": pl.Int32, "seed": pl.Int64, "score": pl.Int8, "n_actions": pl.Int32,
    "decisions": pl.Int64, "seconds": pl.Float64, "others_decisions": pl.Int64, "others_seconds": pl.Float64,
    "turns": pl.Int64, "rolls": pl.Int64, "busts": pl.Int64, "actions": pl.String,
}


class TimedAgent:
    """Wraps an agent: counts its searched decisions (more than one legal action) and their CPU seconds."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.decisions = 0
        self.seconds = 0.0

    def reset(self, seed: int) -> None:
        self.agent.reset(seed)

    def begin_game(self, state: State, seat: int) -> None:
        self.agent.begin_game(state, seat)

    def choose(self, state: State) -> Action:
        if len(state.legal_actions()) < 2:
            return self.agent.choose(state)
        started = time.process_time()
        action = self.agent.choose(state)
        self.seconds += time.process_time() - started
        self.decisions += 1
        return action


def focal_seed(base_seed: int, game: str, label: str, seat: int, index: int) -> int:
    """The seed of game (seat, index) of the `label` games: evaluation_seed under the game name 'game|label'."""
    return evaluation_seed(base_seed, f"{game}|{label}", seat, index)


@dataclass(frozen=True)
class FocalSeatGames:
    """The task of playing games (seat, index): focal(game, seed) in the seat, others(game, seed)[p] elsewhere.

    A picklable callable (focal and others must be module-level functions or partials of them), so a chunk of
    games can be played in another process or on a Dask worker.
    """

    game_name: str
    params: dict
    base_seed: int
    label: str
    focal: Callable
    others: Callable

    def __call__(self, games: list[tuple[int, int]]) -> list[dict]:
        game = load_game(self.game_name, **self.params)
        return [self._play(game, seat, index) for seat, index in games]

    def _play(self, game, seat: int, index: int) -> dict:
        seed = focal_seed(self.base_seed, self.game_name, self.label, seat, index)
        focal = TimedAgent(self.focal(game, seed))
        agents = [focal if p == seat else TimedAgent(agent) for p, agent in enumerate(self.others(game, seed))]
        record = play_match(game, agents, seed=seed, record_states=False)  # a row keeps no states
        score = (record.returns[seat] > 0) - (record.returns[seat] < 0)
        habits = seat_habits(self.game_name, record.actions, game.n_players)
        own = habits[seat] if habits is not None else None
        others = [agent for p, agent in enumerate(agents) if p != seat]
        return {"seat": seat, "game_index": index, "seed": seed, "score": score, "n_actions": record.n_actions,
                "decisions": focal.decisions, "seconds": focal.seconds,
                "others_decisions": sum(a.decisions for a in others), "others_seconds": sum(a.seconds for a in others),
                "turns": own and own.turns, "rolls": own and own.rolls, "busts": own and own.busts,
                "actions": orjson.dumps(record.actions).decode()}


def play_focal(task: FocalSeatGames, n_players: int, games_per_seat: int,
               compute: Compute | None = None) -> pl.DataFrame:
    """`games_per_seat` games of `task` with the focal agent in each seat, on `compute` (None: inline), rows in
    (seat, index) order."""
    if games_per_seat < 0:
        raise ValueError(f"play_focal: games_per_seat must be >= 0, got {games_per_seat}")
    items = [(seat, index) for seat in range(n_players) for index in range(games_per_seat)]
    return pl.DataFrame(run_batch(compute, task, items), schema=FOCAL_GAMES)
