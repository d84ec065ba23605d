"""Docked widgets of the main window: outline, property inspector, spherical-tree editor."""
