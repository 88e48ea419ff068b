"""The JSON-Bag OSLA of the evaluation: a JsonBagValue built from the lake tables for one (frequency, variant).

It tokenizes full state documents (`to_json()`), as the prototypes were built, but only of determinized
states: begin_decision gets OSLA's determinized sample of the decision (drawn from the seat's own view) and
every child comes from that sample, so hidden information is never read.
The agent's trajectory bag gets the state it observes at every one of its decisions, as the authors' agent
does, whatever the pair's frequency: the frequency only names the prototypes (how the training trajectories
were sampled into bags), not the agent's own bag.
"""

from __future__ import annotations

import math
from typing import Mapping, NamedTuple, Sequence

import numpy as np
import orjson
import polars as pl
from scipy.special import xlogy

from engines.agents.osla import OSLAAgent, terminal_value
from engines.base import Action
from jbag_pipeline.storage.sampling import FREQUENCIES
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.model.tokenize_delta import TokenDelta
from jbag_pipeline.model.tokenize_restricted import token_paths
from jbag_pipeline.model.value import _OUTSIDE, JsonBagValue

FEATURE_VARIANTS = ("full", "interval", "random", "full_seg", "interval_seg", "random_seg", "adaptive", "none")
NO_SELECTION = "none"  # every token: the value is exact JSD over the prototypes' full vocabulary
_LN2 = math.log(2.0)
_TINY = 1e-300  # added to pooled shares so that 0 ln 0 comes out 0; below an ulp of any real share
_CHANGE_CACHE_LIMIT = 200_000  # changes remembered before starting afresh
_DENSE_WIDTH = 1024  # up to this many features, V is computed over every feature column


class DeterminizedJsonBagValue(JsonBagValue):
    """JsonBagValue over `to_json()` of determinized states; every decision's sample joins the trajectory bag.

    Every document is counted as the one before it plus its changes (tokenize_delta: only differing values
    are walked, and none under which no feature lies): each decision's sample against the last sample, each
    child against its decision's sample. values_batch values many candidates in one numpy pass (JSD to all
    prototypes at once, over every feature when there are at most _DENSE_WIDTH, else over the columns the
    batch uses). `frequency` names the prototypes only: the trajectory bag takes every decision's state.
    """

    def __init__(self, prototypes_by_seat, features=None, *, frequency: str = "full",
                 token_filter: TokenFilter | None = None):
        if frequency not in FREQUENCIES:
            raise ValueError(f"DeterminizedJsonBagValue: frequency must be one of {FREQUENCIES}, got {frequency!r}")
        self.frequency = frequency
        super().__init__(prototypes_by_seat, features, mode="both", num_suffix=True, token_filter=token_filter)
        self._dense = len(self.features) <= _DENSE_WIDTH
        self._delta = TokenDelta(token_paths(self.features) if self.restricted else None)
        self._change_cache: dict[tuple, tuple[list, list, int]] = {}  # see _change_columns
        totals = self.prototypes.sum(axis=1)
        self._empty = totals == 0
        self._shares = self.prototypes / np.where(self._empty, 1.0, totals)[:, None]
        self._share_totals = np.where(self._empty, 0.0, 1.0)
        self._terms = _prototype_terms(self._shares, self._share_totals)  # over every feature column
        self._any_empty = bool(self._empty.any())

    def reset(self) -> None:
        """Start a new game: an empty trajectory."""
        super().reset()
        self._trajectory_mass = 0  # the trajectory's count in and outside the index
        self._reference: dict | list = {}  # the last decision's sample (its document); at first the empty document
        self._reference_counts, self._reference_mass = np.zeros(len(self.features)), 0
        self._base, self._base_mass = np.zeros(len(self.features)), 0  # trajectory plus reference: what children add to

    def begin_decision(self, state, seat: int) -> None:
        """`state` is OSLA's determinized sample of this decision (never the real hidden state): it joins the
        trajectory bag and becomes the reference the children are counted against."""
        self._check_seat(seat)
        doc, columns, counts = state.to_json(), [], []
        mass = self._reference_mass + self._change_columns(self._reference, doc, columns, counts)
        reference_counts = self._reference_counts  # never changed in place: a new array when it changes
        if columns:
            reference_counts = reference_counts + np.bincount(columns, counts, len(self.features))
        self._reference, self._reference_counts, self._reference_mass = doc, reference_counts, mass
        self.trajectory = self.trajectory + reference_counts
        self.trajectory_outside += mass - reference_counts.sum()
        self._trajectory_mass += mass
        self._base, self._base_mass = self.trajectory + reference_counts, self._trajectory_mass + mass

    def value(self, state, seat: int) -> float:
        """V_seat of the trajectory bag plus the tokens of `state` (a determinized state)."""
        return float(self.values_batch([state], seat)[0])

    def values_batch(self, states: Sequence, seat: int) -> np.ndarray:
        """V_seat of the trajectory bag plus each state's tokens, for many candidate states at once: a state is
        counted as the reference plus its changes from it, and all states by one np.bincount."""
        self._check_seat(seat)
        reference, base_mass = self._reference, self._base_mass
        columns, counts, lengths, totals = [], [], [], []
        for state in states:
            size = len(columns)
            totals.append(base_mass + self._change_columns(reference, state.to_json(), columns, counts))
            lengths.append(len(columns) - size)
        n, base = len(states), self._base
        if self._dense:
            width, places, terms = len(base), np.asarray(columns, dtype=np.int64), self._terms
        else:  # over the columns in use only
            used = np.union1d(np.flatnonzero(base), np.asarray(columns, dtype=np.int64))
            width, places, base, terms = len(used), np.searchsorted(used, columns), base[used], self._terms_over(used)
        if not columns:
            return self._values_of_counts(np.tile(base, (n, 1)), totals, terms)[:, seat]
        places += np.repeat(np.arange(0, n * width, width), lengths)
        x = np.bincount(places, counts, n * width).reshape(n, width)
        x += base
        return self._values_of_counts(x, totals, terms)[:, seat]

    def _change_columns(self, old: dict | list, new: dict | list, columns: list, counts: list) -> int:
        """Extend columns and counts by the signed column counts of the changes from `old` to `new`; returns
        their change in whole mass (inside and outside the index). Each change's counts are cached: in one game
        the same values change at the same places again and again (keys: see _hashable)."""
        cache, mass = self._change_cache, 0
        for change in self._delta.changes(old, new):
            before, after, paths = change
            if type(before) in _CONTAINERS or type(after) in _CONTAINERS:
                change = (_hashable(before), _hashable(after), paths)
            entry = cache.get(change)
            if entry is None:
                entry = self._cache_change(change, before, after, paths)
            columns += entry[0]
            counts += entry[1]
            mass += entry[2]
        return mass

    def _cache_change(self, key: tuple, before, after, paths: tuple[str, ...]) -> tuple[list, list, int]:
        """(columns, signed counts, mass change) of one change, remembered under `key`."""
        if len(self._change_cache) >= _CHANGE_CACHE_LIMIT:
            self._change_cache.clear()
        columns, counts, mass = [], [], 0
        for token, times in self._delta.tokens_of_change(before, after, paths).items():
            column = self._column(token)
            if column >= 0:
                columns.append(column)
                counts.append(times)
                mass += times
            elif column == _OUTSIDE:
                mass += times
        entry = self._change_cache[key] = (columns, counts, mass)
        return entry

    def values_of(self, counts: np.ndarray, outside_mass: float = 0.0) -> np.ndarray:
        """V of every seat for one count vector over `features` (plus outside mass when unrestricted)."""
        counts = np.asarray(counts, dtype=float)
        if counts.shape != (len(self.features),) or not np.all(np.isfinite(counts)) or np.any(counts < 0):
            raise ValueError(f"values_of: counts must be {len(self.features)} finite counts >= 0")
        totals = [counts.sum() + float(outside_mass)]
        if self._dense:
            return self._values_of_counts(counts[None, :], totals, self._terms)[0]
        used = np.flatnonzero(counts)
        return self._values_of_counts(counts[None, used], totals, self._terms_over(used))[0]

    def values_of_bag(self, bag: Mapping[str, float]) -> list[float]:
        """V of every seat for a trajectory bag given as token -> count (filtered and unknown tokens as usual)."""
        counts = np.zeros(len(self.features))
        outside = self._add(bag, counts)
        return self.values_of(counts, outside).tolist()

    def _terms_over(self, used: np.ndarray) -> _PrototypeTerms:
        """The prototypes' terms over the columns `used` (every feature's are self._terms)."""
        return _prototype_terms(self._shares[:, used], self._share_totals)

    def _values_of_counts(self, x: np.ndarray, totals: list[float], terms: _PrototypeTerms) -> np.ndarray:
        """(n, seats) V of n count rows `x` over the columns of `terms`, whose whole masses (with counts outside
        those columns) are `totals`.

        JS in bits is (sum t ln t + sum p ln p - sum (t+p) ln(t+p)) / (2 ln 2) + 1 over the columns, the last
        because mass outside them (on one side only) adds 1/2 bit per unit as the mass inside does ln 2 nats
        (t and p each sum to 1 in all). So one logarithm per (row, seat, column), and per (row, column) for the
        all-zero seat of terms.pooling, does it. Few numpy calls: they dominate at this size."""
        dead = [row for row, total in enumerate(totals) if total <= 0]
        if dead:
            totals = [total if total > 0 else 1.0 for total in totals]
        pooled = (x / np.array(totals)[:, None])[:, None, :] + terms.pooling
        js = np.einsum("ijk,ijk->ij", pooled, np.log(pooled)) @ terms.mixing
        js += terms.constant
        distances = np.sqrt(np.minimum(np.maximum(js, 0.0), 1.0))
        if self._any_empty:
            distances[:, self._empty] = 1.0
        if dead:
            distances[dead] = np.where(self._empty, 0.0, 1.0)  # an empty bag: 0 to empty prototypes, 1 to others
        closeness = 1.0 - distances
        sums = closeness.sum(axis=1, keepdims=True)
        if sums.min() > 0:
            return closeness / sums
        return np.where(sums > 0, closeness / np.where(sums > 0, sums, 1.0), 1.0 / self.n_seats)


class _PrototypeTerms(NamedTuple):
    """What _values_of_counts needs of the prototypes over some columns."""

    pooling: np.ndarray  # (seats + 1, columns): each seat's shares, then zeros; all plus _TINY (log stays finite)
    mixing: np.ndarray  # (seats + 1, seats): sum (t+p) ln(t+p) per pooled seat -> their part of JS in bits
    constant: np.ndarray  # (seats,): sum p ln p / (2 ln 2) over the columns + 1 (an empty prototype: 1/2, unused)


def _prototype_terms(shares: np.ndarray, share_totals: np.ndarray) -> _PrototypeTerms:
    """The terms of prototypes given as seat shares over some columns (share_totals: each seat's total share)."""
    seats = shares.shape[0]
    pooling = np.vstack([shares, np.zeros((1, shares.shape[1]))]) + _TINY
    mixing = np.vstack([-np.eye(seats), np.ones((1, seats))]) * (0.5 / _LN2)  # (sum t ln t - sum (t+p) ln(t+p))
    return _PrototypeTerms(pooling, mixing, xlogy(shares, shares).sum(axis=1) * (0.5 / _LN2) + 0.5 * (1.0 + share_totals))


_CONTAINERS = (dict, list)


def _hashable(value):
    """A change's value as a cache key: atoms themselves (one engine keeps each place's JSON type), containers as
    their orjson bytes."""
    return orjson.dumps(value) if type(value) in _CONTAINERS else value


class JsonBagOSLAAgent(OSLAAgent):
    """OSLAAgent's decision rule with a DeterminizedJsonBagValue, valuing all children in one batch.

    Wins are +inf, losses -inf, other children V_seat; ties go to the agent's seeded RNG, as in OSLAAgent.
    Every new game (reset) empties the value's trajectory bag.
    """

    def __init__(self, value: DeterminizedJsonBagValue, seed: int = 0):
        if not isinstance(value, DeterminizedJsonBagValue):
            raise ValueError(f"JsonBagOSLAAgent: value must be a DeterminizedJsonBagValue, got {type(value).__name__}")
        super().__init__(value=value, seed=seed)
        self.name = f"jsonbag_osla({value.frequency})"

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
    require_columns(prototypes, "winner_prototypes", ("frequency", "seat", "token", "count"))
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
    require_columns(features, "selected_features", ("variant", "token", "rank"))
    rows = features.filter(pl.col("variant") == variant).sort("rank", "token")
    return rows["token"].to_list()


def make_jsonbag_value(prototypes: pl.DataFrame, features: pl.DataFrame, frequency: str, variant: str,
                       n_players: int, token_filter: TokenFilter | None = None) -> DeterminizedJsonBagValue:
    """The JSON-Bag value for one game's winner_prototypes at `frequency` and its selected_features `variant`."""
    if n_players < 2:
        raise ValueError(f"make_jsonbag_value: n_players must be >= 2, got {n_players}")
    games = {_one_game(prototypes, "winner_prototypes"), _one_game(features, "selected_features")} - {None}
    if len(games) > 1:
        raise ValueError(f"make_jsonbag_value: winner_prototypes and selected_features are of different games "
                         f"{sorted(games)}")
    return DeterminizedJsonBagValue(prototype_bags(prototypes, frequency, n_players),
                                    selected_tokens(features, variant), frequency=frequency,
                                    token_filter=token_filter)

