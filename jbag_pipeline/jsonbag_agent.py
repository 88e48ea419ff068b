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

import math
import random
from typing import Mapping, Sequence

import numpy as np
import polars as pl
from scipy.special import rel_entr

from engines.agents.osla import OSLAAgent, terminal_value
from engines.base import Action
from jbag_pipeline.sampling import FREQUENCIES
from jbag_pipeline.tokenize import TokenFilter
from jbag_pipeline.tokenize_restricted import RestrictedTokenizer
from jbag_pipeline.value import _OUTSIDE, JsonBagValue

FEATURE_VARIANTS = ("full", "interval", "random", "full_seg", "interval_seg", "random_seg", "adaptive", "none")
NO_SELECTION = "none"  # every token: the value is exact JSD over the prototypes' full vocabulary
_LN2 = math.log(2.0)
_PART_CACHE_LIMIT = 200_000
_DENSE_WIDTH = 1024  # up to this many features, V is computed over every feature column


class DeterminizedJsonBagValue(JsonBagValue):
    """JsonBagValue over `to_json()` of determinized states, with a frequency rule for the trajectory bag.

    Restricted to features, states are tokenized by a RestrictedTokenizer, which skips every subtree that
    can hold no feature and reuses the counts of unchanged parts. values_batch values many candidates in
    one numpy pass (JSD to all prototypes at once, over every feature when there are at most _DENSE_WIDTH,
    else over the columns the batch uses). reset(seed) re-seeds the determinization and sampling RNGs.
    """

    def __init__(self, prototypes_by_seat, features=None, *, frequency: str = "full", seed: int = 0,
                 token_filter: TokenFilter | None = None):
        if frequency not in FREQUENCIES:
            raise ValueError(f"DeterminizedJsonBagValue: frequency must be one of {FREQUENCIES}, got {frequency!r}")
        self.frequency, self.seed, self._game_seed = frequency, int(seed), None
        super().__init__(prototypes_by_seat, features, mode="both", num_suffix=True, token_filter=token_filter)
        self._columns_of_part: dict[int, tuple] = {}
        self._tokenizer = RestrictedTokenizer(self.features if self.restricted else None, mode="both", num_suffix=True)
        totals = self.prototypes.sum(axis=1)
        self._empty = totals == 0
        self._shares = self.prototypes / np.where(self._empty, 1.0, totals)[:, None]
        self._share_totals = np.where(self._empty, 0.0, 1.0)
        self._dense_rest = self._share_totals - self._shares.sum(axis=1)
        self._any_empty = bool(self._empty.any())

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

    def value(self, state, seat: int) -> float:
        """V_seat of the trajectory bag plus the tokens of `state` (a determinized state)."""
        return float(self.values_batch([state], seat)[0])

    def values_batch(self, states: Sequence, seat: int) -> np.ndarray:
        """V_seat of the trajectory bag plus each state's tokens, for many candidate states at once."""
        self._check_seat(seat)
        parts_of_states = self._tokenizer.tokenize_parts([state.to_json() for state in states])
        if len(self.features) <= _DENSE_WIDTH:
            return self._dense_values(parts_of_states)[:, seat]
        rows, columns, counts = [], [], []
        outside = np.full(len(states), self.trajectory_outside)
        for row, parts in enumerate(parts_of_states):
            for bag in parts:  # np.add.at sums a token that several parts hold
                _, bag_columns, bag_counts, bag_outside = self._part_columns(bag)
                columns.extend(bag_columns)
                counts.extend(bag_counts)
                rows.extend([row] * len(bag_columns))
                outside[row] += bag_outside
        return self._values_matrix(self.trajectory, rows, columns, counts, outside)[:, seat]

    def _dense_values(self, parts_of_states: list[list[dict]]) -> np.ndarray:
        """(n, seats) V of the trajectory plus each state's parts, the count rows built as Python lists (for a
        few hundred features this is cheaper than handing numpy (row, column, count) lists)."""
        base, rows, outside = self.trajectory.tolist(), [], []
        for parts in parts_of_states:
            row, mass = base[:], self.trajectory_outside
            for bag in parts:
                _, columns, counts, bag_outside = self._part_columns(bag)
                for column, count in zip(columns, counts):
                    row[column] += count
                mass += bag_outside
            rows.append(row)
            outside.append(mass)
        return self._values_of_counts(np.array(rows), np.array(outside), self._shares, self._dense_rest)

    def values_of(self, counts: np.ndarray, outside_mass: float = 0.0) -> np.ndarray:
        """V of every seat for one count vector over `features` (plus outside mass when unrestricted)."""
        counts = np.asarray(counts, dtype=float)
        if counts.shape != (len(self.features),) or not np.all(np.isfinite(counts)) or np.any(counts < 0):
            raise ValueError(f"values_of: counts must be {len(self.features)} finite counts >= 0")
        return self._values_matrix(counts, [], [], [], np.array([float(outside_mass)]))[0]

    def values_of_bag(self, bag: Mapping[str, float]) -> list[float]:
        """V of every seat for a trajectory bag given as token -> count (filtered and unknown tokens as usual)."""
        counts = np.zeros(len(self.features))
        outside = self._add(bag, counts)
        return self.values_of(counts, outside).tolist()

    def _tokens(self, state, seat: int) -> dict[str, int]:
        """Tokens of a state that is already a determinization from `seat`'s view (never the real hidden state)."""
        return self._tokenizer.tokenize(state.to_json())

    def _part_columns(self, bag: dict[str, int]) -> tuple[dict, list[int], list[int], float]:
        """(bag, its columns, their counts, its count outside the index), cached per part (the tokenizer
        hands out the same remembered dict for a repeated part; the entry holds it, so its id stays unique)."""
        entry = self._columns_of_part.get(id(bag))
        if entry is None or entry[0] is not bag:
            index, columns, counts, outside = self._columns, [], [], 0.0
            for token, count in bag.items():
                column = index.get(token)
                if column is None:
                    column = index[token] = self._column_code(token)
                if column >= 0:
                    columns.append(column)
                    counts.append(count)
                elif column == _OUTSIDE:
                    outside += count
            if len(self._columns_of_part) >= _PART_CACHE_LIMIT:
                self._columns_of_part.clear()
            entry = self._columns_of_part[id(bag)] = (bag, columns, counts, outside)
        return entry

    def _values_matrix(self, base: np.ndarray, rows: list, columns: list, counts: list,
                       outside: np.ndarray) -> np.ndarray:
        """(n, seats) V of n bags: `base` counts plus the (row, column, count) entries, outside masses (n,)."""
        n = outside.shape[0]
        if len(self.features) <= _DENSE_WIDTH:  # few features: every column
            x = np.tile(base, (n, 1))
            if counts:
                np.add.at(x, (np.asarray(rows), np.asarray(columns)), counts)
            return self._values_of_counts(x, outside, self._shares, self._dense_rest)
        used = np.union1d(np.flatnonzero(base), np.asarray(columns, dtype=np.int64))  # the columns in use only
        x = np.tile(base[used], (n, 1))
        if counts:
            np.add.at(x, (np.asarray(rows), np.searchsorted(used, columns)), counts)
        prototypes = self._shares[:, used]
        return self._values_of_counts(x, outside, prototypes, self._share_totals - prototypes.sum(axis=1))

    def _values_of_counts(self, x: np.ndarray, outside: np.ndarray, prototypes: np.ndarray,
                          prototype_rest: np.ndarray) -> np.ndarray:
        """(n, seats) V of n count rows `x` over the columns of `prototypes` (seat shares on those columns;
        prototype_rest: each seat's share elsewhere), with the rows' counts elsewhere in `outside`."""
        totals = x.sum(axis=1) + outside
        live = totals > 0
        all_live = live.all()
        if not all_live:
            totals = np.where(live, totals, 1.0)
        shares = x / totals[:, None]
        middle = 0.5 * (shares[:, None, :] + prototypes[None, :, :])
        nats = (rel_entr(shares[:, None, :], middle) + rel_entr(prototypes[None], middle)).sum(axis=2)
        rest = (outside / totals)[:, None] + prototype_rest[None, :]
        distances = np.sqrt(np.clip(0.5 * (nats / _LN2 + rest), 0.0, 1.0))
        if self._any_empty:
            distances[:, self._empty] = 1.0
        if not all_live:
            distances[~live] = np.where(self._empty, 0.0, 1.0)  # an empty bag: 0 to empty prototypes, 1 to others
        closeness = 1.0 - distances
        sums = closeness.sum(axis=1, keepdims=True)
        if (sums > 0).all():
            return closeness / sums
        return np.where(sums > 0, closeness / np.where(sums > 0, sums, 1.0), 1.0 / self.n_seats)


class JsonBagOSLAAgent(OSLAAgent):
    """OSLAAgent's decision rule with a DeterminizedJsonBagValue, valuing all children in one batch.

    Wins are +inf, losses -inf, other children V_seat; ties go to the agent's seeded RNG, as in OSLAAgent.
    Every new game re-seeds the value's RNGs from the agent's seed.
    """

    def __init__(self, value: DeterminizedJsonBagValue, seed: int = 0):
        if not isinstance(value, DeterminizedJsonBagValue):
            raise ValueError(f"JsonBagOSLAAgent: value must be a DeterminizedJsonBagValue, got {type(value).__name__}")
        super().__init__(value=value, seed=seed)
        self.name = f"jsonbag_osla({value.frequency})"

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.value_function.reset(seed)

    def child_values(self, legal: list[Action], children: list, seat: int) -> list[float]:
        """As OSLAAgent, but the children that are not won or lost are valued in one batch."""
        values = [terminal_value(child, seat) for child in children]
        if math.inf in values:  # a win is taken whatever the other children are worth
            return [-math.inf if value is None else value for value in values]
        open_positions = [position for position, value in enumerate(values) if value is None]
        if open_positions:
            batch = self.value_function.values_batch([children[p] for p in open_positions], seat)
            if np.isnan(batch).any():
                raise ValueError(f"jsonbag_osla: the value function returned NaN for seat {seat}")
            for position, value in zip(open_positions, batch.tolist()):
                values[position] = value
        return values


def _one_game(frame: pl.DataFrame, name: str) -> str | None:
    """The one game a table holds (None if it has no game column or no rows)."""
    if "game" not in frame.columns:
        return None
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
    return DeterminizedJsonBagValue(prototype_bags(prototypes, frequency, n_players),
                                    selected_tokens(features, variant), frequency=frequency, seed=seed,
                                    token_filter=token_filter)

