"""Parameter sweeps in the editor: *Simulation → Parameter sweep…* and *Sweep this* on inspector fields.

:func:`install_sweep` is called once by the main window; it adds the menu action and, when the inspector offers
``field_menu_hooks`` (callables ``(menu, pointer)`` run when a numeric field's context menu opens), the *Sweep
this* entry. The dialog (``mechstudio.gui.sweep.dialog``) and Dask are imported only when first used.
"""
from __future__ import annotations

from typing import Any


def sweep_dialog(window: Any) -> Any:
    """The window's sweep dialog (created on first use), shown and raised."""
    dialog = getattr(window, "sweep_dialog", None)
    if dialog is None:
        from mechstudio.gui.sweep.dialog import SweepDialog
        dialog = window.sweep_dialog = SweepDialog(window)
    dialog.show()
    dialog.raise_()
    return dialog


def sweep_this(window: Any, element_name: str, field_path: str) -> Any:
    """Open the sweep dialog with ``element_name.field_path`` added as a parameter (inspector: *Sweep this*)."""
    dialog = sweep_dialog(window)
    dialog.refresh_model()
    dialog.add_parameter(f"{element_name}.{field_path}")
    return dialog


def add_sweep_this(window: Any, menu: Any, pointer: str) -> None:
    """Inspector hook: a *Sweep this* entry for a numeric field of a named element (nothing for others)."""
    from mechstudio.core.sweep.address import address_of_pointer
    address = address_of_pointer(window.document.model, pointer)
    if address is None:
        return
    name, _, field = address.partition(".")
    menu.addSeparator()
    action = menu.addAction(f"Sweep this ({address})…")
    action.setObjectName("act_sweep_this")
    action.triggered.connect(lambda _c=False: sweep_this(window, name, field))


def install_sweep(window: Any) -> None:
    """Add *Parameter sweep…* to the window's Simulation menu and *Sweep this* to inspector fields."""
    from PySide6.QtGui import QAction
    window.sweep_dialog = None
    action = QAction("Parameter sweep…", window)
    action.setObjectName("act_parameter_sweep")
    action.setStatusTip("run the model over ranges of parameter values on Dask and plot metrics of the runs")
    action.triggered.connect(lambda _c=False: sweep_dialog(window))
    window.act_parameter_sweep = action
    window.menu_simulation.addSeparator()
    window.menu_simulation.addAction(action)
    hooks = getattr(getattr(window, "inspector", None), "field_menu_hooks", None)
    if hooks is not None:
        hooks.append(lambda menu, pointer: add_sweep_this(window, menu, pointer))
