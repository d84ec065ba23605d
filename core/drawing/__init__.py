"""Drawings of a mechanism: the canvas geometry (:mod:`core.drawing.scene`) and its export to SVG and DXF."""
