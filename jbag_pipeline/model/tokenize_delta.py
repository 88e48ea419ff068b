"""The change in tokens (mode both, positive-integer tokens on) from one document to another, walking only what
differs: a state's children differ from it in a few places, so a child counted as its parent plus this change
costs what changed, not the whole document.

changes(old, new) lists the smallest differing values with the paths they live at; tokens_of_change counts
one of them; delta(old, new) is their sum. Unchanged parts are skipped by Python's ==, which holds
1 == 1.0 == True: the two documents must keep the JSON type of every value, as one engine's documents do
(tests/engines/test_json_types.py checks each engine).
"""

from __future__ import annotations

from itertools import compress, count
from operator import ne
from typing import Iterable

from engines.base import ABSENT
from jbag_pipeline.model.token_rules import count_tokens, describe_child
from jbag_pipeline.model.tokenize import walk_both
from jbag_pipeline.model.tokenize_restricted import TokenPaths, walk_restricted

MISSING = ABSENT  # a value absent on one side of a change (the engines' json_changes name it too)
_PATHS_CACHE_LIMIT = 100_000

Change = tuple  # (before, after, paths): values at `paths` (a tuple of path strings), either may be MISSING


class TokenDelta:
    """Token changes between documents, restricted to the tokens of `index` (None: every token)."""

    def __init__(self, index: TokenPaths | None):
        if index is not None and not isinstance(index, TokenPaths):
            raise ValueError(f"TokenDelta: index must be a TokenPaths (from token_paths) or None, got {index!r}")
        self.index = index
        self._wanted = None if index is None else index.tokens
        self._allowed = None if index is None else index.paths
        self._key_paths: dict[tuple, dict] = {}  # a dict's paths -> its key -> the key's paths
        self._item_paths: dict[tuple, dict] = {}  # a list's paths -> an index -> the item's paths
        self._positions: dict[tuple, list[int]] = {}  # a list's paths -> the positions with wanted indexed paths

    def changes(self, old: dict | list, new: dict | list) -> list[Change]:
        """The differing values of two documents, as deep as both sides are containers of one type; values under
        which no wanted token can lie are left out."""
        found: list[Change] = []
        if type(old) is type(new) and type(new) in (dict, list):
            self._diff(old, new, ("",), found)
        else:
            found.append((old, new, ("",)))
        return found

    def _diff(self, old: dict | list, new: dict | list, paths: tuple[str, ...], found: list) -> None:
        if type(new) is dict:
            known = self._key_paths.get(paths)
            if known is None:
                known = self._key_paths[paths] = self._new_place()
            for key, value in new.items():
                before = old.get(key, MISSING)
                if before is MISSING or before != value:
                    child = known.get(key)
                    if child is None:
                        child = known[key] = self.child_paths(paths, f".{key}", False)
                    if child:
                        kind = type(value)
                        if kind is type(before) and (kind is dict or kind is list):
                            self._diff(before, value, child, found)
                        else:
                            found.append((before, value, child))
            if len(old) != len(new) or old.keys() != new.keys():
                for key, before in old.items():
                    if key not in new and (child := self.child_paths(paths, f".{key}", False)):
                        found.append((before, MISSING, child))
            return
        if len(old) != len(new):
            self._diff_resized(old, new, paths, found)
            return
        known = self._item_paths.get(paths)
        if known is None:
            known = self._item_paths[paths] = self._new_place()
        for i in compress(count(), map(ne, old, new)):
            child = known.get(i)
            if child is None:
                child = known[i] = self.child_paths(paths, f"[{i}]", True)
            before, value = old[i], new[i]
            kind = type(value)
            if kind is type(before) and (kind is dict or kind is list):
                self._diff(before, value, child, found)
            else:
                found.append((before, value, child))

    def _diff_resized(self, old: list, new: list, paths: tuple[str, ...], found: list) -> None:
        """A list that grew or shrank (a card drawn from the front of a pile shifts every other): at the list's own
        paths the items are matched by common prefix and suffix and the rest removed or added; at indexed paths,
        position by position, only where an indexed path is wanted."""
        shorter = min(len(old), len(new))
        prefix = next(compress(count(), map(ne, old, new)), shorter)
        suffix = min(next(compress(count(), map(ne, reversed(old), reversed(new))), shorter), shorter - prefix)
        found.extend((item, MISSING, paths) for item in old[prefix:len(old) - suffix])
        found.extend((MISSING, item, paths) for item in new[prefix:len(new) - suffix])
        positions = self._indexed_positions(paths)
        if not positions:
            return
        known = self._item_paths.get(paths)
        if known is None:
            known = self._item_paths[paths] = self._new_place()
        for i in positions:
            before = old[i] if i < len(old) else MISSING
            after = new[i] if i < len(new) else MISSING
            if before is MISSING and after is MISSING:
                break  # positions are sorted: none further lies in either list
            if before is MISSING or after is MISSING or before != after:
                child = known.get(i)
                if child is None:
                    child = known[i] = self.child_paths(paths, f"[{i}]", True)
                child = child[:len(child) - len(paths)]  # the indexed paths alone
                kind = type(after)
                if kind is type(before) and (kind is dict or kind is list):
                    self._diff(before, after, child, found)
                elif child:
                    found.append((before, after, child))

    def _indexed_positions(self, paths: tuple[str, ...]) -> Iterable[int]:
        """The positions of a list at `paths` with a wanted indexed path, ascending (every one unrestricted)."""
        if self.index is None:
            return count()
        positions = self._positions.get(paths)
        if positions is None:
            if len(self._positions) >= _PATHS_CACHE_LIMIT:
                self._positions.clear()
            positions = self._positions[paths] = sorted({i for p in paths for i, _ in self.index.indices.get(p, ())})
        return positions

    def _new_place(self) -> dict:
        """An empty map for a new container place; every place is forgotten when there are too many."""
        if len(self._key_paths) + len(self._item_paths) >= _PATHS_CACHE_LIMIT:
            self._key_paths.clear()
            self._item_paths.clear()
        return {}

    def child_paths(self, paths: tuple[str, ...], step: str, in_list: bool) -> tuple[str, ...]:
        """The paths one `step` (".key" or "[i]") below `paths`, restricted; a list item also lives at its list's
        own paths (mode both)."""
        child = tuple(p + step for p in paths if self._allowed is None or p + step in self._allowed)
        return child + paths if in_list else child

    def tokens_of_change(self, before, after, paths: tuple[str, ...]) -> dict[str, int]:
        """The tokens of `after` minus those of `before` (either may be MISSING), both living at `paths`."""
        counts: dict[str, int] = {}
        wanted = self._wanted
        for item, sign in ((before, -1), (after, 1)):
            if item is MISSING:
                continue
            suffix, weight, container = describe_child(item)
            if container is None:
                for p in paths:
                    token = p + suffix
                    if wanted is None or token in wanted:
                        counts[token] = counts.get(token, 0) + sign
                    if weight and (wanted is None or p in wanted):
                        counts[p] = counts.get(p, 0) + sign * weight
            elif container:
                for token, times in self._container_tokens(container, list(paths)).items():
                    counts[token] = counts.get(token, 0) + sign * times
        return counts

    def _container_tokens(self, container: dict | list, paths: list[str]) -> dict[str, int]:
        if self.index is not None:
            found: dict[str, int] = {}
            walk_restricted(container, paths, found, True, self.index, True, True)
            return found
        tokens: list[str] = []
        weights: dict[str, int] = {}
        walk_both(container, paths, tokens, weights)
        return count_tokens(tokens, weights)
