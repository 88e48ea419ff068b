"""The report: data/report/index.html and report.md with the tables and plots of whatever the lake holds."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

import jbag_pipeline.report_headline as headline  # noqa: E402
import jbag_pipeline.report_mcts as mcts_report  # noqa: E402
import jbag_pipeline.storage.lake as lake  # noqa: E402
from jbag_pipeline.storage.render import html_table, markdown_table  # noqa: E402


FIGURE, TABLE, FOLDED = "figure", "table", "folded"  # a headline plot, a compact table, a folded raw section
PAGE_FONT_PX = 14  # the page's font size; compact tables use COMPACT_FONT_PX (the verdict table must fit 1280 px)
COMPACT_FONT_PX = 13
PAGE_WIDTH_PX = 1240  # the body's width: a 1280-px window less a scroll bar
STYLE = (f"body{{font:{PAGE_FONT_PX}px/1.45 sans-serif;max-width:{PAGE_WIDTH_PX}px;margin:1em auto;padding:0 8px}}"
         "table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;"
         "white-space:nowrap}td.long{white-space:normal;min-width:22em;text-align:left}"
         f"table.compact{{font-size:{COMPACT_FONT_PX}px}}"
         "table.compact td,table.compact th{text-align:left;font-variant-numeric:tabular-nums}th{background:#f3f3f3}"
         "img{max-width:100%;display:block}.wide{overflow-x:auto}ul.notes{font-size:13px;color:#333;margin-top:0}"
         "details{margin:.4em 0;border-top:1px solid #ddd;padding-top:.3em}summary{cursor:pointer}"
         "summary b{font-size:15px}summary span{color:#555}")


@dataclass
class Section:
    """One part of the report: a headline figure, a compact table (one-line text cells) or a folded raw section
    whose summary line says what question it answers."""
    kind: str
    title: str
    text: str
    tables: list[pl.DataFrame] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    question: str = ""

    def markdown(self) -> list[str]:
        lines = [f"## {self.title}\n"] + ([f"*{self.question}*\n"] if self.question else []) + [self.text + "\n"]
        lines += [markdown_table(t) + "\n" for t in self.tables] + [f"![{name}]({name})\n" for name in self.images]
        if self.notes:
            lines.append("\n".join(f"- {note}" for note in self.notes) + "\n")
        return lines

    def html(self) -> str:
        css = "compact" if self.kind == TABLE else ""
        tables = "".join(f'<div class="wide">{html_table(t, css_class=css)}</div>' for t in self.tables)
        images = "".join(f'<img src="{name}" alt="{name}">' for name in self.images)
        notes = ("<ul class='notes'>" + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ul>"
                 if self.notes else "")
        text = f"<p>{html.escape(self.text)}</p>" if self.text else ""
        if self.kind == FOLDED:
            return (f"<details><summary><b>{html.escape(self.title)}</b> <span>— {html.escape(self.question)}"
                    f"</span></summary>{text}{tables}{images}{notes}</details>")
        return f"<h2>{html.escape(self.title)}</h2>{text}{images}{tables}{notes}"


class Report:
    """Sections in the order they are added, rendered to both HTML and Markdown."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.sections: list[Section] = []

    def add(self, title: str, text: str, tables: list[pl.DataFrame] = (), images: list[str] = (),
            kind: str = FOLDED, question: str = "", notes: list[str] = ()):
        self.sections.append(Section(kind, title, text, list(tables), list(images), list(notes), question))

    def figure(self, name: str, fig) -> str:
        fig.savefig(self.folder / name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        return name

    def write(self) -> Path:
        md = ["# jbag report\n"] + [line for section in self.sections for line in section.markdown()]
        (self.folder / "report.md").write_text("\n".join(md))
        page = (f"<!doctype html><html><head><meta charset='utf-8'><title>jbag report</title><style>{STYLE}</style>"
                "</head><body><h1>jbag report</h1>" + "".join(s.html() for s in self.sections) + "</body></html>")
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
    report.add("Self-play", "MCTS self-play games per game (the training data of the value functions).", [summary],
               question="How many self-play games does each game have, how long, how often drawn?")


def _strength_section(report: Report, root: Path) -> None:
    table = lake.read_table(root, "selfplay_strength").sort("game")
    report.add("Self-play agents' strength", "Each game's self-play agent in each seat against baseline OSLAs, "
               "beside chance; Can't Stop's rolls and busts per turn in the self-play games (selfplay_strength).",
               [table], question="Is the teacher stronger than the baseline it is later compared with?")


def _tuning_section(report: Report, root: Path) -> None:
    table = lake.read_table(root, "selfplay_tuning").sort("game", "rank")
    report.add("Self-play tuning", "MCTS candidates against the current self-play agent at equal CPU time per "
               "decision, best first (selfplay_tuning, opt-in).", [table],
               question="Which MCTS settings beat the current self-play agent?")


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
               "trajectories and on prefixes, with its 95% Wilson interval, next to always predicting the training "
               "majority seat; above_majority: the whole interval lies above it.",
               [table.select("game", "prefix", "n_train", "n_test", "accuracy", "accuracy_low", "accuracy_high",
                             "majority_accuracy", "above_majority")], [image],
               question="Do the winner prototypes tell who wins a held-out game, and how early?")
    if lake.table_exists(root, "variant_classification"):
        variants = lake.read_table(root, "variant_classification").filter(pl.col("prefix") == 1.0)
        report.add("Winner classification per prototype frequency and feature variant",
                   "Whole held-out trajectories: prototypes of each frequency, and at frequency full restricted to "
                   "each feature variant's tokens (selected again on the training games only, so the held-out games "
                   "do not choose their own features). Do the prototypes carry signal before any agent plays?",
                   [variants.select("game", "frequency", "feature_variant", "n_tokens", "n_test", "accuracy",
                                    "accuracy_low", "accuracy_high", "majority_accuracy", "above_majority")
                    .sort("game", "frequency", "feature_variant")],
                   question="Which prototype frequencies and feature variants carry that signal?")


def _tictactoe_section(report: Report, root: Path) -> None:
    from jbag_pipeline.tictactoe.table import plot_compression

    table = lake.read_table(root, "tictactoe_compression")
    plot_compression(table, report.folder / "tictactoe_compression.png")
    picked = table.filter(pl.col("r").is_in([0, 1, 2, 3, 5, 9, 27, 81])).select(
        "method", "r", "Cr", "E", "vs_random_first_win", "vs_random_second_win", "vs_full_first_win")
    report.add("Tic-tac-toe: compressed exact evaluation",
               "SVD and HOSVD of the exact evaluation function f_all: relative error E and exact win rates of "
               "the softmax agent (w = 10) against a random player and against the uncompressed agent.",
               [picked], ["tictactoe_compression.png"],
               question="How far can the exact tic-tac-toe evaluation be compressed before play suffers?")


def _tictactoe_jsonbag_section(report: Report, root: Path) -> None:
    from jbag_pipeline.tictactoe.jsonbag import plot_jsonbag_vs_compression

    table = lake.read_table(root, "tictactoe_jsonbag")
    plot_jsonbag_vs_compression(table, lake.read_table(root, "tictactoe_compression"),
                                report.folder / "tictactoe_jsonbag.png")
    keep = ["frequency", "variant", "compression_ratio", "spearman_within_move_count", "pearson_within_move_count",
            "spearman_pooled", "best_move_agreement", "undecided_share", "best_move_probability",
            "random_best_move_probability", "vs_random_first_win", "vs_random_second_win"]
    report.add("Tic-tac-toe: JSON-Bag value functions against the exact values",
               "Each board valued by its own state tokens against the self-play winner prototypes, compared with "
               "f_all over the 4,520 boards in play. Headline: the correlation within each mark count (the pooled "
               "one mostly measures how many marks are down). best_move_agreement counts only boards the value "
               "decides (undecided_share: it ties an exact best move with a worse one); best_move_probability is "
               "the chance its policy plays an exact best move, beside random play. Win rates are exact.",
               [table.select(keep)], ["tictactoe_jsonbag.png"],
               question="How close are JSON-Bag values to the exact tic-tac-toe values?")


def _forest_section(report: Report, root: Path) -> None:
    verdicts = lake.read_table(root, "verdicts")
    if verdicts.is_empty():  # nothing to plot; the verdict table says so with its header alone
        return
    control = lake.read_optional(root, "evaluation_control")
    image = report.figure("verdicts_forest.png", headline.forest_plot(verdicts, control))
    report.add("Does the JSON-Bag agent beat the baseline?",
               "Per game our best pair's win rate (blue) against the control arm's (red: baseline OSLA in every seat "
               "on the same games, pooled over seats), each with its 95% Wilson interval; grey: chance, 1/seats. At "
               "the right the paper's claim and our verdict (Holm over the game's pairs, at 0.05).",
               images=[image], kind=FIGURE)


def _verdict_section(report: Report, root: Path) -> None:
    verdicts = lake.read_table(root, "verdicts")
    report.add("Verdicts",
               "Best pair: the highest overall win rate among the game's evaluated pairs (pairs: how many), its "
               "p-value Holm-adjusted over them (the counters-kept row apart) so picking the best is paid for; win "
               "rate with its 95% Wilson interval, n games, against the control; worst seat: that seat's win rate vs "
               "its control; kept: the win rate with the turn-order counters kept; decided/stable: whether the "
               "verdict has settled.",
               [headline.compact_verdicts(verdicts)], kind=TABLE, notes=headline.verdict_notes(verdicts))


def _verdict_columns_section(report: Report, root: Path) -> None:
    report.add("Verdicts, every column", "The verdicts table as the lake holds it (also the verdicts view).",
               [lake.read_table(root, "verdicts")], question="What exactly does each verdict rest on, caveats in full?")


def _curve_section(report: Report, root: Path) -> None:
    curve = lake.read_table(root, "learning_curve")
    verdicts = lake.read_optional(root, "verdicts")
    image = report.figure("learning_curves.png", headline.learning_curves_plot(curve))
    report.add("Learning curves",
               "The headline pairs' value functions built from nested shares of the self-play games, each evaluated "
               "against the control (red) on the same seeds; win rate with its 95% Wilson interval.",
               images=[image], kind=FIGURE, notes=headline.curve_notes(curve, verdicts))


def _ablation_section(report: Report, root: Path) -> None:
    ablation = lake.read_table(root, "value_function_ablation")
    report.add("The value function's choices",
               "Each factor's levels (the default starred) evaluated against the control on the same games: win rate "
               "with its 95% Wilson interval, Holm's p against the control, and the p-value against the default level.",
               [headline.compact_ablation(ablation)], kind=TABLE)


def _mcts_section(report: Report, root: Path) -> None:
    summary = lake.read_table(root, "mcts_evaluation_summary")
    if summary.is_empty():
        return
    report.add("JSON-Bag values inside MCTS",
               "Each agent in each seat in turn against opponents of one kind, beside the control: the same games "
               "(same seeds) with the opponent in every seat. JSON-Bag MCTS values each new leaf by the JSON-Bag value "
               "(the game's mcts_value_pair, full-full by default); heuristic MCTS by the game's baseline heuristic; "
               "score MCTS by a random rollout scored on the scores; every MCTS spends the same iterations per "
               "decision and breaks ties of visits by mean reward. Win rates with 95% Wilson intervals; p-values "
               "exact, stratified by seat, Holm-adjusted over a game's matchups with one opponent; decided: the "
               "interval's half-width is at most 0.10. Per-seat rows: the mcts_evaluation_summary view.",
               [mcts_report.compact_mcts(summary)],
               [report.figure("mcts_evaluation.png", mcts_report.mcts_plot(summary))], kind=TABLE,
               notes=mcts_report.mcts_notes(summary))


def _patterns_section(report: Report, root: Path) -> None:
    patterns = lake.read_table(root, "mcts_winning_patterns")
    top = patterns.filter(pl.int_range(pl.len()).over("game", "agent", "opponent", "kind") < 5)
    report.add("How the MCTS evaluation's agents play and win",
               "Per game, agent and opponent (the controls' agents too), the five most frequent patterns of each kind "
               "in the agent's own seat: Connect4's winning-line directions (won games) and columns played, Can't "
               "Stop's turn ends and rolls per turn, Dominion's buys, the other games' action types; count, per game "
               "and share of the kind. Every pattern: the mcts_winning_patterns view.", [top],
               question="Does an agent win by one degenerate habit (one column, one card, stopping early)?")


def _curve_points_section(report: Report, root: Path) -> None:
    report.add("Learning curve points", "Every point of the learning curves (also the learning_curve view).",
               [lake.read_table(root, "learning_curve").sort("game", "pair", "train_games")],
               question="What are the numbers behind the learning curves?")


def _seat_ticks(ax, seats: int) -> None:
    ax.set_xticks(range(seats), [str(s) for s in range(seats)])


def _evaluation_section(report: Report, root: Path) -> None:
    summary = lake.read_table(root, "evaluation_summary")
    control = lake.read_table(root, "evaluation_control")
    effects = lake.read_table(root, "effect_sizes")
    overall = summary.filter(pl.col("scope") == "overall")
    games = sorted(overall["game"].unique().to_list())
    fig, axes = plt.subplots(len(games), 1, figsize=(10, 2.4 * len(games)), squeeze=False)
    for ax, game in zip(axes[:, 0], games):
        part = overall.filter(pl.col("game") == game).sort("prototype_frequency", "feature_variant")
        labels = [f"{f}-{v}" for f, v in zip(part["prototype_frequency"], part["feature_variant"])]
        rate = part["win_rate"].to_numpy()
        err = [rate - part["win_rate_low"].to_numpy(), part["win_rate_high"].to_numpy() - rate]
        ax.errorbar(range(len(labels)), rate, yerr=err, fmt="o", capsize=3, label="JSON-Bag OSLA")
        ax.axhline(part["control_win_rate"][0], color="tab:red", lw=1, label="control (baseline in every seat)")
        seats = control.filter(pl.col("game") == game).height
        ax.axhline(1 / seats, color="grey", ls=":", lw=1, label=f"chance 1/{seats}")
        ax.set_xticks(range(len(labels)), labels, fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate", fontsize=8)
        ax.set_title(f"{game}: win rate with 95% Wilson interval", fontsize=9)
        ax.legend(fontsize=6, loc="upper right")
    fig.tight_layout()
    pairs_png = report.figure("evaluation_pairs.png", fig)
    fig, axes = plt.subplots(1, len(games), figsize=(2.2 * len(games), 2.8), squeeze=False, sharey=True)
    for ax, game in zip(axes[0], games):
        part = control.filter(pl.col("game") == game).sort("seat")
        ax.bar(part["seat"].to_list(), part["win_rate"].to_list(), color="tab:red", alpha=0.7)
        ax.axhline(1 / len(part), color="grey", ls=":", lw=1)
        _seat_ticks(ax, len(part))
        ax.set_title(game, fontsize=8)
        ax.set_xlabel("seat", fontsize=8)
    axes[0][0].set_ylabel("control win rate (dotted: 1/n)")
    fig.tight_layout()
    control_png = report.figure("evaluation_control.png", fig)
    report.add("Evaluation: JSON-Bag OSLA against the control arm",
               "Win rate of one JSON-Bag OSLA (each seat in turn) against baseline OSLAs in the other seats, beside "
               "the control: the same games with a baseline in every seat. Each game's baseline is the TAG heuristic "
               "of docs/RULES.md section 3. Overall p-values are exact tests stratified by seat; Holm adjusts over the "
               "selection pairs of a game (the counters-kept row on its own). Per-seat rows are in the "
               "evaluation_summary view.",
               [overall.select("game", "prototype_frequency", "feature_variant", "n", "win_rate", "win_rate_low",
                               "win_rate_high", "control_win_rate", "p_value_vs_control", "p_value_holm", "verdict",
                               "min_detectable_difference", "mean", "ci_low", "ci_high")],
               [pairs_png, control_png], question="How does every evaluated pair do against the control, by game?")
    report.add("Table I: top-3 pairs per game",
               "By overall mean score, as the paper ranks them, among the evaluated pairs (the counters-kept "
               "sensitivity row excluded); Best-Worst Diff = best minus worst seat mean score.",
               [lake.read_table(root, "paper_table_1")], question="Which pairs score best, as the paper ranks them?")
    report.add("Table II: best prototype frequency without feature selection", "Feature variant none (all tokens).",
               [lake.read_table(root, "paper_table_2")],
               question="Which prototype frequency is best without feature selection?")
    report.add("Table III: effect sizes",
               "Two-way ANOVA (prototype frequency x feature variant, with interaction) of the per-game scores: "
               "eta^2 = SS_effect / SS_total, partial eta^2, omega^2 (bias-corrected) and the F test's p. "
               "null_eta_squared = (k-1)/(N-1) is what eta^2 averages when the factor does nothing: an eta^2 near it "
               "is no evidence. A factor the preset does not vary has one level and no effect size (NaN).",
               [effects], question="How much of the score do prototype frequency and feature variant explain?")


def _transfer_section(report: Report, root: Path) -> None:
    results = lake.read_table(root, "transfer_results").sort("pair", "n_target_games", "method")
    pairs = results["pair"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(pairs), figsize=(4 * len(pairs), 3.4), squeeze=False, sharey=True)
    for ax, pair in zip(axes[0], pairs):
        part = results.filter(pl.col("pair") == pair)
        tuned = part.filter(pl.col("method").str.starts_with("finetuned_")).sort("n_target_games")
        ax.errorbar(tuned["n_target_games"], tuned["win_rate"],
                    yerr=[tuned["win_rate"] - tuned["win_rate_low"], tuned["win_rate_high"] - tuned["win_rate"]],
                    marker="o", capsize=3, label="transferred + N target games")
        for method, style, color in (("target_trained", "--", "green"), ("random_mapping", ":", "grey"),
                                     ("control", "-", "tab:red")):
            row = part.filter(pl.col("method") == method)
            if len(row):
                ax.axhline(row["win_rate"][0], ls=style, color=color, label=method.replace("_", " "))
        ax.set_title(pair, fontsize=9)
        ax.set_xlabel("target games N")
        ax.set_ylim(0, 1)
    axes[0][0].set_ylabel("win rate (95% Wilson interval)")
    axes[0][0].legend(fontsize=7)
    image = report.figure("transfer.png", fig)
    report.add("Transfer between game variants",
               "Source-variant prototypes and features mapped onto the target's tokens (exact match, else nearest "
               "path by edit distance), played zero-shot; against training on the target, a random token mapping, "
               "the source mixed with N target games, and the control (baseline OSLA in every seat on the same "
               "games). p-values: exact test against the control stratified by seat, Holm over the methods of a pair.",
               [results.select("pair", "method", "n_target_games", "games", "win_rate", "win_rate_low",
                               "win_rate_high", "control_win_rate", "p_value_holm", "verdict",
                               "min_detectable_difference")], [image],
               question="Does a value function learnt on one variant of a game play another?")


def _reference_section(report: Report, root: Path) -> None:
    table = lake.read_table(root, "reference_reproduction")
    report.add("Reproduction of the JSON-Bag paper's agent classification",
               "Accuracy of predicting which of five agents played a game from its bag (original TAG data, 10 "
               "random 50/50 splits, mean and sd), with our P-NNS + JSD and our Random Forest, beside the "
               "published Table III and Table V numbers.", [table],
               question="Do we reproduce the paper's agent classification on its own data?")


def published_comparison(published: pl.DataFrame, verdicts: pl.DataFrame | None) -> pl.DataFrame:
    """Per game: the authors' value functions in our engines (overall row, or why skipped) beside the paper's claim
    and, when the lake has verdicts, our own best trained pair."""
    from jbag_pipeline.analysis.verdicts import PAPER_CLAIMS

    rows = published.filter(pl.col("scope").is_in(["overall", "skipped"])).select(
        "game", "games", "win_rate", "win_rate_low", "win_rate_high", "control_win_rate", "p_value_holm", "verdict",
        "unreachable_features", "note").with_columns(
        pl.col("game").replace_strict(PAPER_CLAIMS, default="(not in the paper)").alias("paper_claim"))
    if verdicts is not None:
        ours = verdicts.select("game", pl.col("best_pair").alias("our_best_pair"),
                               pl.col("win_rate").alias("our_win_rate"), pl.col("verdict").alias("our_verdict"))
        rows = rows.join(ours, on="game", how="left")
    return rows.sort("game")


def _published_section(report: Report, root: Path) -> None:
    verdicts = lake.read_optional(root, "verdicts")
    report.add("The authors' published value functions in our engines",
               "Their JSON-Bag OSLA (their winner prototypes and top-500 features, trained on 500 self-play games of "
               "a tuned Java MCTS) valuing our engines' states in TAG's JSON dialect, in each seat against baseline "
               "OSLAs; win rate (95% Wilson) overall against the control (baseline in every seat on the same games, "
               "exact test stratified by seat). Beside: the paper's claim and our own best trained pair (verdicts). "
               "Games whose engine speaks no TAG dialect are skipped, with the reason; unreachable_features counts "
               "published features under fields our TAG documents cannot know. Per-seat rows: the "
               "published_vf_evaluation view.",
               [published_comparison(lake.read_table(root, "published_vf_evaluation"), verdicts)],
               question="Do the authors' own value functions beat the baseline in our engines?")


def ingested_comparison(ingested: pl.DataFrame, published: pl.DataFrame | None) -> pl.DataFrame:
    """Per ingested game: the JSON-Bag OSLA of its ingested prototypes in our engine (overall row, or why skipped)
    beside the authors' published value function in the same engine, when the lake has their evaluation."""
    rows = ingested.filter(pl.col("scope").is_in(["overall", "skipped"])).select(
        "game", "engine", "ingested_games", "games", "win_rate", "win_rate_low", "win_rate_high", "control_win_rate",
        "p_value_holm", "verdict", "note")
    if published is not None:
        theirs = published.filter(pl.col("scope") == "overall").select(
            pl.col("game").alias("engine"), pl.col("win_rate").alias("published_win_rate"),
            pl.col("verdict").alias("published_verdict"))
        rows = rows.join(theirs, on="engine", how="left")
    return rows.sort("game")


def _ingested_section(report: Report, root: Path) -> None:
    published = lake.read_optional(root, "published_vf_evaluation")
    report.add("Ingested TAG trajectories as training data",
               "Per ingested TAG game that one of our engines plays: a JSON-Bag OSLA valuing our states in TAG's "
               "JSON dialect by the winner prototypes of the ingested games (every state, the game's ingest "
               "mode), in each seat against baseline OSLAs; win rate (95% Wilson) overall against the control "
               "(exact test stratified by seat). Beside: the authors' published value function in the same "
               "engine. Games we cannot play are skipped, with the reason. Per-seat rows: the "
               "ingested_vf_evaluation view.",
               [ingested_comparison(lake.read_table(root, "ingested_vf_evaluation"), published)],
               question="Do value functions learnt from ingested TAG games play in our engines?")


SECTIONS = [("verdicts", _forest_section), ("verdicts", _verdict_section), ("learning_curve", _curve_section),
            ("value_function_ablation", _ablation_section), ("mcts_evaluation_summary", _mcts_section),
            ("verdicts", _verdict_columns_section), ("learning_curve", _curve_points_section),
            ("selfplay_games", _selfplay_section), ("selfplay_strength", _strength_section),
            ("selfplay_tuning", _tuning_section), ("mcts_winning_patterns", _patterns_section),
            ("winner_classification", _classification_section), ("evaluation_summary", _evaluation_section),
            ("transfer_results", _transfer_section), ("reference_reproduction", _reference_section),
            ("published_vf_evaluation", _published_section), ("ingested_vf_evaluation", _ingested_section),
            ("tictactoe_compression", _tictactoe_section), ("tictactoe_jsonbag", _tictactoe_jsonbag_section)]


def write_report(root: Path) -> Path:
    """Regenerate <root>/report/ from every lake table present, headline sections first and the raw tables folded;
    returns the path of index.html."""
    if not root.is_dir():  # never create a data directory just to report that it is empty
        raise FileNotFoundError(f"data directory {root} does not exist; `jbag run` creates it")
    folder = root / "report"
    folder.mkdir(exist_ok=True)
    report = Report(folder)
    for table, section in SECTIONS:
        if lake.table_exists(root, table):
            section(report, root)
    if not report.sections:
        report.add("No data yet", "Run `jbag run` (or materialise the assets in the Dagster UI) first.", kind=TABLE)
    return report.write()
