"""Benchmark helpers: time ember and torch in one process, report medians and ratios."""
import statistics
import time
import timeit


def median_time(fn, *, repeat=7, min_time=0.05, globals=None):
    """Median seconds per call over `repeat` rounds. `fn` is a callable or a statement string
    (strings are timed with timeit, without a Python call around them)."""
    timer = timeit.Timer(fn, globals=globals) if isinstance(fn, str) else timeit.Timer(fn)
    n, elapsed = 1, 0.0
    while elapsed < min_time / 4 and n < 1 << 22:
        n *= 2
        elapsed = timer.timeit(n)
    n = max(1, int(n * (min_time / 4) / max(elapsed, 1e-9)))
    return statistics.median(timer.timeit(n) / n for _ in range(repeat))


def device_seconds(fn, sync, calls):
    """Seconds per call of `fn` over `calls` calls whose work is queued on a device, between two `sync()`s."""
    sync()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - start) / calls


def device_time(fn, sync, *, repeat=7, min_time=0.05):
    """Median seconds per call of device work (after a warm-up call): each of `repeat` rounds runs enough calls to
    take about `min_time` and ends with a synchronisation."""
    calls = max(1, int(min_time / max(device_seconds(fn, sync, 1), 1e-7)))
    return statistics.median(device_seconds(fn, sync, calls) for _ in range(repeat))


def compare(name, ember_fn, torch_fn, *, globals=None, rounds=7, **kw):
    """Times both in `rounds` interleaved rounds (the shared machine's speed drifts: short
    alternating rounds expose both to the same conditions), prints a row, returns ember speed /
    torch speed from the medians."""
    te, tt = [], []
    kw.setdefault("repeat", 3)
    for _ in range(rounds):
        te.append(median_time(ember_fn, globals=globals, **kw))
        tt.append(median_time(torch_fn, globals=globals, **kw))
    e, t = statistics.median(te), statistics.median(tt)
    ratio = t / e
    print(f"{name:34s} ember {fmt(e):>10s}  torch {fmt(t):>10s}  speed ratio {ratio:6.2f}x  (time ratio {e / t:.2f})")
    return ratio


def fmt(seconds):
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms"


def gpu_missing(bench):
    """True (after saying so) where ember or torch sees no CUDA GPU: the CUDA benches then skip cleanly."""
    import torch

    import ember
    if ember.cuda.is_available() and torch.cuda.is_available():
        return False
    print(f"{bench}: skipped, needs a CUDA GPU that both ember and torch see")
    return True
