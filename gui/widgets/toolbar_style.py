"""Stable toolbars: icon-only buttons of constant size whose changing text lives in the tooltip.

A toolbar whose buttons show text changes width whenever a text changes ("Undo" becomes "Undo Move ground point
G2", "Run" becomes "Resume"), which moves every button after it and can push the time slider into the
overflow menu. :func:`stabilize_toolbar` gives every action of a toolbar an icon (:func:`action_icon`), shows
icons only and fixes each button's size; the tooltip then carries the text. :func:`track_shortcut_tooltips`
keeps an action's tooltip equal to its current text plus its shortcut ("Undo Move ground point G2 (Ctrl+Z)")
for the actions whose owner wants that (the editor's; the live view sets its own tooltips). Menus show
shortcuts by themselves.
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QStyle, QToolBar, QToolButton

ICON_PX = 22
BUTTON_PX = 30
SP = QStyle.StandardPixmap
#: action objectName -> a standard icon of the style (portable, no image files)
STANDARD_ICONS = {
    "act_new": SP.SP_FileIcon, "act_open": SP.SP_DialogOpenButton, "act_save": SP.SP_DialogSaveButton,
    "act_run": SP.SP_MediaPlay, "act_pause": SP.SP_MediaPause, "act_stop": SP.SP_MediaStop,
    "act_step": SP.SP_MediaSkipForward, "act_step_back": SP.SP_MediaSkipBackward,
    "act_reset": SP.SP_MediaSeekBackward,
}
#: action objectName -> a glyph drawn as the icon when the style has no suitable one
#: (undo/redo are curved arrows, not the media controls' straight ones; re-assemble is Φ, as in Φ(q) = 0)
GLYPH_ICONS = {"act_undo": "↶", "act_redo": "↷", "act_fit": "⤢", "act_reassemble": "Φ", "act_replay": "↻",
               "act_sim_settings": "⚙"}
_TRACKED = "_shortcut_tooltip_tracked"


def glyph_icon(glyph: str, color: str = "#333") -> QIcon:
    """An icon showing one character (for actions without a standard icon)."""
    pm = QPixmap(ICON_PX * 2, ICON_PX * 2)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    font = QFont()
    font.setPixelSize(int(ICON_PX * 1.6))
    p.setFont(font)
    p.setPen(QColor(color))
    p.drawText(pm.rect(), Qt.AlignmentFlag.AlignCenter, glyph)
    p.end()
    return QIcon(pm)


def action_icon(action: QAction) -> QIcon:
    """The icon an action gets in a stable toolbar: its own, a standard one, a glyph, or its initials."""
    if not action.icon().isNull():
        return action.icon()
    name = action.objectName()
    style = QApplication.style()
    if name in STANDARD_ICONS:
        return style.standardIcon(STANDARD_ICONS[name])
    if name in GLYPH_ICONS:
        return glyph_icon(GLYPH_ICONS[name])
    text = plain_text(action.text())
    return glyph_icon(text[:1].upper() if text else "?")


def plain_text(text: str) -> str:
    """A menu text without its mnemonic ampersand, leading symbols and trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").lstrip("▶■⟲↻ ").rstrip("…").strip()


def tooltip_for(action: QAction) -> str:
    """``"Undo Move G2 (Ctrl+Z)"``: the action's current text and its shortcuts."""
    keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty()]
    text = plain_text(action.text())
    tip = action.statusTip()
    if tip and tip.lower() != text.lower():
        text = f"{text}: {tip}"
    return f"{text} ({', '.join(keys)})" if keys else text


def track_shortcut_tooltips(action: QAction) -> None:
    """Keep ``action``'s tooltip equal to :func:`tooltip_for` whenever its text or shortcut changes."""
    if action.property(_TRACKED):
        return
    action.setProperty(_TRACKED, True)

    def update() -> None:
        try:
            tip = tooltip_for(action)
            if action.toolTip() != tip:
                action.setToolTip(tip)  # emits changed() again; the comparison above ends the recursion
        except RuntimeError:  # the C++ action is being destroyed (changed() fires from its destructor)
            return

    action.changed.connect(update)
    update()


def stabilize_toolbar(toolbar: QToolBar) -> None:
    """Icon-only buttons of one fixed size for every action of ``toolbar`` (module docstring)."""
    toolbar.setIconSize(QSize(ICON_PX, ICON_PX))
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
    for action in toolbar.actions():
        if action.isSeparator():
            continue
        button = toolbar.widgetForAction(action)
        if not isinstance(button, QToolButton):
            continue  # a widget (slider, label, ...) keeps its own size policy
        if action.icon().isNull():
            action.setIcon(action_icon(action))
        action.setIconVisibleInMenu(False)
        button.setFixedSize(BUTTON_PX, BUTTON_PX)
        button.setObjectName(button.objectName() or f"button:{action.objectName()}")


def overflowing(toolbar: QToolBar) -> bool:
    """True when some of ``toolbar``'s items sit behind its "»" extension button."""
    ext = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
    return ext is not None and ext.isVisible()


__all__ = ["action_icon", "overflowing", "stabilize_toolbar", "track_shortcut_tooltips"]
