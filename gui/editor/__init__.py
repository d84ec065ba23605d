"""The planar mechanism editor: canvas, palette, placement rules and world geometry."""
