"""The one table renderer: a table as Markdown (polars' own formatter), HTML or aligned terminal text.

Used by the report (Markdown and HTML), the asset metadata previews (Markdown) and `jbag sql` (terminal text).
Cells are turned into text first, by one of the number styles below, so every output shows a value the same way.
"""

from __future__ import annotations

import html
import math
import re
from decimal import Decimal
from typing import Callable

import polars as pl

FLOAT_DIGITS = 6  # significant digits of a float in terminal text (readable_float)
LONG_CELL_CHARS = 40  # an HTML cell longer than this is marked class="long" (prose the page lets wrap)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: the characters a terminal acts on


def report_float(value: float) -> str:
    """3 decimals; a tiny nonzero value (a p-value of 2.6e-05) in scientific notation rather than as 0.000."""
    return f"{value:.1e}" if 0 < abs(value) < 0.0005 else f"{value:.3f}"


def readable_float(value: float) -> str:
    """FLOAT_DIGITS significant digits, in plain notation unless the magnitude is below 1e-4 or from 1e15 up."""
    magnitude = abs(value)
    if not math.isfinite(value) or magnitude == 0 or not 1e-4 <= magnitude < 1e15:
        return format(value, f".{FLOAT_DIGITS}g")
    decimals = max(0, FLOAT_DIGITS - 1 - math.floor(math.log10(magnitude)))
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


MISSING = "–"  # a compact cell with no value (null or NaN)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def compact_rate(value: float | None) -> str:
    """A rate in [0, 1] to 2 decimals without the leading zero (.72, 1.00), as papers print them."""
    return MISSING if _missing(value) else f"{value:.2f}".removeprefix("0")


def compact_interval(rate: float | None, low: float | None, high: float | None) -> str:
    """A rate and its interval in one short cell: .72 [.63, .80]."""
    if _missing(rate):
        return MISSING
    return f"{compact_rate(rate)} [{compact_rate(low)}, {compact_rate(high)}]"


def compact_p(value: float | None) -> str:
    """A p-value in at most 5 characters: .04, .003, <.001."""
    if _missing(value):
        return MISSING
    return "<.001" if value < 0.001 else (f"{value:.3f}" if value < 0.01 else f"{value:.2f}").removeprefix("0")


def report_cell(value) -> str:
    """A cell of the report and of the asset previews."""
    return report_float(value) if isinstance(value, float) else str(value)


def terminal_text(text: str) -> str:
    """`text` with control characters escaped (\\x1b, \\n): ingested ones could retitle or clear a terminal."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def terminal_cell(value, nested: bool = False) -> str:
    """A cell of `jbag sql`'s table: NULL shown, floats readable, lists and structs spelled out, controls escaped."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return readable_float(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(terminal_cell(v, True) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{terminal_text(str(k))}: {terminal_cell(v, True)}" for k, v in value.items()) + "}"
    if nested and isinstance(value, str):
        return repr(value)  # repr escapes control characters itself
    return terminal_text(str(value))


def _text_frame(df: pl.DataFrame, cell: Callable[[object], str]) -> pl.DataFrame:
    """`df` with every value as its text (a String frame), in the same column order."""
    return pl.DataFrame({c: [cell(v) for v in df[c].to_list()] for c in df.columns},
                        schema={c: pl.String for c in df.columns})


def markdown_table(df: pl.DataFrame, cell: Callable[[object], str] = report_cell, max_chars: int | None = None) -> str:
    """A Markdown table of `df` by polars' Markdown formatter; a cell longer than max_chars is cut by polars."""
    def markdown_cell(value) -> str:  # a pipe or line break would end the cell or the row
        return cell(value).replace("|", "\\|").replace("\n", " ")

    text = _text_frame(df, markdown_cell)
    with pl.Config(tbl_formatting="MARKDOWN", tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True,
                   tbl_rows=-1, tbl_cols=-1, tbl_width_chars=65_535,
                   fmt_str_lengths=max_chars or 65_535, fmt_table_cell_list_len=-1):
        return str(text)


def html_table(df: pl.DataFrame, cell: Callable[[object], str] = report_cell, css_class: str = "") -> str:
    """An HTML table of `df`, every header and cell escaped (polars has no public HTML writer)."""
    attribute = f' class="{html.escape(css_class)}"' if css_class else ""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    def td(value) -> str:  # a long text cell may wrap (class "long"); the page keeps every other cell on one line
        text = cell(value)
        return f'<td class="long">{html.escape(text)}</td>' if len(text) > LONG_CELL_CHARS else \
            f"<td>{html.escape(text)}</td>"

    body = "".join("<tr>" + "".join(td(v) for v in row) + "</tr>" for row in df.iter_rows())
    return f"<table{attribute}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def terminal_lines(columns: list[str], rows: list[tuple]) -> list[str]:
    """An aligned text table of DB-API rows: a header, a rule, a line a row; numeric columns right-aligned.

    Takes rows rather than a DataFrame because `jbag sql` streams DuckDB rows, whose columns may share a name.
    """
    cells = [[terminal_cell(v) for v in r] for r in rows]
    columns = [terminal_text(str(c)) for c in columns]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    numeric = [bool(rows) and all(isinstance(r[i], (int, float, Decimal)) or r[i] is None for r in rows)
               for i in range(len(columns))]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    return [line(columns), "  ".join("-" * w for w in widths)] + [line(c) for c in cells]

