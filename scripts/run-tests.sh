#!/usr/bin/env bash
# Run the whole suite under Xvfb with Qt's xcb platform and real (Mesa llvmpipe) OpenGL.
# See docs/headless.md: offscreen Qt has no OpenGL, and offscreen with a DISPLAY segfaults.
set -uo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=xcb QT_XCB_GL_INTEGRATION=xcb_glx PYOPENGL_PLATFORM=glx LIBGL_ALWAYS_SOFTWARE=1
unset WAYLAND_DISPLAY XDG_SESSION_TYPE
export MECHSTUDIO_CONFIG_DIR="${MECHSTUDIO_CONFIG_DIR:-$(mktemp -d)}"
xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp" .venv/bin/python -m pytest -q -p no:xvfb -p no:cacheprovider "$@"
rc=$?
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests"; exit 1; fi
exit "$rc"
