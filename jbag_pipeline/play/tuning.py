"""Self-play tuning: MCTS candidates (rollout length and cut-off scoring, exploration constant, iterations at a
CPU time per decision) each play the preset's self-play agent, seat rotated; a table ranks them best first.

Equal CPU time per decision is set in the grid, not measured at run time (that would make the games depend on
the machine): calibrate_iterations measures what one iteration of a candidate costs and gives the iterations
that fill a time budget; the table reports the CPU seconds per decision each candidate actually spent.
"""

from __future__ import annotations

from functools import partial

import polars as pl

from engines import load_game
from engines.match import play_match
from jbag_pipeline.play.focal_games import FocalSeatGames, TimedAgent, play_focal
from jbag_pipeline.play.habits import Habits
from jbag_pipeline.play.selfplay import mcts_agent, selfplay_agent_label, selfplay_agents
from jbag_pipeline.play.strength import win_rate_columns
from jbag_pipeline.compute import Compute
from jbag_pipeline.presets import GameRun, MCTSSettings
from jbag_pipeline.schemas import SELFPLAY_TUNING

TUNING_LABEL = "selfplay_tuning"  # seeds its games apart from the evaluation's and the strength table's


def _candidate_agent(settings: MCTSSettings, game, seed: int):
    return mcts_agent(settings, seed)


def _reference_agents(run: GameRun, game, seed: int) -> list:
    return selfplay_agents(game, run, seed)


def play_tuning(game_name: str, params: dict, run: GameRun, candidates: tuple[MCTSSettings, ...], n_players: int,
                base_seed: int, games_per_seat: int, compute: Compute | None = None) -> pl.DataFrame:
    """Every candidate in each seat for `games_per_seat` games against `run`'s self-play agent in the other seats;
    one row per game with the candidate's label. Every candidate plays the same seeds."""
    played = []
    for candidate in candidates:
        task = FocalSeatGames(game_name, dict(params), base_seed, TUNING_LABEL, partial(_candidate_agent, candidate),
                              partial(_reference_agents, run))
        games = play_focal(task, n_players, games_per_seat, compute)
        played.append(games.with_columns(pl.lit(candidate.label()).alias("candidate")))
    return pl.concat(played) if played else pl.DataFrame()


def _rate(total: float, count: int) -> float | None:
    return total / count if count else None


def tuning_table(game_name: str, run: GameRun, candidates: tuple[MCTSSettings, ...], games: pl.DataFrame,
                 n_players: int) -> pl.DataFrame:
    """One row per candidate, best first (win rate, then the Wilson interval's lower end, then grid order):
    win rate against the self-play agent with its Wilson 95% interval, chance_rate = 1 / seats, CPU seconds per
    searched decision of candidate and opponent, and (Can't Stop) the candidate's rolls and busts per turn."""
    rows = []
    for candidate in candidates:
        mine = games.filter(pl.col("candidate") == candidate.label())
        habits = None if mine["turns"].null_count() or not len(mine) else Habits(
            int(mine["turns"].sum()), int(mine["rolls"].sum()), int(mine["busts"].sum()))
        rolls, busts = habits.per_turn() if habits is not None else (None, None)
        rows.append({"game": game_name, "candidate": candidate.label(), "iterations": candidate.iterations,
                     "rollout_length": candidate.rollout_length, "exploration": float(candidate.exploration),
                     "cutoff": candidate.cutoff, "opponent": selfplay_agent_label(run),
                     **win_rate_columns(mine["score"]), "chance_rate": 1 / n_players,
                     "seconds_per_decision": _rate(float(mine["seconds"].sum()), int(mine["decisions"].sum())),
                     "opponent_seconds_per_decision": _rate(float(mine["others_seconds"].sum()),
                                                            int(mine["others_decisions"].sum())),
                     "rolls_per_turn": rolls, "busts_per_turn": busts})
    table = pl.DataFrame(rows, schema={k: v for k, v in SELFPLAY_TUNING.items() if k != "rank"})
    table = table.sort(["win_rate", "win_rate_low"], descending=True, nulls_last=True, maintain_order=True)
    return table.with_row_index("rank", offset=1).with_columns(pl.col("rank").cast(pl.Int32)).select(
        list(SELFPLAY_TUNING))


def calibrate_iterations(game_name: str, params: dict, settings: MCTSSettings, seconds_per_decision: float,
                         seed: int = 0, probe_games: int = 1) -> int:
    """The iterations at which `settings` spends about `seconds_per_decision` CPU seconds per searched decision:
    `probe_games` games with the candidate at its own iterations in every seat, timed, scaled linearly."""
    if not seconds_per_decision > 0:
        raise ValueError(f"calibrate_iterations: seconds_per_decision must be > 0, got {seconds_per_decision!r}")
    game = load_game(game_name, **params)
    spent, iterations = 0.0, 0
    for index in range(probe_games):
        agents = [TimedAgent(mcts_agent(settings, seat)) for seat in range(game.n_players)]
        play_match(game, agents, seed=seed + index)
        spent += sum(a.seconds for a in agents)
        iterations += settings.iterations * sum(a.decisions for a in agents)
    if not iterations:
        raise ValueError(f"calibrate_iterations: {game_name} gave no decision to time")
    return max(1, round(seconds_per_decision * iterations / spent))
