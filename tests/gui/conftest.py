"""Fixtures of the GUI tests: an isolated config folder (settings, recovery files) per test, a main window with
a recording messenger instead of modal dialogs, helpers that drive the canvas with real mouse events, and a
deterministic teardown of every widget a test leaves behind (:func:`dispose_widgets`)."""
from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_models"


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every GUI test gets its own MECHSTUDIO_CONFIG_DIR, so no test touches a user's settings."""
    d = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("MECHSTUDIO_CONFIG_DIR", str(d))
    return d


@pytest.fixture(autouse=True)
def app_kernel_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor's runs choose their kernels as the app does for a user ("auto": the numpy path first, the compiled
    kernels when they pay and are cached), not the suite's "compiled" (tests/conftest.py): a GUI test's short run
    never waits for a kernel family to compile in the foreground (the closed-loop route takes over a minute of CPU
    on a cold cache)."""
    monkeypatch.setenv("MECHSTUDIO_KERNELS", "auto")


def dispose_widgets(app: Any) -> None:
    """Close and delete, now, every widget a test left: each visible top-level widget and each top-level widget
    of a class not from Qt itself (the app's windows and panels, pyqtgraph's widgets), visible or not; then run
    the pending events (the windows' close handlers, zero timers), the deferred deletions, and a garbage
    collection.

    Without this, ``close()`` + ``deleteLater()`` (what pytest-qt does with the widgets given to ``qtbot``) leave
    the C++ widgets alive until some later test's event loop runs the deferred deletions, and Python's garbage
    collector may meanwhile clear the wrappers of the pyqtgraph items in them: a later layout pass then calls a
    Python override of an item whose wrapper is cleared ("'LabelItem' object has no attribute ..."), in whichever
    test happens to run then. Here every widget is gone before the next test starts, and the collection runs at
    this fixed point. Qt's own hidden top-level widgets (tooltips, popup menus not shown) are kept."""
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QWidget
    for w in app.topLevelWidgets():
        try:
            visible, ours = w.isVisible(), not type(w).__module__.startswith("PySide6")
            if visible:
                QWidget.close(w)  # Qt's close (its closeEvent runs); a Python close() may not run twice (pyqtgraph)
            if visible or ours:
                w.deleteLater()
        except RuntimeError:  # deleted meanwhile by a parent's deletion
            pass
    for _ in range(3):  # a close handler may post more work (a zero timer that deletes a thread, ...)
        app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def widget_teardown(qapp: Any) -> Any:
    """Every GUI test ends with :func:`dispose_widgets` (after its own fixtures' teardown). Python's automatic
    garbage collection is off from the test's start to that point: a collection triggered by allocations at an
    arbitrary moment (a busy machine moves it around) may clear the wrappers of pyqtgraph items whose C++ objects a
    closing window still lays out, and their Python ``sizeHint`` then fails; :func:`dispose_widgets` collects once
    every widget is deleted."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        try:
            dispose_widgets(qapp)
        finally:
            if was_enabled:
                gc.enable()


class RecordingMessenger:
    """Stands in for message boxes and file dialogs; records what the window wanted to say."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []
        self.diagnostic_calls: list[tuple[str, list[Any]]] = []
        self.questions: list[tuple[str, str]] = []
        self.answer = True
        self.save_answer = "discard"
        self.next_open: str | None = None
        self.next_save: str | None = None
        self.next_text: str | None = None

    def error(self, parent: Any, title: str, text: str) -> None:
        self.errors.append((title, text))

    def diagnostics(self, parent: Any, title: str, diagnostics: list[Any]) -> None:
        self.diagnostic_calls.append((title, list(diagnostics)))

    def ask(self, parent: Any, title: str, text: str) -> bool:
        self.questions.append((title, text))
        return self.answer

    def ask_save(self, parent: Any, name: str) -> str:
        self.questions.append(("save?", name))
        return self.save_answer

    def open_path(self, parent: Any, directory: str) -> str | None:
        return self.next_open

    def save_path(self, parent: Any, suggestion: str) -> str | None:
        return self.next_save

    def text(self, parent: Any, title: str, label: str) -> str | None:
        return self.next_text

    def import_path(self, parent: Any, directory: str) -> str | None:
        return self.next_open

    def import_report(self, parent: Any, title: str, diagnostics: list[Any]) -> None:
        self.diagnostic_calls.append((title, list(diagnostics)))


@pytest.fixture
def require_gl(qapp: Any) -> None:
    """Skip a test that needs OpenGL where the Qt platform has none (offscreen, minimal)."""
    from PySide6.QtGui import QOpenGLContext  # Qt only once a GUI test runs
    plat = qapp.platformName()
    if plat in ("offscreen", "minimal") or not QOpenGLContext().create():
        pytest.skip(f"no usable OpenGL on QPA platform {plat!r}; run under Xvfb with QT_QPA_PLATFORM=xcb")


@pytest.fixture
def messenger() -> RecordingMessenger:
    return RecordingMessenger()


@pytest.fixture
def window(qtbot: Any, messenger: RecordingMessenger, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The editor's main window without the live-view plug-in (the editor tests do not need OpenGL)."""
    monkeypatch.setenv("MECHSTUDIO_NO_LIVE_VIEW", "1")
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w)
    w.resize(1280, 820)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.document.undo_stack.setClean()  # closing must not ask


class UI:
    """Drives the editor with real mouse events (QTest) — what a user's hand does. Use via the ``ui`` fixture."""

    ROOT = ROOT
    SAMPLES = SAMPLES

    def __init__(self, qtbot: Any, window: Any):
        self.qtbot, self.window = qtbot, window

    def drag_canvas(self, path: list[tuple[float, float]], modifier: Any = None) -> None:
        canvas_press_move_release(self.qtbot, self.window.canvas, path, modifier)

    def click_canvas(self, x: float, y: float) -> None:
        canvas_click(self.qtbot, self.window.canvas, x, y)

    def palette_drag(self, kind: str, x: float, y: float) -> None:
        palette_drag(self.qtbot, self.window, kind, x, y)

    save_screenshot = staticmethod(lambda widget, name: save_screenshot(widget, name))
    non_background_fraction = staticmethod(lambda path: non_background_fraction(path))


@pytest.fixture
def ui(qtbot: Any, window: Any) -> UI:
    return UI(qtbot, window)


def canvas_press_move_release(qtbot: Any, canvas: Any, path: list[tuple[float, float]],
                              modifier: Any = None) -> None:
    """Drag along world points ``path`` [m] with the left button, as a user's mouse would."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    vp = canvas.viewport()
    mod = modifier or Qt.KeyboardModifier.NoModifier
    pts = [canvas.view_point(x, y) for x, y in path]
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, mod, pts[0])
    for p in pts[1:]:
        QTest.mouseMove(vp, p)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, mod, pts[-1])


def canvas_click(qtbot: Any, canvas: Any, x: float, y: float) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     canvas.view_point(x, y))


def palette_drag(qtbot: Any, window: Any, kind: str, x: float, y: float) -> None:
    """Press on the palette entry ``kind``, move across to world point (x, y) on the canvas, release."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest
    pal, canvas = window.palette, window.canvas
    vp = pal.viewport()
    start = pal.item_rect(kind).center()
    target_global = canvas.viewport().mapToGlobal(canvas.view_point(x, y))
    target = vp.mapFromGlobal(target_global)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    steps = 6
    for k in range(1, steps + 1):
        p = QPoint(start.x() + (target.x() - start.x()) * k // steps, start.y() + (target.y() - start.y()) * k // steps)
        QTest.mouseMove(vp, p)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)


def save_screenshot(widget: Any, name: str) -> Path:
    """Grab ``widget`` into a PNG and return its path: docs/screenshots/<name> when MECHSTUDIO_UPDATE_SCREENSHOTS=1
    (to refresh the committed pictures), otherwise a temporary folder (a test run leaves the tree clean)."""
    import os
    import tempfile
    if os.environ.get("MECHSTUDIO_UPDATE_SCREENSHOTS") == "1":
        out = ROOT / "docs" / "screenshots" / name
    else:
        out = Path(tempfile.gettempdir()) / "mechstudio-screenshots" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    img = widget.grab().toImage()
    assert img.save(str(out)), f"could not write {out}"
    return out


def non_background_fraction(path: Path) -> float:
    """Fraction of pixels that differ clearly from the most common colour (a blank window gives ~0)."""
    from PySide6.QtGui import QImage
    img = QImage(str(path))
    w, h = img.width(), img.height()
    counts: dict[int, int] = {}
    step = 3
    total = 0
    for y in range(0, h, step):
        for x in range(0, w, step):
            c = img.pixel(x, y)
            counts[c] = counts.get(c, 0) + 1
            total += 1
    common = max(counts.values())
    return 1.0 - common / total
