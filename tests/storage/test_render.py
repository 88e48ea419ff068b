"""The one table renderer: Markdown (polars' formatter), HTML and the aligned text of `jbag sql`."""

import polars as pl

from jbag_pipeline.storage.render import (compact_interval, compact_p, compact_rate, html_table, markdown_table,
                                          readable_float, report_float, terminal_lines)


def test_readable_float():
    assert [readable_float(v) for v in (0.5, 2.0, -2 / 3, 1234.56789, 1e-5, 2.5e20, 0.0, float("nan"))] == [
        "0.5", "2", "-0.666667", "1234.57", "1e-05", "2.5e+20", "0", "nan"]


def test_report_float_keeps_tiny_p_values_readable():
    assert [report_float(v) for v in (2.6e-05, 0.0005, 0.12345, 0.0, -1e-7, 3.0)] == [
        "2.6e-05", "0.001", "0.123", "0.000", "-1.0e-07", "3.000"]


def test_compact_numbers_fit_a_one_line_cell():
    assert [compact_rate(v) for v in (0.7249, 0.0, 1.0, None, float("nan"))] == [".72", ".00", "1.00", "–", "–"]
    assert compact_interval(0.72, 0.634, 0.8) == ".72 [.63, .80]" and compact_interval(None, 0.1, 0.2) == "–"
    assert [compact_p(v) for v in (2.6e-05, 0.001, 0.0042, 0.049, 1.0, None)] == [
        "<.001", ".001", ".004", ".05", "1.00", "–"]


def test_markdown_table_is_aligned_and_escapes_pipes():
    df = pl.DataFrame({"game": ["x|y", "connect4"], "p_value": [2.6e-05, 0.5], "n": [1, None]})
    assert markdown_table(df).splitlines() == [
        "| game     | p_value | n    |",
        "|----------|---------|------|",
        "| x\\|y     | 2.6e-05 | 1    |",
        "| connect4 | 0.500   | None |",
    ]


def test_markdown_table_cuts_long_cells_and_keeps_every_row_and_column():
    df = pl.DataFrame({f"c{i}": ["a" * 100] * 30 for i in range(12)})
    lines = markdown_table(df, max_chars=60).splitlines()
    assert len(lines) == 32 and lines[0].count("|") == 13
    assert "a" * 60 + "…" in lines[2] and "a" * 61 not in lines[2]


def test_html_table_escapes_headers_and_cells():
    df = pl.DataFrame({"a<b": ["<i>", "x"], "p": [1e-6, 0.25]})
    assert html_table(df) == ("<table><thead><tr><th>a&lt;b</th><th>p</th></tr></thead><tbody>"
                              "<tr><td>&lt;i&gt;</td><td>1.0e-06</td></tr><tr><td>x</td><td>0.250</td></tr>"
                              "</tbody></table>")


def test_terminal_lines_right_align_numbers_and_spell_out_nested_values():
    rows = [("connect4", 2 / 3, None, [1, "a"]), ("nim", 12.0, 3, {"k": "v"})]
    assert terminal_lines(["game", "value", "n", "x"], rows) == [
        "game         value     n  x",
        "--------  --------  ----  --------",
        "connect4  0.666667  NULL  [1, 'a']",
        "nim             12     3  {k: 'v'}",
    ]


def test_html_table_lets_only_long_text_wrap():
    df = pl.DataFrame({"caveat": ["x" * 41, "x" * 40]})
    assert html_table(df, css_class="compact").startswith('<table class="compact">')
    assert html_table(df).count('<td class="long">') == 1
