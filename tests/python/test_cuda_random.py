"""Random numbers drawn on the GPU (Philox keyed by the default generator's seed; src/cuda/random.cu): reproducible per
seed, independent of the CPU's stream, with the right distributions, dtypes and layouts. Skipped without a GPU."""
import math

import pytest

import ember

pytestmark = pytest.mark.cuda

FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]


@pytest.mark.parametrize("make", [lambda: ember.rand(1000, device="cuda"), lambda: ember.randn(1000, device="cuda"),
                                  lambda: ember.randint(0, 100, (1000,), device="cuda")])
def test_a_seed_repeats_its_draws(make):
    ember.manual_seed(7)
    a, b = make(), make()
    ember.manual_seed(7)
    c, d = make(), make()
    assert ember.equal(a.cpu(), c.cpu()) and ember.equal(b.cpu(), d.cpu())
    assert not ember.equal(a.cpu(), b.cpu())


def test_device_draws_leave_the_cpu_stream_alone():
    ember.manual_seed(3)
    want = ember.rand(5)
    ember.manual_seed(3)
    ember.rand(100, device="cuda")
    assert ember.equal(ember.rand(5), want)


def test_rng_state_restores_device_draws():
    ember.manual_seed(5)
    ember.rand(10, device="cuda")
    state = ember.cuda.get_rng_state()
    a = ember.randn(100, device="cuda").cpu()
    ember.cuda.set_rng_state(state)
    assert ember.equal(ember.randn(100, device="cuda").cpu(), a)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_uniform(dtype):
    x = ember.empty(1 << 20, dtype=dtype, device="cuda").uniform_(-2, 3).cpu().double()
    assert x.min().item() >= -2 and x.max().item() < 3
    assert abs(x.mean().item() - 0.5) < 0.02
    assert abs(x.std().item() - 5 / math.sqrt(12)) < 0.02


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_normal(dtype):
    x = ember.empty(1 << 20, dtype=dtype, device="cuda").normal_(1.5, 2.0).cpu().double()
    assert x.isfinite().all().item()
    assert abs(x.mean().item() - 1.5) < 0.02 and abs(x.std().item() - 2.0) < 0.02
    # the tails of a normal: about 4.55% beyond 2 sigma
    assert abs(((x - 1.5).abs() > 4.0).double().mean().item() - 0.0455) < 0.003


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.uint8, ember.int8, ember.float32, ember.bool],
                         ids=str)
def test_random_integers(dtype):
    hi = 2 if dtype == ember.bool else 10
    x = ember.empty(100000, dtype=dtype, device="cuda").random_(0, hi).cpu().long()
    assert x.min().item() == 0 and x.max().item() == hi - 1
    counts = ember.bincount(x, minlength=hi).double() / x.numel()
    assert (counts - 1 / hi).abs().max().item() < 0.01


def test_randint_wide_range():
    x = ember.randint(-(2 ** 40), 2 ** 40, (10000,), device="cuda").cpu()
    assert x.min().item() >= -(2 ** 40) and x.max().item() < 2 ** 40 and x.unique().numel() == 10000


def test_non_contiguous_and_empty():
    x = ember.zeros(64, 32, device="cuda").t()
    x.uniform_()
    h = x.cpu()
    assert (h > 0).double().mean().item() > 0.99 and h.max().item() < 1
    assert ember.empty(0, device="cuda").normal_().numel() == 0


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_on_device(p):
    x = ember.ones(1 << 20, device="cuda")
    y = ember.nn.functional.dropout(x, p).cpu()
    kept = y != 0
    assert abs(1 - kept.double().mean().item() - p) < 0.01
    assert ember.allclose(y[kept], ember.full((1,), 1 / (1 - p)).expand(int(kept.sum().item())))


def test_dropout2d_drops_whole_channels():
    x = ember.ones(64, 32, 5, 5, device="cuda")
    y = ember.nn.functional.dropout2d(x, 0.5).cpu()
    per_channel = y.flatten(2)
    assert ember.equal(per_channel.amin(-1), per_channel.amax(-1))
    assert 0.4 < (per_channel[:, :, 0] == 0).double().mean().item() < 0.6


def test_dropout_backward_uses_the_same_mask():
    x = ember.ones(1000, device="cuda", requires_grad=True)
    y = ember.nn.functional.dropout(x, 0.3)
    y.sum().backward()
    assert ember.equal(x.grad.cpu(), y.detach().cpu())
