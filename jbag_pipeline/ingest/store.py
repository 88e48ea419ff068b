"""Merge an ingest batch into the lake: ingested_games / _states / _tokens per game, sources and quarantine.

Re-ingesting a file replaces what that file gave before (so a batch can be re-run, and the inbox sensor
can re-read a file that changed); a game_id already ingested from another file is quarantined as a
duplicate. Only the batch's games are tokenized (ingest_tokens.tokenize_batch, before anything is written:
a game that cannot be tokenized is quarantined); the other games' tokens are kept as they are. Every
partition file is replaced, unless it already holds what it would be replaced with
(so re-ingesting unchanged files changes nothing downstream); a batch that only adds games to a game's
partitions appends them as a segment of each (storage/lake.py), so its cost follows the batch, not the lake.
A batch lands all or nothing: every partition it changes is staged and the whole set committed at once
(storage/staging.py), under the lake lock, so a failure or a kill at any point leaves the live lake as it was
or, once committed, moves all of it in. A game whose tokens are
missing (a lake written before staging) is re-tokenized by the next ingest touching its game (one stored before
values were checked that cannot be tokenized is removed and quarantined, so it never blocks the model assets).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.ingest.trajectories import IngestBatch, file_mtime
from jbag_pipeline.ingest.tokens import tokenize_batch, tokenize_games
from jbag_pipeline.schemas import (INGEST_QUARANTINE, INGESTED_SOURCES, SELFPLAY_GAMES, SELFPLAY_STATES,
                                           STATE_TOKENS)
from jbag_pipeline.storage.staging import LakeTransaction, transaction

GAMES_TABLE = "ingested_games"
STATES_TABLE = "ingested_states"
TOKENS_TABLE = "ingested_tokens"
SOURCES_TABLE = "ingested_sources"
QUARANTINE_TABLE = "ingest_quarantine"


@dataclass
class IngestSummary:
    """What a merge changed: games and states written per game, games removed, records quarantined (with the
    games quarantined because their tokens do not fit)."""

    games: dict[str, int]
    states: dict[str, int]
    removed: int
    quarantined: pl.DataFrame
    tokens: int = 0


def partitions(root: Path, table: str) -> list[str]:
    """The game partitions a lake table has, sorted."""
    folder = lake.lake_dir(root) / table
    return sorted({p.parent.name.removeprefix("game=") for p in folder.glob("game=*/part*.parquet")
                   if lake.is_lake_file(p)})


def read_or_empty(root: Path, table: str, schema: dict, game: str | None = None) -> pl.DataFrame:
    """One partition (or the whole table) of a lake table, or an empty frame of `schema` if it has none."""
    partition = {"game": game} if game else None
    files = lake.partition_files(root, table, partition) if game else lake.table_files(root, table)
    if not files:
        return pl.DataFrame(schema=schema)
    for path in files:
        lake.check_table_file(path, table)
    frame = lake.read_table(root, table, partition).select(list(schema)).cast(schema)
    if game and len(files) > 1:  # segments hold later games, maybe of lower ids: sorted as one file would be
        frame = frame.sort("game_id", maintain_order=True)
    return frame


@dataclass(frozen=True)
class Added:
    """The rows a batch adds to one game's partitions (games it did not hold before)."""

    games: pl.DataFrame
    states: pl.DataFrame
    tokens: pl.DataFrame


def write_batch(root: Path, batch: IngestBatch,
                extend: Callable[[LakeTransaction, str, pl.DataFrame, Added], None] | None = None) -> IngestSummary:
    """Merge `batch` into the lake tables (see the module docstring); returns what changed. A game that only gains
    games is extended: the added rows land as segments, and extend(tx, game, its stored games, added rows) may
    stage more in the same transaction (the ingested model's update, assets/ingested_increment.py)."""
    if batch.tokens is None:
        batch = tokenize_batch(batch)
    with transaction(root) as tx:
        old_sources = read_or_empty(root, SOURCES_TABLE, INGESTED_SOURCES, None)
        files = batch.files
        replaced = old_sources.filter(pl.col("file").is_in(files))
        kept_sources = old_sources.filter(~pl.col("file").is_in(files))
        clashes = batch.sources.join(kept_sources.select("game", "game_id", pl.col("file").alias("owner")),
                                     on=["game", "game_id"], how="inner")
        new_sources = batch.sources.join(clashes.select("game", "game_id"), on=["game", "game_id"], how="anti")
        _check_modes(kept_sources, new_sources)
        quarantine = pl.concat([batch.quarantine, _duplicate_rows(clashes)]).sort("file", "line_or_index",
                                                                                   nulls_last=False)

        new_keys = new_sources.select("game", "game_id")
        modes = dict(pl.concat([kept_sources, new_sources]).select("game", "mode").unique().iter_rows())
        games_written, states_written, unfit = {}, {}, []
        for game in sorted(set(replaced["game"]) | set(new_keys["game"])):
            added = Added(*(_rows_of(rows, game, new_keys) for rows in (batch.games, batch.states, batch.tokens)))
            stored_games = read_or_empty(root, GAMES_TABLE, SELFPLAY_GAMES, game)
            if _appendable(root, game, stored_games, added, replaced):
                for table, rows in ((TOKENS_TABLE, added.tokens), (STATES_TABLE, added.states),
                                    (GAMES_TABLE, added.games)):  # ingested_games last: it names what landed
                    tx.append(rows, table, {"game": game})
                if extend is not None:
                    extend(tx, game, stored_games, added)
            else:
                drop = pl.concat([replaced.filter(pl.col("game") == game)["game_id"], added.games["game_id"]])
                unfit += _merge_game(root, tx, game, drop, stored_games, added, modes.get(game, "both"))
            states_written[game] = len(added.states)
            games_written[game] = len(added.games)

        sources = pl.concat([kept_sources, new_sources]).sort("game", "game_id")
        if unfit:
            unfit_keys = pl.DataFrame([(g, i) for g, i, _, _ in unfit], schema=["game", "game_id"], orient="row")
            quarantine = pl.concat([quarantine, _unfit_rows(sources.join(unfit_keys, on=["game", "game_id"]), unfit)])
            sources = sources.join(unfit_keys, on=["game", "game_id"], how="anti", maintain_order="left")
        tx.write(sources, SOURCES_TABLE)
        old_quarantine = read_or_empty(root, QUARANTINE_TABLE, INGEST_QUARANTINE, None)
        all_quarantine = pl.concat([old_quarantine.filter(~pl.col("file").is_in(files)), quarantine])
        tx.write(all_quarantine.sort("file", "line_or_index", nulls_last=False), QUARANTINE_TABLE)
    gone = len(replaced.join(new_keys, on=["game", "game_id"], how="anti"))
    return IngestSummary(games={g: n for g, n in games_written.items() if n},
                         states={g: n for g, n in states_written.items() if n}, removed=gone, quarantined=quarantine,
                         tokens=len(batch.tokens))


def _appendable(root: Path, game: str, stored_games: pl.DataFrame, added: Added, replaced: pl.DataFrame) -> bool:
    """Whether the batch only adds games to the game's partitions, so its rows can land as segments: nothing of
    the game is replaced, none of its ids is stored already and every stored game has its tokens (else the
    partition is merged whole, which repairs that)."""
    if added.games.is_empty() or not replaced.filter(pl.col("game") == game).is_empty():
        return False
    if any(not lake.partition_files(root, table, {"game": game}) for table in (TOKENS_TABLE, STATES_TABLE)):
        return False
    if stored_games.is_empty() or added.games["game_id"].is_in(stored_games["game_id"].implode()).any():
        return False
    return stored_games["game_id"].is_in(_stored_ids(root, TOKENS_TABLE, game).implode()).all()


def _stored_ids(root: Path, table: str, game: str) -> pl.Series:
    """The distinct game_ids of one game's partition of `table`, reading that column only."""
    files = lake.partition_files(root, table, {"game": game})
    for path in files:
        lake.check_table_file(path, table)
    return pl.scan_parquet(files).select(pl.col("game_id").unique()).collect()["game_id"]


def _merge_game(root: Path, tx: LakeTransaction, game: str, drop: pl.Series, stored_games: pl.DataFrame,
                added: Added, mode: str) -> list[tuple]:
    """Stage the game's partitions rewritten whole: stored rows but those of `drop`, merged with the added ones;
    returns (game, game_id, position, reason) of stored games that turn out not to fit (removed)."""
    merged, stored = {}, {GAMES_TABLE: stored_games}
    for table, schema, new_rows in ((TOKENS_TABLE, STATE_TOKENS, added.tokens),
                                    (STATES_TABLE, SELFPLAY_STATES, added.states),
                                    (GAMES_TABLE, SELFPLAY_GAMES, added.games)):
        if table not in stored:
            stored[table] = read_or_empty(root, table, schema, game)
        old = stored[table].filter(~pl.col("game_id").is_in(drop.implode()))
        merged[table] = _merge_sorted(old, new_rows)
    merged[TOKENS_TABLE], problems = _with_missing_tokens(merged, mode)
    removed = [game_id for _, game_id, _, _ in problems]
    for table in (STATES_TABLE, GAMES_TABLE):
        merged[table] = merged[table].filter(~pl.col("game_id").is_in(removed))
    for table in (TOKENS_TABLE, STATES_TABLE, GAMES_TABLE):  # ingested_games last: it names what landed
        if not _same_file(root, table, game, stored[table], merged[table]):
            if merged[table].is_empty():
                tx.remove(table, {"game": game})
            else:
                tx.write(merged[table], table, {"game": game})
    return problems


def _same_file(root: Path, table: str, game: str, stored: pl.DataFrame, merged: pl.DataFrame) -> bool:
    """Whether the game's partition already holds `merged` as a write would store it (ingested files carry no
    lineage): then it is kept as it is, so re-ingesting unchanged files leaves the ingested model nothing to
    rebuild."""
    path = lake.partition_path(root, table, {"game": game})
    if not path.exists() or not stored.equals(merged):
        return False
    return lake.read_lineage(path) == {}


def _rows_of(frame: pl.DataFrame, game: str, keys: pl.DataFrame) -> pl.DataFrame:
    """The rows of `frame` for `game` whose game_id is in `keys`; `frame` itself (no copy) when that is all of it."""
    wanted = keys.filter(pl.col("game") == game)["game_id"].to_list()
    mask = (frame["game"] == game) & frame["game_id"].is_in(wanted)
    return frame if mask.all() else frame.filter(mask)


def _merge_sorted(old: pl.DataFrame, add: pl.DataFrame) -> pl.DataFrame:
    """`old` and `add`, each sorted and holding different game_ids, as one sorted frame: a merge on game_id
    (each game's rows keep their order), not a sort of the partition."""
    if add.is_empty() or old.is_empty():
        return add if old.is_empty() else old
    return old.merge_sorted(add, "game_id")


def _with_missing_tokens(merged: dict[str, pl.DataFrame], mode: str) -> tuple[pl.DataFrame, list[tuple]]:
    """The merged tokens plus those of any game of the partition that has none (a crash cut an earlier ingest),
    and (game, game_id, position, reason) of such games that cannot be tokenized (stored before values were
    checked)."""
    tokens = merged[TOKENS_TABLE]
    missing = merged[GAMES_TABLE].filter(~pl.col("game_id").is_in(tokens["game_id"].unique().implode()))["game_id"]
    states = merged[STATES_TABLE].filter(pl.col("game_id").is_in(missing.implode()))
    if states.is_empty():
        return tokens, []
    repaired, problems = tokenize_games(states, mode)
    return _merge_sorted(tokens, repaired), problems


def _unfit_rows(sources: pl.DataFrame, problems: list[tuple]) -> pl.DataFrame:
    """Quarantine rows for games already in the lake that turn out not to fit; they are removed from it."""
    reasons = {(game, game_id): reason for game, game_id, _, reason in problems}
    rows = [{"game": game, "file": file, "line_or_index": first_line,
             "file_mtime": file_mtime(file) if Path(file).exists() else None,
             "reason": f"stored before values were checked and removed: {reasons[game, game_id]}"}
            for game, game_id, file, first_line in sources.select("game", "game_id", "file", "first_line").iter_rows()]
    return pl.DataFrame(rows, schema=INGEST_QUARANTINE)


def _check_modes(kept: pl.DataFrame, new: pl.DataFrame) -> None:
    """One tokenization mode per game partition: a bag mixing modes would compare unlike tokens."""
    mixed = pl.concat([kept, new]).group_by("game").agg(pl.col("mode").n_unique()).filter(pl.col("mode") > 1)
    if not mixed.is_empty():
        game = mixed["game"].sort()[0]
        old = kept.filter(pl.col("game") == game)["mode"].unique().sort().to_list()
        raise ValueError(f"ingest: game {game!r} already holds games ingested with mode {old}; ingest with that "
                         "mode, or re-ingest all of its files with the new one")


def _duplicate_rows(clashes: pl.DataFrame) -> pl.DataFrame:
    """Quarantine rows for games whose id another file already gave."""
    rows = [{"game": game, "file": file, "line_or_index": first_line, "file_mtime": file_mtime(file),
             "reason": f"duplicate game_id {game_id} of game {game!r}: already ingested from {owner}"}
            for game, game_id, file, first_line, owner
            in clashes.select("game", "game_id", "file", "first_line", "owner").iter_rows()]
    return pl.DataFrame(rows, schema=INGEST_QUARANTINE)
