"""The report's layout on hand-built lake tables: headline sections first (forest plot, compact verdict table, learning
curves, ablation), every other table folded; the verdict table fits a 1280-px window on one line a row."""

import html
import math
import re
from html.parser import HTMLParser

import polars as pl
import pytest

import jbag_pipeline.report_headline as headline
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.analysis.statistics import wilson_interval
from jbag_pipeline.report import COMPACT_FONT_PX, PAGE_WIDTH_PX, write_report

GAMES = ["cant_stop", "connect4", "dots_and_boxes", "seven_wonders"]
# Width rule: a character of the compact tables' 13-px sans-serif averages at most 0.65 em (DejaVu Sans, Debian's
# default: digits 0.64 em, lowercase about 0.58 em on average) and a cell adds 2 x 6 px padding and a 1-px border.
EM_PER_CHAR = 0.65
CELL_PX = 13


def verdicts_new() -> pl.DataFrame:
    """Verdicts with the columns of issue 24 and the longest values they can hold."""
    n = len(GAMES)
    return pl.DataFrame({
        "game": GAMES, "paper_claim": ["beats baseline; frequency and selection matter about equally",
                                       "beats baseline; feature selection helps", "loses to baseline",
                                       "(not in the paper)"],
        "best_pair": ["interval-interval_seg", "full-full", "random-random_seg", "full-none"],
        "pairs_compared": [3] * n, "n": [1000, 400, 400, 100], "win_rate": [0.09, 0.7249, 0.45, 0.13],
        "win_rate_low": [0.07, 0.63, 0.40, 0.08], "win_rate_high": [0.11, 0.80, 0.50, 0.21],
        "control_win_rate": [0.21, 0.55, 0.49, 0.24], "p_value_holm": [2.6e-5, 0.004, 0.5, 0.03],
        "verdict": ["worse", "better", "no clear difference", "worse"], "worst_seat": [1, 0, 1, 3],
        "worst_seat_win_rate": [0.03, 0.61, 0.4, 0.0], "worst_seat_control_win_rate": [0.25, 0.55, 0.5, 0.17],
        "counters_kept_win_rate": [0.29, None, 0.47, float("nan")], "decided": [True, False, None, True],
        "curve_note": ["The verdict settles at 250 training games.", "It has not settled at this budget.",
                       "It settles at 120 games.", "It settles at 60 games."],
        "caveat": ["keeping the turn-order counters gives a win rate of 0.29", "", "n = 400 detects only 0.10", ""],
    })


def control() -> pl.DataFrame:
    seats = [2, 2, 2, 4]
    rows = [{"game": g, "seat": s, "games": 100, "wins": 20 + 10 * s, "draws": 0, "losses": 80 - 10 * s,
             "win_rate": (20 + 10 * s) / 100, "mean_score": 0.0} for g, k in zip(GAMES, seats) for s in range(k)]
    return pl.DataFrame(rows, schema_overrides={"seat": pl.Int8})


def learning_curve() -> pl.DataFrame:
    rows = []
    for game in GAMES:
        for pair in ("full-full", "full-full_seg"):
            for share, train in ((0.125, 25), (0.25, 50), (0.5, 100), (1.0, 200)):
                wins = int(30 + 40 * share)
                low, high = wilson_interval(wins, 100)
                rows.append({"game": game, "share": share, "train_games": train, "selfplay_agent": "mcts",
                             "budget": "200 iterations", "pair": pair, "n": 100, "wins": wins, "win_rate": wins / 100,
                             "win_rate_low": low, "win_rate_high": high, "control_win_rate": 0.5,
                             "p_value_vs_control": 0.2, "p_value_holm": 0.4, "verdict": "no clear difference"})
    return pl.DataFrame(rows)


def ablation() -> pl.DataFrame:
    rows = []
    for game in GAMES[:2]:
        for factor, levels in (("k", ["100", "500"]), ("normalisation", ["features", "all tokens"]),
                               ("turnOwner", ["dropped", "kept"])):
            for i, level in enumerate(levels):
                rows.append({"game": game, "factor": factor, "level": level, "is_default": i == 0, "pair": "full-full",
                             "n": 200, "wins": 100 + 10 * i, "win_rate": 0.5 + 0.05 * i, "win_rate_low": 0.43,
                             "win_rate_high": 0.57 + 0.05 * i, "control_win_rate": 0.5, "p_value_vs_control": 0.9,
                             "p_value_holm": 1.0, "verdict": "no clear difference",
                             "p_value_vs_default": None if i == 0 else 0.3})
    return pl.DataFrame(rows)


def selfplay_games() -> pl.DataFrame:
    return pl.DataFrame({"game": ["connect4"] * 2, "n_players": [2, 2], "agents": [["mcts", "mcts"]] * 2,
                         "winner": [0, None], "n_states": [20, 42]})


def build_lake(root, verdicts: pl.DataFrame) -> None:
    lake.write_table(verdicts, root, "verdicts")
    lake.write_table(control(), root, "evaluation_control")
    lake.write_table(learning_curve(), root, "learning_curve")
    lake.write_table(ablation(), root, "value_function_ablation")
    lake.write_table(selfplay_games(), root, "selfplay_games", {"game": "connect4"})


class Tables(HTMLParser):
    """Each <table>'s class, whether it sits inside <details>, and its rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self.details, self.cell = [], 0, None

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self.details += 1
        elif tag == "table":
            self.tables.append({"class": dict(attrs).get("class", ""), "folded": self.details > 0, "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "details":
            self.details -= 1
        elif tag in ("td", "th"):
            self.tables[-1]["rows"][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def tables_of(page: str) -> list[dict]:
    parser = Tables()
    parser.feed(page)
    return parser.tables


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("layout")
    build_lake(root, verdicts_new())
    index = write_report(root)
    return index.read_text(), (index.parent / "report.md").read_text(), index.parent


def test_the_headline_sections_come_first_and_every_other_table_is_folded(report):
    page, markdown, _ = report
    marks = ['src="verdicts_forest.png"', "<h2>Verdicts</h2>", 'src="learning_curves.png"',
             "<h2>" + html.escape("The value function's choices") + "</h2>", "<details>"]
    positions = [page.index(m) for m in marks]
    assert positions == sorted(positions)
    assert "<h2>" not in page[positions[-1]:]  # after the first fold, only folds
    tables = tables_of(page)
    assert [t["class"] for t in tables if not t["folded"]] == ["compact", "compact"]  # verdicts, ablation
    assert all(t["folded"] for t in tables if t["class"] != "compact") and len(tables) >= 5
    folded = re.findall(r"<summary><b>(.*?)</b> <span>— (.*?)</span></summary>", page)
    assert [t for t, _ in folded][:3] == ["Verdicts, every column", "Learning curve points", "Self-play"]
    assert all(question.endswith("?") for _, question in folded)  # each fold says what question it answers
    titles = re.findall(r"^## (.*)$", markdown, flags=re.M)
    assert titles[:6] == ["Does the JSON-Bag agent beat the baseline?", "Verdicts", "Learning curves",
                          "The value function's choices", "Verdicts, every column", "Learning curve points"]


def test_the_plots_are_written(report):
    _, _, folder = report
    assert all((folder / name).stat().st_size > 10_000 for name in ("verdicts_forest.png", "learning_curves.png"))


def test_the_verdict_table_fits_a_1280_px_window_on_one_line_a_row(report):
    page, _, _ = report
    assert "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}" in page
    assert 'class="long"' not in page[:page.index("<h2>Learning curves</h2>")]  # no verdict cell may wrap
    rows = tables_of(page)[0]["rows"]
    header, body = rows[0], rows[1:]
    assert header == ["game", "claim", "best pair", "pairs", "n", "win rate [95%]", "control", "p Holm", "verdict",
                      "worst seat", "kept", "decided"]
    assert len(body) == len(GAMES)
    widest = [max(len(row[i]) for row in rows) for i in range(len(header))]
    assert max(widest) <= headline.MAX_CELL_CHARS
    width_px = sum(math.ceil(chars * EM_PER_CHAR * COMPACT_FONT_PX) + CELL_PX for chars in widest)
    assert width_px <= PAGE_WIDTH_PX, width_px
    cant_stop, connect4 = body[0], body[1]
    assert cant_stop[1:7] == ["beats", "interval-interval_seg", "3", "1000", ".09 [.07, .11]", ".21"]
    assert (cant_stop[7], connect4[7], body[2][7]) == ("<.001", ".004", ".50")
    assert (cant_stop[9], cant_stop[11], connect4[10], connect4[11], body[2][11]) == (
        "1: .03 vs .25", "yes", "–", "no", "–")
    assert body[2][1] == "loses" and body[3][1] == "–"  # dots and boxes: the paper's loss; seven_wonders: no claim


def test_what_the_table_cuts_follows_it_and_the_curve_notes_follow_the_curves(report):
    page, markdown, _ = report
    verdicts = page[page.index("<h2>Verdicts</h2>"):page.index('src="learning_curves.png"')]
    assert ("<li>cant_stop: paper: beats baseline; frequency and selection matter about equally. Caveat: keeping the "
            "turn-order counters gives a win rate of 0.29</li>") in verdicts
    curves = page[page.index('src="learning_curves.png"'):page.index("<h2>The value function")]
    assert "<li>connect4: It has not settled at this budget.</li>" in curves
    assert "- connect4: It has not settled at this budget." in markdown


def test_the_ablation_puts_each_level_beside_the_default():
    table = headline.compact_ablation(ablation())
    k = table.filter((pl.col("game") == "cant_stop") & (pl.col("factor") == "k"))
    assert k.select("level", "win rate [95%]", "p vs default").rows() == [("100 *", ".50 [.43, .57]", "–"),
                                                                          ("500", ".55 [.43, .62]", ".30")]


def test_the_control_is_pooled_over_seats_with_its_wilson_interval():
    pooled = headline.control_by_game(control()).filter(pl.col("game") == "seven_wonders").row(0, named=True)
    wins = 20 + 30 + 40 + 50
    assert pooled["control"] == pytest.approx(wins / 400) and pooled["seats"] == 4
    assert (pooled["control_low"], pooled["control_high"]) == pytest.approx(wilson_interval(wins, 400))


def test_an_older_verdicts_table_shows_the_columns_it_has(tmp_path):
    old = verdicts_new().drop("decided", "curve_note", "worst_seat", "worst_seat_win_rate",
                              "worst_seat_control_win_rate").with_columns(stable=pl.lit(True))
    lake.write_table(old, tmp_path, "verdicts")
    page = write_report(tmp_path).read_text()
    header = tables_of(page)[0]["rows"][0]
    assert header[-2:] == ["kept", "stable"] and "worst seat" not in header
    assert 'src="verdicts_forest.png"' in page and "learning_curves.png" not in page  # no control, no curve: no fail
