"""Running ``mechstudio`` commands inside the test process.

A plain module with a name of its own: ``from conftest import ...`` resolves to whichever conftest was imported
first (``tests/conftest.py`` or ``tests/gui/conftest.py``), so shared test helpers do not live in a conftest.
"""
from __future__ import annotations

import io
import sys
from collections.abc import Callable

import pytest


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str], stdin_text: str | None = None,
            monkeypatch: pytest.MonkeyPatch | None = None, *,
            entry: Callable[[list[str]], int] | None = None) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``mechstudio ARGV`` run in this process (argparse's SystemExit included).

    ``stdin_text`` (with ``monkeypatch``) stands in for the standard input; ``entry`` is the command's ``main``
    (default: the headless ``mechstudio.core.cli.main``; the launcher ``mechstudio.gui.cli.main`` adds ``open``).
    """
    if entry is None:
        from mechstudio.core.cli import main as entry
    if stdin_text is not None:
        assert monkeypatch is not None, "stdin_text needs the monkeypatch fixture"
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    try:
        rc = entry([str(a) for a in argv])
    except SystemExit as exc:  # argparse (usage errors, --version, --help)
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err
