"""Reading and writing model files.

Pipeline of :func:`load_model`: read bytes (at most :data:`~mechstudio.core.model.limits.MAX_FILE_BYTES`) → text
(UTF-8, a leading byte-order mark allowed) → JSON (syntax errors with line/column; duplicate keys and integers too
long to convert are refused with their pointer) → values: NaN/Infinity (which Python's json accepts but JSON does
not), magnitudes above :data:`~mechstudio.core.model.limits.MAX_MAGNITUDE` and text that is not valid Unicode (lone
surrogates) → format name and version (a newer version says so) → :mod:`mechstudio.core.model.migrate` → JSON
Schema (``schema.json``, every violation, unknown keys included) → semantic checks of the raw document
(:mod:`mechstudio.core.model.checks`), then of its entities (:func:`mechstudio.core.model.entities.parse_entities`)
→ the memory the model will need (:mod:`mechstudio.core.model.limits`). All problems found by a stage are reported
together as one :class:`~core.errors.ModelError`, each naming the file, the JSON pointer and the problem; nothing
raises a traceback for bad input.

Schema validation asks the compiled check of :mod:`mechstudio.core.model.schemacheck` first and lets
``jsonschema`` word the diagnostics only for what it rejects (per item of the top-level lists), so a large valid
model is validated in a fraction of jsonschema's time with the same diagnostics (and a valid one loads without
importing jsonschema).

:func:`save_model` writes atomically: a temporary file in the same folder, flushed and fsynced, then
``os.replace`` onto the target, so a crash or a full disk never leaves a half-written model.
"""
from __future__ import annotations

import json
import math
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mechstudio.core.host import files
from mechstudio.core.errors import Diagnostic, ModelError, UnknownNameError
from mechstudio.core.model.checks import document_problems
from mechstudio.core.model.document import FORMAT_NAME, FORMAT_VERSION, SIMULATION_DEFAULTS, Model
from mechstudio.core.model.entities import parse_entities
from mechstudio.core.model.limits import MAX_FILE_BYTES, MAX_MAGNITUDE, memory_problem
from mechstudio.core.model.migrate import migrate
from mechstudio.core.model.schema import model_schema
from mechstudio.core.model.schemacheck import Check, CompiledSchema
from mechstudio.core.registry import FORMULATIONS, INTEGRATORS

if TYPE_CHECKING:
    import jsonschema


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the current format version (core/model/schema.py)."""
    return model_schema()


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    import jsonschema  # the wording of rejected parts only (module docstring): a valid model loads without it
    return jsonschema.Draft202012Validator(schema())


@lru_cache(maxsize=None)
def _item_validator(key: str) -> jsonschema.Draft202012Validator:
    """The validator of one item of the top-level list ``key``."""
    return _validator().evolve(schema=schema()["properties"][key]["items"])


@lru_cache(maxsize=1)
def _compiled() -> tuple[Check, list[tuple[str, Check]]]:
    """The compiled check of the whole schema, and (key, item check) of each top-level list whose schema is only its
    items' (those lists are validated item by item)."""
    compiled = CompiledSchema(schema(), _validator)
    lists = [(key, compiled.sub(sub["items"]))
             for key, sub in schema()["properties"].items()
             if isinstance(sub, dict) and sub.get("type") == "array" and "items" in sub
             and set(sub) <= {"type", "items", "description"}]
    return compiled.check, lists


def _text(part: Any) -> str:
    text = str(part)
    if not text.isascii():
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _pointer(path: Any) -> str:
    return "".join("/" + _text(p).replace("~", "~0").replace("/", "~1") for p in path)


# ------------------------------------------------------------------------------------------------------------
# JSON text -> data

#: integer literals of more digits are not converted (Python refuses above 4300 digits, and the conversion is
#: quadratic); they are reported as too large
MAX_INTEGER_DIGITS = 400


class _LongInteger:
    """An integer literal of more than MAX_INTEGER_DIGITS digits, kept unconverted until it is reported."""

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))


class _DuplicateKeys(dict):  # type: ignore[type-arg]
    """A JSON object in which some key occurs more than once (``duplicates``); the last value is kept."""

    duplicates: list[str]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    out = _DuplicateKeys(obj)
    seen: set[str] = set()
    out.duplicates = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
    return out


def _integer(text: str) -> Any:
    return int(text) if len(text) <= MAX_INTEGER_DIGITS else _LongInteger(text)


def parse_json(text: str, source: str = "<memory>") -> Any:
    """The JSON value of ``text``; raises :class:`ModelError` for invalid JSON. Duplicate keys and integers too long
    to convert are kept as markers that :func:`validate_data` reports with their pointers."""
    try:
        return json.loads(text, object_pairs_hook=_object, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise ModelError([Diagnostic(source, "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: "
                                                 f"{exc.msg}")]) from None
    except RecursionError:
        raise ModelError([Diagnostic(source, "", "JSON nested too deeply")]) from None
    except (ValueError, MemoryError) as exc:  # e.g. a number literal Python cannot convert
        raise ModelError([Diagnostic(source, "", f"invalid JSON: {str(exc)[:200]}")]) from None


def _digits(value: int) -> int:
    """Decimal digits of |value| (from its bit length: no conversion to text, which Python limits)."""
    return max(1, int(abs(value).bit_length() * math.log10(2)) + 1)


def _unencodable(text: str) -> str | None:
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        return (f"text that is not valid Unicode: a lone surrogate U+{ord(bad):04X} at character {exc.start} "
                f"(the file's \\u escapes must encode real characters)")
    return None


def bad_values(data: Any) -> list[tuple[str, str]]:
    """(pointer, problem) of every duplicate key, NaN, Infinity, number of magnitude above MAX_MAGNITUDE and text
    that is not valid Unicode (keys included). Iterative: no recursion on deeply nested input; scalars are checked
    where their container is walked (a path is built only for containers and problems)."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if type(value) is dict or isinstance(value, dict):
            for k in getattr(value, "duplicates", ()):
                out.append((_pointer(path + (k,)), f"duplicate key {_text(k)!r}: a JSON object's keys must be "
                                                   "unique (which value was meant?)"))
            items: Any = value.items()
        elif type(value) is list:
            items = enumerate(value)
        else:
            problem = _scalar_problem(value)
            if problem:
                out.append((_pointer(path), problem))
            continue
        for k, v in items:
            if type(k) is str and not k.isascii():
                problem = _unencodable(k)
                if problem:
                    out.append((_pointer(path + (k,)), f"the key {problem}"))
            t = type(v)
            if t is float:
                if -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:  # False for NaN too
                    continue
            elif t is str:
                if v.isascii():
                    continue
            elif t is int or t is bool or v is None:
                if t is not int or -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:
                    continue
            stack.append((v, path + (k,)))
    return sorted(out, key=lambda p: p[0]) if len(out) > 1 else out


def _scalar_problem(value: Any) -> str | None:
    limit = f"(numbers must lie within +-{MAX_MAGNITUDE:g})"
    if isinstance(value, str):
        return _unencodable(value)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return "NaN or Infinity is not a valid number in a model file"
        return f"magnitude too large: {value:.3g} {limit}" if abs(value) > MAX_MAGNITUDE else None
    if isinstance(value, int):
        return f"magnitude too large: an integer of {_digits(value)} digits {limit}" if abs(value) > MAX_MAGNITUDE \
            else None
    if isinstance(value, _LongInteger):
        return f"magnitude too large: an integer of {value.digits} digits {limit}"
    return None


# ------------------------------------------------------------------------------------------------------------
# validation

def _schema_message(error: jsonschema.ValidationError) -> str:
    """A readable message for one schema violation (the raw ones of oneOf/if-then are cryptic)."""
    if error.validator == "additionalProperties":
        extra = [k for k in error.instance if k not in error.schema.get("properties", {})]
        return f"unknown key(s): {', '.join(map(repr, extra))}"
    if error.validator == "required":
        return error.message.replace("is a required property", "is missing (required)")
    if error.validator in ("oneOf", "anyOf") and error.context:
        # the alternatives whose type fits the value say what is wrong with it (a planar inertia of -1.0: "must be
        # at least 0", not "-1.0 is not of type 'array'"); when none fits, the best of all
        fitting = [e for e in error.context if not (e.validator == "type" and not e.relative_path)]
        from jsonschema.exceptions import best_match  # imported by _validator() before any error exists
        return _schema_message(best_match(fitting or error.context))
    if error.validator == "exclusiveMinimum":
        return f"must be greater than {error.validator_value}, got {error.instance!r}"
    if error.validator == "minimum":
        return f"must be at least {error.validator_value}, got {error.instance!r}"
    if error.validator == "type":
        return f"must be of type {error.validator_value}, got {type(error.instance).__name__} {error.instance!r}"[:200]
    if error.validator == "enum":
        return f"must be one of {error.validator_value}, got {error.instance!r}"
    if error.validator == "pattern" and isinstance(error.schema, dict) and "description" in error.schema:
        return f"must be {error.schema['description'].split(' (')[0]}; got {error.instance[:100]!r}"
    return error.message[:300]


def schema_errors(data: Any) -> list[tuple[tuple[Any, ...], jsonschema.ValidationError]]:
    """(path, error) of every schema violation of ``data``: the compiled check first (valid: nothing to do), then
    jsonschema, item by item for the top-level lists, so only the items that fail are walked by jsonschema."""
    check, lists = _compiled()
    if check(data):
        return []
    if not isinstance(data, dict):
        return [(tuple(e.absolute_path), e) for e in _validator().iter_errors(data)]
    out: list[tuple[tuple[Any, ...], jsonschema.ValidationError]] = []
    rest = dict(data)
    for key, item_check in lists:
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if not item_check(item):
                out += [((key, i, *e.absolute_path), e) for e in _item_validator(key).iter_errors(item)]
        rest[key] = []
    out += [(tuple(e.absolute_path), e) for e in _validator().iter_errors(rest)]
    return out


def validate_data(data: Any, source: str = "<memory>") -> list[Diagnostic]:
    """All problems of a parsed JSON document (empty list: valid)."""
    def diag(pointer: str, message: str) -> Diagnostic:
        return Diagnostic(source, pointer, message)

    if not isinstance(data, dict):
        return [diag("", f"a model file holds a JSON object, not {type(data).__name__}")]
    bad = bad_values(data)
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
    errors = sorted(schema_errors(data), key=lambda pe: (list(map(str, pe[0])), pe[1].message))
    if errors:
        out, seen = [], set()
        for path, e in errors:
            d = diag(_pointer(path), _schema_message(e))
            if (d.pointer, d.message) not in seen:
                seen.add((d.pointer, d.message))
                out.append(d)
        return out
    problems = document_problems(data)
    checked = len(problems)
    with np.errstate(all="ignore"):  # absurd values the checks above refuse are evaluated again: no noise
        parse_entities(data, problems)  # sees the problems above: an element never resolves against a faulty part
    reported = {p for p, _ in problems[:checked]}
    problems = problems[:checked] + [(p, m) for p, m in problems[checked:] if p not in reported]
    problems += simulation_problems(data.get("simulation", {}))
    memory = memory_problem(data)
    if memory:
        problems.append(memory)
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
    """Parse and validate model text (a leading byte-order mark is ignored); raise :class:`ModelError` listing every
    problem."""
    data = parse_json(text.removeprefix("\ufeff"), source)
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


#: byte-order marks of encodings other than UTF-8 (a file saved as UTF-16 or UTF-32 by an editor)
_OTHER_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"), (b"\xff\xfe", "UTF-16"),
               (b"\xfe\xff", "UTF-16"))


def loads_model_bytes(raw: bytes, source: str = "<memory>") -> Model:
    """Decode a model file's bytes (UTF-8; a leading UTF-8 byte-order mark is allowed, as RFC 8259 permits) and
    load it; raise :class:`ModelError` for anything else."""
    for bom, name in _OTHER_BOMS:
        if raw.startswith(bom):
            raise ModelError([Diagnostic(source, "", f"{name} text (it starts with the byte-order mark "
                                                     f"{bom.hex(' ')}); model files are UTF-8: save it as UTF-8")])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ModelError([Diagnostic(source, "", f"not UTF-8 text: {exc.reason} at byte {exc.start}")]) from None
    return loads_model(text, source)


def load_model(path: str | os.PathLike[str]) -> Model:
    """Load and validate a model file; raise :class:`ModelError` (never another exception) on bad input."""
    source = _text(path)
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            raise ModelError([Diagnostic(source, "", f"the file has {size / 1e6:.4g} MB; model files are at most "
                                                     f"{MAX_FILE_BYTES / 1e6:.4g} MB (a chain of 10^4 bodies "
                                                     "takes about 6 MB)")])
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ModelError([Diagnostic(source, "", "file not found")]) from None
    except IsADirectoryError:
        raise ModelError([Diagnostic(source, "", "is a folder, not a model file")]) from None
    except PermissionError:
        raise ModelError([Diagnostic(source, "", "permission denied")]) from None
    except MemoryError:
        raise ModelError([Diagnostic(source, "", "not enough memory to read the file")]) from None
    except OSError as exc:
        raise ModelError([Diagnostic(source, "", f"cannot read: {exc.strerror or exc}")]) from None
    return loads_model_bytes(raw, source)


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
