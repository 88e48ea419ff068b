"""Preset files: a TOML file that starts from a built-in preset (`base`) and overrides its fields (top level), its
games' GameRun fields (`[games.<game>]`) and its transfer settings (`[transfer]`). The keys and types a file may
use come from the dataclasses' own fields and type hints, and their own __post_init__ checks the values."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import re
import tomllib
import types
import typing
from pathlib import Path

from engines import GAMES, load_game
from jbag_pipeline.seeds import MAX_SEED
from jbag_pipeline.presets import PRESET_NAMES, PRESETS, GameRun, Preset, TransferSettings, game_run, get_preset

DEFAULT_BASE = "demo"  # a file without `base` starts from the default preset of `jbag run`
FILE_KEYS = ("base", "name")  # keys of the file itself; every other top-level key is a Preset field
GAMES_KEY, TRANSFER_KEY = "games", "transfer"  # Preset fields read as tables of GameRun / TransferSettings fields


class PresetFileError(ValueError):
    """A preset file that cannot be used, in one line: the file, the dotted key (if one is to blame), the reason."""

    def __init__(self, source: str, key: str | None, reason: str):
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"preset file {source}: {key + ': ' if key else ''}{reason}")


class _Invalid(Exception):
    """A key of the file and why it is refused (PresetFileError adds the file)."""

    def __init__(self, key: str | None, reason: str):
        super().__init__(key, reason)
        self.key, self.reason = key, reason


def is_preset_file(reference: str) -> bool:
    """Whether a --preset / JBAG_PRESET value names a file rather than a built-in preset."""
    return reference not in PRESETS and (reference.endswith(".toml") or "/" in reference or Path(reference).is_file())


def preset_reference(reference: str | None = None) -> str:
    """How the settings resource names a preset (default JBAG_PRESET, else demo): a built-in name as it is, a file
    by its absolute path, so every process that reads the settings loads the same file whatever its directory."""
    reference = reference or os.environ.get("JBAG_PRESET") or DEFAULT_BASE
    return str(Path(reference).expanduser().resolve()) if is_preset_file(reference) else reference


def load_preset(reference: str | None = None, seed: int | None = None) -> Preset:
    """The preset a built-in name or a preset file names (default JBAG_PRESET, else demo), optionally reseeded."""
    reference = reference or os.environ.get("JBAG_PRESET") or DEFAULT_BASE
    if not is_preset_file(reference):
        if reference not in PRESETS:
            raise ValueError(f"unknown preset {reference!r}; choose one of {list(PRESET_NAMES)} or a .toml preset file")
        return get_preset(reference, seed)
    preset = read_preset_file(reference)
    return preset if seed is None else dataclasses.replace(preset, seed=seed)


def read_preset_file(path: str | Path) -> Preset:
    """The preset of a TOML file, named by its `name` key or else the file's stem; PresetFileError if unusable."""
    path = Path(path).expanduser()
    try:
        stat = path.stat()
    except OSError as exc:
        raise PresetFileError(str(path), None, f"cannot read it ({exc.strerror})") from None
    # every lake read and write of a step asks for the preset: parse a file once per version of it
    return _read_cached(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _read_cached(path: str, mtime_ns: int, size: int) -> Preset:
    """The preset of the file at `path` as it is at (mtime_ns, size): an edited file is read again."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as exc:
        raise PresetFileError(path, None, f"cannot read it ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PresetFileError(path, None, f"not valid TOML ({exc})") from None
    return preset_from_mapping(data, Path(path).stem, path)


def preset_from_mapping(data: dict, default_name: str, source: str = "<mapping>") -> Preset:
    """The preset a parsed preset file describes (`source` names the file in errors)."""
    try:
        return _build(data, default_name)
    except _Invalid as exc:
        raise PresetFileError(source, exc.key, exc.reason) from None


def _build(data: dict, default_name: str) -> Preset:
    base_name = data.get("base", DEFAULT_BASE)
    if not isinstance(base_name, str) or base_name not in PRESETS:
        raise _Invalid("base", f"expected a built-in preset, one of {list(PRESET_NAMES)}, got {_show(base_name)}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise _Invalid("name", f"expected a non-empty string, got {_show(name)}")
    if name in PRESETS:  # the lake's lineage tells generations apart by preset name and seed
        raise _Invalid("name", f"{name!r} is a built-in preset's name; give the file another name or a `name` key")
    base = PRESETS[base_name]
    fields = _init_fields(Preset)
    known = (*FILE_KEYS, *(f for f in fields if f != "name"))
    changes: dict = {"name": name}
    for key, value in data.items():
        if key in FILE_KEYS:
            continue
        if key not in known:
            raise _Invalid(key, _unknown(key, known, "a preset file"))
        if key == GAMES_KEY:
            changes[key] = _games(base, value)
        elif key == TRANSFER_KEY:
            changes[key] = _transfer(base, value)
        else:
            changes[key] = _merged(getattr(base, key), _convert(value, fields[key], key))
    if "seed" in changes and not 0 <= changes["seed"] <= MAX_SEED:
        raise _Invalid("seed", f"{changes['seed']} is outside 0..2^32-1, the seeds a Random Forest accepts")
    return _replace(base, changes, "", blame=[key for key in changes if key != "name"])


def _games(base: Preset, value) -> dict[str, GameRun]:
    """The base's games with each `[games.<game>]` table's fields replaced (a registered game the base lacks
    starts from the settings game_run gives it)."""
    if not isinstance(value, dict):
        raise _Invalid(GAMES_KEY, f"expected tables [games.<game>], got {_show(value)}")
    fields = _init_fields(GameRun)
    games = dict(base.games)
    for game, table in value.items():
        prefix = f"{GAMES_KEY}.{game}"
        if game not in GAMES:
            raise _Invalid(prefix, f"unknown game{_did_you_mean(game, GAMES)}; known games: {', '.join(sorted(GAMES))}")
        if not isinstance(table, dict):
            raise _Invalid(prefix, f"expected a table of GameRun fields, got {_show(table)}")
        run = game_run(base, game)
        changes = {}
        for key, item in table.items():
            if key not in fields:
                raise _Invalid(f"{prefix}.{key}", _unknown(key, fields, f"[{prefix}]"))
            changes[key] = _merged(getattr(run, key), _convert(item, fields[key], f"{prefix}.{key}"))
        games[game] = _replace(run, changes, prefix)
        try:
            load_game(game, **games[game].params)  # the game's own check of its parameters
        except (ValueError, TypeError) as exc:
            raise _Invalid(f"{prefix}.params", _first_line(exc)) from None
    return games


def _transfer(base: Preset, value) -> dict:
    """The base's transfer overrides with the `[transfer]` table's, checked as TransferSettings fields."""
    if not isinstance(value, dict):
        raise _Invalid(TRANSFER_KEY, f"expected a table of TransferSettings fields, got {_show(value)}")
    fields = _init_fields(TransferSettings)
    changes = {}
    for key, item in value.items():
        if key not in fields:
            raise _Invalid(f"{TRANSFER_KEY}.{key}", _unknown(key, fields, f"[{TRANSFER_KEY}]"))
        changes[key] = _convert(item, fields[key], f"{TRANSFER_KEY}.{key}")
    merged = {**base.transfer, **changes}
    _replace(TransferSettings(), merged, TRANSFER_KEY)  # its own checks, on what the experiment will see
    return merged


def _replace(obj, changes: dict, prefix: str, blame=None):
    """dataclasses.replace; its __post_init__'s ValueError becomes the one key of `blame` (default: the changed
    ones) that its message names, else `prefix`, and its reason."""
    try:
        return dataclasses.replace(obj, **changes)
    except (ValueError, TypeError) as exc:
        candidates = changes if blame is None else blame
        named = [key for key in candidates if re.search(rf"\b{re.escape(key)}\b", str(exc))]
        key = named[0] if len(named) == 1 else None
        raise _Invalid(".".join(part for part in (prefix, key) if part) or None, _first_line(exc)) from None


@functools.cache
def _init_fields(cls) -> dict[str, object]:
    """Field name -> resolved type hint, for the fields `cls.__init__` takes."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def _merged(old, new):
    """A table merges into the base's table key by key (a game left out keeps its entry); anything else replaces."""
    return {**old, **new} if isinstance(old, dict) and isinstance(new, dict) else new


def _convert(value, hint, key: str):
    """`value` as TOML gave it, checked against the type hint `hint` (arrays become tuples); _Invalid otherwise."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in (typing.Any, object):
        return _frozen(value)
    if origin in (typing.Union, types.UnionType):  # TOML has no null: a file can only set the other arms
        arms = [a for a in args if a is not type(None)]
        if len(arms) == 1:  # X | None: X's own error, which names the item at fault
            return _convert(value, arms[0], key)
        for arm in arms:
            try:
                return _convert(value, arm, key)
            except _Invalid:
                continue
    elif hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif hint is str:
        if isinstance(value, str):
            return value
    elif hint in (tuple, list) or origin in (tuple, list):
        if isinstance(value, list):
            kind = origin or hint
            if len(args) == 2 and args[1] is Ellipsis:
                args = (args[0],) * len(value)
            elif args and len(args) != len(value):
                raise _Invalid(key, f"expected {_describe(hint)} of {len(args)} items, got {len(value)}")
            items = [_convert(v, a, f"{key}[{i}]") for i, (v, a) in enumerate(zip(value, args))] if args else value
            return kind(items)
    elif hint is dict or origin is dict:
        if isinstance(value, dict):
            item_hint = args[1] if args else typing.Any
            return {k: _convert(v, item_hint, f"{key}.{k}") for k, v in value.items()}
    elif origin is typing.Literal:
        if value in args:
            return value
    elif isinstance(hint, type):
        if isinstance(value, hint):
            return value
    else:
        raise _Invalid(key, f"a field of type {hint} cannot be set from a preset file")
    raise _Invalid(key, f"expected {_describe(hint)}, got {_show(value)}")


def _frozen(value):
    """TOML arrays as tuples, also inside untyped values (game params), as the presets write them."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


_NAMES = {bool: ("true or false", "booleans"), int: ("an integer", "integers"), float: ("a number", "numbers"),
          str: ("a string", "strings")}


def _describe(hint) -> str:
    """What a type hint asks for, in the file's terms (`an array of strings`)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in _NAMES:
        return _NAMES[hint][0]
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in args if a is not type(None))
    if hint in (tuple, list) or origin in (tuple, list):
        if args and all(a in _NAMES for a in args if a is not Ellipsis) and len(set(args) - {Ellipsis}) == 1:
            return f"an array of {_NAMES[args[0]][1]}"
        return "an array"
    if hint is dict or origin is dict:
        return "a table"
    if origin is typing.Literal:
        return f"one of {list(args)}"
    return getattr(hint, "__name__", str(hint))


def _show(value) -> str:
    """A TOML value as the error names it: its TOML type and, for a scalar, the value."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a date/time ({value})"


def _did_you_mean(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), 1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown(key: str, known, where: str) -> str:
    return f"unknown key{_did_you_mean(key, known)}; {where} takes {', '.join(known)}"


def _first_line(exc: BaseException) -> str:
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
