"""Fuzz reproducer (seed 1672): exception-type at statement 0 (movedim): ember RuntimeError: movedim: Invalid source or destination dims: source ([0, 5] dims) should contain the same number of dims as destination ([0] dims)

Run: python tests/fuzz/found/exception-type_movedim_3.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.movedim((0, 5), 0)', 'out': 'r', 'op': 'movedim', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
