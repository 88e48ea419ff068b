"""Long per-state tables a block of whole games at a time: what bounds the memory of the steps that read
state_tokens (tens of millions of rows at a few hundred card games), whose results are per game anyway.

A table is a Polars DataFrame or a LazyFrame (a lake scan: a block then reads only its games' row groups,
state_tokens being sorted by game_id). Blocks hold consecutive game_ids; a game is never split.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import polars as pl

BLOCK_ROWS = 2_000_000  # rows per block: about 150 MB of state_tokens as a Polars frame

Table = pl.DataFrame | pl.LazyFrame


def game_id_ranges(table: Table, rows: int | None = None,
                   game_ids: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """(first, last) game_id of each block of at most `rows` rows (default BLOCK_ROWS; more only where one game
    alone has more), ascending; only the games in `game_ids` if given."""
    rows = BLOCK_ROWS if rows is None else rows
    if rows < 1:
        raise ValueError(f"game blocks: rows must be >= 1, got {rows}")
    lazy = table.lazy()
    if game_ids is not None:
        lazy = lazy.filter(pl.col("game_id").is_in(list(game_ids)))
    sizes = lazy.group_by("game_id").agg(pl.len().alias("n")).sort("game_id").collect()
    ranges, first, filled = [], None, 0
    for game_id, n in sizes.iter_rows():
        if first is not None and filled + n > rows:
            ranges.append((first, last))
            first, filled = None, 0
        if first is None:
            first = game_id
        last, filled = game_id, filled + n
    if first is not None:
        ranges.append((first, last))
    return ranges


def game_blocks(table: Table, rows: int | None = None, game_ids: Sequence[int] | None = None,
                columns: Sequence[str] | None = None) -> Iterator[pl.DataFrame]:
    """`table` (only `columns`, only the games in `game_ids` if given) as DataFrames of whole games, ascending by
    game_id, rows in the table's order within each."""
    wanted = None if game_ids is None else list(game_ids)
    for first, last in game_id_ranges(table, rows, wanted):
        block = table.lazy().filter(pl.col("game_id").is_between(first, last))
        if wanted is not None:
            block = block.filter(pl.col("game_id").is_in(wanted))
        if columns is not None:
            block = block.select(columns)
        yield block.collect()


def detached(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with string buffers of its own. A frame derived from a block by joins and group-bys may hold its
    strings as views into the block's buffers, which then outlive the block: kept for every block, a small
    result would pin all of state_tokens' strings (measured: 3 GB of 7 Wonders' at 400 games)."""
    return pl.from_arrow(frame.to_arrow())


def distinct_tokens(table: Table) -> list[str]:
    """The sorted distinct values of the `token` column (streamed: only the distinct values are held)."""
    return table.lazy().select(pl.col("token").unique()).collect(engine="streaming")["token"].sort().to_list()


def concat_ordered(pieces: Iterable[pl.DataFrame], keys: Sequence[str], schema) -> pl.DataFrame:
    """The rows of `pieces` (with `schema`) ordered by `keys` first, then as the pieces come: the order a
    whole-table ORDER BY keys, game_id, ... gives when each piece is so ordered and the pieces hold ascending
    game_id blocks. Give a generator: each piece is split and let go as it comes; rows are not copied into one
    chunk (the lake writer takes a chunked frame as it is)."""
    groups: dict[tuple, list[pl.DataFrame]] = {}
    for piece in pieces:
        for key, part in piece.partition_by(list(keys), maintain_order=True, as_dict=True).items():
            groups.setdefault(key, []).append(part)
    parts = [part for key in sorted(groups) for part in groups.pop(key)]
    return pl.concat(parts, rechunk=False) if parts else pl.DataFrame(schema=schema)


def write_ordered(pieces: Iterable[pl.DataFrame], keys: Sequence[str], schema, folder: Path) -> pl.LazyFrame:
    """concat_ordered's rows without holding them: each piece's parts go to Parquet files in `folder` as the
    piece comes, and the files are scanned in order (`folder` must outlive the scan)."""
    files: dict[tuple, list[Path]] = {}
    written = 0
    for piece in pieces:
        for key, part in piece.partition_by(list(keys), maintain_order=True, as_dict=True).items():
            path = Path(folder) / f"part-{written:06d}.parquet"
            part.write_parquet(path)
            written += 1
            files.setdefault(key, []).append(path)
    ordered = [path for key in sorted(files) for path in files[key]]
    return pl.scan_parquet(ordered) if ordered else pl.LazyFrame(schema=schema)
