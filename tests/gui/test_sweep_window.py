"""The sweep dialog on a small screen and around the editor: it fits 1366×768 (the set-up part scrolls, the
results keep their room), double-clicking a row opens that run as a new untitled, unsaved document (undo goes
back to the swept model), the Dask dashboard's link is shown when there is one, Dask's INFO lines stay out of the
app's log, and the dialog's cluster closes cleanly (no worker process left)."""
from __future__ import annotations

import logging
import os
import shutil
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtTest import QTest

from mechstudio.core.model.edit import get_value
from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui
SMALL_SCREEN = QRect(0, 0, 1366, 768 - 32)  # 1366×768 less a 32 px panel


def open_dialog(window: Any, qtbot: Any, path: Any = SAMPLES / "four_bar.json") -> Any:
    assert window.open_file(str(path), ask=False)
    window.act_parameter_sweep.trigger()
    dialog = window.sweep_dialog
    qtbot.waitUntil(lambda: dialog.isVisible())
    qtbot.waitUntil(lambda: bool(dialog.result_columns), timeout=120_000)
    return dialog


def test_the_dialog_fits_a_1366x768_screen(qtbot: Any, window: Any, tmp_path: Any) -> None:
    from mechstudio.gui.sweep.dialog import RESULTS_MIN_PX
    dialog = open_dialog(window, qtbot)
    for _ in range(3):
        dialog.add_parameter("crank.mass")
        dialog.add_metric("peak", "absmax", "reaction.O.Fy")
    dialog.fit_to_screen(SMALL_SCREEN)
    QTest.qWait(50)
    frame = dialog.frameGeometry()
    assert dialog.width() <= SMALL_SCREEN.width() and dialog.height() <= SMALL_SCREEN.height() - 32, dialog.size()
    assert SMALL_SCREEN.contains(QRect(dialog.pos(), dialog.size())), (frame, SMALL_SCREEN)
    results = dialog.splitter.widget(1)
    assert results.height() >= RESULTS_MIN_PX
    # the run row stays in view; every input of the set-up is reachable (the set-up part scrolls to each)
    for widget in (dialog.run_button, dialog.cancel_button, dialog.progress, dialog.status):
        assert widget.isVisible() and dialog.rect().contains(QRect(widget.mapTo(dialog, widget.rect().topLeft()),
                                                                   widget.size())), widget.objectName()
    area = dialog.setup_area
    for widget in (dialog.params_table, dialog.metrics_table, dialog.design, dialog.workers):
        area.ensureWidgetVisible(widget)
        QTest.qWait(20)
        top = widget.mapTo(area.viewport(), widget.rect().topLeft())
        assert area.viewport().rect().intersects(QRect(top, widget.size())), widget.objectName()
    dialog.grab().save(str(tmp_path / "sweep_1366x768.png"))
    # a big screen gets the preferred size
    dialog.fit_to_screen(QRect(0, 0, 1920, 1080 - 32))
    assert (dialog.width(), dialog.height()) == (1000, 860)
    dialog.close()


def test_a_double_clicked_run_opens_as_a_new_unsaved_document(qtbot: Any, window: Any, messenger: Any,
                                                              tmp_path: Any) -> None:
    from distributed import Client, LocalCluster
    path = tmp_path / "mine.json"
    shutil.copy(SAMPLES / "four_bar.json", path)
    dialog = open_dialog(window, qtbot, path)
    assert window.document.path == str(path)
    dialog.add_parameter("crank.mass", 1.0, 2.0, 2)
    dialog.add_metric("peak", "absmax", "reaction.O.Fy")
    dialog.t_end.setValue(0.1)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dialog.run(client=client)
        qtbot.waitUntil(lambda: dialog.state != "running", timeout=120_000)
    assert dialog.state == "finished", dialog.status.text()
    QTest.mouseClick(dialog.tabs.tabBar(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     dialog.tabs.tabBar().tabRect(1).center())
    qtbot.waitUntil(lambda: dialog.table.isVisible())
    row = next(r for r in range(dialog.proxy.rowCount()) if dialog.run_at(r) == 1)
    rect = dialog.table.visualRect(dialog.proxy.index(row, 0))
    for press in (QTest.mouseClick, QTest.mouseDClick):  # a double click is a click and then a second one
        press(dialog.table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    qtbot.waitUntil(lambda: window.document.path is None, timeout=5000)
    doc = window.document
    assert get_value(doc.model, "/bodies/0/mass") == 2.0
    assert doc.modified and window.isWindowModified()
    assert doc.undo_stack.undoText() == "Run 1 of the sweep (crank.mass = 2)"
    doc.undo_stack.undo()  # back to the swept model, untitled
    assert get_value(doc.model, "/bodies/0/mass") == 1.0 and not doc.modified
    # a modified document is not replaced silently: the user is asked (here: Cancel keeps it)
    doc.undo_stack.redo()
    messenger.save_answer = "cancel"
    asked = len(messenger.questions)
    assert not dialog.open_run(0)
    assert len(messenger.questions) == asked + 1 and get_value(doc.model, "/bodies/0/mass") == 2.0
    doc.undo_stack.setClean()
    dialog.close()


def test_dashboard_link_is_the_cores_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dialog shows what the sweep command would print: the core's link (None when the scheduler serves no
    dashboard), and nothing without a client."""
    from mechstudio.gui.sweep import cluster as sweep_cluster

    class Client:
        dashboard_link = "http://127.0.0.1:8787/status"

        def __init__(self, serves: bool) -> None:
            self.serves = serves

        def run_on_scheduler(self, function: Any) -> bool:
            return self.serves

    assert sweep_cluster.dashboard_link(Client(True)) == "http://127.0.0.1:8787/status"
    assert sweep_cluster.dashboard_link(Client(False)) is None
    assert sweep_cluster.dashboard_link(None) is None


def profiler_enabled() -> bool:
    """On a Dask worker: whether Dask's sampling profiler runs there."""
    import dask  # the worker's own configuration
    return bool(dask.config.get("distributed.worker.profile.enabled"))


def test_the_dialogs_cluster_is_quiet_reused_and_closed_cleanly(tmp_path: Any) -> None:
    """One worker process: a Dask log line of INFO never reaches the app's log, the worker runs without Dask's
    sampling profiler, the cluster is reused for the next sweep, and closing it ends the worker process."""
    from mechstudio.core.host.log import configure_file_logging
    from mechstudio.gui.sweep.cluster import SweepCluster, has_dashboard_support
    log_file = configure_file_logging(tmp_path)
    handler = next(h for h in logging.getLogger().handlers if getattr(h, "baseFilename", "") == str(log_file))
    cluster = SweepCluster()
    try:
        client = cluster.client_for(1)
        assert client.submit(sum, [1, 2]).result(timeout=120) == 3
        assert cluster.client_for(1) is client  # reused
        profiling = client.run(profiler_enabled)
        assert list(profiling.values()) == [False]  # the command line's worker settings (LOCAL_WORKER_CONFIG)
        pids = list(client.run(os.getpid).values())
        link = cluster.dashboard_link()
        assert (link or "").startswith("http") == has_dashboard_support()
        cluster.close(wait=True)
        assert cluster.client is None
        for pid in pids:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        handler.flush()
        lines = log_file.read_text().splitlines()
        dask_info = [x for x in lines if " INFO distributed" in x or " INFO dask" in x]
        assert not dask_info, dask_info[:5]
        assert any("started a local Dask cluster of 1 workers" in x for x in lines)
    finally:
        cluster.close(wait=True)
        logging.getLogger().removeHandler(handler)
        handler.close()


def test_times_take_scientific_notation_and_out_of_range_is_refused_with_its_reason(qtbot: Any,
                                                                                    window: Any) -> None:
    dialog = open_dialog(window, qtbot)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: dialog.isActiveWindow(), timeout=3000)
    box = dialog.t_end
    box.setFocus()
    qtbot.waitUntil(lambda: box.hasFocus())
    box.lineEdit().selectAll()
    QTest.keyClicks(box, "1e4")  # ten thousand seconds, not 14
    QTest.keyClick(box, Qt.Key.Key_Return)
    assert box.value() == 1e4 and box.text() == "10000 s"
    box.lineEdit().selectAll()
    QTest.keyClicks(box, "2e9")
    assert "outside" in box.toolTip() and box.value() == 1e4  # red, with the reason, while typed
    QTest.mouseClick(dialog.samples, Qt.MouseButton.LeftButton)  # the focus leaves the box
    qtbot.waitUntil(lambda: "outside" in dialog.status.text(), timeout=3000)
    assert box.value() == 1e4 and box.text() == "10000 s"  # not clamped to the maximum: the value stays
    assert "the value stays 10000 s" in dialog.status.text()
    dialog.close()
