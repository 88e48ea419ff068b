"""A document's token counts by parts (State.json_parts): a state is counted as another plus the parts whose keys
differ, each part's tokens counted once per key and remembered, so neither document is built nor walked.

Tokens are linear in a subtree's paths: the tokens of a document are the sum of its parts' tokens, each part
walked at its location's paths (mode both: a list item lives at its indexed and its list's own paths) with the
parts below it replaced by {} (no tokens). An Items part is counted item by item: item i's tokens at the indexed
paths (cached by location, i and key) and at the list's own paths (by location and key). A part met for the
first time is read from the state's to_json().
"""

from __future__ import annotations

from collections import _count_elements  # the C loop behind Counter(iterable), usable on a plain dict
from itertools import compress, count
from operator import ne
from typing import Callable, Hashable

from engines.base import Items
from jbag_pipeline.model.tokenize_delta import MISSING, TokenDelta

Parts = dict[tuple, Hashable]
Entry = tuple  # (columns, counts, negated counts, mass) of one part or item
_NO_ITEMS = Items()
_FEW_CHANGES = 4  # up to this many changed items, a list's own paths are counted item by item, not by multiset


class PartCounts:
    """Signed column counts between two parts dicts, for a value's columns (`column`: token -> column, or a
    negative code: -1 outside the index but counted in the mass, anything lower not counted)."""

    def __init__(self, delta: TokenDelta, column: Callable[[str], int]):
        self._delta, self._column = delta, column
        self._parts: dict[tuple, Entry] = {}  # (location, key) -> entry
        self._indexed: dict[tuple, Entry] = {}  # (location, i, key) -> entry of item i at its indexed paths
        self._plain: dict[tuple, Entry] = {}  # (location, key) -> entry of an item at its list's own paths
        self._paths: dict[tuple, tuple[str, ...]] = {}  # location -> its paths
        self._item_paths: dict[tuple, tuple[str, ...]] = {}  # (location, i) -> item i's indexed paths
        self._shapes: dict[tuple, tuple] = {}  # location of a list -> _shape(location)
        self._document: tuple = (None, None)  # (state, its to_json()): the document read in this change()

    def __len__(self) -> int:
        """How many entries are remembered."""
        return len(self._parts) + len(self._indexed) + len(self._plain)

    def clear(self) -> None:
        """Forget every remembered count (entries are only ever added between two clears)."""
        self._parts.clear()
        self._indexed.clear()
        self._plain.clear()
        self._document = (None, None)

    def change(self, old: Parts, new: Parts, state, columns: list, counts: list) -> int:
        """Extend columns and counts by tokens(new) - tokens(old), where `new` are the parts of `state`; returns
        the change in mass. Every part of `old` must have been counted as new since the last clear()."""
        mass, matched, cache = 0, 0, self._parts
        self._document = (None, None)  # states change between calls: a document is read again in each
        for location, key in new.items():
            before = old.get(location, MISSING)
            if before is not MISSING:
                matched += 1
                if before is key or before == key:
                    continue
            if type(key) is Items or type(before) is Items:
                mass += self._items_change(location, before, key, state, columns, counts)
                continue
            entry = cache.get((location, key)) or self._count_part(location, key, new, state)
            columns += entry[0]
            counts += entry[1]
            mass += entry[3]
            if before is not MISSING:
                entry = cache.get((location, before)) or self._missing((location, before))
                columns += entry[0]
                counts += entry[2]
                mass -= entry[3]
        if matched < len(old):  # parts that are gone
            for location, before in old.items():
                if location not in new:
                    if type(before) is Items:
                        mass += self._items_change(location, before, _NO_ITEMS, state, columns, counts)
                        continue
                    entry = cache.get((location, before)) or self._missing((location, before))
                    columns += entry[0]
                    counts += entry[2]
                    mass -= entry[3]
        return mass

    def _items_change(self, location: tuple, before, after, state, columns: list, counts: list) -> int:
        """The change of a list counted item by item, at the positions whose keys differ."""
        mass = 0
        if type(before) is not Items or type(after) is not Items:
            before, after, mass = self._as_items(location, before, after, state, columns, counts)
        changed = list(compress(count(), map(ne, before, after)))  # up to the shorter list's end
        n_before, n_after = len(before), len(after)
        if n_before != n_after:
            changed += range(min(n_before, n_after), max(n_before, n_after))
        wanted, plain_wanted = self._shapes.get(location) or self._shape(location)
        indexed = self._indexed
        for i in changed:
            if wanted is not None and i not in wanted:
                continue
            if i < n_after:
                key = after[i]
                entry = indexed.get((location, i, key)) or self._count_item(location, i, key, state)
                columns += entry[0]
                counts += entry[1]
                mass += entry[3]
            if i < n_before:
                entry = indexed.get((location, i, before[i])) or self._missing((location, i, before[i]))
                columns += entry[0]
                counts += entry[2]
                mass -= entry[3]
        if not plain_wanted:
            return mass
        plain = self._plain
        if len(changed) <= _FEW_CHANGES:  # the items' tokens at the list's own paths, position by position
            for i in changed:
                if i < n_after:
                    key = after[i]
                    entry = plain.get((location, key)) or self._count_plain(location, key, after, state)
                    columns += entry[0]
                    counts += entry[1]
                    mass += entry[3]
                if i < n_before:
                    entry = plain.get((location, before[i])) or self._missing((location, before[i]))
                    columns += entry[0]
                    counts += entry[2]
                    mass -= entry[3]
            return mass
        after_keys, before_keys = after, before  # else by how often each key is in them
        if len(changed) < max(n_before, n_after):
            before_keys = [before[i] for i in changed if i < n_before]
            after_keys = [after[i] for i in changed if i < n_after]
        times_after: dict = {}
        times_before: dict = {}
        _count_elements(times_after, after_keys)
        _count_elements(times_before, before_keys)
        for key, times in times_after.items():
            times -= times_before.pop(key, 0)
            if times:
                entry = plain.get((location, key)) or self._count_plain(location, key, after, state)
                mass += _add(entry, times, columns, counts)
        for key, times in times_before.items():
            if times:
                mass += _add(plain.get((location, key)) or self._missing((location, key)), -times, columns, counts)
        return mass

    def _as_items(self, location: tuple, before, after, state, columns: list, counts: list) -> tuple:
        """(before, after, mass) for a list part one side of which is missing or a plain part (counted whole
        here, its list then taken as empty)."""
        mass = 0
        if type(before) is not Items:
            if before is not MISSING:
                mass += _add(self._parts.get((location, before)) or self._missing((location, before)), -1,
                             columns, counts)
            before = _NO_ITEMS
        if type(after) is not Items:
            if after is not MISSING:
                entry = self._parts.get((location, after)) or self._count_part(location, after, {}, state)
                mass += _add(entry, 1, columns, counts)
            after = _NO_ITEMS
        return before, after, mass

    def _missing(self, key: tuple) -> Entry:
        raise RuntimeError(f"PartCounts: the old side's part {key!r} was never counted (count every reference "
                           f"as new since the last clear)")

    def _count_part(self, location: tuple, key, parts: Parts, state) -> Entry:
        """Count the part at `location` of `state` (the parts below it replaced by {}) and remember it."""
        below = [other[len(location):] for other in parts
                 if len(other) > len(location) and other[:len(location)] == location]
        subtree = _pruned(_at(self._to_json(state), location), below)
        entry = self._cache_entry(self._parts, (location, key), subtree, self.paths(location))
        return entry

    def _count_item(self, location: tuple, i: int, key, state) -> Entry:
        """Count item i of the list at `location` of `state` at its indexed paths, and remember it."""
        item = _at(self._to_json(state), location)[i]
        return self._cache_entry(self._indexed, (location, i, key), item, self.item_paths(location, i))

    def _count_plain(self, location: tuple, key, items: Items, state) -> Entry:
        """Count an item with `key` of the list at `location` of `state` at the list's own paths, and remember it."""
        item = _at(self._to_json(state), location)[items.index(key)]
        return self._cache_entry(self._plain, (location, key), item, self.paths(location))

    def _shape(self, location: tuple) -> tuple[frozenset | None, bool]:
        """(the positions of the list at `location` with wanted indexed paths, None for every position; whether
        its own paths are wanted), remembered."""
        paths = self.paths(location)
        wanted = None if self._delta.index is None else frozenset(self._delta._indexed_positions(paths))
        shape = self._shapes[location] = (wanted, bool(paths))
        return shape

    def _cache_entry(self, cache: dict, key: tuple, subtree, paths: tuple[str, ...]) -> Entry:
        columns, counts, mass = [], [], 0
        if paths:
            for token, times in self._delta.tokens_of_change(MISSING, subtree, paths).items():
                column = self._column(token)
                if column >= 0:
                    columns.append(column)
                    counts.append(times)
                    mass += times
                elif column == -1:
                    mass += times
        entry = cache[key] = (columns, counts, [-times for times in counts], mass)
        return entry

    def paths(self, location: tuple) -> tuple[str, ...]:
        """The (wanted) paths the subtree at `location` lives at."""
        paths = self._paths.get(location)
        if paths is None:
            if location:
                parent, step = self.paths(location[:-1]), location[-1]
                in_list = type(step) is int
                paths = self._delta._child_paths(parent, f"[{step}]" if in_list else f".{step}", in_list)
            else:
                paths = ("",)
            self._paths[location] = paths
        return paths

    def item_paths(self, location: tuple, i: int) -> tuple[str, ...]:
        """The (wanted) indexed paths of item i of the list at `location` (its list's own paths left out)."""
        paths = self._item_paths.get((location, i))
        if paths is None:
            own = self.paths(location)
            paths = self._delta._child_paths(own, f"[{i}]", True)[:-len(own) or None] if own else ()
            self._item_paths[location, i] = paths
        return paths

    def _to_json(self, state) -> dict:
        if self._document[0] is not state:
            self._document = (state, state.to_json())
        return self._document[1]


def _add(entry: Entry, times: int, columns: list, counts: list) -> int:
    """Extend columns and counts by `times` the entry; returns its mass times `times`."""
    columns += entry[0]
    counts += entry[1] if times == 1 else entry[2] if times == -1 else [count * times for count in entry[1]]
    return entry[3] * times


def _at(document, location: tuple):
    """The subtree at `location`; a location the document lacks is a ValueError naming it."""
    node = document
    try:
        for step in location:
            node = node[step]
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"json_parts: location {location!r} is not in the state's to_json()") from None
    return node


def _pruned(node, below: list[tuple]):
    """`node` with the subtree at each relative location in `below` replaced by {} (copies along the way)."""
    if not below:
        return node
    if () in below:
        return {}
    steps: dict = {}
    for location in below:
        steps.setdefault(location[0], []).append(location[1:])
    node = dict(node) if type(node) is dict else list(node)
    for step, rest in steps.items():
        node[step] = _pruned(_at(node, (step,)), rest)
    return node
