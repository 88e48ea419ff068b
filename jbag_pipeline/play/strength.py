"""How strong a self-play agent is: its win rate against the game's baseline OSLAs, seat by seat, and its habits
in the self-play games themselves (Can't Stop: rolls and busts per turn)."""

from __future__ import annotations

from functools import partial

import orjson
import polars as pl

from engines.agents import baseline_agent
from jbag_pipeline.play.focal_games import FocalSeatGames, play_focal
from jbag_pipeline.play.habits import Habits, seat_habits
from jbag_pipeline.play.selfplay import selfplay_agent_label, selfplay_agents
from jbag_pipeline.analysis.statistics import wilson_interval
from jbag_pipeline.compute import Compute
from jbag_pipeline.presets import GameRun
from jbag_pipeline.schemas import SELFPLAY_STRENGTH

STRENGTH_LABEL = "selfplay_strength"  # seeds its games apart from the evaluation's


def _focal_selfplay_agent(run: GameRun, game, seed: int):
    """A self-play agent of `run` for the game seeded `seed` (play_match re-seeds it for its seat)."""
    return selfplay_agents(game, run, seed)[0]


def baselines(game, seed: int) -> list:
    """The game's baseline OSLA in every seat."""
    return [baseline_agent(game.name) for _ in range(game.n_players)]


def play_strength(game_name: str, params: dict, run: GameRun, n_players: int, base_seed: int,
                  compute: Compute | None = None) -> pl.DataFrame:
    """run.strength_games_per_seat games with `run`'s self-play agent in each seat, baseline OSLAs elsewhere."""
    task = FocalSeatGames(game_name, dict(params), base_seed, STRENGTH_LABEL, partial(_focal_selfplay_agent, run),
                          baselines)
    return play_focal(task, n_players, run.strength_games_per_seat, compute)


def selfplay_habits(game_name: str, selfplay_games: pl.DataFrame) -> Habits | None:
    """Every seat's habits summed over the self-play games (rows of selfplay_games); None for a game without."""
    total = Habits()
    for actions, n_players in selfplay_games.select("actions", "n_players").iter_rows():
        per_seat = seat_habits(game_name, orjson.loads(actions), n_players)
        if per_seat is None:
            return None
        total = sum(per_seat, total)
    return total


def seconds_per_decision(games: pl.DataFrame) -> float | None:
    """The focal agent's CPU seconds per searched decision over `games` (rows of play_focal)."""
    decisions = int(games["decisions"].sum())
    return float(games["seconds"].sum()) / decisions if decisions else None


def win_rate_columns(scores: pl.Series) -> dict:
    """n, wins, draws, win_rate and its Wilson 95% interval of focal-seat scores in {-1, 0, 1}."""
    n, wins, draws = len(scores), int((scores == 1).sum()), int((scores == 0).sum())
    low, high = wilson_interval(wins, n)
    return {"n": n, "wins": wins, "draws": draws, "win_rate": wins / n if n else None,
            "win_rate_low": low if n else None, "win_rate_high": high if n else None}


def strength_table(game_name: str, run: GameRun, games: pl.DataFrame, n_players: int,
                   habits: Habits | None, selfplay_game_count: int) -> pl.DataFrame:
    """One row: the self-play agent's win rate against baselines (chance_rate = 1 / seats), its worst seat's win
    rate, and the self-play games' rolls and busts per turn (null where the game has no such habit). Deterministic:
    the CPU time per decision goes to the asset's metadata (seconds_per_decision)."""
    by_seat = [win_rate_columns(games.filter(pl.col("seat") == seat)["score"]) for seat in range(n_players)]
    seat_rates = [row["win_rate"] for row in by_seat if row["win_rate"] is not None]
    rolls, busts = habits.per_turn() if habits is not None else (None, None)
    row = {"game": game_name, "selfplay_agent": selfplay_agent_label(run), "opponent": "baseline_osla",
           **win_rate_columns(games["score"]), "chance_rate": 1 / n_players,
           "worst_seat_win_rate": min(seat_rates) if seat_rates else None,
           "selfplay_games": selfplay_game_count, "rolls_per_turn": rolls, "busts_per_turn": busts}
    return pl.DataFrame([row], schema=SELFPLAY_STRENGTH)
