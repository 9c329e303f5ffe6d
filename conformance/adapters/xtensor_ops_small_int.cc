// add/sub/mul/div with a left operand of these value types (xtensor_ops.h).
#include "conformance/adapters/xtensor_ops.h"

namespace tcts {
namespace xtensor_adapter {

TCTS_XTENSOR_OPS_FOR(std::uint8_t)
TCTS_XTENSOR_OPS_FOR(std::int8_t)
TCTS_XTENSOR_OPS_FOR(std::int16_t)

}  // namespace xtensor_adapter
}  // namespace tcts
