"""Ingest trajectories recorded elsewhere into the self-play table shapes (pure: files in, frames out).

Accepted files:
- `*.json`: one JSON array of state objects = one game, as TAG writes them. game_id: a `game_id`, `gameId`
  or `gameID` member of the first state, else the last number in the file name (`Connect4-1004.json`).
- `*.jsonl` / `*.ndjson`: one state per line, either `{"game_id": 7, "state": {...}}` or a flat state with a
  `game_id` (or `gameId` / `gameID`) member, which is removed from the stored state. Lines sharing a
  game_id are one game, in line order; games may interleave. A file named explicitly with another suffix
  is read as a JSON array.
Game (the lake partition): the `game` argument, else the first state's `gameType` lower-cased, else the
file's folder name. Winner: the only seat whose `playerResults` entry in the last state is WIN_GAME; null
on DRAW_GAME, ties or no playerResults. Players: the last state's `nPlayers`, else len(playerResults).
A bad record is quarantined with a one-line reason, and its game is not ingested at all: a bad line of a JSON
Lines file quarantines the game it belongs to (every file line of it), or the whole file when the line's game
cannot be told. A file that changes while it is read (size, mtime, inode or SHA-256 differ before and after)
is quarantined whole, and so is one that cannot be read or whose name is not UTF-8; a game name over
MAX_GAME_NAME characters quarantines its game: a problem of one file never stops the batch.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from jbag_pipeline.ingest.read import (INT64_RANGE, ArrayReader, BadRecord, HashingReader, check_shape, clip_digits,
                                       dump_state, file_digest, iter_lines, kind_of, parse_state)
from jbag_pipeline.schemas import INGEST_QUARANTINE, INGESTED_SOURCES, SELFPLAY_GAMES, SELFPLAY_STATES
from jbag_pipeline.model.tokenize import MODES

ARRAY_SUFFIXES = (".json",)
LINES_SUFFIXES = (".jsonl", ".ndjson")
GAME_ID_FIELDS = ("game_id", "gameId", "gameID")
POSITIONS_SCHEMA = {"game": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32, "position": pl.Int64}
OUTCOME_FIELDS = ("playerResults", "nPlayers")
RESULT_RETURNS = {"WIN_GAME": 1, "DRAW_GAME": 0, "LOSE_GAME": -1, "DISQUALIFY": -1, "TIMEOUT": -1}
GAME_NAME = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")
MAX_GAME_NAME = 200  # the partition folder game=<name> must fit a file name (255 bytes on most file systems)
_FLUSH_CHARS = 16 * 1024 * 1024  # state texts are moved into Arrow columns every 16 MB
_ID_NAMES = b"|".join(name.encode() for name in GAME_ID_FIELDS)
_LEADING_ID = re.compile(rb'\A\s*\{\s*"(?:' + _ID_NAMES + rb')"\s*:\s*(-?\d+)\s*[,}]')
_ANY_ID = re.compile(rb'"(?:' + _ID_NAMES + rb')"')


@dataclass
class IngestBatch:
    """What one ingest read: tables shaped like selfplay_games / selfplay_states, provenance, quarantine.

    `positions` gives each state's line or element in its file; `tokens` is set by ingest_tokens.tokenize_batch.
    """

    games: pl.DataFrame
    states: pl.DataFrame
    sources: pl.DataFrame
    quarantine: pl.DataFrame
    files: list[str]
    positions: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=POSITIONS_SCHEMA))
    tokens: pl.DataFrame | None = None

    def problems(self) -> list[str]:
        return problem_lines(self.quarantine)


def problem_lines(quarantine: pl.DataFrame) -> list[str]:
    """One line per quarantined record: "file: line N: reason" (JSON Lines) or "file: element N: reason"."""
    lines = []
    for file, position, reason in quarantine.select("file", "line_or_index", "reason").iter_rows():
        where = "" if position is None else ("line" if file.endswith(LINES_SUFFIXES) else "element") + f" {position}: "
        lines.append(f"{file}: {where}{reason}")
    return lines


def file_mtime(path: str | Path) -> datetime:
    """A file's modification time (UTC): the quarantine's time stamp, the same on every re-read of the file."""
    return datetime.fromtimestamp(os.stat(path).st_mtime_ns / 1e9, tz=timezone.utc)


def check_game_name(name: str) -> str:
    if not GAME_NAME.match(name):
        raise ValueError(f"ingest: game name {name!r} must be lower-case letters, digits, '_', '.' or '-'")
    if len(name) > MAX_GAME_NAME:
        raise ValueError(f"ingest: game name {name[:40]!r}... has {len(name)} characters, at most {MAX_GAME_NAME}")
    return name


def display_name(path: str | Path) -> str:
    """A path as text: bytes that are not UTF-8 (a file name from another system) shown as \\xNN escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"ingest: mode must be one of {list(MODES)}, got {mode!r}")
    return mode


def trajectory_files(paths) -> list[Path]:
    """The files named by `paths`, folders searched recursively for .json/.jsonl/.ndjson (hidden ones skipped)."""
    found = set()
    for raw in paths:
        path = Path(raw).resolve()
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.is_file() and p.suffix in ARRAY_SUFFIXES + LINES_SUFFIXES
                         and not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.is_file():
            found.add(path)
        else:
            raise FileNotFoundError(f"ingest: no such file or folder: {raw}")
    return sorted(found)


def read_trajectories(paths, *, game: str | None = None, mode: str = "both") -> IngestBatch:
    """Read every trajectory in `paths` (files or folders) into one batch; bad records go to its quarantine."""
    override = check_game_name(game) if game is not None else None
    check_mode(mode)
    files = trajectory_files(paths)
    batch = _BatchBuilder(override, mode)
    for path in files:
        batch.read_file_or_quarantine(path)
    return batch.build([display_name(p) for p in files])


@dataclass
class _Trajectory:
    """One game as it is read: state texts in order, their positions, the first state's gameType, the last
    state's outcome fields."""

    game_id: int
    first_line: int | None
    game_type: str = ""
    outcome_fields: dict = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    frozen: list[pl.Series] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    n_states: int = 0
    last_position: int | None = None
    bad: bool = False

    def add(self, state: dict, text: str, position: int) -> None:
        if not self.n_states:
            self.game_type = _game_from_state(state)
        self.outcome_fields = {k: state[k] for k in OUTCOME_FIELDS if k in state}
        self.last_position = position
        self.positions.append(position)
        self.texts.append(text)
        self.n_states += 1

    def freeze(self) -> None:
        """Move the texts read so far into an Arrow column (compact, and out of Python's heap)."""
        if self.texts:
            self.frozen.append(pl.Series("doc", self.texts, dtype=pl.String))
            self.texts = []

    def docs(self) -> pl.Series:
        self.freeze()
        return pl.concat(self.frozen, rechunk=False) if self.frozen else pl.Series("doc", [], dtype=pl.String)

    def discard(self) -> None:
        self.bad = True
        self.texts, self.frozen, self.positions = [], [], []


@dataclass
class _Finished:
    """A trajectory read whole and named, waiting for the rest of its file to be read."""

    trajectory: _Trajectory
    game: str
    format: str
    n_players: int
    winner: int | None
    returns: list[int | None] | None


class _BatchBuilder:
    """Collects the rows of a batch file by file; a file's games are kept only once the file is read whole."""

    def __init__(self, override: str | None, mode: str):
        self.override = override
        self.mode = mode
        self.games: list[dict] = []
        self.states: list[tuple[str, int, pl.DataFrame]] = []
        self.positions: list[pl.DataFrame] = []
        self.sources: list[dict] = []
        self.quarantine: list[dict] = []
        self.seen: dict[tuple[str, int], str] = {}  # (game, game_id) -> file that gave it first
        self.open: list[_Trajectory] = []  # trajectories of the current file
        self.finished: list[_Finished] = []  # games of the current file, read whole
        self.pending_chars = 0

    def _add(self, trajectory: _Trajectory, state: dict, position: int) -> None:
        try:
            check_shape(state, self.mode)
            text = dump_state(state)
        except BadRecord as exc:
            raise BadRecord(exc.reason, position) from None
        trajectory.add(state, text, position)
        self.pending_chars += len(text)
        if self.pending_chars >= _FLUSH_CHARS:
            for open_trajectory in self.open:
                open_trajectory.freeze()
            self.pending_chars = 0

    def read_file_or_quarantine(self, path: Path) -> None:
        """Read one file, or quarantine it whole when its name is not UTF-8 or it cannot be read."""
        self.path, self.mtime = path, None
        self.folder_game = self.override or _safe_name(path.parent.name)
        if display_name(path) != str(path):
            self._quarantine(None, "the file name is not valid UTF-8; rename the file and ingest it again")
            return
        try:
            self.read_file(path)
        except OSError as exc:
            self.open, self.finished = [], []
            self.quarantine = [row for row in self.quarantine if row["file"] != str(path)]
            self._quarantine(None, f"cannot read the file: {exc.strerror or exc}; none of its games is ingested")

    def read_file(self, path: Path) -> None:
        """Read one file; its games join the batch only if the file did not change while it was read."""
        self.mtime = file_mtime(path)
        self.finished = []
        before = _identity(path)
        with open(path, "rb") as raw:
            fh = HashingReader(raw)
            if path.suffix in LINES_SUFFIXES:
                self._read_lines(fh)
            else:
                self._read_array(fh)
            read_digest = fh.digest()
        self.open = []
        after = _identity(path)
        if after != before or file_digest(path) != read_digest:
            what = [name for name, old, new in zip(("size", "mtime", "inode"), before, after) if old != new]
            self.quarantine = [row for row in self.quarantine if row["file"] != str(path)]  # read from a moving target
            self._quarantine(None, f"the file changed while it was read ({', '.join(what) or 'content'} differ "
                                   "before and after); none of its games is ingested: ingest it again once it is "
                                   "written whole")
            return
        for finished in self.finished:
            self._keep(finished)

    def _quarantine(self, position: int | None, reason: str, game: str | None = None) -> None:
        self.quarantine.append({"game": game or self.folder_game or None, "file": display_name(self.path),
                                "line_or_index": position, "reason": reason, "file_mtime": self.mtime})

    def _read_array(self, fh) -> None:
        trajectory = None
        try:
            for index, state in ArrayReader(fh).elements():
                if not isinstance(state, dict):
                    raise BadRecord(f"expected a state object, got {kind_of(state)}", index)
                if trajectory is None:
                    trajectory = _Trajectory(_array_game_id(state, self.path), None)
                    self.open = [trajectory]
                self._add(trajectory, state, index)
        except BadRecord as exc:
            game = self.override or (trajectory.game_type if trajectory else "")
            self._quarantine(exc.position, exc.reason, game)
            return
        if trajectory is None:
            self._quarantine(None, "no states (the array is empty)")
            return
        self._finish(trajectory, "json_array")

    def _read_lines(self, fh) -> None:
        """A bad line quarantines its game (every line of it); a line whose game cannot be told, the whole file."""
        games: dict[object, _Trajectory] = {}
        untold = False
        for record in iter_lines(fh):
            line = record.position
            key, state = None, None
            try:
                if record.error:
                    raise BadRecord(record.error)
                value = parse_state(record.data)
                if not isinstance(value, dict):
                    raise BadRecord(f"expected a JSON object, got {kind_of(value)}")
                key, state, bad_id = _line_game_key_and_state(value)
                trajectory = games.get(key)
                if trajectory is None:
                    trajectory = games[key] = _Trajectory(key if type(key) is int else 0, line)
                    self.open.append(trajectory)
                if trajectory.bad:
                    continue
                if bad_id:
                    raise BadRecord(bad_id)
                if not isinstance(state, dict):
                    raise BadRecord(f"the state of game_id {key} is {kind_of(state)}, expected an object")
                self._add(trajectory, state, line)
            except BadRecord as exc:
                if key is None:
                    key = _leading_game_id(record.data)
                if key is None:
                    untold = True
                    self._quarantine(line, f"{exc.reason} (the line's game cannot be told, so no game of this file "
                                           "is ingested)")
                    continue
                trajectory = games.setdefault(key, _Trajectory(key if type(key) is int else 0, line))
                if trajectory.bad:
                    continue
                trajectory.discard()
                shown = key if type(key) is int else clip_digits(key)
                self._quarantine(line, f"{exc.reason} (game_id {shown} is not ingested)")
        if not games and not self.quarantine_for_file():
            self._quarantine(None, "empty file (no states)")
        if untold:
            return
        for trajectory in games.values():
            if not trajectory.bad:
                self._finish(trajectory, "json_lines")

    def quarantine_for_file(self) -> bool:
        return any(row["file"] == str(self.path) for row in self.quarantine)

    def _finish(self, trajectory: _Trajectory, fmt: str) -> None:
        """Name the game and read its outcome; it is kept (`_keep`) once the whole file has been read."""
        game = self.override or trajectory.game_type or self.folder_game
        if not game:
            self._quarantine(trajectory.first_line, "cannot name the game: no gameType in the first state and the "
                                                    "folder name has no usable characters; pass a game name (--game)")
            return
        if len(game) > MAX_GAME_NAME:
            source = "gameType of the first state" if trajectory.game_type else "folder name"
            self._quarantine(trajectory.first_line, f"the game name (the {source}) has {len(game)} characters, at "
                                                    f"most {MAX_GAME_NAME}; pass a shorter one (--game)")
            return
        try:
            n_players, winner, returns = outcome(trajectory.outcome_fields)
        except BadRecord as exc:
            self._quarantine(trajectory.last_position, exc.reason, game)
            return
        self.finished.append(_Finished(trajectory, game, fmt, n_players, winner, returns))

    def _keep(self, finished: _Finished) -> None:
        trajectory, game = finished.trajectory, finished.game
        position = trajectory.first_line
        key = (game, trajectory.game_id)
        if key in self.seen:
            self._quarantine(position, f"duplicate game_id {trajectory.game_id} of game {game!r}: already read "
                                       f"from {self.seen[key]}", game)
            return
        self.seen[key] = str(self.path)
        n = trajectory.n_states
        self.games.append({
            "game": game, "game_id": trajectory.game_id, "seed": None, "n_players": finished.n_players,
            "params": "{}", "agents": None, "winner": finished.winner, "returns": finished.returns, "scores": None,
            "actions": None, "n_actions": None, "n_states": n,
        })
        key_columns = {"game": pl.Series([game] * n, dtype=pl.String),
                       "game_id": pl.Series([trajectory.game_id] * n, dtype=pl.Int64),
                       "state_idx": pl.Series(range(n), dtype=pl.Int32)}
        self.states.append((game, trajectory.game_id, pl.DataFrame({
            **key_columns, "turn": pl.Series([None] * n, dtype=pl.Int32),
            "player": pl.Series([None] * n, dtype=pl.Int8), "is_terminal": pl.Series([i == n - 1 for i in range(n)]),
            "doc": trajectory.docs(),
        }, schema=SELFPLAY_STATES)))
        self.positions.append(pl.DataFrame({**key_columns, "position": pl.Series(trajectory.positions,
                                                                                dtype=pl.Int64)}))
        self.sources.append({"game": game, "game_id": trajectory.game_id, "file": str(self.path),
                             "first_line": position, "format": finished.format, "mode": self.mode, "n_states": n})

    def build(self, files: list[str]) -> IngestBatch:
        ordered = [frame for _, _, frame in sorted(self.states, key=lambda entry: entry[:2])]
        # each frame is one game in state order: concatenating them sorted needs no copy of the documents
        states = pl.concat(ordered, rechunk=False) if ordered else pl.DataFrame(schema=SELFPLAY_STATES)
        positions = pl.concat(self.positions).sort("game", "game_id", "state_idx") if self.positions \
            else pl.DataFrame(schema=POSITIONS_SCHEMA)
        return IngestBatch(
            games=pl.DataFrame(self.games, schema=SELFPLAY_GAMES).sort("game", "game_id"),
            states=states,
            sources=pl.DataFrame(self.sources, schema=INGESTED_SOURCES).sort("game", "game_id"),
            quarantine=pl.DataFrame(self.quarantine, schema=INGEST_QUARANTINE).sort("file", "line_or_index",
                                                                                    nulls_last=False),
            files=files,
            positions=positions.cast(POSITIONS_SCHEMA),
        )


def outcome(last_state: dict) -> tuple[int, int | None, list[int | None] | None]:
    """(n_players, winner seat or None, returns per seat or None) from the last state, as TAG records them."""
    results = last_state.get("playerResults")
    if results is not None and not (isinstance(results, list) and all(isinstance(r, str) for r in results)):
        raise BadRecord("playerResults of the last state is not a list of strings")
    n_players = last_state.get("nPlayers")
    if n_players is None and results:
        n_players = len(results)
    if n_players is None:
        raise BadRecord("cannot tell the number of players: the last state has neither nPlayers nor playerResults")
    if type(n_players) is not int or not 1 <= n_players <= 127:
        raise BadRecord(f"nPlayers of the last state must be an integer 1..127, got {n_players!r}")
    if results is not None and len(results) != n_players:
        raise BadRecord(f"playerResults of the last state has {len(results)} entries for {n_players} players")
    if not results:
        return n_players, None, None
    winners = [seat for seat, result in enumerate(results) if result == "WIN_GAME"]
    winner = winners[0] if len(winners) == 1 and "DRAW_GAME" not in results else None
    return n_players, winner, [RESULT_RETURNS.get(result) for result in results]


def _int64(value, what: str) -> int:
    if type(value) is not int:
        raise BadRecord(f"{what} must be an integer, got {kind_of(value)} {str(value)[:40]}")
    if not INT64_RANGE[0] <= value <= INT64_RANGE[1]:
        raise BadRecord(f"{what} {clip_digits(str(value))} does not fit in 64 bits")
    return value


def _identity(path: Path) -> tuple[int, int, int]:
    """(size, mtime in ns, inode): what a rewrite changes, compared before and after a file is read."""
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


def _array_game_id(first_state: dict, path: Path) -> int:
    for name in GAME_ID_FIELDS:
        if name in first_state:
            return _int64(first_state[name], f"{name} of the first state")
    numbers = re.findall(r"\d+", path.stem)
    if not numbers:
        raise BadRecord(f"no game id: the first state has no {'/'.join(GAME_ID_FIELDS)} member and the file "
                        "name has no number (name it <game>-<id>.json)")
    return _int64(int(numbers[-1]), "the number in the file name")


def _line_game_key_and_state(value: dict) -> tuple[int | str, object, str | None]:
    """(key, state, problem) of a line: {"game_id": ..., "state": {...}}, or a flat state whose id member is removed.

    key is the game_id, or its JSON text when that is not a 64-bit integer; `problem` then says why (the lines
    with that id are one game that cannot be ingested).
    """
    id_fields = [name for name in GAME_ID_FIELDS if name in value]
    if not id_fields:
        raise BadRecord(f"no game id: the line has none of the members {list(GAME_ID_FIELDS)}")
    name = id_fields[0]
    try:
        key, problem = _int64(value[name], name), None
    except BadRecord as exc:
        key, problem = json.dumps(value[name]), exc.reason
    if "state" in value and set(value) == {name, "state"}:
        return key, value["state"], problem
    return key, {k: v for k, v in value.items() if k != name}, problem


def _leading_game_id(data: bytes) -> int | str | None:
    """The game id of a line that cannot be parsed, when it opens the line and is the only id member named in it."""
    match = _LEADING_ID.match(data)
    if match is None or len(_ANY_ID.findall(data)) != 1:
        return None
    digits = match.group(1).decode()
    if len(digits) <= 20 and INT64_RANGE[0] <= int(digits) <= INT64_RANGE[1]:
        return int(digits)
    return digits  # the JSON text of an id that does not fit: the key of a game that cannot be ingested


def _safe_name(raw: str) -> str:
    """A partition-safe game name: lower-cased, runs of other characters turned into '_'."""
    return re.sub(r"[^a-z0-9_.\-]+", "_", raw.lower()).strip("_.-")


def _game_from_state(state: dict) -> str:
    game_type = state.get("gameType")
    return _safe_name(game_type) if isinstance(game_type, str) else ""
