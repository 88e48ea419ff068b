"""The JSON-Bag value function: V_i from the JSD of a trajectory bag to every seat's winner prototype."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from jbag_pipeline.model.bags import Bag, jsd_to_prototypes, normalise
from jbag_pipeline.model.tokenize import DEFAULT_BLACKLIST, MODES, TokenFilter, tokenize_state

_OUTSIDE = -1  # column code: a token no prototype holds (still part of the bag's mass when unrestricted)
_IGNORED = -2  # column code: a filtered token, or a token outside the selected features


def value_from_distances(distances: Sequence[float] | np.ndarray) -> np.ndarray:
    """V_i = (1 - d_i) / sum_j (1 - d_j); uniform 1/n when every distance is 1 (no seat is closer)."""
    d = np.asarray(distances, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"value_from_distances: need a non-empty 1-D array of distances, got shape {d.shape}")
    if not np.all((d >= 0) & (d <= 1)):
        raise ValueError(f"value_from_distances: distances must lie in [0, 1], got {d.tolist()}")
    closeness = 1.0 - d
    total = closeness.sum()
    if total == 0:
        return np.full(d.size, 1.0 / d.size)
    return closeness / total


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


class JsonBagValue:
    """Value function for engines.agents.OSLAAgent: V_seat of (own trajectory bag + a candidate state's tokens).

    The trajectory bag grows by the seat's observation of the real state at the start of each of its turns
    (begin_decision; further decisions within the same turn add nothing). Tokens come from
    observation_json(seat) only, so the agent never sees hidden information.

    features=None: the index is the prototypes' vocabulary and distances are exact JSD over the full token
    union (tokens no prototype holds still count toward the candidate's mass). With features: trajectory
    and prototypes are both restricted to the features, then normalised (DESIGN.md section 4).
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
        self.trajectory_outside += self._add(self._tokens(state, seat), self.trajectory)

    def value(self, state, seat: int) -> float:
        """V_seat of the trajectory bag plus the tokens of `state` as `seat` observes it."""
        self._check_seat(seat)
        candidate = self.trajectory.copy()
        outside = self.trajectory_outside + self._add(self._tokens(state, seat), candidate)
        return float(self.values_of(candidate, outside)[seat])

    def values_of(self, counts: np.ndarray, outside_mass: float = 0.0) -> np.ndarray:
        """V of every seat for a count vector over `features` (plus outside mass when unrestricted)."""
        return value_from_distances(jsd_to_prototypes(counts, self.prototypes, outside_mass))

    def _tokens(self, state, seat: int) -> dict[str, int]:
        return tokenize_state(state.observation_json(seat), mode=self.mode, num_suffix=self.num_suffix)

    def _add(self, bag: Mapping[str, int], counts: np.ndarray) -> float:
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
