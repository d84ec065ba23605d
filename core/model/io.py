"""Reading and writing model files.

Pipeline of :func:`load_model`: read text → JSON (syntax errors with line/column) → reject NaN/Infinity
(which Python's json accepts but JSON does not) and
magnitudes above ``MAX_MAGNITUDE`` → format name and version (a newer version says so) →
:mod:`mechstudio.core.model.migrate` → JSON Schema (``schema.json``, every violation, unknown keys included) → semantic
checks (:func:`mechstudio.core.model.entities.parse_entities`). All problems found by a stage are reported together as one
:class:`~core.errors.ModelError`, each naming the file, the JSON pointer and the problem; nothing raises a
traceback for bad input.

:func:`save_model` writes atomically: a temporary file in the same folder, flushed and fsynced, then
``os.replace`` onto the target, so a crash or a full disk never leaves a half-written model.
"""
from __future__ import annotations

import json
import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from mechstudio.core.host import files
from mechstudio.core.errors import Diagnostic, ModelError, UnknownNameError
from mechstudio.core.model.document import FORMAT_NAME, FORMAT_VERSION, SIMULATION_DEFAULTS, Model
from mechstudio.core.model.entities import parse_entities
from mechstudio.core.model.migrate import migrate
from mechstudio.core.model.schema import model_schema
from mechstudio.core.registry import FORMULATIONS, INTEGRATORS


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the current format version (core/model/schema.py)."""
    return model_schema()


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


#: the largest magnitude accepted for any number in a model file (SI units). Lengths, masses, stiffnesses and
#: times of a mechanism are far below it; beyond it the squared and cubed quantities of the dynamics (inertia
#: m L^2, energies, the mass-weighted SVD) lose every significant digit or overflow, so such a value is a typo or
#: corrupted data and is refused at load with its JSON pointer rather than failing inside a run.
MAX_MAGNITUDE = 1e12


def _bad_numbers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[str, str]]:
    """(pointer, problem) of every NaN, Infinity or number of magnitude above :data:`MAX_MAGNITUDE`."""
    if isinstance(value, bool):
        return []
    if isinstance(value, float) and not math.isfinite(value):
        return [(_pointer(path), "NaN or Infinity is not a valid number in a model file")]
    if isinstance(value, (int, float)) and abs(value) > MAX_MAGNITUDE:
        shown = f"{value:.3g}" if isinstance(value, float) else f"an integer of {len(str(abs(value)))} digits"
        return [(_pointer(path), f"magnitude too large: {shown} (numbers must lie within +-{MAX_MAGNITUDE:g})")]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _bad_numbers(v, path + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _bad_numbers(v, path + (i,))]
    return []


def _schema_message(error: jsonschema.ValidationError) -> str:
    """A readable message for one schema violation (the raw ones of oneOf/if-then are cryptic)."""
    if error.validator == "additionalProperties":
        extra = [k for k in error.instance if k not in error.schema.get("properties", {})]
        return f"unknown key(s): {', '.join(map(repr, extra))}"
    if error.validator == "required":
        return error.message.replace("is a required property", "is missing (required)")
    if error.validator == "oneOf" and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        return f"{best.message}"
    if error.validator == "exclusiveMinimum":
        return f"must be greater than {error.validator_value}, got {error.instance!r}"
    if error.validator == "minimum":
        return f"must be at least {error.validator_value}, got {error.instance!r}"
    if error.validator == "type":
        return f"must be of type {error.validator_value}, got {type(error.instance).__name__} {error.instance!r}"[:200]
    if error.validator == "enum":
        return f"must be one of {error.validator_value}, got {error.instance!r}"
    return error.message[:300]


def validate_data(data: Any, source: str = "<memory>") -> list[Diagnostic]:
    """All problems of a parsed JSON document (empty list: valid)."""
    def diag(pointer: str, message: str) -> Diagnostic:
        return Diagnostic(source, pointer, message)

    if not isinstance(data, dict):
        return [diag("", f"a model file holds a JSON object, not {type(data).__name__}")]
    bad = _bad_numbers(data)
    if bad:
        return [diag(p, m) for p, m in bad]
    if data.get("format") != FORMAT_NAME:
        return [diag("/format", f"not a Mechanism Studio model: 'format' must be {FORMAT_NAME!r}, "
                                f"got {data.get('format')!r}")]
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        return [diag("/version", f"'version' must be an integer, got {version!r}")]
    if version < 1:
        return [diag("/version", f"'version' must be a format version from 1 to {FORMAT_VERSION}, got {version}")]
    if version > FORMAT_VERSION:
        return [diag("/version", f"the file was written by a newer Mechanism Studio (format version {version}); "
                                 f"this version reads format versions up to {FORMAT_VERSION}")]
    data = migrate(data)
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        out, seen = [], set()
        for e in errors:
            d = diag(_pointer(e.absolute_path), _schema_message(e))
            if (d.pointer, d.message) not in seen:
                seen.add((d.pointer, d.message))
                out.append(d)
        return out
    problems: list[tuple[str, str]] = []
    parse_entities(data, problems)
    problems += simulation_problems(data.get("simulation", {}))
    return [diag(p, m) for p, m in problems]


#: at most this many output frames per run (t_end / dt): every frame keeps q, q', q'', reactions and energies
MAX_OUTPUT_FRAMES = 10 ** 6


def output_frames_problem(t_end: float, dt: float) -> str | None:
    """Why ``t_end``/``dt`` ask for too many output frames (None when fine)."""
    if t_end / dt > MAX_OUTPUT_FRAMES:
        return (f"t_end / dt = {t_end / dt:.3g} output frames; at most {MAX_OUTPUT_FRAMES:g} (raise dt or lower "
                "t_end)")
    return None


def simulation_problems(sim: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, problem) of a schema-valid ``simulation`` section: unknown formulation or integrator names (the
    name registries of ``mechstudio.core.registry``; nothing is imported) and too many output frames."""
    out = []
    for key, registry in (("formulation", FORMULATIONS), ("integrator", INTEGRATORS)):
        if key in sim and sim[key] not in registry:
            out.append((f"/simulation/{key}", str(UnknownNameError(registry.kind, sim[key], list(registry)))))
    frames = output_frames_problem(sim.get("t_end", SIMULATION_DEFAULTS["t_end"]),
                                   sim.get("dt", SIMULATION_DEFAULTS["dt"]))
    if frames:
        out.append(("/simulation/dt", frames))
    return out


def loads_model(text: str, source: str = "<memory>") -> Model:
    """Parse and validate model text; raise :class:`ModelError` listing every problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError([Diagnostic(source, "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: "
                                                 f"{exc.msg}")]) from None
    except RecursionError:
        raise ModelError([Diagnostic(source, "", "JSON nested too deeply")]) from None
    problems = validate_data(data, source)
    if problems:
        raise ModelError(problems)
    return Model(migrate(data), source)


def model_from_data(data: dict[str, Any], source: str = "<memory>") -> Model:
    """Validate an in-memory document (e.g. after an edit); raise :class:`ModelError` on problems."""
    problems = validate_data(data, source)
    if problems:
        raise ModelError(problems)
    return Model(migrate(data), source)


def load_model(path: str | os.PathLike[str]) -> Model:
    """Load and validate a model file; raise :class:`ModelError` (never another exception) on bad input."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError([Diagnostic(source, "", "file not found")]) from None
    except IsADirectoryError:
        raise ModelError([Diagnostic(source, "", "is a folder, not a model file")]) from None
    except PermissionError:
        raise ModelError([Diagnostic(source, "", "permission denied")]) from None
    except UnicodeDecodeError as exc:
        raise ModelError([Diagnostic(source, "", f"not UTF-8 text: {exc.reason} at byte {exc.start}")]) from None
    except OSError as exc:
        raise ModelError([Diagnostic(source, "", f"cannot read: {exc.strerror or exc}")]) from None
    return loads_model(text, source)


def current_umask() -> int:
    """The process's file-mode creation mask (:func:`mechstudio.core.host.files.current_umask`)."""
    return files.current_umask()


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`mechstudio.core.host.files.atomic_write_text`: a temporary file in
    the same folder + ``os.replace``; stale temporaries of killed writers in that folder are removed).

    The file gets the mode an ordinary ``open(path, "w")`` would give: an existing target's mode, else 0666 minus
    the umask (the temporary file is created 0600). Raises OSError (e.g. PermissionError) naming ``path``, never the
    temporary file, with the target untouched if anything fails.
    """
    files.atomic_write_text(path, text)


def save_model(model: Model, path: str | os.PathLike[str]) -> None:
    """Save ``model`` to ``path`` atomically. Raises OSError naming ``path`` if the file cannot be written (nothing
    lost)."""
    atomic_write_text(path, model.to_json())
