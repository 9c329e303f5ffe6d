#include "cuda/launch_args.h"

#include <cstring>
#include <limits>
#include <string>

namespace tcts::cuda {
namespace {

template <int N>
OffsetCalculator<N> Geometry(const ref::Plan& plan, const std::vector<std::int64_t>& shape) {
  const int ndim = static_cast<int>(plan.sizes.size());
  if (ndim > kMaxDims) {
    throw ref::RuntimeError("the cuda backend walks at most " + std::to_string(kMaxDims) +
                            " dimensions after merging; shape " + ref::ShapeString(shape) + " needs " +
                            std::to_string(ndim));
  }
  OffsetCalculator<N> g;
  g.ndim = ndim;
  g.narrow = ref::Numel(plan.sizes) <= std::numeric_limits<std::int32_t>::max();
  for (int d = 0; d < ndim; ++d) {  // the plan is outermost first; the calculator innermost first
    const int from = ndim - 1 - d;
    g.sizes[d] = plan.sizes[from];
    if (g.narrow && g.sizes[d] > 0) g.dividers[d] = IntDivider(static_cast<std::uint32_t>(g.sizes[d]));
    for (int k = 0; k < N; ++k) g.strides[d][k] = plan.strides[from][k];
  }
  return g;
}

ElementOperand Operand(const ref::LoopOperand& o) {
  ElementOperand e;
  e.dtype = o.dtype;
  e.by_value = o.host_value;
  if (o.host_value) {
    std::memcpy(e.value, o.data, ref::Info(o.dtype).itemsize);
  } else {
    e.data = o.data;
  }
  return e;
}

bool Aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

CopyArgs MakeCopyArgs(const std::vector<std::int64_t>& shape, const ref::LoopOperand& dst,
                      const ref::LoopOperand& src) {
  const ref::Plan plan = ref::MakePlan(shape, {&dst, &src, &src});
  CopyArgs args;
  args.geometry = Geometry<2>(plan, shape);
  args.numel = ref::Numel(shape);
  args.dst = Operand(dst);
  args.src = Operand(src);
  return args;
}

BinaryArgs MakeBinaryArgs(ref::BinaryOp op, ScalarType common, const ref::Scalar& alpha,
                          const std::vector<std::int64_t>& shape, const ref::LoopOperand& out,
                          const ref::LoopOperand& a, const ref::LoopOperand& b) {
  const ref::Plan plan = ref::MakePlan(shape, {&out, &a, &b});
  BinaryArgs args;
  args.geometry = Geometry<3>(plan, shape);
  args.numel = ref::Numel(shape);
  args.op = op;
  args.scaled = ref::IsScaled(alpha);
  args.common = common;
  ref::Dispatch(common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    const auto m = ref::ScaleFor<C>(op, alpha);  // layout-identical to the device's compute type
    static_assert(sizeof m <= sizeof args.alpha, "alpha slot");
    std::memcpy(args.alpha, &m, sizeof m);
    args.vectorizable = std::is_same_v<C, typename ref::OpMath<C>::type>;
  });
  args.out = Operand(out);
  args.a = Operand(a);
  args.b = Operand(b);
  const int itemsize = ref::Info(common).itemsize;
  for (const ElementOperand* e : {&args.out, &args.a, &args.b}) {
    args.vectorizable = args.vectorizable && !e->by_value && e->dtype == common && Aligned16(e->data);
  }
  if (plan.sizes.size() > 1) args.vectorizable = false;
  if (plan.sizes.size() == 1) {
    for (std::int64_t s : plan.strides[0]) args.vectorizable = args.vectorizable && s == itemsize;
  }
  return args;
}

void RunOnHost(const CopyArgs& args) {
  for (std::int64_t i = 0; i < args.numel; ++i) CopyElement(args, i);
}

void RunOnHost(const BinaryArgs& args) {
  DispatchDev(args.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_same_v<C, typename DevOpMath<C>::type>) {
      if (args.vectorizable) {
        const std::int64_t chunks = (args.numel + Vec<C>::kN - 1) / Vec<C>::kN;
        for (std::int64_t k = 0; k < chunks; ++k) BinaryVecChunk<C>(args, k);
        return;
      }
    }
    for (std::int64_t i = 0; i < args.numel; ++i) BinaryElement<C>(args, i);
  });
}

}  // namespace tcts::cuda
