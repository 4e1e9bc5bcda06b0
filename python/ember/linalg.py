"""torch.linalg: norms, the cross product, the SVD and the factorizations built on LU, Cholesky, QR and eigh (the C++
functions in ember._C)."""
from . import _C

__all__ = ["vector_norm", "matrix_norm", "norm", "cross", "svd", "svdvals", "inv", "inv_ex", "det", "slogdet",
           "solve", "solve_triangular", "cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "matrix_power", "pinv",
           "matrix_rank", "LinAlgError"]

vector_norm = _C._linalg_vector_norm
matrix_norm = _C._linalg_matrix_norm
norm = _C._linalg_norm
cross = _C._linalg_cross
svd = _C._linalg_svd
svdvals = _C._linalg_svdvals
inv = _C._linalg_inv
inv_ex = _C._linalg_inv_ex
det = _C._linalg_det
slogdet = _C._linalg_slogdet
solve = _C._linalg_solve
solve_triangular = _C._linalg_solve_triangular
cholesky = _C._linalg_cholesky
cholesky_ex = _C._linalg_cholesky_ex
qr = _C._linalg_qr
eigh = _C._linalg_eigh
eigvalsh = _C._linalg_eigvalsh
matrix_power = _C._linalg_matrix_power
pinv = _C._linalg_pinv
matrix_rank = _C._linalg_matrix_rank
LinAlgError = _C._LinAlgError
