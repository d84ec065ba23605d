"""Kinematics: constraint equations (planar local method), rank and DOF analysis, assembly, driven motion."""
