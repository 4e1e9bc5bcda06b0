"""Saving and loading: save + load of a 64 MiB float32 state dict (16 tensors of 1024x1024) to memory (BytesIO)
and to disk, the save and load halves alone, and a state dict of 2000 small tensors (64x64) through memory.

Prints ember's speed as a ratio to torch's (higher is better). Target (issue 12): at least 1.5x for save + load.
"""
import io
import os
import tempfile

import torch

import ember
from common import compare


def state_dict(lib):
    gen = torch.Generator().manual_seed(0)
    return {f"layer{i}.weight": lib.tensor(torch.randn(1024, 1024, generator=gen).numpy()) for i in range(16)}


def roundtrip_memory(lib, sd):
    buf = io.BytesIO()
    lib.save(sd, buf)
    buf.seek(0)
    return lib.load(buf, weights_only=True)


def roundtrip_disk(lib, sd, path):
    lib.save(sd, path)
    return lib.load(path, weights_only=True)


def main():
    torch.set_num_threads(ember.get_num_threads())
    esd, tsd = state_dict(ember), state_dict(torch)
    for name in esd:  # both libraries read back exactly what they wrote
        assert torch.equal(torch.from_numpy(roundtrip_memory(ember, esd)[name].numpy()), tsd[name])
    ebuf, tbuf = io.BytesIO(), io.BytesIO()
    ember.save(esd, ebuf)
    torch.save(tsd, tbuf)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"ember": ember, "torch": torch, "io": io, "esd": esd, "tsd": tsd, "ebytes": ebuf.getvalue(),
               "tbytes": tbuf.getvalue(), "rm": roundtrip_memory, "rd": roundtrip_disk,
               "ep": os.path.join(tmp, "e.pt"), "tp": os.path.join(tmp, "t.pt")}
        kw = dict(globals=env, repeat=3, min_time=0.2, rounds=5)
        compare("save+load 64 MiB, BytesIO", "rm(ember, esd)", "rm(torch, tsd)", **kw)
        compare("save+load 64 MiB, disk", "rd(ember, esd, ep)", "rd(torch, tsd, tp)", **kw)
        compare("save 64 MiB, BytesIO", "ember.save(esd, io.BytesIO())", "torch.save(tsd, io.BytesIO())", **kw)
        compare("load 64 MiB, BytesIO", "ember.load(io.BytesIO(ebytes))",
                "torch.load(io.BytesIO(tbytes), weights_only=True)", **kw)
        env.update(esmall={f"w{i}": ember.randn(64, 64) for i in range(2000)},
                   tsmall={f"w{i}": torch.randn(64, 64) for i in range(2000)})
        compare("save+load 2000 x (64, 64), BytesIO", "rm(ember, esmall)", "rm(torch, tsmall)", **kw)


if __name__ == "__main__":
    main()
