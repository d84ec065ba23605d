"""Dialogs of the editor."""
