"""The model file: every sample loads, round trips are lossless, bad files give file + JSON pointer + message."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.model import load_model, loads_model, save_model
from mechstudio.core.model.document import FORMAT_VERSION

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "sample_models").rglob("*.json")
                 if '"mechanism-studio-model"' in p.read_text(encoding="utf-8"))  # not the benchmark data files
BAD = ROOT / "tests" / "data" / "bad_models"

# file -> (JSON pointer, fragment of the message) that the loader must report
EXPECTED_PROBLEMS = {
    "truncated.json": ("", "invalid JSON at line"),
    "missing_keys.json": ("/bodies/0", "'mass' is missing"),
    "wrong_types.json": ("/bodies/0/mass", "must be of type number"),
    "nan.json": ("/bodies/0/mass", "NaN or Infinity"),
    "negative_mass.json": ("/bodies/0/mass", "must be greater than 0"),
    "zero_mass.json": ("/bodies/0/mass", "must be greater than 0"),
    "dangling_body.json": ("/joints/0/body2", "no body named 'nobody'"),
    "duplicate_names.json": ("/bodies/1/name", "duplicate body name 'bar'"),
    "unknown_key.json": ("/bodies/0", "unknown key(s): 'colour'"),
    "newer_version.json": ("/version", "newer Mechanism Studio"),
}


def test_samples_exist():
    names = {p.name for p in SAMPLES}
    for required in ("four_bar.json", "slider_crank_driven.json", "pendulum.json", "double_pendulum.json",
                     "parallelogram.json", "rolling_disk_accelerating_plane.json", "rolling_disk.json",
                     "ice_skate_incline.json", "slider_pendulum.json"):
        assert required in names


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_loads_and_round_trips(path: Path, tmp_path: Path):
    model = load_model(path)
    out = tmp_path / path.name
    save_model(model, out)
    again = load_model(out)
    assert again == model
    assert json.loads(out.read_text()) == json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED_PROBLEMS))
def test_bad_file_reports_pointer_and_message(name: str, tmp_path: Path):
    src = tmp_path / name
    shutil.copy(BAD / name, src)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ModelError) as info:
        load_model(src)
    pointer, fragment = EXPECTED_PROBLEMS[name]
    diags = info.value.diagnostics
    assert any(d.pointer == pointer and fragment in d.message for d in diags), [d.format() for d in diags]
    assert all(d.file == str(src) for d in diags)
    assert all(d.format().startswith(f"{src}:") for d in diags)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_bad_folder_is_covered():
    assert sorted(p.name for p in BAD.glob("*.json")) == sorted(EXPECTED_PROBLEMS)


def test_all_problems_reported_at_once():
    doc = json.loads((ROOT / "sample_models" / "four_bar.json").read_text())
    doc["bodies"][0]["mass"] = -1
    doc["bodies"][1]["extra"] = 1
    doc["joints"][2]["body2"] = "nobody"  # schema-valid but dangling: reported only after schema errors are fixed
    with pytest.raises(ModelError) as info:
        loads_model(json.dumps(doc), "mem.json")
    pointers = {d.pointer for d in info.value.diagnostics}
    assert {"/bodies/0/mass", "/bodies/1"} <= pointers
    doc["bodies"][0]["mass"] = 1.0
    del doc["bodies"][1]["extra"]
    doc["joints"][1]["point2"] = "nowhere"
    with pytest.raises(ModelError) as info:
        loads_model(json.dumps(doc), "mem.json")
    pointers = {d.pointer for d in info.value.diagnostics}
    assert {"/joints/2/body2", "/joints/1/point2"} <= pointers


@pytest.mark.parametrize("expr, ok", [("0.5*sin(2*pi*t) + t^2", True), ("__import__('os').system('x')", False),
                                      ("t.__class__", False), ("open('f')", False), ("lambda: 1", False),
                                      ("sin(t", False), ("x + 1", False)])
def test_expressions_parsed_safely(expr: str, ok: bool):
    doc = json.loads((ROOT / "sample_models" / "slider_crank_driven.json").read_text())
    doc["drivers"][0]["function"] = {"type": "expression", "expression": expr}
    if ok:
        loads_model(json.dumps(doc))
    else:
        with pytest.raises(ModelError) as info:
            loads_model(json.dumps(doc))
        assert info.value.diagnostics[0].pointer == "/drivers/0/function"


def test_version_and_format_checks():
    doc = json.loads((ROOT / "sample_models" / "pendulum.json").read_text())
    assert doc["version"] == FORMAT_VERSION
    doc["format"] = "something-else"
    with pytest.raises(ModelError) as info:
        loads_model(json.dumps(doc))
    assert info.value.diagnostics[0].pointer == "/format"


def test_atomic_save_keeps_old_file_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    model = load_model(ROOT / "sample_models" / "pendulum.json")
    target = tmp_path / "m.json"
    target.write_text("original")
    import mechstudio.core.model.io as io_mod

    def boom(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(io_mod.os, "replace", boom)
    with pytest.raises(OSError):
        save_model(model, target)
    assert target.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]  # temporary file removed


def test_load_errors_are_model_errors(tmp_path: Path):
    for path in (tmp_path / "missing.json", tmp_path):
        with pytest.raises(ModelError):
            load_model(path)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ModelError):
        load_model(binary)
