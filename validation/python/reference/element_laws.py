"""The element laws that more than one reference script uses, written once.

- E1, the coefficient of a sharp-edged orifice;
- E2, the regularised two-regime orifice law (the square root above a
  transition pressure ``p_tr``, a cubic with the same value and slope below
  it) and its slope;
- E4, the pressure-dependent bulk modulus of the oil and its slope.

Labels as in ``components/circuits/orifice-circuit/MODEL.md``; the valve drive uses E2
and E4 too (``components/circuits/valve-drive/MODEL.md``, V2). The hose
(``hose_line.py``) has laws of its own (wall, air, oil compressibility,
resistances: H1-H6), none of them one of these.

Scalar functions of floats, SI units. The scripts import them as a sibling
module, like ``reference_common``.
"""

from __future__ import annotations

import math

LN10 = math.log(10.0)


def orifice_coefficient(cd: float, rho: float, d: float) -> float:
    """(E1) K = Cd (pi/4) d^2 sqrt(2/rho), m3/(s Pa^0.5)."""
    return cd * (math.pi / 4.0) * d * d * math.sqrt(2.0 / rho)


def orifice_law(dp: float, p_tr: float) -> float:
    """(E2) the regularised two-regime law divided by the coefficient, Pa^0.5.

    |dp| >= p_tr: sign(dp) sqrt(|dp|); |dp| < p_tr:
    5/(4 sqrt(p_tr)) dp - dp^3/(4 p_tr^2.5), with the same value and slope at
    |dp| = p_tr and the finite slope 5/(4 sqrt(p_tr)) at dp = 0.
    """
    if abs(dp) >= p_tr:
        return math.copysign(math.sqrt(abs(dp)), dp)
    return 5.0 / (4.0 * math.sqrt(p_tr)) * dp - dp**3 / (4.0 * p_tr**2.5)


def orifice_law_slope(dp: float, p_tr: float) -> float:
    """d(E2)/d(dp), Pa^-0.5."""
    if abs(dp) >= p_tr:
        return 0.5 / math.sqrt(abs(dp))
    return 5.0 / (4.0 * math.sqrt(p_tr)) - 3.0 * dp * dp / (4.0 * p_tr**2.5)


def bulk_modulus(p: float, a1: float, e_max: float, a2: float, p_max: float, a3: float,
                 natural_log: bool = False) -> float:
    """(E4) B(p) = a1 Emax log10(a2 max(p, 0)/pmax + a3), Pa (ln instead of
    log10 with ``natural_log``). Below zero gauge pressure B keeps B(0)."""
    arg = a2 * max(p, 0.0) / p_max + a3
    return a1 * e_max * math.log(arg) / (1.0 if natural_log else LN10)


def bulk_modulus_slope(p: float, a1: float, e_max: float, a2: float, p_max: float, a3: float,
                       natural_log: bool = False) -> float:
    """dB/dp of (E4), 1. Zero for p < 0 (max(p, 0)); at p = 0 the right-hand
    derivative (the branch p >= 0)."""
    if p < 0.0:
        return 0.0
    arg = a2 * p / p_max + a3
    return a1 * e_max * a2 / (p_max * arg * (1.0 if natural_log else LN10))
