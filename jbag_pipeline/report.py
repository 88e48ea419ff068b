"""The report: data/report/index.html and report.md with the tables and plots of whatever the lake holds."""

from __future__ import annotations

import html
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from jbag_pipeline import lake  # noqa: E402


def _md_table(df: pl.DataFrame) -> str:
    cols = df.columns
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.iter_rows():
        out.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row) + " |")
    return "\n".join(out)


def _html_table(df: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(f'{v:.3f}' if isinstance(v, float) else str(v))}</td>"
                                    for v in row) + "</tr>" for row in df.iter_rows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class Report:
    """Sections of (title, text, tables, images) rendered to both HTML and Markdown."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.sections: list[tuple[str, str, list[pl.DataFrame], list[str]]] = []

    def add(self, title: str, text: str, tables: list[pl.DataFrame] = (), images: list[str] = ()):
        self.sections.append((title, text, list(tables), list(images)))

    def figure(self, name: str, fig) -> str:
        fig.savefig(self.folder / name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        return name

    def write(self) -> Path:
        md, body = ["# jbag report\n"], []
        for title, text, tables, images in self.sections:
            md += [f"## {title}\n", text + "\n"] + [_md_table(t) + "\n" for t in tables]
            md += [f"![{name}]({name})\n" for name in images]
            body.append(f"<h2>{html.escape(title)}</h2><p>{html.escape(text)}</p>"
                        + "".join(_html_table(t) for t in tables)
                        + "".join(f'<img src="{name}" alt="{name}">' for name in images))
        (self.folder / "report.md").write_text("\n".join(md))
        page = ("<!doctype html><html><head><meta charset='utf-8'><title>jbag report</title><style>"
                "body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse;margin:1em 0}"
                "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}img{max-width:100%;display:block}"
                "</style></head><body><h1>jbag report</h1>" + "".join(body) + "</body></html>")
        path = self.folder / "index.html"
        path.write_text(page)
        return path


def _selfplay_section(report: Report, root: Path) -> None:
    games = lake.read_table(root, "selfplay_games")
    summary = games.group_by("game").agg(
        pl.len().alias("games"), pl.col("n_players").first().alias("seats"),
        pl.col("winner").is_null().mean().alias("draw_rate"), pl.col("n_states").mean().alias("mean_states"),
        pl.col("agents").list.first().first().alias("agent"),
    ).sort("game")
    report.add("Self-play", "MCTS self-play games per game (the training data of the value functions).", [summary])


def _classification_section(report: Report, root: Path) -> None:
    table = lake.read_table(root, "winner_classification").sort("game", "prefix")
    fig, ax = plt.subplots(figsize=(7, 4))
    for game, part in table.group_by("game", maintain_order=True):
        line, = ax.plot(part["prefix"], part["accuracy"], marker="o", label=game[0])
        ax.axhline(part["majority_accuracy"][0], color=line.get_color(), ls=":", lw=1)
    ax.set_xlabel("share of each test trajectory seen")
    ax.set_ylabel("P-NNS winner accuracy (dotted: majority seat)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    image = report.figure("classification.png", fig)
    report.add("Winner classification (P-NNS, JSD)",
               "Held-out accuracy of predicting the winning seat from the nearest winner prototype, on whole "
               "trajectories and on prefixes, next to always predicting the training majority seat.",
               [table.drop("frequency")], [image])


def _tictactoe_section(report: Report, root: Path) -> None:
    from jbag_pipeline.tictactoe.table import plot_compression

    table = lake.read_table(root, "tictactoe_compression")
    plot_compression(table, report.folder / "tictactoe_compression.png")
    picked = table.filter(pl.col("r").is_in([0, 1, 2, 3, 5, 9, 27, 81])).select(
        "method", "r", "Cr", "E", "vs_random_first_win", "vs_random_second_win", "vs_full_first_win")
    report.add("Tic-tac-toe: compressed exact evaluation",
               "SVD and HOSVD of the exact evaluation function f_all: relative error E and exact win rates of "
               "the softmax agent (w = 10) against a random player and against the uncompressed agent.",
               [picked], ["tictactoe_compression.png"])


def _tictactoe_jsonbag_section(report: Report, root: Path) -> None:
    from jbag_pipeline.tictactoe.jsonbag import plot_jsonbag_vs_compression

    table = lake.read_table(root, "tictactoe_jsonbag")
    plot_jsonbag_vs_compression(table, lake.read_table(root, "tictactoe_compression"),
                                report.folder / "tictactoe_jsonbag.png")
    keep = [c for c in ("frequency", "variant", "compression_ratio", "pearson", "spearman", "best_move_agreement",
                        "vs_random_first_win", "vs_random_second_win") if c in table.columns]
    report.add("Tic-tac-toe: JSON-Bag value functions against the exact values",
               "Each board valued by its own state tokens against the self-play winner prototypes, compared with "
               "f_all over the 4,520 boards in play; exact win rates of the greedy JSON-Bag agent.",
               [table.select(keep)], ["tictactoe_jsonbag.png"])


PAPER_FINDINGS = {  # the seed paper's qualitative results (JSON-Bag OSLA vs baseline OSLA)
    "dominion": "beats baseline; feature selection helps most (segmented)",
    "seven_wonders": "beats baseline; feature selection helps (non-segmented)",
    "connect4": "beats baseline; feature selection helps",
    "cant_stop": "beats baseline; frequency and selection matter about equally",
    "dots_and_boxes": "loses to baseline",
    "sea_salt_paper": "loses to baseline",
}


def _verdict(row: dict) -> str:
    if row["ci_low"] > 0:
        return "beats baseline"
    if row["ci_high"] < 0:
        return "loses to baseline"
    return "no clear difference"


def _paper_comparison(summary: pl.DataFrame, effects: pl.DataFrame) -> pl.DataFrame:
    overall = summary.filter(pl.col("scope") == "overall")
    rows = []
    for game in sorted(overall["game"].unique().to_list()):
        of_game = overall.filter(pl.col("game") == game).sort("mean", descending=True)
        best = of_game.row(0, named=True)
        none = of_game.filter(pl.col("feature_variant") == "none")
        selected = of_game.filter(pl.col("feature_variant") != "none")
        gain = (selected["mean"].max() - none["mean"].max()) if len(none) and len(selected) else None
        eta = dict(effects.filter(pl.col("game") == game).select("factor", "eta_squared").iter_rows())
        rows.append({"game": game, "paper": PAPER_FINDINGS.get(game, "(not in the paper)"),
                     "ours_best_pair": f"{best['prototype_frequency']} x {best['feature_variant']}",
                     "ours_best_mean": best["mean"], "ours_verdict": _verdict(best),
                     "selection_gain_over_none": gain,
                     "eta2_frequency": eta.get("prototype_frequency"), "eta2_selection": eta.get("feature_variant")})
    return pl.DataFrame(rows)


def _evaluation_section(report: Report, root: Path) -> None:
    summary = lake.read_table(root, "evaluation_summary")
    effects = lake.read_table(root, "effect_sizes")
    overall = summary.filter(pl.col("scope") == "overall")
    games = sorted(overall["game"].unique().to_list())
    fig, axes = plt.subplots(len(games), 1, figsize=(10, 2.6 * len(games)), squeeze=False)
    for ax, game in zip(axes[:, 0], games):
        part = overall.filter(pl.col("game") == game).sort("prototype_frequency", "feature_variant")
        labels = [f"{f[:3]}/{v}" for f, v in zip(part["prototype_frequency"], part["feature_variant"])]
        mean = part["mean"].to_numpy()
        err = [mean - part["ci_low"].to_numpy(), part["ci_high"].to_numpy() - mean]
        ax.errorbar(range(len(labels)), mean, yerr=err, fmt="o", capsize=3)
        ax.axhline(0, color="grey", lw=1)
        ax.set_xticks(range(len(labels)), labels, rotation=70, fontsize=7)
        ax.set_ylim(-1.05, 1.05)
        ax.set_title(f"{game}: JSON-Bag OSLA mean score vs baseline OSLA (95% CI)", fontsize=9)
    fig.tight_layout()
    pairs_png = report.figure("evaluation_pairs.png", fig)
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.4
    for i, factor in enumerate(("prototype_frequency", "feature_variant")):
        part = effects.filter(pl.col("factor") == factor).sort("game")
        xs = [games.index(g) + (i - 0.5) * width for g in part["game"]]
        ax.bar(xs, part["eta_squared"].fill_nan(0).to_numpy(), width, label=factor)
    ax.set_xticks(range(len(games)), games, rotation=30, fontsize=8)
    ax.set_ylabel("eta squared")
    ax.legend()
    eta_png = report.figure("effect_sizes.png", fig)
    seats = summary.filter(pl.col("scope") != "overall").group_by("game", "seat").agg(pl.col("mean").mean()).sort("game", "seat")
    fig, ax = plt.subplots(figsize=(8, 3.5))
    for game in games:
        part = seats.filter(pl.col("game") == game)
        ax.plot(part["seat"], part["mean"], marker="o", label=game)
    ax.axhline(0, color="grey", lw=1)
    ax.set_xlabel("seat of the JSON-Bag agent")
    ax.set_ylabel("mean score over all pairs")
    ax.legend(fontsize=7)
    seats_png = report.figure("evaluation_seats.png", fig)
    report.add("Evaluation: JSON-Bag OSLA against baseline OSLA",
               "Score per game +1 win / 0 draw / -1 loss for the JSON-Bag agent, one JSON-Bag OSLA per game in each "
               "seat against baseline OSLAs (the game's own score) in the others; mean per pair with 95% CI, "
               "and per seat of the JSON-Bag agent.", [], [pairs_png, seats_png])
    report.add("Table I: top-3 pairs per game", "By overall mean score; Best-Worst Diff = best minus worst seat mean.",
               [lake.read_table(root, "paper_table_1")])
    report.add("Table II: best prototype frequency without feature selection", "Feature variant none (all tokens).",
               [lake.read_table(root, "paper_table_2")])
    report.add("Table III: effect sizes", "eta^2 = SS_effect / SS_total of each factor on the per-game scores.",
               [effects], [eta_png])
    report.add("Compared with the paper",
               "The seed paper's qualitative findings next to ours (best pair, whether its 95% CI excludes 0, the "
               "gain of the best feature-selected variant over no selection, and eta-squared of both factors).",
               [_paper_comparison(summary, effects)])


def _transfer_section(report: Report, root: Path) -> None:
    results = lake.read_table(root, "transfer_results").sort("pair", "n_target_games", "method")
    pairs = results["pair"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(pairs), figsize=(4 * len(pairs), 3.4), squeeze=False, sharey=True)
    for ax, pair in zip(axes[0], pairs):
        part = results.filter(pl.col("pair") == pair)
        tuned = part.filter(pl.col("method").str.starts_with("finetuned_")).sort("n_target_games")
        ax.errorbar(tuned["n_target_games"], tuned["mean_score"],
                    yerr=[tuned["mean_score"] - tuned["ci_low"], tuned["ci_high"] - tuned["mean_score"]],
                    marker="o", capsize=3, label="transferred + N target games")
        for method, style in (("target_trained", "--"), ("random_mapping", ":")):
            row = part.filter(pl.col("method") == method)
            if len(row):
                ax.axhline(row["mean_score"][0], ls=style, color="grey" if method == "random_mapping" else "green",
                           label=method.replace("_", " "))
        ax.set_title(pair, fontsize=9)
        ax.set_xlabel("target games N")
        ax.set_ylim(-1.05, 1.05)
    axes[0][0].set_ylabel("mean score vs baseline OSLA")
    axes[0][0].legend(fontsize=7)
    image = report.figure("transfer.png", fig)
    report.add("Transfer between game variants",
               "Source-variant prototypes and features mapped onto the target's tokens (exact match, else nearest "
               "path by edit distance), played zero-shot; against training on the target, a random token mapping, "
               "and the source mixed with N target games.", [results.select(
                   "pair", "method", "n_target_games", "mean_score", "ci_low", "ci_high", "games")], [image])


def _reference_section(report: Report, root: Path) -> None:
    table = lake.read_table(root, "reference_reproduction")
    report.add("Reproduction of the JSON-Bag paper's agent classification",
               "Accuracy of predicting which of five agents played a game from its bag (original TAG data, 10 "
               "random 50/50 splits, mean and sd), with our P-NNS + JSD and our Random Forest, beside the "
               "published Table III and Table V numbers.", [table])


SECTIONS = [("selfplay_games", _selfplay_section), ("winner_classification", _classification_section),
            ("evaluation_summary", _evaluation_section), ("transfer_results", _transfer_section),
            ("reference_reproduction", _reference_section),
            ("tictactoe_compression", _tictactoe_section), ("tictactoe_jsonbag", _tictactoe_jsonbag_section)]


def write_report(root: Path) -> Path:
    """Regenerate <root>/report/ from every lake table present; returns the path of index.html."""
    folder = root / "report"
    folder.mkdir(parents=True, exist_ok=True)
    report = Report(folder)
    for table, section in SECTIONS:
        if lake.table_exists(root, table):
            section(report, root)
    if not report.sections:
        report.add("No data yet", "Run `jbag run` (or materialise the assets in the Dagster UI) first.")
    return report.write()
