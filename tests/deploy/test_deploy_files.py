"""deploy/ parses and agrees with itself and with the code: one image everywhere, the dask extra in it, the
`dask` commands and options that exist, the scheduler address the operator's Service gives, the environment
variables the compute resource reads, and `jbag run` command lines the CLI accepts."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from jbag_pipeline.cli.commands import build_parser
from jbag_pipeline.compute import check_scheduler_address, make_compute
from jbag_pipeline.resources import compute_from_env

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
DASK = Path(sys.executable).with_name("dask")


def _yaml(name: str):
    return yaml.safe_load((DEPLOY / name).read_text())


def _dask_cluster() -> dict:
    return _yaml("kubernetes/dask-cluster.yaml")


def _container(role: str) -> dict:
    (container,) = _dask_cluster()["spec"][role]["spec"]["containers"]
    return container


def _user_deployment() -> dict:
    (deployment,) = _yaml("values.yaml")["dagster-user-deployments"]["deployments"]
    return deployment


def _scheduler_address() -> str:
    """The in-cluster address of the operator's scheduler Service: <cluster>-scheduler.<namespace>, port tcp-comm."""
    cluster = _dask_cluster()
    port = next(p["port"] for p in cluster["spec"]["scheduler"]["service"]["ports"] if p["name"] == "tcp-comm")
    name, namespace = cluster["metadata"]["name"], cluster["metadata"]["namespace"]
    return f"tcp://{name}-scheduler.{namespace}.svc.cluster.local:{port}"


@pytest.fixture(scope="module")
def dask_help() -> dict[str, str]:
    if not DASK.exists():
        pytest.skip(f"no dask command at {DASK} (the dask extra)")
    return {command: subprocess.run([str(DASK), command, "--help"], capture_output=True, text=True,
                                    timeout=120, check=True).stdout for command in ("scheduler", "worker")}


def _has_option(help_text: str, option: str) -> bool:
    """Whether `dask ... --help` lists `option` (also as the --no-x half of a --x / --no-x flag)."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text) is not None


def test_the_dask_cluster_manifest_is_a_dask_cluster_of_the_user_code_image():
    cluster = _dask_cluster()
    assert (cluster["apiVersion"], cluster["kind"]) == ("kubernetes.dask.org/v1", "DaskCluster")
    image = _user_deployment()["image"]
    images = {_container("worker")["image"], _container("scheduler")["image"]}
    assert images == {f"{image['repository']}:{image['tag']}"}
    assert cluster["metadata"]["namespace"] == _yaml("values.yaml")["runLauncher"]["config"]["k8sRunLauncher"][
        "jobNamespace"]
    service = cluster["spec"]["scheduler"]["service"]
    assert service["selector"] == {"dask.org/cluster-name": cluster["metadata"]["name"],
                                   "dask.org/component": "scheduler"}
    container_ports = {p["name"]: p["containerPort"] for p in _container("scheduler")["ports"]}
    assert {p["targetPort"] for p in service["ports"]} <= set(container_ports)
    assert container_ports["tcp-comm"] == 8786


def test_the_image_installs_the_dask_extra_the_manifest_runs():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    extras = re.search(r'pip install [^\n]*-e "\.\[([^\]]+)\]"', dockerfile)
    assert extras and "dask" in extras.group(1).split(",")
    pyproject = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^dask = \[\n\s+"dask\[distributed\]==[^"]+",\n\s+"distributed==[^"]+",\n\]', pyproject, re.M)


def test_the_manifest_runs_dask_commands_with_options_they_have(dask_help):
    for role in ("scheduler", "worker"):
        args = [str(a) for a in _container(role)["args"]]
        assert args[:2] == ["dask", role]
        options = [a for a in args[2:] if a.startswith("--")]
        assert all(_has_option(dask_help[role], o) for o in options), options


def test_every_run_gets_the_operators_scheduler_address():
    address = _scheduler_address()
    env = {e["name"]: e["value"] for e in _user_deployment()["env"]}
    assert _user_deployment()["includeConfigInLaunchedRuns"]["enabled"]  # run pods inherit the env
    instance = dict(v.split("=", 1) for v in _yaml("dagster.yaml")["run_launcher"]["config"]["env_vars"])
    for variables in (env, instance):
        assert variables["JBAG_COMPUTE"] == "dask" and variables["JBAG_SCHEDULER"] == address
    check_scheduler_address(address)


def test_the_compute_resource_reads_what_the_deployment_sets(monkeypatch):
    env = {e["name"]: e["value"] for e in _user_deployment()["env"]}
    for name in ("JBAG_COMPUTE", "JBAG_SCHEDULER"):
        monkeypatch.setenv(name, env[name])
    resource = compute_from_env()
    compute = resource.get_compute()  # validates without connecting
    assert (compute.name, compute.scheduler) == ("dask", _scheduler_address())


def _jbag_run_lines(text: str) -> list[list[str]]:
    """The `jbag run ...` command lines inside the ```sh blocks of a markdown text (comments dropped)."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("jbag run"):
                lines.append(shlex.split(line)[1:])
    return lines


def _backquoted_jbag_runs(text: str) -> list[list[str]]:
    return [shlex.split(found.replace("<its address>", "tcp://10.0.0.1:8786")
                        .replace("<the scheduler's address>", "tcp://10.0.0.1:8786"))[1:]
            for found in re.findall(r"`(jbag run --compute dask[^`]*)`", re.sub(r"\s*\n\s*", " ", text))]


@pytest.mark.parametrize("document", ["deploy/README.md", "README.md"])
def test_the_documented_jbag_run_commands_parse_with_the_cli(document):
    text = (REPO / document).read_text()
    commands = _jbag_run_lines(text) + _backquoted_jbag_runs(text)
    dask_runs = [c for c in commands if "dask" in c]
    assert dask_runs, f"{document} shows no jbag run --compute dask"
    for argv in commands:
        args = build_parser().parse_args(argv)
        if args.compute:
            compute = make_compute(args.compute, args.scheduler, args.workers)
            assert compute.name == "dask" and compute.scheduler.startswith("tcp://")
    in_cluster = [c for c in dask_runs if any(".svc.cluster.local" in a for a in c)]
    assert all(_scheduler_address() in c for c in in_cluster)


def _launcher():
    spec = importlib.util.spec_from_file_location("slurm_launch", DEPLOY / "slurm" / "launch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports no dask_jobqueue: main() does
    return module


def test_the_slurm_config_has_what_slurm_cluster_needs(dask_help):
    slurm = _yaml("slurm/jobqueue.yaml")["jobqueue"]["slurm"]
    assert {"cores", "processes", "memory", "walltime", "queue", "account", "python"} <= set(slurm)
    assert slurm["cores"] % slurm["processes"] == 0  # whole threads per worker: here one each
    assert re.fullmatch(r"\d+:\d{2}:\d{2}", slurm["walltime"]) and re.fullmatch(r"\d+(GB|GiB)", slurm["memory"])
    assert slurm["python"].endswith("/bin/python")
    assert all(_has_option(dask_help["worker"], o.split("=")[0]) for o in slurm["worker-extra-args"])


def test_the_slurm_launcher_runs_jbag_with_the_clis_dask_flags():
    launcher = _launcher()
    args, jbag_args = launcher.parse_args(["--jobs", "6", "--", "--preset", "paper", "--games", "connect4"])
    assert args.jobs == 6 and args.config == DEPLOY / "slurm" / "jobqueue.yaml"
    command = launcher.jbag_command("tcp://10.1.2.3:40123", jbag_args)
    assert command[1:4] == ["-m", "jbag_pipeline.cli", "run"]
    parsed = build_parser().parse_args(command[3:])
    assert (parsed.compute, parsed.scheduler, parsed.preset, parsed.games) == (
        "dask", "tcp://10.1.2.3:40123", "paper", "connect4")
    make_compute(parsed.compute, parsed.scheduler)


def test_the_slurm_launcher_puts_the_yaml_into_dasks_configuration():
    import dask.config

    slurm = _launcher().load_config(DEPLOY / "slurm" / "jobqueue.yaml")
    assert dask.config.get("jobqueue.slurm.cores") == slurm["cores"] == 32
    assert dask.config.get("jobqueue.slurm.python") == slurm["python"]
