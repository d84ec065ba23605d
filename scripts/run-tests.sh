#!/usr/bin/env bash
# Run the whole suite under Xvfb with Qt's xcb platform and real (Mesa llvmpipe) OpenGL.
# See ../shared/design/headless-qt.md: offscreen Qt has no OpenGL, and offscreen with a DISPLAY segfaults.
# Every test file runs in the same processes as the others: no test asserts wall-clock time (latency and frame
# rates are measured by `mechstudio bench --suite view`), and every GUI test deletes the widgets it made before
# the next one starts (tests/gui/conftest.py: dispose_widgets).
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
# pytest-xdist workers, one per core up to 4 (MECHSTUDIO_TEST_WORKERS overrides; 1 = serial);
# each worker starts an X server of its own (tests/conftest.py)
WORKERS="${MECHSTUDIO_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
[ "$WORKERS" -gt 4 ] && WORKERS=4
PARALLEL=()
if [ "$WORKERS" -gt 1 ] && .venv/bin/python -c "import xdist" 2>/dev/null; then
  PARALLEL=(-n "$WORKERS" --dist worksteal)
fi
if [ "$#" -eq 0 ]; then
  set -- "${PARALLEL[@]}"
fi
"${XVFB[@]}" "${PYTEST[@]}" "$@"
rc=$?
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
exit "$rc"
