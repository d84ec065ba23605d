"""Forward dynamics of constrained systems: formulations as registered strategies (see ``base.py``)."""
from mechstudio.core.dynamics.base import (FORMULATIONS, Accelerations, Formulation, RestartRequired, SolverFailure,
                                get_formulation, register_formulation)

__all__ = ["FORMULATIONS", "Accelerations", "Formulation", "RestartRequired", "SolverFailure", "get_formulation",
           "register_formulation"]
