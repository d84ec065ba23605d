"""The editor's analyses as plain functions of a model snapshot (no Qt): each compiles the model, calls the core
analysis (:mod:`mechstudio.core.analysis`) as its command does, and returns an outcome that says what failed
instead of raising. They run on a worker thread (:class:`mechstudio.gui.analysis.panel.AnalysisWorker`), so
they touch nothing but their arguments.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

from mechstudio.core.analysis.linkage import CrankSweep, Linkage, LinkageError, linkage_topology
from mechstudio.core.analysis.modes import ModalAnalysis, modal_analysis
from mechstudio.core.analysis.statics import StaticResult, static_equilibrium
from mechstudio.core.analysis.steady_motion import FloquetAnalysis, floquet_analysis
from mechstudio.core.errors import ModelError
from mechstudio.core.model import Model
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.systems.compile import compile_model
from mechstudio.gui.dialogs.wording import user_words

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What one analysis of ``model`` gave: ``result`` (the core's result object) with the compiled ``system``,
    or ``error`` (a message for the user; the result may still be there, e.g. a failed equilibrium search).
    ``refused`` marks a model the analysis does not apply to (the linkage report of a pendulum)."""
    model: Model
    system: ConstrainedSystem | None = None
    result: Any = None
    error: str = ""
    refused: bool = False


@dataclass(frozen=True)
class LinkageResult:
    """The linkage report: the recognised linkage on its system and its crank sweep (one turn)."""
    linkage: Linkage
    sweep: CrankSweep


def compiled(model: Model) -> tuple[ConstrainedSystem | None, str]:
    """(system, "") or (None, why the model cannot be analysed: no bodies, or it does not compile)."""
    if not model.data.get("bodies"):
        return None, "the model has no bodies yet: there is nothing to analyse"
    try:
        return compile_model(model), ""
    except ModelError as exc:
        return None, f"the model cannot be compiled: {user_words(str(exc))}"


def guarded(job: Callable[[Model], Outcome]) -> Callable[[Model], Outcome]:
    """``job`` with any unexpected exception turned into an outcome with its message (logged with the traceback
    for a bug report; the user sees one line)."""
    def run(model: Model) -> Outcome:
        try:
            return job(model)
        except Exception as exc:  # a failure of the analysis is a message in its panel, never a traceback
            log.warning("analysis %s failed on model %r", job.__name__, model.name, exc_info=True)
            return Outcome(model, error=f"the analysis failed: {type(exc).__name__}: {user_words(str(exc))}")
    run.__name__ = job.__name__
    return run


@guarded
def statics_job(model: Model) -> Outcome:
    """Static equilibrium at t = 0 from the model's initial pose (``mechstudio statics FILE``)."""
    system, why = compiled(model)
    if system is None:
        return Outcome(model, error=why)
    res: StaticResult = static_equilibrium(system)
    if not res.status.ok:
        return Outcome(model, system, res, f"no static equilibrium: {user_words(res.message)}")
    return Outcome(model, system, res)


@guarded
def linkage_job(model: Model) -> Outcome:
    """Topology, Grashof class and crank sweep of a four-bar or slider-crank (``mechstudio linkage FILE``)."""
    try:
        topology = linkage_topology(model)
    except LinkageError as exc:
        return Outcome(model, error=str(exc), refused=True)
    system, why = compiled(model)
    if system is None:
        return Outcome(model, error=why)
    try:
        linkage = Linkage(system, topology)
    except LinkageError as exc:
        return Outcome(model, system, error=str(exc))
    return Outcome(model, system, LinkageResult(linkage, linkage.sweep()))


@guarded
def modes_job(model: Model) -> Outcome:
    """Equilibrium search from the initial pose, then all modes about it (``mechstudio modes FILE``)."""
    system, why = compiled(model)
    if system is None:
        return Outcome(model, error=why)
    res: ModalAnalysis = modal_analysis(system)
    if not res.status.ok or res.linearisation is None:
        return Outcome(model, system, res, user_words(res.message) or f"no modes ({res.status.value})")
    return Outcome(model, system, res)


@guarded
def steady_modes_job(model: Model) -> Outcome:
    """The periodic steady motion of the drive's period from the initial state, then its Floquet modes
    (``mechstudio modes FILE --steady``)."""
    system, why = compiled(model)
    if system is None:
        return Outcome(model, error=why)
    res: FloquetAnalysis = floquet_analysis(system)
    if not res.status.ok or res.monodromy is None:
        return Outcome(model, system, res, user_words(res.message) or f"no steady motion ({res.status.value})")
    return Outcome(model, system, res)


__all__ = ["LinkageResult", "Outcome", "compiled", "linkage_job", "modes_job", "statics_job", "steady_modes_job"]
