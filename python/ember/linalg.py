"""torch.linalg's norms and cross product (the C++ functions in ember._C)."""
from . import _C

__all__ = ["vector_norm", "matrix_norm", "norm", "cross"]

vector_norm = _C._linalg_vector_norm
matrix_norm = _C._linalg_matrix_norm
norm = _C._linalg_norm
cross = _C._linalg_cross
