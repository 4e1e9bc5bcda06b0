// The plans of one to four operands, instantiated once (strided_plan.h declares them extern).
#include "strided_plan.h"

namespace ember {

EMBER_MAKE_PLAN(1);
EMBER_MAKE_PLAN(2);
EMBER_MAKE_PLAN(3);
EMBER_MAKE_PLAN(4);

}  // namespace ember
