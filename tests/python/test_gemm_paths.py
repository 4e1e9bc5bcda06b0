"""float32 matrix products take oneDNN's sgemm for a row-major A by a transposed B with up to 256 rows, BLIS
otherwise: both paths, their thread split and leading dims give torch's values, inf and nan included."""
import math
import os
import subprocess
import sys

import pytest
import torch

import ember
from conftest import assert_same


def operands(m, M, K, N, lead):
    m.manual_seed(M * 1000 + N)
    a = m.randn(M, K + lead)[:, lead:]  # row-major, leading dim K + lead
    b = m.randn(N, K + lead)[:, :K].t()  # transposed, leading dim K + lead
    return a, b


@pytest.mark.parametrize("M", [2, 17, 128, 256, 257, 600])
@pytest.mark.parametrize("K, N", [(5, 3), (784, 512), (128, 784), (64, 70)])
@pytest.mark.parametrize("lead", [0, 3])
def test_row_major_by_transposed(M, K, N, lead):
    e = ember.mm(*operands(ember, M, K, N, lead))
    t = torch.mm(*operands(torch, M, K, N, lead))
    assert_same(e, t, rtol=1e-5, atol=1e-4 * math.sqrt(K))


@pytest.mark.parametrize("threads", [1, 2])
def test_addmm_scales_and_accumulates(threads):
    saved = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        def run(m):
            a, b = operands(m, 128, 300, 200, 1)
            c = m.randn(128, 200)
            return m.addmm(c, a, b, beta=0.5, alpha=-2.0), m.addmm(c, a, b, beta=0.0)
        for e, t in zip(run(ember), run(torch)):
            assert_same(e, t, rtol=1e-5, atol=1e-3)
    finally:
        ember.set_num_threads(saved)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_non_finite_operands_propagate(value):
    def run(m):
        a, b = operands(m, 64, 100, 80, 0)
        a = a.clone()
        a[3, 7] = value
        b = b.t().clone()
        b[:, 7] = 0  # inf * 0 is nan in every column
        return m.mm(a, b.t())
    assert_same(run(ember), run(torch), rtol=1e-5, atol=1e-3)


BF16_SCRIPT = r"""
import numpy as np
import ember

rng = np.random.default_rng(0)
for M, K, N in [(1, 64, 32), (17, 33, 1), (300, 129, 77), (512, 256, 128)]:
    for ta in (False, True):
        for tb in (False, True):
            a = rng.standard_normal((K, M) if ta else (M, K)).astype(np.float32)
            b = rng.standard_normal((N, K) if tb else (K, N)).astype(np.float32)
            ea = ember.from_numpy(a).to(ember.bfloat16)
            eb = ember.from_numpy(b).to(ember.bfloat16)
            ea, eb = (ea.t() if ta else ea), (eb.t() if tb else eb)
            got = (ea @ eb).float().numpy()
            exact = ea.double().numpy() @ eb.double().numpy()  # the bfloat16 values' product
            err = np.abs(got - exact).max() / (np.abs(exact).max() + 1e-6)
            assert err < 8e-3, (M, K, N, ta, tb, err)  # one bfloat16 rounding of the float32 sum
x = ember.ones(4, 4).to(ember.bfloat16)
x[0, 0] = float("inf")
assert bool((x @ ember.zeros(4, 4).to(ember.bfloat16))[0].isnan().all())  # inf * 0 is nan
print("ok")
"""


def test_bfloat16_matmul_on_onednn_isa():
    # the tests pin oneDNN to AVX2 (reference_isa.py), where it has no bfloat16 matmul and the float32 path runs:
    # the oneDNN one (AMX or AVX512_BF16 where the CPU has them) is checked in a process without the pin
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA="ALL", DNNL_MAX_CPU_ISA="ALL")
    result = subprocess.run([sys.executable, "-c", BF16_SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
