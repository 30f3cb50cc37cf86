"""Unit tests of the OrificeChain reference equations (MODEL.md E1-E5)."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))

import orifice_chain as oc  # noqa: E402

PAR = dict(oc.MODEL_PARAMETERS)
PS, PT = oc.MODEL_INPUTS["ps"], oc.MODEL_INPUTS["pt"]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_regularised_law_is_continuous_in_value_and_slope_at_p_tr(sign):
    p_tr = PAR["p_tr"]
    inside, outside = sign * p_tr * (1 - 1e-12), sign * p_tr
    assert oc.orifice_law(inside, p_tr) == pytest.approx(oc.orifice_law(outside, p_tr), rel=1e-10)
    assert oc.orifice_law_slope(inside, p_tr) == pytest.approx(oc.orifice_law_slope(outside, p_tr), rel=1e-10)


def test_regularised_law_has_finite_slope_at_zero():
    assert oc.orifice_law(0.0, PAR["p_tr"]) == 0.0
    assert oc.orifice_law_slope(0.0, PAR["p_tr"]) == pytest.approx(5.0 / (4.0 * math.sqrt(PAR["p_tr"])))


def test_bulk_modulus_uses_log10_by_default_and_ln_on_request():
    assert oc.bulk_modulus(0.0, PAR) == pytest.approx(0.5 * 1.8e9 * math.log10(3.0))
    assert oc.bulk_modulus(PAR["pmax"], PAR) == pytest.approx(0.5 * 1.8e9 * math.log10(93.0))
    assert oc.bulk_modulus(-1e5, PAR) == oc.bulk_modulus(0.0, PAR)
    ln = dict(PAR, bulk_log_natural=True)
    assert oc.bulk_modulus(PAR["pmax"], ln) == pytest.approx(0.5 * 1.8e9 * math.log(93.0))


def test_steady_state_is_an_equilibrium():
    p1, p2, q = oc.steady_state(PAR, PS, PT)
    assert np.allclose(oc.rhs(0.0, [p1, p2], PAR, PS, PT), 0.0, atol=1e-6)
    assert oc.flows(p1, p2, PS, PT, PAR) == pytest.approx((q, q, q), rel=1e-14)


@pytest.mark.parametrize("log_natural", [False, True])
@pytest.mark.parametrize("state", [[2.0e6, 1.0e6], [4.0e6, 3.995e6], [1.0e5, 3.0e3], [6.6e6, 3.3e6]])
def test_analytic_jacobian_matches_central_differences(state, log_natural):
    par = dict(PAR, bulk_log_natural=log_natural)
    y = np.array(state)
    jac = oc.jacobian(0.0, y, par, PS, PT)
    for j in range(2):
        e = np.zeros(2)
        e[j] = 1e-6 * y[j]
        column = (oc.rhs(0.0, y + e, par, PS, PT) - oc.rhs(0.0, y - e, par, PS, PT)) / (2 * e[j])
        assert np.allclose(column, jac[:, j], rtol=1e-6, atol=1e-6 * np.abs(jac).max())


def test_stability_intervals_on_the_negative_real_axis():
    assert oc.stability_boundary("Euler", -1.0) == pytest.approx(2.0, rel=1e-12)
    assert oc.stability_boundary("RK4", -1.0) == pytest.approx(2.785293563, rel=1e-9)


def test_published_number_comparison_accepts_rounding_or_truncation_only():
    assert oc.agrees_to_published(-23907.4, "-2.4e4")[0]
    assert oc.agrees_to_published(-7560.1, "-7.5e3")[0]
    assert not oc.agrees_to_published(-7660.0, "-7.5e3")[0]
    assert not oc.agrees_to_published(2.2298e-3, "2.18e-3")[0]


def test_output_grid_has_5001_correctly_rounded_times():
    t = oc.output_times()
    assert len(t) == 5001 and t[0] == 0.0 and t[-1] == 5.0
    assert t[7] == 0.007 and t[4999] == 4.999
