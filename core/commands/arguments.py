"""Conventions shared by the headless commands (not a command itself).

* option types that reject bad values at parse time, so that argparse exits with status 2 and names the option
  on stderr (``--t-end -1`` -> ``argument --t-end: must be a positive number, got '-1'``);
* the model argument: a file path, or ``-`` for the model text on standard input;
* CSV output: a file (written atomically by :func:`mechstudio.core.run.results.write_csv`) or ``-`` for standard
  output, in which case every other message goes to standard error (:func:`report_stream`); a reader of standard
  output that goes away is noticed (:mod:`mechstudio.core.commands.output`: exit status 141, no summary);
* a progress bar (tqdm) on standard error when it is a terminal and ``--quiet`` is not given;
* the point columns of a result table: ``--points body.point,...`` or ``--no-points`` (default: every named
  body point; an unknown body or point exits with status 2 naming the valid ones).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, Callable, Mapping, TextIO

from mechstudio.core.commands.output import write_stdout
from mechstudio.core.model import Model, load_model, loads_model
from mechstudio.core.model.io import atomic_write_text, output_frames_problem
from mechstudio.core.systems.points import BodyPoint, PointSelectionError, select_points
from mechstudio.core.run.results import csv_chunks, write_csv

STDIO = "-"


def number(text: str) -> float:
    """A float from option text (argparse's error names the option when it is not a number)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    value = number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    """An argparse type: a finite number >= 0."""
    value = number(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an integer > 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def check_output_frames(t_end: float, dt: float) -> None:
    """Exit with status 2 naming --dt when t_end / dt asks for more frames than a run may record."""
    problem = output_frames_problem(t_end, dt)
    if problem:
        print(f"error: argument --t-end/--dt: {problem}", file=sys.stderr)
        raise SystemExit(2)


def add_model_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="model file (.json), or - to read the model from standard input")


def add_quiet_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary (errors only)")


def read_model(path: str) -> Model:
    """The model named on the command line (``-``: standard input); raises ModelError on bad input."""
    if path == STDIO:
        return loads_model(sys.stdin.read(), "<stdin>")
    return load_model(path)


def write_columns(out: str, columns: Mapping[str, Any]) -> None:
    """Write CSV columns to the file ``out`` (atomically) or, for ``-``, to standard output (BrokenPipeError when
    its reader goes away before it has read everything)."""
    if out == STDIO:
        write_stdout(csv_chunks(columns))
    else:
        write_csv(out, columns)


def write_text_output(out: str, text: str, summary: str) -> None:
    """Write a text product (model, MJCF) to the file ``out`` atomically and say so on stderr, or to stdout for
    ``-``."""
    if out == STDIO:
        write_stdout((text,))
    else:
        atomic_write_text(out, text)
        print(f"wrote {out}{': ' + summary if summary else ''}", file=sys.stderr)


def os_error_text(exc: OSError) -> str:
    """``FILE: reason`` of a failed file operation (``reason`` alone when no file is known): the text after
    ``error: `` of every command's file errors."""
    reason = exc.strerror or str(exc)
    name = exc.filename
    if name is None or name == "":
        return reason
    return f"{os.fsdecode(name) if isinstance(name, bytes) else name}: {reason}"


def report_stream(out: str | None) -> TextIO:
    """Where summaries go: standard error when the data itself goes to standard output, else standard output."""
    return sys.stderr if out == STDIO else sys.stdout


def progress_counter(total: int, quiet: bool, desc: str) -> tuple[Callable[[], bool], Callable[[], None]]:
    """(tick, close): ``tick()`` advances a tqdm bar on stderr by one unit and returns False (usable as a
    ``cancel`` callback); no bar when ``quiet`` or when stderr is not a terminal."""
    if quiet or not sys.stderr.isatty():
        return (lambda: False), (lambda: None)
    from tqdm import tqdm  # tqdm only when a progress bar is drawn (start-up of every command)
    bar = tqdm(total=total, desc=desc, unit="frame", file=sys.stderr, leave=False, dynamic_ncols=True)

    def tick() -> bool:
        if bar.n < total:
            bar.update(1)
        return False
    return tick, bar.close


def add_points_arguments(p: argparse.ArgumentParser) -> None:
    """``--points body.point,...`` / ``--no-points``: which point columns a result table gets."""
    group = p.add_mutually_exclusive_group()
    group.add_argument("--points", metavar="BODY.POINT,...",
                       help="world positions of these named body points as columns point.<body>.<point>.x, .y(, .z)"
                            " (default: every named body point)")
    group.add_argument("--no-points", action="store_true", help="no point columns")


def points_from_args(model: Model, args: argparse.Namespace) -> tuple[BodyPoint, ...]:
    """The points selected by ``--points`` / ``--no-points`` (core.systems.points.select_points); exits with status 2
    naming the option, the unknown body or point and the valid ones."""
    try:
        return select_points(model, args.points, enabled=not args.no_points)
    except PointSelectionError as exc:
        print(f"error: argument --points: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
