"""Messages from the engine in the editor's words.

The engine's messages are written for the command line and for developers: they name options (``--metric``,
``--vary``) and classes (``PlanarSystem``). In a dialog the user sees fields and models, not options and classes:
:func:`user_words` rewrites those names into what the dialog shows (:func:`sweep_words` also maps the sweep's
options to the dialog's tables and fields).
"""
from __future__ import annotations

import re

#: class names of compiled systems -> what the user built
SYSTEM_WORDS = {
    "TreeMaximalSystem": "spatial tree of spherical joints",
    "PlanarSystem": "planar model",
    "SpatialSystem": "spatial model",
    "ConstrainedSystem": "model",
}
#: options of ``mechstudio sweep`` -> the sweep dialog's parts
SWEEP_OPTION_WORDS = {
    "--metric": "metric",
    "--vary": "parameter",
    "--samples": "samples",
    "--t-end": "end time",
    "--dt": "output interval",
    "--workers": "local workers",
    "--design": "design",
    "--seed": "seed",
}
_SWEEP_SENTENCES = (
    (re.compile(r"give at least one --metric LABEL=REDUCER\(COLUMN\)"),
     "add at least one metric (Metrics: Add metric, then choose a reducer and a result column)"),
    (re.compile(r"give at least one --vary NAME\.FIELD=\.\.\."),
     "add at least one parameter (Parameters: Add parameter, or right-click a field in Properties → Sweep this)"),
    (re.compile(r"the (\w+) design needs --samples N \(N >= 1\)"),
     r"the \1 design needs a number of samples (1 or more)"),
    (re.compile(r"--samples is for the random and sobol designs; the grid runs every combination"),
     "the number of samples is for the random and sobol designs; the grid runs every combination"),
    (re.compile(r"--vary (\S+) is given more than once"), r"the parameter \1 is listed more than once"),
    (re.compile(r"--vary (\S+): the grid design needs START:STOP:COUNT"),
     r"the parameter \1 needs a start, a stop and a count for the grid design"),
)
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")
_CLASS = re.compile(r"\b(an?\s+)?(" + "|".join(SYSTEM_WORDS) + r")\b")


def _class_words(match: re.Match[str]) -> str:
    words = SYSTEM_WORDS[match.group(2)]
    if match.group(1):
        article = "an " if words[0] in "aeiou" else "a "
        return article + words
    return words


def user_words(message: str) -> str:
    """``message`` without class names of the engine: "(got a PlanarSystem)" → "(got a planar model)"."""
    return _CLASS.sub(_class_words, message)


def sweep_words(message: str) -> str:
    """A sweep's message in the words of the sweep dialog: no command-line options, no class names."""
    text = user_words(message)
    for pattern, words in _SWEEP_SENTENCES:
        text = pattern.sub(words, text)
    text = re.sub(r"--metric (\S+?):", r"metric \1:", text)
    return _OPTION.sub(lambda m: SWEEP_OPTION_WORDS.get(m.group(1), m.group(1).lstrip("-").replace("-", " ")), text)


__all__ = ["SWEEP_OPTION_WORDS", "SYSTEM_WORDS", "sweep_words", "user_words"]
