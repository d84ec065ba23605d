"""Build step (everything else is in pyproject.toml): the top-level folders sample_models/ and resources/ ship
inside the installed packages as the data packages ``core.sample_models`` and ``gui.resources``, found with
importlib.resources (core/samples.py, gui/paths.py), so a non-editable ``pip install .`` has them. A plain
``packages.find`` cannot name packages whose folder lies elsewhere, hence the explicit mapping here."""
from setuptools import find_packages, setup

DATA_PACKAGES = {
    "core.sample_models": "sample_models",
    "core.sample_models.benchmarks": "sample_models/benchmarks",
    "gui.resources": "resources",
    "gui.resources.icons": "resources/icons",
}

setup(packages=find_packages(include=["core", "core.*", "gui", "gui.*"]) + list(DATA_PACKAGES),
      package_dir=DATA_PACKAGES)
