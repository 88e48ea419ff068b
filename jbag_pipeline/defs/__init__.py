"""The defs folder (dg's project convention): `dg.load_from_defs_folder` loads every module here into one Definitions."""
