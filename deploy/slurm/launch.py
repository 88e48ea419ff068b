"""Start a Dask cluster on SLURM with dask-jobqueue's SLURMCluster and run `jbag run` on it.

Run it on the login node, from the jbag checkout on the shared file system (`pip install dask-jobqueue` there):

    python deploy/slurm/launch.py --jobs 4 -- --preset paper

The scheduler runs in this process; `--jobs` SLURM jobs of deploy/slurm/jobqueue.yaml's shape hold the workers;
`jbag run --compute dask --scheduler <its address>` then plays every batch of games on them, and the cluster is
cancelled when jbag exits. Everything after `--` goes to `jbag run`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

CONFIG = Path(__file__).with_name("jobqueue.yaml")


def jbag_command(scheduler: str, jbag_args: list[str]) -> list[str]:
    """The `jbag run` command line that plays its games on the cluster at `scheduler`."""
    return [sys.executable, "-m", "jbag_pipeline.cli", "run", "--compute", "dask", "--scheduler", scheduler, *jbag_args]


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The launcher's own options (before `--`) and the `jbag run` arguments (after it)."""
    at = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4, help="SLURM jobs of workers (default 4)")
    parser.add_argument("--config", type=Path, default=CONFIG, help="dask-jobqueue YAML (default: jobqueue.yaml here)")
    parser.add_argument("--wait", type=float, default=1800, help="seconds to wait for the first worker (default 1800)")
    return parser.parse_args(argv[:at]), argv[at + 1:]


def load_config(path: Path) -> dict:
    """The dask-jobqueue settings of `path`, merged into Dask's configuration (they win over ~/.config/dask)."""
    import dask.config
    import yaml

    settings = yaml.safe_load(path.read_text())
    dask.config.update(dask.config.config, settings, priority="new")
    return settings["jobqueue"]["slurm"]


def main(argv: list[str] | None = None) -> int:
    args, jbag_args = parse_args(sys.argv[1:] if argv is None else argv)
    load_config(args.config)
    from dask_jobqueue import SLURMCluster
    from distributed import Client

    with SLURMCluster() as cluster, Client(cluster) as client:
        cluster.scale(jobs=args.jobs)
        print(f"SLURM job script:\n{cluster.job_script()}\nscheduler at {cluster.scheduler_address}", flush=True)
        client.wait_for_workers(1, timeout=args.wait)
        return subprocess.run(jbag_command(cluster.scheduler_address, jbag_args)).returncode


if __name__ == "__main__":
    sys.exit(main())
