"""`python -m jbag_pipeline.cli`: the same as the `jbag` console script."""

import sys

from jbag_pipeline.cli import main

sys.exit(main())
