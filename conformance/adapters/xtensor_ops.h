// Internal to the xtensor adapter: the definitions of EvaluateLeft / ValueTypeLeft
// (xtensor_internal.h), included by the xtensor_ops_*.cc files, each of which instantiates
// them for some left operand types (TCTS_XTENSOR_OPS_FOR).
#ifndef TCTS_CONFORMANCE_ADAPTERS_XTENSOR_OPS_H_
#define TCTS_CONFORMANCE_ADAPTERS_XTENSOR_OPS_H_

#include "conformance/adapters/xtensor_internal.h"

namespace tcts {
namespace xtensor_adapter {

template <class L>
Result<TensorHandle> EvaluateLeft(BinaryOp op, const L& a, const XOperand& b) {
  return WithRight<L, Result<TensorHandle>>(b, [&](const auto& y) -> Result<TensorHandle> {
    using Y = std::decay_t<decltype(y)>;
    if constexpr (kIsExpr<L> || kIsExpr<Y>) {
      if constexpr (!IllFormedPair<L, Y>::value) {
        if (op == BinaryOp::kDiv) {
          if (auto ub = DivisionUB<ValueOf<decltype(a / y)>>(a, y)) return *ub;
        }
      }
    }
    return ApplyTo<Result<TensorHandle>>(op, a, y, Evaluate{});
  });
}

template <class L>
Result<DType> ValueTypeLeft(BinaryOp op, const L& a, const XOperand& b) {
  return WithRight<L, Result<DType>>(b, [&](const auto& y) -> Result<DType> {
    return ApplyTo<Result<DType>>(op, a, y, ValueTypeOf{});
  });
}

#define TCTS_XTENSOR_OPS_FOR_LEFT(L)                                                              \
  template Result<TensorHandle> EvaluateLeft<L>(BinaryOp op, const L& a, const XOperand& b); \
  template Result<DType> ValueTypeLeft<L>(BinaryOp op, const L& a, const XOperand& b);
// Both ways a tensor of T is held: the xt::xarray itself and a strided view of one.
#define TCTS_XTENSOR_OPS_FOR(T)          \
  TCTS_XTENSOR_OPS_FOR_LEFT(Array<T>)    \
  TCTS_XTENSOR_OPS_FOR_LEFT(ViewOf<T>)

}  // namespace xtensor_adapter
}  // namespace tcts

#endif  // TCTS_CONFORMANCE_ADAPTERS_XTENSOR_OPS_H_
