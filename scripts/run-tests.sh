#!/usr/bin/env bash
# Run the whole suite under Xvfb with Qt's xcb platform and real (Mesa llvmpipe) OpenGL.
# See ../shared/design/headless-qt.md: offscreen Qt has no OpenGL, and offscreen with a DISPLAY segfaults.
# The live-run test measures event-loop latency, so it runs first in a process of its own: the heap that
# hundreds of earlier tests leave behind would make it measure their garbage, not the app.
set -uo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=xcb QT_XCB_GL_INTEGRATION=xcb_glx PYOPENGL_PLATFORM=glx LIBGL_ALWAYS_SOFTWARE=1
unset WAYLAND_DISPLAY XDG_SESSION_TYPE
# the shared benchmark data beside the checkout (CI clones next to ../shared): tests compare our copies with it
if [ -z "${MECHSTUDIO_SHARED_DATA:-}" ] && [ -d ../shared/benchmarks ]; then
  MECHSTUDIO_SHARED_DATA="$(cd ../shared && pwd)"; export MECHSTUDIO_SHARED_DATA
fi
export MECHSTUDIO_CONFIG_DIR="${MECHSTUDIO_CONFIG_DIR:-$(mktemp -d)}"
XVFB=(xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp")
PYTEST=(.venv/bin/python -m pytest -q -p no:xvfb -p no:cacheprovider)
TIMING=tests/gui/test_live_run.py
# test_plot_curves.py compares pixel and SVG exports after swapping curve items; run after hundreds of GUI tests,
# it intermittently meets their half-collected pyqtgraph labels (a Qt layout pass calling a Python override of a
# wrapper the garbage collector has already cleared: "'LabelItem' object has no attribute ..."), so it also runs
# in a process of its own
ISOLATED=(tests/gui/test_plot_curves.py)
# the rest runs on pytest-xdist workers, one per core up to 4 (MECHSTUDIO_TEST_WORKERS overrides; 1 = serial);
# each worker starts an X server of its own (tests/conftest.py)
WORKERS="${MECHSTUDIO_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
[ "$WORKERS" -gt 4 ] && WORKERS=4
PARALLEL=()
if [ "$WORKERS" -gt 1 ] && .venv/bin/python -c "import xdist" 2>/dev/null; then
  PARALLEL=(-n "$WORKERS" --dist worksteal)
fi
if [ "$#" -eq 0 ]; then
  "${XVFB[@]}" "${PYTEST[@]}" "$TIMING"
  rc1=$?
  "${XVFB[@]}" "${PYTEST[@]}" "${ISOLATED[@]}"
  rc2=$?
  ignores=(--ignore="$TIMING")
  for f in "${ISOLATED[@]}"; do ignores+=(--ignore="$f"); done
  "${XVFB[@]}" "${PYTEST[@]}" "${PARALLEL[@]}" "${ignores[@]}"
  rc=$?
  if [ "$rc" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
  [ "$rc1" -ne 0 ] && exit "$rc1"
  [ "$rc2" -ne 0 ] && exit "$rc2"
  exit "$rc"
fi
"${XVFB[@]}" "${PYTEST[@]}" "$@"
rc=$?
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
exit "$rc"
