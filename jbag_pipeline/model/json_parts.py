"""A document's token counts by parts (State.json_parts): a state is counted as another plus the parts whose keys
differ, each part's tokens counted once per key and remembered, so neither document is built nor walked.

Tokens are linear in a subtree's paths: the tokens of a document are the sum of its parts' tokens, each part
walked at its location's paths (mode both: a list item lives at its indexed and its list's own paths) with the
parts below it replaced by {} (no tokens). An Items part is counted item by item: item i's tokens at the indexed
paths (cached by location, i and key) at the positions whose keys differ, and at the list's own paths (by
location and key) for the keys that differ between the lists' common ends. A part met for the first time is read
from the state's to_json() (a list's item only the first time its key is met at the list, a part without wanted
paths never).
"""

from __future__ import annotations

from itertools import compress, count, islice
from operator import ne
from typing import Callable, Hashable

from engines.base import Items
from jbag_pipeline.model.token_rules import count_elements
from jbag_pipeline.model.tokenize_delta import MISSING, TokenDelta

Parts = dict[tuple, Hashable]
Entry = tuple  # (columns, counts, negated counts, mass) of one part or item
_EMPTY: Entry = ([], [], [], 0)  # the entry of anything without counted tokens (skipped where it is met)
_NO_ITEMS = Items()
_FEW_CHANGES = 6  # up to this many changed items, a list's own paths are counted item by item, not by multiset


def column_counts(tokens: dict[str, int], column: Callable[[str], int]) -> tuple[list[int], list[int], int]:
    """(columns, counts, mass) of signed token counts: tokens with a column kept, those coded -1 (outside the
    index) only in the mass, the rest dropped."""
    columns, counts, mass = [], [], 0
    for token, times in tokens.items():
        code = column(token)
        if code >= 0:
            columns.append(code)
            counts.append(times)
            mass += times
        elif code == -1:
            mass += times
    return columns, counts, mass


class PartCounts:
    """Signed column counts between two parts dicts, for a value's columns (`column`: token -> column, or a
    negative code: -1 outside the index but counted in the mass, anything lower not counted)."""

    def __init__(self, delta: TokenDelta, column: Callable[[str], int]):
        self._delta, self._column = delta, column
        self._parts: dict[tuple, Entry] = {}  # (location, key) -> entry
        self._lists: dict[tuple, tuple] = {}  # location of a list -> _list_shape(location), with its entries
        self._items: dict[tuple, object] = {}  # (location of a list, key) -> an item with the key: _item()
        self._size = 0  # entries remembered
        self._paths: dict[tuple, tuple[str, ...]] = {}  # location -> its paths
        self._item_paths: dict[tuple, tuple[str, ...]] = {}  # (location, i) -> item i's indexed paths
        self._document: tuple = (None, None)  # (state, its to_json()): the document read in this change()

    def __len__(self) -> int:
        """How many entries are remembered."""
        return self._size

    def clear(self) -> None:
        """Forget every remembered count (entries are only ever added between two clears)."""
        self._parts.clear()
        self._lists.clear()
        self._items.clear()
        self._size = 0
        self._document = (None, None)

    def change(self, old: Parts, new: Parts, state, columns: list, counts: list) -> int:
        """Extend columns and counts by tokens(new) - tokens(old), where `new` are the parts of `state`; returns
        the change in mass. Every part of `old` must have been counted as new since the last clear()."""
        self._document = (None, None)  # states change between calls: a document is read again in each
        mass, done = 0, 0
        for (location, key), (place, before) in zip(new.items(), old.items()):
            if location is not place:  # an engine lists its parts in one order, the same tuples: else by location
                break
            done += 1
            if before is not key and before != key:
                mass += self._part_change(location, before, key, state, columns, counts)
        if done == len(new) == len(old):
            return mass
        rest = dict(islice(old.items(), done, None))
        for location, key in islice(new.items(), done, None):
            before = rest.pop(location, MISSING)
            if before is not key and (before is MISSING or before != key):
                mass += self._part_change(location, before, key, state, columns, counts, new)
        for location, before in rest.items():  # parts that are gone
            mass += self._part_change(location, before, MISSING, state, columns, counts)
        return mass

    def _part_change(self, location: tuple, before, after, state, columns: list, counts: list,
                     parts: Parts | None = None) -> int:
        """The change of one part from `before` to `after` (either MISSING); `parts`: the state's, if not yet
        read (to find the parts below this one)."""
        if type(after) is Items or type(before) is Items:
            return self._items_change(location, before, after, state, columns, counts)
        mass, cache = 0, self._parts
        if after is not MISSING:
            entry = cache.get((location, after)) or self._count_part(location, after, state, parts)
            columns += entry[0]
            counts += entry[1]
            mass += entry[3]
        if before is not MISSING:
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
        wanted, tables, plain = self._lists.get(location) or self._list_shape(location)
        if n_before == n_after and len(changed) == 1 and n_after <= len(tables):  # one item replaced: the usual
            i = changed[0]
            if wanted is None or i in wanted:
                table = tables[i]
                mass += _add(table.get(after[i]) or self._count_item(location, i, after[i], state, table), 1,
                             columns, counts)
                mass += _add(table.get(before[i]) or self._missing((location, i, before[i])), -1, columns, counts)
            if plain is not None:
                mass += _add(plain.get(after[i]) or self._count_plain(location, after[i], after, state, plain), 1,
                             columns, counts)
                mass += _add(plain.get(before[i]) or self._missing((location, before[i])), -1, columns, counts)
            return mass
        if n_before != n_after:
            changed += range(min(n_before, n_after), max(n_before, n_after))
        if len(tables) < max(n_before, n_after):
            tables.extend({} for _ in range(max(n_before, n_after) - len(tables)))
        for i in changed:
            if wanted is not None and i not in wanted:
                continue
            table = tables[i]  # this position's key -> entry
            if i < n_after:
                entry = table.get(after[i]) or self._count_item(location, i, after[i], state, table)
                if entry is not _EMPTY:
                    columns += entry[0]
                    counts += entry[1]
                    mass += entry[3]
            if i < n_before:
                entry = table.get(before[i]) or self._missing((location, i, before[i]))
                if entry is not _EMPTY:
                    columns += entry[0]
                    counts += entry[2]
                    mass -= entry[3]
        if plain is None:  # the list's own paths are not wanted
            return mass
        if n_before == n_after:
            before_keys = [before[i] for i in changed]
            after_keys = [after[i] for i in changed]
        else:  # a list that grew or shrank: at its own paths only what lies between the common ends changed
            start = changed[0] if changed else 0
            end = next(compress(count(), map(ne, reversed(before), reversed(after))), min(n_before, n_after))
            end = min(end, min(n_before, n_after) - start)
            before_keys, after_keys = before[start:n_before - end], after[start:n_after - end]
        if len(before_keys) + len(after_keys) <= _FEW_CHANGES:  # key by key
            for key in after_keys:
                entry = plain.get(key) or self._count_plain(location, key, after, state, plain)
                if entry is not _EMPTY:
                    columns += entry[0]
                    counts += entry[1]
                    mass += entry[3]
            for key in before_keys:
                entry = plain.get(key) or self._missing((location, key))
                if entry is not _EMPTY:
                    columns += entry[0]
                    counts += entry[2]
                    mass -= entry[3]
            return mass
        times_after: dict = {}
        times_before: dict = {}
        count_elements(times_after, after_keys)
        count_elements(times_before, before_keys)
        for key, times in times_after.items():
            times -= times_before.pop(key, 0)
            if times:
                mass += _add(plain.get(key) or self._count_plain(location, key, after, state, plain), times,
                             columns, counts)
        for key, times in times_before.items():
            if times:
                mass += _add(plain.get(key) or self._missing((location, key)), -times, columns, counts)
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
                entry = self._parts.get((location, after)) or self._count_part(location, after, state, {})
                mass += _add(entry, 1, columns, counts)
            after = _NO_ITEMS
        return before, after, mass

    def _missing(self, key: tuple) -> Entry:
        """An old side's entry is always remembered (see change): its absence is a bug, not a cache miss."""
        raise RuntimeError(f"PartCounts: the old side's part {key!r} was never counted (count every reference "
                           f"as new since the last clear)")

    def _count_part(self, location: tuple, key, state, parts: Parts | None = None) -> Entry:
        """Count the part at `location` of `state` (the parts below it replaced by {}) and remember it."""
        paths = self.paths(location)
        if not paths:  # none of its tokens is counted: no document is read
            entry = self._parts[location, key] = self._entry(None, paths)
            return entry
        below = [other[len(location):] for other in (state.json_parts() if parts is None else parts)
                 if len(other) > len(location) and other[:len(location)] == location]
        subtree = _pruned(_at(self._to_json(state), location), below)
        entry = self._parts[location, key] = self._entry(subtree, paths)
        return entry

    def _count_item(self, location: tuple, i: int, key, state, table: dict) -> Entry:
        """Count item i of the list at `location` of `state` at its indexed paths, remembered in `table`."""
        paths = self.item_paths(location, i)
        entry = table[key] = self._entry(self._item(location, key, i, state) if paths else None, paths)
        return entry

    def _count_plain(self, location: tuple, key, items: Items, state, plain: dict) -> Entry:
        """Count an item with `key` of the list at `location` of `state` at the list's own paths, remembered in
        `plain`."""
        entry = plain[key] = self._entry(self._item(location, key, items.index(key), state), self.paths(location))
        return entry

    def _item(self, location: tuple, key, i: int, state):
        """An item with `key` of the list at `location`, read as item i of `state`'s list when first asked for (an
        item is the same subtree wherever its key is, as the list's own paths count it; a position's entries are
        cached apart): a card met at a new position costs no document."""
        item = self._items.get((location, key), MISSING)
        if item is MISSING:
            item = self._items[location, key] = _at(self._to_json(state), location)[i]
        return item

    def _list_shape(self, location: tuple) -> tuple:
        """(the positions of the list at `location` with wanted indexed paths, None for every position; a key ->
        entry table per position; key -> entry at the list's own paths, None when those are not wanted)."""
        paths = self.paths(location)
        wanted = None if self._delta.index is None else frozenset(self._delta._indexed_positions(paths))
        shape = self._lists[location] = (wanted, [], {} if paths else None)
        return shape

    def _entry(self, subtree, paths: tuple[str, ...]) -> Entry:
        """The entry of `subtree` living at `paths` (the shared _EMPTY when it has no counted token)."""
        columns, counts, mass = [], [], 0
        if paths:
            columns, counts, mass = column_counts(self._delta.tokens_of_change(MISSING, subtree, paths), self._column)
        self._size += 1
        return (columns, counts, [-times for times in counts], mass) if columns or mass else _EMPTY

    def paths(self, location: tuple) -> tuple[str, ...]:
        """The (wanted) paths the subtree at `location` lives at."""
        paths = self._paths.get(location)
        if paths is None:
            if location:
                parent, step = self.paths(location[:-1]), location[-1]
                in_list = type(step) is int
                paths = self._delta.child_paths(parent, f"[{step}]" if in_list else f".{step}", in_list)
            else:
                paths = ("",)
            self._paths[location] = paths
        return paths

    def item_paths(self, location: tuple, i: int) -> tuple[str, ...]:
        """The (wanted) indexed paths of item i of the list at `location` (its list's own paths left out)."""
        paths = self._item_paths.get((location, i))
        if paths is None:
            own = self.paths(location)
            paths = self._delta.child_paths(own, f"[{i}]", True)[:-len(own) or None] if own else ()
            self._item_paths[location, i] = paths
        return paths

    def _to_json(self, state) -> dict:
        """`state`'s document, built once per change() call."""
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
