"""Every op of the op database on CUDA against Ember's CPU result: the same samples, dtypes, layouts (built on the
device, so transposed, expanded and offset inputs stay strided there) and forms (function, method, in-place,
out=). Values within the op's tolerance, dtype, shape and (where the op declares them) strides must agree, and a
case that raises on the CPU must raise the same exception type on CUDA. Skipped without a GPU."""
import pytest

import ember
import opdb
from conftest import outcome
from opdb import torch_one_thread  # noqa: F401 - autouse fixture

pytestmark = [pytest.mark.cuda, pytest.mark.filterwarnings("ignore::UserWarning")]


class _OnCuda:
    """ember, with the factories the op database builds tensors through placing them on the GPU."""

    def __getattr__(self, name):
        return getattr(ember, name)

    @staticmethod
    def from_numpy(a):
        return ember.from_numpy(a).cuda()

    @staticmethod
    def empty(*size, **kwargs):
        return ember.empty(*size, device="cuda", **kwargs)


ON_CUDA = _OnCuda()


@pytest.fixture(autouse=True)
def full_float32_convolutions():
    """Convolutions in full float32, as the CPU computes them (cuDNN's default, as torch's, allows TF32)."""
    saved = ember.backends.cudnn.allow_tf32
    ember.backends.cudnn.allow_tf32 = False
    yield
    ember.backends.cudnn.allow_tf32 = saved
# Products rounded to float16/bfloat16 at every step depend on the order the device multiplies in (as torch's).
ORDER_SENSITIVE = {"prod", "cumprod"}


def _same(op, c, g, dtype):
    """CUDA result g equals CPU result c: tensors (compared on the host), tuples of them, or Python values."""
    if isinstance(c, ember.Tensor):
        assert isinstance(g, ember.Tensor) and g.is_cuda, f"expected a CUDA tensor, got {g!r}"
        assert (g.dtype, g.shape) == (c.dtype, c.shape), ((g.dtype, g.shape), (c.dtype, c.shape))
        if op.check_strides and c.numel() > 1:
            assert g.stride() == c.stride(), (g.stride(), c.stride())
        # the tolerance of the precision computed in: the result's, the case dtype's, float32 for integers
        kinds = {str(c.dtype)[6:], dtype if dtype in opdb.FLOATS else "float32"}
        rtol, atol = (max(op.tol.get(k, (0, 0))[i] for k in kinds) for i in (0, 1))
        if op.name in ORDER_SENSITIVE and dtype in ("float16", "bfloat16"):
            rtol = max(rtol, 0.1)
        h = g.cpu()
        if c.dtype.is_floating_point and str(c.dtype) not in ("torch.float8_e4m3fn", "torch.float8_e5m2"):
            assert ember.allclose(h.double(), c.double(), rtol=rtol, atol=atol, equal_nan=True), (h, c)
        else:
            assert ember.equal(h, c), (h, c)
    elif isinstance(c, (tuple, list)):
        assert isinstance(g, (tuple, list)) and len(g) == len(c)
        for a, b in zip(g, c):
            _same(op, b, a, dtype)
    else:
        assert g == c or (g != g and c != c), (g, c)


def run_cuda_case(op, dtype, sample, form, out_dtype=None):
    fn = op.callable(ember, form)
    cpu_args, cpu_kwargs = sample.build(ember, dtype)
    gpu_args, gpu_kwargs = sample.build(ON_CUDA, dtype)
    if form == "out":
        expected, _ = outcome(lambda: op.callable(ember, "fn")(*cpu_args, **cpu_kwargs))
        if isinstance(expected, tuple) or expected is None:
            return
        kind = out_dtype or str(expected.dtype)[6:]
        cpu_kwargs, gpu_kwargs = dict(cpu_kwargs, out_dtype=kind), dict(gpu_kwargs, out_dtype=kind)
        cpu_fn, gpu_fn = (lambda m: lambda *a, **k: opdb._call_out(m, op.callable(ember, "fn"), a, k))(ember), \
            (lambda m: lambda *a, **k: opdb._call_out(m, op.callable(ember, "fn"), a, k))(ON_CUDA)
    else:
        cpu_fn = gpu_fn = fn
    c, ce = outcome(lambda: cpu_fn(*cpu_args, **cpu_kwargs))
    g, ge = outcome(lambda: gpu_fn(*gpu_args, **gpu_kwargs))
    if ge is not None and ce is None and "to be on cpu, but it's on cuda" in str(ge):
        return  # an argument torch reads on the host (tensor_split's indices) must stay there, as in torch
    if ge is not None and any(k in str(ge) for k in CUDA_ONLY_DTYPE_ERRORS):
        return  # torch's CUDA lacks this dtype (integer matmul, convolution) and raises first, as Ember's CUDA does
    if ce is not None:
        assert ge is not None, f"the CPU raised {ce!r}; CUDA returned {g!r}"
        assert type(ge) is type(ce), f"CUDA raised {ge!r}, the CPU {ce!r}"
        return
    assert ge is None, f"CUDA raised {ge!r}, the CPU returned"
    _same(op, c, g, dtype)


# Errors of torch's CUDA kernels for dtypes its CPU ones take: "<kernel>_cuda" and the dilated convolution's.
CUDA_ONLY_DTYPE_ERRORS = ('_cuda" not implemented for', '"slow_conv_dilated<>" not implemented for')


def _params():
    for op in opdb.OPS:
        for dtype in opdb.DTYPES:
            group = [c for c in opdb.cases(op, dtype) if not op.xfail(dtype, c[0].name, c[1])]
            yield pytest.param(op, dtype, group, id=f"{op.name}-{dtype}")


@pytest.mark.parametrize("op,dtype,group", list(_params()))
def test_cuda_matches_cpu(op, dtype, group):
    opdb.run_group(op, dtype, group, runner=run_cuda_case)
