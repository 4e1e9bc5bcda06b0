"""CUDA graphs (ember.cuda.CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing) and capturable
optimizers. Without a GPU: the API's presence and torch's CPU-build errors. On a GPU (marker `cuda`): replays
against eager runs (elementwise chains, matmul, conv+BN+ReLU forward and backward, a whole training step with
capturable Adam and with SGD), static inputs updated in place between replays, private pools (sharing, statistics,
reset), random numbers that differ across replays and follow eager's sequence, and the errors torch raises."""
import gc

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F

HAS_CUDA = ember.cuda.is_available()
cuda = pytest.mark.cuda
cpu_only = pytest.mark.skipif(HAS_CUDA, reason="checks the behaviour of a machine without CUDA")


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return (type(e).__name__, str(e))


def same_error(ember_fn, torch_fn):
    e, t = outcome(ember_fn), outcome(torch_fn)
    assert e[0] != "ok" and e == t, (e, t)


def arr(t):
    return t.detach().cpu().numpy()


# ---------------------------------------------------------------- without a GPU: presence and torch's CPU errors

def test_api_present():
    for name in ("CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"):
        assert hasattr(ember.cuda, name), name
    for name in ("capture_begin", "capture_end", "replay", "reset", "pool", "instantiate", "enable_debug_mode",
                 "debug_dump"):
        assert callable(getattr(ember.cuda.CUDAGraph, name)), name


@cpu_only
def test_cpu_errors_match_torch():
    same_error(lambda: ember.cuda.CUDAGraph(), lambda: torch.cuda.CUDAGraph())
    same_error(lambda: ember.cuda.CUDAGraph(keep_graph=True), lambda: torch.cuda.CUDAGraph(keep_graph=True))
    same_error(ember.cuda.graph_pool_handle, torch.cuda.graph_pool_handle)
    same_error(ember.cuda.is_current_stream_capturing, torch.cuda.is_current_stream_capturing)
    same_error(lambda: ember.cuda.graph(None), lambda: torch.cuda.graph(None))


@cpu_only
def test_make_graphed_callables_cpu_errors_match_torch():
    same_error(lambda: ember.cuda.make_graphed_callables(lambda x: x, (1,)),
               lambda: torch.cuda.make_graphed_callables(lambda x: x, (1,)))
    same_error(lambda: ember.cuda.make_graphed_callables(lambda x: x, (ember.ones(2),)),
               lambda: torch.cuda.make_graphed_callables(lambda x: x, (torch.ones(2),)))
    em, tm = ember.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    em.register_forward_hook(lambda *a: None)
    tm.register_forward_hook(lambda *a: None)
    same_error(lambda: ember.cuda.make_graphed_callables(em, (ember.ones(2),)),
               lambda: torch.cuda.make_graphed_callables(tm, (torch.ones(2),)))
    same_error(lambda: ember.cuda.make_graphed_callables((lambda x: x, lambda x: x), (ember.ones(2),)),
               lambda: torch.cuda.make_graphed_callables((lambda x: x, lambda x: x), (torch.ones(2),)))


@cpu_only
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_capturable_on_cpu_matches_torch(name):
    ep, tp = ember.nn.Parameter(ember.ones(3)), torch.nn.Parameter(torch.ones(3))
    ep.grad, tp.grad = ember.full((3,), 0.5), torch.full((3,), 0.5)
    eo, to = getattr(ember.optim, name)([ep], capturable=True), getattr(torch.optim, name)([tp], capturable=True)
    same_error(eo.step, to.step)
    # the state torch makes before its check: a 0-dim float32 counter on the parameter's device
    es, ts = eo.state[ep]["step"], to.state[tp]["step"]
    assert (tuple(es.shape), es.dtype, es.device.type, float(es)) == (tuple(ts.shape), ember.float32, "cpu", 0.0)
    assert ts.dtype == torch.float32
    assert eo.param_groups[0]["capturable"] is True


def test_capturable_state_dict_steps_follow_the_parameter():
    p = ember.nn.Parameter(ember.ones(2))
    opt = ember.optim.Adam([p], capturable=True)
    sd = {"state": {0: {"step": ember.tensor(3.0, dtype=ember.float64), "exp_avg": ember.zeros(2),
                        "exp_avg_sq": ember.zeros(2)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    step = opt.state[p]["step"]
    assert step.dtype == ember.float32 and step.device == p.device and float(step) == 3.0


def test_non_capturable_steps_unchanged():
    # the capture check costs nothing without CUDA and leaves the eager step alone
    for name, kw in (("Adam", {}), ("AdamW", {}), ("SGD", {"momentum": 0.9})):
        ep, tp = ember.nn.Parameter(ember.arange(4.0)), torch.nn.Parameter(torch.arange(4.0))
        eo, to = getattr(ember.optim, name)([ep], lr=0.1, **kw), getattr(torch.optim, name)([tp], lr=0.1, **kw)
        for _ in range(3):
            ep.grad, tp.grad = ember.full((4,), 0.25), torch.full((4,), 0.25)
            eo.step()
            to.step()
        np.testing.assert_allclose(arr(ep), tp.detach().numpy(), rtol=1e-6)


# ---------------------------------------------------------------- on a GPU

def side_stream():
    return ember.cuda.Stream()


def capture(fn, pool=None, stream=None):
    """A graph of fn() (warmed up once on a side stream first, as torch advises) and its outputs."""
    s = side_stream()
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        fn()
    ember.cuda.current_stream().wait_stream(s)
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g, pool=pool, stream=stream):
        out = fn()
    return g, out


@cuda
def test_capture_on_default_stream_raises():
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="CUDA graphs must be captured on a non-default stream"):
        g.capture_begin()
    x = ember.ones(4, device="cuda")
    assert float((x + 1).sum()) == 8.0  # nothing broken


@cuda
def test_replay_before_capture_end_raises():
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    s = side_stream()
    x = ember.ones(4, device="cuda")
    x * 2  # warm-up: the kernels a capture records have run before
    with ember.cuda.stream(s):
        g.capture_begin()
        y = x * 2
        with pytest.raises(RuntimeError, match="without a preceding successful capture"):
            g.replay()
        g.capture_end()
    g.replay()
    ember.cuda.synchronize()
    np.testing.assert_array_equal(arr(y), np.full(4, 2.0, np.float32))
    with ember.cuda.stream(s), pytest.raises(RuntimeError, match="already owns a captured graph"):
        g.capture_begin()


@cuda
def test_bad_capture_error_mode():
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="Unknown capture error mode"):
        g.capture_begin(capture_error_mode="strict")


@cuda
@pytest.mark.parametrize("mode", ["global", "thread_local", "relaxed"])
def test_elementwise_chain_replays_with_new_inputs(mode):
    x = ember.randn(1000, 37, device="cuda")

    def chain():
        return ((x * 2 + 1).exp().sin() - x.tanh()).sum(1)

    s = side_stream()
    with ember.cuda.stream(s):
        chain()
    ember.cuda.current_stream().wait_stream(s)
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g, capture_error_mode=mode):
        y = chain()
    for k in range(4):
        new = ember.randn(1000, 37, device="cuda") * (k + 1)
        x.copy_(new)  # static input, updated in place
        g.replay()
        np.testing.assert_allclose(arr(y), arr(chain()), rtol=1e-6, atol=1e-6)


@cuda
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_matmul(dtype):
    a = ember.randn(128, 64, device="cuda").to(getattr(ember, dtype))
    b = ember.randn(64, 96, device="cuda").to(getattr(ember, dtype))
    g, out = capture(lambda: (a @ b).relu() @ b.t())
    for _ in range(3):
        a.copy_(ember.randn(128, 64, device="cuda"))
        g.replay()
        tol = 1e-5 if dtype == "float32" else 1e-2
        np.testing.assert_allclose(arr(out.float()), arr(((a @ b).relu() @ b.t()).float()), rtol=tol, atol=tol)


@cuda
def test_replay_on_default_stream_and_twice_in_a_row():
    x = ember.zeros(10, device="cuda")
    g, _ = capture(lambda: x.add_(1))
    base = float(x[0])
    for _ in range(5):
        g.replay()
    assert float(x[0]) == base + 5


def conv_bn_relu():
    nn = ember.nn
    ember.manual_seed(3)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 4, 3)).cuda()


@cuda
def test_conv_bn_relu_forward_backward():
    ember.backends.cudnn.deterministic = True
    try:
        model, ref = conv_bn_relu(), conv_bn_relu()
        x = ember.randn(8, 3, 16, 16, device="cuda")

        def fwd_bwd(m, inp):
            out = m(inp)
            out.square().mean().backward()
            return out

        s = side_stream()
        s.wait_stream(ember.cuda.current_stream())
        with ember.cuda.stream(s):
            for _ in range(2):
                model.zero_grad(set_to_none=True)
                fwd_bwd(model, x)
        ember.cuda.current_stream().wait_stream(s)
        for _ in range(2):  # the same history on the reference
            ref.zero_grad(set_to_none=True)
            fwd_bwd(ref, x)
        model.zero_grad(set_to_none=True)
        g = ember.cuda.CUDAGraph()
        with ember.cuda.graph(g):
            out = fwd_bwd(model, x)
        for k in range(3):
            new = ember.randn(8, 3, 16, 16, device="cuda") + k
            x.copy_(new)
            g.replay()
            ref.zero_grad(set_to_none=True)
            expect = fwd_bwd(ref, new)
            np.testing.assert_allclose(arr(out), arr(expect), rtol=1e-5, atol=1e-5)
            for (name, p), q in zip(model.named_parameters(), ref.parameters()):
                np.testing.assert_allclose(arr(p.grad), arr(q.grad), rtol=1e-4, atol=1e-5, err_msg=name)
            for b, c in zip(model.buffers(), ref.buffers()):
                np.testing.assert_allclose(arr(b), arr(c), rtol=1e-5, atol=1e-6)
    finally:
        ember.backends.cudnn.deterministic = False


def small_cnn():
    nn = ember.nn
    ember.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout2d(0.25),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout2d(0.25),
        nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 10)).cuda()


def batches(n, batch=32, seed=5):
    rng = np.random.default_rng(seed)
    return [(ember.from_numpy(rng.standard_normal((batch, 3, 16, 16)).astype(np.float32)).cuda(),
             ember.from_numpy(rng.integers(0, 10, batch)).cuda()) for _ in range(n)]


@cuda
@pytest.mark.parametrize("make_opt", [
    lambda p: ember.optim.Adam(p, lr=1e-2, capturable=True),
    lambda p: ember.optim.AdamW(p, lr=1e-2, capturable=True, amsgrad=True),
    lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
], ids=["adam", "adamw_amsgrad", "sgd"])
def test_training_step_replays_match_eager(make_opt):
    """The seed CNN's kind of training step (dropout included) captured whole: 5 replays against 5 eager steps of an
    identical model, seeded alike, so the dropout masks must match too."""
    ember.backends.cudnn.deterministic = True
    try:
        model, ref = small_cnn(), small_cnn()
        opt, ref_opt = make_opt(model.parameters()), make_opt(ref.parameters())
        warm, data = batches(3, seed=1), batches(5, seed=2)
        x, y = ember.zeros_like(warm[0][0]), ember.zeros_like(warm[0][1])

        def step(m, o, inp, target):
            o.zero_grad(set_to_none=True)
            loss = F.cross_entropy(m(inp), target)
            loss.backward()
            o.step()
            return loss

        ember.manual_seed(11)
        s = side_stream()
        s.wait_stream(ember.cuda.current_stream())
        with ember.cuda.stream(s):
            for wx, wy in warm:
                x.copy_(wx)
                y.copy_(wy)
                step(model, opt, x, y)
        ember.cuda.current_stream().wait_stream(s)
        ember.manual_seed(11)
        for wx, wy in warm:
            step(ref, ref_opt, wx, wy)

        opt.zero_grad(set_to_none=True)
        g = ember.cuda.CUDAGraph()
        with ember.cuda.graph(g):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()

        ember.manual_seed(12)
        replayed = []
        for bx, by in data:
            x.copy_(bx)
            y.copy_(by)
            g.replay()
            replayed.append(float(loss))
        ember.manual_seed(12)
        eager = [float(step(ref, ref_opt, bx, by)) for bx, by in data]
        np.testing.assert_allclose(replayed, eager, rtol=1e-4)
        for (name, p), q in zip(model.named_parameters(), ref.parameters()):
            np.testing.assert_allclose(arr(p), arr(q), rtol=1e-4, atol=1e-5, err_msg=name)
        assert replayed[0] != replayed[-1]  # it trained
    finally:
        ember.backends.cudnn.deterministic = False


@cuda
def test_capturing_a_non_capturable_adam_step_raises():
    p = ember.nn.Parameter(ember.ones(4, device="cuda"))
    p.grad = ember.ones(4, device="cuda")
    opt = ember.optim.Adam([p])
    opt.step()
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="Attempting CUDA graph capture of step\\(\\) for an instance of Adam but "
                                           "param_groups' capturable is False."):
        with ember.cuda.graph(g):
            opt.step()


@cuda
def test_is_current_stream_capturing():
    assert ember.cuda.is_current_stream_capturing() is False
    g = ember.cuda.CUDAGraph()
    x = ember.ones(3, device="cuda")
    x.mul_(1)
    with ember.cuda.graph(g):
        inside = ember.cuda.is_current_stream_capturing()
        x.mul_(2)
    assert inside is True and ember.cuda.is_current_stream_capturing() is False


@cuda
@pytest.mark.parametrize("op", ["item", "cpu", "nonzero", "str", "synchronize", "tolist"])
def test_host_sync_in_capture_raises_and_leaves_process_usable(op):
    x = ember.arange(6.0, device="cuda")
    ops = {"item": lambda: x.sum().item(), "cpu": lambda: x.cpu(), "nonzero": lambda: (x > 2).nonzero(),
           "str": lambda: str(x), "synchronize": ember.cuda.synchronize, "tolist": lambda: x.tolist()}
    x.add_(0)
    x.sum(), x > 2
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="operation not permitted when stream is capturing"):
        with ember.cuda.graph(g):
            x.add_(1)
            ops[op]()
    # the graph holds no capture; the process and later captures work
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    g2, out = capture(lambda: x * 3)
    g2.replay()
    assert out.tolist() == [0.0, 3.0, 6.0, 9.0, 12.0, 15.0]


@cuda
def test_recapture_after_a_failed_capture():
    x = ember.ones(3, device="cuda")
    x.add_(0)
    x.sum()
    g = ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="operation not permitted when stream is capturing"):
        with ember.cuda.graph(g):
            x.sum().item()
    with ember.cuda.graph(g):
        x.add_(1)
    g.replay()
    assert x.tolist() == [2.0, 2.0, 2.0]


@cuda
def test_manual_capture_end_raises_after_sync():
    g = ember.cuda.CUDAGraph()
    x = ember.ones(3, device="cuda")
    x.add_(0)
    x.sum()
    with ember.cuda.stream(side_stream()):
        g.capture_begin()
        x.add_(1)
        with pytest.raises(RuntimeError, match="operation not permitted when stream is capturing"):
            x.sum().item()
        with pytest.raises(RuntimeError):
            g.capture_end()
    assert x.tolist() == [1.0, 1.0, 1.0]


@cuda
def test_empty_cache_during_capture_is_a_no_op():
    x = ember.ones(1 << 20, device="cuda")
    (x * 2) + 1
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g):
        y = x * 2
        ember.cuda.empty_cache()
        z = y + 1
    g.replay()
    assert float(z.sum()) == 3.0 * (1 << 20)


@cuda
def test_dropout_and_rand_follow_the_eager_sequence():
    x = ember.ones(4096, device="cuda")
    g = ember.cuda.CUDAGraph()
    F.dropout(x, 0.5), ember.rand(1000, device="cuda"), ember.randn(333, device="cuda")
    with ember.cuda.graph(g):
        d = F.dropout(x, 0.5)
        r = ember.rand(1000, device="cuda")
        n = ember.randn(333, device="cuda")
    ember.manual_seed(7)
    got = []
    for _ in range(3):
        g.replay()
        got.append((arr(d).copy(), arr(r).copy(), arr(n).copy()))
    after = arr(ember.rand(5, device="cuda"))
    ember.manual_seed(7)
    expect = [(arr(F.dropout(x, 0.5)), arr(ember.rand(1000, device="cuda")), arr(ember.randn(333, device="cuda")))
              for _ in range(3)]
    for (gd, gr, gn), (ed, er, en) in zip(got, expect):
        np.testing.assert_array_equal(gd, ed)
        np.testing.assert_array_equal(gr, er)
        np.testing.assert_array_equal(gn, en)
    assert not np.array_equal(got[0][0], got[1][0]) and not np.array_equal(got[0][1], got[1][1])
    np.testing.assert_array_equal(after, arr(ember.rand(5, device="cuda")))  # the generator moved as eager's


@cuda
def test_capture_draws_nothing_from_the_generator():
    ember.rand(100, device="cuda")
    ember.manual_seed(3)
    state = ember.cuda.get_rng_state()
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g):
        ember.rand(100, device="cuda")
    assert ember.equal(ember.cuda.get_rng_state(), state)


@cuda
def test_pool_sharing():
    x = ember.randn(256, 256, device="cuda")
    g1, y1 = capture(lambda: x.exp() * 2)
    g2, y2 = capture(lambda: y1.sin() + 1, pool=g1.pool())
    handle = ember.cuda.graph_pool_handle()
    g3, y3 = capture(lambda: x.cos(), pool=handle)
    g4, y4 = capture(lambda: y3 * y3, pool=handle)
    assert g2.pool() == g1.pool() and g3.pool() == handle == g4.pool() and g1.pool() != handle
    for _ in range(2):
        x.copy_(ember.randn(256, 256, device="cuda"))
        for g in (g1, g2, g3, g4):
            g.replay()
        np.testing.assert_allclose(arr(y2), arr((x.exp() * 2).sin() + 1), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(arr(y4), arr(x.cos() * x.cos()), rtol=1e-6, atol=1e-6)


@cuda
def test_pool_memory_stays_reserved_until_reset():
    mib = 1 << 20
    gc.collect()  # earlier tests' graphs (in reference cycles) release their pools before the baseline
    ember.cuda.synchronize()
    ember.cuda.empty_cache()
    base_alloc, base_res = ember.cuda.memory_allocated(), ember.cuda.memory_reserved()
    x = ember.ones(4 * mib, device="cuda")  # 16 MiB
    x + 1
    after_x = ember.cuda.memory_allocated()
    g = ember.cuda.CUDAGraph()
    ptrs = []
    with ember.cuda.graph(g):
        for _ in range(4):  # 32 MiB blocks, freed and reused within the pool: one block
            t = ember.empty(8 * mib, device="cuda")
            ptrs.append(t.data_ptr())
            del t
        out = x + 1  # 16 MiB: too small for the free 32 MiB block, a block of its own
    assert len(set(ptrs)) == 1 and out.data_ptr() not in ptrs
    reserved = ember.cuda.memory_reserved()
    assert reserved >= base_res + 64 * mib  # x, the intermediate, out
    # out alone is live, beside the graph's 2-element buffer for random offsets
    assert after_x + 16 * mib <= ember.cuda.memory_allocated() <= after_x + 16 * mib + 4096
    # the pool's free block is not handed to work outside the capture, even on its stream, nor returned by
    # empty_cache
    with ember.cuda.stream(graph_stream()):
        other = ember.empty(8 * mib, device="cuda")
    assert other.data_ptr() not in ptrs
    del other
    ember.cuda.empty_cache()
    assert ember.cuda.memory_reserved() >= base_res + 64 * mib
    g.replay()
    assert float(out.sum()) == 2.0 * 4 * mib
    del out
    ember.cuda.empty_cache()
    assert ember.cuda.memory_reserved() >= base_res + 64 * mib  # the graph still holds its pool
    g.reset()
    del x
    ember.cuda.synchronize()
    ember.cuda.empty_cache()
    assert ember.cuda.memory_allocated() == base_alloc
    assert ember.cuda.memory_reserved() == base_res
    assert ember.cuda.memory_stats()["allocated_bytes.all.current"] == base_alloc


def graph_stream():
    """The side stream ember.cuda.graph captures on by default."""
    return ember.cuda.graph.default_capture_stream


@cuda
def test_keep_graph_and_debug_dump(tmp_path):
    x = ember.ones(8, device="cuda")
    x * 5
    g = ember.cuda.CUDAGraph(keep_graph=True)
    g.enable_debug_mode()
    with ember.cuda.graph(g):
        y = x * 5
    g.instantiate()
    g.replay()
    assert y.tolist() == [5.0] * 8
    path = tmp_path / "graph.dot"
    g.debug_dump(str(path))
    assert path.read_text().startswith("digraph")


def mlp():
    nn = ember.nn
    ember.manual_seed(4)
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).cuda()


@cuda
def test_make_graphed_callables_module_and_function():
    model, ref = mlp(), mlp()
    head_w = ember.randn(5, 3, device="cuda", requires_grad=True)
    ref_w = head_w.detach().clone().requires_grad_(True)

    def head(h):
        return (h @ head_w).tanh()

    def ref_head(h):
        return (h @ ref_w).tanh()

    x0 = ember.randn(16, 20, device="cuda")
    h0 = ember.randn(16, 5, device="cuda", requires_grad=True)
    graphed_model, graphed_head = ember.cuda.make_graphed_callables((model, head), ((x0,), (h0,)))
    assert graphed_model is model
    for k in range(3):
        x = ember.randn(16, 20, device="cuda") * (k + 1)
        out = graphed_head(graphed_model(x))
        out.square().sum().backward()
        expect = ref_head(ref(x))
        expect.square().sum().backward()
        np.testing.assert_allclose(arr(out), arr(expect), rtol=1e-5, atol=1e-6)
        for p, q in zip(list(model.parameters()) + [head_w], list(ref.parameters()) + [ref_w]):
            np.testing.assert_allclose(arr(p.grad), arr(q.grad), rtol=1e-4, atol=1e-5)  # accumulated alike
    model.eval()  # another training flag: the eager forward
    x = ember.randn(4, 20, device="cuda")
    np.testing.assert_allclose(arr(model(x)), arr(ref(x)), rtol=1e-5, atol=1e-6)


@cuda
def test_make_graphed_callables_input_gradient():
    w = ember.randn(8, 8, device="cuda", requires_grad=True)

    def fn(a, b):
        return a @ w + b.sin(), (a * b).sum()

    a0 = ember.randn(4, 8, device="cuda", requires_grad=True)
    b0 = ember.randn(4, 8, device="cuda")
    g = ember.cuda.make_graphed_callables(fn, (a0, b0), num_warmup_iters=2)
    a = ember.randn(4, 8, device="cuda", requires_grad=True)
    b = ember.randn(4, 8, device="cuda")
    y, s = g(a, b)
    (y.sum() + s).backward()
    ga, gw = arr(a.grad), arr(w.grad)
    a2 = a.detach().clone().requires_grad_(True)
    w.grad = None
    y2, s2 = a2 @ w + b.sin(), (a2 * b).sum()
    (y2.sum() + s2).backward()
    np.testing.assert_allclose(arr(y), arr(y2), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ga, arr(a2.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, arr(w.grad), rtol=1e-5, atol=1e-6)


@cuda
def test_forked_streams_join_the_capture():
    """Work forked to a second stream inside the capture (events recorded and waited on) is captured too, and its
    allocations come from the graph's pool."""
    x = ember.randn(1000, device="cuda")
    other = side_stream()
    x * 3, x + 1
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g):
        main = ember.cuda.current_stream()
        other.wait_stream(main)
        with ember.cuda.stream(other):
            a = x * 3
            assert ember.cuda.is_current_stream_capturing()
        b = x + 1
        main.wait_stream(other)
        c = a + b
    for _ in range(2):
        x.copy_(ember.randn(1000, device="cuda"))
        g.replay()
        np.testing.assert_allclose(arr(c), arr(x * 3 + (x + 1)), rtol=1e-6, atol=1e-6)


@cuda
def test_record_stream_and_frees_during_capture():
    """A block freed during the capture while recorded on another stream waits for the capture's end; a block from
    before the capture freed inside it goes back to the common cache. Both end up returned to the driver."""
    gc.collect()
    ember.cuda.synchronize()
    ember.cuda.empty_cache()
    base_alloc, base_res = ember.cuda.memory_allocated(), ember.cuda.memory_reserved()
    before = ember.ones(1 << 16, device="cuda")
    x = ember.ones(1 << 16, device="cuda")
    other = side_stream()
    x * 2
    g = ember.cuda.CUDAGraph()
    with ember.cuda.graph(g):
        t = x * 2
        t.record_stream(other)
        out = t + 1
        del t, before
    g.replay()
    ember.cuda.synchronize()
    assert float(out.sum()) == 3.0 * (1 << 16)
    g.reset()
    del out, x
    ember.cuda.synchronize()
    ember.cuda.empty_cache()
    assert ember.cuda.memory_allocated() == base_alloc
    assert ember.cuda.memory_reserved() == base_res


@cuda
def test_out_of_memory_during_capture_keeps_the_cache():
    x = ember.ones(1024, device="cuda")
    x * 2
    total = ember.cuda.mem_get_info()[1]
    g = ember.cuda.CUDAGraph()
    before = ember.cuda.memory_stats()
    with pytest.raises(ember.cuda.OutOfMemoryError):
        with ember.cuda.graph(g):
            x * 2
            ember.empty(int(total), dtype=ember.uint8, device="cuda")  # more than the device has
    after = ember.cuda.memory_stats()
    assert after["num_ooms"] == before["num_ooms"] + 1
    assert after["num_alloc_retries"] == before["num_alloc_retries"]  # no cache freed to retry
    y = x * 2  # the process carries on
    assert float(y.sum()) == 2048.0


@cuda
@pytest.mark.parametrize("dtype,strided", [("float32", False), ("float64", False), ("float32", True),
                                           ("float16", False)])
@pytest.mark.parametrize("kw", [{}, {"amsgrad": True}, {"weight_decay": 0.1}, {"maximize": True}],
                         ids=["plain", "amsgrad", "decay", "maximize"])
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_capturable_adam_matches_the_fused_step(name, kw, dtype, strided):
    """Eager capturable steps (the fused CUDA kernel for contiguous float32/float64, tensor ops otherwise) against
    the non-capturable fused step."""
    rng = np.random.default_rng(0)
    init = rng.standard_normal((6, 5)).astype(np.float32)
    grads = [rng.standard_normal((6, 5)).astype(np.float32) for _ in range(5)]

    def run(capturable):
        p = ember.from_numpy(init).to(getattr(ember, dtype)).cuda()
        p = (p.t().contiguous().t() if strided else p).requires_grad_(True)
        opt = getattr(ember.optim, name)([p], lr=0.05, capturable=capturable, **kw)
        for g in grads:
            grad = ember.from_numpy(g).to(p.dtype).cuda()
            p.grad = grad.t().contiguous().t() if strided else grad
            opt.step()
        return arr(p.float()), opt.state[p]["step"]

    got, step = run(True)
    expect, _ = run(False)
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(got, expect, rtol=tol, atol=tol)
    assert step.device.type == "cuda" and float(step) == 5.0


@cuda
def test_capturable_adam_mixed_group():
    """One group of float32, float64, float16, strided and empty parameters: each dtype's fused pass, the tensor-op
    path for the rest, every counter moved once per step."""
    rng = np.random.default_rng(1)
    shapes = [(7, 3), (4,), (5, 2), (3, 4), (0, 3)]
    dtypes = ["float32", "float64", "float16", "float32", "float32"]
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    def run(capturable):
        ps = []
        for k, (a, dt) in enumerate(zip(init, dtypes)):
            p = ember.from_numpy(a).to(getattr(ember, dt)).cuda()
            ps.append((p.t().contiguous().t() if k == 3 else p).requires_grad_(True))
        opt = ember.optim.AdamW(ps, lr=0.01, capturable=capturable)
        for step in range(3):
            for p in ps:
                p.grad = (ember.ones(p.shape, device="cuda") * (step + 1)).to(p.dtype)
            opt.step()
        return [arr(p.float()) for p in ps], [float(opt.state[p]["step"]) for p in ps]

    got, steps = run(True)
    expect, _ = run(False)
    assert steps == [3.0] * 5
    for g, e, dt in zip(got, expect, dtypes):
        tol = 1e-2 if dt == "float16" else 1e-5
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)
