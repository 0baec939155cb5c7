"""Shared pytest setup, for the unit tests and for nbval's notebook runs alike."""

import os

# A missing Chinese glyph is only a warning in matplotlib; the course treats it as an error, here
# and in the notebook kernels nbval starts (they inherit this environment variable).
os.environ["PYTHONWARNINGS"] = "error:Glyph:UserWarning"
