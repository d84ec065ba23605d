"""Quasi-velocities u = F(q, t) q' + f0(q, t) ([002], eq. 2.3.2): the user's choice or an automatic one.

Model-file form (key ``quasi_velocities``, see ``docs/appell.md``)::

    "quasi_velocities": {
      "choice": [ {"name": "u1", "coefficients": {"skate.x": 1}},
                  {"name": "u2", "expression": "d(skate.phi)"} ],
      "alternatives": {
        "blade_speed": {"description": "...",
                        "choice": [ {"name": "v", "expression": "cos(skate.phi)*d(skate.x) + sin(skate.phi)*d(skate.y)"},
                                    {"name": "w", "coefficients": {"skate.phi": 1}} ]}}}

Each quasi-velocity is given either by ``coefficients`` (coordinate -> number, expression string in t and the
coordinates, or a time function object) plus an optional ``offset`` f0, or by an ``expression`` linear in the
speeds ``d(body.coord)``. ``choice`` is the file's default; ``alternatives`` are further named choices;
``"auto"`` is always available: the coordinate speeds picked by QR with column pivoting of the null-space
basis of C (the independent generalized speeds of [001], [002]).

Besides F and f0 a choice provides kappa(q, q', t) = F' q' + f0' (the part of u' that does not contain q''),
used by the Appell formulations: differentiating u = F q' + f0 gives F q'' = u' - kappa.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import scipy.linalg
import sympy as sp

from mechstudio.core.model.timefunc import T, ExpressionError, time_function
from mechstudio.core.symbolic.expr import parse_state_expression
from mechstudio.core.types import FloatArray
from mechstudio.core.kinematics.assembly import assemble

AUTO = "auto"
FILE = "file"


class QuasiVelocityError(ValueError):
    """A quasi-velocity specification that cannot be used; ``pointer`` locates it in the model file."""

    def __init__(self, message: str, pointer: str = "/quasi_velocities"):
        super().__init__(message)
        self.pointer = pointer


def coordinate_symbol(coord_name: str, order: int = 0) -> sp.Symbol:
    """Symbol of coordinate "body.coord" (order 0), its speed (1) or acceleration (2): x_skate, xdot_skate ..."""
    body, coord = coord_name.rsplit(".", 1)
    body = re.sub(r"[^A-Za-z0-9_]", "_", body)
    return sp.Symbol(f"{coord}{('', 'dot', 'ddot')[order]}_{body}", real=True)


def rate_name(name: str) -> str:
    """Sympy name of the time derivative of a quasi-velocity symbol (u1 -> udot1, omega -> omegadot)."""
    m = re.match(r"^([A-Za-z]+)(.*)$", name)
    return f"{m.group(1)}dot{m.group(2)}" if m else f"{name}dot"


@dataclass
class QuasiVelocityChoice:
    """f quasi-velocities u = F(q, t) q' + f0(q, t) of an n-coordinate system (see module docstring)."""

    key: str  # "auto", "file" or the name of an alternative
    names: list[str]  # as written by the user (auto: "d(body.coord)")
    symbols: list[sp.Symbol]
    rate_symbols: list[sp.Symbol]
    q: list[sp.Symbol]
    qd: list[sp.Symbol]
    F: sp.Matrix  # (f, n)
    f0: sp.Matrix  # (f, 1)
    definitions: list[sp.Expr]  # F q' + f0 row by row
    description: str = ""
    pointers: list[str] = field(default_factory=list)
    auto_coordinates: list[int] | None = None  # the chosen coordinate indices of an automatic choice
    _F: Callable[..., Any] | None = field(default=None, repr=False)
    _f0: Callable[..., Any] | None = field(default=None, repr=False)
    _kappa: Callable[..., Any] | None = field(default=None, repr=False)
    constant: bool = False  # F constant, f0 = 0 (kappa = 0)

    @property
    def f(self) -> int:
        return len(self.names)

    def compile(self) -> None:
        self.constant = all(not e.free_symbols for e in self.F) and all(e == 0 for e in self.f0)
        if self.constant:
            Fc = np.array(self.F.tolist(), dtype=float).reshape(self.f, len(self.q))
            zero = np.zeros(self.f)
            self._F = lambda q, t: Fc
            self._f0 = lambda q, t: zero
            self._kappa = lambda q, v, t: zero
            return
        args = (self.q, T)
        u = self.F * sp.Matrix(self.qd) + self.f0
        kappa = u.jacobian(self.q) * sp.Matrix(self.qd) + u.diff(T)
        fF = sp.lambdify(args, self.F, modules="numpy", cse=True)
        ff0 = sp.lambdify(args, self.f0, modules="numpy", cse=True)
        fk = sp.lambdify((self.q, self.qd, T), kappa, modules="numpy", cse=True)
        f, n = self.f, len(self.q)
        self._F = lambda q, t: np.asarray(fF(q, t), dtype=float).reshape(f, n)
        self._f0 = lambda q, t: np.asarray(ff0(q, t), dtype=float).reshape(f)
        self._kappa = lambda q, v, t: np.asarray(fk(q, v, t), dtype=float).reshape(f)

    def F_num(self, q: FloatArray, t: float) -> FloatArray:
        if self._F is None:
            self.compile()
        return self._F(q, t)  # type: ignore[misc]

    def f0_num(self, q: FloatArray, t: float) -> FloatArray:
        if self._f0 is None:
            self.compile()
        return self._f0(q, t)  # type: ignore[misc]

    def kappa_num(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if self._kappa is None:
            self.compile()
        return self._kappa(q, v, t)  # type: ignore[misc]

    def values(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """u = F q' + f0."""
        return self.F_num(q, t) @ v + self.f0_num(q, t)

    def describe(self) -> list[str]:
        return [f"{n} = {sp.sstr(d)}" for n, d in zip(self.names, self.definitions)]


def _spec_expr(spec: Any, coords: dict[str, sp.Symbol], pointer: str) -> sp.Expr:
    if isinstance(spec, bool):
        raise QuasiVelocityError("a coefficient is a number, an expression string or a time function", pointer)
    if isinstance(spec, (int, float)):
        return sp.Float(spec) if isinstance(spec, float) else sp.Integer(spec)
    try:
        if isinstance(spec, str):
            return parse_state_expression(spec, coords)
        return time_function(spec).expr
    except (ExpressionError, KeyError, TypeError, ValueError) as exc:
        raise QuasiVelocityError(f"invalid coefficient: {exc}", pointer) from None


def parse_choice(items: list[dict[str, Any]], coord_names: list[str], key: str, pointer: str,
                 description: str = "") -> QuasiVelocityChoice:
    """Build a choice from the file's list of quasi-velocity items; raises :class:`QuasiVelocityError`."""
    q = [coordinate_symbol(c) for c in coord_names]
    qd = [coordinate_symbol(c, 1) for c in coord_names]
    coords = dict(zip(coord_names, q))
    speeds = dict(zip(coord_names, qd))
    taken = {s.name for s in q + qd}
    names: list[str] = []
    rows: list[list[sp.Expr]] = []
    offsets: list[sp.Expr] = []
    pointers: list[str] = []
    for i, item in enumerate(items):
        ptr = f"{pointer}/{i}"
        name = str(item.get("name", f"u{i + 1}"))
        if name in names:
            raise QuasiVelocityError(f"duplicate quasi-velocity name {name!r}", f"{ptr}/name")
        row = [sp.Integer(0)] * len(q)
        if "expression" in item and "coefficients" in item:
            raise QuasiVelocityError("give either 'coefficients' or 'expression', not both", ptr)
        if "expression" in item:
            try:
                e = sp.expand(parse_state_expression(item["expression"], coords, speeds))
            except ExpressionError as exc:
                raise QuasiVelocityError(f"quasi-velocity {name!r}: {exc}", f"{ptr}/expression") from None
            for k, s in enumerate(qd):
                c = e.diff(s)
                if c.free_symbols & set(qd):
                    raise QuasiVelocityError(f"quasi-velocity {name!r} must be linear in the speeds d(...)",
                                             f"{ptr}/expression")
                row[k] = c
            off = sp.simplify(e.subs({s: 0 for s in qd}))
        elif "coefficients" in item:
            for coord, spec in item["coefficients"].items():
                if coord not in coords:
                    raise QuasiVelocityError(f"quasi-velocity {name!r}: no coordinate {coord!r}; coordinates: "
                                             f"{', '.join(coord_names)}", f"{ptr}/coefficients")
                row[coord_names.index(coord)] = _spec_expr(spec, coords, f"{ptr}/coefficients/{coord}")
            off = _spec_expr(item.get("offset", 0), coords, f"{ptr}/offset")
        else:
            raise QuasiVelocityError(f"quasi-velocity {name!r} needs 'coefficients' or 'expression'", ptr)
        if all(c == 0 for c in row):
            raise QuasiVelocityError(f"quasi-velocity {name!r} does not involve any speed", ptr)
        names.append(name)
        rows.append(row)
        offsets.append(off)
        pointers.append(ptr)
    syms = []
    for name in names:
        base = re.sub(r"[^A-Za-z0-9_]", "_", name)
        if base in taken:
            base += "_u"
        syms.append(sp.Symbol(base, real=True))
    rates = [sp.Symbol(rate_name(s.name), real=True) for s in syms]
    F = sp.Matrix(rows) if rows else sp.zeros(0, len(q))
    f0 = sp.Matrix(offsets) if offsets else sp.zeros(0, 1)
    defs = list(F * sp.Matrix(qd) + f0) if rows else []
    return QuasiVelocityChoice(key, names, syms, rates, q, qd, F, f0, defs, description, pointers)


def null_space(C: FloatArray, rtol: float = 1e-9) -> tuple[FloatArray, int]:
    """Orthonormal basis N of the null space of C (SVD, rank tolerance relative to sigma_max) and rank(C)."""
    n = C.shape[1]
    if C.shape[0] == 0:
        return np.eye(n), 0
    _, s, vt = np.linalg.svd(C)
    rank = int(np.sum(s > rtol * max(float(s[0]) if s.size else 0.0, 1e-300)))
    return vt[rank:].T, rank


def auto_choice(system: Any, q: FloatArray, t: float = 0.0) -> QuasiVelocityChoice:
    """Independent generalized speeds: coordinates picked by pivoted QR of N^T at (q, t)."""
    N, _ = null_space(system.constraint_matrix(q, t))
    f = N.shape[1]
    picked: list[int] = []
    if f:
        _, _, piv = scipy.linalg.qr(N.T, pivoting=True, mode="economic")
        picked = sorted(int(k) for k in piv[:f])
    names = system.coord_names
    items = [{"name": coordinate_symbol(names[k], 1).name, "coefficients": {names[k]: 1}} for k in picked]
    ch = parse_choice(items, list(names), AUTO, "/quasi_velocities")
    ch.names = [f"d({names[k]})" for k in picked]
    ch.symbols = [coordinate_symbol(names[k], 1) for k in picked]
    ch.rate_symbols = [coordinate_symbol(names[k], 2) for k in picked]
    ch.auto_coordinates = picked
    ch.description = "automatic: independent generalized speeds " + ", ".join(ch.names)
    return ch


def choice_keys(data: dict[str, Any]) -> list[str]:
    """The choices a model offers: "auto", "file" (its ``choice``) and its named alternatives."""
    qv = data.get("quasi_velocities", {})
    keys = [AUTO]
    if qv.get("choice"):
        keys.append(FILE)
    keys += list(qv.get("alternatives", {}))
    return keys


def load_choice(system: Any, key: str | None = None, q: FloatArray | None = None,
                t: float = 0.0) -> QuasiVelocityChoice:
    """The choice ``key`` of the system's model (None: the file's ``choice`` if any, else automatic).

    The automatic choice is made at configuration ``q`` (default: the assembled initial configuration).
    Raises :class:`QuasiVelocityError` for an unknown key or a bad specification.
    """
    data = system.model.data
    qv = data.get("quasi_velocities", {})
    if key is None:
        key = FILE if qv.get("choice") else AUTO
    if key == AUTO:
        if q is None:
            q = initial_configuration(system)
        return auto_choice(system, q, t)
    if key == FILE:
        if not qv.get("choice"):
            raise QuasiVelocityError("the model file has no quasi-velocity 'choice'")
        return parse_choice(qv["choice"], list(system.coord_names), FILE, "/quasi_velocities/choice",
                            qv.get("description", ""))
    alts = qv.get("alternatives", {})
    if key not in alts:
        raise QuasiVelocityError(f"unknown quasi-velocity choice {key!r}; valid: "
                                 f"{', '.join(choice_keys(data))}")
    alt = alts[key]
    return parse_choice(alt.get("choice", []), list(system.coord_names), key,
                        f"/quasi_velocities/alternatives/{key}/choice", alt.get("description", ""))


def initial_configuration(system: Any) -> FloatArray:
    """The assembled initial configuration (the rough one when assembly fails)."""
    q0 = system.initial_guess()
    try:
        res = assemble(system, q0, 0.0, hold=system.held_coordinates())
        return res.q if res.status.ok else q0
    except Exception:  # noqa: BLE001 - a best effort starting point only
        return q0


def independence_problems(system: Any, choice: QuasiVelocityChoice, q: FloatArray,
                          t: float = 0.0, rtol: float = 1e-8) -> list[tuple[str, str]]:
    """(pointer, message) for each quasi-velocity that is not independent of the constraints at (q, t).

    Rows are examined in order (constraint rows first, then the quasi-velocities): a quasi-velocity whose
    row F_v adds nothing to the span of the constraint rows and the earlier quasi-velocities is named together
    with the rows it is a combination of. A wrong count (f != n - rank C) is reported too.
    """
    out: list[tuple[str, str]] = []
    C = system.constraint_matrix(q, t)
    labels = system.row_labels()
    N, rank = null_space(C)
    dof = system.n - rank
    base_ptr = choice.pointers[0].rsplit("/", 1)[0] if choice.pointers else "/quasi_velocities"
    F = choice.F_num(q, t)
    kept_rows: list[FloatArray] = [C[r] for r in range(C.shape[0])]
    kept_names: list[str] = [f"{labels[r]} (row {r})" for r in range(C.shape[0])]
    scale = max(float(np.abs(C).max()) if C.size else 0.0, 1.0)
    for v in range(choice.f):
        row = F[v]
        if kept_rows:
            A = np.array(kept_rows)
            w, *_ = np.linalg.lstsq(A.T, row, rcond=None)
            resid = float(np.linalg.norm(A.T @ w - row))
        else:
            w, resid = np.zeros(0), float(np.linalg.norm(row))
        if resid <= rtol * max(scale, float(np.linalg.norm(row))):
            big = np.abs(w) > 1e-9 * max(float(np.abs(w).max()) if w.size else 0.0, 1e-300)
            parts = [kept_names[k] for k in np.flatnonzero(big)]
            what = ", ".join(parts) if parts else "(nothing)"
            out.append((choice.pointers[v] if v < len(choice.pointers) else base_ptr,
                        f"quasi-velocity {choice.names[v]!r} is not independent of the constraints: at the "
                        f"initial configuration its row is a combination of {what}; choose a speed the "
                        f"constraints leave free"))
        else:
            kept_rows.append(row)
            kept_names.append(f"quasi-velocity {choice.names[v]!r}")
    if choice.f != dof:
        out.append((base_ptr, f"the choice has {choice.f} quasi-velocities "
                              f"({', '.join(choice.names) or 'none'}) but the model has {dof} velocity degrees "
                              f"of freedom (n - rank C = {system.n} - {rank}); give exactly {dof}"))
    return out


def quasi_velocity_problems(system: Any) -> list[tuple[str, str]]:
    """Semantic validation of a compiled model's ``quasi_velocities`` (run by :func:`mechstudio.core.systems.compile.compile_model`).

    Parses every choice and checks its independence from the constraints at the assembled initial
    configuration; returns (JSON pointer, message) pairs (empty: valid). Never raises.
    """
    data = system.model.data
    out: list[tuple[str, str]] = []
    if "quasi_velocities" not in data:
        return out
    q0 = None
    for key in choice_keys(data):
        if key == AUTO:
            continue
        try:
            ch = load_choice(system, key)
        except QuasiVelocityError as exc:
            out.append((exc.pointer, str(exc)))
            continue
        if q0 is None:
            q0 = initial_configuration(system)
        try:
            out.extend(independence_problems(system, ch, q0))
        except Exception as exc:  # noqa: BLE001 - e.g. a coefficient that is not finite at q0
            out.append((ch.pointers[0] if ch.pointers else "/quasi_velocities",
                        f"cannot evaluate the quasi-velocities at the initial configuration: {exc}"))
    return out
