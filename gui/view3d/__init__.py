"""The 3D OpenGL view of a model (pyqtgraph GLViewWidget) and its numpy scene geometry."""
