"""torch.linalg's norms, cross product and SVD (the C++ functions in ember._C)."""
from . import _C

__all__ = ["vector_norm", "matrix_norm", "norm", "cross", "svd", "svdvals", "LinAlgError"]

vector_norm = _C._linalg_vector_norm
matrix_norm = _C._linalg_matrix_norm
norm = _C._linalg_norm
cross = _C._linalg_cross
svd = _C._linalg_svd
svdvals = _C._linalg_svdvals
LinAlgError = _C._LinAlgError
