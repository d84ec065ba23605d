"""BodiesItem: the meshes of many bodies drawn as one GL item, with one draw call per frame.

One ``GLMeshItem`` per body costs ~0.4 ms of Python and about 20 GL calls per body and frame (PyOpenGL wrappers,
attribute and uniform lookups), which with a 10-link chain was most of the 3D view's frame time. Here every
body's triangles live in one vertex buffer, uploaded once; each vertex carries the index of its body, and the
vertex shader applies that body's pose from a uniform array of matrices. A frame uploads the poses (one
``glUniformMatrix4fv``) and draws once. The lighting is the scene's two-sided headlight (``_lit_shader``).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl import shaders
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem
from PySide6.QtGui import QOpenGLContext
from PySide6.QtOpenGL import QOpenGLBuffer

MAX_BODIES = 48  # poses per item (48 mat4 = 768 uniform components; GL guarantees 1024 in a vertex shader)
SHADER = "mechstudio_bodies"
#: the fragment shader of every lit mesh of the 3D view (here and in ``mechstudio.gui.view3d.scene``): the colour shaded by
#: a fixed light direction, both faces lit
LIT_FRAGMENT_SOURCE = """
                #ifdef GL_ES
                precision mediump float;
                #endif
                varying vec4 v_color;
                varying vec3 v_normal;
                void main() {
                    float p = abs(dot(normalize(v_normal), normalize(vec3(0.35, 0.45, 1.0))));
                    vec3 rgb = v_color.rgb * (0.38 + 0.62 * p);
                    gl_FragColor = vec4(rgb, v_color.a);
                }
            """


def _shader() -> Any:
    if SHADER not in shaders.ShaderProgram.names:
        shaders.ShaderProgram(SHADER, [
            shaders.VertexShader(f"""
                uniform mat4 u_mvp;
                uniform mat3 u_normal;
                uniform mat4 u_body[{MAX_BODIES}];
                attribute vec4 a_position;
                attribute vec3 a_normal;
                attribute vec4 a_color;
                attribute float a_body;
                varying vec4 v_color;
                varying vec3 v_normal;
                void main() {{
                    mat4 m = u_body[int(a_body + 0.5)];
                    vec3 n = mat3(m[0].xyz, m[1].xyz, m[2].xyz) * a_normal;
                    v_normal = normalize(u_normal * n);
                    v_color = a_color;
                    gl_Position = u_mvp * (m * a_position);
                }}
            """),
            shaders.FragmentShader(LIT_FRAGMENT_SOURCE)])
    return shaders.getShaderProgram(SHADER)


def flat_triangles(vertices: np.ndarray, faces: np.ndarray, colors: np.ndarray) -> tuple[np.ndarray, ...]:
    """Face-indexed triangles of a mesh: positions (3m, 3), face normals (3m, 3), face colours (3m, 4)."""
    V = np.asarray(vertices, float)[np.asarray(faces, int)]  # (m, 3, 3)
    n = np.cross(V[:, 1] - V[:, 0], V[:, 2] - V[:, 0])
    ln = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, ln, out=np.zeros_like(n), where=ln > 0)
    return V.reshape(-1, 3), np.repeat(n, 3, axis=0), np.repeat(np.asarray(colors, float), 3, axis=0)


class BodiesItem(GLGraphicsItem):
    """Up to :data:`MAX_BODIES` meshes (vertices, faces, face colours in their body frames) posed per frame."""

    def __init__(self, meshes: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]):
        super().__init__()
        if len(meshes) > MAX_BODIES:
            raise ValueError(f"at most {MAX_BODIES} bodies per item")
        self.setGLOptions("opaque")
        parts = [flat_triangles(*m) for m in meshes]
        self.count = len(meshes)
        self._positions = np.ascontiguousarray(np.vstack([p[0] for p in parts]), np.float32)
        self._normals = np.ascontiguousarray(np.vstack([p[1] for p in parts]), np.float32)
        self._colors = np.ascontiguousarray(np.vstack([p[2] for p in parts]), np.float32)
        self._body = np.ascontiguousarray(np.concatenate([np.full(len(p[0]), k) for k, p in enumerate(parts)]),
                                          np.float32)
        self._poses = np.tile(np.eye(4, dtype=np.float32), (MAX_BODIES, 1, 1))
        self._vbos = {k: QOpenGLBuffer(QOpenGLBuffer.Type.VertexBuffer)
                      for k in ("a_position", "a_normal", "a_color", "a_body")}
        self._uploaded = False

    def poses(self) -> np.ndarray:
        """The current row-major body-to-world matrices (a copy), (count, 4, 4)."""
        return np.transpose(self._poses[:self.count], (0, 2, 1)).astype(float)

    def set_poses(self, matrices: np.ndarray) -> None:
        """Row-major 4x4 body-to-world matrices, (count, 4, 4), in the order of the meshes."""
        # GL reads column-major matrices: store the transposes
        self._poses[:self.count] = np.transpose(matrices, (0, 2, 1))
        self.update()

    def _upload(self) -> None:
        arrays = {"a_position": self._positions, "a_normal": self._normals, "a_color": self._colors,
                  "a_body": self._body}
        for name, vbo in self._vbos.items():
            arr = arrays[name]
            if not vbo.isCreated():
                vbo.create()
            vbo.bind()
            vbo.allocate(arr, arr.nbytes)
            vbo.release()
        self._uploaded = True

    def paint(self) -> None:
        if not len(self._positions):
            return
        self.setupGLState()
        if not self._uploaded or not self._vbos["a_position"].isCreated():
            self._upload()
        shader = _shader()
        ctx = QOpenGLContext.currentContext()
        program = shader.program(es2_compat=bool(ctx is not None and ctx.hasExtension(b"GL_ARB_ES2_compatibility")))
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        nrm = np.array(self.modelViewMatrix().normalMatrix().data(), dtype=np.float32)
        enabled = []
        for name, size in (("a_position", 3), ("a_normal", 3), ("a_color", 4), ("a_body", 1)):
            loc = GL.glGetAttribLocation(program, name)
            if loc == -1:
                continue
            self._vbos[name].bind()
            GL.glVertexAttribPointer(loc, size, GL.GL_FLOAT, False, 0, None)
            self._vbos[name].release()
            GL.glEnableVertexAttribArray(loc)
            enabled.append(loc)
        with shader:
            GL.glUniformMatrix4fv(GL.glGetUniformLocation(program, "u_mvp"), 1, False, mvp)
            GL.glUniformMatrix3fv(GL.glGetUniformLocation(program, "u_normal"), 1, False, nrm)
            GL.glUniformMatrix4fv(GL.glGetUniformLocation(program, "u_body"), self.count, False,
                                  self._poses[:self.count])
            GL.glDrawArrays(GL.GL_TRIANGLES, 0, len(self._positions))
        for loc in enabled:
            GL.glDisableVertexAttribArray(loc)
