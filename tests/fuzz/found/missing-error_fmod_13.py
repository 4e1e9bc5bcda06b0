"""Fuzz reproducer (seed 10087641): missing-error at statement 3 (fmod): torch raises RuntimeError: result type Double can't be cast to the desired output type Long; ember gives ('T', 'int64', (), (), 0, True, b'\x00\x00\x0

Run: python tests/fuzz/found/missing-error_fmod_13.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[[0.0, -2, math.nan, -2.84, 1.37], [2.03, 2.45, -2.73, 3, math.inf], [-math.inf, 1.97, -1.25, 3, -3.25], [2, 0, 1.5, 2.5, 0.6]], [[3, 3.75, 4, -0.63, -1.83], [2.09, 1.89, 4.0, -1.47, -math.inf], [-2.5, 2.5, 3.5, 2.7, 0], [4, 2.46, -4, 1, 1.8]], [[0, -1.73, -1.75, 1.27, -2.63], [-0.0, 4.0, 3, math.inf, 1.25], [0.5, -2.86, -2.5, 0, -1.75], [1.46, 2.35, 2.21, 1.82, 3.5]], [[-0.25, 1.75, -0.86, -1.43, -1.81], [3.5, 2.09, -1.25, math.nan, -2.82], [1.75, -1.02, 1, 3.5, 1.5], [-1, 1, 1.0, 2.25, 0.5]]], dtype=m.float64, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v1 = m.tensor(-1, dtype=m.float64, requires_grad=True)', 'out': 'v1', 'op': 'tensor'},
    {'src': 'v2 = v1.count_nonzero(dim=-1)', 'out': 'v2', 'op': 'count_nonzero'},
    {'src': 'v3 = v2.fmod_(v1)', 'out': 'v3', 'op': 'fmod'},
]

if __name__ == "__main__":
    main(PROGRAM)
