"""The one "requires columns" check the pipeline functions share."""

import polars as pl
import pytest

from jbag_pipeline.model.tables import require_columns


def test_require_columns_names_the_table_the_missing_columns_and_those_present():
    frame = pl.DataFrame({"game": ["a"], "token": ["t"]})
    require_columns(frame, "bags", ("game", "token"))
    require_columns(frame, "bags", {"token": pl.String})  # a schema dict checks its keys
    with pytest.raises(ValueError) as error:
        require_columns(frame, "transfer: bags", ("game", "p", "seat", "token"))
    assert str(error.value) == "transfer: bags lacks columns ['p', 'seat'] (has ['game', 'token'])"
