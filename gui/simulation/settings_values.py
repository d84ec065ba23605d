"""What the editor accepts as simulation settings, in the user's words (no widgets here).

* :func:`parse_seconds` reads a time as typed: ``5``, ``0.01``, ``1e6``, ``2.5e-3 s``.
* :func:`settings_problem` says why settings cannot be run in the editor (``None`` when they can): a time that is
  not positive, more output frames than the live view keeps (:data:`MAX_OUTPUT_FRAMES`), a formulation that does
  not apply to the model. Nothing is ever clamped: a refused value is refused with its reason.
* :func:`formulations_for` lists the formulations that apply to a model (Wittenburg's only to spatial trees of
  spherical joints).
* :func:`simulation_section` writes settings into a model's ``simulation`` section (only what differs from what
  the model already says, so accepting the dialog unchanged is no edit).
"""
from __future__ import annotations

import math
from typing import Any

from mechstudio.core.dynamics.base import FORMULATIONS
from mechstudio.core.model import Model
from mechstudio.core.model.joint_trees import is_spatial_joint_tree
from mechstudio.core.simulate import SimulationSettings

#: the live view keeps every output frame of a run in memory (q, q', q'', reactions, energies per frame)
MAX_OUTPUT_FRAMES = 1_000_000
#: formulations that apply only to spatial trees of spherical joints
TREE_ONLY = {"wittenburg"}
#: orientation coordinates of spatial bodies (the model format's ``simulation.parametrization``)
PARAMETRIZATIONS = ("quaternion", "bryant", "euler313", "matrix")
#: the fields of the ``simulation`` section the settings dialog edits
FIELDS = ("formulation", "integrator", "rtol", "atol", "t_end", "dt", "correction", "parametrization")


def parse_seconds(text: str) -> float:
    """A number as typed, with an optional unit ``s``: ``"1e6"``, ``"100000"``, ``"0.01 s"``; ValueError with the
    reason otherwise."""
    t = text.strip()
    if t.endswith("s"):
        t = t[:-1].strip()
    t = t.replace(" ", "").replace("\u202f", "").replace("_", "")
    if not t:
        raise ValueError("enter a number of seconds, e.g. 5 or 1e6")
    try:
        value = float(t)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a number (write e.g. 5, 0.01 or 1e6)") from None
    if not math.isfinite(value):
        raise ValueError("the time must be a finite number")
    return value


def format_seconds(value: float) -> str:
    """A time as the dialog shows it: ``5``, ``0.01``, ``100000``, ``1e+06``."""
    return f"{value:.10g}"


def is_tree(model: Model | None) -> bool:
    """A spatial model with spherical joints, or a tree of spatial joints (hinge, slider, ...): Wittenburg's
    formulation applies."""
    return model is not None and model.kind == "spatial" and (any(
        j.get("type") == "spherical" for j in model.data.get("joints", [])) or is_spatial_joint_tree(model.data))


def model_words(model: Model | None) -> str:
    """What kind of model it is, as the user sees it."""
    if model is None:
        return "this model"
    if is_tree(model):
        return "a spatial tree of spherical joints"
    return "a planar model" if model.kind == "planar" else "a spatial model without spherical joints"


def formulations_for(model: Model | None) -> list[str]:
    """The formulations that apply to ``model`` (every one when None), sorted."""
    return sorted(f for f in FORMULATIONS if f not in TREE_ONLY or model is None or is_tree(model))


def formulation_problem(formulation: str, model: Model | None) -> str | None:
    """Why ``formulation`` does not apply to ``model``, or None."""
    if formulation in TREE_ONLY and model is not None and not is_tree(model):
        return (f"the {formulation.capitalize()} formulation is for spatial trees of bodies (spherical joints, or "
                f"hinge, slider, cylindrical, universal and fixed joints without loops), and this is {model_words(model)}: choose another formulation in Simulation → "
                "Settings")
    return None


def times_check(t_end: float, dt: float) -> tuple[str, str] | None:
    """(field, reason) when end time ``t_end`` [s] with output interval ``dt`` [s] cannot be run (field
    ``"t_end"`` or ``"dt"``: the one to change), or None."""
    if not (math.isfinite(t_end) and t_end > 0):
        return "t_end", "the end time must be a positive number of seconds"
    if not (math.isfinite(dt) and dt > 0):
        return "dt", "the output interval must be a positive number of seconds"
    if dt > t_end:
        return "dt", (f"the output interval ({format_seconds(dt)} s) is longer than the end time "
                      f"({format_seconds(t_end)} s)")
    frames = t_end / dt
    if frames > MAX_OUTPUT_FRAMES:
        return "t_end", (f"an end time of {format_seconds(t_end)} s at an output interval of {format_seconds(dt)} s "
                         f"is {frames:.3g} output frames, and a run keeps at most {MAX_OUTPUT_FRAMES:,} in memory: "
                         f"raise the output interval to at least {format_seconds(t_end / MAX_OUTPUT_FRAMES)} s or "
                         "shorten the run")
    return None


def times_problem(t_end: float, dt: float) -> str | None:
    """Why end time ``t_end`` [s] with output interval ``dt`` [s] cannot be run, or None."""
    check = times_check(t_end, dt)
    return check[1] if check else None


def settings_problem(settings: SimulationSettings, model: Model | None = None) -> str | None:
    """Why ``settings`` cannot be run on ``model`` in the editor, or None."""
    problem = times_problem(settings.t_end, settings.dt)
    if problem is None:
        problem = formulation_problem(settings.formulation, model)
    for name in ("rtol", "atol"):
        value = getattr(settings, name)
        if problem is None and not (math.isfinite(value) and value > 0):
            problem = f"the {'relative' if name == 'rtol' else 'absolute'} tolerance must be a positive number"
    return problem


def simulation_section(model: Model, values: dict[str, Any]) -> dict[str, Any]:
    """``model``'s ``simulation`` section with ``values`` (of :data:`FIELDS`; None = leave as it is) written in:
    only the values that differ from the settings the model already gives (its section over the defaults)."""
    section = dict(model.data.get("simulation", {}))
    current = SimulationSettings.from_model(model)
    for key, value in values.items():
        if key not in FIELDS or value is None:
            continue
        if getattr(current, key) != value or key in section:
            section[key] = value
    return section


__all__ = ["FIELDS", "MAX_OUTPUT_FRAMES", "PARAMETRIZATIONS", "format_seconds", "formulation_problem",
           "formulations_for", "is_tree", "model_words", "parse_seconds", "settings_problem", "simulation_section",
           "times_check", "times_problem"]
