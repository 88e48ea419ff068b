"""The JSON-Bag value function: V_i from the JSD of a trajectory bag to every seat's winner prototype.

One formula, V_i = (1 - d_i) / sum_j (1 - d_j) (seat_values), for the value objects here and every caller.
JsonBagValue tokenizes the seat's observation of each state; DeterminizedJsonBagValue (the evaluation's
agent) counts determinized states' to_json() by their changes and values many candidates in one batch;
TagJsonBagValue is the authors' published agent over our states in TAG's dialect, IngestedTagValue the same kind
of agent with winner prototypes learnt from ingested TAG trajectories.
"""

from __future__ import annotations

import functools
import math
from array import array
from operator import getitem, itemgetter
from typing import Iterable, Mapping, Sequence

import numpy as np
import orjson
from scipy.special import xlogy

from engines.agents.value_function import ValueFunction
from jbag_pipeline.model.bags import (Bag, PrototypeTerms, js_by_terms, jsd_by_changes, jsd_by_terms,
                                      jsd_to_prototypes, normalise, prototype_terms, row_shares, terms_over)
from jbag_pipeline.model.json_parts import PartCounts, column_counts
from jbag_pipeline.model.jsd_compiled import END, MASS, advance_counts, compiled, seat_values_by_changes
from jbag_pipeline.model.tokenize import DEFAULT_BLACKLIST, MODES, TokenFilter, tokenize_state
from jbag_pipeline.model.tokenize_delta import MISSING, TokenDelta
from jbag_pipeline.model.tokenize_restricted import token_paths
from jbag_pipeline.model.variants import FREQUENCIES

_OUTSIDE = -1  # column code: a token no prototype holds (still part of the bag's mass when unrestricted)
_IGNORED = -2  # column code: a filtered token, or a token outside the selected features
_CHANGE_CACHE_LIMIT = 200_000  # changes remembered before starting afresh
_DENSE_WIDTH = 1024  # up to this many features, V is computed over every feature column
_SMALL_BATCH = 64  # up to this many (candidate, seat) distances, the last steps are taken in Python
_BY_CHANGES_MIN = 4096  # from this many (candidate, base column) cells on, the JSD may be taken by changes
# The compiled loop takes a scalar log per (distinct total, base column, prototype), about twice the cost of one of
# numpy's vectorised logs, of which the numpy batch takes one per (candidate, column, prototype + 1) plus a fixed cost
# of its dozen calls, worth about this many logs; the cheaper is taken (numpy wins at 7 Wonders unrestricted)
_NUMPY_CALLS_AS_LOGS = 16384


def seat_values(distances: np.ndarray) -> np.ndarray:
    """V_i = (1 - d_i) / sum_j (1 - d_j) over the last axis (seats), uniform 1/n where every distance is 1
    (no seat is closer). Unchecked, for batches of valid distances; value_from_distances checks its input."""
    closeness = 1.0 - distances
    sums = closeness.sum(axis=-1, keepdims=True)
    if sums.min() > 0:
        return closeness / sums
    return np.where(sums > 0, closeness / np.where(sums > 0, sums, 1.0), 1.0 / distances.shape[-1])


def value_from_distances(distances: Sequence[float] | np.ndarray) -> np.ndarray:
    """seat_values of one seat-distance vector, checked: non-empty, 1-D, every distance in [0, 1]."""
    d = np.asarray(distances, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"value_from_distances: need a non-empty 1-D array of distances, got shape {d.shape}")
    if not np.all((d >= 0) & (d <= 1)):
        raise ValueError(f"value_from_distances: distances must lie in [0, 1], got {d.tolist()}")
    return seat_values(d)


def _seat_bags(prototypes_by_seat: Sequence[Bag] | Mapping[int, Bag]) -> list[Bag]:
    if isinstance(prototypes_by_seat, Mapping):
        seats = sorted(prototypes_by_seat)
        if seats != list(range(len(seats))):
            raise ValueError(f"JsonBagValue: prototype seats must be 0..n-1 (an empty bag for a seat that never "
                             f"won), got {seats}")
        bags = [prototypes_by_seat[seat] for seat in seats]
    else:
        bags = list(prototypes_by_seat)
    if len(bags) < 2:
        raise ValueError(f"JsonBagValue: need a prototype for each of at least 2 seats, got {len(bags)}")
    return bags


class JsonBagValue(ValueFunction):
    """A ValueFunction for engines.agents.OSLAAgent: V_seat of (own trajectory bag + a candidate state's tokens).

    The trajectory bag grows by the seat's observation of the real state at the start of each of its turns
    (begin_decision; further decisions within the same turn add nothing). Tokens come from
    observation_json(seat) only, so the agent never sees hidden information.

    features=None: the index is the prototypes' vocabulary and distances are exact JSD over the full token
    union (tokens no prototype holds still count toward the candidate's mass). With features: trajectory
    and prototypes are both restricted to the features, then normalised (docs/DESIGN.md section 3).
    The token filter (default: the outcome fields; TokenFilter(()) keeps all) applies to prototypes,
    features and states alike.
    """

    def __init__(self, prototypes_by_seat: Sequence[Bag] | Mapping[int, Bag], features: Iterable[str] | None = None,
                 mode: str = "both", num_suffix: bool = True, token_filter: TokenFilter | None = None):
        self.mode, self.num_suffix = mode, num_suffix
        self.token_filter = TokenFilter(DEFAULT_BLACKLIST) if token_filter is None else token_filter
        if mode not in MODES:
            raise ValueError(f"JsonBagValue: mode must be one of {MODES}, got {mode!r}")
        seats = [self.token_filter.apply(bag).kept for bag in _seat_bags(prototypes_by_seat)]
        self.restricted = features is not None
        if self.restricted:
            if isinstance(features, str):
                raise ValueError("JsonBagValue: features must be a collection of tokens, not one string")
            kept = [token for token in dict.fromkeys(features) if self.token_filter.keeps(token)]
        else:
            kept = sorted(set().union(*seats))
        self.features: list[str] = kept
        self._columns: dict[str, int] = {token: column for column, token in enumerate(kept)}
        self.prototypes = np.zeros((len(seats), len(kept)))
        for seat, bag in enumerate(seats):
            shares = normalise({token: count for token, count in bag.items() if token in self._columns})
            for token, share in shares.items():
                self.prototypes[seat, self._columns[token]] = share
        self.reset()

    @property
    def n_seats(self) -> int:
        return self.prototypes.shape[0]

    def reset(self) -> None:
        """Start a new game: an empty trajectory bag."""
        self.trajectory = np.zeros(len(self.features))
        self.trajectory_outside = 0.0  # count of unfiltered tokens no prototype holds (unrestricted only)
        self._last_turn: object = None

    def begin_decision(self, state, seat: int) -> None:
        """Add the seat's view of the real state to the trajectory bag, once per turn of the seat."""
        self._check_seat(seat)
        turn = getattr(state, "turn_counter", None)
        if turn is not None and turn == self._last_turn:
            return
        self._last_turn = turn
        self.trajectory_outside += self.add_bag(self._tokens(state, seat), self.trajectory)

    def value(self, state, seat: int) -> float:
        """V_seat of the trajectory bag plus the tokens of `state` as `seat` observes it."""
        self._check_seat(seat)
        candidate = self.trajectory.copy()
        outside = self.trajectory_outside + self.add_bag(self._tokens(state, seat), candidate)
        return float(self.values_of(candidate, outside)[seat])

    def values_of(self, counts: np.ndarray, outside_mass: float = 0.0) -> np.ndarray:
        """V of every seat for a count vector over `features` (plus outside mass when unrestricted)."""
        return value_from_distances(jsd_to_prototypes(counts, self.prototypes, outside_mass))

    def _tokens(self, state, seat: int) -> dict[str, int]:
        return tokenize_state(state.observation_json(seat), mode=self.mode, num_suffix=self.num_suffix)

    def add_bag(self, bag: Mapping[str, int], counts: np.ndarray) -> float:
        """Add `bag` into `counts` in place; returns its count on kept tokens outside the index."""
        outside = 0.0
        for token, count in bag.items():
            column = self._column(token)
            if column >= 0:
                counts[column] += count
            elif column == _OUTSIDE:
                outside += count
        return outside

    def _column(self, token: str) -> int:
        """The token's column, or _OUTSIDE / _IGNORED; unknown tokens get their code remembered."""
        column = self._columns.get(token)
        if column is None:
            unindexed = self.restricted or not self.token_filter.keeps(token)
            column = self._columns[token] = _IGNORED if unindexed else _OUTSIDE
        return column

    def _check_seat(self, seat: int) -> None:
        if not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.n_seats):
            raise ValueError(f"JsonBagValue: seat must be an int in 0..{self.n_seats - 1}, got {seat!r}")


class DeterminizedJsonBagValue(JsonBagValue):
    """JsonBagValue over `to_json()` of determinized states; every decision's sample joins the trajectory bag.

    Every document is counted as the one before it plus its changes: each decision's sample against the last
    sample, each child against its decision's sample. States that offer json_parts are counted by the parts
    whose keys differ (json_parts.PartCounts: no document is built); others by their to_json() documents'
    differing values (tokenize_delta: only those are walked, and none under which no feature lies). values()
    values many candidates in one numpy pass (JSD to all prototypes at once, over every feature when there are at
    most _DENSE_WIDTH, else over the columns the batch uses; by changes when many candidates share few totals).
    `frequency` names the prototypes only: the trajectory bag takes every decision's state.
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
        self._rows_by_change = _RowsByChange(self._change_rows_of)  # a listed change -> its rows: _listed_rows
        # (location, value) -> the rows of the value leaving / coming to the location: _listed_change_rows
        self._removed_rows = _RowsByChange(functools.partial(self._side_rows, sign=-1))  # (no lambda: the value
        self._added_rows = _RowsByChange(functools.partial(self._side_rows, sign=1))  # is pickled to workers)
        self._item_rows: dict[tuple, tuple[list, list]] = {}  # a list location -> _ItemRows: _container_change_rows
        self._anchor: tuple | None = None  # (state, counts, mass) when counted by json_changes: _anchored_counts
        self._part_counts = PartCounts(self._delta, self._column)
        self._parts_game: tuple | None = None  # the game whose parts _part_counts remembers
        self._shares, self._empty = row_shares(self.prototypes, "DeterminizedJsonBagValue")
        self._terms = prototype_terms(self._shares, self._empty)  # over every feature column
        self._plogp = xlogy(self._shares, self._shares)  # what _terms_over sums over the columns in use

    def reset(self) -> None:
        """Start a new game: an empty trajectory."""
        super().reset()
        self._trajectory_mass = 0  # the trajectory's count in and outside the index
        self._reference: dict | list = {}  # the last decision's sample (its document); at first the empty document
        self._reference_parts: dict = {}  # the same sample's json_parts, when states are counted by parts
        self._reference_state = None  # a copy of the same sample, when states are counted by json_changes
        self._by_parts: bool | None = None  # whether this game's states are counted by parts (known at its first)
        self._by_changes: bool | None = None  # whether they are counted by json_changes (known at its first)
        self._containers_listed = False  # whether this game's changes listed a container: _container_change_rows
        # the last sample's counts, the base and the base's non-zero columns (a buffer, the first ones in use) are
        # this value's own arrays, which begin_decision updates in place, as it does the trajectory
        self._reference_counts, self._reference_mass = np.zeros(len(self.features)), 0
        self._nonzero = np.zeros(len(self.features), dtype=np.int64)
        self._set_base(np.zeros(len(self.features)), 0)  # trajectory plus reference: what children add to

    def begin_decision(self, state, seat: int) -> None:
        """`state` is OSLA's determinized sample of this decision (never the real hidden state): it joins the
        trajectory bag and becomes the reference the children are counted against."""
        self._check_seat(seat)
        start = self._reference_counts  # what the sample's changes are added to: the last sample's counts
        if self._counted_by_changes(state):  # their masses are in the rows
            old, pieces = self._reference_state, []
            changes = None if old is None else state.json_changes(old)
            if changes is None:  # the game's first sample (or one of another game)
                start, mass = self._anchored_counts(state, pieces)
            else:
                mass = self._reference_mass
                self._listed_change_rows(changes, pieces)
            self._reference_state = state.clone()
            rows = np.frombuffer(b"".join(pieces)).reshape(-1, 2)
        else:
            columns, counts = [], []
            if self._counted_by_parts(state):
                parts, old, mass = state.json_parts(), self._reference_parts, self._reference_mass
                if self._forget_parts(state):  # count the sample afresh: every part of a reference is remembered
                    old, mass, start = {}, 0, np.zeros(len(self.features))
                mass += self._part_counts.change(old, parts, state, columns, counts)
                self._reference_parts = parts
            else:
                doc = self.document(state)
                mass = self._reference_mass + self._change_columns(self._reference, doc, columns, counts)
                self._reference = doc
            rows = _change_rows(columns, counts)
        # the new reference, trajectory and base in place, in one compiled call (a decision's fixed cost counts
        # where a decision has few children: Can't Stop's two)
        reference_sum, used, rows_mass = (compiled(advance_counts) or advance_counts)(
            start, self._reference_counts, self.trajectory, self._base, self._nonzero, rows)
        mass += int(rows_mass)  # whole numbers, kept an int as the other masses are
        self._reference_mass = mass
        self.trajectory_outside += mass - reference_sum
        self._trajectory_mass += mass
        self._set_base(self._base, self._trajectory_mass + mass, self._nonzero[:used])

    def _anchored_counts(self, state, pieces: list) -> tuple[np.ndarray, int]:
        """(counts, mass) to which `state`'s changes from the anchor are added (the first state counted afresh,
        kept across games: each game's first sample differs from it by a few moves, not a whole document), those
        changes' rows (their masses too) appended to `pieces`; a state of another game is counted afresh and becomes
        the anchor."""
        anchor = self._anchor
        changes = None if anchor is None else state.json_changes(anchor[0])
        if changes is None:
            found_columns, found_counts = [], []
            mass = self._change_columns({}, state.to_json(), found_columns, found_counts)
            anchor_counts = np.bincount(np.asarray(found_columns, dtype=np.int64), found_counts, len(self.features))
            anchor = self._anchor = (state.clone(), anchor_counts, mass)
            return anchor[1], anchor[2]
        self._listed_change_rows(changes, pieces)
        return anchor[1], anchor[2]

    def _counted_by_changes(self, state) -> bool:
        """Whether states are counted by json_changes: decided by the game's first state (all of one engine)."""
        if self._by_changes is None:
            self._by_changes = self.counts_by_changes and state.json_changes(state) is not None
        return self._by_changes

    def _counted_by_parts(self, state) -> bool:
        """Whether states are counted by json_parts: decided by the game's first state (all of one engine)."""
        if self._by_parts is None:
            self._by_parts = self.counts_by_parts and state.json_parts() is not None
        return self._by_parts

    def _forget_parts(self, state) -> bool:
        """Forget the remembered parts when there are too many or the game is another (keys describe one game's
        parts); True when forgotten."""
        game, known = getattr(state, "game", None), self._parts_game
        if known is None or known[0] is not game:
            identity = (game, type(game), getattr(game, "params", None))
            self._parts_game = identity
            if known is None or known[1:] != identity[1:]:
                self._part_counts.clear()
                return True
        if len(self._part_counts) >= _CHANGE_CACHE_LIMIT:
            self._part_counts.clear()
            return True
        return False

    def _set_base(self, base: np.ndarray, mass: float, nonzero: np.ndarray | None = None) -> None:
        """What every child adds its changes to; the columns where it has counts (`nonzero`, else found when first
        needed)."""
        self._base, self._base_mass = base, mass
        self._base_columns: np.ndarray | None = nonzero

    def value(self, state, seat: int) -> float:
        """V_seat of the trajectory bag plus the tokens of `state` (a determinized state)."""
        return float(self.values([state], seat)[0])

    def values(self, states: Sequence, seat: int) -> np.ndarray:
        """V_seat of the trajectory bag plus each state's tokens, for many candidate states at once: a state is
        counted as the reference plus its changes from it, and all states in one compiled call (or numpy batch)."""
        self._check_seat(seat)
        if states and self._counted_by_changes(states[0]):
            rows = self._listed_rows(states)
        else:
            columns, counts = [], []
            if states and self._counted_by_parts(states[0]):
                if self._parts_game is None:  # valued before any decision: nothing is remembered yet
                    self._forget_parts(states[0])
                reference, change = self._reference_parts, self._part_counts.change
                for state in states:
                    mass = change(reference, state.json_parts(), state, columns, counts)
                    columns += _MASS_END
                    counts += [mass, 0]
            else:
                reference = self._reference
                for state in states:
                    mass = self._change_columns(reference, self.document(state), columns, counts)
                    columns += _MASS_END
                    counts += [mass, 0]
            rows = _change_rows(columns, counts)
        return self._values_of_rows(rows, len(states), seat)

    def _listed_rows(self, states: Sequence) -> np.ndarray:
        """The rows (seat_values_by_changes) of states counted by json_changes from the decision's sample: each
        state's changes' rows, then an END row. A listed change's rows are cached as bytes (_rows_by_change), so a
        child's are one map over its changes and a decision's one join."""
        reference, pieces, rows_of = self._reference_state, [], self._rows_by_change.__getitem__
        for state in states:
            changes = None if reference is None else state.json_changes(reference)
            if changes is not None and self._containers_listed:
                self._container_change_rows(changes, pieces)
            elif changes is not None:
                size = len(pieces)
                try:  # one map, for the usual case: every change's values hashable
                    pieces += map(rows_of, changes)
                except TypeError:  # a container on one side
                    del pieces[size:]
                    self._container_change_rows(changes, pieces)
            else:  # valued before any decision, or of another game: the documents' difference
                columns, counts = [], []
                old = {} if reference is None else reference.to_json()
                mass = self._change_columns(old, state.to_json(), columns, counts)
                pieces.append(_rows_bytes(columns + [_MASS], counts + [mass]))
            pieces.append(_END_ROW)
        return np.frombuffer(b"".join(pieces)).reshape(-1, 2)

    def _change_rows_of(self, change: tuple) -> bytes:
        """The rows of one listed change as bytes: its before-value's leaving the location, then its after-value's
        coming (_rows_by_change's maker; a column both sides touch is summed where the rows are, as whole numbers)."""
        location, before, after = change
        return self._removed_rows[location, before] + self._added_rows[location, after]

    def _side_rows(self, side: tuple, sign: int) -> bytes:
        """The rows of a (location, value) side of a listed change as bytes (value hashable: a container as its JSON
        text), its counts and mass times `sign` (-1: the value leaves the location, 1: it comes), for _removed_rows
        and _added_rows."""
        return self._side_pair(side)[sign > 0]

    def _side_pair(self, side: tuple) -> tuple[bytes, bytes]:
        """The rows of a (location, value) side leaving its location and coming to it, as bytes; none for MISSING or a
        value without counted tokens."""
        location, value = side
        paths = self._part_counts.paths(location) if value is not MISSING else ()
        if not paths:
            return b"", b""
        tokens = self._delta.tokens_of_change(MISSING, _json_value(value), paths)
        columns, counts, mass = column_counts(tokens, self._column)
        if not columns and not mass:
            return b"", b""
        columns.append(_MASS)
        counts.append(mass)
        return _rows_bytes(columns, [-times for times in counts]), _rows_bytes(columns, counts)

    def _values_of_rows(self, rows: np.ndarray, n: int, seat: int) -> np.ndarray:
        """V_seat of the n candidates that are the base plus their rows (seat_values_by_changes): the compiled loop
        or the numpy batch, whichever costs less."""
        kernel = compiled(seat_values_by_changes)
        if kernel is not None:
            values = kernel(self._base, self._nonzero_base(), self._shares, self._plogp, self._empty, rows,
                            float(self._base_mass), seat, _NUMPY_CALLS_AS_LOGS)
            if len(values) == n:
                return values
        base = self._base
        columns, counts, lengths, totals = _split_rows(rows, self._base_mass)
        if n * len(base) >= _BY_CHANGES_MIN and 2 * len(set(totals)) <= n and \
                n * len(self._nonzero_base()) >= _BY_CHANGES_MIN:  # many candidates, few distinct totals
            return _seat_column(self._distances_by_changes(columns, counts, lengths, totals), seat)
        if self._dense:
            width, places, terms = len(base), columns, self._terms
        else:  # over the columns in use only
            used = self._columns_in_use(columns)
            width, places, base, terms = len(used), np.searchsorted(used, columns), base[used], self._terms_over(used)
        if not len(columns):
            return _seat_column(jsd_by_terms(np.tile(base, (n, 1)), totals, terms), seat)
        places += np.repeat(np.arange(0, n * width, width), lengths)
        x = np.bincount(places, counts, n * width).reshape(n, width)
        x += base
        if n * len(terms.empty) <= _SMALL_BATCH:
            return np.array(_seat_values_of_js(js_by_terms(x, totals, terms).tolist(), totals, terms.empty, seat))
        return _seat_column(jsd_by_terms(x, totals, terms), seat)

    def _distances_by_changes(self, columns: list, counts: list, lengths: list, totals: list) -> np.ndarray:
        """(n, seats) distances of the candidates whose changes from the base are `columns`/`counts` (`lengths`
        per candidate), by bags.jsd_by_changes: the base's columns summed once per distinct total."""
        width, n = len(self.features), len(lengths)
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        cells, where = np.unique(rows * width + np.asarray(columns, dtype=np.int64), return_inverse=True)
        deltas = np.bincount(where, counts, len(cells))
        kept = deltas != 0  # a column a candidate leaves as the base has it is not a change
        rows, columns = np.divmod(cells[kept], width)
        return jsd_by_changes(self._base, self._nonzero_base(), rows, columns, deltas[kept], totals, self._shares,
                              self._empty)

    def _nonzero_base(self) -> np.ndarray:
        """The base's columns with counts (found once per base)."""
        if self._base_columns is None:
            self._base_columns = np.flatnonzero(self._base)
        return self._base_columns

    def _columns_in_use(self, columns: np.ndarray) -> np.ndarray:
        """np.union1d(np.flatnonzero(base), columns): the base's columns (found once per base), the new ones inserted."""
        known = self._nonzero_base()
        extra = np.unique(columns[self._base[columns] == 0]) if len(columns) else columns
        return np.insert(known, np.searchsorted(known, extra), extra) if len(extra) else known

    counts_by_parts = True  # states that offer json_parts are counted by them (their to_json() in our dialect)
    counts_by_changes = True  # states that offer json_changes are counted by them (before parts; our dialect too)

    def document(self, state) -> dict:
        """The JSON document of `state` that is tokenized (our own dialect)."""
        return state.to_json()

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

    def _listed_change_rows(self, changes: list[tuple], pieces: list) -> None:
        """Append to `pieces` the rows (seat_values_by_changes: column rows and MASS rows), as bytes, of the changes a
        state lists (State.json_changes: location, before, after), each by its two sides' cached rows (a decision's
        sample against the last one re-deals hidden cards: many changes, seldom the same pair twice, so pairs are
        not looked up; two maps, no Python loop)."""
        if self._containers_listed:
            self._container_change_rows(changes, pieces)
            return
        size = len(pieces)
        try:
            pieces += map(self._removed_rows.__getitem__, map(_BEFORE_SIDE, changes))
            pieces += map(self._added_rows.__getitem__, map(_AFTER_SIDE, changes))
        except TypeError:  # a container on one side
            del pieces[size:]
            self._container_change_rows(changes, pieces)

    def _container_change_rows(self, changes: list[tuple], pieces: list) -> None:
        """Append to `pieces` the rows of listed changes some of which have a container on one side: a list becoming
        another item by item, any other change by its cached rows, a container keyed by its JSON text (Dominion lists
        its card zones whole: a decision's sample and children differ in a few zones, each at many positions).

        A list's items: every item of the old list leaving its position and every item of the new coming to its own,
        two maps over per-position tables (_ItemRows; where both lists hold the same item the rows cancel as they are
        summed, which costs less than finding the positions that differ: Dominion's zones are short or re-dealt).
        The rest of the game's changes are taken here directly (an engine that lists containers lists them often)."""
        self._containers_listed = True
        rows_of, item_rows = self._rows_by_change.__getitem__, self._item_rows
        for change in changes:
            location, before, after = change
            if type(before) is list and type(after) is list:
                tables = item_rows.get(location)
                if tables is None or len(tables[0]) < len(before) or len(tables[0]) < len(after):
                    if not self._part_counts.paths(location):  # no counted token lies under the list
                        continue
                    tables = self._item_tables(location, max(len(before), len(after)))
                size = len(pieces)
                try:
                    pieces += map(getitem, tables[0], before)
                    pieces += map(getitem, tables[1], after)
                    continue
                except TypeError:  # an item that is a container
                    del pieces[size:]
            try:
                pieces.append(rows_of(change))
            except TypeError:
                pieces.append(rows_of(_hashable_change(change)))

    def _item_tables(self, location: tuple, size: int) -> tuple[list, list]:
        """The _ItemRows of the list at `location`, position by position, for the value leaving it and coming to it,
        grown to at least `size` positions."""
        removed, added = self._item_rows.setdefault(location, ([], []))
        for i in range(len(removed), size + 16):
            place = (*location, i)
            leaving, coming = _ItemRows(self._side_pair, place, 0), _ItemRows(self._side_pair, place, 1)
            leaving.twin, coming.twin = coming, leaving
            removed.append(leaving)
            added.append(coming)
        return removed, added

    def _cache_change(self, key: tuple, before, after, paths: tuple[str, ...]) -> tuple[list, list, int]:
        """(columns, signed counts, mass change) of one change, remembered under `key`."""
        if len(self._change_cache) >= _CHANGE_CACHE_LIMIT:
            self._change_cache.clear()
        changes = self._delta.tokens_of_change(before, after, paths)
        entry = self._change_cache[key] = column_counts(changes, self._column)
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

    def _terms_over(self, used: np.ndarray) -> PrototypeTerms:
        """The prototypes' terms over the columns `used` (every feature's are self._terms)."""
        return terms_over(self._terms, self._plogp, used)

    def _values_of_counts(self, x: np.ndarray, totals: list[float], terms: PrototypeTerms) -> np.ndarray:
        """(n, seats) V of n count rows `x` over the columns of `terms`, whose whole masses are `totals`."""
        return seat_values(jsd_by_terms(x, totals, terms))


OUTSIDE_FEATURES = "<prototype mass outside the feature list>"  # no tokenized state has it (tokens start with ".")


def with_outside_mass(prototypes_by_seat: Sequence[Bag] | Mapping[int, Bag],
                      features: Sequence[str]) -> tuple[list[Bag], list[str]]:
    """(bags, features) that normalise each prototype over all its tokens, as the authors' agent does: each seat's
    count outside `features` moves into one column, OUTSIDE_FEATURES, appended to the features; no state fills it,
    so the JSD equals the one over the full token union with the candidate restricted to `features`."""
    features = list(dict.fromkeys(features))
    if OUTSIDE_FEATURES in features:
        raise ValueError(f"with_outside_mass: {OUTSIDE_FEATURES!r} is not a state token")
    listed, bags = set(features), []
    for bag in _seat_bags(prototypes_by_seat):
        inside = {token: count for token, count in bag.items() if token in listed}
        bags.append({**inside, OUTSIDE_FEATURES: sum(count for token, count in bag.items() if token not in listed)})
    return bags, [*features, OUTSIDE_FEATURES]


class TagDocumentValue(DeterminizedJsonBagValue):
    """DeterminizedJsonBagValue over `to_json(dialect="tag")` whose trajectory bag starts with each game's initial
    state: begin_game, which OSLAAgent calls with the seat's sample of it (TAG's initializePlayer)."""

    counts_by_parts = False  # json_parts describe our dialect's document
    counts_by_changes = False  # so do json_changes

    def document(self, state) -> dict:
        return state.to_json(dialect="tag")

    def begin_game(self, state, seat: int) -> None:
        """Start this game from its own initial state: the trajectory bag holds `state`'s document only."""
        self._check_seat(seat)
        DeterminizedJsonBagValue.reset(self)
        self._start_from(self.document(state))

    def _start_from(self, document: dict) -> None:
        """Put `document`'s tokens into the (empty) trajectory bag."""
        columns, counts = [], []
        mass = self._change_columns({}, document, columns, counts)
        self.trajectory = self.trajectory + np.bincount(columns, counts, len(self.features))
        self.trajectory_outside += mass - self.trajectory.sum()
        self._trajectory_mass += mass
        self._set_base(self.trajectory.copy(), self._trajectory_mass)


class TagJsonBagValue(TagDocumentValue):
    """The JSON-Bag value of the authors' agent (their JSONBagHeuristic) over our states in TAG's dialect.

    The trajectory bag starts with the game's initial state (begin_game; else `initial_document` at every
    reset) and adds the state of each decision; candidate and trajectory are restricted to `features`. Each
    prototype is normalised over all its tokens, as their agent does: its mass outside the feature list sits in
    one column (OUTSIDE_FEATURES) that no state fills, which gives the same JSD as the full token union (tokens
    one side lacks add their share, whatever their number). Nothing is filtered besides the feature list.
    """

    def __init__(self, prototypes_by_seat: Sequence[Bag], features: Sequence[str],
                 initial_document: dict | None = None):
        if not features or OUTSIDE_FEATURES in features:
            raise ValueError("TagJsonBagValue: features must be a non-empty list of state tokens")
        bags, features = with_outside_mass(prototypes_by_seat, features)
        self.initial_document = None  # the base constructor resets before the token index exists
        super().__init__(bags, features, frequency="full", token_filter=TokenFilter(()))
        self.initial_document = initial_document
        self.reset()

    def reset(self) -> None:
        """Start a new game: the trajectory bag holds `initial_document` only (empty without one)."""
        super().reset()
        if self.initial_document is not None:
            self._start_from(self.initial_document)


class IngestedTagValue(TagDocumentValue):
    """The JSON-Bag value of winner prototypes learnt from ingested TAG trajectories, over our states in TAG's
    dialect, tokenized as the ingest tokenized them: its `mode`, positive-integer tokens on, `token_filter` (the
    ingested bags' blacklist) applied. Every token counts (exact JSD over the full token union); the bag starts
    with each game's initial state (begin_game) and adds each decision's sample. Mode both counts documents by
    their changes; the other modes tokenize each whole document.
    """

    def __init__(self, prototypes_by_seat: Sequence[Bag] | Mapping[int, Bag], mode: str, token_filter: TokenFilter):
        if mode not in MODES:
            raise ValueError(f"IngestedTagValue: mode must be one of {MODES}, got {mode!r}")
        self.token_mode = mode
        self._old_document, self._old_tokens = None, {}
        super().__init__(prototypes_by_seat, None, frequency="full", token_filter=token_filter)

    def _change_columns(self, old: dict | list, new: dict | list, columns: list, counts: list) -> int:
        if self.token_mode == "both":
            return super()._change_columns(old, new, columns, counts)
        if old is not self._old_document:  # a decision's children all share the same old document
            self._old_document, self._old_tokens = old, self._whole_tokens(old)
        before, after, mass = self._old_tokens, self._whole_tokens(new), 0
        for token in [*after, *(t for t in before if t not in after)]:
            change = after.get(token, 0) - before.get(token, 0)
            column = self._column(token) if change else _IGNORED
            if column >= 0:
                columns.append(column)
                counts.append(change)
            if column >= 0 or column == _OUTSIDE:
                mass += change
        return mass

    def _whole_tokens(self, document: dict | list) -> dict[str, int]:
        return tokenize_state(document, mode=self.token_mode, num_suffix=True) if document else {}


def _seat_values_of_js(js: list[list[float]], totals: list, empty: np.ndarray, seat: int) -> list[float]:
    """_seat_column(jsd_by_terms(...), seat) from js_by_terms's rows, in Python (the same operations and order:
    few numbers, for which each numpy call costs more than the arithmetic)."""
    empty, values = empty.tolist(), []
    for row, total in zip(js, totals):
        if total <= 0:
            closeness = [1.0 if unset else 0.0 for unset in empty]
        else:
            closeness = [0.0 if unset else 1.0 - math.sqrt(min(max(v, 0.0), 1.0)) for v, unset in zip(row, empty)]
        whole = sum(closeness)
        values.append(closeness[seat] / whole if whole > 0 else 1.0 / len(closeness))
    return values


def _seat_column(distances: np.ndarray, seat: int) -> np.ndarray:
    """seat_values(distances)[:, seat] of (n, seats) distances, dividing only the seat's column (the same numbers)."""
    closeness = 1.0 - distances
    sums = closeness.sum(axis=1)
    if sums.min() > 0:
        return closeness[:, seat] / sums
    return seat_values(distances)[:, seat]


_MASS, _END = int(MASS), int(END)  # seat_values_by_changes' row codes
_MASS_END = [_MASS, _END]
_END_ROW = array("d", [END, 0.0]).tobytes()


class _RowsByChange(dict):
    """A key (a listed change, or one side of it) -> its rows as bytes, made by `make` when first asked for and
    remembered (a miss costs a Python call, a hit none: a state's changes are looked up by one map), up to
    _CHANGE_CACHE_LIMIT keys before starting afresh."""

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, key: tuple) -> bytes:
        if len(self) >= _CHANGE_CACHE_LIMIT:
            self.clear()
        rows = self[key] = self._make(key)
        return rows


class _ItemRows(dict):
    """A list item's value -> its rows leaving (side 0) or coming to (side 1) one position (`place`: the list's
    location and the index), made by `pair` ((place, value) -> both sides' rows) when first asked for and remembered
    here and in `twin`, the position's table of the other side (a list is one map over its positions' tables)."""

    def __init__(self, pair, place: tuple, side: int):
        super().__init__()
        self._pair, self._place, self._side = pair, place, side
        self.twin: _ItemRows | None = None

    def __missing__(self, value) -> bytes:
        pair = self._pair((self._place, value))
        self.twin[value] = pair[1 - self._side]
        rows = self[value] = pair[self._side]
        return rows


def _split_rows(rows: np.ndarray, base_mass: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """(columns, counts, lengths, totals) of rows (seat_values_by_changes): the (column, count) rows' columns and
    counts, each candidate's number of them, and its whole mass (base_mass plus its MASS rows)."""
    codes = rows[:, 0]
    ends = np.flatnonzero(codes == END)
    owner = np.searchsorted(ends, np.arange(len(codes)))  # each row's candidate
    changed, masses = codes >= 0, codes == MASS
    totals = (base_mass + np.bincount(owner[masses], rows[masses, 1], len(ends))).tolist()
    return codes[changed].astype(np.int64), rows[changed, 1], np.bincount(owner[changed], minlength=len(ends)), totals


def _rows_bytes(columns: list[int], counts: list[int]) -> bytes:
    """The bytes of (m, 2) float rows (column, count) of signed column counts (by the array module: a change met for
    the first time costs a microsecond less than through numpy, and Dominion's children meet many)."""
    flat = [0] * (2 * len(columns))
    flat[::2], flat[1::2] = columns, counts
    return array("d", flat).tobytes()


def _change_rows(columns: list[int], counts: list[int]) -> np.ndarray:
    """(m, 2) float rows (column, count) of signed column counts, the compiled calls' input: read-only, as the rows
    joined from cached bytes are (one compiled version of each call)."""
    return np.frombuffer(_rows_bytes(columns, counts)).reshape(-1, 2)


_CONTAINERS = (dict, list)
_BEFORE_SIDE, _AFTER_SIDE = itemgetter(0, 1), itemgetter(0, 2)  # a listed change's (location, value) sides


def _hashable(value):
    """A change's value as a cache key: atoms themselves (one engine keeps each place's JSON type), containers as
    their orjson bytes."""
    return orjson.dumps(value) if type(value) in _CONTAINERS else value


def _hashable_change(change: tuple) -> tuple:
    """A listed change with a container on one side as a cache key: containers as their orjson bytes."""
    location, before, after = change
    return location, _hashable(before), _hashable(after)


def _json_value(value):
    """A listed change's side as JSON: a container keyed by its orjson bytes read back."""
    return orjson.loads(value) if type(value) is bytes else value
