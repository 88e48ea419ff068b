"""The report's MCTS section: each matchup's overall win rate beside its opponent's control, as a compact table and a
plot, from mcts_evaluation_summary."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from jbag_pipeline.storage.render import MISSING, compact_interval, compact_p, compact_rate  # noqa: E402

PANELS_PER_ROW = 3  # games side by side in the plot (the page is 1240 px wide)
AGENT_LABELS = {"jsonbag_mcts": "JSON-Bag MCTS", "heuristic_mcts": "heuristic MCTS", "jsonbag_osla": "JSON-Bag OSLA",
                "score_mcts": "score MCTS", "baseline_osla": "baseline OSLA"}


def _label(agent: str) -> str:
    return AGENT_LABELS.get(agent, agent)


def _overall(summary: pl.DataFrame) -> pl.DataFrame:
    return summary.filter(pl.col("scope") == "overall").sort("game", "opponent", "agent")


def compact_mcts(summary: pl.DataFrame) -> pl.DataFrame:
    """One line per game and matchup: n, win rate [95%], the control's, Holm p, verdict and whether it is decided."""
    out = {"game": [], "agent": [], "against": [], "n": [], "win rate [95%]": [], "control": [], "p Holm": [],
           "verdict": [], "decided": []}
    for row in _overall(summary).iter_rows(named=True):
        out["game"].append(row["game"])
        out["agent"].append(_label(row["agent"]))
        out["against"].append(_label(row["opponent"]))
        out["n"].append(str(row["games"]))
        out["win rate [95%]"].append(compact_interval(row["win_rate"], row["win_rate_low"], row["win_rate_high"]))
        out["control"].append(compact_rate(row["control_win_rate"]))
        out["p Holm"].append(compact_p(row["p_value_holm"]))
        out["verdict"].append(row["verdict"] or MISSING)
        out["decided"].append(MISSING if row["decided"] is None else ("yes" if row["decided"] else "no"))
    return pl.DataFrame(out, schema={c: pl.String for c in out})


def mcts_notes(summary: pl.DataFrame) -> list[str]:
    """Per game, the plain answer: where JSON-Bag MCTS beats score MCTS and JSON-Bag OSLA, and where not."""
    notes = []
    overall = _overall(summary).filter(pl.col("agent") == "jsonbag_mcts")
    for game in overall["game"].unique(maintain_order=True).to_list():
        rows = overall.filter(pl.col("game") == game)
        parts = [f"against {_label(row['opponent'])} {row['verdict']} (win rate {row['win_rate']:.2f} vs "
                 f"{row['control_win_rate']:.2f}, n = {row['games']})" for row in rows.iter_rows(named=True)]
        budget = (f"{rows['iterations'][0]} iterations, leaf depth {rows['leaf_depth'][0]}, value "
                  f"{rows['value_pair'][0]}")
        notes.append(f"{game} ({budget}): JSON-Bag MCTS " + "; ".join(parts) + ".")
    return notes


def mcts_plot(summary: pl.DataFrame):
    """Per game a panel: each matchup's win rate with its 95% Wilson interval, its control's win rate beside it."""
    overall = _overall(summary)
    games = overall["game"].unique(maintain_order=True).to_list()
    columns = min(PANELS_PER_ROW, len(games))
    rows = -(-len(games) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 4.2 * rows), squeeze=False, sharey=True)
    for ax in axes.flat[len(games):]:
        ax.set_visible(False)
    for ax, game in zip(axes.flat, games):
        part = overall.filter(pl.col("game") == game)
        rate = part["win_rate"].to_numpy()
        err = [rate - part["win_rate_low"].to_numpy(), part["win_rate_high"].to_numpy() - rate]
        x = range(part.height)
        ax.errorbar(x, rate, yerr=err, fmt="o", color="tab:blue", capsize=3, label="agent (95% Wilson)")
        ax.plot(x, part["control_win_rate"].to_list(), "s", color="tab:red", label="control: opponent in every seat")
        labels = [f"{_label(a)}\nvs {_label(o)}" for a, o in zip(part["agent"], part["opponent"])]
        ax.set_xticks(list(x), labels, rotation=90, fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title(game, fontsize=9)
        ax.grid(axis="y", alpha=0.25)
    for row in axes:
        row[0].set_ylabel("win rate")
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
