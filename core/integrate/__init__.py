"""Time integrators as registered strategies (see ``base.py``)."""
from mechstudio.core.integrate.base import INTEGRATORS, Integrator, get_integrator

__all__ = ["INTEGRATORS", "Integrator", "get_integrator"]
