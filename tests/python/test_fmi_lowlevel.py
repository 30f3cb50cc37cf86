"""FMI calls one by one through FMPy's FMU2Slave / FMU3Slave: life cycle and
doStep loop, get/set and serialize/deserialize FMU state, directional
derivatives, and refused calls (each must return Error, say why through the
logger callback, and leave the instance usable).

On "usable after an Error": FMI 2.0 and 3.0 only promise that a master can
go back to an FMU state taken earlier (set FMU state) or reset / free the
instance after a function returned Error. This project promises more
(DESIGN.md, "The FMI layer": a refused call loses no earlier state), so each
refusal test checks both: stepping on directly, and stepping on after the
standard's recovery, give bit-identical outputs."""

from __future__ import annotations

import pytest

from fmu_harness import FMI_ERROR, FMI_VERSIONS, LowLevelSlave, bits

MODEL = "OrificeChain"
H = 1e-3  # communication step [s]
OUTPUTS = ["p1", "p2", "Q1", "Q2", "Q3"]
IDS = [f"{MODEL}/fmi{v}" for v in FMI_VERSIONS]

# Model description (components/circuits/orifice-circuit/MODEL.md), transient from
# p1 = p2 = 0 with ps = 10 MPa, t = 0.1 s (rounded to its last digit):
# p1 = 3.385 MPa, p2 = 1.682 MPa.
PUBLISHED_P1_01, PUBLISHED_P2_01, PUBLISHED_HALF_DIGIT = 3.385e6, 1.682e6, 0.5e3


def open_slave(unpack, version: int, name: str, logging_on: bool = False) -> LowLevelSlave:
    """An instance, instantiated and initialized at t = 0 with the model
    description's start-up conditions. Debug logging stays off: refused calls must be
    reported anyway."""
    slave = LowLevelSlave(version, unpack(MODEL, version), f"{name}-fmi{version}")
    try:
        slave.instantiate(logging_on=logging_on)
        slave.initialize(0.0, parameters={"p1_0": 0.0, "p2_0": 0.0, "bulk_log_natural": False})
    except BaseException:
        slave.close()
        raise
    return slave


def declared_categories(slave: LowLevelSlave) -> set[str]:
    return {c.name for c in slave.md.logCategories}


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_life_cycle_and_step_loop(version: int, unpack):
    with open_slave(unpack, version, "loop", logging_on=True) as fmu:
        fmu.step_grid(0, 100, H)
        p1, p2, q1, q2, q3 = fmu.get(OUTPUTS)
        assert abs(p1 - PUBLISHED_P1_01) <= PUBLISHED_HALF_DIGIT, f"p1(0.1 s) = {p1} Pa, model description: 3.385 MPa"
        assert abs(p2 - PUBLISHED_P2_01) <= PUBLISHED_HALF_DIGIT, f"p2(0.1 s) = {p2} Pa, model description: 1.682 MPa"
        assert q1 > q2 > q3 > 0, f"flows while V1 and V2 fill: {q1}, {q2}, {q3}"
        errors = [str(m) for m in fmu.messages if m.status >= FMI_ERROR]
        assert not errors, "\n".join(errors)


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_fmu_state_get_set_serialize_round_trip(version: int, unpack, report):
    with open_slave(unpack, version, "state") as fmu:
        fmu.step_grid(0, 200, H)  # t = 0.2 s
        at_02 = fmu.get(OUTPUTS)
        state = fmu.get_state()
        blob = fmu.serialize(state)
        fmu.step_grid(200, 400, H)  # t = 0.4 s
        first = fmu.get(OUTPUTS)

        fmu.set_state(state)
        assert bits(fmu.get(OUTPUTS)) == bits(at_02), "set FMU state did not bring back the outputs at 0.2 s"
        fmu.step_grid(200, 400, H)
        assert bits(fmu.get(OUTPUTS)) == bits(first), (
            f"after set FMU state, 0.2 -> 0.4 s differs: {fmu.get(OUTPUTS)} vs {first}"
        )

        restored = fmu.deserialize(blob)
        fmu.set_state(restored)
        assert bits(fmu.get(OUTPUTS)) == bits(at_02), "deserialized state does not give the outputs at 0.2 s"
        fmu.step_grid(200, 400, H)
        assert bits(fmu.get(OUTPUTS)) == bits(first), "after deserialize + set FMU state, 0.2 -> 0.4 s differs"

        # A truncated buffer must be refused (size check), the instance kept.
        refusal = fmu.expect_refusal(lambda: fmu.deserialize(blob[:-8]))
        assert refusal.error.status == FMI_ERROR
        assert [m for m in refusal.messages if m.status == FMI_ERROR], "truncated state refused without a log message"
        assert bits(fmu.get(OUTPUTS)) == bits(first)

        fmu.free_state(state)
        fmu.free_state(restored)

        # The serialized state restarts a second, fresh instance too.
        with open_slave(unpack, version, "state-copy") as other:
            copy = other.deserialize(blob)
            other.set_state(copy)
            other.step_grid(200, 400, H)
            assert bits(other.get(OUTPUTS)) == bits(first), "a second instance restarted from the bytes differs"
            other.free_state(copy)
    report.notes.append(f"serialized FMU state of {MODEL} FMI {version}: {len(blob)} bytes")


@pytest.mark.parametrize(
    ("unknown", "known"), [("Q1", "ps"), ("Q3", "pt")], ids=["dQ1/dps", "dQ3/dpt"]
)
@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_directional_derivative_matches_finite_difference(version: int, unknown: str, known: str, unpack, report):
    with open_slave(unpack, version, f"dd-{unknown}") as fmu:
        fmu.step_grid(0, 200, H)  # mid-transient, t = 0.2 s
        vr = fmu.vr(known)
        (x0,) = fmu.get([known])
        (y0,) = fmu.get([unknown])
        dd = fmu.directional_derivative([unknown], [known], [1.0])[0]
        dd2 = fmu.directional_derivative([unknown], [known], [2.0])[0]

        h = 1e-6 * max(abs(x0), 1e7)  # 10 Pa at the default supply pressure
        fmu.set_real([vr], [x0 + h])
        (y_plus,) = fmu.get([unknown])
        fmu.set_real([vr], [x0 - h])
        (y_minus,) = fmu.get([unknown])
        fmu.set_real([vr], [x0])
        assert bits(fmu.get([unknown])) == bits([y0]), "setting the input back did not restore the output"

        fd = (y_plus - y_minus) / (2 * h)
        assert fd != 0.0, f"{unknown} does not move with {known}: finite difference is 0"
        assert abs(dd - fd) <= 1e-6 * abs(fd), (
            f"d{unknown}/d{known}: directional derivative {dd!r}, central difference {fd!r} "
            f"(relative difference {abs(dd - fd) / abs(fd):.3g})"
        )
        assert abs(dd2 - 2 * dd) <= 1e-12 * abs(dd), f"derivative not linear in the seed: {dd2} vs 2 * {dd}"
    report.notes.append(
        f"{MODEL} FMI {version}: d{unknown}/d{known} at 0.2 s = {dd:.10e}, central difference {fd:.10e}, "
        f"relative difference {abs(dd - fd) / abs(fd):.2e} (limit 1e-6)"
    )


def _recovers_bitwise(fmu: LowLevelSlave, state, k_from: int, k_to: int) -> None:
    """Stepping on directly and stepping on after restoring `state` (taken
    at k_from * H before the refusal) give bit-identical outputs."""
    fmu.step_grid(k_from, k_to, H)
    direct = fmu.get(OUTPUTS)
    fmu.set_state(state)
    fmu.step_grid(k_from, k_to, H)
    via_state = fmu.get(OUTPUTS)
    assert bits(direct) == bits(via_state), f"after the refused call: {direct} vs restored run {via_state}"
    fmu.free_state(state)


def _assert_named_error(fmu: LowLevelSlave, refusal, function: str, fragments: list[str]) -> None:
    assert refusal.error.status == FMI_ERROR, f"status {refusal.error.status}, expected Error"
    assert refusal.call_line.startswith(f"{function}(") and refusal.call_line.endswith("-> ERROR"), (
        f"FMPy call log: {refusal.call_line!r}"
    )
    errors = [m for m in refusal.messages if m.status == FMI_ERROR]
    assert errors, f"{function} returned Error without a log message (debug logging off)"
    text = " | ".join(m.message for m in errors)
    missing = [f for f in [function, *fragments] if f not in text]
    assert not missing, f"the log message does not name {missing}: {text!r}"
    categories = declared_categories(fmu)
    assert all(m.category in categories for m in errors), (
        f"log categories {[m.category for m in errors]} not declared ({sorted(categories)})"
    )


@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_do_step_at_a_wrong_communication_point_is_refused(version: int, unpack):
    with open_slave(unpack, version, "wrong-point") as fmu:
        fmu.step_grid(0, 400, H)  # t = 0.4 s
        before = fmu.get(OUTPUTS)
        state = fmu.get_state()
        for wrong_t in (0.45, 0.399):  # ahead of and behind the instance's time
            refusal = fmu.expect_refusal(lambda: fmu.do_step(wrong_t, H))
            _assert_named_error(fmu, refusal, f"fmi{version}DoStep", ["currentCommunicationPoint"])
            assert bits(fmu.get(OUTPUTS)) == bits(before), "the refused doStep changed the outputs"
        _recovers_bitwise(fmu, state, 400, 410)


def _wrong_calls(fmu: LowLevelSlave):
    """(id, call, FMI function name, fragments the message must contain)."""
    p = fmu.prefix
    ps, p1 = fmu.vr("ps"), fmu.vr("p1")
    set_real = "fmi2SetReal" if fmu.version == 2 else "fmi3SetFloat64"
    set_int = "fmi2SetInteger" if fmu.version == 2 else "fmi3SetInt32"
    return {
        "setReal-vr999": (lambda: fmu.set_real([999], [1.0]), set_real, ["999"]),
        "setInteger-on-Real-ps": (lambda: fmu.set_integer([ps], [1]), set_int, ["ps"]),
        "getBoolean-on-Real-p1": (lambda: fmu.get_boolean([p1]), f"{p}GetBoolean", ["p1"]),
    }


@pytest.mark.parametrize("case", ["setReal-vr999", "setInteger-on-Real-ps", "getBoolean-on-Real-p1"])
@pytest.mark.parametrize("version", FMI_VERSIONS, ids=IDS)
def test_wrong_typed_call_is_refused(version: int, case: str, unpack):
    with open_slave(unpack, version, f"wrong-{case}") as fmu:
        fmu.step_grid(0, 100, H)
        before = fmu.get(OUTPUTS + ["ps"])
        state = fmu.get_state()
        call, function, fragments = _wrong_calls(fmu)[case]
        refusal = fmu.expect_refusal(call)
        _assert_named_error(fmu, refusal, function, fragments)
        assert bits(fmu.get(OUTPUTS + ["ps"])) == bits(before), "the refused call changed a value"
        _recovers_bitwise(fmu, state, 100, 110)
