"""Evaluation games: one JSON-Bag OSLA against baseline OSLAs, and the control arm of baselines in every seat;
evaluate_against_control plays both and gives the statistics.

Game (seat, index) of a game is seeded from (base_seed, game, seat, index) by a stable hash, the same for every
evaluated pair and for the control: each pair meets the same deals and dice as the control (common random
numbers), so a difference in win rate is the agent's, not the luck of the draw. Actions are recorded, so
engines.match.replay(game, seed, actions) reproduces every game. Every column but `seconds` is deterministic.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, NamedTuple, Sequence

import orjson
import polars as pl

from engines import load_game
from engines.agents import baseline_agent
from engines.match import MatchRecord, play_match
from jbag_pipeline.play.jsonbag_agent import JsonBagOSLAAgent, jsonbag_agent_class
from jbag_pipeline.analysis.statistics import control_table, summarise
from jbag_pipeline.model.value import DeterminizedJsonBagValue
from jbag_pipeline.compute import Compute, run_batch
from jbag_pipeline.schemas import EVALUATION_GAMES as EVALUATION_GAMES_SCHEMA

CONTROL_GAMES_SCHEMA = {
    "game": pl.String, "seat": pl.Int8, "game_index": pl.Int32, "seed": pl.Int64, "params": pl.String,
    "score": pl.Int8, "seat_score": pl.Float64, "opponents_best_score": pl.Float64, "n_actions": pl.Int32,
    "actions": pl.String, "seconds": pl.Float64,
}

def evaluation_seed(base_seed: int, game: str, seat: int, index: int) -> int:
    """A 63-bit game seed from a BLAKE2b hash of the game's coordinates (stable across runs and machines)."""
    key = f"{base_seed}|{game}|{seat}|{index}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") >> 1


def split_pair(pair: str) -> tuple[str, str]:
    """'interval-full_seg' -> ('interval', 'full_seg')."""
    frequency, variant = pair.split("-", 1)
    return frequency, variant


def seat_result(returns: list, seat: int) -> int:
    """+1 if `seat` won, -1 if it lost, 0 for a draw."""
    return (returns[seat] > 0) - (returns[seat] < 0)


def opponents_best(record: MatchRecord, seat: int) -> float:
    """The best final score among the seats other than `seat`."""
    return float(max(score for p, score in enumerate(record.scores) if p != seat))


@dataclass(frozen=True)
class SeatGames:
    """The task of playing evaluation (or control) games (seat, index) of one game: pairs -> rows, one per game.

    jsonbag sits in the seat of each game and baseline OSLAs elsewhere; None plays baselines in every seat
    (the control). `columns` are the rows' constant columns. A picklable callable, so a chunk of games can be
    played in another process or on a Dask worker; play_match re-seeds every agent per game, so which
    process plays a game does not change it.
    """

    game_name: str
    params: dict
    base_seed: int
    jsonbag: JsonBagOSLAAgent | None = None
    columns: dict = field(default_factory=dict)

    def __call__(self, games: list[tuple[int, int]]) -> list[dict]:
        game = load_game(self.game_name, **self.params)
        baselines = [baseline_agent(self.game_name) for _ in range(game.n_players)]
        rows = []
        for seat, index in games:
            agents = [self.jsonbag if self.jsonbag is not None and p == seat else baselines[p]
                      for p in range(game.n_players)]
            seed = evaluation_seed(self.base_seed, game.name, seat, index)
            started = time.perf_counter()
            record = play_match(game, agents, seed=seed, record_states=False)  # a row keeps no states
            seconds = time.perf_counter() - started
            rows.append(self._row(game, seat, index, seed, record, seconds))
        return rows

    def _row(self, game, seat: int, index: int, seed: int, record: MatchRecord, seconds: float) -> dict:
        own_score = "jsonbag_score" if self.jsonbag is not None else "seat_score"
        return {**self.columns, "seat": seat, "game_index": index, "seed": seed,
                "params": orjson.dumps(game.params, option=orjson.OPT_SORT_KEYS).decode(),
                "score": seat_result(record.returns, seat), own_score: float(record.scores[seat]),
                "opponents_best_score": opponents_best(record, seat), "n_actions": record.n_actions,
                "actions": orjson.dumps(record.actions).decode(), "seconds": seconds}


def _seat_index_pairs(n_players: int, games_per_seat: int) -> list[tuple[int, int]]:
    """(seat, index) of every evaluation game, seat-major: the rows' order."""
    return [(seat, index) for seat in range(n_players) for index in range(games_per_seat)]


def _check_games_per_seat(games_per_seat: int, where: str) -> None:
    if games_per_seat < 0:
        raise ValueError(f"{where}: games_per_seat must be >= 0, got {games_per_seat}")


def play_evaluation(game_name: str, params: dict, frequency: str, variant: str,
                    value_factory: Callable[[], DeterminizedJsonBagValue], games_per_seat: int,
                    base_seed: int, compute: Compute | None = None) -> pl.DataFrame:
    """`games_per_seat` games with the JSON-Bag OSLA in each seat, baseline OSLAs elsewhere; one row per game. The
    JSON-Bag OSLA searches as the game's baseline does (jsonbag_agent_class: simultaneous in 7 Wonders), so the
    two differ only in their value.

    value_factory() builds the JSON-Bag value once, here; play_match re-seeds every agent per game. The games
    run on `compute` (None: inline), rows in (seat, index) order. score is
    the JSON-Bag agent's result: +1 win, 0 draw, -1 loss.
    """
    _check_games_per_seat(games_per_seat, "play_evaluation")
    game = load_game(game_name, **params)
    jsonbag = jsonbag_agent_class(game_name)(value_factory())
    if jsonbag.value_function.frequency != frequency:
        raise ValueError(f"play_evaluation: value_factory built a value for frequency "
                         f"{jsonbag.value_function.frequency!r}, not {frequency!r}")
    task = SeatGames(game_name, dict(params), base_seed, jsonbag,
                     {"game": game_name, "prototype_frequency": frequency, "feature_variant": variant})
    rows = run_batch(compute, task, _seat_index_pairs(game.n_players, games_per_seat))
    return pl.DataFrame(rows, schema=EVALUATION_GAMES_SCHEMA)


def play_control(game_name: str, params: dict, games_per_seat: int, base_seed: int,
                 compute: Compute | None = None) -> pl.DataFrame:
    """The control arm: baseline OSLAs in every seat, the games the pairs play (same seeds), one row per game.

    Row (seat, index) is the game seeded as the pairs' game (seat, index), and `score` is the result of the
    baseline sitting where the JSON-Bag agent sits in that game.
    """
    _check_games_per_seat(games_per_seat, "play_control")
    game = load_game(game_name, **params)
    task = SeatGames(game_name, dict(params), base_seed, None, {"game": game_name})
    rows = run_batch(compute, task, _seat_index_pairs(game.n_players, games_per_seat))
    return pl.DataFrame(rows, schema=CONTROL_GAMES_SCHEMA)


def control_arm(game_name: str, params: dict, games_per_seat: int, base_seed: int,
                compute: Compute | None = None) -> pl.DataFrame:
    """evaluation_control rows (per seat: games, wins, draws, losses, rates) of the control arm's games."""
    return control_table(play_control(game_name, params, games_per_seat, base_seed, compute))


@dataclass(frozen=True)
class Arm:
    """One JSON-Bag agent to evaluate: its value's frequency, its rows' feature_variant, value_factory() building its
    value, and constant columns its rows carry besides (the transfer's `method`)."""

    frequency: str
    variant: str
    value_factory: Callable[[], DeterminizedJsonBagValue]
    columns: Mapping[str, str] = field(default_factory=dict)


class ControlledEvaluation(NamedTuple):
    """What evaluate_against_control gives: every arm's games, the control arm's rows and the statistics."""

    games: pl.DataFrame  # play_evaluation rows of every arm, in arm order, with the arm's columns
    control: pl.DataFrame  # control_arm rows
    summary: pl.DataFrame  # summarise(games, control, keys): per key group and seat, and overall


def evaluate_against_control(game_name: str, params: dict, arms: Sequence[Arm], games_per_seat: int, base_seed: int,
                             compute: Compute | None = None, *,
                             keys: Sequence[str] = ("game",)) -> ControlledEvaluation:
    """Every arm's JSON-Bag OSLA against baseline OSLAs (play_evaluation), then the control arm on the same seeds,
    and summarise per `keys` (Holm across a game's groups): win rates with Wilson intervals, exact tests, verdicts."""
    played = [play_evaluation(game_name, params, arm.frequency, arm.variant, arm.value_factory, games_per_seat,
                              base_seed, compute).with_columns(pl.lit(value).alias(name)
                                                               for name, value in arm.columns.items())
              for arm in arms]
    games = pl.concat(played)
    control = control_arm(game_name, params, games_per_seat, base_seed, compute)
    return ControlledEvaluation(games, control, summarise(games, control, keys=keys))
