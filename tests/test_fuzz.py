"""Fuzzing of the model loader: seeded mutants of every sample model must be either rejected with diagnostics (a
ModelError naming the JSON pointer) or accepted, and an accepted one must compile and run to a status. A defect is
any other exception, a run raising, or text a user would see that is unfit (core/robustness/fuzz.py). Structural mutants, and
the other operators: physically absurd values, expression bombs in every time-function slot, byte-level and
unicode corruption of the file.

Budget for CI: N_MUTANTS mutants per run; every mutant is loaded (JSON Schema and semantic checks: the bulk of
the time), one in COMPILE_EVERY of the accepted ones is also compiled, and one in RUN_EVERY of those also runs
0.05 s of simulation (the compile and run stages are slower, and the run stage is the driver's; the offline
``scripts/fuzz.py N`` compiles every mutant and runs a tenth). The seed changes with ``MECHSTUDIO_FUZZ_SEED``
(default 0) so other seeds can be tried without editing the test.
"""
from __future__ import annotations

import os
import random

import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.model import loads_model
from mechstudio.core.robustness.fuzz import (absurd, bombs, corrupt, make_mutant, mutate, sample_documents,
                                   time_function_slots, trial, trial_bytes)

from conftest import SAMPLES

N_MUTANTS = 2000
COMPILE_EVERY = 4
RUN_EVERY = 10
#: mutants of each other operator per run (absurd values, bombs, bytes); accepted ones are compiled one in
#: COMPILE_EVERY, and none runs: an absurd but valid model may take seconds to run (the offline campaigns run them)
N_OTHER = {"absurd": 400, "bombs": 300, "bytes": 800}
SEED = int(os.environ.get("MECHSTUDIO_FUZZ_SEED", "0"))


def test_mutants_are_rejected_with_diagnostics_or_load_compile_and_run():
    docs = sample_documents(SAMPLES)
    names = sorted(docs)
    defects, kinds = [], {"rejected": 0, "ok": 0, "defect": 0}
    accepted = 0
    for k in range(N_MUTANTS):
        rng = random.Random(SEED * 1_000_003 + k)
        name = rng.choice(names)
        doc, mutations = mutate(docs[name], rng)
        out = trial(doc, None, compile=False)
        if out.kind == "ok":
            accepted += 1
            if accepted % COMPILE_EVERY == 0:
                out = trial(doc, 0.05 if accepted % (COMPILE_EVERY * RUN_EVERY) == 0 else None)
        kinds[out.kind] += 1
        if out.kind == "defect":
            defects.append(f"seed {SEED * 1_000_003 + k} {name} {mutations}: {out.stage}: {out.detail}")
    assert not defects, "\n".join(defects[:20])
    # the mutator must exercise both outcomes, else it tests nothing
    assert kinds["rejected"] > N_MUTANTS // 3 and kinds["ok"] > N_MUTANTS // 20, kinds


@pytest.mark.parametrize("kind", sorted(N_OTHER))
def test_other_operators_mutants_are_rejected_with_diagnostics_or_load_and_compile(kind):
    docs = sample_documents(SAMPLES)
    names = sorted(docs)
    defects, kinds = [], {"rejected": 0, "ok": 0, "defect": 0}
    accepted = 0
    for k in range(N_OTHER[kind]):
        seed = SEED * 1_000_003 + k
        rng = random.Random(seed)
        name = rng.choice(names)
        mutant, mutations = make_mutant(kind, docs[name], rng)
        attempt = trial_bytes if isinstance(mutant, bytes) else trial
        out = attempt(mutant, None, compile=False)
        if out.kind == "ok":
            accepted += 1
            if accepted % COMPILE_EVERY == 0:
                out = attempt(mutant, None)
        kinds[out.kind] += 1
        if out.kind == "defect":
            defects.append(f"{kind} seed {seed} {name} {mutations}: {out.stage}: {out.detail}")
    assert not defects, "\n".join(defects[:20])
    assert kinds["rejected"] > N_OTHER[kind] // 4 and kinds["ok"] > N_OTHER[kind] // 50, kinds


def test_the_operators_reach_what_they_promise():
    docs = sample_documents(SAMPLES)
    rng = random.Random(1)
    # bombs: every model gets a slot, slots exist in every kind of place, and the missing ones are added
    slots = {p[:3] if p[0] == "ground" else p[0] for d in docs.values() for p in time_function_slots(d)}
    assert {"drivers", "joints", ("ground", "motion", "position"), "quasi_velocities"} <= slots, slots
    added = set()
    for k, (name, doc) in enumerate(docs.items()):
        for j in range(10):
            mutant, done = bombs(doc, random.Random(f"{name}{j}"))
            assert mutant != doc and done, name
            added.update(d.split()[2].split("/")[1] for d in done if d.startswith("added"))
    assert added == {"ground", "forces", "drivers", "quasi_velocities"}, added
    # absurd values keep the types: the schema still accepts most of them
    seen = set()
    for k in range(300):
        mutant, done = absurd(docs[("four_bar.json", "slider_crank_driven.json")[k % 2]], random.Random(k))
        seen.update(d.split()[0] for d in done)
    assert {"mass", "inertia", "direction", "name", "kind", "velocity", "simulation"} <= seen, seen
    # bytes: invalid UTF-8, surrogate escapes and byte-order marks occur
    text = (SAMPLES / "pendulum.json").read_text()
    outputs = [corrupt(text, random.Random(k))[0] for k in range(400)]
    assert any(b"\\ud800" in o for o in outputs) and any(o.startswith(b"\xef\xbb\xbf") for o in outputs)
    assert any(not _utf8(o) for o in outputs)
    assert all(isinstance(make_mutant("bytes", docs["pendulum.json"], rng)[0], bytes) for _ in range(5))


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("mutation, pointer", [
    (lambda d: d.update(version=-1), "/version"),
    (lambda d: d.update(version=0), "/version"),
    (lambda d: d["bodies"][0].update(mass=-1e308), "/bodies/0/mass"),
    (lambda d: d["bodies"][0].update(mass=10 ** 400), "/bodies/0/mass"),
    (lambda d: d["bodies"][0].update(inertia=1e300), "/bodies/0/inertia"),
    (lambda d: d.update(gravity=[0.0, -1e13]), "/gravity/1"),
    (lambda d: d["simulation"].update(formulation=" "), "/simulation/formulation"),
    (lambda d: d["simulation"].update(integrator="euler"), "/simulation/integrator"),
    (lambda d: d["simulation"].update(dt=1e-9), "/simulation/dt"),
])
def test_the_crash_classes_found_by_fuzzing_are_load_diagnostics_naming_the_pointer(mutation, pointer):
    import json
    doc = json.loads((SAMPLES / "pendulum.json").read_text())
    mutation(doc)
    with pytest.raises(ModelError) as err:
        loads_model(json.dumps(doc), "pendulum-mutant.json")
    pointers = [d.pointer for d in err.value.diagnostics]
    assert pointer in pointers, err.value


def test_a_centre_of_mass_of_minus_1e308_is_refused_at_load(tmp_path):
    import json
    doc = json.loads((SAMPLES / "spherical_chain_3.json").read_text())
    doc["bodies"][0]["com"] = [-1e308, 0.0, 0.0]
    with pytest.raises(ModelError) as err:
        loads_model(json.dumps(doc), "chain.json")
    assert [(d.pointer, "magnitude too large" in d.message) for d in err.value.diagnostics] == [("/bodies/0/com/0", True)]


def test_mutator_is_deterministic_for_a_seed():
    docs = sample_documents(SAMPLES)
    a = mutate(docs["four_bar.json"], random.Random(7))
    b = mutate(docs["four_bar.json"], random.Random(7))
    assert a == b
