"""The authors' published JSON-Bag value functions (../shared/data/jsonbag_vf_published): read, validated, as a table.

Per game folder, prototype<i>.json (token -> count, one per seat) and features-top500.json (tokens, most important
first). One table holds both (PUBLISHED_VALUE_FUNCTIONS): kind "prototype" rows (seat, token, count, p = count over
the prototype's whole count, as the authors' agent normalises it) and kind "feature" rows (rank, token).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from engines import GAMES, game_info
from jbag_pipeline.schemas import PUBLISHED_VALUE_FUNCTIONS

# our game name -> the authors' folder, which they name by TAG's gameType: one for every game with a TAG dialect
PUBLISHED_FOLDERS = {game: game_info(game).tag_game_type for game in GAMES if game_info(game).tag is not None}
FEATURES_FILE = "features-top500.json"  # the list the authors' agent loads (Dominion also has a top-100 one)
README = "README.md"
SUM_TOLERANCE = 1e-9


@dataclass(frozen=True)
class PublishedValueFunction:
    """One game's published prototypes (one token -> count bag per seat) and feature list (most important first)."""

    game: str
    prototypes: list[dict[str, int]]
    features: list[str]


def _read_json(path: Path):
    if not path.is_file():
        raise ValueError(f"{path}: file is missing")
    try:
        return json.loads(path.read_bytes())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error.msg} at line {error.lineno})") from None


def read_prototype(path: Path) -> dict[str, int]:
    """A prototype file: an object of token -> count (a non-negative integer), at least one count above 0."""
    bag = _read_json(path)
    if not isinstance(bag, dict) or not bag:
        raise ValueError(f"{path}: must be a non-empty JSON object of token -> count")
    for token, count in bag.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{path}: field {token!r}: count must be an integer >= 0, got {count!r}")
    if sum(bag.values()) <= 0:
        raise ValueError(f"{path}: every count is 0 (the prototype has no mass)")
    return bag


def read_features(path: Path) -> list[str]:
    """A feature-list file: a non-empty JSON array of distinct non-empty token strings."""
    tokens = _read_json(path)
    if not isinstance(tokens, list) or not tokens:
        raise ValueError(f"{path}: must be a non-empty JSON array of tokens")
    for i, token in enumerate(tokens):
        if not isinstance(token, str) or not token:
            raise ValueError(f"{path}: item [{i}]: a token must be a non-empty string, got {token!r}")
    if len(set(tokens)) != len(tokens):
        duplicate = next(t for i, t in enumerate(tokens) if t in tokens[:i])
        raise ValueError(f"{path}: item {duplicate!r} appears more than once")
    return tokens


def read_game(folder: Path, game: str) -> PublishedValueFunction:
    """The published value function of `game` from its folder under `folder` (prototype0.json, 1, ... in order)."""
    directory = Path(folder) / PUBLISHED_FOLDERS[game]
    if not directory.is_dir():
        raise ValueError(f"{directory}: folder is missing")
    seats = sorted(int(m.group(1)) for p in directory.glob("prototype*.json")
                   if (m := re.fullmatch(r"prototype(\d+)\.json", p.name)))
    if len(seats) < 2 or seats != list(range(len(seats))):
        raise ValueError(f"{directory}: need prototype0.json .. prototype<n-1>.json for n >= 2 seats, found seats "
                         f"{seats}")
    prototypes = [read_prototype(directory / f"prototype{seat}.json") for seat in seats]
    return PublishedValueFunction(game, prototypes, read_features(directory / FEATURES_FILE))


def read_published(folder: Path) -> dict[str, PublishedValueFunction]:
    """Every game's published value function under `folder`, validated (a one-line error names file and field)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: the published value-function folder does not exist")
    return {game: read_game(folder, game) for game in PUBLISHED_FOLDERS}


def provenance(folder: Path) -> dict[str, str]:
    """source, commit and license as the folder's README states them (what it does not state: 'not stated')."""
    path = Path(folder) / README
    text = path.read_text() if path.is_file() else ""

    def first(pattern: str) -> str:
        found = re.search(pattern, text)
        return found.group(1) if found else "not stated"

    return {"source": first(r"Source: GitHub `([^`]+)`"), "branch": first(r"branch\s+`([^`]+)`"),
            "commit": first(r"commit `([0-9a-f]{40})`"), "license": first(r"License: ([^\s(]+)"),
            "readme": str(path)}


def published_table(published: dict[str, PublishedValueFunction]) -> pl.DataFrame:
    """PUBLISHED_VALUE_FUNCTIONS rows of every game: prototypes (p over each whole prototype), then features."""
    rows = []
    for game, value in published.items():
        for seat, bag in enumerate(value.prototypes):
            total = sum(bag.values())
            rows += [{"game": game, "kind": "prototype", "seat": seat, "rank": None, "token": token, "count": count,
                      "p": count / total} for token, count in sorted(bag.items())]
        rows += [{"game": game, "kind": "feature", "seat": None, "rank": rank, "token": token, "count": None,
                  "p": None} for rank, token in enumerate(value.features, 1)]
    return pl.DataFrame(rows, schema=PUBLISHED_VALUE_FUNCTIONS)


def from_table(table: pl.DataFrame, game: str) -> PublishedValueFunction:
    """One game's value function back from PUBLISHED_VALUE_FUNCTIONS rows."""
    rows = table.filter(pl.col("game") == game)
    if rows.is_empty():
        raise ValueError(f"published_value_functions has no rows for game {game!r}")
    prototype_rows = rows.filter(pl.col("kind") == "prototype")
    n_seats = int(prototype_rows["seat"].max()) + 1
    prototypes: list[dict[str, int]] = [{} for _ in range(n_seats)]
    for seat, token, count in prototype_rows.select("seat", "token", "count").iter_rows():
        prototypes[seat][token] = count
    features = rows.filter(pl.col("kind") == "feature").sort("rank")["token"].to_list()
    return PublishedValueFunction(game, prototypes, features)


def prototype_sum_errors(table: pl.DataFrame) -> float:
    """The largest |sum of p - 1| over the prototypes of the table (0.0 for none)."""
    sums = table.filter(pl.col("kind") == "prototype").group_by("game", "seat").agg(pl.col("p").sum())
    return float((sums["p"] - 1).abs().max() or 0.0)


def unknown_fields(game: str) -> tuple[str, ...]:
    """The fields of a TAG document our engine cannot know and writes as a placeholder, so that TAG's tokens under
    them never occur in our documents (GameInfo.tag_unreachable_fields)."""
    return game_info(game).tag_unreachable_fields


def unreachable_features(game: str, features: list[str]) -> list[str]:
    """The features under a field our TAG documents cannot know (Can't Stop: `tick`): they never match a state."""
    fields = unknown_fields(game)
    return [t for t in features if any(re.match(rf"\.{re.escape(f)}(?![\w])", t) for f in fields)]


def tag_dialect_problem(game: str) -> str | None:
    """Why `game` cannot be valued in TAG's dialect by our engine (None if it can): its GameInfo names no TAG
    translator."""
    if game_info(game).tag is None:
        return f"our {game} engine has no TAG dialect yet (its GameInfo names no TAG translator)"
    return None


def check_seats(value: PublishedValueFunction, n_players: int) -> None:
    """Raise unless the value function has one prototype per seat of the engine."""
    if len(value.prototypes) != n_players:
        raise ValueError(f"published value function of {value.game}: {len(value.prototypes)} prototypes, but our "
                         f"engine plays {n_players} seats (the authors' agent needs one per seat)")
