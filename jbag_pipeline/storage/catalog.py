"""The DuckDB catalog: a file holding only views over a published, consistent set of lake files.

A run's outputs become visible together. Assets replace lake partitions one by one, so a run killed between
two assets leaves, say, states of seed 1 beside tokens of seed 0; views over the live files would show that
mix. So the views never name live files: building the catalog (the last step of every run, and of every
ingest) publishes the lake. Each partition file is hard-linked into a fresh folder lake/.published/<id>/
(no data is copied, and a link keeps the file's content when the next write renames a new file over the
live one; lake files are never edited in place), and the views name exactly those files. A killed or failed run leaves the previous publication
and its views as they were. Run-scoped write locations would do the same but need every asset (about 20, and
the UI's single-partition materialisations) to know which run's files to read; publication leaves them as
they are.

A mix is also detected and refused when a catalog is built over an unfinished run's leftovers (by
`jbag ingest`, `--select catalog` or the UI): lake.write_table stamps each file with its lineage (per game,
the preset and seed of the self-play it was built from), and a partition whose lineage differs, for some
game, from that game's selfplay_games partition is withheld from the views (returned in
Publication.withheld and failing the catalog's check) until it is re-materialised.

The views name files as getvariable('jbag_data_dir') || '/lake/...' (falling back to the data directory the
catalog was built in), and `bind_data_dir` sets that variable to wherever the catalog is opened from, so a
copied or moved data directory keeps answering queries.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

import jbag_pipeline.storage.lake as lake
import jbag_pipeline.storage.staging as staging

# catalog view name -> lake table (asset) name
VIEWS: dict[str, str] = {
    "games": "selfplay_games",
    "states": "selfplay_states",
    "selfplay_strength": "selfplay_strength",
    "selfplay_tuning": "selfplay_tuning",
    "tokens": "state_tokens",
    "sampled_states": "sampled_states",
    "bags": "trajectory_bags",
    "segmented_bags": "segmented_bags",
    "prototypes": "winner_prototypes",
    "classification": "winner_classification",
    "variant_classification": "variant_classification",
    "features": "selected_features",
    "feature_summary": "feature_summary",
    "leaky_tokens": "leaky_tokens",
    "counters_kept_prototypes": "counters_kept_prototypes",
    "counters_kept_features": "counters_kept_features",
    "evaluation_games": "evaluation_games",
    "evaluation_control": "evaluation_control",
    "evaluation_summary": "evaluation_summary",
    "learning_curve": "learning_curve",
    "mcts_evaluation_games": "mcts_evaluation_games",
    "mcts_evaluation_summary": "mcts_evaluation_summary",
    "mcts_winning_patterns": "mcts_winning_patterns",
    "verdicts": "verdicts",
    "value_function_ablation": "value_function_ablation",
    "paper_table_1": "paper_table_1",
    "paper_table_2": "paper_table_2",
    "effect_sizes": "effect_sizes",
    "tictactoe_values": "tictactoe_values",
    "tictactoe_compression": "tictactoe_compression",
    "tictactoe_jsonbag": "tictactoe_jsonbag",
    "token_mappings": "token_mappings",
    "transfer_results": "transfer_results",
    "reference_reproduction": "reference_reproduction",
    "published_value_functions": "published_value_functions",
    "published_vf_evaluation": "published_vf_evaluation",
    "ingested_games": "ingested_games",
    "ingested_states": "ingested_states",
    "ingested_sources": "ingested_sources",
    "ingested_tokens": "ingested_tokens",
    "ingested_sampled_states": "ingested_sampled_states",
    "ingested_bags": "ingested_bags",
    "ingested_prototypes": "ingested_prototypes",
    "ingested_classification": "ingested_classification",
    "ingested_vf_evaluation": "ingested_vf_evaluation",
    "quarantine": "ingest_quarantine",
}

SEED_ROOT = "selfplay_games"  # what every seeded file's lineage must agree with, game by game
DATA_DIR_VARIABLE = "jbag_data_dir"
PUBLISHED = ".published"  # under the lake, so a sandbox that may read only the lake can read the views' files
PUBLISHED_FILE = "part.published"  # not *.parquet: globs over the live lake never see published links
TEMP_CATALOG_PREFIX = ".jbag-"  # <root>/.jbag-XXXX.duckdb: a catalog being written, renamed over jbag.duckdb
KEPT_PUBLICATIONS = 2  # the current one and its predecessor, which a query opened just before may still read


@dataclass
class Publication:
    """What one catalog build published: view -> table, the folder of its files, and the withheld partitions."""

    views: dict[str, str]
    folder: Path | None
    withheld: dict[str, str] = field(default_factory=dict)  # "table/game=x/..." -> why


def catalog_path(root: Path) -> Path:
    return root / "jbag.duckdb"


def published_dir(root: Path) -> Path:
    return lake.lake_dir(root) / PUBLISHED


def bind_data_dir(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    """Make the catalog's views read the lake under `root` (where the catalog file was opened from)."""
    con.execute(f"SET VARIABLE {DATA_DIR_VARIABLE} = {_literal(str(Path(root).resolve()))}")


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def view_sql(root: Path, view: str, files: list[Path]) -> str:
    """A view over exactly `files` (under `root`), each named relative to the bound data directory."""
    base = f"coalesce(getvariable('{DATA_DIR_VARIABLE}'), {_literal(str(root))})"
    names = ", ".join(f"{base} || {_literal('/' + f.relative_to(root).as_posix())}" for f in files)
    return f"CREATE OR REPLACE VIEW {view} AS SELECT * FROM read_parquet([{names}], union_by_name = true)"


def live_files(root: Path, table: str) -> list[Path]:
    """The live partition files of a lake table (segments included), sorted."""
    return lake.table_files(root, table)


def published_name(live: Path) -> str:
    """The name of a live file's published link: part.published, or part-000001.published for a segment."""
    return f"{live.stem}.published"


def partition_of(base: Path, path: Path) -> dict[str, str]:
    """The partition values of a file under `base` (<base>/<table>/key=value/.../file), from its folders."""
    folders = path.relative_to(base).parts[1:-1]
    return dict(part.split("=", 1) for part in folders if "=" in part)


def withheld_partitions(base: Path, tables: dict[str, list[Path]]) -> dict[str, str]:
    """Seeded partitions (files under `base`, by table) whose lineage names, for some game, another generation
    than that game's selfplay_games partition; partition folder relative to `base` -> why."""
    reference = {}
    for f in tables.get(SEED_ROOT, []):
        game = partition_of(base, f).get("game")
        reference[game] = lake.read_lineage(f).get(game)
    withheld = {}
    for table, files in tables.items():
        if table == SEED_ROOT or table.startswith(lake.UNSEEDED_PREFIX):
            continue
        for f in files:
            for game, generations in sorted(lake.read_lineage(f).items()):
                expected = reference.get(game)
                if expected and generations != expected:
                    withheld[f.parent.relative_to(base).as_posix()] = (
                        f"built from {game}'s self-play of {_describe(generations)}, but {SEED_ROOT} of {game} is "
                        f"now of {_describe(expected)}; re-materialise {table}")
                    break
    return withheld


def _describe(generations: list[dict]) -> str:
    return " and ".join(f"preset {g.get('preset')} seed {g.get('seed')}" for g in generations)


def publish(root: Path) -> Publication:
    """Publish every consistent lake partition and point a new <root>/jbag.duckdb at it (see the module docstring).

    Under the lake lock: an ingest committed but cut short is finished first (staging.recover), none moves files
    while they are linked, and a temporary catalog file left by a killed build is removed, as are the temporary
    lake files of writers that were killed (lake.stale_temporaries)."""
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    with staging.lake_lock(root):
        staging.recover(root)
        for stale in sorted(root.glob(f"{TEMP_CATALOG_PREFIX}*.duckdb*")):  # only builds write them, under this lock
            stale.unlink(missing_ok=True)
        for stale in lake.stale_temporaries(root):
            stale.unlink(missing_ok=True)
        return _publish(root)


def _publish(root: Path) -> Publication:
    folder = published_dir(root) / f"{time.time_ns():020d}-{secrets.token_hex(4)}"
    linked: dict[str, list[Path]] = {}
    sources: dict[Path, Path] = {}  # published link -> live file
    for table in dict.fromkeys(VIEWS.values()):
        for f in live_files(root, table):
            if table.startswith(lake.UNSEEDED_PREFIX):  # files from outside trajectories: never trusted blindly
                lake.check_table_file(f, table)
            target = folder / f.parent.relative_to(lake.lake_dir(root)) / published_name(f)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                _link_or_copy(f, target)
            except FileNotFoundError:  # removed since it was listed (an ingest emptied the partition)
                continue
            linked.setdefault(table, []).append(target)
            sources[target] = f
    try:
        withheld = withheld_partitions(folder, linked)  # checked on the very files published, not the live ones
    except lake.UnreadableFile as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise lake.UnreadableFile(sources.get(exc.path, exc.path), exc.reason) from None
    for table, files in linked.items():
        files[:] = [f for f in files if f.parent.relative_to(folder).as_posix() not in withheld]
    for partition in withheld:
        shutil.rmtree(folder / partition)
    views = {view: table for view, table in VIEWS.items() if linked.get(table)}
    _write_catalog(root, {view: view_sql(root, view, linked[table]) for view, table in views.items()})
    _drop_old_publications(root, folder)
    return Publication(views=views, folder=folder if views else None, withheld=withheld)


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except FileNotFoundError:
        raise
    except OSError:  # a file system without hard links: a copy is slower but just as consistent
        shutil.copy2(source, target)


def _write_catalog(root: Path, statements: dict[str, str]) -> None:
    """Write the views into a new DuckDB file and rename it over the catalog, so readers see one or the other."""
    fd, tmp = tempfile.mkstemp(prefix=TEMP_CATALOG_PREFIX, suffix=".duckdb", dir=root)
    os.close(fd)
    os.unlink(tmp)  # DuckDB creates the file itself
    try:
        con = duckdb.connect(tmp)
        try:
            for sql in statements.values():
                con.execute(sql)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(tmp, catalog_path(root))
    finally:
        Path(tmp).unlink(missing_ok=True)
        Path(tmp + ".wal").unlink(missing_ok=True)


def _drop_old_publications(root: Path, current: Path) -> None:
    """Remove publications older than the KEPT_PUBLICATIONS newest up to `current` (newer ones are being built)."""
    if not published_dir(root).is_dir():
        return
    older = sorted(p for p in published_dir(root).iterdir() if p.is_dir() and p.name <= current.name)
    for folder in older[:-KEPT_PUBLICATIONS]:
        shutil.rmtree(folder, ignore_errors=True)
