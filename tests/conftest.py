"""Shared fixtures. BLAS threads are limited by importing core first (see core/__init__.py)."""
from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import core  # noqa: E402,F401
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_models"


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES
