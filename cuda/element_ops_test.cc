// The device's per-element code, run on the CPU against the CPU reference, bit for bit:
//   * Cast<To>(v) == ref::Convert<To>(v) for every pair of the 13 storage types over values
//     that probe rounding (ties, float16/bfloat16 subnormals and overflow, NaN, infinities,
//     -0, wide integers);
//   * the copy kernel's body over strided geometries and every dtype pair == ref::CopyInto;
//   * the binary kernel's bodies (generic and vectorised), with the kernel arguments built
//     exactly as the backend builds them (launch_args.h), == ref::RunBinary for every op and
//     every pair of input dtypes, strided, broadcast and scalar operands, alpha, and output
//     dtypes other than the result's.
// The kernels themselves are these bodies in a grid-stride loop (kernels.cu).
#include "cuda/element_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuda/launch_args.h"
#include "reference/arith.h"
#include "reference/binary_ops.h"
#include "reference/promotion.h"
#include "reference/strided.h"

namespace tcts::cuda {
namespace {

using ref::Scalar;
using ref::Tensor;

std::vector<ScalarType> AllTypes() {
  return {
#define TCTS_CUDA_TYPE(e, ...) ScalarType::e,
      TCTS_REF_FORALL_SCALAR_TYPES(TCTS_CUDA_TYPE)
#undef TCTS_CUDA_TYPE
  };
}

// Values to cast from `from` to `to`: integers (wrapping into narrower integers, as two's
// complement does) from integral types; from floating and complex types, everything — NaN,
// infinities, ties, overflow, and values out of an integral target's range (which C++ leaves
// undefined and ref::FloatToIntegral defines).
std::vector<Scalar> Values(ScalarType from, ScalarType to) {
  if (ref::IsIntegral(from) || ref::IsBool(from)) {
    return {Scalar::Bool(true),   Scalar::Int(0),      Scalar::Int(-7),    Scalar::Int(255),
            Scalar::Int(300),     Scalar::Int(-129),   Scalar::Int(65519), Scalar::Int(65520),
            Scalar::Int((std::int64_t{1} << 40) + 1), Scalar::Int(std::numeric_limits<std::int64_t>::min()),
            Scalar::Int(16777217)};  // 2^24 + 1: not a float32
  }
  if (ref::IsIntegral(to)) {
    const double inf = std::numeric_limits<double>::infinity();
    return {Scalar::Float(0.0),    Scalar::Float(1.5),    Scalar::Float(7.9),         Scalar::Float(100.25),
            Scalar::Float(-0.0),   Scalar::Complex({3.75, 9.0}), Scalar::Float(-2.75), Scalar::Float(-100.5),
            Scalar::Float(300.5),  Scalar::Float(-40000.5), Scalar::Float(3e9),        Scalar::Float(-1e19),
            Scalar::Float(65504.0), Scalar::Float(inf),   Scalar::Float(-inf),        Scalar::Float(std::nan("")),
            Scalar::Complex({std::nan(""), 1.0})};
  }
  const double inf = std::numeric_limits<double>::infinity();
  return {Scalar::Float(0.1),
          Scalar::Float(-0.0),
          Scalar::Float(1.0009765625),            // 1 + 2^-10: exact in float16
          Scalar::Float(1.00048828125),           // 1 + 2^-11: a float16 tie, to even
          Scalar::Float(1.00390625 + 1.0 / 512),  // a bfloat16 tie
          Scalar::Float(65504.0),
          Scalar::Float(65520.0),                 // rounds to float16 infinity
          Scalar::Float(1e-7),                    // a float16 subnormal
          Scalar::Float(2.9802322387695312e-08),  // 2^-25: half of float16's smallest subnormal
          Scalar::Float(3.5e38),                  // beyond float32
          Scalar::Float(1e-45),
          Scalar::Float(inf),
          Scalar::Float(-inf),
          Scalar::Float(std::nan("")),
          Scalar::Complex({1.5, -2.25}),
          Scalar::Complex({-0.0, 65520.0}),
          Scalar::Complex({std::nan(""), 1.0})};
}

std::string Describe(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return s.b ? "True" : "False";
    case Scalar::Kind::kInt: return std::to_string(s.i);
    case Scalar::Kind::kFloat: return std::to_string(s.f);
    case Scalar::Kind::kComplex: return "(" + std::to_string(s.c.real()) + "+" + std::to_string(s.c.imag()) + "j)";
  }
  return "?";
}

// Values for a tensor of dtype t that every widening cast from t defines.
std::vector<Scalar> Pool(ScalarType t) { return Values(t, ScalarType::kComplex128); }

// The bytes of `n` elements of a cpu tensor's storage.
std::vector<std::byte> Bytes(const Tensor& t) {
  std::vector<std::byte> out(t.storage()->nbytes());
  t.storage()->ReadBytes(0, out.data(), out.size());
  return out;
}


// ---------------------------------------------------------------- conversions
// Calls f(TypeTag<CPU type>, TypeTag<device type>) for dtype t (one switch, so a pair of
// dtypes costs one instantiation, not four nested dispatches).
template <class F>
void DispatchBoth(ScalarType t, F&& f) {
  switch (t) {
#define TCTS_CUDA_BOTH(e, ...)                                              \
  case ScalarType::e:                                                       \
    return f(ref::TypeTag<typename ref::CppType<ScalarType::e>::type>{},   \
             ref::TypeTag<typename DevType<ScalarType::e>::type>{});
    TCTS_REF_FORALL_SCALAR_TYPES(TCTS_CUDA_BOTH)
#undef TCTS_CUDA_BOTH
    default:  // uint16/32/64 have no tensors (reference/scalar_type.h); AllTypes() lists none
      break;
  }
}

TEST(Cast, EqualsTheReferenceConversionForEveryTypePair) {
  int compared = 0;
  for (ScalarType from : AllTypes()) {
    for (ScalarType to : AllTypes()) {
      for (const Scalar& s : Values(from, to)) {
        DispatchBoth(from, [&](auto cpu_from, auto dev_from) {
          using F = typename decltype(cpu_from)::type;
          using DF = typename decltype(dev_from)::type;
          const F v = s.To<F>();
          DF dv;
          std::memcpy(static_cast<void*>(&dv), &v, sizeof dv);
          DispatchBoth(to, [&](auto cpu_to, auto dev_to) {
            using T = typename decltype(cpu_to)::type;
            using DT = typename decltype(dev_to)::type;
            const T expected = ref::Convert<T>(v);
            const DT observed = Cast<DT>(dv);
            EXPECT_EQ(0, std::memcmp(&expected, &observed, sizeof observed))
                << ref::Name(from) << " -> " << ref::Name(to) << " of " << Describe(s);
            ++compared;
          });
        });
      }
    }
  }
  EXPECT_GT(compared, 2000);  // 169 type pairs, 6 to 11 values each
}

// ---------------------------------------------------------------- copy
TEST(CopyElement, EqualsCopyIntoForEveryTypePairOnStridedGeometries) {
  for (ScalarType from : AllTypes()) {
    for (ScalarType to : AllTypes()) {
      const std::vector<Scalar> pool = Values(from, to);
      std::vector<Scalar> values;
      for (int k = 0; k < 24; ++k) values.push_back(pool[k % pool.size()]);
      const Tensor src_base = Tensor::FromScalars({2, 3, 4}, from, values);
      // A transposed, stepped source into a channels_last-like destination, and a
      // broadcast (stride 0) source into a contiguous one.
      const Tensor src = src_base.AsStrided({3, 2, 2}, {4, 12, 2}, 1);
      const Tensor src_bcast = src_base.AsStrided({3, 2, 2}, {0, 1, 4}, 2);
      for (const Tensor& s : {src, src_bcast}) {
        const Tensor expected = ref::Empty({3, 2, 2}, to, ref::MemoryFormat::kContiguous);
        const Tensor observed = Tensor::EmptyStrided({3, 2, 2}, {1, 6, 3}, to);
        const Tensor expected_view = expected.AsStrided({3, 2, 2}, {1, 6, 3}, 0);
        ref::CopyInto(expected_view, s);
        const CopyArgs args =
            MakeCopyArgs(s.sizes(), ref::TensorOperand(observed, s.sizes()), ref::TensorOperand(s, s.sizes()));
        RunOnHost(args);
        EXPECT_EQ(Bytes(expected), Bytes(observed)) << ref::Name(from) << " -> " << ref::Name(to);
      }
    }
  }
}

// ---------------------------------------------------------------- binary
// op(a, b) into a fresh out of `out_dtype` with out_strides, on the CPU loop and on the
// device bodies; the result bytes must be identical.
void ExpectSameBinary(ref::BinaryOp op, const ref::Operand& a, const ref::Operand& b, const Scalar& alpha,
                      ScalarType common, ScalarType out_dtype, const std::vector<std::int64_t>& shape,
                      const std::vector<std::int64_t>& out_strides, bool expect_vectorized = false) {
  const Tensor expected = Tensor::EmptyStrided(shape, out_strides, out_dtype);
  const Tensor observed = Tensor::EmptyStrided(shape, out_strides, out_dtype);
  struct Slot {
    alignas(16) std::byte bytes[16];
  } sa, sb;
  const auto input = [&](const ref::Operand& o, Slot& slot) {
    if (const Tensor* t = std::get_if<Tensor>(&o)) return ref::TensorOperand(*t, shape);
    ref::Dispatch(common, [&](auto tag) {
      using T = typename decltype(tag)::type;
      *reinterpret_cast<T*>(slot.bytes) = std::get<Scalar>(o).To<T>();
    });
    return ref::LoopOperand{slot.bytes, std::vector<std::int64_t>(shape.size(), 0), common, true};
  };
  const ref::LoopOperand la = input(a, sa), lb = input(b, sb);
  ref::RunBinary(op, common, alpha, shape, ref::TensorOperand(expected, shape), la, lb);
  const BinaryArgs args = MakeBinaryArgs(op, common, alpha, shape, ref::TensorOperand(observed, shape), la, lb);
  if (expect_vectorized) {
    EXPECT_TRUE(args.vectorizable);
  }
  RunOnHost(args);
  EXPECT_EQ(Bytes(expected), Bytes(observed))
      << "op " << static_cast<int>(op) << " common " << ref::Name(common) << " out " << ref::Name(out_dtype)
      << " a " << (std::holds_alternative<Tensor>(a) ? ref::Name(std::get<Tensor>(a).dtype()) : "scalar") << " b "
      << (std::holds_alternative<Tensor>(b) ? ref::Name(std::get<Tensor>(b).dtype()) : "scalar");
}

std::vector<Scalar> Cycle(const std::vector<Scalar>& pool, std::size_t n, std::size_t start) {
  std::vector<Scalar> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(pool[(start + k) % pool.size()]);
  return out;
}


TEST(BinaryElement, EqualsRunBinaryForEveryOpAndInputTypePair) {
  for (ScalarType ta : AllTypes()) {
    for (ScalarType tb : AllTypes()) {
      // a: [2, 3] transposed view of a [3, 2]; b: [3] broadcast over the rows. Every cast on
      // the way (input -> result -> output) widens.
      const Tensor a = Tensor::FromScalars({3, 2}, ta, Cycle(Pool(ta), 6, 0)).AsStrided({2, 3}, {1, 2}, 0);
      const Tensor b = Tensor::FromScalars({3}, tb, Cycle(Pool(tb), 3, 5));
      for (ref::BinaryOp op : ref::kBinaryOps) {
        const ScalarType common = ref::CommonDType(op, a, b);
        for (ScalarType out : {common, ScalarType::kComplex128}) {
          ExpectSameBinary(op, a, b, Scalar::Int(1), common, out, {2, 3}, {1, 2});
        }
      }
    }
  }
}

TEST(BinaryElement, EqualsRunBinaryForFloatingValuesAlphaAndScalars) {
  const std::vector<Scalar> pool = Pool(ScalarType::kFloat64);
  for (ScalarType t : AllTypes()) {
    if (!(ref::IsFloating(t) || ref::IsComplex(t))) continue;
    const std::size_t n = pool.size();
    for (std::size_t shift = 1; shift < 4; ++shift) {
      // Every value against every value (b is a rotation of a).
      const Tensor a = Tensor::FromScalars({static_cast<std::int64_t>(n)}, t, Cycle(pool, n, 0));
      const Tensor b = Tensor::FromScalars({static_cast<std::int64_t>(n)}, t, Cycle(pool, n, shift));
      const std::int64_t len = static_cast<std::int64_t>(n);
      for (ref::BinaryOp op : ref::kBinaryOps) {
        ExpectSameBinary(op, a, b, Scalar::Int(1), t, t, {len}, {1});
        ExpectSameBinary(op, a, Scalar::Float(2.5), Scalar::Int(1), t, t, {len}, {1});
      }
      ExpectSameBinary(ref::BinaryOp::kAdd, a, b, Scalar::Float(0.1), t, t, {len}, {1});
      ExpectSameBinary(ref::BinaryOp::kSub, a, b, Scalar::Float(-3.0), t, t, {len}, {1});
    }
  }
}

TEST(BinaryElement, EqualsRunBinaryOnManyDimensionsAndTheVectorisedPath) {
  std::vector<Scalar> values;
  for (int k = 0; k < 2 * 3 * 4 * 5; ++k) values.push_back(Scalar::Int(k * 7 - 300));
  for (ScalarType t : {ScalarType::kInt8, ScalarType::kInt32, ScalarType::kInt64, ScalarType::kFloat32,
                       ScalarType::kFloat64, ScalarType::kComplex64, ScalarType::kBool}) {
    const Tensor a = Tensor::FromScalars({2, 3, 4, 5}, t, values);
    const Tensor cl = ref::Contiguous(a, ref::MemoryFormat::kChannelsLast);
    const std::vector<std::int64_t> shape = {2, 3, 4, 5};
    const std::vector<std::int64_t> contiguous = ref::ContiguousStrides(shape);
    const ref::BinaryOp op = t == ScalarType::kBool ? ref::BinaryOp::kMul : ref::BinaryOp::kAdd;
    ExpectSameBinary(op, a, a, Scalar::Int(1), t, t, shape, contiguous, /*expect_vectorized=*/true);
    ExpectSameBinary(op, cl, a, Scalar::Int(1), t, t, shape, contiguous);  // channels_last + contiguous
    ExpectSameBinary(op, a, cl, Scalar::Int(1), t, t, shape, cl.strides());
    // An odd length: the vectorised path's tail.
    const Tensor odd = a.AsStrided({7}, {1}, 0);
    ExpectSameBinary(op, odd, odd, Scalar::Int(1), t, t, {7}, {1}, /*expect_vectorized=*/true);
  }
}

TEST(LaunchArgs, TooManyDimensionsAfterMergingIsAnErrorNamingTheShape) {
  std::vector<std::int64_t> shape(17, 2), strides(17);
  // Every dimension reversed against out's, so none merge.
  const Tensor base = Tensor::Empty({1 << 17}, ScalarType::kFloat32);
  for (int d = 0; d < 17; ++d) strides[d] = std::int64_t{1} << d;
  const Tensor a = base.AsStrided(shape, strides, 0);
  const Tensor out = Tensor::Empty(shape, ScalarType::kFloat32);
  try {
    MakeBinaryArgs(ref::BinaryOp::kAdd, ScalarType::kFloat32, Scalar::Int(1), shape, ref::TensorOperand(out, shape),
                   ref::TensorOperand(a, shape), ref::TensorOperand(out, shape));
    FAIL() << "expected an error";
  } catch (const ref::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 2, 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tcts::cuda
