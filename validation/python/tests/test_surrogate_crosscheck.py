"""The surrogate trainer (Rust, train-surrogates) against independent code
on a small data set the OrificeChain FMU generates (three 100 s runs, 60,000
samples, 20 epochs): the weights file read and the network evaluated by
NumPy must give the Rust predictions to 1e-9 of the output range, and
scikit-learn's MLPRegressor of the same shape, fitted to the same training
rows, must not beat the Rust network by more than a factor of 2 on the
same test rows (validation/python/tools/surrogate_crosscheck.py; its
docstring has the full-size command). Training twice with the same seed
gives the same file, byte for byte."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TRAINER = REPO / "target" / "release" / "train-surrogates"
FMU = REPO / "dist" / "fmi3" / "OrificeChain.fmu"
CHECK = REPO / "validation" / "python" / "tools" / "surrogate_crosscheck.py"


def train(out: Path) -> Path:
    command = [str(TRAINER), "--slot", "orifice-chain/p2", "--kind", "narx", "--seconds", "100",
               "--max-samples", "60000", "--epochs", "20", "--fmus", str(FMU.parent), "--out", str(out),
               "--export", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / "orifice-chain-p2-narx.txt"


def test_trained_network_agrees_with_numpy_and_scikit_learn(tmp_path):
    for needed, how in ((TRAINER, "cargo build --release -p validation --bin train-surrogates"),
                        (FMU, "cargo run --release -p build-fmu")):
        if not needed.is_file():
            pytest.fail(f"{needed} is missing: {how}")
    weights = train(tmp_path / "a")
    again = train(tmp_path / "b")
    assert weights.read_bytes() == again.read_bytes(), "the same seed must give the same weights file"
    done = subprocess.run([sys.executable, str(CHECK), "--data", str(tmp_path / "a" / "orifice-chain-p2-data.csv"),
                           "--weights", str(weights), "--epochs", "20"], capture_output=True, text=True, cwd=REPO)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASS") == 3, done.stdout
