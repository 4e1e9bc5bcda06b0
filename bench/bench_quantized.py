"""Quantized tensors: quantize_per_tensor / quantize_per_channel, dequantize and int_repr of 16M float32 values.

Prints ember's speed as a ratio to torch's (higher is better) and the bandwidth each moves against the machine's
copy bandwidth measured in the same run (a quantize reads 4 bytes and writes 1 per element: memory-bound; a fresh
output also pays its first-touch page faults, which a copy into an existing tensor does not).
"""
import warnings

import numpy as np
import torch

import ember
from common import compare, median_time

N = 16 * 1024 * 1024
ROWS = 64  # per-channel: one scale per row of (64, N / 64)


def main():
    warnings.filterwarnings("ignore", message="torch.quantize_per_tensor")
    torch.set_num_threads(ember.get_num_threads())
    x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    scales = np.linspace(0.01, 0.05, ROWS)
    zps = np.arange(ROWS, dtype=np.int64)
    env = {"ember": ember, "torch": torch, "ex": ember.from_numpy(x), "tx": torch.from_numpy(x),
           "ex2": ember.from_numpy(x).view(ROWS, -1), "tx2": torch.from_numpy(x).view(ROWS, -1),
           "es": ember.from_numpy(scales), "ts": torch.from_numpy(scales),
           "ez": ember.from_numpy(zps), "tz": torch.from_numpy(zps)}
    env["eq"] = ember.quantize_per_tensor(env["ex"], 0.02, 128, ember.quint8)
    env["tq"] = torch.quantize_per_tensor(env["tx"], 0.02, 128, torch.quint8)
    env["ecq"] = ember.quantize_per_channel(env["ex2"], env["es"], env["ez"], 0, ember.qint8)
    env["tcq"] = torch.quantize_per_channel(env["tx2"], env["ts"], env["tz"], 0, torch.qint8)
    # the results agree before they are timed
    assert np.array_equal(env["eq"].int_repr().numpy(), env["tq"].int_repr().numpy())
    assert np.array_equal(env["ecq"].int_repr().numpy(), env["tcq"].int_repr().numpy())
    assert np.array_equal(env["eq"].dequantize().numpy(), env["tq"].dequantize().numpy())
    kw = dict(globals=env, repeat=3, min_time=0.3, rounds=5)
    rows = [("quantize_per_tensor quint8, 16M", "ember.quantize_per_tensor(ex, 0.02, 128, ember.quint8)",
             "torch.quantize_per_tensor(tx, 0.02, 128, torch.quint8)", 5),
            ("quantize_per_channel qint8, 64 x 256K", "ember.quantize_per_channel(ex2, es, ez, 0, ember.qint8)",
             "torch.quantize_per_channel(tx2, ts, tz, 0, torch.qint8)", 5),
            ("dequantize per tensor, 16M", "eq.dequantize()", "tq.dequantize()", 5),
            ("dequantize per channel, 64 x 256K", "ecq.dequantize()", "tcq.dequantize()", 5),
            ("int_repr, 16M", "eq.int_repr()", "tq.int_repr()", 2)]
    out = ember.empty(N)
    copy_bw = 2 * N * 4 / median_time(lambda: out.copy_(env["ex"]), min_time=0.3)
    print(f"  copy bandwidth (ember's copy_ of 16M f32, read + write) {copy_bw / 1e9:.1f} GB/s")
    for name, e, t, bytes_per_element in rows:
        ratio = compare(name, e, t, **kw)
        bw = bytes_per_element * N / median_time(e, globals=env, repeat=3, min_time=0.3)
        print(f"  ember moves {bw / 1e9:.1f} GB/s = {100 * bw / copy_bw:.0f}% of the copy bandwidth ({ratio:.2f}x torch)")


if __name__ == "__main__":
    main()
