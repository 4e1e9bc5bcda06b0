"""Fuzz reproducer (seed 10015744): missing-error at statement 1 (clamp): torch raises NotImplementedError: "clamp_min_scalar_cpu" not implemented for 'Bool'; ember gives ('T', 'bool', (3, 5, 5), (5, 15, 1), 0, False, b'\x01

Run: python tests/fuzz/found/missing-error_clamp_3.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v1 = m.tensor([[[False, False, True, True, True], [False, True, False, True, False], [True, True, True, True, False]], [[False, False, True, True, False], [False, False, False, True, False], [False, True, True, True, True]], [[True, True, False, False, False], [False, False, True, True, False], [False, False, False, False, False]], [[False, False, False, True, True], [False, True, False, False, False], [True, False, True, True, False]], [[False, True, True, True, False], [True, False, True, False, True], [False, True, False, True, False]]], dtype=m.bool).transpose(1, 0)', 'out': 'v1', 'op': 'tensor'},
    {'src': 'v2 = v1.clip_(True, None)', 'out': 'v2', 'op': 'clamp'},
]

if __name__ == "__main__":
    main(PROGRAM)
