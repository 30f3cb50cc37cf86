"""Input signals of a run, as values at the communication points.

An input of the design file is one of these kinds (values in the input's SI
unit, or in the display unit named by the spec's ``unit`` key, which
``design.py`` converts before anything here runs):

- ``constant``: ``value``;
- ``step``: ``before`` until ``time`` (s), ``after`` from then on;
- ``sine``: ``offset + amplitude * sin(2 pi frequency t)`` (``frequency`` in Hz);
- ``random_levels``: a new level every ``hold`` seconds, uniform between
  ``low`` and ``high``, drawn by NumPy's PCG64 generator from ``seed``;
- ``table``: a column of a CSV file (``file``, ``column``, default the input's
  name; ``interpolation`` ``step`` or ``linear``), times ``scale``.

The value at each communication point is held over the step that starts
there, as the validation harness does for its scenarios (same sampling rule,
``harness.scenario.sample_inputs``).
"""

from __future__ import annotations

import numpy as np

from harness.scenario import sample_inputs
from harness.tables import Table

#: Fields of each kind: required ones, then optional ones with defaults.
KINDS: dict[str, tuple[tuple[str, ...], dict[str, object]]] = {
    "constant": (("value",), {}),
    "step": (("time", "before", "after"), {}),
    "sine": (("amplitude", "frequency"), {"offset": 0.0}),
    "random_levels": (("hold", "low", "high", "seed"), {}),
    "table": (("file",), {"column": None, "interpolation": "step", "scale": 1.0}),
}

#: Fields that carry a value of the input itself (converted with the input's
#: display unit); ``amplitude`` is a difference, so only its factor applies.
VALUE_FIELDS = ("value", "before", "after", "offset", "low", "high")
DELTA_FIELDS = ("amplitude",)
#: Fields in seconds, in hertz, and dimensionless ones.
TIME_FIELDS = ("time", "hold")
FREQUENCY_FIELDS = ("frequency",)
NUMBER_FIELDS = ("seed", "scale")


def field_unit(field: str, input_unit: str) -> str:
    """The SI unit of one field of an input signal spec."""
    if field in VALUE_FIELDS or field in DELTA_FIELDS:
        return input_unit
    if field in TIME_FIELDS:
        return "s"
    if field in FREQUENCY_FIELDS:
        return "Hz"
    return ""


def values_at(spec: dict, times: np.ndarray, step: float) -> np.ndarray:
    """The input's value at each communication point ``times`` (SI)."""
    kind = spec["kind"]
    if kind == "constant":
        return np.full(len(times), float(spec["value"]))
    if kind == "step":
        # the later value from the step time on (within rounding of the grid)
        return np.where(times >= float(spec["time"]) - 1e-9 * step, float(spec["after"]), float(spec["before"]))
    if kind == "sine":
        return float(spec["offset"]) + float(spec["amplitude"]) * np.sin(2.0 * np.pi * float(spec["frequency"]) * times)
    if kind == "random_levels":
        hold = float(spec["hold"])
        index = np.floor((times - times[0]) / hold + 1e-9).astype(np.int64)
        rng = np.random.default_rng(int(spec["seed"]))
        levels = rng.uniform(float(spec["low"]), float(spec["high"]), size=int(index[-1]) + 1)
        return levels[index]
    if kind == "table":
        table = Table(["time", "value"], np.column_stack([spec["time_column"], spec["value_column"]]))
        return float(spec["scale"]) * sample_inputs(table, times, spec["interpolation"], step)[:, 0]
    raise ValueError(f"unknown input kind {kind!r}")
