"""The report's opening: a forest plot of the verdicts, the compact verdict table, learning curves and the ablation."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.transforms as transforms  # noqa: E402
import polars as pl  # noqa: E402

from jbag_pipeline.analysis.statistics import wilson_interval  # noqa: E402
from jbag_pipeline.storage.render import MISSING, compact_interval, compact_p, compact_rate  # noqa: E402

MAX_CELL_CHARS = 21  # the longest pair name (interval-interval_seg); a longer cell is cut with an ellipsis


def claim_word(claim: str | None) -> str:
    """The paper's claim in one word: beats, loses, or a dash when the paper does not make one."""
    if claim and claim.startswith("beats baseline"):
        return "beats"
    if claim and claim.startswith("loses to baseline"):
        return "loses"
    return MISSING


def control_by_game(control: pl.DataFrame) -> pl.DataFrame:
    """Per game the control arm pooled over seats: wins / games, its 95% Wilson interval and the number of seats."""
    pooled = control.group_by("game").agg(pl.col("wins").sum(), pl.col("games").sum(), pl.len().alias("seats"))
    rows = []
    for row in pooled.sort("game").iter_rows(named=True):
        low, high = wilson_interval(row["wins"], row["games"])
        rate = row["wins"] / row["games"] if row["games"] else math.nan
        rows.append({"game": row["game"], "control": rate, "control_low": low, "control_high": high,
                     "seats": row["seats"]})
    return pl.DataFrame(rows, schema={"game": pl.String, "control": pl.Float64, "control_low": pl.Float64,
                                      "control_high": pl.Float64, "seats": pl.Int64})


def forest_plot(verdicts: pl.DataFrame, control: pl.DataFrame | None):
    """One row per game: the best pair's win rate and interval above the control's, chance faint, the paper's claim
    and our verdict written at the right. Without evaluation_control the control is the verdicts' point only."""
    rows = verdicts.sort("game", descending=True)  # matplotlib counts rows from the bottom: alphabetical top down
    if control is not None:
        rows = rows.join(control_by_game(control), on="game", how="left")
    else:
        rows = rows.with_columns(pl.col("control_win_rate").alias("control"),
                                 pl.lit(None, pl.Float64).alias("control_low"),
                                 pl.lit(None, pl.Float64).alias("control_high"), pl.lit(None, pl.Int64).alias("seats"))
    fig, ax = plt.subplots(figsize=(10, 0.62 * rows.height + 1.3))
    label_side = transforms.blended_transform_factory(ax.transAxes, ax.transData)
    labelled = set()

    def label(text: str) -> str | None:  # each series once in the legend, whichever row draws it first
        if text in labelled:
            return None
        labelled.add(text)
        return text

    for y, row in enumerate(rows.iter_rows(named=True)):
        if row["seats"]:
            ax.vlines(1 / row["seats"], y - 0.38, y + 0.38, color="grey", alpha=0.35, lw=1.5,
                      label=label("chance 1/seats"))
        _interval(ax, row["control"], row["control_low"], row["control_high"], y - 0.14, "s", "tab:red",
                  lambda: label("control: baseline OSLA in every seat"))
        _interval(ax, row["win_rate"], row["win_rate_low"], row["win_rate_high"], y + 0.14, "o", "tab:blue",
                  lambda: label("JSON-Bag OSLA, best pair"))
        claim = claim_word(row["paper_claim"])
        ax.text(1.02, y, f"paper: {claim}", transform=label_side, va="center", fontsize=9,
                color={"beats": "tab:green", "loses": "tab:purple"}.get(claim, "grey"), fontweight="bold")
        ax.text(1.17, y, f"ours: {row['verdict']}", transform=label_side, va="center", fontsize=9)
    ax.set_yticks(range(rows.height), [f"{g}\n{p}" for g, p in zip(rows["game"], rows["best_pair"])], fontsize=9)
    ax.set_ylim(-0.6, rows.height - 0.4)
    ax.set_xlim(-0.02, 1.02)  # a rate of 0 or 1 shows its whole marker
    ax.set_xlabel("win rate with its 95% Wilson interval")
    ax.grid(axis="x", alpha=0.25)
    if labelled:
        ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    return fig


def _interval(ax, rate, low, high, y, marker, color, label) -> None:
    """A point with its interval (a point alone when the interval is unknown); label() is asked only if drawn."""
    if rate is None or math.isnan(rate):
        return
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        ax.plot([rate], [y], marker=marker, color=color, ls="", label=label())
        return
    ax.errorbar([rate], [y], xerr=[[rate - low], [high - rate]], fmt=marker, color=color, capsize=3, label=label())


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS - 1] + "…"


def _decided(value) -> str:
    return MISSING if value is None else ("yes" if value else "no")


def compact_verdicts(verdicts: pl.DataFrame) -> pl.DataFrame:
    """The verdict table as short text cells, one line a game; a column the lake's verdicts lack is left out (an
    older lake has `stable` where a newer one has `decided` and the worst seat)."""
    columns = set(verdicts.columns)
    out = {"game": [], "claim": [], "best pair": [], "pairs": [], "n": [], "win rate [95%]": [], "control": [],
           "p Holm": [], "verdict": []}
    optional = [("worst seat", {"worst_seat", "worst_seat_win_rate", "worst_seat_control_win_rate"}),
                ("kept", {"counters_kept_win_rate"}), ("decided", {"decided"}), ("stable", {"stable"})]
    out.update({header: [] for header, needs in optional if needs <= columns})
    for row in verdicts.sort("game").iter_rows(named=True):
        out["game"].append(_cut(row["game"]))
        out["claim"].append(claim_word(row.get("paper_claim")))
        out["best pair"].append(_cut(row["best_pair"] or MISSING))
        out["pairs"].append(MISSING if row.get("pairs_compared") is None else str(row["pairs_compared"]))
        out["n"].append(MISSING if row.get("n") is None else str(row["n"]))
        out["win rate [95%]"].append(compact_interval(row["win_rate"], row["win_rate_low"], row["win_rate_high"]))
        out["control"].append(compact_rate(row.get("control_win_rate")))
        out["p Holm"].append(compact_p(row.get("p_value_holm")))
        out["verdict"].append(_cut(row["verdict"] or MISSING))
        if "worst seat" in out:
            seat = row["worst_seat"]
            out["worst seat"].append(MISSING if seat is None else
                                     f"{seat}: {compact_rate(row['worst_seat_win_rate'])} vs "
                                     f"{compact_rate(row['worst_seat_control_win_rate'])}")
        if "kept" in out:
            out["kept"].append(compact_rate(row["counters_kept_win_rate"]))
        if "decided" in out:
            out["decided"].append(_decided(row["decided"]))
        if "stable" in out:
            out["stable"].append(_decided(row["stable"]))
    return pl.DataFrame(out, schema={c: pl.String for c in out})


def verdict_notes(verdicts: pl.DataFrame) -> list[str]:
    """Per game a line with what the table cuts: the paper's claim in full and the caveats."""
    notes = []
    for row in verdicts.sort("game").iter_rows(named=True):
        line = f"{row['game']}: paper: {row.get('paper_claim') or MISSING}"
        notes.append(line + (f". Caveat: {row['caveat']}" if row.get("caveat") else ""))
    return notes


def learning_curves_plot(curve: pl.DataFrame):
    """One panel per game: each pair's win rate and interval against the number of training games, the control as a
    line; the x axis is logarithmic because the shares halve."""
    games = sorted(curve["game"].unique().to_list())
    columns = min(3, len(games))
    rows = math.ceil(len(games) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.9 * columns, 2.9 * rows), squeeze=False, sharey=True)
    for ax in axes.flat[len(games):]:
        ax.set_visible(False)
    for ax, game in zip(axes.flat, games):
        part = curve.filter(pl.col("game") == game).sort("pair", "train_games")
        pairs = part["pair"].unique(maintain_order=True).to_list()
        for i, pair in enumerate(pairs):
            points = part.filter(pl.col("pair") == pair)
            rate = points["win_rate"].to_numpy()
            dodge = 2 ** (0.06 * (i - (len(pairs) - 1) / 2))  # pairs side by side so their intervals do not overlap
            ax.errorbar(points["train_games"].to_numpy() * dodge, rate, marker="o", ms=4, capsize=2, label=pair,
                        yerr=[rate - points["win_rate_low"].to_numpy(), points["win_rate_high"].to_numpy() - rate])
        control = part.group_by("train_games").agg(pl.col("control_win_rate").mean()).sort("train_games")
        ax.plot(control["train_games"], control["control_win_rate"], color="tab:red", lw=1.2, label="control")
        ax.set_xscale("log", base=2)
        ax.set_xticks(control["train_games"].to_list(), [str(t) for t in control["train_games"]], fontsize=7)
        ax.minorticks_off()
        ax.set_ylim(0, 1)
        agent = ""
        if {"selfplay_agent", "budget"} <= set(part.columns):
            agent = f" ({part['selfplay_agent'][0]}, {part['budget'][0]})"
        ax.set_title(game + agent, fontsize=9)
        ax.set_xlabel("self-play games trained on", fontsize=8)
        ax.legend(fontsize=6, loc="upper left")
    for ax in axes[:, 0]:
        ax.set_ylabel("win rate (95% Wilson)", fontsize=8)
    fig.tight_layout()
    return fig


def curve_notes(curve: pl.DataFrame, verdicts: pl.DataFrame | None) -> list[str]:
    """Each game's plain sentence on where its verdict settles (verdicts.curve_note), when the verdicts have it."""
    if verdicts is None or "curve_note" not in verdicts.columns:
        return []
    notes = verdicts.filter(pl.col("game").is_in(curve["game"].unique().to_list()) & pl.col("curve_note").is_not_null())
    return [f"{game}: {note}" for game, note in notes.sort("game").select("game", "curve_note").iter_rows()]


def compact_ablation(ablation: pl.DataFrame) -> pl.DataFrame:
    """The value function ablation as short text cells: per game, factor and pair each level (the default starred)
    with its win rate and interval, the control, Holm's p against the control, the verdict and p against the default."""
    ordered = ablation.sort("game", "factor", "pair", pl.col("is_default").not_(), "level")
    out = {"game": [], "factor": [], "level": [], "pair": [], "n": [], "win rate [95%]": [], "control": [],
           "p Holm": [], "verdict": [], "p vs default": []}
    for row in ordered.iter_rows(named=True):
        out["game"].append(_cut(row["game"]))
        out["factor"].append(_cut(row["factor"]))
        out["level"].append(_cut(str(row["level"]) + (" *" if row["is_default"] else "")))
        out["pair"].append(_cut(row["pair"]))
        out["n"].append(MISSING if row["n"] is None else str(row["n"]))
        out["win rate [95%]"].append(compact_interval(row["win_rate"], row["win_rate_low"], row["win_rate_high"]))
        out["control"].append(compact_rate(row["control_win_rate"]))
        out["p Holm"].append(compact_p(row["p_value_holm"]))
        out["verdict"].append(_cut(row["verdict"] or MISSING))
        out["p vs default"].append(MISSING if row["is_default"] else compact_p(row["p_value_vs_default"]))
    return pl.DataFrame(out, schema={c: pl.String for c in out})
