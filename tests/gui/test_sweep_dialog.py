"""The sweep dialog: a two-parameter grid sweep (one parameter picked with right-click → Sweep this on the
inspector) ends with a heat map and a sortable table; export; double-click opens a run; cancel works.

Runs go to a real Dask LocalCluster of two worker processes started by the dialog's background thread
(short runs: t_end 0.2 s). The window's event loop keeps running throughout (qtbot.waitUntil spins it).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

from mechstudio.core.model.edit import get_value

pytestmark = pytest.mark.gui

CLUSTER_TIMEOUT_MS = 300_000  # a LocalCluster start and the runs on a contended 2-core host


def open_dialog(window, qtbot, samples):
    assert window.open_file(str(samples / "four_bar.json"), ask=False)
    window.act_parameter_sweep.trigger()
    dialog = window.sweep_dialog
    qtbot.waitUntil(lambda: dialog.isVisible())
    qtbot.waitUntil(lambda: bool(dialog.result_columns), timeout=120_000)
    return dialog


def right_click_sweep_this(window, qtbot, pointer):
    """Right-click the inspector's field and choose *Sweep this* in the context menu that opens."""
    field = window.inspector.field(pointer)
    assert field is not None
    chosen = []

    def choose():
        menu = QApplication.activePopupWidget()
        action = next(a for a in menu.actions() if a.objectName() == "act_sweep_this")
        chosen.append(action.text())
        menu.close()
        action.trigger()
    QTimer.singleShot(300, choose)
    edit = field.lineEdit()  # what a right-click hits: the spin box's line edit; the event goes up to the field
    QApplication.sendEvent(edit, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, QPoint(5, 5),
                                                   edit.mapToGlobal(QPoint(5, 5))))
    qtbot.waitUntil(lambda: bool(chosen))
    return chosen[0]


def test_two_parameter_sweep_ends_with_heat_map_and_table(window, qtbot, samples_dir, tmp_path):
    dialog = open_dialog(window, qtbot, samples_dir)
    window.document.set_selection([("bodies", "crank")])
    qtbot.waitUntil(lambda: window.inspector.field("/bodies/0/mass") is not None)
    assert dialog.params_table.rowCount() == 0
    text = right_click_sweep_this(window, qtbot, "/bodies/0/mass")
    assert "crank.mass" in text
    assert dialog.params_table.rowCount() == 1
    assert dialog.params_table.cellWidget(0, 0).currentText() == "crank.mass"
    dialog.params_table.cellWidget(0, 1).setValue(1.0)
    dialog.params_table.cellWidget(0, 2).setValue(2.0)
    dialog.params_table.cellWidget(0, 3).setValue(3)
    dialog.add_parameter("coupler.mass", 3.0, 4.5, 4)
    dialog.add_metric("peak", "absmax", "reaction.O.Fy")
    dialog.add_metric("phi_end", "final", "q.crank.phi")
    dialog.t_end.setValue(0.2)
    dialog.workers.setValue(2)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.state != "running", timeout=CLUSTER_TIMEOUT_MS)
    assert dialog.state == "finished", dialog.status.text()
    assert dialog.progress.value() == dialog.progress.maximum() == 12

    res = dialog.results()
    assert res["run"].tolist() == list(range(12))
    assert (res["status"] == "finished").all(), res["message"].tolist()
    # the heat map: one cell per grid point holding that run's metric
    assert dialog.plot.kind == "heatmap"
    image = dialog.plot.image.image
    assert image.shape == (3, 4)
    masses, couplers = np.linspace(1, 2, 3), np.linspace(3.0, 4.5, 4)
    for i, m in enumerate(masses):
        for j, c in enumerate(couplers):
            row = res[np.isclose(res["param.crank.mass"], m) & np.isclose(res["param.coupler.mass"], c)]
            assert image[i, j] == row["metric.peak"].item()
    # the table: 12 rows, sorted by a click on a column header
    dialog.tabs.setCurrentIndex(1)
    col = list(dialog.rows.frame.columns).index("metric.peak")
    dialog.table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    shown = [float(dialog.proxy.index(r, col).data(Qt.ItemDataRole.UserRole)) for r in range(dialog.proxy.rowCount())]
    assert len(shown) == 12 and shown == sorted(res["metric.peak"], reverse=True)
    dialog.tabs.setCurrentIndex(0)
    qtbot.wait(200)
    dialog.grab().save(str(tmp_path / "sweep_dialog.png"))

    # export, Parquet with the sweep's metadata and CSV
    dialog.export(str(tmp_path / "out.parquet"))
    dialog.export(str(tmp_path / "out.csv"))
    back = pd.read_parquet(tmp_path / "out.parquet")
    pd.testing.assert_frame_equal(back, res, check_dtype=False)
    assert b"mechstudio.sweep" in pq.read_schema(tmp_path / "out.parquet").metadata
    assert len(pd.read_csv(tmp_path / "out.csv")) == 12

    # double-click the top row of the sorted table: the editor opens that run's model
    top_run = dialog.run_at(0)
    dialog.table.doubleClicked.emit(dialog.proxy.index(0, 0))
    model = window.document.model
    expected = res[res["run"] == top_run].iloc[0]
    assert get_value(model, "/bodies/0/mass") == expected["param.crank.mass"]
    assert get_value(model, "/bodies/1/mass") == expected["param.coupler.mass"]
    assert len(np.unique(image)) == 12  # both masses change the peak bearing force
    dialog.close()


def test_cancel_stops_the_sweep_and_keeps_finished_rows(window, qtbot, samples_dir):
    dialog = open_dialog(window, qtbot, samples_dir)
    dialog.add_parameter("crank.mass", 1.0, 2.0, 200)
    dialog.add_metric("peak", "max", "energy.kinetic")
    dialog.t_end.setValue(0.5)
    dialog.workers.setValue(2)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(dialog.rows.frame) > 0 or dialog.state != "running", timeout=CLUSTER_TIMEOUT_MS)
    assert dialog.state == "running"
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.state != "running", timeout=120_000)
    assert dialog.state == "cancelled", dialog.status.text()
    done = len(dialog.rows.frame)
    assert 0 < done < 200
    assert dialog.plot.kind == "line" and dialog.run_button.isEnabled()
    qtbot.wait(1000)
    assert len(dialog.rows.frame) == done  # nothing arrives after the cancel
    dialog.close()


def test_double_click_opens_the_run_and_starts_it_in_the_live_view(qtbot, messenger, monkeypatch, samples_dir):
    """With the live view installed: the double-clicked run's model is in the editor and its run starts. The
    sweep goes to a client given to the dialog (a threaded in-process cluster: quick to start)."""
    from PySide6.QtGui import QOpenGLContext
    if QApplication.instance().platformName() in ("offscreen", "minimal") or not QOpenGLContext().create():
        pytest.skip("no usable OpenGL; run under Xvfb with QT_QPA_PLATFORM=xcb")
    monkeypatch.delenv("MECHSTUDIO_NO_LIVE_VIEW", raising=False)
    from distributed import Client, LocalCluster
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert hasattr(w, "live")
    dialog = open_dialog(w, qtbot, samples_dir)
    dialog.add_parameter("crank.mass", 1.0, 2.0, 2)
    dialog.add_metric("peak", "absmax", "reaction.O.Fy")
    dialog.t_end.setValue(0.1)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dialog.run(client=client)
        qtbot.waitUntil(lambda: dialog.state != "running", timeout=120_000)
    assert dialog.state == "finished", dialog.status.text()
    row = next(r for r in range(dialog.proxy.rowCount()) if dialog.run_at(r) == 1)
    dialog.table.doubleClicked.emit(dialog.proxy.index(row, 0))
    assert get_value(w.document.model, "/bodies/0/mass") == 2.0
    qtbot.waitUntil(lambda: w.live.controller.state in ("running", "finished"), timeout=60_000)
    w.live.controller.shutdown()
    w.document.undo_stack.setClean()
    dialog.close()
