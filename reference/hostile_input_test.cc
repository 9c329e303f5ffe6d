// Hostile inputs (issue 19): the reference is never silently wrong. Every case is either the
// right result or an error of the reference's own kind whose message names the input —
// never a wrapped size that passes a bounds check, a freed producer tensor, a stack overflow
// or undefined behaviour. Run under --config=asan (ASan + UBSan) as well.
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "dlpack/dlpack.h"
#include "reference/binary_ops.h"
#include "reference/checked.h"
#include "reference/error.h"
#include "reference/interop.h"
#include "reference/strided.h"
#include "reference/tensor.h"

// An allocation that cannot be had must fail (nullptr to nothrow new), not abort the process,
// also when this test runs under AddressSanitizer.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace tcts::ref {
namespace {

constexpr std::int64_t k31 = std::int64_t{1} << 31;
constexpr std::int64_t k32 = std::int64_t{1} << 32;
constexpr std::int64_t k61 = std::int64_t{1} << 61;
constexpr std::int64_t k62 = std::int64_t{1} << 62;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

std::string Str(std::int64_t v) { return std::to_string(v); }

// f must raise an Error of `kind` whose message holds every fragment.
void ExpectError(Error::Kind kind, std::initializer_list<std::string> fragments, const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    for (const std::string& fragment : fragments) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << "'" << fragment << "' not in: " << e.what();
    }
    return;
  }
  ADD_FAILURE() << "no error (expected one naming " << *fragments.begin() << ")";
}

void ExpectRuntimeError(std::initializer_list<std::string> fragments, const std::function<void()>& f) {
  ExpectError(Error::Kind::kRuntimeError, fragments, f);
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  for (const Scalar& s : t.ToScalars()) {
    out.push_back(s.kind == Scalar::Kind::kBool ? s.b : s.kind == Scalar::Kind::kInt ? s.i : s.f);
  }
  return out;
}

// 16 float32 elements 0, 1, ..., 15.
Tensor Arange16() {
  std::vector<Scalar> v;
  for (int k = 0; k < 16; ++k) v.push_back(Scalar::Int(k));
  return Tensor::FromScalars({16}, ScalarType::kFloat32, v);
}

// A meta tensor of n bytes: a storage as large as int64 allows, without memory, so that
// views can reach strides and offsets near the limit.
Tensor MetaBytes(std::int64_t n) { return Tensor::Empty({n}, ScalarType::kUint8, Device::Parse("meta")); }

// ---------------------------------------------------------------- a DLPack producer
// A producer's tensor: memory, shape and strides live here; the deleter counts its calls, so a
// test sees whether the import took ownership (once) or left it with the producer (never).
struct Producer {
  std::vector<std::byte> memory;
  std::vector<std::int64_t> shape, strides;
  int deleted = 0;
  DLManagedTensor managed{};

  Producer(DLDataType dtype, std::vector<std::int64_t> shape_, std::vector<std::int64_t> strides_, std::size_t nbytes)
      : memory(nbytes), shape(std::move(shape_)), strides(std::move(strides_)) {
    DLTensor& dl = managed.dl_tensor;
    dl.data = memory.data();
    dl.device = DLDevice{kDLCPU, 0};
    dl.ndim = static_cast<std::int32_t>(shape.size());
    dl.dtype = dtype;
    dl.shape = shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
    dl.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* m) { ++static_cast<Producer*>(m->manager_ctx)->deleted; };
  }
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;
};

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kC128{kDLComplex, 128, 1};
constexpr DLDataType kBool{6, 8, 1};

// The import fails with a RuntimeError naming `fragments`, and the producer's tensor is
// untouched: its deleter has not run, and the producer's own cleanup is then its first.
void ExpectImportFails(Producer& p, std::initializer_list<std::string> fragments) {
  ExpectRuntimeError(fragments, [&] { FromDLPack(&p.managed); });
  EXPECT_EQ(p.deleted, 0) << "a failed import ran the producer's deleter";
  p.managed.deleter(&p.managed);  // the caller's cleanup
  EXPECT_EQ(p.deleted, 1);
}

// ---------------------------------------------------------------- 1. failed DLPack imports
TEST(HostileDLPack, ByteCountOverflowLeavesTheProducersTensorAlone) {
  Producer big(kF32, {k62}, {}, 16);
  ExpectImportFails(big, {"overflow", "sizes=[" + Str(k62) + "]", "itemsize 4"});
  Producer strided(kC128, {6}, {k62}, 16);
  ExpectImportFails(strided, {"overflow", "sizes=[6]", "strides=[" + Str(k62) + "]"});
}

TEST(HostileDLPack, ASuccessfulImportRunsTheDeleterOnceWhenTheLastViewDies) {
  Producer p(kF32, {2, 2}, {}, 16);
  {
    const Tensor t = FromDLPack(&p.managed);
    const Tensor view = Transpose(t, 0, 1);
    EXPECT_EQ(p.deleted, 0);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(HostileDLPack, AFailingAsarrayImportLeavesTheProducersTensorAlone) {
  Producer p(kF32, {k62}, {}, 16);
  ExpectRuntimeError({"overflow"}, [&] { AsarrayDLPack(&p.managed, {}); });
  EXPECT_EQ(p.deleted, 0);
}

// ---------------------------------------------------------------- 5. untrusted headers
TEST(HostileDLPack, NullShapeWithDimensionsIsAnError) {
  Producer p(kF32, {2, 2, 2}, {}, 32);
  p.managed.dl_tensor.shape = nullptr;
  ExpectImportFails(p, {"null shape", "ndim 3"});
  Producer huge(kF32, {}, {}, 0);
  huge.managed.dl_tensor.ndim = std::numeric_limits<std::int32_t>::max();
  huge.managed.dl_tensor.shape = nullptr;
  ExpectImportFails(huge, {"null shape", "ndim 2147483647"});
}

TEST(HostileDLPack, NullDataIsAnErrorUnlessTheTensorIsEmptyWithoutOffset) {
  Producer offset(kF32, {0}, {}, 0);
  offset.managed.dl_tensor.data = nullptr;
  offset.managed.dl_tensor.byte_offset = 8;
  ExpectImportFails(offset, {"null data", "byte_offset 8"});
  Producer elements(kF32, {2}, {}, 8);
  elements.managed.dl_tensor.data = nullptr;
  ExpectImportFails(elements, {"null data", "8 bytes", "shape [2]"});
  Producer empty(kF32, {0, 3}, {}, 0);
  empty.managed.dl_tensor.data = nullptr;
  {
    const Tensor t = FromDLPack(&empty.managed);
    EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{0, 3}));
    EXPECT_EQ(t.DataPtr(), 0u);
  }
  EXPECT_EQ(empty.deleted, 1);
}

TEST(HostileDLPack, AByteOffsetPastTheAddressSpaceIsAnError) {
  Producer p(kF32, {1}, {}, 4);
  p.managed.dl_tensor.byte_offset = std::numeric_limits<std::uint64_t>::max() - 2;
  ExpectImportFails(p, {"address space", "byte_offset " + std::to_string(p.managed.dl_tensor.byte_offset)});
}

TEST(HostileDLPack, NegativeAndMinimalFieldsAreErrors) {
  Producer ndim(kF32, {1}, {}, 4);
  ndim.managed.dl_tensor.ndim = -1;
  ExpectImportFails(ndim, {"negative ndim -1"});
  Producer size(kF32, {kMin}, {}, 4);
  ExpectImportFails(size, {"negative", Str(kMin)});
  Producer stride(kF32, {2}, {-1}, 8);
  ExpectImportFails(stride, {"negative", "strides [-1]"});
  Producer lanes(DLDataType{kDLFloat, 32, 4}, {1}, {}, 16);
  ExpectImportFails(lanes, {"lanes 4"});
  // A device type this header's enum does not list, stored as a C producer would.
  Producer device(kF32, {1}, {}, 4);
  const std::int32_t type = 520093698;
  std::memcpy(&device.managed.dl_tensor.device.device_type, &type, sizeof type);
  ExpectImportFails(device, {"Unsupported device_type: 520093698"});
}

// ---------------------------------------------------------------- 2. bounds checks that overflowed
TEST(HostileGeometry, AsStridedWithAStrideThatOverflowsIsAnErrorAndLeavesTheBaseAlone) {
  const Tensor t16 = Arange16();
  ExpectRuntimeError({"overflow", "sizes=[3]", "strides=[" + Str(k62) + "]"}, [&] {
    Tensor view = t16.AsStrided({3}, {k62}, 0);
    BinaryInplace(BinaryOp::kAdd, view, Scalar::Int(1));
  });
  const std::vector<double> expected = Values(Arange16());
  EXPECT_EQ(Values(t16), expected);
}

TEST(HostileGeometry, AsStridedAtTheLargestOffsetIsAnError) {
  const Tensor t16 = Arange16();
  ExpectRuntimeError({"overflow", "storage offset " + Str(kMax)}, [&] { t16.AsStrided({1}, {1}, kMax); });
  ExpectRuntimeError({"out of bounds", "storage offset " + Str(k32)}, [&] { t16.AsStrided({1}, {1}, k32); });
  // No elements: no storage needed, whatever the offset (as PyTorch).
  EXPECT_EQ(t16.AsStrided({0}, {1}, kMax).numel(), 0);
}

TEST(HostileGeometry, EmptyStridedThatOverflowsIsAnError) {
  ExpectRuntimeError({"overflow", "sizes=[" + Str(k62) + "]", "strides=[1]"},
                     [] { Tensor::EmptyStrided({k62}, {1}, ScalarType::kFloat32); });
  ExpectRuntimeError({"overflow", "sizes=[2, 3]"}, [] { Tensor::EmptyStrided({2, 3}, {k62, kMax}, ScalarType::kUint8); });
}

TEST(HostileGeometry, AsarrayOfAnArrayWhoseStridesOverflowIsAnError) {
  std::vector<float> memory(4);
  ExpectRuntimeError({"overflow", "sizes=[3]"}, [&] {
    AsarrayArray(reinterpret_cast<std::byte*>(memory.data()), ScalarType::kFloat32, {3}, {k62}, false, {});
  });
}

TEST(HostileGeometry, ElementAndByteAccessOutsideTheStorageIsAnInternalError) {
  const Tensor t16 = Arange16();
  ExpectError(Error::Kind::kInternal, {"element " + Str(kMax)}, [&] { t16.Read(kMax); });
  ExpectError(Error::Kind::kInternal, {"element -1"}, [&] { t16.Write(-1, Scalar::Int(0)); });
  std::byte b[2];
  ExpectError(Error::Kind::kInternal, {"past the end"},
              [&] { t16.storage()->ReadBytes(std::numeric_limits<std::size_t>::max(), b, 2); });
  ExpectError(Error::Kind::kInternal, {"past the end"}, [&] { t16.storage()->WriteBytes(63, b, 2); });
}

// ---------------------------------------------------------------- 3. counts that overflowed
TEST(HostileCounts, EmptyWhoseByteCountOverflowsIsAnError) {
  ExpectRuntimeError({"overflow", "sizes=[" + Str(k32) + ", " + Str(k32) + "]"},
                     [] { Tensor::Empty({k32, k32}, ScalarType::kFloat32); });
  ExpectRuntimeError({"overflow", "sizes=[" + Str(k62) + "]", "itemsize 8"},
                     [] { Tensor::Empty({k62}, ScalarType::kFloat64); });
}

TEST(HostileCounts, ViewsWhoseNumelOverflowsAreErrors) {
  const Tensor one = Tensor::FromScalars({}, ScalarType::kFloat32, {Scalar::Int(1)});
  ExpectRuntimeError({"numel", "[" + Str(k32) + ", " + Str(k32) + "]"},
                     [&] { Reshape(Expand(one, {k32, k32}), {-1}); });
  ExpectRuntimeError({"numel", "[" + Str(k31) + ", " + Str(k31) + ", 4]"},
                     [&] { Clone(Expand(one, {k31, k31, 4}), MemoryFormat::kContiguous); });
  const Tensor empty = Tensor::Empty({0}, ScalarType::kFloat32);
  ExpectRuntimeError({"numel", "[" + Str(k62) + ", " + Str(k62) + ", " + Str(k62 + 1) + "]"},
                     [&] { View(empty, {k62, k62, k62 + 1}); });
  ExpectRuntimeError({"numel", "[" + Str(k62) + ", 4]"}, [&] { empty.AsStrided({k62, 4}, {0, 0}, 0); });
}

TEST(HostileCounts, AZeroSizeMakesTheCountExactlyZero) {
  // The product of the sizes is 0, whatever the others: no overflow, and these are valid.
  const Tensor empty = Tensor::Empty({0}, ScalarType::kFloat32);
  const Tensor v = View(empty, {k62, k62, 0});
  EXPECT_EQ(v.numel(), 0);
  EXPECT_EQ(v.strides(), (std::vector<std::int64_t>{k62, 1, 1}));
  EXPECT_EQ(Tensor::Empty({k62, k62, 0}, ScalarType::kFloat32).numel(), 0);
}

TEST(HostileCounts, StridesThatDoNotFitAreErrors) {
  ExpectRuntimeError({"Stride calculation overflowed", "[0, " + Str(k62) + ", " + Str(k62) + "]"},
                     [] { Tensor::Empty({0, k62, k62}, ScalarType::kFloat32); });
  ExpectRuntimeError({"Stride calculation overflowed", "[" + Str(k62) + ", 4, " + Str(k62) + ", 2]"},
                     [] { Empty({k62, 4, k62, 2}, ScalarType::kFloat32, MemoryFormat::kChannelsLast); });
  // The product of all the sizes is never a stride: only the strides must fit.
  EXPECT_EQ(ContiguousStrides({k62, 4}), (std::vector<std::int64_t>{4, 1}));
}

TEST(HostileCounts, ViewStridesAndOffsetsThatOverflowAreErrorsNamingTheCall) {
  // Storages of 2^62 + 2 bytes exist on meta: views near the limit are real there.
  const Tensor wide = MetaBytes(k62 + 2).AsStrided({2}, {k62}, 0);
  ExpectRuntimeError({"unsqueeze(0)", "overflows int64", "strides [" + Str(k62) + "]"}, [&] { Unsqueeze(wide, 0); });
  ExpectRuntimeError({"expand([1, 2])", "overflows int64"}, [&] { Expand(wide, {1, 2}); });
  ExpectRuntimeError({"view([1, 2])", "overflows int64"}, [&] { View(wide, {1, 2}); });
  ExpectRuntimeError({"slice(0, 2, 2, 1)", "overflows int64"}, [&] { Slice(wide, 0, 2, 2, 1); });
  const Tensor four = MetaBytes(3 * k61 + 1).AsStrided({4}, {k61}, 0);
  ExpectRuntimeError({"slice(0, 0, 4, 4)", "overflows int64", "strides [" + Str(k61) + "]"},
                     [&] { Slice(four, 0, 0, 4, 4); });
  // What fits still works: the last element, and a leading dimension that is broadcast.
  EXPECT_EQ(Select(wide, 0, 1).storage_offset(), k62);
  EXPECT_EQ(Expand(wide, {3, 2}).strides(), (std::vector<std::int64_t>{0, k62}));
  EXPECT_EQ(Unsqueeze(wide, 1).strides(), (std::vector<std::int64_t>{k62, 1}));
}

// ---------------------------------------------------------------- 4. slice steps
TEST(HostileSlice, AnyStepGivesCeilOfTheRangeOverTheStep) {
  const Tensor t16 = Arange16();
  const Tensor one = Slice(t16, 0, 0, 16, kMax);
  EXPECT_EQ(one.sizes(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(Values(one), (std::vector<double>{0}));
  EXPECT_EQ(Slice(t16, 0, 1, 16, kMax - 1).sizes(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(Values(Slice(t16, 0, kMin, kMax, 5)), (std::vector<double>{0, 5, 10, 15}));
  EXPECT_EQ(Slice(t16, 0, kMax, kMin, 1).numel(), 0);
  ExpectRuntimeError({"step must be positive"}, [&] { Slice(t16, 0, 0, 16, kMin); });
}

// ---------------------------------------------------------------- 6. deep sequences
PyValue Nested(std::size_t depth) {
  PyValue v;
  v.scalar = Scalar::Int(7);
  for (std::size_t k = 0; k < depth; ++k) {
    PyValue list;
    list.is_list = true;
    list.items.push_back(std::move(v));
    v = std::move(list);
  }
  return v;
}

PyValue List(std::vector<PyValue> items) {
  PyValue v;
  v.is_list = true;
  v.items = std::move(items);
  return v;
}
PyValue Num(std::int64_t i) {
  PyValue v;
  v.scalar = Scalar::Int(i);
  return v;
}

TEST(HostileSequence, NestingBeyondTheLimitIsAValueErrorNotAStackOverflow) {
  PyValue deep = Nested(100000);
  ExpectError(Error::Kind::kValueError, {"too many dimensions 'list'", "128"}, [&] { AsarrayValue(deep, {}); });
  EXPECT_EQ(InferScalarType(deep), ScalarType::kInt64);  // walks every level, without recursion
  PyValue copy = deep;                                    // copies without recursion
  EXPECT_EQ(InferScalarType(copy), ScalarType::kInt64);
  deep = std::move(copy.items.front());                   // a value taken from inside another
  ExpectError(Error::Kind::kValueError, {"too many dimensions"}, [&] { AsarrayValue(deep, {}); });
  // deep and copy are freed at the end of the test, without recursion
  PyValue over = Nested(kMaxSequenceDims + 1);
  ExpectError(Error::Kind::kValueError, {"too many dimensions"}, [&] { AsarrayValue(over, {}); });
  const PyValue limit = Nested(kMaxSequenceDims);
  const Tensor t = AsarrayValue(limit, {});
  EXPECT_EQ(t.sizes(), std::vector<std::int64_t>(kMaxSequenceDims, 1));
  EXPECT_EQ(Values(t), (std::vector<double>{7}));
}

TEST(HostileSequence, RaggedSequencesAreErrorsWhereverTheyAre) {
  ExpectError(Error::Kind::kTypeError, {"expected a number at dim 1", "sequence of length 1"},
              [] { AsarrayValue(List({Num(1), List({Num(2)})}), {}); });
  ExpectError(Error::Kind::kTypeError, {"not a sequence", "at dim 1", "sequence of length 1"},
              [] { AsarrayValue(List({List({Num(1)}), Num(2)}), {}); });
  ExpectError(Error::Kind::kValueError, {"expected sequence of length 2 at dim 1 (got 1)"},
              [] { AsarrayValue(List({List({Num(1), Num(2)}), List({Num(3)})}), {}); });
  ExpectError(Error::Kind::kValueError, {"expected sequence of length 0 at dim 1 (got 1)"},
              [] { AsarrayValue(List({List({}), List({Num(3)})}), {}); });
}

// ---------------------------------------------------------------- 11. bool bytes, allocation
TEST(HostileBool, AnyNonZeroByteReadsAsTrue) {
  std::uint8_t bytes[] = {0, 1, 2, 255};
  AsarrayOptions as_bool;
  as_bool.dtype = ScalarType::kBool;
  const Tensor b = AsarrayBuffer(reinterpret_cast<std::byte*>(bytes), sizeof bytes, as_bool);
  EXPECT_EQ(Values(b), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(Values(Binary(BinaryOp::kMul, b, b)), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(Values(Binary(BinaryOp::kAdd, b, b)), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(Values(Binary(BinaryOp::kMul, b, Scalar::Bool(true))), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(Values(Binary(BinaryOp::kAdd, b, Scalar::Int(1))), (std::vector<double>{1, 2, 2, 2}));
  EXPECT_EQ(Values(To(b, ScalarType::kInt32, Device::Cpu())), (std::vector<double>{0, 1, 1, 1}));
  const Tensor strided = b.AsStrided({2}, {2}, 0);  // the buffered (non-contiguous) loop
  EXPECT_EQ(Values(Binary(BinaryOp::kMul, strided, strided)), (std::vector<double>{0, 1}));
  Producer p(kBool, {4}, {}, 4);
  std::memcpy(p.memory.data(), bytes, 4);
  EXPECT_EQ(Values(FromDLPack(&p.managed)), (std::vector<double>{0, 1, 1, 1}));
}

// ---------------------------------------------------------------- floating -> integral casts
// NaN, the infinities and values out of the target's range: undefined in C++ (and in c10's
// static_cast), defined in the reference (ref::FloatToIntegral); --config=asan's
// -fsanitize=float-cast-overflow holds every path to that.
TEST(HostileCast, FloatToIntegralIsDefinedForEveryInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(Convert<std::int64_t>(nan), kMin);
  EXPECT_EQ(Convert<std::int64_t>(-inf), kMin);
  EXPECT_EQ(Convert<std::int64_t>(9.3e18), kMin);                        // past 2^63
  EXPECT_EQ(Convert<std::int64_t>(-9.2e18), std::int64_t{-9200000000000000000});  // held: truncated
  EXPECT_EQ(Convert<std::int32_t>(3e9f), kMin32);
  EXPECT_EQ(Convert<std::int32_t>(-2.75), -2);
  EXPECT_EQ(Convert<std::int8_t>(200.0), -56);      // through int32, then modulo 2^8
  EXPECT_EQ(Convert<std::int16_t>(inf), 0);         // int32's lowest, modulo 2^16
  EXPECT_EQ(Convert<std::uint8_t>(-1.0), 255);      // through int64, as c10 casts to uint8
  EXPECT_EQ(Convert<std::uint8_t>(300.5f), 44);
  EXPECT_EQ(Convert<std::uint8_t>(nan), 0);
  EXPECT_EQ(Convert<std::int32_t>(std::complex<double>(nan, 1.0)), kMin32);  // the real part
  EXPECT_EQ(Convert<std::int64_t>(Half(65504.0f)), 65504);

  // Through a tensor's cast (the CPU loop) and a copy into an integral tensor.
  double src[] = {nan, inf, -inf, -1.0, 300.5, 1e300};
  AsarrayOptions as_f64;
  as_f64.dtype = ScalarType::kFloat64;
  const Tensor f = AsarrayBuffer(reinterpret_cast<std::byte*>(src), sizeof src, as_f64);
  const double m64 = static_cast<double>(kMin);
  EXPECT_EQ(Values(To(f, ScalarType::kInt64, Device::Cpu())), (std::vector<double>{m64, m64, m64, -1, 300, m64}));
  EXPECT_EQ(Values(To(f, ScalarType::kUint8, Device::Cpu())), (std::vector<double>{0, 0, 0, 255, 44, 0}));
  const Tensor i8 = Tensor::Empty({6}, ScalarType::kInt8, Device::Cpu());
  CopyInto(i8, f);
  EXPECT_EQ(Values(i8), (std::vector<double>{0, 0, 0, -1, 44, 0}));
}

// Sizes beyond any address space (2^62 bytes), so the allocation fails wherever this runs,
// whatever the kernel's overcommit policy.
constexpr std::int64_t kHuge = std::int64_t{1} << 60;

TEST(HostileAllocation, MemoryThatCannotBeHadIsARuntimeErrorNamingTheSize) {
  ExpectRuntimeError({"can't allocate memory", Str(4 * kHuge) + " bytes"},
                     [&] { Tensor::Empty({kHuge}, ScalarType::kFloat32); });
  ExpectRuntimeError({"can't allocate memory", Str(4 * kHuge) + " bytes"},
                     [&] { Tensor::EmptyStrided({2, kHuge / 2}, {kHuge / 2, 1}, ScalarType::kFloat32); });
}

TEST(HostileAllocation, AFailedRestrideLeavesTheTensorAsItWas) {
  Tensor t = Arange16();
  ExpectRuntimeError({"overflow"}, [&] { t.Restride({k62}, {1}); });
  ExpectRuntimeError({"can't allocate memory"}, [&] { t.Restride({kHuge}, {1}); });
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{16}));
  EXPECT_EQ(Values(t), Values(Arange16()));
}

// ---------------------------------------------------------------- more hostile arguments
TEST(HostileArguments, NegativeSizesStridesAndOffsetsAreErrors) {
  const Tensor t16 = Arange16();
  ExpectRuntimeError({"negative dimension -1", "[-1]"}, [] { Tensor::Empty({-1}, ScalarType::kFloat32); });
  ExpectRuntimeError({"negative dimension " + Str(kMin)}, [] { Tensor::Empty({2, kMin}, ScalarType::kFloat32); });
  ExpectRuntimeError({"Negative strides", "[-1]"}, [&] { t16.AsStrided({2}, {-1}, 4); });
  ExpectRuntimeError({"Negative strides", "[" + Str(kMin) + "]"},
                     [] { Tensor::EmptyStrided({2}, {kMin}, ScalarType::kFloat32); });
  ExpectRuntimeError({"invalid storage offset " + Str(kMin)}, [&] { t16.AsStrided({1}, {1}, kMin); });
  ExpectRuntimeError({"mismatch in length", "[2, 2]", "[1]"}, [&] { t16.AsStrided({2, 2}, {1}, 0); });
}

TEST(HostileArguments, ExtremeDimensionsAndIndicesAreErrors) {
  const Tensor t = Arange16().AsStrided({4, 4}, {4, 1}, 0);
  ExpectError(Error::Kind::kIndexError, {"Dimension out of range", Str(kMin)}, [&] { Transpose(t, kMin, 0); });
  ExpectError(Error::Kind::kIndexError, {"Dimension out of range", Str(kMax)}, [&] { Unsqueeze(t, kMax); });
  ExpectError(Error::Kind::kIndexError, {"Dimension out of range"}, [&] { Permute(t, {kMin, 0}); });
  ExpectError(Error::Kind::kIndexError, {"index " + Str(kMin)}, [&] { Select(t, 0, kMin); });
  ExpectError(Error::Kind::kIndexError, {"but got " + Str(kMin)}, [&] { Narrow(t, 0, kMin, 1); });
  ExpectRuntimeError({"length (" + Str(kMax) + ")"}, [&] { Narrow(t, 0, 1, kMax); });
  ExpectRuntimeError({"invalid shape dimension " + Str(kMin)}, [&] { View(t, {kMin, -1}); });
  ExpectRuntimeError({"only one dimension can be inferred"}, [&] { Reshape(t, {-1, -1}); });
  ExpectRuntimeError({"expanded size", Str(kMin)}, [&] { Expand(t, {4, kMin}); });
  ExpectRuntimeError({"negative dimension " + Str(kMin)}, [&] { Expand(Select(t, 1, 0), {kMin, 4}); });
}

TEST(HostileArguments, ManyDimensionsWork) {
  const std::vector<std::int64_t> ones(100000, 1);
  const Tensor t = Tensor::Empty(ones, ScalarType::kFloat32);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(Squeeze(t, std::nullopt).dim(), 0);
  EXPECT_EQ(View(t, {1}).numel(), 1);
}

TEST(HostileArguments, DeviceStringsWithControlBytesAreEchoedWhole) {
  // what() is a C string: an unescaped NUL would cut the message (and the list of types) short.
  ExpectRuntimeError({"'cuda\\x00:0'", "privateuseone"}, [] { Device::Parse(std::string("cuda\0:0", 7)); });
  ExpectRuntimeError({"'cpu\\n'", "meta"}, [] { Device::Parse("cpu\n"); });
  ExpectRuntimeError({"'a\\\\b'"}, [] { Device::Parse("a\\b"); });
}

// uint16/32/64 (scalar_type.h TCTS_REF_FORALL_BAREBONES_TYPES): a tensor of them is made and
// described (spec/dtypes.toml [barebones_tensor]); their values are not converted from floats,
// and no copy or kernel touches them (never a device kernel's trap).
TEST(BarebonesUnsigned, MadeAndDescribedButNeverCopiedOrComputed) {
  for (const ScalarType d : {ScalarType::kUint16, ScalarType::kUint32, ScalarType::kUint64}) {
    const Tensor t = Tensor::FromScalars({2}, d, {Scalar::Int(0), Scalar::Int(1)});
    EXPECT_EQ(t.dtype(), d);
    EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{2}));
    ExpectRuntimeError({"integers only"}, [d] { Tensor::FromScalars({1}, d, {Scalar::Float(0.5)}); });
    ExpectRuntimeError({"copies no"}, [&t] { Clone(t, MemoryFormat::kContiguous); });
    ExpectRuntimeError({"copies no"}, [&t] { To(t, ScalarType::kInt64, Device::Cpu()); });
    ExpectRuntimeError({"no kernel"}, [&t] { t.Read(0); });
  }
}

TEST(Checked, ArithmeticIsExactOrFlagged) {
  EXPECT_EQ((CheckedInt(k62) + k62 - 1).value(), std::nullopt);  // overflow stays flagged
  EXPECT_EQ((CheckedInt(k62) * 2 - k62).value(), std::nullopt);
  EXPECT_EQ((CheckedInt(kMax) - kMax + 1).value(), std::optional<std::int64_t>(1));
  EXPECT_EQ((CheckedInt(kMin) - 1).value(), std::nullopt);
  EXPECT_EQ((CheckedInt(-k31) * k32).value(), std::optional<std::int64_t>(kMin));
  EXPECT_TRUE(RangeWithin(0, 4, 4));
  EXPECT_FALSE(RangeWithin(1, 4, 4));
  EXPECT_FALSE(RangeWithin(std::numeric_limits<std::size_t>::max(), 2, 4));
}

}  // namespace
}  // namespace tcts::ref
