"""The report's MCTS section on a hand-built mcts_evaluation_summary: a compact table that fits the page, a plot and
one plain note per game."""

import math

import polars as pl

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.analysis.statistics import stratified_exact_p
from jbag_pipeline.play.mcts_evaluation import mcts_summary
from jbag_pipeline.report import COMPACT_FONT_PX, PAGE_WIDTH_PX, write_report
from jbag_pipeline.report_mcts import compact_mcts, mcts_notes
from jbag_pipeline.storage.render import compact_p
from tests.test_report_layout import CELL_PX, EM_PER_CHAR, tables_of


def summary() -> pl.DataFrame:
    rows = []
    for game, seats in (("connect4", 2), ("seven_wonders", 4)):
        for agent, opponent, wins in (("jsonbag_mcts", "score_mcts", 7), ("jsonbag_osla", "score_mcts", 2),
                                      ("score_mcts", "score_mcts", 4), ("jsonbag_mcts", "jsonbag_osla", 9),
                                      ("jsonbag_osla", "jsonbag_osla", 5)):
            for seat in range(seats):
                rows += [{"game": game, "agent": agent, "opponent": opponent, "iterations": 100, "leaf_depth": 0,
                          "value_pair": "full-full", "seat": seat, "game_index": i, "score": 1 if i < wins else -1}
                         for i in range(10)]
    schema = {"iterations": pl.Int32, "leaf_depth": pl.Int32, "seat": pl.Int8, "score": pl.Int8}
    return mcts_summary(pl.DataFrame(rows, schema_overrides=schema))


def test_the_mcts_section_has_a_compact_table_a_plot_and_a_note_per_game(tmp_path):
    table = summary()
    lake.write_table(table, tmp_path, "mcts_evaluation_summary")
    index = write_report(tmp_path)
    page = index.read_text()
    assert "<h2>JSON-Bag values inside MCTS</h2>" in page
    assert (index.parent / "mcts_evaluation.png").stat().st_size > 10_000
    rows = next(t["rows"] for t in tables_of(page) if t["rows"][0][:3] == ["game", "agent", "against"])
    assert len(rows) == 1 + 2 * 3  # three matchups per game
    p_value = compact_p(stratified_exact_p([(9, 10, 5, 10), (9, 10, 5, 10)]))  # the only matchup vs JSON-Bag OSLA
    assert rows[1] == ["connect4", "JSON-Bag MCTS", "JSON-Bag OSLA", "20", ".90 [.70, .97]", ".50", p_value,
                       "better", "no"]
    widest = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    assert sum(math.ceil(chars * EM_PER_CHAR * COMPACT_FONT_PX) + CELL_PX for chars in widest) <= PAGE_WIDTH_PX
    notes = mcts_notes(table)
    assert notes[0].startswith("connect4 (100 iterations, leaf depth 0, value full-full): JSON-Bag MCTS against "
                               "JSON-Bag OSLA better (win rate 0.90 vs 0.50, n = 20)")
    assert compact_mcts(table).height == 6
