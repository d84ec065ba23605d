"""``mechstudio synthesize TARGETS [--linkage fourbar|watt1|watt2|stephenson1|stephenson3] [--out MODEL.json|-]
[--workers N | --scheduler ADDRESS] [--seed S] [--tolerance T] [--max-time S] [--criterion NAME]``: dimensional
synthesis of a four-bar (:mod:`mechstudio.core.analysis.synthesis`) or, for path generation with ``--linkage``, of a
six-bar (:mod:`mechstudio.core.analysis.synthesis_sixbar_path`; docs/analysis-synthesis.md).

TARGETS is one of

* a CSV file of path targets, one per row: ``x,y`` [m] or ``x,y,crank_angle`` [rad] (``crank_angle_deg`` [deg]
  in the header instead; ``theta``, ``theta_deg`` are the same) to prescribe the crank's rotations; a header row
  naming the columns is optional (without one the columns are x, y and, when present, the crank angle in rad);
  ``#`` starts a comment line;
* a CSV file of function pairs with ``--function``: ``input,output`` [rad] (``input_deg,output_deg`` [deg]);
* a JSON file: ``{"targets": [[x, y], ...], "crank_angles": [...]}`` (``points`` for ``targets``;
  ``crank_angles_deg`` in degrees; the angles optional), a bare list of ``[x, y]`` pairs, or
  ``{"function": {"input": [...], "output": [...], "absolute": false, "ground_length": 1.0}}`` (``input_deg``,
  ``output_deg`` in degrees) for function generation;
* a model file (``"format": "mechanism-studio-model"``): the targets are ``--count`` positions of the named point
  ``--point BODY.POINT`` (default: the first named point of the last body) over the model's driven run
  (``mechstudio kinematics``' times from 0 to the file's ``simulation.t_end``), evenly spaced in time -- the
  coupler curve of a linkage to recover.

The report (status, error, link lengths, Grashof class, crank angles, time) goes to standard output, or to
standard error when the model goes to standard output (``--out -``). ``--out FILE`` writes the synthesized model
atomically (also when the tolerance was not met: the closest linkage, with exit status 3).

Exit status: 0 a linkage within the tolerance; 2 bad input (a file, a target, an option; the cluster); 3 none within
the tolerance before the budget ran out (the closest is reported); 130 interrupted.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mechstudio.core.commands.arguments import (STDIO, add_quiet_argument, positive_float, positive_int,
                                                write_text_output)
from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model.io import model_from_data, parse_json
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.points import PointSelectionError, PointTracer, named_points, parse_point_names

CRITERIA = ("peak_torque", "peak_bearing_force")
#: --linkage: the four-bar and the six-bar topologies (core.analysis.synthesis_sixbar.TOPOLOGIES)
LINKAGES = ("fourbar", "watt1", "watt2", "stephenson1", "stephenson3")
MODEL_FORMAT = "mechanism-studio-model"
DEFAULT_COUNT = 8
DEFAULT_NAME = "synthesized_four_bar"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("synthesize", help="dimensional synthesis of a four-bar or six-bar: path generation through "
                                          "target points, or function generation",
                       description="Find a four-bar (or with --linkage a six-bar) whose coupler point passes through "
                                   "target points (in order, on its assembly branches), or a four-bar whose output "
                                   "angle follows the input angle. See docs/analysis-synthesis.md.")
    p.add_argument("file", metavar="TARGETS", help="targets: CSV (x,y[,crank_angle]), JSON, or a model file")
    p.add_argument("--function", action="store_true", help="the CSV holds input,output angle pairs (function "
                                                           "generation)")
    p.add_argument("--absolute", action="store_true", help="function generation: the angles are measured from the "
                                                           "ground line (default: rotations from the first pair)")
    p.add_argument("--ground-length", type=positive_float, default=1.0,
                   help="function generation: length of the ground link [m] (default 1)")
    p.add_argument("--point", metavar="BODY.POINT", help="model TARGETS: the traced point (default: the first named "
                                                         "point of the last body)")
    p.add_argument("--count", type=positive_int, default=DEFAULT_COUNT,
                   help=f"model TARGETS: number of targets along the run (default {DEFAULT_COUNT})")
    p.add_argument("--linkage", choices=LINKAGES, default="fourbar",
                   help="the linkage to synthesize for path generation: fourbar (default), or a six-bar: watt1, "
                        "watt2, stephenson1, stephenson3 (docs/analysis-synthesis.md, Six-bars)")
    p.add_argument("--out", help="write the synthesized model (JSON) to this file, or - for standard output")
    p.add_argument("--name", default=DEFAULT_NAME, help="the model's name (default synthesized_four_bar, or "
                                                        "synthesized_<linkage> for a six-bar)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, default=1,
                       help="Dask worker processes for the search (default 1: this process)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="address of a running Dask scheduler")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0): the same seed gives the "
                                                       "same linkage")
    p.add_argument("--tolerance", type=positive_float, default=1e-4,
                   help="path error to reach, relative to the longest link (function generation: output angle "
                        "error [rad]); default 1e-4")
    p.add_argument("--max-time", type=positive_float, default=120.0, help="time budget [s] (default 120)")
    p.add_argument("--max-evaluations", type=positive_int, help="budget of fitness evaluations (default: none)")
    p.add_argument("--criterion", choices=CRITERIA, help="minimise a dynamic criterion over exact linkages "
                                                         "(peak driver torque or peak bearing force)")
    p.add_argument("--solutions", type=positive_int, default=4,
                   help="--criterion: exact linkages to compare (default 4)")
    p.add_argument("--speed", type=positive_float, default=2 * math.pi,
                   help="crank speed of the model's driver [rad/s] (default 2 pi)")
    p.add_argument("--density", type=positive_float, default=1.0, help="line density of the links [kg/m] "
                                                                       "(default 1)")
    add_quiet_argument(p)
    p.set_defaults(func=run)


# --- reading targets -----------------------------------------------------------------------------------------------

@dataclass
class Targets:
    """What TARGETS holds: path targets (points, optional crank angles [rad]) or function pairs [rad]."""
    kind: str  # "path" or "function"
    points: np.ndarray | None = None
    crank_angles: np.ndarray | None = None
    inputs: np.ndarray | None = None
    outputs: np.ndarray | None = None
    absolute: bool = False
    ground_length: float | None = None
    source: str = ""


def problem(source: str, pointer: str, message: str) -> ModelError:
    return ModelError([Diagnostic(source, pointer, message)])


def number_list(value: Any, source: str, pointer: str, degrees: bool = False) -> np.ndarray:
    if not isinstance(value, list) or not value:
        raise problem(source, pointer, "expected a list of numbers")
    out = []
    for k, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
            raise problem(source, f"{pointer}/{k}", f"expected a finite number, got {json.dumps(v)[:40]}")
        out.append(float(v))
    a = np.array(out)
    return np.radians(a) if degrees else a


def point_list(value: Any, source: str, pointer: str) -> np.ndarray:
    if not isinstance(value, list) or not value:
        raise problem(source, pointer, "expected a list of [x, y] points")
    rows = []
    for k, v in enumerate(value):
        if not (isinstance(v, list) and len(v) == 2):
            raise problem(source, f"{pointer}/{k}", f"expected a point [x, y], got {json.dumps(v)[:40]}")
        rows.append(number_list(v, source, f"{pointer}/{k}"))
    return np.array(rows)


def angles_of(obj: dict[str, Any], name: str, source: str, pointer: str) -> np.ndarray | None:
    """``name`` [rad] or ``name_deg`` [deg] of a JSON object (not both)."""
    if name in obj and f"{name}_deg" in obj:
        raise problem(source, f"{pointer}/{name}_deg", f"give {name} (rad) or {name}_deg (deg), not both")
    if name in obj:
        return number_list(obj[name], source, f"{pointer}/{name}")
    if f"{name}_deg" in obj:
        return number_list(obj[f"{name}_deg"], source, f"{pointer}/{name}_deg", degrees=True)
    return None


def targets_from_json(data: Any, source: str) -> Targets:
    if isinstance(data, list):
        return Targets("path", point_list(data, source, ""), source=source)
    if not isinstance(data, dict):
        raise problem(source, "", "expected an object with \"targets\" or \"function\", or a list of [x, y] points")
    if "function" in data:
        f = data["function"]
        if not isinstance(f, dict):
            raise problem(source, "/function", "expected an object with input and output angles")
        inputs, outputs = angles_of(f, "input", source, "/function"), angles_of(f, "output", source, "/function")
        if inputs is None or outputs is None:
            raise problem(source, "/function", "expected \"input\" and \"output\" angles (or input_deg, output_deg)")
        absolute = f.get("absolute", False)
        if not isinstance(absolute, bool):
            raise problem(source, "/function/absolute", "expected true or false")
        ground = f.get("ground_length")
        if ground is not None and (isinstance(ground, bool) or not isinstance(ground, (int, float))
                                   or not ground > 0):
            raise problem(source, "/function/ground_length", "expected a positive number")
        return Targets("function", inputs=inputs, outputs=outputs, absolute=absolute,
                       ground_length=None if ground is None else float(ground), source=source)
    key = "targets" if "targets" in data else "points" if "points" in data else None
    if key is None:
        raise problem(source, "", "expected \"targets\" (a list of [x, y] points) or \"function\"")
    unknown = sorted(set(data) - {key, "crank_angles", "crank_angles_deg", "description"})
    if unknown:
        raise problem(source, f"/{unknown[0]}", "unknown key (expected targets, crank_angles or crank_angles_deg)")
    return Targets("path", point_list(data[key], source, f"/{key}"),
                   angles_of(data, "crank_angles", source, ""), source=source)


def csv_rows(text: str, source: str) -> tuple[list[str] | None, list[tuple[int, list[str]]]]:
    """(header names or None, [(line number, fields)]) of a CSV text; blank lines and # comments skipped."""
    rows = []
    for lineno, fields in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not fields or not "".join(fields).strip() or fields[0].lstrip().startswith("#"):
            continue
        rows.append((lineno, [f.strip() for f in fields]))
    if not rows:
        raise problem(source, "", "no rows")
    header = None
    try:
        [float(v) for v in rows[0][1]]
    except ValueError:
        header = [h.lower() for h in rows[0][1]]
        rows = rows[1:]
    return header, rows


def csv_columns(text: str, source: str, names: dict[str, tuple[str, ...]],
                default: list[str]) -> dict[str, np.ndarray]:
    """Columns of a CSV (module docstring), by header name or position; a bad cell names its line and column."""
    header, rows = csv_rows(text, source)
    if header is None:
        width = len(rows[0][1]) if rows else 0
        header = default[:width]
    columns: dict[str, int] = {}
    for key, aliases in names.items():
        for alias in aliases:
            if alias in header:
                columns[key] = header.index(alias)
    unknown = [h for h in header if not any(h in a for a in names.values())]
    if unknown:
        raise problem(source, "", f"unknown column {unknown[0]!r} (expected {', '.join(a[0] for a in names.values())})")
    out: dict[str, list[float]] = {k: [] for k in columns}
    for lineno, fields in rows:
        if len(fields) != len(header):
            raise problem(source, "", f"line {lineno}: {len(fields)} values, expected {len(header)}")
        for key, col in columns.items():
            try:
                value = float(fields[col])
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise problem(source, "", f"line {lineno}, column {header[col]}: expected a finite number, got "
                                          f"{fields[col][:40]!r}")
            out[key].append(value)
    if not rows:
        raise problem(source, "", "no data rows")
    result = {k: np.array(v) for k, v in out.items()}
    for key in list(result):
        if columns[key] is not None and header[columns[key]].endswith("_deg"):
            result[key] = np.radians(result[key])
    return result


def targets_from_csv(text: str, source: str, function: bool) -> Targets:
    if function:
        cols = csv_columns(text, source, {"input": ("input", "input_deg"), "output": ("output", "output_deg")},
                           ["input", "output"])
        if "input" not in cols or "output" not in cols:
            raise problem(source, "", "expected the columns input,output (or input_deg,output_deg)")
        return Targets("function", inputs=cols["input"], outputs=cols["output"], source=source)
    cols = csv_columns(text, source, {"x": ("x",), "y": ("y",),
                                      "crank_angle": ("crank_angle", "crank_angle_deg", "theta", "theta_deg")},
                       ["x", "y", "crank_angle"])
    if "x" not in cols or "y" not in cols:
        raise problem(source, "", "expected the columns x,y[,crank_angle]")
    return Targets("path", np.stack([cols["x"], cols["y"]], -1), cols.get("crank_angle"), source=source)


def targets_from_model(data: dict[str, Any], source: str, point: str | None, count: int) -> Targets:
    """The traced point's positions at ``count`` evenly spaced times of the model's driven run."""
    model = model_from_data(data, source)
    try:
        if point is None:
            candidates = [p for p in named_points(model) if p.body == model.bodies[-1].name] if model.bodies else []
            if not candidates:
                raise PointSelectionError("the last body has no named point; name one with --point BODY.POINT")
            chosen = candidates[0]
        else:
            chosen = parse_point_names(model, point)[0]
    except PointSelectionError as exc:
        print(f"error: argument --point: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if count < 5:
        print(f"error: argument --count: {count} targets; at least 5 are needed", file=sys.stderr)
        raise SystemExit(2)
    settings = SimulationSettings.from_model(model)
    system = compile_model(model)
    times = np.linspace(0.0, settings.t_end, count)
    res = driven_motion(system, times)
    if not res.status.ok or len(res.t) < count:
        raise problem(source, "", f"the model's driven run does not reach t_end = {settings.t_end:g} s: "
                                  f"{res.message}")
    points = PointTracer(system, [chosen]).trace(res.q, chosen.name)
    return Targets("path", np.asarray(points, float)[:, :2], source=source)


def read_targets(path: str, function: bool, point: str | None, count: int) -> Targets:
    """TARGETS (module docstring); bad content raises ModelError naming the file and the place."""
    source = path
    text = sys.stdin.read() if path == STDIO else Path(path).read_text(encoding="utf-8-sig")
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        data = parse_json(text, source)  # the model loader's JSON reader: its errors name the line and column
        if isinstance(data, dict) and data.get("format") == MODEL_FORMAT:
            return targets_from_model(data, source, point, count)
        targets = targets_from_json(data, source)
        if function and targets.kind != "function":
            raise problem(source, "", "--function: expected {\"function\": {\"input\": [...], \"output\": [...]}}")
        return targets
    return targets_from_csv(text, source, function)


# --- the command -----------------------------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    targets = read_targets(args.file, args.function, args.point, args.count)
    if args.scheduler or args.workers > 1:
        # Dask only when the search runs on a cluster (start-up of every command)
        from mechstudio.core.sweep.execute import ClusterError, connect
        try:
            with connect(workers=args.workers, scheduler=args.scheduler) as client:
                return synthesize(args, targets, client)
        except ClusterError as exc:
            print(f"error: Dask cluster: {exc}", file=sys.stderr)
            return 2
    return synthesize(args, targets, None)


def synthesize(args: argparse.Namespace, targets: Targets, client: Any | None) -> int:
    # the search only when it runs (start-up of every command)
    from mechstudio.core.analysis.synthesis import Candidate, synthesize_function, synthesize_path
    stream = sys.stderr if args.out == STDIO else sys.stdout
    show = not args.quiet and sys.stderr.isatty()

    def progress(candidate: Candidate) -> bool:
        if show:
            print(f"best error {candidate.error:.3g} after {candidate.elapsed_s:.3g} s", file=sys.stderr)
        return True

    common = dict(workers=args.workers, client=client, seed=args.seed, tolerance=args.tolerance,
                  max_time_s=args.max_time, max_evaluations=args.max_evaluations, progress=progress)
    if targets.kind == "function" and args.linkage != "fourbar":
        print(f"error: argument --linkage: function generation is built for four-bars only, not {args.linkage}",
              file=sys.stderr)
        return 2
    if targets.kind == "function":
        assert targets.inputs is not None and targets.outputs is not None
        result = synthesize_function(targets.inputs, targets.outputs, absolute=args.absolute or targets.absolute,
                                     ground_length=targets.ground_length or args.ground_length, **common)
    elif args.linkage != "fourbar":
        if args.criterion:
            print("error: argument --criterion: the dynamic criteria are computed for four-bars only "
                  "(--linkage fourbar)", file=sys.stderr)
            return 2
        # the six-bar search only when it runs (start-up of every command)
        from mechstudio.core.analysis.synthesis_sixbar_path import synthesize_sixbar_path
        result = synthesize_sixbar_path(targets.points, args.linkage, crank_angles=targets.crank_angles, **common)
    else:
        result = synthesize_path(targets.points, crank_angles=targets.crank_angles, criterion=args.criterion,
                                 solutions=args.solutions, speed=args.speed, density=args.density, **common)
    if result.bad_input:
        print(f"error: {targets.source}: {result.message}", file=sys.stderr)
        return 2
    lines = [f"{result.status.value}: {result.message}"]
    best = result.best
    if best is not None:
        lines += ["  " + line for line in best.summary()]
    lines.append(f"  search: {result.evaluations} evaluations, {result.generations} generations, "
                 f"{result.elapsed_s:.3g} s on {result.workers} worker(s)")
    if best is not None and args.out:
        name = args.name if args.name != DEFAULT_NAME or args.linkage == "fourbar" else f"synthesized_{args.linkage}"
        data = best.to_model_data(name, speed=args.speed, density=args.density)
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
        traced = "coupler point coupler.P" if args.linkage == "fourbar" else "path point link5.P"
        write_text_output(args.out, text, f"model {name!r}, {traced}")
    if not args.quiet or not result.ok:
        print("\n".join(lines), file=stream if result.ok else sys.stderr)
    if result.status.value == "cancelled":
        return 130
    return 0 if result.ok else 3
