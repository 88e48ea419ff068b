"""Checks on the tables that pipeline functions take in."""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl


def require_columns(frame: pl.DataFrame | pl.LazyFrame, name: str, columns: Iterable[str]) -> None:
    """Raise a one-line ValueError naming the table `name` and the `columns` it lacks (and those it has)."""
    has = frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns
    missing = [c for c in columns if c not in has]
    if missing:
        raise ValueError(f"{name} lacks columns {missing} (has {has})")
