// add/sub/mul/div with a C++ number as the left operand (xtensor_ops.h).
#include "conformance/adapters/xtensor_ops.h"

namespace tcts {
namespace xtensor_adapter {

TCTS_XTENSOR_OPS_FOR_LEFT(bool)
TCTS_XTENSOR_OPS_FOR_LEFT(int)
TCTS_XTENSOR_OPS_FOR_LEFT(long)
TCTS_XTENSOR_OPS_FOR_LEFT(double)
TCTS_XTENSOR_OPS_FOR_LEFT(std::complex<double>)

}  // namespace xtensor_adapter
}  // namespace tcts
