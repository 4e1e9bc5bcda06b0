"""Benchmark helpers: time ember and torch in one process, report medians and ratios."""
import statistics
import time


def median_time(fn, *, repeat=7, min_time=0.05):
    """Median seconds per call of fn over `repeat` rounds of enough calls to last `min_time`."""
    fn()
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - start >= min_time / 4 or n >= 1 << 20:
            break
        n *= 2
    n = max(1, int(n * (min_time / 4) / max(time.perf_counter() - start, 1e-9)))
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - start) / n)
    return statistics.median(rounds)


def compare(name, ember_fn, torch_fn, **kw):
    """Times both (interleaved rounds), prints a row, returns ember speed / torch speed."""
    te, tt = [], []
    for _ in range(3):
        te.append(median_time(ember_fn, **kw))
        tt.append(median_time(torch_fn, **kw))
    e, t = statistics.median(te), statistics.median(tt)
    ratio = t / e
    print(f"{name:38s} ember {fmt(e):>10s}  torch {fmt(t):>10s}  speed ratio {ratio:6.2f}x  (time ratio {e / t:.2f})")
    return ratio


def fmt(seconds):
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms"
