"""Run presets: one name fixes the scale of a whole run (DESIGN.md section 6).

smoke: CI, seconds per game. demo: the default main job, every game in minutes on a 2-core laptop.
paper: the paper's counts (1000 self-play games per game, 1000 evaluation games per seat and variant).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from engines import GAMES
from jbag_pipeline.analysis.ablation import check_factors
from jbag_pipeline.analysis.leakage import (COMMON_OUTCOME_FIELDS, DEFAULT_TOKEN_BLACKLIST,
                                            LEAKING_TURN_ORDER_FIELDS, OUTCOME_FIELDS, TAG_TURN_ORDER_FIELDS)
from jbag_pipeline.model.tokenize import TokenFilter

PRESET_NAMES = ("smoke", "demo", "paper")
SELFPLAY_AGENTS = ("mcts", "openspiel_mcts")  # our Python MCTS; OpenSpiel's C++ MCTS (connect4, dots_and_boxes,
# tictactoe; needs the openspiel extra)


@dataclass(frozen=True)
class GameRun:
    """How one game is played for self-play and evaluation."""

    params: dict = field(default_factory=dict)
    selfplay_games: int = 10
    mcts_iterations: int = 50
    rollout_length: int = 100
    eval_games_per_seat: int = 1
    selfplay_agent: str = "mcts"  # one of SELFPLAY_AGENTS; evaluation games always use our own agents
    openspiel_simulations: int = 1000  # openspiel_mcts: MCTS simulations per decision (MCTSBot max_simulations)
    openspiel_rollouts: int = 1  # openspiel_mcts: random rollouts per leaf (RandomRolloutEvaluator n_rollouts)

    def __post_init__(self):
        if self.selfplay_agent not in SELFPLAY_AGENTS:
            raise ValueError(f"GameRun: selfplay_agent must be one of {list(SELFPLAY_AGENTS)}, got {self.selfplay_agent!r}")
        for name in ("openspiel_simulations", "openspiel_rollouts"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"GameRun: {name} must be an int >= 1, got {value!r}")


@dataclass(frozen=True)
class TransferSettings:
    """Scale and knobs of one transfer experiment (small MCTS budgets by default)."""

    source_games: int = 40
    target_games: int = 200  # target self-play games (more if a finetune N is larger): target_trained uses all
    finetune_games: tuple[int, ...] = (0, 10, 50, 200)
    source_weight_games: float | None = None  # M of source_weight; None: the number of source games
    mcts_iterations: int = 20
    rollout_length: int = 50
    frequency: str = "full"
    variant: str = "full"
    games_per_seat: int = 4
    seed: int = 0
    max_distance: float = 0.5
    top_k: int = 100
    rf_trees: int = 50
    blacklist: tuple[str, ...] = field(default=DEFAULT_TOKEN_BLACKLIST)

    def __post_init__(self):
        for name in ("source_games", "target_games", "mcts_iterations", "rollout_length", "games_per_seat",
                     "top_k", "rf_trees"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"TransferSettings: {name} must be an int >= 1, got {value!r}")
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in self.finetune_games):
            raise ValueError(f"TransferSettings: finetune_games must be ints >= 0, got {self.finetune_games!r}")
        if self.source_weight_games is not None and self.source_weight_games < 0:
            raise ValueError(f"TransferSettings: source_weight_games must be >= 0, got {self.source_weight_games}")


@dataclass(frozen=True)
class Preset:
    name: str
    seed: int
    games: dict[str, GameRun]
    test_share: float = 0.3  # held-out share of self-play games for winner classification
    rf_trees: int = 100
    top_k: int = 100
    segments: int = 4
    adaptive_share: float = 0.9
    # per game, the fields every token table, prototype and agent drops (jbag_pipeline.analysis.leakage documents them):
    # the outcome fields, and the turn-order fields that leak the winner
    outcome_fields: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(OUTCOME_FIELDS))
    turn_order_fields: dict[str, tuple[str, ...]] = field(default_factory=lambda: {
        game: tuple(fields) for game, fields in LEAKING_TURN_ORDER_FIELDS.items()})
    duckdb_memory_limit: str = "4GB"
    evaluation_pairs: tuple[str, ...] | None = None  # "frequency-variant" keys `jbag run` evaluates; None = all
    # (the headline pair full-full is always among them: the counters-kept row and the verdicts build on it)
    # learning_curve: the pairs rebuilt from the first share of the self-play games at each share (the last is the
    # evaluation itself); pairs None = the evaluated pairs without the counters-kept sensitivity pair
    learning_curve_shares: tuple[float, ...] = (0.125, 0.25, 0.5, 1.0)
    learning_curve_pairs: tuple[str, ...] | None = None
    transfer: dict = field(default_factory=dict)  # overrides of TransferSettings
    ablation_top_k: int = 500  # value_function_ablation's other k (the authors' lists have 500 features)
    ablation_factors: tuple[str, ...] | None = None  # the factors value_function_ablation varies; None = all

    def __post_init__(self):
        if isinstance(self.ablation_top_k, bool) or not isinstance(self.ablation_top_k, int) or self.ablation_top_k < 1:
            raise ValueError(f"Preset {self.name!r}: ablation_top_k must be an int >= 1, got {self.ablation_top_k!r}")
        check_factors(self.ablation_factors, f"Preset {self.name!r}")
        shares = self.learning_curve_shares
        if (not isinstance(shares, tuple) or not shares
                or any(isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 < s <= 1 for s in shares)
                or list(shares) != sorted(set(shares)) or shares[-1] != 1.0):
            raise ValueError(f"Preset {self.name!r}: learning_curve_shares must be increasing shares in (0, 1] ending "
                             f"with 1.0, got {shares!r}")
        pairs = self.learning_curve_pairs
        if pairs is not None and (not isinstance(pairs, tuple) or not pairs
                                  or not all(isinstance(p, str) for p in pairs)):
            raise ValueError(f"Preset {self.name!r}: learning_curve_pairs must be a non-empty tuple of "
                             f"'frequency-variant' pairs or None, got {pairs!r}")

    def blacklist_for(self, game: str, keep_counters: bool = False) -> tuple[str, ...]:
        """The fields dropped from `game`'s tokens: its outcome fields, and its leaking turn-order fields unless
        keep_counters (the sensitivity run keeps every turn-order field); games without an entry get TAG's common
        fields."""
        outcome = self.outcome_fields.get(game, COMMON_OUTCOME_FIELDS)
        counters = () if keep_counters else self.turn_order_fields.get(game, TAG_TURN_ORDER_FIELDS)
        return tuple(dict.fromkeys((*outcome, *counters)))

    def transfer_settings(self, game: str) -> TransferSettings:
        """The transfer experiment's scale in this preset for variants of `game`, seeded by the run seed."""
        return TransferSettings(**{"seed": self.seed, "top_k": self.top_k, "rf_trees": self.rf_trees,
                                   "blacklist": self.blacklist_for(game), **self.transfer})


# Simulations per decision of the OpenSpiel self-play agent. paper: about the paper's 128 ms per decision, at what
# the C++ bot does on this 2-core machine from the opening (connect4 8x8 ~100,000/s, dots_and_boxes 5x7 ~20,000/s);
# demo: about 10 ms per decision. Tic-tac-toe keeps our Python MCTS: a strong MCTS wins it only from seat 0 or
# draws (300 simulations: 111 seat-0 wins, 0 seat-1 wins, 89 draws in 200 demo games), and the segmented feature
# selection needs wins by two seats; its exact values (tictactoe_values) are the strong reference anyway.
OPENSPIEL_SIMULATIONS = {
    "demo": {"connect4": 1000, "dots_and_boxes": 200},
    "paper": {"connect4": 12_000, "dots_and_boxes": 2_500},
}


def _openspiel(preset: str, game: str) -> dict:
    """The GameRun fields that make `game` self-play with OpenSpiel's MCTS at `preset`'s strength."""
    return {"selfplay_agent": "openspiel_mcts", "openspiel_simulations": OPENSPIEL_SIMULATIONS[preset][game]}


def _runs(selfplay: int, iterations: int, rollout: int, eval_games: int, **overrides: GameRun) -> dict[str, GameRun]:
    base = GameRun(selfplay_games=selfplay, mcts_iterations=iterations, rollout_length=rollout, eval_games_per_seat=eval_games)
    names = ("connect4", "tictactoe", "dots_and_boxes", "cant_stop", "sea_salt_paper", "dominion", "seven_wonders")
    return {name: overrides.get(name, base) for name in names}


PRESETS: dict[str, Preset] = {
    "smoke": Preset(
        name="smoke", seed=0, rf_trees=20, top_k=20, ablation_top_k=40,
        games=_runs(selfplay=8, iterations=10, rollout=20, eval_games=1),
        evaluation_pairs=("full-none", "full-full", "full-full_counters_kept"), learning_curve_shares=(0.5, 1.0),
        transfer={"source_games": 6, "target_games": 6, "finetune_games": (0, 3, 6), "mcts_iterations": 5,
                  "rollout_length": 10, "games_per_seat": 1},
    ),
    "demo": Preset(  # 2-seat games: 50 evaluation games per seat, 4-seat games 25: 100 per pair, so a win rate's
        # 95% Wilson interval is at most +-0.10 wide
        name="demo", seed=0,
        games={
            # connect4, dots_and_boxes: OpenSpiel's C++ MCTS (see OPENSPIEL_SIMULATIONS)
            "connect4": GameRun(selfplay_games=100, mcts_iterations=100, rollout_length=50, eval_games_per_seat=50,
                                **_openspiel("demo", "connect4")),
            "tictactoe": GameRun(selfplay_games=200, mcts_iterations=100, rollout_length=20, eval_games_per_seat=50),
            "dots_and_boxes": GameRun(selfplay_games=60, mcts_iterations=30, rollout_length=20, eval_games_per_seat=50,
                                      **_openspiel("demo", "dots_and_boxes")),
            "cant_stop": GameRun(selfplay_games=40, mcts_iterations=20, rollout_length=10, eval_games_per_seat=25),
            "sea_salt_paper": GameRun(selfplay_games=40, mcts_iterations=15, rollout_length=10, eval_games_per_seat=25),
            "dominion": GameRun(selfplay_games=40, mcts_iterations=15, rollout_length=10, eval_games_per_seat=25),
            "seven_wonders": GameRun(selfplay_games=40, mcts_iterations=15, rollout_length=10, eval_games_per_seat=25),
        },
        evaluation_pairs=("full-none", "full-full", "full-full_seg", "full-full_counters_kept"),
        transfer={"source_games": 40, "target_games": 200, "mcts_iterations": 10, "rollout_length": 20,
                  "games_per_seat": 50},  # 100 games per method: a win rate within +-0.10
    ),
    "paper": Preset(
        name="paper", seed=0,
        games=_runs(selfplay=1000, iterations=1000, rollout=100, eval_games=1000, **{
            game: GameRun(selfplay_games=1000, mcts_iterations=1000, rollout_length=100, eval_games_per_seat=1000,
                          **_openspiel("paper", game)) for game in OPENSPIEL_SIMULATIONS["paper"]}),
    ),
}


def get_preset(name: str | None = None, seed: int | None = None) -> Preset:
    """The preset `name` (else JBAG_PRESET, else demo), optionally with another seed."""
    name = name or os.environ.get("JBAG_PRESET") or "demo"
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {list(PRESET_NAMES)}")
    preset = PRESETS[name]
    return preset if seed is None else replace(preset, seed=seed)


def with_turn_order_fields(preset: Preset, overrides: dict[str, list[str]] | None) -> Preset:
    """`preset` with the turn-order fields of some games replaced (the run config's token_blacklist), validated."""
    if not overrides:
        return preset
    if not isinstance(overrides, dict):
        raise ValueError(f"token_blacklist must map game names to lists of field names, got {overrides!r}")
    fields = dict(preset.turn_order_fields)
    for game, names in overrides.items():
        if game not in GAMES:
            raise ValueError(f"token_blacklist: unknown game {game!r}; known games: {sorted(GAMES)}")
        if isinstance(names, str) or not all(isinstance(n, str) and n.strip() for n in names):
            raise ValueError(f"token_blacklist[{game!r}]: every entry must be a non-empty field name, got {names!r}")
        fields[game] = tuple(names)
    return replace(preset, turn_order_fields=fields)


def token_filter_for(preset: Preset, game: str, keep_counters: bool = False) -> TokenFilter:
    """The agent's token filter for `game`: the same fields as the game's token tables drop."""
    return TokenFilter(preset.blacklist_for(game, keep_counters))


def game_run(preset: Preset, game: str) -> GameRun:
    """The settings of `game` in `preset`; games registered later get the preset's connect4 scale."""
    return preset.games.get(game, preset.games["connect4"])
