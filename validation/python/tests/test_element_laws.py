"""The element laws the reference scripts share (element_laws.py): written
once, used by the orifice chain and the valve drive alike."""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import element_laws as el  # noqa: E402
import orifice_chain as oc  # noqa: E402
import valve_cylinder as vc  # noqa: E402

P_TR = 1e5
BULK = dict(a1=0.5, e_max=1.8e9, a2=90.0, p_max=2.8e7, a3=3.0)


def test_the_scripts_use_the_shared_laws():
    assert oc.orifice_law is vc.orifice_law is el.orifice_law
    assert oc.orifice_law_slope is vc.orifice_law_slope is el.orifice_law_slope
    assert oc.orifice_coefficient is el.orifice_coefficient
    par = dict(vc.MODEL_PARAMETERS, bulk_log_natural=False)
    for p in (-1e5, 0.0, 9e5, 1.4e7):
        assert oc.bulk_modulus(p, par) == vc.bulk_modulus(p, par)


@pytest.mark.parametrize("edge", [P_TR, -P_TR])
def test_orifice_law_value_and_slope_are_continuous_at_the_transition(edge):
    below, above = edge * (1 - 1e-12), edge * (1 + 1e-12)
    assert el.orifice_law(below, P_TR) == pytest.approx(el.orifice_law(above, P_TR), rel=1e-9)
    assert el.orifice_law_slope(below, P_TR) == pytest.approx(el.orifice_law_slope(above, P_TR), rel=1e-9)


def test_orifice_law_has_a_finite_slope_at_zero_and_is_odd():
    assert el.orifice_law_slope(0.0, P_TR) == pytest.approx(1.25 / math.sqrt(P_TR))
    for dp in (1e3, 5e4, 2e5):
        assert el.orifice_law(-dp, P_TR) == -el.orifice_law(dp, P_TR)
    assert el.orifice_law(4e6, P_TR) == pytest.approx(2000.0)


def test_bulk_modulus_log10_law_and_its_slope():
    assert el.bulk_modulus(2.8e7, **BULK) == pytest.approx(0.5 * 1.8e9 * math.log10(93.0))
    assert el.bulk_modulus(-1.0, **BULK) == el.bulk_modulus(0.0, **BULK)
    assert el.bulk_modulus(2.8e7, **BULK, natural_log=True) == pytest.approx(0.5 * 1.8e9 * math.log(93.0))
    h = 1.0
    for p in (1e5, 1e7):
        fd = (el.bulk_modulus(p + h, **BULK) - el.bulk_modulus(p - h, **BULK)) / (2 * h)
        assert el.bulk_modulus_slope(p, **BULK) == pytest.approx(fd, rel=1e-6)
    assert el.bulk_modulus_slope(-1.0, **BULK) == 0.0
