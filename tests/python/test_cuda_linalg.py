"""CUDA factorizations (inv, det, slogdet, solve, solve_triangular, cholesky, qr, eigh, pinv and their gradients)
against Ember's CPU results: the CUDA column runs LAPACK on the host, so results must agree to rounding."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.cuda

CASES = {
    "inv": lambda m, a: m.linalg.inv(a),
    "det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: m.linalg.slogdet(a)[1],
    "logdet": lambda m, a: m.logdet(a @ a.mT),
    "solve": lambda m, a: m.linalg.solve(a, a[..., :2] + 1),
    "solve_vector": lambda m, a: m.linalg.solve(a, a[..., 0]),
    "solve_triangular": lambda m, a: m.linalg.solve_triangular(a, a[..., :2] + 1, upper=True),
    "cholesky": lambda m, a: m.linalg.cholesky(a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype, device=a.device)),
    "qr": lambda m, a: m.linalg.qr(a)[0] + m.linalg.qr(a)[1],
    "eigvalsh": lambda m, a: m.linalg.eigvalsh(a + a.mT),
    "eigh_vectors": lambda m, a: m.linalg.eigh(a + a.mT)[1].abs(),
    "matrix_power": lambda m, a: m.linalg.matrix_power(a, -3),
    "pinv": lambda m, a: m.linalg.pinv(a[..., :2]),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (0, 3, 3)])
def test_cuda_matches_cpu_with_gradients(case, dtype, shape):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape) + shape[-1] * np.eye(shape[-1])
    results = []
    for device in ("cpu", "cuda"):
        x = ember.tensor(a, dtype=getattr(ember, dtype), device=device, requires_grad=True)
        y = CASES[case](ember, x)
        y.sum().backward()
        assert y.device.type == device and x.grad.device.type == device
        results.append((y.detach().cpu().numpy(), x.grad.cpu().numpy()))
    tol = 1e-4 if dtype == "float32" else 1e-10
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_cuda_singular_raises_linalg_error():
    a = ember.tensor([[1.0, 2.0], [2.0, 4.0]], device="cuda")
    with pytest.raises(ember.linalg.LinAlgError, match="The diagonal element 2 is zero"):
        ember.linalg.inv(a)
    assert ember.linalg.inv_ex(a).info.item() == 2
