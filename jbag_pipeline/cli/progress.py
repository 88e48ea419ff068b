"""What `jbag run` shows while it runs: a line per step (not a terminal) or live bars (a terminal), with the
games done and an ETA measured from the run so far, then a summary table."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn
from rich.table import Table
from rich.text import Text


@dataclass
class StepResult:
    """One step of a `jbag run` (one Dagster run): its assets and partition, wall seconds, rows per asset, games
    played, and the seconds of each of its ops (the assets one op writes, joined by ', ') and, where measured, its
    peak RSS in MB and CPU seconds (op_usage: op -> {"peak_rss_mb", "cpu_seconds"})."""

    assets: list[str]
    partition: str | None
    seconds: float
    rows: dict[str, int]
    games: int = 0
    op_seconds: dict[str, float] = field(default_factory=dict)
    op_usage: dict[str, dict[str, float]] = field(default_factory=dict)


def eta_seconds(done: float, total: float, elapsed: float) -> float | None:
    """Seconds left at the rate measured so far (elapsed / done per unit); None while nothing is done yet."""
    if done <= 0 or elapsed <= 0 or total <= 0:
        return None
    return max(0.0, elapsed / done * (total - done))


def run_eta_seconds(measured: dict[tuple, list[float]], todo: list[tuple], current: tuple | None = None,
                    step_elapsed: float = 0.0, games_done: int = 0, games_total: int = 0) -> float | None:
    """Seconds left in a run: each step still to do takes the mean of the finished steps of its assets (steps of
    other assets not measured yet: the mean of all finished steps); the current step that mean less its elapsed
    time, or, while no step of its assets has finished, what its games' rate leaves. None until a step has
    finished or a game is done."""
    finished = [seconds for times in measured.values() for seconds in times]
    by_games = eta_seconds(games_done, games_total, step_elapsed) if current is not None else None
    if finished:
        overall = sum(finished) / len(finished)
    elif by_games is not None:
        overall = step_elapsed / (games_done / games_total)  # the current step's projected length
    else:
        return None

    def mean(kind: tuple) -> float:
        return sum(measured[kind]) / len(measured[kind]) if measured.get(kind) else overall

    rest = sum(mean(kind) for kind in todo)
    if current is not None:
        # a finished step of these assets includes their work besides the games: the better guess
        rest += by_games if by_games is not None and not measured.get(current) else max(0.0, mean(current) - step_elapsed)
    return rest


def format_seconds(seconds: float) -> str:
    """'42s', '3m05s', '2h07m'."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def format_eta(seconds: float | None) -> str:
    return "ETA unknown" if seconds is None else f"ETA {format_seconds(seconds)}"


def step_label(index: int, steps: int, assets: list[str], partition: str | None) -> str:
    return f"[{index}/{steps}] {', '.join(assets)}" + (f"  ({partition})" if partition else "")


LOG_LINE_LIMIT = 160  # characters of a plain progress line (a log, CI)


def group_label(assets: list[str], groups: dict[str, str]) -> str:
    """The asset groups of a step's assets, each once, in the order of `groups` (the definitions' order: the
    pipeline's, 'selfplay, model, evaluation'); an asset of no known group stands for itself, last."""
    rank = {group: i for i, group in enumerate(dict.fromkeys(groups.values()))}
    named = dict.fromkeys(groups.get(asset, asset) for asset in assets)
    return ", ".join(sorted(named, key=lambda group: rank.get(group, len(rank))))


def fit(text: str, tail: str = "", limit: int = LOG_LINE_LIMIT) -> str:
    """`text` + `tail` in at most `limit` characters: `text` cut (ending in '...') to leave `tail` whole."""
    if len(text) + len(tail) <= limit:
        return text + tail
    room = max(0, limit - len(tail) - 3)
    return (text[:room] + "..." + tail)[:limit]


@dataclass
class RunningStep:
    """A step that has started and not finished: when, and its games so far."""

    start: float
    games_done: int = 0
    games_total: int = 0


class RunProgress:
    """Steps and games of one `jbag run`, and its ETA (run_eta_seconds) from the steps finished so far. The first
    `parallel_steps` steps may run `parallel` at a time (the games' runs, on local processes)."""

    def __init__(self, clock=time.perf_counter):
        self.clock = clock
        self.kinds: list[tuple] = []  # the assets of each step, in run order
        self.steps_done = 0
        self.finished: set[int] = set()
        self.measured: dict[tuple, list[float]] = {}
        self.running: dict[int, RunningStep] = {}
        self.parallel, self.parallel_steps = 1, 0

    @property
    def steps(self) -> int:
        return len(self.kinds)

    def run_started(self, steps: list[list[str]], headline: str, parallel: int = 1, parallel_steps: int = 0) -> None:
        self.kinds = [tuple(assets) for assets in steps]
        self.parallel, self.parallel_steps = parallel, parallel_steps if parallel > 1 else 0

    def step_started(self, index: int, assets: list[str], partition: str | None) -> None:
        self.running[index] = RunningStep(self.clock())

    def games(self, index: int, done: int, added: int) -> None:
        step = self.running[index]
        step.games_done += done
        step.games_total += added

    def step_done(self, index: int, result: StepResult) -> None:
        self.running.pop(index, None)  # its games now count in steps_done
        self.finished.add(index)
        self.steps_done += 1
        self.measured.setdefault(tuple(result.assets), []).append(result.seconds)

    def close(self) -> None:
        pass

    def run_eta(self) -> float | None:
        now = self.clock()
        todo = [i for i in range(1, self.steps + 1) if i not in self.running and i not in self.finished]
        if self.parallel == 1 and len(self.running) <= 1:
            index, step = next(iter(self.running.items()), (None, None))
            if step is None:
                return run_eta_seconds(self.measured, [self.kinds[i - 1] for i in todo])
            return run_eta_seconds(self.measured, [self.kinds[i - 1] for i in todo], self.kinds[index - 1],
                                   now - step.start, step.games_done, step.games_total)
        left = {i: run_eta_seconds(self.measured, [self.kinds[i - 1]]) for i in todo}
        for i, step in self.running.items():
            left[i] = run_eta_seconds(self.measured, [], self.kinds[i - 1], now - step.start, step.games_done,
                                      step.games_total)
        known = {i: seconds for i, seconds in left.items() if seconds is not None}
        if not known:
            return None if left else 0.0
        side_by_side = sum(seconds for i, seconds in known.items() if i <= self.parallel_steps)
        return side_by_side / self.parallel + sum(seconds for i, seconds in known.items() if i > self.parallel_steps)


class PlainProgress(RunProgress):
    """One plain line per step as it ends, of at most LOG_LINE_LIMIT characters (no bars, no control characters):
    the step's asset groups (`groups`: asset -> group; else the asset names), partition, seconds, games and the
    run's ETA. For logs, CI and tests; the rows written are in the summary table."""

    def __init__(self, emit=print, clock=time.perf_counter, groups: dict[str, str] | None = None):
        super().__init__(clock)
        self.emit, self.groups = emit, groups or {}

    def run_started(self, steps, headline, parallel=1, parallel_steps=0):
        super().run_started(steps, headline, parallel, parallel_steps)
        self.emit(fit(headline))

    def step_done(self, index, result):
        super().step_done(index, result)
        # the partition may be long (the ingested games rebuilt): its own share of the line
        details = ([fit(result.partition, limit=60)] if result.partition else []) + \
            ([f"{len(result.assets)} assets"] if len(result.assets) > 1 else [])
        where = f"  ({', '.join(details)})" if details else ""
        games = f"; games: {result.games}" if result.games else ""
        tail = f"{where}: done in {result.seconds:.1f}s{games}; run {format_eta(self.run_eta())}"
        self.emit(fit(f"[{index}/{self.steps}] {group_label(result.assets, self.groups)}", tail))


class EtaColumn(ProgressColumn):
    """The run's ETA (RunProgress.run_eta) on its bar; a step's from its games' rate (eta_seconds) on its bar."""

    def __init__(self, run: RunProgress):
        super().__init__()
        self.run = run

    def render(self, task) -> Text:
        if task.fields.get("kind") == "steps":
            return Text(format_eta(self.run.run_eta()), style="cyan")
        if task.total is None or task.finished:
            return Text("")
        return Text(format_eta(eta_seconds(task.completed, task.total, task.elapsed or 0.0)), style="cyan")


class LiveProgress(RunProgress):
    """Bars on a terminal: the run (steps, ETA) and each running step (games done/total, ETA); each finished step
    leaves one line, cut to the terminal's width."""

    def __init__(self, console: Console | None = None, clock=time.perf_counter):
        super().__init__(clock)
        self.console = console or Console()
        self.bars = Progress(TextColumn("{task.description}", table_column=None), BarColumn(bar_width=20),
                             TextColumn("{task.fields[count]}"), EtaColumn(self), console=self.console,
                             transient=True, expand=False)
        self.run_task, self.step_tasks = None, {}

    def _description(self, text: str) -> str:
        room = max(10, self.console.width - 50)  # what the bar, the counts and the ETA leave
        return text if len(text) <= room else text[:room - 1] + "…"

    def run_started(self, steps, headline, parallel=1, parallel_steps=0):
        super().run_started(steps, headline, parallel, parallel_steps)
        self.console.print(headline, overflow="ellipsis", no_wrap=True, crop=True, markup=False)
        self.bars.start()
        self.run_task = self.bars.add_task("run", total=self.steps, count=f"steps 0/{self.steps}", kind="steps")

    def step_started(self, index, assets, partition):
        super().step_started(index, assets, partition)
        for done in [i for i in self.step_tasks if i in self.finished]:  # finished bars stay until the next start
            self.bars.remove_task(self.step_tasks.pop(done))
        label = self._description(step_label(index, self.steps, assets, partition))
        self.step_tasks[index] = self.bars.add_task(label, total=None, count="", kind="games")

    def games(self, index, done, added):
        super().games(index, done, added)
        step = self.running[index]
        self.bars.update(self.step_tasks[index], total=step.games_total, completed=step.games_done,
                         count=f"games {step.games_done}/{step.games_total}")
        self._update_run()

    def _update_run(self):
        share = sum(step.games_done / step.games_total for step in self.running.values() if step.games_total)
        self.bars.update(self.run_task, completed=self.steps_done + share,
                         count=f"steps {self.steps_done}/{self.steps}")

    def step_done(self, index, result):
        super().step_done(index, result)
        games = f", {result.games} games" if result.games else ""
        line = f"{step_label(index, self.steps, result.assets, result.partition)}: {result.seconds:.1f}s{games}"
        self.bars.console.print(line, overflow="ellipsis", no_wrap=True, crop=True, markup=False)
        self._update_run()

    def close(self):
        self.bars.stop()


@dataclass
class SummaryRow:
    name: str
    partitions: int
    rows: int
    seconds: float
    cpu_seconds: float | None = None  # summed over partitions; None: not measured
    peak_rss_mb: float | None = None  # the largest of its partitions


def _add(total: float | None, value: float | None, combine) -> float | None:
    return total if value is None else value if total is None else combine(total, value)


def summarize(results: list[StepResult]) -> tuple[list[SummaryRow], SummaryRow]:
    """Per op (the assets it writes), in run order: partitions materialised, rows written, seconds, CPU seconds and
    the peak RSS of its largest partition; and the total (its seconds are the steps' wall seconds, which include
    Dagster's own time between ops; its peak the largest op's)."""
    by_name: dict[str, SummaryRow] = {}
    for result in results:
        for name, seconds in result.op_seconds.items():
            row = by_name.setdefault(name, SummaryRow(name, 0, 0, 0.0))
            row.partitions += result.partition is not None
            row.rows += sum(result.rows.get(asset, 0) for asset in name.split(", "))
            row.seconds += seconds
            used = result.op_usage.get(name, {})
            row.cpu_seconds = _add(row.cpu_seconds, used.get("cpu_seconds"), float.__add__)
            row.peak_rss_mb = _add(row.peak_rss_mb, used.get("peak_rss_mb"), max)
    rows = list(by_name.values())
    cpu = [r.cpu_seconds for r in rows if r.cpu_seconds is not None]
    peaks = [r.peak_rss_mb for r in rows if r.peak_rss_mb is not None]
    total = SummaryRow("total", sum(r.partition is not None for r in results), sum(sum(r.rows.values()) for r in results),
                       sum(r.seconds for r in results), sum(cpu) if cpu else None, max(peaks) if peaks else None)
    return rows, total


def summary_table(results: list[StepResult]) -> Table:
    """The summary as a table: op, partitions, rows, seconds, CPU seconds, peak RSS, then the total and the games
    played."""
    rows, total = summarize(results)
    table = Table(box=box.SIMPLE_HEAD, title=f"{len(results)} steps, {sum(r.games for r in results)} games")
    table.add_column("assets (one op)", overflow="fold")
    for name in ("partitions", "rows", "seconds", "CPU s", "peak RSS MB"):
        table.add_column(name, justify="right")
    for row in rows + [total]:
        table.add_row(row.name, str(row.partitions) if row.partitions else "-", f"{row.rows:,}", f"{row.seconds:.1f}",
                      "-" if row.cpu_seconds is None else f"{row.cpu_seconds:.1f}",
                      "-" if row.peak_rss_mb is None else f"{row.peak_rss_mb:,.0f}",
                      style="bold" if row is total else None)
    return table
