"""Sphinx configuration of the cardarena documentation site (``make docs``).

The source is this folder; the pages that come from the code (one per game, the rules, the
CLI reference, the notebooks) are written into ``generated/`` at each build by
``_ext/cardarena_pages.py``. Nothing under ``docs/`` is installed or importable: the rules
the package ships are ``envs/rulebooks/``.
"""

from __future__ import annotations

import sys
from importlib.metadata import version as _version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "cardarena"
author = "cardarena developers"
copyright = "cardarena developers"
release = _version("cardarena")
version = release

extensions = [
    "myst_nb",  # MyST markdown (myst-parser) and the notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # the Google-style "Args:" of a few docstrings (SingleAgentEnv)
    "cardarena_pages",
]

exclude_patterns = ["_build", "_ext", "**/.ipynb_checkpoints"]

# MyST: "#anchor" links to headings of a page (the README's and docs/*.md's own links use them).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# The notebooks are rendered as they are in the repository, never executed here (the test
# suite executes them: tests/packaging/test_notebooks.py).
nb_execution_mode = "off"

autodoc_member_order = "bysource"
# A method without a docstring of its own is left out rather than shown with its base class's
# (Gymnasium's Env.step docstring is not valid reStructuredText, and it is not ours).
autodoc_inherit_docstrings = False
autodoc_typehints = "signature"
autodoc_default_options = {"show-inheritance": True}

html_theme = "furo"
html_title = f"cardarena {release}"
html_show_sourcelink = False
html_copy_source = False
