"""Import of robot description files: the kind recognised from the content (root ``<robot>``: URDF,
:mod:`~mechstudio.core.interop.urdf`; root ``<mujoco>``: MJCF, :mod:`~mechstudio.core.interop.mjcf_import`), the
model document validated by the loader and assembled. Used by ``mechstudio import`` and the editor's
File > Import."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.interop.mjcf_import import mjcf_document
from mechstudio.core.interop.urdf import urdf_document
from mechstudio.core.interop.xmlsource import parse_xml
from mechstudio.core.kinematics.assembly import assemble
from mechstudio.core.model import model_from_data
from mechstudio.core.model.document import Model
from mechstudio.core.systems.compile import compile_model

KINDS = {"robot": "URDF", "mujoco": "MJCF"}


@dataclass
class ImportResult:
    """An imported model: its document, the loaded model, the file's kind (URDF, MJCF) and the warnings."""
    document: dict[str, Any]
    model: Model
    kind: str
    warnings: list[Diagnostic]


def is_xml(text: str) -> bool:
    """True when ``text`` looks like an XML document (its first non-blank character is ``<``)."""
    return text.lstrip("\ufeff \t\r\n").startswith("<")


def import_robot(text: str, source: str, name: str | None = None) -> ImportResult:
    """Import URDF or MJCF ``text`` read from ``source`` (module docstring). Raises ModelError with every problem:
    the file's own (file:line, element path) or the resulting model's (the loader's JSON pointers)."""
    doc = parse_xml(text, source)
    tag = doc.root.tag
    if tag == "robot":
        document, warnings = urdf_document(doc, name)
    elif tag == "mujoco":
        document, warnings = mjcf_document(doc, name)
    else:
        raise ModelError([Diagnostic(f"{source}:{doc.line(doc.root)}", f"/{tag}",
                                     f"root element <{tag}>: expected <robot> (URDF) or <mujoco> (MJCF)")])
    if not document["bodies"]:
        raise ModelError(warnings + [Diagnostic(f"{source}:{doc.line(doc.root)}", f"/{tag}",
                                                "nothing to import: the file has no moving body with mass")])
    model = model_from_data(document, f"{source} (imported)")
    system = compile_model(model)
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    if not res.status.ok:
        raise ModelError(warnings + [Diagnostic(source, "", f"the imported model does not assemble: "
                                                            f"{res.message}")])
    return ImportResult(document, model, KINDS[tag], warnings)


__all__ = ["ImportResult", "KINDS", "import_robot", "is_xml"]
