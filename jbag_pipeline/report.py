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


SECTIONS = [("selfplay_games", _selfplay_section), ("winner_classification", _classification_section),
            ("tictactoe_compression", _tictactoe_section)]


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
