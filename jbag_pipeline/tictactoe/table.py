"""The `tictactoe_compression` table (every rank of SVD and HOSVD, exact match outcomes) and its plot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from jbag_pipeline.schemas import TICTACTOE_COMPRESSION, conform
from jbag_pipeline.tictactoe.agents import outcome_probabilities, softmax_policy, uniform_policy
from jbag_pipeline.tictactoe.compression import Compression, hosvd_compression, svd_compression
from jbag_pipeline.tictactoe.exact import exact_values

# setting name -> (opponent, seat of the compressed agent: 0 first, 1 second)
SETTINGS = {
    "vs_random_first": ("random", 0),
    "vs_random_second": ("random", 1),
    "vs_full_first": ("full", 0),
    "vs_full_second": ("full", 1),
}


def agent_results(agent: np.ndarray, opponent: np.ndarray, seat: int) -> tuple[float, float, float]:
    """Exact (win, draw, loss) of `agent` playing in `seat` against `opponent`, from the agent's side."""
    if seat == 0:
        first, draw, second = outcome_probabilities(agent, opponent)
        return first, draw, second
    first, draw, second = outcome_probabilities(opponent, agent)
    return second, draw, first


def _method_rows(compression: Compression, opponents: dict[str, np.ndarray], w: float) -> list[dict]:
    rows = []
    for i, r in enumerate(compression.ranks):
        agent = softmax_policy(compression.values[i], w)
        row = {"method": compression.method, "r": int(r), "Cr": float(compression.compression_ratios[i]),
               "E": float(compression.errors[i])}
        for setting, (opponent, seat) in SETTINGS.items():
            win, draw, loss = agent_results(agent, opponents[opponent], seat)
            row |= {f"{setting}_win": win, f"{setting}_draw": draw, f"{setting}_loss": loss}
        rows.append(row)
    return rows


def compression_table(w: float = 10.0, terminal_as_zero: bool = False) -> pl.DataFrame:
    """One row per (method, r): Cr, E, and exact win/draw/loss of the rank-r softmax agent in each setting.

    Opponents: uniformly random play, and the softmax agent (same w) on the uncompressed f.
    """
    f = exact_values(terminal_as_zero)
    opponents = {"random": uniform_policy(), "full": softmax_policy(f, w)}
    rows = _method_rows(svd_compression(f), opponents, w) + _method_rows(hosvd_compression(f), opponents, w)
    return conform(pl.DataFrame(rows), TICTACTOE_COMPRESSION, "tictactoe_compression")


def plot_compression(table: pl.DataFrame, path: str | Path) -> Path:
    """Win rate (vs random, vs the uncompressed agent) and relative error E against Cr for both methods."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    needed = {"method", "Cr", "E"} | {f"{s}_win" for s in SETTINGS}
    missing = sorted(needed - set(table.columns))
    if missing or table.height == 0:
        raise ValueError(f"plot_compression: table lacks rows or columns {missing}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    panels = [("vs random", "vs_random"), ("vs uncompressed agent", "vs_full")]
    figure, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for method, style in (("svd", "-"), ("hosvd", "--")):
        rows = table.filter(pl.col("method") == method).sort("Cr")
        cr = rows["Cr"].to_numpy()
        for axis, (title, prefix) in zip(axes[:2], panels):
            for seat, marker in (("first", "o"), ("second", "s")):
                axis.plot(cr, rows[f"{prefix}_{seat}_win"].to_numpy(), style, marker=marker, markersize=3,
                          label=f"{method.upper()}, as {seat}")
            axis.set_title(f"win rate {title}")
        axes[2].plot(cr, rows["E"].to_numpy(), style, marker=".", label=method.upper())
    for axis in axes:
        axis.set_xlabel("compression ratio Cr")
        axis.legend(fontsize=8)
    axes[0].set_ylabel("win probability")
    axes[2].set_ylabel("relative error E")
    axes[2].set_title("relative error")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
