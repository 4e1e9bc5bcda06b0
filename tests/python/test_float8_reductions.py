"""Float8 reductions, scans and counts: torch builds no kernel for them (CPU or CUDA), so each raises its
NotImplementedError (same message) wherever torch's kernel would run, and succeeds where torch skips it (empty
inputs, a dtype= conversion first, all/any)."""
import pytest
import torch

import ember
from conftest import assert_same, outcome


def _cases(m, f8):
    z = lambda *s: m.zeros(*s, dtype=f8)  # noqa: E731
    x = lambda: m.arange(12, dtype=m.float32).reshape(3, 4).div(4).to(f8)  # noqa: E731
    return {
        "sum": lambda: x().sum(), "sum_dim": lambda: x().sum(0), "sum_0d": lambda: z(()).sum(),
        "sum_empty": lambda: z(0).sum(), "sum_empty_dim": lambda: z(0, 3).sum(0),
        "sum_bad_dim": lambda: z(2).sum(5), "sum_dtype": lambda: x().sum(dtype=m.float32),
        "sum_into_f8": lambda: m.zeros(3).sum(dtype=f8), "sum_out": lambda: m.sum(x(), 0, out=z(4)),
        "sum_out_f32": lambda: m.sum(x(), 0, out=m.zeros(4)),
        "prod": lambda: x().prod(), "prod_dim": lambda: x().prod(1), "prod_empty": lambda: z(0).prod(),
        "prod_dtype": lambda: x().prod(dtype=m.float64),
        "mean": lambda: x().mean(), "mean_empty": lambda: z(0).mean(), "mean_dtype": lambda: x().mean(dtype=m.float32),
        "mean_into_f8": lambda: m.zeros(3).mean(dtype=f8),
        "nansum": lambda: x().nansum(), "nansum_empty": lambda: z(0).nansum(),
        "nansum_dtype": lambda: x().nansum(dtype=m.float32), "nanmean": lambda: x().nanmean(),
        "amax": lambda: x().amax(), "amin_dim": lambda: x().amin(0), "amax_0d": lambda: z(()).amax(),
        "amax_empty_kept": lambda: z(0, 3).amax(1), "amax_empty": lambda: z(0).amax(),
        "max": lambda: x().max(), "min": lambda: x().min(), "max_empty": lambda: z(0).max(),
        "min_empty_out": lambda: m.min(z(0), out=z(0)),
        "max_dim": lambda: x().max(0), "min_dim": lambda: x().min(1), "max_dim_empty": lambda: z(0, 3).max(1),
        "max_dim_empty_reduced": lambda: z(0, 3).max(0),
        "max_out": lambda: m.max(x(), 0, out=(z(4), m.zeros(4, dtype=m.int64))),
        "argmax": lambda: x().argmax(), "argmin_dim": lambda: x().argmin(0), "argmax_one": lambda: z(1).argmax(),
        "argmax_empty": lambda: z(0, 3).argmax(1), "argmax_bad_dim": lambda: z(3).argmax(4),
        "aminmax": lambda: m.aminmax(x()), "aminmax_dim": lambda: m.aminmax(x(), dim=0),
        "aminmax_empty": lambda: m.aminmax(z(0, 3), dim=1), "aminmax_empty_reduced": lambda: m.aminmax(z(0, 3), dim=0),
        "cumsum": lambda: x().cumsum(0), "cumprod": lambda: x().cumprod(1), "cumsum_one": lambda: z(1).cumsum(0),
        "cumsum_empty": lambda: z(0).cumsum(0), "cumsum_0d": lambda: z(()).cumsum(0),
        "cumsum_dtype": lambda: x().cumsum(0, dtype=m.float32), "cumsum_into_f8": lambda: m.zeros(3).cumsum(0, dtype=f8),
        "cumsum_bad_dim": lambda: z(3).cumsum(3),
        "count_nonzero": lambda: m.count_nonzero(x()), "count_nonzero_empty": lambda: m.count_nonzero(z(0)),
        "count_nonzero_dim": lambda: m.count_nonzero(x(), 0),
        "nonzero": lambda: x().nonzero(), "nonzero_empty": lambda: z(0).nonzero(), "argwhere": lambda: m.argwhere(x()),
        "where_one": lambda: m.where(x()),
        "std": lambda: x().std(), "var_dims_all": lambda: x().var((0, 1)), "var_0d": lambda: z(()).var(),
        "std_dim": lambda: x().std(0), "std_empty": lambda: z(0).std(), "std_mean": lambda: m.std_mean(x()),
        "var_mean_dim": lambda: m.var_mean(x(), 0),
        "logsumexp": lambda: x().logsumexp(0),
        "all": lambda: x().all(), "any_dim": lambda: x().any(1),
    }


NAMES = list(_cases(torch, torch.float8_e4m3fn))


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("name", NAMES)
def test_float8_reduction_matches_torch(name, dtype):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's degrees-of-freedom warning for std of one element
        t, t_err = outcome(_cases(torch, getattr(torch, dtype))[name])
        e, e_err = outcome(_cases(ember, getattr(ember, dtype))[name])
    if t_err is not None:
        assert type(e_err) is type(t_err), (e, e_err, t_err)
        if isinstance(t_err, NotImplementedError):
            assert str(e_err) == str(t_err)
        return
    assert e_err is None, e_err
    for a, b in zip(e if isinstance(e, tuple) else (e,), t if isinstance(t, tuple) else (t,)):
        assert_same(a, b, check_strides=False)
