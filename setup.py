"""Map the repo's top-level folders onto the ``cardarena`` import name.

``envs/``, ``agents/``, ``training/``, ``evaluation/``, ``cli/``, ``bench/``, ``web/`` and
``openspiel/`` live at the repo root; installed they are ``cardarena.envs``,
``cardarena.agents``, ``cardarena.training``, ``cardarena.evaluation``, ``cardarena.cli`` (the
``cardarena`` command), ``cardarena.bench`` (the benchmarks), ``cardarena.web`` and
``cardarena.openspiel`` (which needs the ``open_spiel`` package); the rules each game ships
(``envs/rulebooks/*.md``) are package data of ``cardarena.envs``, and ``docs/`` is not
installed. Every subpackage is computed
here rather than listed by hand, so a new game folder can never be silently left out of a
non-editable install (tests/packaging checks the built wheel).
"""

from setuptools import find_packages, setup

ROOTS = ("envs", "agents", "training", "evaluation", "cli", "bench", "web", "openspiel")

packages = []
package_dir = {}
for root in ROOTS:
    package_dir[f"cardarena.{root}"] = root
    for found in find_packages(where=".", include=[root, f"{root}.*"]):
        packages.append(f"cardarena.{found}")

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={
        **{package: ["*.csv", "*.json", "*.npz", "py.typed"] for package in packages},
        "cardarena.envs": ["*.csv", "*.json", "*.npz", "py.typed", "rulebooks/*.md"],
        "cardarena.web": ["static/*"],
    },
)
