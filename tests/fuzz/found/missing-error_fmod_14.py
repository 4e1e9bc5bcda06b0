"""Fuzz reproducer (seed 10087641): missing-error at statement 2 (fmod): torch raises RuntimeError: result type Double can't be cast to the desired output type Long; ember gives ('T', 'int64', (), (), 0, True, b'\x00\x00\x0

Run: python tests/fuzz/found/missing-error_fmod_14.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v1 = m.tensor(-1, dtype=m.float64, requires_grad=True)', 'out': 'v1', 'op': 'tensor'},
    {'src': 'v2 = v1.count_nonzero(dim=-1)', 'out': 'v2', 'op': 'count_nonzero'},
    {'src': 'v3 = v2.fmod_(v1)', 'out': 'v3', 'op': 'fmod'},
]

if __name__ == "__main__":
    main(PROGRAM)
