"""The speed targets of issue 11, checked against the rows the benchmark modules return."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

COMPARE = {">=": operator.ge, "<=": operator.le}


@dataclass(frozen=True)
class Target:
    """Every row whose benchmark and subject match (re.fullmatch) and whose metric is `metric` must pass.

    `field` is "ratio" (ours / reference, as the module reports it) or "median".
    """

    name: str
    benchmark: str
    subject: str
    metric: str
    field: str
    op: str
    threshold: float

    def matches(self, row: dict) -> bool:
        return (re.fullmatch(self.benchmark, row["benchmark"]) is not None
                and re.fullmatch(self.subject, row["subject"]) is not None and row["metric"] == self.metric)


@dataclass(frozen=True)
class Verdict:
    target: Target
    status: str  # "met", "missed" or "not measured"
    worst: dict | None  # the matched row closest to missing (or furthest past) the threshold
    n_rows: int


TARGETS = (
    Target("tokenizer >= 2x the naive reference, every game", r"tokenizer/.*", "ours", "states/s", "ratio", ">=", 2.0),
    Target("connect4 random playouts >= 0.7x pyspiel", r"random_playouts/connect4", "ours", "playouts/s", "ratio",
           ">=", 0.7),
    Target("tictactoe random playouts >= 0.7x pyspiel", r"random_playouts/tictactoe", "ours", "playouts/s", "ratio",
           ">=", 0.7),
    Target("dots_and_boxes random playouts >= 0.5x pyspiel",
           r"random_playouts/dots_and_boxes|dots_and_boxes 5x7 random playouts", "ours", "playouts/s", "ratio",
           ">=", 0.5),
    Target("MCTS on connect4 >= 40,000 iterations/s", r"mcts_iterations/connect4", "ours", "iterations/s", "median",
           ">=", 40_000),
    *(Target(f"OpenSpiel MCTS >= 5x our Python MCTS iterations/s, {game}", rf"openspiel_mcts/{game} .*",
             r"pyspiel\.MCTSBot", "iterations/s", "ratio", ">=", 5.0)
      for game in ("connect4", "dots_and_boxes", "tictactoe")),
    Target("JSON-Bag OSLA per decision, top-100 features, within 3x of baseline OSLA (issue 25)",
           r"osla_decision/.*", r"ours \(top100\)", "ms/decision", "ratio", "<=", 3.0),
    Target("JSON-Bag OSLA per decision, all tokens, within 5x of baseline OSLA (issue 25)", r"osla_decision/.*",
           r"ours \(none\)", "ms/decision", "ratio", "<=", 5.0),
    Target("JSON-Bag MCTS iterations/s within 3x of score MCTS (issue 28)", r"mcts_value/.*",
           r"ours \(jsonbag top100\)", "iterations/s", "ratio", ">=", 1 / 3),
    # One `jbag run` = the steps of every group's run plus one start-up (bench_pipeline runs groups separately).
    Target("smoke preset end to end <= 3 minutes (one jbag run, estimated)",
           r"pipeline/smoke/one jbag run \(estimate\)", "ours", "wall s", "median", "<=", 180.0),
    Target("demo preset end to end <= 20 minutes (one jbag run, estimated)",
           r"pipeline/demo/one jbag run \(estimate\)", "ours", "wall s", "median", "<=", 1200.0),
    Target("card-engine MCTS >= 2x the engines of 4412511 (issue 25), every card game and budget",
           r"card_mcts/.*", "ours", "iterations/s", "ratio", ">=", 2.0),
    Target("card-game self-play games/s >= 2x the engines of 4412511 (issue 25), demo and reproduce budgets",
           r"card_selfplay/.*", "ours", "games/s", "ratio", ">=", 2.0),
    Target("evaluation group CPU s >= 2x faster than 4412511 (issue 25), every measured game",
           r"evaluation_(games|ops)/[a-z_0-9]+/total", "ours", "CPU s", "ratio", ">=", 2.0),
    Target("self-play time grows linearly (4x games: time per action <= 1.25x of 1x)", r"scaling/selfplay/.*",
           r"4x.*", "s", "ratio", "<=", 1.25),
    Target("smoke self-play on local (2 processes) >= 1.6x inline", r"compute/smoke_selfplay",
           r"local 2 processes vs inline", "speedup x", "median", ">=", 1.6),
    Target("one jbag run on local (2 processes) >= 1.6x inline, smoke and demo", r"jbag_run/(smoke|demo)",
           r"local \(2 processes\) vs inline", "speedup x", "median", ">=", 1.6),
)


def check(target: Target, rows: list[dict]) -> Verdict:
    """Whether every matching row meets the target; the worst matching row is kept for the report."""
    matched = [row for row in rows if target.matches(row) and row[target.field] is not None]
    if not matched:
        return Verdict(target, "not measured", None, 0)
    passes = COMPARE[target.op]
    # The worst row is the one closest to failing: the smallest value for >=, the largest for <=.
    worst = (min if target.op == ">=" else max)(matched, key=lambda row: row[target.field])
    status = "met" if all(passes(row[target.field], target.threshold) for row in matched) else "missed"
    return Verdict(target, status, worst, len(matched))


def check_all(rows: list[dict]) -> list[Verdict]:
    return [check(target, rows) for target in TARGETS]
