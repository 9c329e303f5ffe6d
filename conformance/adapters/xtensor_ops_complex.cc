// add/sub/mul/div with a left operand of these value types (xtensor_ops.h).
#include "conformance/adapters/xtensor_ops.h"

namespace tcts {
namespace xtensor_adapter {

TCTS_XTENSOR_OPS_FOR(std::complex<float>)
TCTS_XTENSOR_OPS_FOR(std::complex<double>)

}  // namespace xtensor_adapter
}  // namespace tcts
