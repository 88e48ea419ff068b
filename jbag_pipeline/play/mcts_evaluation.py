"""JSON-Bag values inside MCTS: matchups of one agent against opponents of one kind, each seat in turn, beside the
control of the opponent in every seat on the same seeds; mcts_summary gives the statistics.

Agents (make_agent): score_mcts (our MCTS with its random rollout scored on the scores, at the GameRun's MCTS
settings), jsonbag_mcts (the same search, each leaf valued by the JSON-Bag value after `mcts_leaf_depth` random steps),
heuristic_mcts (the same, valued by the game's baseline heuristic: the fair comparison), jsonbag_osla (the
evaluation's JSON-Bag OSLA) and baseline_osla. Every MCTS spends the same iterations per decision and breaks ties of
visits by mean reward (TIES). Game (seat, index) of every matchup and control is seeded alike (common random
numbers), apart from the evaluation's games; actions are recorded, so engines.match.replay reproduces every game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import orjson
import polars as pl

from engines import load_game
from engines.agents import MCTSAgent, ValueEvaluator, baseline_agent, baseline_value
from engines.match import play_match
from jbag_pipeline.analysis.statistics import control_table, summarise
from jbag_pipeline.compute import Compute, run_batch
from jbag_pipeline.play.evaluation import opponents_best, seat_result
from jbag_pipeline.play.focal_games import focal_seed
from jbag_pipeline.play.jsonbag_agent import jsonbag_agent_class
from jbag_pipeline.presets import GameRun
from jbag_pipeline.schemas import MCTS_EVALUATION_GAMES, MCTS_EVALUATION_SUMMARY, conform

MCTS_LABEL = "mcts_evaluation"  # seeds its games apart from the evaluation's
AGENTS = ("score_mcts", "jsonbag_mcts", "heuristic_mcts", "jsonbag_osla", "baseline_osla")
JSONBAG_AGENTS = ("jsonbag_mcts", "jsonbag_osla")
# (agent, opponent) of every matchup, in the rows' order; each opponent's control (it in every seat) is played too
MATCHUPS = (("jsonbag_mcts", "score_mcts"), ("heuristic_mcts", "score_mcts"), ("jsonbag_osla", "score_mcts"),
            ("jsonbag_mcts", "jsonbag_osla"), ("jsonbag_mcts", "baseline_osla"))
SUMMARY_KEYS = ("game", "agent", "opponent", "iterations", "leaf_depth", "value_pair")  # one of each a game in a run
DECIDED_HALF_WIDTH = 0.10
# every MCTS here breaks ties of visits by mean reward: the JSON-Bag value is so flat that UCB splits the iterations
# evenly, and the first move in legal order (the self-play rule) would take Can't Stop's roll at every decision
TIES = "mean"  # a win rate is decided when its Wilson 95% half-width is at most this


def make_agent(kind: str, game_name: str, run: GameRun, value_factory: Callable | None):
    """A fresh agent of `kind` for `game_name` at `run`'s MCTS budget; value_factory() builds a JSON-Bag value."""
    if kind not in AGENTS:
        raise ValueError(f"mcts evaluation: unknown agent {kind!r}; known agents: {list(AGENTS)}")
    if kind in ("jsonbag_mcts", "jsonbag_osla") and value_factory is None:
        raise ValueError(f"mcts evaluation: agent {kind!r} needs a JSON-Bag value (value_factory is None)")
    settings = run.mcts_settings()
    if kind == "score_mcts":
        return MCTSAgent(settings.iterations, settings.exploration, settings.rollout_length, cutoff=settings.cutoff,
                         name=kind, ties=TIES)
    if kind == "baseline_osla":
        return baseline_agent(game_name)
    if kind == "jsonbag_osla":
        return jsonbag_agent_class(game_name)(value_factory())
    value, rule = (value_factory(), "share") if kind == "jsonbag_mcts" else (baseline_value(game_name), "lead")
    evaluator = ValueEvaluator(value, run.mcts_leaf_depth, rule, name=kind.removesuffix("_mcts"))
    return MCTSAgent(settings.iterations, settings.exploration, evaluator=evaluator, name=kind, ties=TIES)


@dataclass(frozen=True)
class MatchupGames:
    """The task of playing games (seat, index) of one matchup: `agent` in the seat, `opponent` agents elsewhere (the
    control: agent == opponent). A picklable callable (value_factory must be a module-level function or a partial of
    one); the agents are built once per chunk and play_match re-seeds them per game."""

    game_name: str
    params: dict
    base_seed: int
    run: GameRun
    agent: str
    opponent: str
    value_factory: Callable | None = None

    def __call__(self, games: list[tuple[int, int]]) -> list[dict]:
        game = load_game(self.game_name, **self.params)
        focal = make_agent(self.agent, self.game_name, self.run, self.value_factory)
        others = [make_agent(self.opponent, self.game_name, self.run, self.value_factory)
                  for _ in range(game.n_players)]
        params = orjson.dumps(game.params, option=orjson.OPT_SORT_KEYS).decode()
        rows = []
        for seat, index in games:
            agents = [focal if p == seat else others[p] for p in range(game.n_players)]
            seed = focal_seed(self.base_seed, self.game_name, MCTS_LABEL, seat, index)
            started = time.process_time()
            record = play_match(game, agents, seed=seed, record_states=False)
            rows.append({"game": self.game_name, "agent": self.agent, "opponent": self.opponent,
                         "iterations": self.run.mcts_iterations, "leaf_depth": self.run.mcts_leaf_depth,
                         "value_pair": self.run.mcts_value_pair, "seat": seat,
                         "game_index": index, "seed": seed, "params": params,
                         "score": seat_result(record.returns, seat), "seat_score": float(record.scores[seat]),
                         "opponents_best_score": opponents_best(record, seat),
                         "n_actions": record.n_actions, "actions": orjson.dumps(record.actions).decode(),
                         "cpu_seconds": time.process_time() - started})
        return rows


def matchups_with_controls(matchups: Sequence[tuple[str, str]] = MATCHUPS) -> list[tuple[str, str]]:
    """The matchups, then each opponent's control (opponent, opponent), in first-seen order."""
    for agent, opponent in matchups:
        if agent == opponent or agent not in AGENTS or opponent not in AGENTS:
            raise ValueError(f"mcts evaluation: a matchup pairs two different agents of {list(AGENTS)}, got "
                             f"({agent!r}, {opponent!r})")
    controls = [(opponent, opponent) for opponent in dict.fromkeys(opponent for _, opponent in matchups)]
    return list(matchups) + controls


def play_mcts_evaluation(game_name: str, params: dict, run: GameRun, base_seed: int,
                         value_factory: Callable | None, compute: Compute | None = None,
                         matchups: Sequence[tuple[str, str]] = MATCHUPS) -> pl.DataFrame:
    """run.mcts_eval_games_per_seat games per seat of every matchup and control (MCTS_EVALUATION_GAMES rows, in
    matchup, seat, index order); cpu_seconds is the only column that differs between reruns."""
    games_per_seat = run.mcts_eval_games_per_seat
    n_players = load_game(game_name, **params).n_players
    items = [(seat, index) for seat in range(n_players) for index in range(games_per_seat)]
    parts = [pl.DataFrame(run_batch(compute, MatchupGames(game_name, dict(params), base_seed, run, agent, opponent,
                                                          value_factory), items), schema=MCTS_EVALUATION_GAMES)
             for agent, opponent in matchups_with_controls(matchups)]
    return pl.concat(parts)


def mcts_summary(games: pl.DataFrame) -> pl.DataFrame:
    """MCTS_EVALUATION_SUMMARY rows: every matchup per seat and overall against its opponent's control (the opponent
    in every seat, same seeds): Wilson intervals, exact tests, Holm across a game's matchups with one opponent, a
    verdict, and whether the win rate is decided (half-width at most DECIDED_HALF_WIDTH)."""
    if games.is_empty():
        return pl.DataFrame(schema=MCTS_EVALUATION_SUMMARY)
    parts = []
    for opponent in games["opponent"].unique(maintain_order=True).to_list():
        against = games.filter(pl.col("opponent") == opponent)
        control_games = against.filter(pl.col("agent") == opponent)
        matchup_games = against.filter(pl.col("agent") != opponent)
        if matchup_games.is_empty():
            continue
        if control_games.is_empty():
            raise ValueError(f"mcts_evaluation_games: opponent {opponent!r} has no control games ({opponent} in "
                             f"every seat)")
        parts.append(summarise(matchup_games, control_table(control_games), keys=SUMMARY_KEYS,
                               family=("game", "opponent")))
    if not parts:
        return pl.DataFrame(schema=MCTS_EVALUATION_SUMMARY)
    half_width = (pl.col("win_rate_high") - pl.col("win_rate_low")) / 2
    summary = pl.concat(parts).rename({"n": "games"}).with_columns(
        half_width.alias("win_rate_half_width"), (half_width <= DECIDED_HALF_WIDTH).alias("decided"))
    return conform(summary, MCTS_EVALUATION_SUMMARY, "mcts_evaluation_summary").sort(
        "game", "opponent", "agent", pl.col("seat").is_null(), "seat")
