"""The model file: pure data (:class:`Model`), its JSON Schema, loading, validation, saving and edits."""
from mechstudio.core.model.document import FORMAT_NAME, FORMAT_VERSION, GROUND, Model, empty_model_data
from mechstudio.core.model.io import load_model, loads_model, model_from_data, save_model, validate_data

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "GROUND", "Model", "empty_model_data", "load_model", "loads_model",
           "model_from_data", "save_model", "validate_data"]
