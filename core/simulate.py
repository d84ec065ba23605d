"""Running a simulation: the public face of ``mechstudio.core.run`` (settings, driver, frames and trajectory).

>>> from core.simulate import simulate
>>> traj = simulate("sample_models/pendulum.json", t_end=1.0)
>>> traj.status, traj.frames.q.shape

* :class:`SimulationSettings` (``mechstudio.core.run.settings``): how to run (``kernels``: by default a run starts
  on the numpy path and switches to the compiled kernels when they pay, ``mechstudio.core.run.kernels``);
* :func:`iter_simulation` and :func:`run` (``mechstudio.core.run.driver``): the driver, yielding blocks of frames or
  returning the whole :class:`Trajectory`; its procedure, the two integration modes and how failures become a
  status are in that module's docstring;
* :class:`FrameBlock`, :class:`Trajectory`, :data:`FRAME_FIELDS`, :data:`REACTION_COMPONENTS`
  (``mechstudio.core.run.frames``): what a run produces;
* :func:`initial_state` (``mechstudio.core.run.initial``): assembled positions and consistent velocities of a file.

docs/architecture.md follows a run from the file to the CSV and to the screen.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from mechstudio.core.model.document import Model
from mechstudio.core.model.io import load_model
from mechstudio.core.run.driver import MAX_STEPS_PER_OUTPUT, iter_simulation, run
from mechstudio.core.run.frames import FRAME_FIELDS, REACTION_COMPONENTS, FrameBlock, Trajectory, concat_blocks
from mechstudio.core.run.initial import InitialState, initial_state
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.compile import compile_model

def simulate(model: Model | str, **settings: Any) -> Trajectory:
    """Convenience: load (if a path), compile and run with the model's settings overridden by ``settings``."""
    if not isinstance(model, Model):
        model = load_model(model)
    system = compile_model(model)
    return run(system, SimulationSettings.from_model(model, **settings))


__all__ = ["FRAME_FIELDS", "MAX_STEPS_PER_OUTPUT", "REACTION_COMPONENTS", "FrameBlock", "InitialState",
           "SimulationSettings", "Trajectory", "concat_blocks", "initial_state", "iter_simulation", "replace", "run",
           "simulate"]
