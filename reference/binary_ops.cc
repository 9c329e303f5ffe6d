#include "reference/binary_ops.h"

#include <optional>
#include <type_traits>

#include "reference/promotion.h"

namespace tcts::ref {

namespace {

// ---------------------------------------------------------------- result_type
// Which of PyTorch's three operand classes an operand belongs to.
enum class OperandClass { kDimensioned, kZeroDim, kScalar };

OperandClass ClassOf(const Operand& o) {
  if (std::holds_alternative<Scalar>(o)) return OperandClass::kScalar;
  return std::get<Tensor>(o).dim() > 0 ? OperandClass::kDimensioned : OperandClass::kZeroDim;
}

ScalarType DTypeOf(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) {
    // A Python float is the default dtype, a complex the default complex dtype.
    switch (s->kind) {
      case Scalar::Kind::kFloat: return DefaultDType();
      case Scalar::Kind::kComplex: return DefaultComplexDType();
      default: return s->WrappedType();
    }
  }
  return std::get<Tensor>(o).dtype();
}

using MaybeType = std::optional<ScalarType>;

MaybeType PromoteMaybe(MaybeType a, MaybeType b) {
  if (!a) return b;
  if (!b) return a;
  return PromoteTypes(*a, *b);
}

// Combines a higher-priority class with a lower one: the lower class only matters when
// its category is higher, and then only as much as needed (combine_categories).
MaybeType Combine(MaybeType higher, MaybeType lower) {
  if (higher && IsComplex(*higher)) return higher;
  if (lower && IsComplex(*lower)) {
    // a floating higher keeps its precision: float32 tensor + complex128 -> complex64
    return (higher && IsFloating(*higher)) ? MaybeType(ToComplex(*higher)) : lower;
  }
  if (higher && IsFloating(*higher)) return higher;
  if (!higher || IsBool(*higher) || (lower && IsFloating(*lower))) return PromoteMaybe(higher, lower);
  return higher;  // both integral: the higher class decides
}

// ---------------------------------------------------------------- element loop
std::vector<std::int64_t> ShapeOf(const Operand& o) {
  if (const Tensor* t = std::get_if<Tensor>(&o)) return t->sizes();
  return {};
}

std::vector<std::int64_t> BroadcastShapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t sa = k + a.size() >= n ? a[k + a.size() - n] : 1;
    const std::int64_t sb = k + b.size() >= n ? b[k + b.size() - n] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      throw RuntimeError("The size of tensor a (" + std::to_string(sa) + ") must match the size of tensor b (" +
                         std::to_string(sb) + ") at non-singleton dimension " + std::to_string(k));
    }
    out[k] = sa == 1 ? sb : sa;
  }
  return out;
}

// Strides that read tensor t as if broadcast to `shape` (stride 0 on broadcast dims).
std::vector<std::int64_t> BroadcastStrides(const Tensor& t, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  const std::size_t lead = shape.size() - t.sizes().size();
  for (std::size_t k = 0; k < t.sizes().size(); ++k) {
    strides[lead + k] = t.sizes()[k] == 1 ? 0 : t.strides()[k];
  }
  return strides;
}

// One input as the loop sees it: a broadcast tensor view, or a scalar already in the
// compute type.
template <class C>
struct Input {
  const Tensor* tensor = nullptr;
  std::vector<std::int64_t> strides;
  C scalar{};

  C Load(std::int64_t offset) const {
    if (!tensor) return scalar;
    return Dispatch(tensor->dtype(), [&](auto tag) -> C {
      using T = typename decltype(tag)::type;
      return Convert<C>(*reinterpret_cast<const T*>(tensor->ElementPtr(offset)));
    });
  }
};

template <class C>
Input<C> MakeInput(const Operand& o, const std::vector<std::int64_t>& shape) {
  Input<C> in;
  if (const Tensor* t = std::get_if<Tensor>(&o)) {
    in.tensor = t;
    in.strides = BroadcastStrides(*t, shape);
  } else {
    in.scalar = std::get<Scalar>(o).To<C>();
  }
  return in;
}

// The arithmetic itself, in compute type M. Integers wrap (two's complement): the
// operation is done on the unsigned type of the same width, where wrapping is defined.
template <class M>
M Apply(BinaryOp op, M a, M b) {
  if constexpr (std::is_same_v<M, bool>) {
    switch (op) {
      case BinaryOp::kAdd: return a || b;  // 1 + 1 = 2, stored as true
      case BinaryOp::kMul: return a && b;
      default: throw InternalError("bool arithmetic for sub/div is rejected earlier");
    }
  } else if constexpr (std::is_integral_v<M>) {
    using U = std::make_unsigned_t<M>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case BinaryOp::kAdd: return static_cast<M>(static_cast<U>(ua + ub));
      case BinaryOp::kSub: return static_cast<M>(static_cast<U>(ua - ub));
      case BinaryOp::kMul: return static_cast<M>(static_cast<U>(ua * ub));
      default: throw InternalError("integer true division is promoted to float earlier");
    }
  } else {
    switch (op) {
      case BinaryOp::kAdd: return a + b;
      case BinaryOp::kSub: return a - b;
      case BinaryOp::kMul: return a * b;
      case BinaryOp::kDiv: return a / b;
    }
    throw InternalError("Apply");
  }
}

// Runs op over every element of `out` (already shaped like the broadcast result),
// computing in `common` and converting to out's dtype.
void Run(BinaryOp op, const Operand& a, const Operand& b, ScalarType common, Tensor& out) {
  const std::vector<std::int64_t>& shape = out.sizes();
  Dispatch(common, [&](auto ctag) {
    using C = typename decltype(ctag)::type;  // storage type of the result dtype
    using M = typename OpMath<C>::type;       // what it computes in
    const Input<C> ia = MakeInput<C>(a, shape), ib = MakeInput<C>(b, shape);
    Dispatch(out.dtype(), [&](auto otag) {
      using O = typename decltype(otag)::type;
      const std::int64_t n = out.numel();
      std::vector<std::int64_t> index(shape.size(), 0);
      for (std::int64_t linear = 0; linear < n; ++linear) {
        std::int64_t oa = ia.tensor ? ia.tensor->storage_offset() : 0;
        std::int64_t ob = ib.tensor ? ib.tensor->storage_offset() : 0;
        std::int64_t oo = out.storage_offset();
        for (std::size_t k = 0; k < index.size(); ++k) {
          if (ia.tensor) oa += ia.strides[k] * index[k];
          if (ib.tensor) ob += ib.strides[k] * index[k];
          oo += out.strides()[k] * index[k];
        }
        const M r = Apply<M>(op, Convert<M>(ia.Load(oa)), Convert<M>(ib.Load(ob)));
        const C rounded = Convert<C>(r);  // rounded once, in the result dtype
        *reinterpret_cast<O*>(out.ElementPtr(oo)) = Convert<O>(rounded);
        for (std::size_t k = index.size(); k-- > 0;) {
          if (++index[k] < shape[k]) break;
          index[k] = 0;
        }
      }
    });
  });
}

bool OperandIsBool(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) return s->kind == Scalar::Kind::kBool;
  return std::get<Tensor>(o).dtype() == ScalarType::kBool;
}

// Steps 1-3 of the rule: checks and the dtype the op computes in.
ScalarType CommonDType(BinaryOp op, const Operand& a, const Operand& b) {
  if (op == BinaryOp::kSub && (OperandIsBool(a) || OperandIsBool(b))) {
    if (OperandIsBool(a) && OperandIsBool(b)) {
      throw RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                         "Use the `^` or `logical_xor()` operator instead.");
    }
    throw RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  ScalarType common = ResultType(a, b);
  if (op == BinaryOp::kDiv && (IsIntegral(common) || IsBool(common))) common = DefaultDType();
  return common;
}

void CheckOutputCast(ScalarType common, const Tensor& out) {
  if (!CanCast(common, out.dtype())) {
    throw RuntimeError(std::string("result type ") + Info(common).c10_name + " can't be cast to the desired output type " +
                       Info(out.dtype()).c10_name);
  }
}

}  // namespace

ScalarType ResultType(const Operand& a, const Operand& b) {
  MaybeType cls[3];  // indexed by OperandClass
  for (const Operand* o : {&a, &b}) {
    MaybeType& slot = cls[static_cast<int>(ClassOf(*o))];
    slot = PromoteMaybe(slot, DTypeOf(*o));
  }
  const MaybeType r = Combine(cls[static_cast<int>(OperandClass::kDimensioned)],
                              Combine(cls[static_cast<int>(OperandClass::kZeroDim)],
                                      cls[static_cast<int>(OperandClass::kScalar)]));
  if (!r) throw InternalError("ResultType without operands");
  return *r;
}

Tensor Binary(BinaryOp op, const Operand& a, const Operand& b) {
  const ScalarType common = CommonDType(op, a, b);
  Tensor out = Tensor::Empty(BroadcastShapes(ShapeOf(a), ShapeOf(b)), common);
  Run(op, a, b, common, out);
  return out;
}

void BinaryOut(BinaryOp op, const Operand& a, const Operand& b, Tensor& out) {
  const ScalarType common = CommonDType(op, a, b);
  const std::vector<std::int64_t> shape = BroadcastShapes(ShapeOf(a), ShapeOf(b));
  CheckOutputCast(common, out);
  // PyTorch resizes an out= tensor of another shape (and warns when it had elements).
  out.Resize(shape);
  Run(op, a, b, common, out);
}

void BinaryInplace(BinaryOp op, Tensor& self, const Operand& other) {
  const Operand self_operand = self;
  const ScalarType common = CommonDType(op, self_operand, other);
  const std::vector<std::int64_t> shape = BroadcastShapes(self.sizes(), ShapeOf(other));
  if (shape != self.sizes()) {
    throw RuntimeError("output with shape " + ShapeString(self.sizes()) + " doesn't match the broadcast shape " +
                       ShapeString(shape));
  }
  CheckOutputCast(common, self);
  Run(op, self_operand, other, common, self);
}

}  // namespace tcts::ref
