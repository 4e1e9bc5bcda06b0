"""Sparse tensors: building, coalescing, converting and multiplying a 10000 x 10000 matrix with 1% nonzeros (1M
entries, a quarter of them duplicated), against torch in one process.

Prints ember's speed as a ratio to torch's (higher is better). The sparse x dense product also prints its rate in
multiply-adds per second against the machine's FMA peak (each entry of the sparse matrix scales one row of the
dense matrix).
"""
import warnings

import numpy as np
import torch

import ember
from common import compare, median_time

N, NNZ, COLS = 10_000, 1_000_000, 64


def main():
    warnings.filterwarnings("ignore", message="Sparse")
    torch.set_num_threads(ember.get_num_threads())
    rng = np.random.default_rng(0)
    idx = rng.integers(0, N, size=(2, NNZ))
    idx[:, : NNZ // 4] = idx[:, NNZ // 4: NNZ // 2]  # duplicates for coalesce to sum
    vals = rng.standard_normal(NNZ).astype(np.float32)
    dense = rng.standard_normal((N, COLS)).astype(np.float32)
    env = {"ember": ember, "torch": torch}
    for p, m in (("e", ember), ("t", torch)):
        env[p + "i"], env[p + "v"] = m.from_numpy(idx.copy()), m.from_numpy(vals.copy())
        env[p + "s"] = m.sparse_coo_tensor(env[p + "i"], env[p + "v"], (N, N))
        env[p + "c"] = env[p + "s"].coalesce()
        env[p + "r"] = env[p + "c"].to_sparse_csr()
        env[p + "d"] = m.from_numpy(dense.copy())
        env[p + "m"] = env[p + "c"].to_dense()
    # the results agree before they are timed
    assert np.array_equal(env["ec"]._indices().numpy(), env["tc"]._indices().numpy())
    assert np.allclose(env["ec"]._values().numpy(), env["tc"]._values().numpy(), rtol=1e-6, atol=1e-6)
    assert np.allclose((env["ec"] @ env["ed"]).numpy(), (env["tc"] @ env["td"]).numpy(), rtol=1e-4, atol=1e-4)
    kw = dict(globals=env, repeat=3, min_time=0.3, rounds=5)
    rows = [("sparse_coo_tensor (checked), 1M entries", "ember.sparse_coo_tensor(ei, ev, (N, N))",
             "torch.sparse_coo_tensor(ti, tv, (N, N), check_invariants=True)"),
            ("coalesce, 1M entries", "es.coalesce()", "ts.coalesce()"),
            ("to_dense, 10000 x 10000", "ec.to_dense()", "tc.to_dense()"),
            ("dense.to_sparse(), 1% nonzero", "em.to_sparse()", "tm.to_sparse()"),
            ("to_sparse_csr", "ec.to_sparse_csr()", "tc.to_sparse_csr()"),
            ("COO @ dense (10000 x 64)", "ec @ ed", "tc @ td"),
            ("CSR @ dense (10000 x 64)", "er @ ed", "tr @ td"),
            ("sparse + sparse (coalesced)", "ec + ec", "tc + tc"),
            ("sparse * 2", "ec * 2", "tc * 2")]
    env["N"] = N
    for name, e, t in rows:
        compare(name, e, t, **kw)
    fma = NNZ * 0.75 * COLS / median_time("er @ ed", globals=env, repeat=3, min_time=0.3)
    print(f"  CSR @ dense: ember runs {fma / 1e9:.2f} G multiply-adds/s (a gather-bound kernel: each entry reads "
          f"one 256-byte row of the dense matrix)")


if __name__ == "__main__":
    main()
