"""The tokenizer restricted to a set of wanted tokens (selected features): tokenize_state's counts for those
tokens only, without walking subtrees that can hold none of them.

- token_paths(tokens) lists every path leading to a wanted token: each token cut before every "." or "["
  (a token is path + ".value" or, by the positive-integer rule, the bare path), which covers both the
  indexed and the unindexed paths of list items; a walk enters only those paths.
- a list of plain atoms is counted by distinct value in one C pass, and only its wanted indices are read;
- RestrictedTokenizer remembers the counts of document parts (containers down to two levels of nesting),
  and of each top-level entry by its serialisation, and updates an atom list item by item, so candidate states that differ little (the children of one
  state, the next decisions of a game) pay only for what changed.
"""

from __future__ import annotations

from collections import _count_elements  # the C loop behind Counter(iterable), usable on a plain dict
from itertools import compress
from operator import ne
from typing import Iterable, NamedTuple, Sequence

import orjson

from jbag_pipeline.tokenize import _ATOMS, _atom, _check_mode, _child, tokenize_state


class TokenPaths(NamedTuple):
    """What a restricted walk needs for a set of wanted tokens (build it with token_paths)."""

    tokens: frozenset[str]  # the wanted tokens
    paths: frozenset[str]  # every path that can lead to a wanted token
    indices: dict[str, tuple[tuple[int, str], ...]]  # list path -> (i, path[i]) for path[i] in `paths`, by i
    keys: frozenset[str]  # every text after a "." of a path: a dict key outside it leads to no wanted token


def token_paths(tokens: Iterable[str]) -> TokenPaths:
    """The paths of `tokens` (each token cut before every "." or "[", and the token itself); cuts inside keys
    or values only add paths that are never needed."""
    wanted, paths = set(), set()
    for token in tokens:
        if not isinstance(token, str):
            raise ValueError(f"token_paths: tokens must be strings, got {token!r}")
        wanted.add(token)
        paths.add(token)
        for i, char in enumerate(token):
            if i and (char == "." or char == "["):
                paths.add(token[:i])
    indices: dict[str, set[int]] = {}
    keys: set[str] = set()
    for path in paths:
        keys.update(path[i + 1:] for i, char in enumerate(path) if char == ".")
        base, bracket, index = path.rpartition("[")
        if bracket and index.endswith("]") and index[:-1].isdigit():
            indices.setdefault(base, set()).add(int(index[:-1]))
    return TokenPaths(frozenset(wanted), frozenset(paths),
                      {base: tuple((i, f"{base}[{i}]") for i in sorted(found)) for base, found in indices.items()},
                      frozenset(keys))


_BULK_TYPES = frozenset((int, str, type(None)))  # atom types no two of which compare equal across types
_NONE_ATOM = (".None", 0, None)


def _emit(counts: dict, wanted: frozenset, paths: list[str], suffix: str, weight: int, times: int,
          weighted: bool) -> None:
    for p in paths:
        token = p + suffix
        if token in wanted:
            counts[token] = counts.get(token, 0) + times
        if weight and weighted and p in wanted:
            counts[p] = counts.get(p, 0) + weight * times


def _atom_list(node: list, prefixes: list[str], counts: dict, weighted: bool, index: TokenPaths,
               ordered: bool, unordered: bool) -> bool:
    """A list of plain atoms in one pass over its distinct values; False (nothing done) for any other list."""
    if not _BULK_TYPES.issuperset(map(type, node)):
        return False
    distinct: dict = {}
    _count_elements(distinct, node)
    described = [(_NONE_ATOM if value is None else _atom(value), times) for value, times in distinct.items()]
    if any(atom[2] is not None for atom, _ in described):
        return False  # a string holding a JSON container: walked item by item
    wanted = index.tokens
    if unordered:
        for (suffix, weight, _), times in described:
            _emit(counts, wanted, prefixes, suffix, weight, times, weighted)
    if ordered:
        size = len(node)
        for p in prefixes:
            for i, path in index.indices.get(p, ()):
                if i >= size:
                    break
                value = node[i]
                suffix, weight, _ = _NONE_ATOM if value is None else _ATOMS.get(value) or _atom(value)
                token = path + suffix
                if token in wanted:
                    counts[token] = counts.get(token, 0) + 1
                if weight and weighted and path in wanted:
                    counts[path] = counts.get(path, 0) + weight
    return True


def _walk(node: dict | list, prefixes: list[str], counts: dict, weighted: bool, index: TokenPaths,
          ordered: bool, unordered: bool) -> None:
    """The walk of mode both/ordered/unordered that enters only index.paths and counts wanted tokens."""
    is_dict = type(node) is dict or (type(node) is not list and isinstance(node, dict))
    if not is_dict and _atom_list(node, prefixes, counts, weighted, index, ordered, unordered):
        return
    allowed, keys = index.paths, index.keys
    single = prefixes[0] if len(prefixes) == 1 else None  # outside any list: the common, fastest case
    for key, value in (node.items() if is_dict else enumerate(node)):
        if is_dict and (key if type(key) is str else str(key)) not in keys:
            continue
        if single is not None:
            if is_dict:
                path = f"{single}.{key}"
                if path not in allowed:
                    continue
                paths = [path]
            else:
                indexed = f"{single}[{key}]" if ordered else None
                if indexed is not None and indexed in allowed:
                    paths = [indexed, single] if unordered else [indexed]
                elif unordered:
                    paths = prefixes  # the plain path is the parent's, already allowed
                else:
                    continue
        elif is_dict:
            paths = [path for p in prefixes if (path := f"{p}.{key}") in allowed]
        else:
            paths = [path for p in prefixes if (path := f"{p}[{key}]") in allowed] if ordered else []
            if unordered:
                paths += prefixes
        if paths:
            _walk_value(value, paths, counts, weighted, index, ordered, unordered)


def _walk_value(value, paths: list[str], counts: dict, weighted: bool, index: TokenPaths, ordered: bool,
                unordered: bool) -> None:
    """Tokens of one value that lives at `paths`."""
    kind = type(value)
    if kind is str or kind is int:
        suffix, weight, container = _ATOMS.get(value) or _atom(value)
    else:
        suffix, weight, container = _child(value)
    if container is None:
        _emit(counts, index.tokens, paths, suffix, weight, 1, weighted)
    elif container:
        _walk(container, paths, counts, weighted, index, ordered, unordered)


_EVERY_TOKEN = object()  # RestrictedTokenizer(None): no restriction


def _check(doc, index, mode: str) -> None:
    _check_mode(mode)
    if not isinstance(doc, (dict, list)):
        raise ValueError(f"tokenize: the state must be a JSON object or array (a dict or list), "
                         f"got {type(doc).__name__}")
    if index is not _EVERY_TOKEN and not isinstance(index, TokenPaths):
        raise ValueError(f"tokenize_state_restricted: index must be a TokenPaths (from token_paths), "
                         f"got {type(index).__name__}")


def tokenize_state_restricted(doc: dict | list, index: TokenPaths, *, mode: str = "both",
                              num_suffix: bool = False) -> dict[str, int]:
    """tokenize_state(doc) restricted to the tokens of `index` (see token_paths)."""
    _check(doc, index, mode)
    counts: dict[str, int] = {}
    _walk(doc, [""], counts, num_suffix, index, mode != "unordered", mode != "ordered")
    return counts


_PART_DEPTH = 2  # levels of nesting split into parts (deeper splitting costs as much as it saves)


def _parts(doc: dict | list, index: TokenPaths, ordered: bool, unordered: bool) -> list[tuple]:
    """The parts of a document counted separately, as (part key, value, paths, kind); its tokens are the sum
    of theirs, and a part's tokens depend on its key and value only (the key is its place in the document)."""
    parts: list[tuple] = []
    _split(doc, [""], (), _PART_DEPTH, parts, index, ordered, unordered)
    return parts


def _split(node: dict | list, paths: list[str], key: tuple, depth: int, parts: list, index: TokenPaths,
           ordered: bool, unordered: bool) -> None:
    """Split a container living at `paths`: an atom list is one part ("atoms"), the atoms of a dict one part
    ("walk": walked as a dict at `paths`), an atom in a list one part ("value"); containers recurse until
    `depth` runs out and are then one part ("walk")."""
    is_dict = type(node) is dict
    if depth == 0 or not (is_dict or type(node) is list):
        parts.append((key + ("walk",), node, paths, "walk"))
        return
    if not is_dict and _BULK_TYPES.issuperset(map(type, node)):
        parts.append((key + ("atoms",), node, paths, "atoms"))
        return
    allowed, atoms = index.paths, {}
    for inner, value in (node.items() if is_dict else enumerate(node)):
        if is_dict:
            inner = inner if type(inner) is str else str(inner)  # in part keys, str keys and int indices differ
            if inner not in index.keys:
                continue
            inner_paths = [path for p in paths if (path := f"{p}.{inner}") in allowed]
        else:
            inner_paths = [path for p in paths if (path := f"{p}[{inner}]") in allowed] if ordered else []
            if unordered:
                inner_paths += paths
        if not inner_paths:
            continue
        container = _child(value)[2]
        if container is None:
            if is_dict:
                atoms[inner] = value
            else:
                parts.append((key + (inner, "value"), value, inner_paths, "value"))
        elif container:
            _split(container, inner_paths, key + (inner,), depth - 1, parts, index, ordered, unordered)
    if atoms:
        parts.append((key + ("atoms of dict",), atoms, paths, "walk"))


def _part_counts(part: tuple, counts: dict, weighted: bool, index: TokenPaths, ordered: bool, unordered: bool):
    _, value, paths, kind = part
    if kind != "value":
        _walk(value, paths, counts, weighted, index, ordered, unordered)
    elif paths:
        _walk_value(value, paths, counts, weighted, index, ordered, unordered)


def _frozen(value) -> bytes | None:
    """Type-exact serialisation for recognising a part (True, 1 and 1.0 differ); None when orjson cannot write it."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return None


class RestrictedTokenizer:
    """tokenize_state_restricted for a fixed token set and mode that remembers the counts of document parts.

    A document is split into parts (see _parts; with tokens=None, every token counts and the parts are the
    top-level entries); a part seen before (same key, same serialisation) reuses its counts, and an atom
    list that differs in a few items from its last version is updated item by item. So the children of one
    state, and the next decisions of a game, pay only for what changed. The memory is dropped whenever the remembered serialisations exceed `memo_bytes`.
    """

    def __init__(self, tokens: Iterable[str] | None, *, mode: str = "both", num_suffix: bool = False,
                 memo_bytes: int = 32 << 20):
        _check_mode(mode)
        self.index = None if tokens is None else token_paths(tokens)
        self.mode, self.num_suffix, self.memo_bytes = mode, num_suffix, memo_bytes
        self._ordered, self._unordered = mode != "unordered", mode != "ordered"
        self._memo: dict[tuple, dict | tuple] = {}  # (part key, bytes) -> counts; (entry name, bytes) -> part counts
        self._memo_size = 0
        self._last_lists: dict[tuple, tuple[list, dict[str, int]]] = {}  # atom-list part key -> last (items, counts)
        self._entered: dict = {}  # top-level key -> its text, or False when no wanted token lies under it

    def tokenize(self, doc: dict | list) -> dict[str, int]:
        """tokenize_state(doc) restricted to the token set."""
        return self.tokenize_many([doc])[0]

    def tokenize_many(self, docs: Sequence[dict | list]) -> list[dict[str, int]]:
        """tokenize_state of every document, restricted to the token set."""
        bags = []
        for parts in self.tokenize_parts(docs):
            counts: dict[str, int] = {}
            for part in parts:
                for token, count in part.items():
                    counts[token] = counts.get(token, 0) + count
            bags.append(counts)
        return bags

    def tokenize_parts(self, docs: Sequence[dict | list]) -> list[list[dict[str, int]]]:
        """Per document, the counts of its parts (a token may appear in several; read-only, they are shared)."""
        for doc in docs:
            _check(doc, _EVERY_TOKEN if self.index is None else self.index, self.mode)
        result = []
        for doc in docs:
            if type(doc) is not dict:
                result.append([self._whole(doc)])
            elif self.index is None:  # every token: the top-level entries are the parts
                result.append([self._part_tokens(((key,), {key: value}, None, "top")) for key, value in doc.items()])
            else:
                result.append(self._entry_tokens(doc))
        return result

    def _entry_tokens(self, doc: dict) -> list[dict[str, int]]:
        """The counts of the parts of each top-level entry that can hold a wanted token; an entry seen before
        (same key, same serialisation) costs one orjson.dumps and a lookup, a new one is split into parts."""
        bags, entered, memo = [], self._entered, self._memo
        for key, value in doc.items():
            name = entered.get(key) if type(key) is str else self._entry_name(key)  # 1 == True: keep them apart
            if name is None:
                name = entered[key] = self._entry_name(key)
            if name is False:
                continue
            try:
                frozen = orjson.dumps(value)
            except orjson.JSONEncodeError:
                frozen = None
            known = None if frozen is None else memo.get((name, frozen))
            if known is None:
                known = tuple(counts for part in _parts({key: value}, self.index, self._ordered, self._unordered)
                              if (counts := self._part_tokens(part)))
                if frozen is not None:
                    self._remember((name, frozen), known, len(frozen))
            bags.extend(known)
        return bags

    def _entry_name(self, key) -> str | bool:
        """A top-level key as text, or False when no wanted token lies under it."""
        name = key if type(key) is str else str(key)
        return name if name in self.index.keys and "." + name in self.index.paths else False

    def _whole(self, doc: dict | list) -> dict[str, int]:
        if self.index is None:
            return tokenize_state(doc, mode=self.mode, num_suffix=self.num_suffix)
        return tokenize_state_restricted(doc, self.index, mode=self.mode, num_suffix=self.num_suffix)

    def _part_tokens(self, part: tuple) -> dict[str, int]:
        key, value, _, kind = part
        frozen = _frozen(value)
        known = None if frozen is None else self._memo.get((key, frozen))
        if known is not None:
            return known
        known = self._list_update(part) if kind == "atoms" else None
        if known is None and kind == "top":
            known = self._whole(value)
        elif known is None:
            known = {}
            _part_counts(part, known, self.num_suffix, self.index, self._ordered, self._unordered)
        if kind == "atoms":
            self._last_lists[key] = (list(value), known)
        if frozen is not None:
            self._remember((key, frozen), known, len(frozen))
        return known

    def _remember(self, memo_key: tuple, counts: dict[str, int], size: int) -> None:
        if self._memo_size + size > self.memo_bytes:
            self._memo.clear()
            self._last_lists.clear()
            self._memo_size = 0
        self._memo[memo_key] = counts
        self._memo_size += size

    def _list_update(self, part: tuple) -> dict[str, int] | None:
        """The counts of an atom list from its last version's, when few items changed (None: count afresh)."""
        key, items, paths, _ = part
        last = self._last_lists.get(key)
        if last is None or len(last[0]) != len(items):
            return None
        old_items, old_counts = last
        changed = list(compress(range(len(items)), map(ne, old_items, items)))  # != is exact on int/str/None
        if 4 * len(changed) > len(items):
            return None
        counts = dict(old_counts)
        allowed = self.index.paths
        for i in changed:
            item_paths = [path for p in paths if (path := f"{p}[{i}]") in allowed] if self._ordered else []
            if self._unordered:
                item_paths += paths
            for item, times in ((old_items[i], -1), (items[i], 1)):
                suffix, weight, container = _NONE_ATOM if item is None else _atom(item)
                if container is not None:
                    return None  # a string holding a JSON container
                _emit(counts, self.index.tokens, item_paths, suffix, weight, times, self.num_suffix)
        return {token: count for token, count in counts.items() if count}
