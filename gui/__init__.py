"""Mechanism Studio's Qt application: the mechanism editor (this package) and the live view (``gui.view3d``,
``gui.plots``, ``gui.simulation``). Nothing in ``core`` imports from here."""
