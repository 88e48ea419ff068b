"""The inbox sensor: trajectory files dropped in <data dir>/inbox/ are ingested and the ingested model refreshed.

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
from jbag_pipeline.assets.ingested_model import INGESTED_MODEL_ASSETS
from jbag_pipeline.ingest.trajectories import trajectory_files
from jbag_pipeline.resources import JbagSettings

INBOX_KEYS = [dg.AssetKey(name) for name in INGEST_KEYS] + [a.key for a in INGESTED_MODEL_ASSETS]


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
def inbox_sensor(context: dg.SensorEvaluationContext, settings: JbagSettings):
    inbox = settings.root() / "inbox"
    seen = decode_cursor(context.cursor)
    current = inbox_files(inbox)
    new = sorted(name for name, mtime in current.items() if seen.get(name) != mtime)
    if not new:
        return dg.SensorResult(skip_reason=f"no new or changed files in {inbox}", cursor=encode_cursor(current))
    listing = orjson.dumps([[name, current[name]] for name in new])
    request = dg.RunRequest(
        run_key=f"inbox:{hashlib.sha256(listing).hexdigest()[:16]}",
        asset_selection=INBOX_KEYS,
        run_config={"ops": {"ingested_games": {"config": {"paths": [str(inbox / name) for name in new]}}}},
        tags={"jbag/ingest": "inbox", "jbag/inbox_files": str(len(new))},  # deploy/: at most one ingest at a time
    )
    return dg.SensorResult(run_requests=[request], cursor=encode_cursor(current))
