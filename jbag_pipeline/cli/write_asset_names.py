"""`python -m jbag_pipeline.cli.write_asset_names` rewrites cli/asset_names.py from the Dagster definitions, so
that `jbag run --select` is checked without importing Dagster; tests/cli/test_asset_names.py keeps the two equal."""

from __future__ import annotations

from pathlib import Path

from jbag_pipeline.cli.runner import asset_names
from jbag_pipeline.definitions import ALL_ASSETS

TARGET = Path(__file__).with_name("asset_names.py")
HEADER = '''"""Every asset `jbag run --select` accepts. Generated from jbag_pipeline.definitions by
`python -m jbag_pipeline.cli.write_asset_names`: do not edit by hand (tests/cli/test_asset_names.py checks it)."""

'''


def asset_names_source() -> str:
    """The text of cli/asset_names.py for today's definitions: ASSET_NAMES, every asset name, sorted."""
    names = "".join(f'    "{name}",\n' for name in sorted(asset_names(ALL_ASSETS)))
    return f"{HEADER}ASSET_NAMES = (\n{names})\n"


def main() -> None:
    TARGET.write_text(asset_names_source())
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
