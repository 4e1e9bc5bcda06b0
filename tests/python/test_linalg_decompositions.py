"""torch.linalg's factorizations (inv, det, slogdet, solve, solve_triangular, cholesky, qr, eigh, matrix_power, pinv,
matrix_rank) against torch: values, layouts, errors and gradients (compared with torch's and by gradcheck)."""
import numpy as np
import pytest
import torch

import ember


def pair(array):
    return torch.tensor(array), ember.tensor(array)


def close(got, expected, atol=1e-6, rtol=1e-6):
    assert tuple(got.shape) == tuple(expected.shape), (got.shape, expected.shape)
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=atol, rtol=rtol)


def random_matrices(shape, dtype="float64", seed=0, spd=False, well=True):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    elif well and shape[-1] == shape[-2]:
        a = a + shape[-1] * np.eye(shape[-1])
    return a.astype(dtype)


SHAPES = [(3, 3), (1, 1), (2, 4, 4), (2, 1, 5, 5), (0, 3, 3), (0, 0)]
DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_inverse_and_determinants(shape, dtype):
    t, e = pair(random_matrices(shape, dtype))
    tol = 1e-4 if dtype == "float32" else 1e-10
    for name in ("inv", "det"):
        got, expected = getattr(ember.linalg, name)(e), getattr(torch.linalg, name)(t)
        close(got, expected, tol, tol)
        assert got.stride() == expected.stride()
    (s1, l1), (s2, l2) = ember.linalg.slogdet(e), torch.linalg.slogdet(t)
    close(s1, s2), close(l1, l2, tol, tol)
    close(ember.inverse(e), torch.inverse(t), tol, tol)
    close(e.det(), t.det(), tol, tol)
    close(ember.logdet(e), torch.logdet(t), tol, tol)


def test_singular_and_negative_determinants():
    t, e = pair([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 3.0]]])
    close(ember.linalg.det(e), torch.linalg.det(t))
    for got, expected in zip(ember.linalg.slogdet(e), torch.linalg.slogdet(t)):
        close(got, expected)
    close(ember.logdet(e), torch.logdet(t))
    assert repr(ember.linalg.slogdet(e[2])).startswith("torch.return_types.linalg_slogdet(")


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
# Cholesky of a singular matrix may end on a rounding residue, positive with some of the reference's kernels.
INDEFINITE = [[1.0, 2.0], [2.0, 3.0]]


@pytest.mark.parametrize("fn, first, message", [
    (lambda m, a: m.linalg.inv(a), SINGULAR, "linalg.inv: (Batch element 0): The diagonal element 2 is zero"),
    (lambda m, a: m.linalg.cholesky(a), INDEFINITE, "linalg.cholesky: (Batch element 0): The factorization could not "
                                                    "be completed because the input is not positive-definite (the "
                                                    "leading minor of order 2 is not positive-definite)."),
    (lambda m, a: m.linalg.solve(a, m.ones(2, 2, 1)), SINGULAR, "torch.linalg.solve: (Batch element 0): The solver "
                                                                "failed because the input matrix is singular."),
])
def test_failures_raise_linalg_error(fn, first, message):
    for m in (torch, ember):
        a = m.tensor([first, [[1.0, 0.0], [0.0, 1.0]]])
        with pytest.raises(m.linalg.LinAlgError) as info:
            fn(m, a)
        assert str(info.value).startswith(message), str(info.value)
        assert isinstance(info.value, RuntimeError)


@pytest.mark.parametrize("call", [
    "m.linalg.inv(m.ones(2, 3))", "m.linalg.inv(m.ones(2))", "m.linalg.inv(m.ones(2, 2, dtype=m.int64))",
    "m.linalg.inv(m.ones(2, 2, dtype=m.float16))", "m.linalg.det(m.ones(3, 2))", "m.linalg.cholesky(m.ones(2, 3))",
    "m.linalg.solve(m.eye(2), m.ones(3))", "m.linalg.solve(m.eye(2, dtype=m.float64), m.ones(2))",
    "m.linalg.qr(m.ones(3, 2), mode='x')", "m.linalg.eigh(m.eye(2), UPLO='X')", "m.linalg.eigh(m.ones(2, 3))",
    "m.linalg.solve_triangular(m.eye(2), m.ones(2), upper=True)",
])
def test_bad_input_raises_as_torch(call):
    errors = []
    for m in (torch, ember):
        with pytest.raises(Exception) as info:
            eval(call)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


def test_inv_ex_and_cholesky_ex_return_info():
    t, e = pair(SINGULAR)
    assert ember.linalg.inv_ex(e).info.item() == torch.linalg.inv_ex(t).info.item() == 2
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.inv_ex(e, check_errors=True)
    t, e = pair(INDEFINITE)
    assert ember.linalg.cholesky_ex(e).info.item() == torch.linalg.cholesky_ex(t).info.item() == 2


@pytest.mark.parametrize("a_shape, b_shape", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3)),
                                              ((2, 3, 3), (3, 4)), ((3, 3), (4, 3, 2)), ((1, 3, 3), (2, 3, 1)),
                                              ((0, 3, 3), (0, 3)), ((3, 3), (3, 0))])
def test_solve(a_shape, b_shape):
    a = random_matrices(a_shape, seed=1)
    b = np.random.default_rng(2).standard_normal(b_shape)
    got, expected = ember.linalg.solve(ember.tensor(a), ember.tensor(b)), torch.linalg.solve(torch.tensor(a), torch.tensor(b))
    close(got, expected, 1e-10, 1e-10)
    if len(b_shape) >= 2 and b_shape != a_shape[:-1]:
        left = torch.linalg.solve(torch.tensor(a), torch.tensor(b).mT, left=False)
        close(ember.linalg.solve(ember.tensor(a), ember.tensor(b).mT, left=False), left, 1e-10, 1e-10)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_solve_triangular(upper, left, unitriangular):
    a = random_matrices((2, 4, 4), seed=3)
    b = np.random.default_rng(4).standard_normal((2, 4, 3) if left else (2, 3, 4))
    kwargs = dict(upper=upper, left=left, unitriangular=unitriangular)
    close(ember.linalg.solve_triangular(ember.tensor(a), ember.tensor(b), **kwargs),
          torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), **kwargs), 1e-10, 1e-10)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2), (1, 1)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(shape, upper):
    t, e = pair(random_matrices(shape, spd=True, seed=5))
    got, expected = ember.linalg.cholesky(e, upper=upper), torch.linalg.cholesky(t, upper=upper)
    close(got, expected, 1e-10, 1e-10)
    assert got.stride() == expected.stride()


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 2), (0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    t, e = pair(random_matrices(shape, seed=6, well=False))
    (q1, r1), (q2, r2) = ember.linalg.qr(e, mode=mode), torch.linalg.qr(t, mode=mode)
    close(r1, r2, 1e-10, 1e-10)
    close(q1, q2, 1e-10, 1e-10)
    if mode != "r" and q1.numel():
        close(q1 @ r1, t, 1e-10, 1e-10)
        assert q1.stride() == q2.stride() and r1.stride() == r2.stride()


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (0, 2, 2), (1, 1)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape, uplo):
    a = random_matrices(shape, seed=7, well=False)
    a = a + np.triu(np.ones(shape[-2:]), 1) * 5  # the two triangles differ: only one is read
    t, e = torch.tensor(a), ember.tensor(a)
    (w1, v1), (w2, v2) = ember.linalg.eigh(e, UPLO=uplo), torch.linalg.eigh(t, UPLO=uplo)
    close(w1, w2, 1e-10, 1e-10)
    # eigenvectors are unique up to sign
    close(v1.abs(), v2.abs(), 1e-8, 1e-8)
    close(ember.linalg.eigvalsh(e, UPLO=uplo), torch.linalg.eigvalsh(t, UPLO=uplo), 1e-10, 1e-10)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n):
    t, e = pair(random_matrices((2, 3, 3), seed=8))
    close(ember.linalg.matrix_power(e, n), torch.linalg.matrix_power(t, n), 1e-9, 1e-9)
    close(e.matrix_power(n), t.matrix_power(n), 1e-9, 1e-9)


@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_and_matrix_rank(hermitian):
    a = random_matrices((2, 4, 4) if hermitian else (2, 5, 3), seed=9, well=False)
    if hermitian:
        a = a + np.swapaxes(a, -1, -2)
    a[0, :, 0] = 0  # rank deficient
    if hermitian:
        a[0, 0, :] = 0
    t, e = torch.tensor(a), ember.tensor(a)
    close(ember.linalg.pinv(e, hermitian=hermitian), torch.linalg.pinv(t, hermitian=hermitian), 1e-9, 1e-9)
    close(ember.linalg.matrix_rank(e, hermitian=hermitian), torch.linalg.matrix_rank(t, hermitian=hermitian))
    close(ember.linalg.matrix_rank(e, atol=1.0, rtol=0.0), torch.linalg.matrix_rank(t, atol=1.0, rtol=0.0))


GRADIENT_CASES = {
    "inv": (lambda m, a: m.linalg.inv(a), {}),
    "det": (lambda m, a: m.linalg.det(a), {}),
    "det_singular": (lambda m, a: m.linalg.det(a), {"singular": True}),
    "slogdet": (lambda m, a: m.linalg.slogdet(a)[1], {}),
    "logdet": (lambda m, a: m.logdet(a @ a.mT), {}),
    "solve": (lambda m, a: m.linalg.solve(a, a[..., :2] * 2 + 1), {}),
    "solve_vector": (lambda m, a: m.linalg.solve(a, a[..., 0] + 1), {}),
    "solve_triangular": (lambda m, a: m.linalg.solve_triangular(a, a[..., :2] + 1, upper=True), {}),
    "solve_triangular_unit": (lambda m, a: m.linalg.solve_triangular(a, a[..., :2] + 1, upper=False,
                                                                      unitriangular=True), {}),
    "cholesky": (lambda m, a: m.linalg.cholesky(a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype)), {}),
    "cholesky_upper": (lambda m, a: m.linalg.cholesky(a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype), upper=True), {}),
    "qr_q": (lambda m, a: m.linalg.qr(a)[0], {}),
    "qr_r": (lambda m, a: m.linalg.qr(a)[1], {}),
    "qr_wide": (lambda m, a: m.linalg.qr(a[..., :2, :])[0] * 2 + m.linalg.qr(a[..., :2, :])[1].sum(), {}),
    "qr_tall": (lambda m, a: m.linalg.qr(a[..., :2])[0] + 1, {}),
    "eigh_values": (lambda m, a: m.linalg.eigh(a + a.mT)[0], {}),
    "eigh_vectors": (lambda m, a: m.linalg.eigh(a + a.mT)[1].abs(), {}),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a + a.mT), {}),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, -2), {}),
    "pinv": (lambda m, a: m.linalg.pinv(a[..., :2]), {}),
}


@pytest.mark.parametrize("case", GRADIENT_CASES)
def test_gradients_equal_torchs(case):
    fn, options = GRADIENT_CASES[case]
    a = random_matrices((2, 3, 3), seed=10)
    if options.get("singular"):
        a[0, 2] = a[0, 0] + a[0, 1]
    weight, grads = None, []
    for m in (torch, ember):
        x = m.tensor(a, requires_grad=True)
        y = fn(m, x)
        if weight is None:
            weight = np.random.default_rng(11).standard_normal(tuple(y.shape))
        (y * m.tensor(weight)).sum().backward()
        grads.append(x.grad)
    close(grads[1], grads[0], 1e-8, 1e-8)


def test_grad_fn_names():
    a = ember.tensor(random_matrices((3, 3), seed=12), requires_grad=True)
    spd = a @ a.mT + ember.eye(3, dtype=ember.float64)
    names = {
        "LinalgInvExBackward0": ember.linalg.inv(a), "LinalgDetBackward0": ember.linalg.det(a),
        "LinalgSlogdetBackward0": ember.linalg.slogdet(a)[1], "LinalgSolveExBackward0": ember.linalg.solve(a, a),
        "LinalgSolveTriangularBackward0": ember.linalg.solve_triangular(a, a, upper=True),
        "LinalgCholeskyExBackward0": ember.linalg.cholesky(spd), "LinalgQrBackward0": ember.linalg.qr(a)[0],
        "LinalgEighBackward0": ember.linalg.eigh(spd)[1], "WhereBackward0": ember.logdet(spd),
    }
    for name, result in names.items():
        assert result.grad_fn.name() == name


def test_qr_gradient_errors_as_torch():
    for m in (torch, ember):
        a = m.ones(3, 2, dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="mode='r'"):
            m.linalg.qr(a, mode="r")[1].sum().backward()
        with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
            m.linalg.qr(a, mode="complete")[0].sum().backward()


def test_gradcheck():
    a = ember.tensor(random_matrices((2, 3, 3), seed=13), requires_grad=True)
    for fn in (ember.linalg.inv, ember.linalg.det, lambda x: ember.linalg.solve(x, x.sum(-1)),
               lambda x: ember.linalg.cholesky(x @ x.mT + ember.eye(3, dtype=x.dtype)),
               lambda x: ember.linalg.qr(x)[0], lambda x: ember.linalg.eigvalsh(x + x.mT)):
        assert ember.autograd.gradcheck(fn, (a,))


def test_inputs_are_left_as_they_were():
    # a column-major input (another factorization's result) is already LAPACK's layout: it must be copied, not
    # factored in place
    u = ember.linalg.svd(ember.tensor(random_matrices((2, 3, 3), seed=14)))[0]
    before = u.clone()
    for fn in (ember.linalg.det, ember.linalg.inv, ember.linalg.slogdet, lambda x: ember.linalg.solve(x, x),
               lambda x: ember.linalg.qr(x), lambda x: ember.linalg.eigh(x), lambda x: ember.linalg.cholesky_ex(x),
               lambda x: ember.linalg.solve_triangular(x, x, upper=True)):
        fn(u)
        assert ember.equal(u, before)


def test_layouts_and_nodes_found_by_the_fuzzer():
    a = random_matrices((2, 3, 3), seed=15)
    b = np.random.default_rng(16).standard_normal((2, 4, 3))
    for n in (-2, -1, 0, 1, 2):
        got, expected = (m.linalg.matrix_power(m.tensor(a).mT, n) for m in (ember, torch))
        assert got.stride() == expected.stride(), n
    for m_pair in ((ember, torch),):
        e, t = m_pair
        # X A = B: its own node, column-major result
        for fn in (lambda m, x, y: m.linalg.solve(x, y, left=False),
                   lambda m, x, y: m.linalg.solve_triangular(x, y, upper=True, left=False)):
            xs = [m.tensor(a, requires_grad=True) for m in (e, t)]
            got, expected = fn(e, xs[0], e.tensor(b)), fn(t, xs[1], t.tensor(b))
            close(got, expected, 1e-10, 1e-10)
            assert got.stride() == expected.stride() and got.grad_fn.name() == expected.grad_fn.name()
            got.sum().backward(), expected.sum().backward()
            close(xs[0].grad, xs[1].grad, 1e-9, 1e-9)
    # a batch of solution vectors is laid out as torch's: the columns of one matrix per outer batch
    got, expected = (m.linalg.solve(m.tensor(random_matrices((4, 2, 3, 3), seed=17)), m.ones(3, dtype=m.float64))
                     for m in (ember, torch))
    assert got.stride() == expected.stride() == (6, 1, 2)
    x = ember.tensor(a, requires_grad=True)
    assert ember.linalg.matrix_power(x, 0).requires_grad
    assert ember.linalg.pinv(x).grad_fn.name() == "LinalgPinvBackward0"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64"])
def test_dtype_errors_as_torch(dtype):
    calls = ["m.linalg.inv(a)", "m.linalg.det(a)", "m.linalg.slogdet(a)", "m.linalg.solve(a, a)",
             "m.linalg.solve_triangular(a, a, upper=True)", "m.linalg.cholesky(a)", "m.linalg.qr(a)",
             "m.linalg.eigh(a)", "m.linalg.eigvalsh(a)", "m.linalg.matrix_power(a, -1)", "m.linalg.pinv(a)",
             "m.linalg.matrix_rank(a)", "m.logdet(a)"]
    for call in calls:
        errors = []
        for m in (torch, ember):
            a = m.eye(2, dtype=getattr(m, dtype))
            with pytest.raises(Exception) as info:
                eval(call)
            errors.append((type(info.value).__name__, str(info.value)))
        assert errors[0] == errors[1], call


def test_fuzz_findings_dtype_order_empty_and_singular_backward():
    # shapes are checked before the kernel's dtype; empty float16 never reaches a kernel (except geqrf's)
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="Incompatible shapes"):
            m.linalg.solve_triangular(m.eye(3, dtype=m.float16), m.ones(4, 0, dtype=m.float16), upper=True)
        assert m.linalg.cholesky(m.ones(0, 0, dtype=m.float16)).shape == (0, 0)
        with pytest.raises(NotImplementedError, match="geqrf_cpu"):
            m.linalg.qr(m.ones(0, 3, dtype=m.float16))
    # slogdet's gradient at a singular matrix is infinite, not an error
    grads = []
    for m in (torch, ember):
        x = m.zeros(2, 2, requires_grad=True)
        m.linalg.slogdet(x)[1].backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
