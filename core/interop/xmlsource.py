"""Reading the XML of robot description files (URDF, MJCF) with the line of every element, and the import report.

:func:`parse_xml` builds an :mod:`xml.etree.ElementTree` tree with expat and remembers each element's line, so that
every diagnostic names the file, the line and the element path (``/robot/joint[shoulder]/limit``). A file that is
not well-formed XML raises :class:`~mechstudio.core.errors.ModelError` naming the file, the line and expat's
reason; nothing raises a traceback.

An import's problems are :class:`~mechstudio.core.errors.Diagnostic` records whose ``file`` is ``FILE:LINE`` and
whose ``pointer`` is the element path: ``error`` for what makes the import impossible (raised together as one
ModelError), ``warning`` for what was dropped or changed (the model is still written; the command prints them and
the GUI shows them in its import report).
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from xml.parsers import expat

import numpy as np

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.types import FloatArray


@dataclass
class XmlDocument:
    """A parsed XML file: its root, the line of every element and the element paths."""
    source: str
    root: ET.Element
    lines: dict[ET.Element, int]
    parents: dict[ET.Element, ET.Element]

    def line(self, el: ET.Element | None) -> int:
        return self.lines.get(el, 0) if el is not None else 0

    def path(self, el: ET.Element) -> str:
        """``/robot/link[base]/inertial``: tags from the root, each with its ``name`` when it has one."""
        parts = []
        node: ET.Element | None = el
        while node is not None:
            name = node.get("name")
            parts.append(f"{node.tag}[{name}]" if name else node.tag)
            node = self.parents.get(node)
        return "/" + "/".join(reversed(parts))


def parse_xml(text: str, source: str) -> XmlDocument:
    """Parse ``text`` (the contents of ``source``) keeping each element's line; a syntax error raises ModelError
    naming the file, the line and the problem."""
    builder = ET.TreeBuilder()
    lines: dict[ET.Element, int] = {}
    parser = expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        lines[builder.start(tag, attrs)] = parser.CurrentLineNumber

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(text, True)
        root = builder.close()
    except expat.ExpatError as exc:
        reason = expat.ErrorString(exc.code)
        raise ModelError([Diagnostic(f"{source}:{exc.lineno}", "", f"not well-formed XML: {reason} (line "
                                                                    f"{exc.lineno}, column {exc.offset + 1})")])
    except AssertionError as exc:  # TreeBuilder: a document without a root element
        raise ModelError([Diagnostic(source, "", f"not an XML document ({exc})")]) from None
    parents = {child: parent for parent in root.iter() for child in parent}
    return XmlDocument(source, root, lines, parents)


@dataclass
class Report:
    """The diagnostics of one import (module docstring)."""
    doc: XmlDocument
    items: list[Diagnostic] = field(default_factory=list)

    def add(self, el: ET.Element | None, message: str, severity: str = "warning") -> None:
        file = f"{self.doc.source}:{self.doc.line(el)}" if el is not None else self.doc.source
        self.items.append(Diagnostic(file, self.doc.path(el) if el is not None else "", message, severity))

    def error(self, el: ET.Element | None, message: str) -> None:
        self.add(el, message, "error")

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def raise_errors(self) -> None:
        """Raise one ModelError with every diagnostic (warnings included, for context) when there is an error."""
        if self.errors:
            raise ModelError(self.items)

    def floats(self, el: ET.Element, key: str, count: int | None, default: list[float] | None = None
               ) -> FloatArray | None:
        """Attribute ``key`` of ``el`` as ``count`` finite numbers (any count when None); the default when absent;
        None (after an error naming the attribute) when malformed."""
        text = el.get(key)
        if text is None:
            return None if default is None else np.array(default, float)
        try:
            values = [float(v) for v in text.split()]
        except ValueError:
            self.error(el, f"attribute {key}={text!r}: expected numbers")
            return None
        if (count is not None and len(values) != count) or not all(math.isfinite(v) for v in values):
            want = f"{count} finite numbers" if count is not None else "finite numbers"
            self.error(el, f"attribute {key}={text!r}: expected {want}")
            return None
        return np.array(values, float)

    def number(self, el: ET.Element, key: str, default: float | None) -> float | None:
        v = self.floats(el, key, 1, None if default is None else [default])
        return None if v is None else float(v[0])

    @classmethod
    def of_root(cls, doc: XmlDocument, tag: str, format_name: str) -> tuple["Report", ET.Element]:
        """A new report of ``doc`` and its root element, which must be ``<tag>`` (else one ModelError saying that a
        ``format_name`` file has ``<tag>``)."""
        report = cls(doc)
        if doc.root.tag != tag:
            report.error(doc.root, f"root element <{doc.root.tag}>: {format_name} file has <{tag}>")
            report.raise_errors()
        return report, doc.root


__all__ = ["Report", "XmlDocument", "parse_xml"]
