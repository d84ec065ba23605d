"""A seeded structural mutator of model documents, and one fuzz trial (load -> compile -> short run).

Used by ``scripts/fuzz.py N`` (long offline runs) and ``tests/test_fuzz.py`` (a few thousand mutants in CI).
A mutant is a sample model with 1-3 random mutations: a deleted key, a value replaced by one of another type, an
extreme number (0, -0.0, +-1e308, 5e-324, +-2**63, 10**400, NaN, +-Infinity), an odd string (empty, NUL, very long,
an expression bomb, path-like), or a list of the wrong length (emptied, truncated, an element duplicated).

:func:`trial` classifies the outcome: ``rejected`` (a :class:`~core.errors.ModelError` with diagnostics at load or
compile — the expected answer to bad input), ``ok`` (loaded, compiled and, when asked, ran to a status), or
``defect`` (any other exception, a ModelError without diagnostics, or a run raising instead of ending with a
status). Hangs are caught by the caller (``scripts/fuzz.py`` uses a per-trial alarm).
"""
from __future__ import annotations

import copy
import json
import random
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mechstudio.core.errors import ModelError

EXTREME_NUMBERS: tuple[Any, ...] = (0, -0.0, 1e308, -1e308, 5e-324, -5e-324, 2 ** 63, -2 ** 63, 10 ** 400,
                                    float("nan"), float("inf"), float("-inf"), 1e20, -1e20, 1e-20, -1, 0.5)
ODD_STRINGS: tuple[str, ...] = ("", " ", "\x00", "é\u202e", "a" * 5000, "9**9**9*t", "t*10**10**8",
                                "__import__('os').system('true')", "../../etc/passwd", "NaN", "1e308*t*t",
                                "((((((((((((((((((((t))))))))))))))))))))", "sin(" * 40 + "t" + ")" * 40,
                                "exp(exp(exp(exp(t))))", "t**t**t**t**t**t", "1/(t-t)", "x.y", "d(t)")
OTHER_TYPES: tuple[Any, ...] = (None, True, False, "x", [], {}, [1.0, 2.0], {"type": "x"}, 1, 1.5, [[]], [None])


def _locations(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (tuple of keys/indices) to a value inside ``value`` (the root excluded)."""
    out: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        out.append(path + (k,))
        out.extend(_locations(v, path + (k,)))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate(doc: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """A mutated deep copy of ``doc`` and the list of mutations applied (for the report)."""
    out = copy.deepcopy(doc)
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        locs = _locations(out)
        if not locs:
            break
        path = rng.choice(locs)
        parent, key = _parent(out, path), path[-1]
        value = parent[key]
        kind = rng.choice(("delete", "type", "number", "number", "string", "length"))
        where = "/" + "/".join(map(str, path))
        if kind == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
            done.append(f"delete {where}")
        elif kind == "type":
            parent[key] = copy.deepcopy(rng.choice(OTHER_TYPES))
            done.append(f"type {where}={parent[key]!r}")
        elif kind == "number":
            numeric = [p for p in locs if isinstance(_parent(out, p)[p[-1]], (int, float))
                       and not isinstance(_parent(out, p)[p[-1]], bool)]
            path = rng.choice(numeric) if numeric else path
            parent, key = _parent(out, path), path[-1]
            parent[key] = rng.choice(EXTREME_NUMBERS)
            done.append(f"number /{'/'.join(map(str, path))}={parent[key]!r}"[:120])
        elif kind == "string":
            strings = [p for p in locs if isinstance(_parent(out, p)[p[-1]], str)]
            path = rng.choice(strings) if strings and rng.random() < 0.7 else path
            parent, key = _parent(out, path), path[-1]
            parent[key] = rng.choice(ODD_STRINGS)
            done.append(f"string /{'/'.join(map(str, path))}={parent[key][:30]!r}")
        else:
            lists = [p for p in locs if isinstance(_parent(out, p)[p[-1]], list)]
            if not lists:
                continue
            path = rng.choice(lists)
            seq = _parent(out, path)[path[-1]]
            op = rng.choice(("empty", "truncate", "duplicate", "extend"))
            if op == "empty":
                seq.clear()
            elif op == "truncate" and seq:
                del seq[rng.randrange(len(seq)):]
            elif op == "duplicate" and seq:
                seq.append(copy.deepcopy(rng.choice(seq)))
            else:
                seq.append(rng.choice(EXTREME_NUMBERS[:9]))
            done.append(f"length {op} /{'/'.join(map(str, path))}")
    return out, done


@dataclass
class Outcome:
    """Result of one trial: ``kind`` is "rejected", "ok" or "defect"; ``detail`` the exception for a defect."""
    kind: str
    stage: str
    detail: str = ""


def trial(doc: dict[str, Any], run_seconds: float | None = 0.05, compile: bool = True) -> Outcome:
    """Load ``doc`` (serialized as JSON text, NaN allowed), compile it (unless ``compile`` is False) and, unless
    ``run_seconds`` is None, run it for ``run_seconds`` (output every 0.01 s). See the module docstring for the
    outcome classes."""
    from mechstudio.core.model import loads_model
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    stage = "serialize"
    try:
        text = json.dumps(doc)
        stage = "load"
        model = loads_model(text, "<fuzz>")
        if not compile:
            return Outcome("ok", stage)
        stage = "compile"
        system = compile_model(model)
        if run_seconds is None:
            return Outcome("ok", stage)
        stage = "run"
        settings = SimulationSettings.from_model(model, t_end=run_seconds, dt=min(0.01, run_seconds))
        settings.validate()
        traj = run(system, settings)
        if traj.status is None or not traj.message and not traj.status.ok:
            return Outcome("defect", stage, "run ended without a status message")
        return Outcome("ok", stage)
    except ModelError as exc:
        if not exc.diagnostics or stage not in ("load", "compile"):
            return Outcome("defect", stage, f"ModelError without diagnostics or at {stage}: {exc}")
        return Outcome("rejected", stage)
    except Exception as exc:  # the point of fuzzing: every other exception is a defect, reported
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else "?"
        return Outcome("defect", stage, f"{type(exc).__name__} at {where}: {str(exc)[:200]}")


def sample_documents(folder: Path) -> dict[str, dict[str, Any]]:
    """The sample model documents of ``folder`` (``*.json``), by file name."""
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}
