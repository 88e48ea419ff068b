"""The JSON-Bag OSLA of the evaluation: a JsonBagValue built from the lake tables for one (frequency, variant).

It tokenizes full state documents (`to_json()`), as the prototypes were built, but only of determinized
states: in begin_decision the real state is determinized from the seat's own view first, and in value()
the child already comes from OSLA's determinized sample, so hidden information is never read.
The agent's trajectory bag gets the state it observes at the start of each of its own turns, by the pair's
frequency rule: full and interval add every such state (interval keeps one state per n_players global
turns, and the agent's own turns are exactly one per cycle of n_players turns, so it equals full here);
random adds each with probability 1/n_players from the agent's seeded RNG.
"""

from __future__ import annotations

import random
from typing import Mapping

import numpy as np
import polars as pl

from engines.agents.osla import OSLAAgent
from jbag_pipeline.sampling import FREQUENCIES
from jbag_pipeline.tokenize import TokenFilter, token_path_prefixes, tokenize_state, tokenize_state_restricted
from jbag_pipeline.value import JsonBagValue, value_from_distances

FEATURE_VARIANTS = ("full", "interval", "random", "full_seg", "interval_seg", "random_seg", "adaptive", "none")
NO_SELECTION = "none"  # every token: the value is exact JSD over the prototypes' full vocabulary


class DeterminizedJsonBagValue(JsonBagValue):
    """JsonBagValue over `to_json()` of determinized states, with a frequency rule for the trajectory bag.

    Restricted to features, states are tokenized by tokenize_state_restricted, which skips every subtree
    that can hold no feature. reset(seed) re-seeds the determinization and sampling RNGs (deterministic
    from the constructor seed and the game's agent seed).
    """

    def __init__(self, prototypes_by_seat, features=None, *, frequency: str = "full", seed: int = 0,
                 token_filter: TokenFilter | None = None):
        if frequency not in FREQUENCIES:
            raise ValueError(f"DeterminizedJsonBagValue: frequency must be one of {FREQUENCIES}, got {frequency!r}")
        self.frequency, self.seed, self._game_seed = frequency, int(seed), None
        super().__init__(prototypes_by_seat, features, mode="both", num_suffix=True, token_filter=token_filter)
        self._prefixes = token_path_prefixes(self.features) if self.restricted else None
        totals = self.prototypes.sum(axis=1)
        self._empty = totals == 0
        self._shares = self.prototypes / np.where(self._empty, 1.0, totals)[:, None]
        self._share_totals = np.where(self._empty, 0.0, 1.0)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (empty trajectory); `seed` (the agent's seed for this game) re-seeds the RNGs."""
        super().reset()
        if seed is not None:
            self._game_seed = int(seed)
        self._determinize_rng = random.Random(f"jsonbag-determinize:{self.seed}:{self._game_seed}")
        self._sample_rng = random.Random(f"jsonbag-sample:{self.seed}:{self._game_seed}")

    def begin_decision(self, state, seat: int) -> None:
        """Add a determinization of the real state to the trajectory bag, once per own turn, by the frequency rule."""
        self._check_seat(seat)
        turn = state.turn_counter
        if turn == self._last_turn:
            return
        self._last_turn = turn
        if self.frequency == "random" and self._sample_rng.random() >= 1.0 / state.n_players:
            return
        view = state.determinize(seat, self._determinize_rng)
        self.trajectory_outside += self._add(self._tokens(view, seat), self.trajectory)

    def values_of(self, counts: np.ndarray, outside_mass: float = 0.0) -> np.ndarray:
        """V of every seat for a count vector over `features`: bags.jsd_to_prototypes's JSD, over cached shares."""
        total = counts.sum() + outside_mass
        if total == 0:
            return value_from_distances(np.where(self._empty, 0.0, 1.0))
        columns = np.flatnonzero(counts)
        x = counts[columns] / total
        p = self._shares[:, columns]
        both = x + p
        with np.errstate(divide="ignore", invalid="ignore"):
            x_terms = (x * np.log2(2 * x / both)).sum(axis=1)
            p_terms = np.where(p > 0, p * np.log2(2 * p / both), 0.0).sum(axis=1)
        p_rest = self._share_totals - p.sum(axis=1)  # prototype mass on tokens the bag lacks
        divergence = 0.5 * (x_terms + outside_mass / total + p_terms + p_rest)
        distances = np.sqrt(np.clip(divergence, 0.0, 1.0))
        distances[self._empty] = 1.0
        return value_from_distances(distances)

    def values_of_bag(self, bag: Mapping[str, float]) -> list[float]:
        """V of every seat for a trajectory bag given as token -> count (tokens outside the index as usual)."""
        counts = np.zeros(len(self.features))
        outside = self._add(bag, counts)
        return self.values_of(counts, outside).tolist()

    def _tokens(self, state, seat: int) -> dict[str, int]:
        """Tokens of a state that is already a determinization from `seat`'s view (never the real hidden state)."""
        doc = state.to_json()
        if self._prefixes is None:
            return tokenize_state(doc, mode="both", num_suffix=True)
        return tokenize_state_restricted(doc, self._prefixes, mode="both", num_suffix=True)


class JsonBagOSLAAgent(OSLAAgent):
    """OSLA with a DeterminizedJsonBagValue; every new game re-seeds the value's RNGs from the agent's seed."""

    def __init__(self, value: DeterminizedJsonBagValue, seed: int = 0):
        if not isinstance(value, DeterminizedJsonBagValue):
            raise ValueError(f"JsonBagOSLAAgent: value must be a DeterminizedJsonBagValue, got {type(value).__name__}")
        super().__init__(value=value, seed=seed)
        self.name = f"jsonbag_osla({value.frequency})"

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.value_function.reset(seed)


def _one_game(frame: pl.DataFrame, name: str) -> str | None:
    games = frame["game"].unique().to_list()
    if len(games) > 1:
        raise ValueError(f"make_jsonbag_value: {name} must hold one game, got {sorted(games)}")
    return games[0] if games else None


def prototype_bags(prototypes: pl.DataFrame, frequency: str, n_players: int) -> list[dict[str, float]]:
    """Per seat 0..n_players-1, the token counts of its winner prototype at `frequency` (empty if it never won)."""
    missing = [c for c in ("frequency", "seat", "token", "count") if c not in prototypes.columns]
    if missing:
        raise ValueError(f"winner_prototypes lacks columns {missing} (has {prototypes.columns})")
    rows = prototypes.filter(pl.col("frequency") == frequency)
    if rows.is_empty():
        raise ValueError(f"winner_prototypes has no rows for frequency {frequency!r}")
    bags: list[dict[str, float]] = [{} for _ in range(n_players)]
    for seat, token, count in rows.select("seat", "token", "count").iter_rows():
        if not 0 <= seat < n_players:
            raise ValueError(f"winner_prototypes: seat {seat} outside 0..{n_players - 1} (frequency {frequency!r})")
        bags[seat][token] = bags[seat].get(token, 0) + count
    return bags


def selected_tokens(features: pl.DataFrame, variant: str) -> list[str] | None:
    """The variant's tokens by rank (None for `none`: every token); a variant may keep no token at all."""
    if variant not in FEATURE_VARIANTS:
        raise ValueError(f"unknown feature variant {variant!r}; expected one of {list(FEATURE_VARIANTS)}")
    if variant == NO_SELECTION:
        return None
    missing = [c for c in ("variant", "token", "rank") if c not in features.columns]
    if missing:
        raise ValueError(f"selected_features lacks columns {missing} (has {features.columns})")
    rows = features.filter(pl.col("variant") == variant).sort("rank", "token")
    return rows["token"].to_list()


def make_jsonbag_value(prototypes: pl.DataFrame, features: pl.DataFrame, frequency: str, variant: str,
                       n_players: int, seed: int, token_filter: TokenFilter | None = None) -> DeterminizedJsonBagValue:
    """The JSON-Bag value for one game's winner_prototypes at `frequency` and its selected_features `variant`."""
    if n_players < 2:
        raise ValueError(f"make_jsonbag_value: n_players must be >= 2, got {n_players}")
    games = {_one_game(prototypes, "winner_prototypes"), _one_game(features, "selected_features")} - {None}
    if len(games) > 1:
        raise ValueError(f"make_jsonbag_value: winner_prototypes and selected_features are of different games "
                         f"{sorted(games)}")
    return DeterminizedJsonBagValue(prototype_bags(prototypes, frequency, n_players), selected_tokens(features, variant),
                                    frequency=frequency, seed=seed, token_filter=token_filter)

