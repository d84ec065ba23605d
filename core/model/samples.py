"""The sample model files shipped with Mechanism Studio.

In a checkout (and an editable install) they are the top-level folder ``sample_models/``; a non-editable install
carries the same files as the data package ``mechstudio.core.sample_models`` (setup.py maps the folder), found with
:mod:`importlib.resources`. :func:`samples_folder` returns whichever exists, the checkout first.
"""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

CHECKOUT_SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
#: the data package's folder inside the installed ``core`` (it has no __init__.py, so it is located through its
#: parent, a regular package, whose importlib.resources traversable is a plain path)
DATA_FOLDER = "sample_models"


def samples_folder() -> Path:
    """The folder holding the sample ``*.json`` files (``benchmarks/`` inside it)."""
    if CHECKOUT_SAMPLES.is_dir():
        return CHECKOUT_SAMPLES
    return Path(str(resources.files("mechstudio.core"))) / DATA_FOLDER


def sample_models() -> list[tuple[Path, str, str]]:
    """(path, name, description) of every sample model, sorted by file name. Unreadable files are skipped."""
    out = []
    for p in sorted(samples_folder().glob("*.json")):
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            out.append((p, str(data.get("name", p.stem)), str(data.get("description", ""))))
    return out


def sample_path(name: str) -> Path:
    """The path of the sample called ``name`` (file name with or without ``.json``); KeyError when unknown."""
    folder = samples_folder()
    for candidate in (folder / name, folder / f"{name}.json"):
        if candidate.is_file():
            return candidate
    raise KeyError(f"no sample model {name!r}; samples: {', '.join(p.stem for p, _, _ in sample_models())}")
