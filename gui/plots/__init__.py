"""Live pyqtgraph plots of a run (reactions, violation, energy, coordinates)."""
