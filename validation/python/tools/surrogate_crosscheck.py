"""Independent cross-check of a NARX network trained by `train-surrogates`.

Two checks on the data set the Rust trainer used (`train-surrogates
--export DIR` writes it: the split of every sample, its inputs, its target
and each trained model's prediction):

1. Inference: this script reads the weights file with its own parser (the
   SHA-256 line included), evaluates the network with NumPy and compares
   with the predictions the Rust code wrote; they must agree to 1e-9 of the
   output's range (the file's numbers round-trip exactly, so only the
   order of floating-point sums differs).
2. Training: scikit-learn's MLPRegressor, an implementation nobody here
   wrote, fits a network of the same shape (logistic hidden layers, linear
   output, Adam, the same [-1, 1] scaling from the training rows, the best
   epoch by the same validation rows) to the same training rows; the test
   rows' RMS error of both, in normalized units, side by side. The Rust
   network must not be worse than `--max-ratio` times scikit-learn's.

Example (the shipped valve-drive network; a few minutes):

    cargo run --release -p validation --bin train-surrogates -- --slot valve-drive/pv \\
        --kind narx --out target/surrogates --export target/surrogates
    target/venv/bin/python validation/python/tools/surrogate_crosscheck.py \\
        --data target/surrogates/valve-drive-pv-data.csv \\
        --weights target/surrogates/valve-drive-pv-narx.txt
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np


def read_weights(path: Path) -> dict:
    """The MLP of a weights file (format: components/elements/surrogates, module
    `file`), parsed here independently; raises ValueError on a bad file."""
    text = path.read_text()
    body, marker, tail = text.rpartition("sha256 ")
    if not marker:
        raise ValueError(f"{path}: no sha256 line")
    digest = tail.strip()
    actual = hashlib.sha256(body.encode()).hexdigest()
    if digest != actual:
        raise ValueError(f"{path}: SHA-256 {actual}, the file says {digest}")
    lines = body.splitlines()
    if not lines or lines[0].split() != ["fluidfmu-surrogate", "1"]:
        raise ValueError(f"{path}: not a version 1 weights file")
    fields: dict[str, list[str]] = {}
    numbers: list[float] = []
    reading_weights = False
    for line in lines[1:]:
        head, _, rest = line.partition(" ")
        if reading_weights and head not in ("note",):
            numbers += [float(v) for v in line.split()]
            continue
        fields[head] = rest.split()
        if head == "weights":
            reading_weights = True
        if head == "note":
            reading_weights = False
    if fields.get("kind") != ["mlp"]:
        raise ValueError(f"{path}: kind {fields.get('kind')}, this check is for MLP networks")
    sizes = [int(v) for v in fields["layers"]]
    count = int(fields["weights"][0])
    if len(numbers) != count:
        raise ValueError(f"{path}: {len(numbers)} weights, the file says {count}")
    layers = []
    at = 0
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        w = np.array(numbers[at:at + n_in * n_out]).reshape(n_out, n_in)
        at += n_in * n_out
        b = np.array(numbers[at:at + n_out])
        at += n_out
        layers.append((w, b))
    as_floats = lambda key: np.array([float(v) for v in fields[key]])  # noqa: E731
    return {
        "sizes": sizes,
        "layers": layers,
        "input_names": fields["inputs"][1:],
        "output_names": fields["outputs"][1:],
        "input_lo": as_floats("input_lo"),
        "input_hi": as_floats("input_hi"),
        "output_lo": as_floats("output_lo"),
        "output_hi": as_floats("output_hi"),
    }


def scale(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """[lo, hi] -> [-1, 1] per column; a constant column maps to 0."""
    span = hi - lo
    safe = np.where(span > 0, span, 1.0)
    return np.where(span > 0, 2.0 * (x - lo) / safe - 1.0, 0.0)


def unscale(y: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo + (y + 1.0) * 0.5 * (hi - lo)


def forward(net: dict, x: np.ndarray) -> np.ndarray:
    """The network's physical outputs at physical inputs (rows)."""
    a = scale(x, net["input_lo"], net["input_hi"])
    for k, (w, b) in enumerate(net["layers"]):
        a = a @ w.T + b
        if k + 1 < len(net["layers"]):
            a = 1.0 / (1.0 + np.exp(-a))
    return unscale(a, net["output_lo"], net["output_hi"])


def read_data(path: Path, kind: str) -> dict:
    with path.open() as handle:
        rows = list(csv.reader(handle))
    header, rows = rows[0], rows[1:]
    if kind not in header:
        raise ValueError(f"{path}: no column '{kind}' (export the data with the {kind} model trained)")
    sets = np.array([r[0] for r in rows])
    values = np.array([[float(v) for v in r[1:]] for r in rows])
    names = header[1:]
    n_models = sum(1 for name in names if name in ("narx", "lolimot"))
    n_in = len(names) - 1 - n_models
    return {
        "set": sets,
        "x": values[:, :n_in],
        "y": values[:, n_in:n_in + 1],
        "rust": values[:, names.index(kind)][:, None],
        "input_names": names[:n_in],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="<stem>-data.csv of train-surrogates --export")
    parser.add_argument("--weights", type=Path, required=True, help="the NARX weights file trained on it")
    parser.add_argument("--epochs", type=int, default=30, help="scikit-learn epochs (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="scikit-learn's seed (default: %(default)s)")
    parser.add_argument("--max-ratio", type=float, default=2.0,
                        help="largest allowed ratio of the Rust network's test RMS to scikit-learn's "
                        "(default: %(default)s)")
    args = parser.parse_args(argv)

    from sklearn.neural_network import MLPRegressor

    net = read_weights(args.weights)
    data = read_data(args.data, "narx")
    ok = True
    if net["input_names"] != data["input_names"]:
        print(f"FAIL inputs: the file has {net['input_names']}, the data {data['input_names']}")
        return 1

    # 1. Inference.
    mine = forward(net, data["x"])
    span = float(net["output_hi"][0] - net["output_lo"][0])
    worst = float(np.max(np.abs(mine - data["rust"]))) / span
    good = worst <= 1e-9
    ok &= good
    print(f"{'PASS' if good else 'FAIL'} inference: NumPy vs the Rust network on {len(mine)} samples, largest "
          f"difference {worst:.2e} of the output range (limit 1e-9)")

    # The scaling from the training rows, as the trainer computes it.
    train, validation, test = (data["set"] == s for s in ("train", "validation", "test"))
    lo, hi = data["x"][train].min(axis=0), data["x"][train].max(axis=0)
    ylo, yhi = data["y"][train].min(axis=0), data["y"][train].max(axis=0)
    good = np.array_equal(lo, net["input_lo"]) and np.array_equal(hi, net["input_hi"]) \
        and np.array_equal(ylo, net["output_lo"]) and np.array_equal(yhi, net["output_hi"])
    ok &= good
    print(f"{'PASS' if good else 'FAIL'} scaling: the file's ranges are the training rows' minima and maxima")

    # 2. Training.
    xs = scale(data["x"], lo, hi)
    ys = scale(data["y"], ylo, yhi)[:, 0]
    hidden = tuple(net["sizes"][1:-1])
    model = MLPRegressor(hidden_layer_sizes=hidden, activation="logistic", solver="adam", learning_rate_init=3e-3,
                         batch_size=64, alpha=0.0, random_state=args.seed, shuffle=True)
    best, best_epoch, best_test = np.inf, 0, np.nan
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(1, args.epochs + 1):
            model.partial_fit(xs[train], ys[train])
            val = float(np.mean((model.predict(xs[validation]) - ys[validation]) ** 2))
            if val < best:
                best, best_epoch = val, epoch
                best_test = float(np.sqrt(np.mean((model.predict(xs[test]) - ys[test]) ** 2)))
    wall = time.perf_counter() - started
    rust_test = float(np.sqrt(np.mean((scale(data["rust"][test], ylo, yhi)[:, 0] - ys[test]) ** 2)))
    ratio = rust_test / best_test
    good = ratio <= args.max_ratio
    ok &= good
    print(f"scikit-learn MLPRegressor {hidden} logistic, Adam: best validation epoch {best_epoch} of {args.epochs}, "
          f"test RMS {best_test:.3e} (normalized), {wall:.1f} s")
    print(f"train-surrogates network {net['sizes']}: test RMS {rust_test:.3e} (normalized), on the same "
          f"{int(test.sum())} test rows")
    print(f"{'PASS' if good else 'FAIL'} training: Rust / scikit-learn test RMS = {ratio:.2f} "
          f"(limit {args.max_ratio:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
