"""Build step (everything else is in pyproject.toml): the repository's top-level folders as one import package.

The installed code lives under the single top-level package ``mechstudio``. Its subpackages ``mechstudio.core``
and ``mechstudio.gui`` are the checkout's top-level folders ``core/`` and ``gui/``, reached through the links
``mechstudio/core`` and ``mechstudio/gui`` (package discovery follows them, and a wheel holds real files). The
data folders are mapped explicitly, since ``packages.find`` cannot name packages whose folder lies elsewhere:

* ``sample_models/``  -> ``mechstudio.core.sample_models``  (found with importlib.resources: core/model/samples.py)
* ``resources/``      -> ``mechstudio.gui.resources``       (icons and styles: gui/paths.py)
"""
from setuptools import find_packages, setup

DATA_PACKAGES = {
    "mechstudio.core.sample_models": "sample_models",
    "mechstudio.core.sample_models.benchmarks": "sample_models/benchmarks",
    "mechstudio.gui.resources": "resources",
    "mechstudio.gui.resources.icons": "resources/icons",
}

setup(packages=find_packages(include=["mechstudio", "mechstudio.*"]) + list(DATA_PACKAGES),
      package_dir=DATA_PACKAGES)
