"""Sparse x dense products: DyGraph's paddle.sparse.matmul beside scipy.sparse and
torch.sparse.

Each case multiplies a random sparse matrix A [M, K] (uniform positions, `density` of
them stored, float32) by a dense D [K, N]:
  forward  -- out = A @ D. DyGraph: sparse.matmul of a CSR tensor (and of a COO one);
              SciPy: csr_matrix @ ndarray; PyTorch: torch.sparse.mm of a CSR tensor.
  backward -- the gradients of sum(out * G) for the values of A and for D, after the
              forward: DyGraph's backward(); SciPy: A.T @ G and the sampled dot products
              G[rows] . D[cols] (einsum over the stored entries), the same arithmetic by
              hand; PyTorch: the same by hand too (torch.sparse.mm of A^T in CSR, and
              a gather-multiply-sum), as its autograd through torch.sparse.mm of a COO
              matrix makes A's gradient dense ([M, K], out of memory here).
Times are ms per call, the median over repeats of the mean of `steps` calls; the ratio
columns are DyGraph / SciPy and DyGraph / PyTorch. PyTorch runs in its own process
(--torch-python, default /tmp/torch-venv/bin/python; skipped when it cannot import
torch), on the same matrices.

Run: python benchmarks/sparse_matmul.py [--cases graph_100k,mesh_1m] [--steps 10]
     [--repeats 5] [--threads 2] [--torch-python PATH]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from timing import parser, set_threads  # this script's folder is on sys.path

# name: (M, K, N, density)
CASES = {
    "small_1k": (1000, 1000, 64, 0.01),
    "graph_100k": (100_000, 100_000, 32, 1e-4),
    "wide_features": (20_000, 20_000, 256, 5e-4),
    "mesh_1m": (200_000, 200_000, 16, 5e-5),
}


def _parse():
    p = parser(__doc__, steps=10, repeats=5)
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--torch-python", default="/tmp/torch-venv/bin/python")
    p.add_argument("--torch-worker", default=None, help=argparse.SUPPRESS)
    return p.parse_args()


ARGS = _parse() if __name__ == "__main__" else None
if ARGS is not None:
    set_threads(ARGS.threads)

import numpy as np  # noqa: E402 - after the thread settings above

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved_median_ms  # noqa: E402


def make_case(name):
    """(rows, cols, values, dense, cotangent) of case `name` (A's entries, D, the output
    gradient G), from a fixed seed."""
    m, k, n, density = CASES[name]
    rng = np.random.default_rng(0)
    nnz = int(m * k * density)
    lin = np.unique(rng.integers(0, m * k, nnz))
    rows, cols = lin // k, lin % k
    values = rng.standard_normal(lin.shape[0]).astype(np.float32)
    dense = rng.standard_normal((k, n)).astype(np.float32)
    grad = rng.standard_normal((m, n)).astype(np.float32)
    return rows, cols, values, dense, grad


def _scipy_steps(shape, rows, cols, values, dense, grad):
    import scipy.sparse as sp

    m, k = shape
    a = sp.csr_matrix((values, (rows, cols)), shape=(m, k))
    a_rows = np.repeat(np.arange(m), np.diff(a.indptr))

    def forward():
        return a @ dense

    def backward():
        gd = a.T @ grad
        gv = np.einsum("ij,ij->i", grad[a_rows], dense[a.indices])
        return gd, gv

    return forward, backward, forward()


def _dygraph_steps(fmt, shape, rows, cols, values, dense, grad):
    import dygraph

    m, k = shape
    coo = dygraph.sparse.sparse_coo_tensor(np.stack([rows, cols]), values, [m, k])
    x = coo.to_sparse_csr() if fmt == "csr" else coo
    d = dygraph.to_tensor(dense)
    g = dygraph.to_tensor(grad)

    def forward():
        return dygraph.sparse.matmul(x, d)

    xg = x.detach()
    xg.stop_gradient = False
    dg = dygraph.to_tensor(dense, stop_gradient=False)

    def backward():
        dygraph.sparse.matmul(xg, dg).backward(g)
        xg.clear_grad(False)
        dg.clear_grad(False)

    return forward, backward, forward().numpy()


def _torch_worker(path):
    """Time torch.sparse on the matrices saved at `path`; print the times as JSON."""
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    data = np.load(path)
    m, k = int(data["m"]), int(data["k"])
    index = torch.tensor(np.stack([data["rows"], data["cols"]]))
    values = torch.tensor(data["values"])
    dense, grad = torch.tensor(data["dense"]), torch.tensor(data["grad"])
    csr = torch.sparse_coo_tensor(index, values, (m, k)).coalesce().to_sparse_csr()
    csr_t = torch.sparse_coo_tensor(index.flip(0), values, (k, m)).coalesce().to_sparse_csr()
    rows, cols = index[0], index[1]

    def forward():
        return torch.sparse.mm(csr, dense)

    def backward():
        grad_dense = torch.sparse.mm(csr_t, grad)
        grad_values = (grad[rows] * dense[cols]).sum(-1)
        return grad_dense, grad_values

    times = interleaved_median_ms({"forward": forward, "backward": backward},
                                  int(data["steps"]), int(data["repeats"]))
    print(json.dumps({"times": times, "out": forward().numpy().tolist()[:2]}))


def _torch_times(python, name, case, steps, repeats):
    rows, cols, values, dense, grad = case
    m, k, _, _ = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.npz")
        np.savez(path, rows=rows, cols=cols, values=values, dense=dense, grad=grad, m=m,
                 k=k, steps=steps, repeats=repeats)
        run = subprocess.run([python, os.path.abspath(__file__), "--torch-worker", path,
                              "--threads", str(ARGS.threads)], capture_output=True,
                             text=True, timeout=1800)
    if run.returncode:
        print(f"  torch: not run ({run.stderr.strip().splitlines()[-1:]})")
        return None, None
    result = json.loads(run.stdout.strip().splitlines()[-1])
    return result["times"], np.asarray(result["out"])


def main():
    if ARGS.torch_worker:
        _torch_worker(ARGS.torch_worker)
        return
    python = ARGS.torch_python if os.path.exists(ARGS.torch_python) else None
    print(f"{'case':14s} {'nnz':>9s} {'pass':9s} {'dygraph':>9s} {'dyg coo':>9s} "
          f"{'scipy':>9s} {'torch':>9s} {'dyg/scipy':>9s} {'dyg/torch':>9s}")
    ratios = {"scipy": [], "torch": []}
    for name in ARGS.cases.split(","):
        case = make_case(name)
        shape = CASES[name][:2]
        s_fwd, s_bwd, s_out = _scipy_steps(shape, *case)
        d_fwd, d_bwd, d_out = _dygraph_steps("csr", shape, *case)
        c_fwd, c_bwd, c_out = _dygraph_steps("coo", shape, *case)
        np.testing.assert_allclose(d_out, s_out, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(c_out, s_out, rtol=1e-4, atol=1e-4)
        times = interleaved_median_ms({"d_fwd": d_fwd, "c_fwd": c_fwd, "s_fwd": s_fwd,
                                       "d_bwd": d_bwd, "c_bwd": c_bwd, "s_bwd": s_bwd},
                                      ARGS.steps, ARGS.repeats)
        torch_times, torch_out = (_torch_times(python, name, case, ARGS.steps, ARGS.repeats)
                                  if python else (None, None))
        if torch_out is not None:
            np.testing.assert_allclose(torch_out, s_out[:2], rtol=1e-4, atol=1e-4)
        for step in ("fwd", "bwd"):
            dy, scipy_ms = times[f"d_{step}"], times[f"s_{step}"]
            torch_ms = torch_times and torch_times["forward" if step == "fwd" else "backward"]
            ratios["scipy"].append(dy / scipy_ms)
            if torch_ms:
                ratios["torch"].append(dy / torch_ms)
            print(f"{name:14s} {case[2].shape[0]:9d} {step:9s} {dy:9.3f} "
                  f"{times[f'c_{step}']:9.3f} {scipy_ms:9.3f} "
                  f"{torch_ms if torch_ms else float('nan'):9.3f} {dy / scipy_ms:9.2f} "
                  f"{dy / torch_ms if torch_ms else float('nan'):9.2f}")
    for other, values in ratios.items():
        if values:
            print(f"geometric mean dygraph/{other}: "
                  f"{float(np.exp(np.mean(np.log(values)))):.2f}")


if __name__ == "__main__":
    main()
