"""The inbox sensor: trajectory files dropped in <data dir>/inbox/ are ingested and the ingested model refreshed.

A tick that finds new or changed files requests one ingest run (ingested_games). A later tick, once no ingest
run of the sensor is queued or running, requests one run per ingested game whose model partitions are stale
(partition_key = the game; automation/ingested.py), with the `ingested_game` partitions synced to the lake's
games first (dynamic_partitions_requests). Its run key names the game's ingested inputs, so a game is asked for
once per state of its inputs.

Cursor: the JSON list of [file name relative to the inbox, mtime in ns] of every file already requested,
sorted. A file is new when its name is not in the cursor or its mtime changed (a rewritten file is read
again, and re-ingesting a file replaces what it gave before). Hidden files and *.tmp / *.part are ignored,
so a writer should copy to such a name and rename into place. The sensor starts STOPPED.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import dagster as dg
import orjson

from jbag_pipeline.assets.ingest import INGEST_KEYS
from jbag_pipeline.assets.ingested_model import INGESTED_GAMES, INGESTED_MODEL_ASSETS, partition_changes
from jbag_pipeline.automation.ingested import changed_games, run_key
from jbag_pipeline.ingest.store import GAMES_TABLE, partitions
from jbag_pipeline.ingest.trajectories import trajectory_files
from jbag_pipeline.resources import JbagSettings, LakeResource

INGEST_RUN_KEYS = [dg.AssetKey(name) for name in INGEST_KEYS]
INBOX_KEYS = INGEST_RUN_KEYS + [a.key for a in INGESTED_MODEL_ASSETS]
INGEST_TAG = "jbag/ingest"  # on every run the sensor requests; deploy/: at most one ingest run at a time
IN_PROGRESS = [dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.STARTING,
               dg.DagsterRunStatus.STARTED]


def inbox_files(inbox: Path) -> dict[str, int]:
    """Trajectory files under `inbox` (as `jbag ingest` finds them in a folder): relative name -> mtime in ns."""
    if not inbox.is_dir():
        return {}
    return {path.relative_to(inbox.resolve()).as_posix(): path.stat().st_mtime_ns for path in trajectory_files([inbox])}


def decode_cursor(cursor: str | None) -> dict[str, int]:
    if not cursor:
        return {}
    try:
        return {name: int(mtime) for name, mtime in orjson.loads(cursor)}
    except (orjson.JSONDecodeError, TypeError, ValueError):
        raise ValueError(f"inbox_sensor: cursor is not a JSON list of [name, mtime_ns] pairs: "
                         f"{cursor[:80]!r}") from None


def encode_cursor(files: dict[str, int]) -> str:
    return orjson.dumps(sorted([name, mtime] for name, mtime in files.items())).decode()


@dg.sensor(name="inbox_sensor", asset_selection=INBOX_KEYS, minimum_interval_seconds=60,
           default_status=dg.DefaultSensorStatus.STOPPED,
           description="Ingests new or changed trajectory files in <data dir>/inbox/ (ingest group assets).")
def inbox_sensor(context: dg.SensorEvaluationContext, settings: JbagSettings, lake: LakeResource):
    root = lake.root()
    inbox = root / "inbox"
    seen = decode_cursor(context.cursor)
    current = inbox_files(inbox)
    new = sorted(name for name, mtime in current.items() if seen.get(name) != mtime)
    if new:
        return dg.SensorResult(run_requests=[ingest_request(inbox, new, current)], cursor=encode_cursor(current))
    if context.instance.get_runs(dg.RunsFilter(tags={INGEST_TAG: "inbox"}, statuses=IN_PROGRESS), limit=1):
        return dg.SensorResult(skip_reason="an ingest run is queued or running", cursor=encode_cursor(current))
    add, delete = partition_changes(context.instance, partitions(root, GAMES_TABLE))
    requests = [dg.RunRequest(run_key=run_key(settings, root, game), partition_key=game,
                              asset_selection=[dg.AssetKey(table) for table in tables],
                              tags={INGEST_TAG: "model", "jbag/ingested_game": game})
                for game, tables in changed_games(context.instance, settings, root).items()]
    if not requests and not add and not delete:
        return dg.SensorResult(skip_reason=f"no new or changed files in {inbox}", cursor=encode_cursor(current))
    return dg.SensorResult(run_requests=requests, cursor=encode_cursor(current), dynamic_partitions_requests=[
        *([INGESTED_GAMES.build_add_request(add)] if add else []),
        *([INGESTED_GAMES.build_delete_request(delete)] if delete else [])])


def ingest_request(inbox: Path, new: list[str], current: dict[str, int]) -> dg.RunRequest:
    """The ingest run of the `new` files of `inbox`."""
    listing = orjson.dumps([[name, current[name]] for name in new])
    return dg.RunRequest(
        run_key=f"inbox:{hashlib.sha256(listing).hexdigest()[:16]}",
        asset_selection=INGEST_RUN_KEYS,
        run_config={"ops": {"ingested_games": {"config": {"paths": [str(inbox / name) for name in new]}}}},
        tags={INGEST_TAG: "inbox", "jbag/inbox_files": str(len(new))},
    )
