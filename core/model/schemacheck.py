"""A compiled yes/no check of a JSON document against the model schema: the fast path of validation.

``jsonschema`` walks the schema anew for every value and builds a validator object per step; on a large model (a
chain of 10^4 bodies) that costs seconds, most of it for documents that are valid. :class:`CompiledSchema` turns
the schema once into nested Python closures, one per sub-schema, that answer only *valid or not*. The loader
(:mod:`mechstudio.core.model.io`) asks it first and runs ``jsonschema`` -- which words the diagnostics -- only on
the parts it rejects, so every diagnostic is unchanged.

The closures implement Draft 2020-12 exactly for the keywords the model schema uses (``type``, ``properties``,
``additionalProperties``, ``required``, ``propertyNames``, ``items``, ``minItems``/``maxItems``, ``enum`` and
``const`` of strings, ``pattern`` (``re.search``, as jsonschema does), ``minLength``/``maxLength``,
``minimum``/``exclusiveMinimum``/``exclusiveMaximum``, ``allOf``/``anyOf``/``oneOf``/``not``, ``if``/``then``/
``else``, local ``$ref``). Any other keyword, and the cases whose equality rules are subtle (an ``enum`` with
non-string members, ``uniqueItems`` over non-strings), are handed to ``jsonschema`` for that sub-schema, so the
answer always equals ``jsonschema``'s (``tests/test_schema_check.py`` compares the two on fuzzed documents).
``jsonschema`` itself is imported only when such a sub-schema is first checked (a valid model of the schema as it is
loads without it: its import is a tenth of a command's start-up).
"""
from __future__ import annotations

import numbers
import re
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import jsonschema

Check = Callable[[Any], bool]

#: keywords that carry no assertion
_ANNOTATIONS = frozenset({"description", "title", "$id", "$schema", "$defs", "$comment", "default", "examples"})
_HANDLED = frozenset({"type", "properties", "additionalProperties", "required", "propertyNames", "items",
                      "minItems", "maxItems", "uniqueItems", "enum", "const", "pattern", "minLength", "maxLength",
                      "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "allOf", "anyOf", "oneOf",
                      "not", "if", "then", "else", "$ref"})


def _always(x: Any) -> bool:
    return True


def _never(x: Any) -> bool:
    return False


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, bool)


def _is_integer(x: Any) -> bool:  # Draft 6 and later: 1.0 is an integer
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or isinstance(x, float) and x.is_integer()


_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict), "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str), "number": _is_number, "integer": _is_integer,
    "boolean": lambda x: isinstance(x, bool), "null": lambda x: x is None,
}


def _all(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def check(x: Any) -> bool:
        for c in checks:
            if not c(x):
                return False
        return True
    return check


class CompiledSchema:
    """``CompiledSchema(root_schema)(document)`` is True exactly when the document is valid; :meth:`at` gives the
    check of a sub-schema (``"#/$defs/body"``)."""

    def __init__(self, root: dict[str, Any],
                 validator: Callable[[], jsonschema.protocols.Validator] | None = None):
        """``validator``: makes the jsonschema validator of ``root`` that delegated sub-schemas evolve from (default:
        a Draft 2020-12 validator), called when a delegated check first runs."""
        self.root = root
        self._make_validator = validator or self._draft_2020_12
        self._validator: jsonschema.protocols.Validator | None = None
        self._refs: dict[str, Check] = {}
        self.delegated: list[str] = []  # sub-schemas handed to jsonschema (for the tests: none today)
        self.check = self._compile(root, "#")

    def __call__(self, instance: Any) -> bool:
        return self.check(instance)

    @property
    def validator(self) -> jsonschema.protocols.Validator:
        """The jsonschema validator of the root (made on first use)."""
        if self._validator is None:
            self._validator = self._make_validator()
        return self._validator

    def _draft_2020_12(self) -> jsonschema.protocols.Validator:
        import jsonschema  # only where a sub-schema is delegated (module docstring): no import for the fast path
        return jsonschema.Draft202012Validator(self.root)

    def _exact(self, schema: Any) -> Check:
        """jsonschema's answer for ``schema``, its validator made on the first call."""
        made: list[Check] = []

        def check(x: Any) -> bool:
            if not made:
                made.append(self.validator.evolve(schema=schema).is_valid)
            return made[0](x)
        return check

    def at(self, ref: str) -> Check:
        """The check of the sub-schema at local reference ``ref`` (e.g. ``"#/$defs/joint"``)."""
        return self._ref(ref)

    def sub(self, schema: Any) -> Check:
        """The check of ``schema``, a sub-schema of the root (its ``$ref`` are resolved against the root)."""
        return self._compile(schema, "#/(sub)")

    # --------------------------------------------------------------------------------------------------------
    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise KeyError(ref)
        node: Any = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def _ref(self, ref: str) -> Check:
        if ref not in self._refs:
            cell: list[Check] = []
            self._refs[ref] = lambda x: cell[0](x)  # a recursive schema finds its own (finished) check here
            try:
                target = self._resolve(ref)
            except (KeyError, IndexError, TypeError):
                cell.append(self._delegate({"$ref": ref}, ref))
            else:
                cell.append(self._compile(target, ref))
            self._refs[ref] = cell[0]
        return self._refs[ref]

    def _delegate(self, schema: Any, where: str) -> Check:
        self.delegated.append(where)
        return self._exact(schema)

    def _compile(self, schema: Any, where: str) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            return self._delegate(schema, where)
        if set(schema) - _HANDLED - _ANNOTATIONS:
            return self._delegate(schema, where)
        checks: list[Check] = []
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not all(isinstance(t, str) and t in _TYPES for t in types):
                return self._delegate(schema, where)
            tests = [_TYPES[t] for t in types]
            checks.append(tests[0] if len(tests) == 1 else lambda x: any(t(x) for t in tests))
        for key in ("enum", "const"):
            if key in schema:
                members = schema[key] if key == "enum" else [schema[key]]
                if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
                    return self._delegate(schema, where)
                allowed = frozenset(members)
                checks.append(lambda x, allowed=allowed: isinstance(x, str) and x in allowed)
        checks += self._string_checks(schema)
        checks += self._number_checks(schema)
        checks += self._array_checks(schema, where)
        obj = self._object_check(schema, where)
        if obj is not None:
            checks.append(obj)
        for key in ("allOf", "anyOf", "oneOf"):
            if key in schema:
                subs = [self._compile(s, f"{where}/{key}/{i}") for i, s in enumerate(schema[key])]
                checks.append(_all(subs) if key == "allOf" else self._any(subs) if key == "anyOf" else self._one(subs))
        if "not" in schema:
            inner = self._compile(schema["not"], f"{where}/not")
            checks.append(lambda x: not inner(x))
        if "if" in schema:
            cond = self._compile(schema["if"], f"{where}/if")
            then = self._compile(schema.get("then", True), f"{where}/then")
            other = self._compile(schema.get("else", True), f"{where}/else")
            checks.append(lambda x: then(x) if cond(x) else other(x))
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        return _all(checks)

    @staticmethod
    def _any(subs: list[Check]) -> Check:
        return lambda x: any(s(x) for s in subs)

    @staticmethod
    def _one(subs: list[Check]) -> Check:
        def check(x: Any) -> bool:
            found = 0
            for s in subs:
                if s(x):
                    found += 1
                    if found > 1:
                        return False
            return found == 1
        return check

    @staticmethod
    def _string_checks(schema: dict[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "pattern" in schema:
            regex = re.compile(schema["pattern"])
            out.append(lambda x: not isinstance(x, str) or regex.search(x) is not None)
        if "minLength" in schema:
            lo = schema["minLength"]
            out.append(lambda x: not isinstance(x, str) or len(x) >= lo)
        if "maxLength" in schema:
            hi = schema["maxLength"]
            out.append(lambda x: not isinstance(x, str) or len(x) <= hi)
        return out

    @staticmethod
    def _number_checks(schema: dict[str, Any]) -> list[Check]:
        out: list[Check] = []
        # written as jsonschema writes the failures (x < minimum ...), so that NaN passes as it does there
        for key, fails in (("minimum", lambda x, b: x < b), ("exclusiveMinimum", lambda x, b: x <= b),
                           ("maximum", lambda x, b: x > b), ("exclusiveMaximum", lambda x, b: x >= b)):
            if key in schema:
                bound = schema[key]
                out.append(lambda x, bound=bound, fails=fails: not _is_number(x) or not fails(x, bound))
        return out

    def _array_checks(self, schema: dict[str, Any], where: str) -> list[Check]:
        out: list[Check] = []
        if "items" in schema:
            item = self._compile(schema["items"], f"{where}/items")

            def items(x: Any) -> bool:
                if isinstance(x, list):
                    for v in x:
                        if not item(v):
                            return False
                return True
            out.append(items)
        if "minItems" in schema:
            lo = schema["minItems"]
            out.append(lambda x: not isinstance(x, list) or len(x) >= lo)
        if "maxItems" in schema:
            hi = schema["maxItems"]
            out.append(lambda x: not isinstance(x, list) or len(x) <= hi)
        if schema.get("uniqueItems"):
            exact = self._exact({"uniqueItems": True})  # for items not all strings

            def unique(x: Any) -> bool:
                if not isinstance(x, list):
                    return True
                if all(isinstance(v, str) for v in x):
                    return len(set(x)) == len(x)
                return exact(x)
            out.append(unique)
        return out

    def _object_check(self, schema: dict[str, Any], where: str) -> Check | None:
        keys = ("properties", "additionalProperties", "required", "propertyNames")
        if not any(k in schema for k in keys):
            return None
        props = {k: self._compile(s, f"{where}/properties/{k}") for k, s in schema.get("properties", {}).items()}
        extra = self._compile(schema["additionalProperties"], f"{where}/additionalProperties") \
            if "additionalProperties" in schema else None
        required = tuple(schema.get("required", ()))
        names = self._compile(schema["propertyNames"], f"{where}/propertyNames") if "propertyNames" in schema \
            else None

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for k in required:
                if k not in x:
                    return False
            for k, v in x.items():
                if names is not None and not names(k):
                    return False
                c = props.get(k)
                if c is None:
                    c = extra
                if c is not None and not c(v):
                    return False
            return True
        return check
