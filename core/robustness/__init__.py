"""Hostile-input testing: the seeded model-file mutator and fuzz trial (:mod:`~mechstudio.core.robustness.fuzz`)."""
