#include "reference/binary_ops.h"

#include <algorithm>
#include <optional>
#include <type_traits>

#include "reference/device_backend.h"
#include "reference/promotion.h"
#include "reference/strided.h"

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

// ---------------------------------------------------------------- shapes
std::vector<std::int64_t> ShapeOf(const Operand& o) {
  if (const Tensor* t = std::get_if<Tensor>(&o)) return t->sizes();
  return {};
}

std::vector<std::int64_t> BroadcastShapes(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(n);
  for (std::size_t k = n; k-- > 0;) {  // from the last dimension, as infer_size: the error names the last mismatch
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

// ---------------------------------------------------------------- checks
bool OperandIsBool(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) return s->kind == Scalar::Kind::kBool;
  return std::get<Tensor>(o).dtype() == ScalarType::kBool;
}

void CheckSub(BinaryOp op, const Operand& a, const Operand& b) {
  if (op != BinaryOp::kSub || !(OperandIsBool(a) || OperandIsBool(b))) return;
  if (OperandIsBool(a) && OperandIsBool(b)) {
    throw RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                       "Use the `^` or `logical_xor()` operator instead.");
  }
  throw RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                     "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

void CheckOutputCast(ScalarType common, const Tensor& out) {
  if (!CanCast(common, out.dtype())) {
    throw RuntimeError(std::string("result type ") + Info(common).c10_name + " can't be cast to the desired output type " +
                       Info(out.dtype()).c10_name);
  }
}

void CheckAlpha(ScalarType common, const Scalar& alpha) {
  if (alpha.kind == Scalar::Kind::kBool && common != ScalarType::kBool) {
    throw RuntimeError("Boolean alpha only supported for Boolean results.");
  }
  if (!(IsFloating(common) || IsComplex(common)) &&
      (alpha.kind == Scalar::Kind::kFloat || alpha.kind == Scalar::Kind::kComplex)) {
    throw RuntimeError("For integral input tensors, argument alpha must not be a floating point number.");
  }
  if (!IsComplex(common) && alpha.kind == Scalar::Kind::kComplex) {
    throw RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.");
  }
}

// MemoryOverlap.cpp: an output may not have internal overlap that is certain (a stride-0
// dimension of size > 1) nor partially overlap an input (both dense, same storage, byte
// ranges intersecting but not identical with identical strides).
void CheckOverlap(const Tensor& out, const std::vector<const Operand*>& inputs) {
  for (std::size_t d = 0; d < out.sizes().size(); ++d) {
    if (out.sizes()[d] > 1 && out.strides()[d] == 0) {
      throw RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                         "memory location. Please clone() the tensor before performing the operation.");
    }
  }
  for (const Operand* o : inputs) {
    const Tensor* in = std::get_if<Tensor>(o);
    if (!in || in->storage() != out.storage() || in->numel() == 0 || out.numel() == 0) continue;
    if (!IsDense(*in) || !IsDense(out)) continue;  // "too hard": allowed
    // Byte ranges of dense tensors with elements: inside their storages, so no overflow.
    const std::int64_t ib = in->storage_offset() * Info(in->dtype()).itemsize;
    const std::int64_t ie = ib + in->numel() * Info(in->dtype()).itemsize;
    const std::int64_t ob = out.storage_offset() * Info(out.dtype()).itemsize;
    const std::int64_t oe = ob + out.numel() * Info(out.dtype()).itemsize;
    const bool full = ib == ob && ie == oe && in->strides() == out.strides();
    if (!full && ib < oe && ob < ie) {
      throw RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                         "a single memory location. Please clone() the tensor before performing the operation.");
    }
  }
}

// ---------------------------------------------------------------- devices
bool IsCpuScalarTensor(const Tensor& t) { return t.dim() == 0 && t.device().is_cpu(); }

// TensorIterator's device rule (compute_types): the common device is the first operand's,
// outputs first, that is not on the cpu; every other tensor must be on it, except an input
// that is a zero-dim cpu tensor (a kernel on another device takes it as a scalar). Python
// scalars have no device.
Device CommonDevice(const Tensor* out, const std::vector<const Operand*>& inputs) {
  std::vector<std::pair<const Tensor*, bool>> tensors;  // (tensor, is_output)
  if (out) tensors.push_back({out, true});
  for (const Operand* o : inputs)
    if (const Tensor* t = std::get_if<Tensor>(o)) tensors.push_back({t, false});
  Device common = Device::Cpu();
  for (const auto& [t, is_output] : tensors) {
    if (!t->device().is_cpu()) {
      common = t->device();
      break;
    }
  }
  for (const auto& [t, is_output] : tensors) {
    if (t->device() == common || (!common.is_cpu() && !is_output && IsCpuScalarTensor(*t))) continue;
    throw RuntimeError("Expected all tensors to be on the same device, but found at least two devices, " +
                       common.str() + " and " + t->device().str() + "!");
  }
  return common;
}

// ---------------------------------------------------------------- computing
// A scalar operand, converted to the result dtype, as a loop operand of stride 0.
struct ScalarSlot {
  alignas(16) std::byte bytes[16];
};

// An input as the loop reads it. A Python scalar becomes a host value of the result dtype;
// a zero-dim cpu tensor feeding a loop on another device becomes a host value of its dtype.
LoopOperand LoopInput(const Operand& o, ScalarType common, const std::vector<std::int64_t>& shape, ScalarSlot& slot,
                      const Device& device) {
  const std::vector<std::int64_t> zeros(shape.size(), 0);
  if (const Tensor* t = std::get_if<Tensor>(&o)) {
    if (!device.is_cpu() && IsCpuScalarTensor(*t)) {
      return LoopOperand{t->ElementPtr(t->storage_offset()), zeros, t->dtype(), true};
    }
    return TensorOperand(*t, shape);
  }
  Dispatch(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *reinterpret_cast<T*>(slot.bytes) = std::get<Scalar>(o).To<T>();
  });
  return LoopOperand{slot.bytes, zeros, common, true};
}

void Run(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, ScalarType common, Tensor& out) {
  if (out.numel() == 0) return;
  const std::vector<std::int64_t>& shape = out.sizes();
  const Device& device = out.device();
  ScalarSlot sa, sb;
  const LoopOperand lo = TensorOperand(out, shape);
  const LoopOperand la = LoopInput(a, common, shape, sa, device), lb = LoopInput(b, common, shape, sb, device);
  if (device.is_cpu()) return RunBinary(op, common, alpha, shape, lo, la, lb);
  BackendFor(device).Binary(op, common, alpha, shape, lo, la, lb, static_cast<int>(device.index()));
}

}  // namespace

ScalarType CommonDType(BinaryOp op, const Operand& a, const Operand& b) {
  ScalarType common = ResultType(a, b);
  if (op == BinaryOp::kDiv && (IsIntegral(common) || IsBool(common))) common = DefaultDType();
  return common;
}

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


std::vector<std::int64_t> OutputStrides(const std::vector<std::int64_t>& shape, ScalarType common,
                                        const std::vector<const Operand*>& inputs, const Device& device) {
  // Step 1: on the CPU an input of another dtype takes part as its copy to(common), which
  // keeps dense strides and otherwise infers dense ones (preserve_format). Other devices
  // cast while loading: every input takes part as it is.
  struct Geometry {
    std::vector<std::int64_t> sizes, strides;
  };
  std::vector<Geometry> ops;
  for (const Operand* o : inputs) {
    if (const Tensor* t = std::get_if<Tensor>(o)) {
      ops.push_back({t->sizes(), t->dtype() == common || !device.is_cpu() ? t->strides() : PreserveStrides(*t)});
    } else {
      ops.push_back({{}, {}});  // a Python scalar is a zero-dim operand
    }
  }
  // Step 2: same-shape inputs that agree on a layout keep it.
  bool same_shape = true, any_zero_dim = false, any_dimensioned = false;
  for (const Geometry& g : ops) {
    same_shape = same_shape && g.sizes == ops.front().sizes;
    (g.sizes.empty() ? any_zero_dim : any_dimensioned) = true;
  }
  if (same_shape && !(any_zero_dim && any_dimensioned)) {
    const auto all = [&](auto pred) { return std::all_of(ops.begin(), ops.end(), pred); };
    if (all([](const Geometry& g) { return IsContiguous(g.sizes, g.strides, MemoryFormat::kContiguous); })) {
      return FormatStrides(shape, MemoryFormat::kContiguous);
    }
    if (all([](const Geometry& g) {
          return g.sizes.size() == 4 && IsContiguous(g.sizes, g.strides, MemoryFormat::kChannelsLast);
        })) {
      return FormatStrides(shape, MemoryFormat::kChannelsLast);
    }
    if (all([&](const Geometry& g) { return IsDense(g.sizes, g.strides) && g.strides == ops.front().strides; })) {
      return ops.front().strides;
    }
  }
  // Step 3: sort the dimensions innermost first by the operands' broadcast strides.
  const std::size_t n = shape.size();
  std::vector<std::vector<std::int64_t>> strides;
  for (const Geometry& g : ops) strides.push_back(BroadcastStrides(g.sizes, g.strides, shape));
  const auto should_swap = [&](std::size_t d0, std::size_t d1) -> int {
    for (const std::vector<std::int64_t>& st : strides) {
      if (st[d0] == 0 || st[d1] == 0) continue;
      if (st[d0] != st[d1]) return st[d0] < st[d1] ? -1 : 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  const std::vector<std::size_t> perm = TensorIteratorOrder(n, should_swap);
  bool reversed = true;
  for (std::size_t k = 0; k < n; ++k) reversed = reversed && perm[k] == n - 1 - k;
  if (reversed) return FormatStrides(shape, MemoryFormat::kContiguous);
  return DenseStrides(shape, perm, false);  // raw sizes: TensorIterator::compatible_stride
}

namespace {

// The backward node PyTorch records for the functional op (torch 1.13: type((a + 2).grad_fn).__name__).
const char* BackwardName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "AddBackward0";
    case BinaryOp::kSub: return "SubBackward0";
    case BinaryOp::kMul: return "MulBackward0";
    case BinaryOp::kDiv: return "DivBackward0";
  }
  throw InternalError("BackwardName: invalid BinaryOp");
}

bool RequiresGrad(const Operand& o) {
  const Tensor* t = std::get_if<Tensor>(&o);
  return t && t->requires_grad();
}

}  // namespace

Tensor Binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) {
  CheckSub(op, a, b);
  const std::vector<std::int64_t> shape = BroadcastShapes(ShapeOf(a), ShapeOf(b));
  const Device device = CommonDevice(nullptr, {&a, &b});
  const ScalarType common = CommonDType(op, a, b);
  CheckAlpha(common, alpha);
  Tensor out = Tensor::EmptyStrided(shape, OutputStrides(shape, common, {&a, &b}, device), common,
                                    Storage::Init::kUninitialized, device);
  Run(op, a, b, alpha, common, out);
  out.RecordHistory(BackwardName(op), RequiresGrad(a) || RequiresGrad(b));
  return out;
}

void BinaryOut(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, Tensor& out) {
  CheckSub(op, a, b);
  CheckOverlap(out, {&a, &b});
  const std::vector<std::int64_t> shape = BroadcastShapes(ShapeOf(a), ShapeOf(b));
  const Device device = CommonDevice(&out, {&a, &b});
  const ScalarType common = CommonDType(op, a, b);
  CheckOutputCast(common, out);
  CheckAlpha(common, alpha);
  // PyTorch resizes an out= of another shape (warning when it had elements) and lays it
  // out as a new result.
  if (out.sizes() != shape) out.Restride(shape, OutputStrides(shape, common, {&a, &b}, device));
  Run(op, a, b, alpha, common, out);
}

void BinaryInplace(BinaryOp op, Tensor& self, const Operand& other, const Scalar& alpha) {
  const Operand self_operand = self;
  CheckSub(op, self_operand, other);
  CheckOverlap(self, {&other});
  const std::vector<std::int64_t> shape = BroadcastShapes(self.sizes(), ShapeOf(other));
  if (shape != self.sizes()) {
    throw RuntimeError("output with shape " + ShapeString(self.sizes()) + " doesn't match the broadcast shape " +
                       ShapeString(shape));
  }
  CommonDevice(&self, {&other});
  const ScalarType common = CommonDType(op, self_operand, other);
  CheckOutputCast(common, self);
  CheckAlpha(common, alpha);
  Run(op, self_operand, other, alpha, common, self);
}

}  // namespace tcts::ref
