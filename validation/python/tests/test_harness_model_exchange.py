"""The Model Exchange runners' own logic on synthetic data: which masters
run by default, how FMPy's Model Exchange runner holds the inputs over a
communication step, and which of FMPy's samples it keeps."""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.masters import default_masters, extra_masters  # noqa: E402
from harness.runners.common import RunFailed  # noqa: E402
from harness.runners.fmpy_me import grid_samples, held_input_signals  # noqa: E402


def test_fmpy_me_runs_only_when_named_and_fmi_rs_me_by_default():
    default = {m.name: m for m in default_masters()}
    extra = {m.name: m for m in extra_masters()}
    assert "fmi-rs-me" in default and default["fmi-rs-me"].command[-1] == "--model-exchange"
    assert "fmpy-me" in extra and "fmpy-me" not in default
    assert extra["fmpy-me"].command[-1] == "harness.runners.fmpy_me"


def job(times, **inputs):
    info = SimpleNamespace(variable=lambda name: SimpleNamespace(kind="real"))
    return SimpleNamespace(times=np.array(times), inputs={k: np.array(v) for k, v in inputs.items()}, info=info)


def test_inputs_are_held_and_each_change_is_a_discontinuity():
    signals = held_input_signals(job([0.0, 0.1, 0.2, 0.3], U=[1.0, 1.0, 3.0, -2.0]))
    assert list(signals["time"]) == [0.0, 0.1, 0.2, 0.2, 0.3, 0.3]
    assert list(signals["U"]) == [1.0, 1.0, 1.0, 3.0, 3.0, -2.0]
    # FMPy interpolates linearly between rows: between two points the value
    # is the one set at the earlier point.
    assert np.interp(0.25, signals["time"][3:5], signals["U"][3:5]) == 3.0
    assert held_input_signals(job([0.0, 1.0])) is None


def test_the_sample_before_each_input_event_is_kept_and_state_events_are_dropped():
    result = np.array([(0.0, 1.0), (0.05, 1.5), (0.1, 2.0), (0.1, 2.5), (0.17, 2.7), (0.2, 3.0), (0.2, 3.5)],
                      dtype=[("time", float), ("y", float)])
    kept = grid_samples(result, np.array([0.0, 0.1, 0.2]))
    assert list(kept["y"]) == [1.0, 2.0, 3.0]
    with pytest.raises(RunFailed, match="no sample at 1 communication point"):
        grid_samples(result, np.array([0.0, 0.15]))
