"""A run's contact data as it is computed: the contact columns and events of the frames of each block.

The driver of a run with contacts that can let go (``mechstudio.core.run.events``) keeps, next to the frames, the
per-frame contact columns (``contact.<name>.gap`` / ``.normal`` / ``.friction`` / ``.state``, a pair's ``.Fx`` /
``.Fy`` / ``.Mz``, ``energy.dissipated.impact`` / ``.friction``: docs/results-csv.md) and the list of events
(docs/contact.md, "Results"); it hands them over in the run's statistics at the end. The live view needs them
while the run goes on, block by block: :func:`iter_run` runs the same driver as
:func:`mechstudio.core.simulate.iter_simulation` and yields, before each :class:`~core.run.frames.FrameBlock`,
a :class:`ContactBlock` with the columns of exactly that block's frames and the events found since the last one
(read from the driver's public ``contact`` record: the driver appends a frame's columns when it keeps the frame,
so when a block is yielded the columns hold exactly the frames yielded so far). Runs without such contacts yield
the frame blocks only. No Qt here (the solver process runs this).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from mechstudio.core.run.driver import Driver, RunHooks, driver_blocks
from mechstudio.core.run.frames import FrameBlock


@dataclass
class ContactBlock:
    """The contact data of one frame block: ``columns`` name -> values (one per frame of the block, in order);
    ``events`` the events found since the previous block (dicts: ``t`` [s], ``kind``, ``contact``, ...)."""
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)


def iter_run(system: Any, settings: Any, *, cancel: Callable[[], bool] | None = None,
             flush_now: Callable[[], bool] | None = None, stop_requested: Callable[[], bool] | None = None,
             outcome: dict[str, Any] | None = None, block_frames: int = 50,
             block_seconds: float = 0.05) -> Iterator[FrameBlock | ContactBlock]:
    """:func:`mechstudio.core.simulate.iter_simulation` (same arguments, same blocks, same ``outcome``), with a
    :class:`ContactBlock` before each frame block of a run with contacts (module docstring)."""
    driver = Driver(system, settings, RunHooks(cancel, flush_now, stop_requested), block_frames=block_frames,
                    block_seconds=block_seconds)
    sent_frames = sent_events = 0
    for block in driver_blocks(driver, outcome):
        contact = driver.contact
        if contact is not None:
            k = len(block)
            cols = {name: np.asarray(values[sent_frames:sent_frames + k], float)
                    for name, values in contact.columns.items()}
            events = [dict(ev) for ev in contact.events[sent_events:]]
            sent_frames += k
            sent_events = len(contact.events)
            yield ContactBlock(cols, events)
        yield block


__all__ = ["ContactBlock", "iter_run"]
