"""``mechstudio equations FILE [--form appell|lagrange|constraints] [--latex] [--choice NAME]``.

Prints the equations Mechanism Studio derives symbolically (sympy) for a model:

* ``appell`` (default): the quasi-velocities u = F q' + f0, the kinematic equations q' = H u + h0, the
  acceleration energy G (its u'-dependent part), the generalized forces Q~ = H^T Q and Appell's equations
  dG/du'_v = Q~_v (source 002, §2.3); planar models and the rolling disk (spatial free bodies with rolling
  contacts); other spatial models end with "error: ..." (exit status 2);
* ``lagrange``: Lagrange's equations of the first kind M q'' = Q + Phi_q^T lambda + C_psi^T mu (spatial bodies:
  M q'' + k(q, q') = ..., k the velocity terms of the acceleration energy);
* ``constraints``: Phi, Phi_q, Phi_t and gamma of the holonomic constraints (Phi_q q'' = gamma), and the
  nonholonomic rows C_psi q' + xi_psi = 0 with eta_psi.

``--latex`` prints LaTeX instead of pretty text; ``--choice`` selects a quasi-velocity choice of the file
("file", an alternative's name, or "auto"). :func:`render` returns the same text for other front ends.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from mechstudio.core.commands.arguments import add_model_argument, read_model
from mechstudio.core.model.document import Model

if TYPE_CHECKING:
    import sympy as sp

FORMS = ("appell", "lagrange", "constraints")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("equations", help="print the symbolically derived equations (Appell, Lagrange, constraints)")
    add_model_argument(p)
    p.add_argument("--form", choices=FORMS, default="appell")
    p.add_argument("--latex", action="store_true", help="print LaTeX instead of pretty text")
    p.add_argument("--choice", default=None,
                   help="quasi-velocity choice: 'file' (default when the file has one), 'auto' or an alternative")
    p.set_defaults(func=run)


def _fmt(e: sp.Basic, latex: bool) -> str:
    import sympy as sp  # only when this command runs: registering it must not import sympy (start-up time)
    if latex:
        return sp.latex(e)
    return sp.pretty(e, use_unicode=True, wrap_line=False)


def _block(title: str, items: list[sp.Basic], latex: bool, labels: list[str] | None = None) -> list[str]:
    out = [title]
    for k, e in enumerate(items):
        text = _fmt(e, latex)
        tag = f"  [{labels[k]}]" if labels else ""
        if "\n" in text:
            out.append(f"  ({k + 1}){tag}")
            out += ["      " + line for line in text.splitlines()]
        else:
            out.append(f"  ({k + 1}) {text}{tag}")
    return out


def render(model: Model, form: str = "appell", latex: bool = False, choice: str | None = None) -> str:
    """The text printed by the command (see module docstring)."""
    # sympy only when this command runs: registering it must not import sympy (start-up of every command)
    import sympy as sp
    from mechstudio.core.symbolic.appell import derive_appell, simplify_small, symbolic_model  # (the same)
    lines = [f"model: {model.name or model.source} ({model.kind}); coordinates: "
             + ", ".join(f"{n} -> {_fmt(s, latex)}" for n, s in zip(symbolic_model(model).coord_names,
                                                                       symbolic_model(model).q))]
    sm = symbolic_model(model)
    if form == "constraints":
        labels_h = sm.row_labels[:sm.Phi.shape[0]]
        labels_n = sm.row_labels[sm.Phi.shape[0]:]
        if sm.Phi.shape[0]:
            lines += _block("holonomic constraints Phi(q, t) = 0:", [sp.Eq(e, 0) for e in sm.Phi], latex, labels_h)
            lines += ["constraint Jacobian Phi_q:", _fmt(sm.Phi_q, latex)]
            lines += _block("Phi_t:", list(sm.Phi_t), latex, labels_h)
            lines += _block("acceleration equations Phi_q q'' = gamma, gamma =",
                            [simplify_small(e) for e in sm.gamma], latex, labels_h)
        else:
            lines.append("no holonomic constraints")
        if sm.C_psi.shape[0]:
            qd = sp.Matrix(sm.qd)
            lines += _block("nonholonomic constraints C_psi q' + xi_psi = 0:",
                            [sp.Eq(simplify_small((sm.C_psi[r, :] * qd)[0] + sm.xi_psi[r]), 0)
                             for r in range(sm.C_psi.shape[0])], latex, labels_n)
            lines += _block("eta_psi = C_psi' q' + xi_psi' (C_psi q'' + eta_psi = 0):",
                            [simplify_small(e) for e in sm.eta_psi], latex, labels_n)
        return "\n".join(lines) + "\n"
    if form == "lagrange":
        lam = [sp.Symbol(f"lambda_{k + 1}", real=True) for k in range(sm.C.shape[0])]
        forces = sm.Q + (sm.C.T * sp.Matrix(lam) if lam else sp.zeros(sm.n, 1))
        inertial = sm.extra.get("inertial")  # spatial bodies: M q'' + k(q, q') = Q + C^T lambda
        eqs = [sp.Eq(sp.Add(*[sm.M[i, j] * sm.qdd[j] for j in range(sm.n) if sm.M[i, j] != 0])
                     + (simplify_small(inertial[i]) if inertial is not None else 0),
                     simplify_small(forces[i])) for i in range(sm.n)]
        lines.append("multipliers: " + ", ".join(f"{_fmt(s, latex)} [{lab}]" for s, lab in zip(lam, sm.row_labels))
                     if lam else "no constraints")
        title = "M q'' + k = Q + C^T lambda" if inertial is not None else "M q'' = Q + C^T lambda"
        lines += _block(f"Lagrange's equations of the first kind {title}:", eqs, latex,
                        list(sm.coord_names))
        return "\n".join(lines) + "\n"
    der = derive_appell(model, choice)
    ch = der.choice
    lines.append(f"quasi-velocity choice {ch.key!r}" + (f": {ch.description}" if ch.description else ""))
    lines += _block("quasi-velocities u = F(q, t) q' + f0:",
                    [sp.Eq(s, d, evaluate=False) for s, d in zip(der.u, ch.definitions)], latex, ch.names)
    lines += _block("kinematic equations q' = H u + h0:", der.kinematic_equations(), latex)
    lines += ["acceleration energy (the terms with u'; + terms free of u'):",
              "  G = " + _fmt(der.display(der.G), latex)]
    lines += _block("generalized forces of the quasi-velocities Q~ = H^T Q:",
                    [der.display(e) for e in der.Q_tilde], latex, ch.names)
    lines += _block("Appell's equations dG/du'_v = Q~_v:", der.equations(), latex, ch.names)
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    # sympy only when this command runs (start-up of every command)
    from mechstudio.core.symbolic.appell import SymbolicUnsupported
    # sympy only when this command runs (start-up of every command)
    from mechstudio.core.symbolic.quasi import QuasiVelocityError
    model = read_model(args.file)
    try:
        text = render(model, args.form, args.latex, args.choice)
    except (QuasiVelocityError, SymbolicUnsupported) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ZeroDivisionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    print(text, end="")
    return 0
