// The factorization kernel tables (linalg_kernels.h), empty until a backend registers.
#include "linalg_kernels.h"

namespace ember::kernels {

constinit KernelTable<LuFactorFn> lu_factor("lu_factor");
constinit KernelTable<LuSolveFn> lu_solve("lu_solve");
constinit KernelTable<TriangularSolveFn> triangular_solve("triangular_solve");
constinit KernelTable<CholeskyFn> cholesky("cholesky");
constinit KernelTable<QrFn> qr("qr");
constinit KernelTable<EighFn> eigh("eigh");

}  // namespace ember::kernels
