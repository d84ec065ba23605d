"""Mechanism Studio's Qt application: the mechanism editor (this package) and the live view (``mechstudio.gui.view3d``,
``mechstudio.gui.plots``, ``mechstudio.gui.simulation``). Nothing in ``core`` imports from here."""
