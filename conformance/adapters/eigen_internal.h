// Internal to the Eigen adapter (conformance/adapters/eigen.cc): what its translation units
// share. Eigen's Tensor module, included with eigen_assert defined to throw; the dtypes as Eigen
// scalar types and back; the ranks 0..kMaxRank as template arguments; the tensor box (an
// Eigen::Tensor<T, N, RowMajor> behind a TensorHandle); Guard and the TypeError of an ill-formed
// expression. eigen.cc holds the Candidate and its values, storage and dtype queries;
// eigen_binary.cc the add/sub/mul/div expressions, so Eigen's template instantiations are spread
// over two files (compiled in parallel). See eigen.cc for how the suite's calls map onto Eigen.
#ifndef TCTS_CONFORMANCE_ADAPTERS_EIGEN_INTERNAL_H_
#define TCTS_CONFORMANCE_ADAPTERS_EIGEN_INTERNAL_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tcts_eigen {
// What eigen_assert throws: Eigen's own run-time precondition failed.
struct AssertionFailed : std::logic_error {
  using std::logic_error::logic_error;
};
[[noreturn]] inline void Fail(const char* condition, const char* file, int line) {
  std::string f = file;
  const std::size_t slash = f.rfind('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  throw AssertionFailed(std::string("eigen_assert(") + condition + ") failed (" + f + ":" + std::to_string(line) + ")");
}
}  // namespace tcts_eigen

#define eigen_assert(x) ((x) ? static_cast<void>(0) : ::tcts_eigen::Fail(#x, __FILE__, __LINE__))
#include <unsupported/Eigen/CXX11/Tensor>

#include "conformance/adapters/typed.h"
#include "conformance/candidate/candidate.h"

namespace tcts {
namespace eigen_adapter {

// Tensors of ranks 0..kMaxRank; add/sub/mul/div expressions (instantiated per scalar type,
// rank and op, the bulk of the build) of ranks 0..kMaxOpRank, the ranks the suites' operands have.
constexpr int kMaxRank = 8;
constexpr int kMaxOpRank = 5;
using Index = Eigen::Index;
template <class T, int N>
using ETensor = Eigen::Tensor<T, N, Eigen::RowMajor>;

using typed::Tag;

// ---------------------------------------------------------------- dtypes <-> Eigen scalar types
// The Eigen scalar type of each dtype (no std::complex<Eigen::half>: no complex32).
using Types = typed::TypeMap<
    typed::Entry<DType::kFloat32, float>, typed::Entry<DType::kFloat64, double>,
    typed::Entry<DType::kComplex64, std::complex<float>>, typed::Entry<DType::kComplex128, std::complex<double>>,
    typed::Entry<DType::kFloat16, Eigen::half>, typed::Entry<DType::kBfloat16, Eigen::bfloat16>,
    typed::Entry<DType::kUint8, std::uint8_t>, typed::Entry<DType::kInt8, std::int8_t>,
    typed::Entry<DType::kInt16, std::int16_t>, typed::Entry<DType::kInt32, std::int32_t>,
    typed::Entry<DType::kInt64, std::int64_t>, typed::Entry<DType::kBool, bool>>;

inline Error NoSuchType(DType d) {
  return Error{ErrorKind::kNotImplementedError,
               std::string("Eigen has no scalar type for ") + DTypeName(d) + " (no std::complex<Eigen::half>)"};
}

// Calls f(Tag<T>{}) with the Eigen scalar type of d.
template <class R, class F>
R WithDType(DType d, F&& f) {
  return Types::With<R>(d, std::forward<F>(f), NoSuchType);
}
template <class T>
constexpr DType DTypeOf() {
  return Types::DTypeOf<T>();
}
template <class T>
constexpr bool kIsDType = Types::kHas<T>;

template <class T>
std::string TypeName() {
  if constexpr (kIsDType<T>) {
    switch (DTypeOf<T>()) {
      case DType::kFloat32: return "float";
      case DType::kFloat64: return "double";
      case DType::kComplex64: return "std::complex<float>";
      case DType::kComplex128: return "std::complex<double>";
      case DType::kFloat16: return "Eigen::half";
      case DType::kBfloat16: return "Eigen::bfloat16";
      case DType::kUint8: return "uint8_t";
      case DType::kInt8: return "int8_t";
      case DType::kInt16: return "int16_t";
      case DType::kInt32: return "int32_t";
      case DType::kInt64: return "int64_t";
      case DType::kBool: return "bool";
      default: break;
    }
  }
  if constexpr (std::is_same_v<T, int>) return "int";
  if constexpr (std::is_same_v<T, long>) return "long";
  return "?";
}

// ---------------------------------------------------------------- ranks
// Calls f(std::integral_constant<int, N>{}) for rank N <= Max.
template <class R, int Max = kMaxRank, int N = 0, class F>
R WithRank(std::size_t rank, F&& f) {
  if constexpr (N > Max) {
    return Error{ErrorKind::kRuntimeError, "Eigen::Tensor's rank is a template parameter; this adapter instantiates " +
                                               std::string(Max == kMaxRank ? "tensors" : "expressions") + " of ranks 0.." +
                                               std::to_string(Max) + ", not " + std::to_string(rank)};
  } else {
    if (rank == static_cast<std::size_t>(N)) return f(std::integral_constant<int, N>{});
    return WithRank<R, Max, N + 1>(rank, std::forward<F>(f));
  }
}

// ---------------------------------------------------------------- tensors
struct EigenBox : TensorBox {
  virtual DType dtype() const = 0;
  virtual int rank() const = 0;
};
template <class T, int N>
struct Box final : EigenBox {
  ETensor<T, N> t;
  DType dtype() const override { return DTypeOf<T>(); }
  int rank() const override { return N; }
};

inline EigenBox& Unbox(const TensorHandle& h) {
  auto* box = dynamic_cast<EigenBox*>(h.get());
  if (!box) throw std::logic_error("tensor handle does not belong to the eigen candidate");
  return *box;
}

// Calls f(tensor) with h's Eigen::Tensor<T, N, RowMajor>.
template <class R, int Max = kMaxRank, class F>
R WithTensor(const TensorHandle& h, F&& f) {
  EigenBox& box = Unbox(h);
  return WithDType<R>(box.dtype(), [&](auto tag) -> R {
    using T = typename decltype(tag)::type;
    return WithRank<R, Max>(static_cast<std::size_t>(box.rank()), [&](auto n) -> R {
      return f(static_cast<Box<T, decltype(n)::value>&>(box).t);
    });
  });
}

template <class T, int N>
TensorHandle BoxOf(ETensor<T, N> t) {
  auto box = std::make_shared<Box<T, N>>();
  box->t = std::move(t);
  return box;
}

// ---------------------------------------------------------------- errors
template <class F>
auto Guard(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const tcts_eigen::AssertionFailed& e) {
    return Error{ErrorKind::kRuntimeError, e.what()};
  } catch (const std::bad_alloc& e) {
    return Error{ErrorKind::kRuntimeError, std::string("std::bad_alloc: ") + e.what()};
  } catch (const std::exception& e) {
    return Error{ErrorKind::kInternal, e.what()};
  }
}

inline Error IllFormed(const std::string& expression, const std::string& rule) {
  return Error{ErrorKind::kTypeError, "ill-formed Eigen expression " + expression + ": " + rule};
}
const char kMixedTypes[] =
    "Eigen does not mix scalar types; an explicit cast<T>() is required (YOU_MIXED_DIFFERENT_NUMERIC_TYPES__YOU_NEED_TO_"
    "USE_THE_CAST_METHOD_OF_MATRIXBASE_TO_CAST_NUMERIC_TYPES_EXPLICITLY)";

// ---------------------------------------------------------------- add/sub/mul/div (eigen_binary.cc)
// The Scalar type of the Eigen expression a + b.
Result<DType> ResultType(const Operand& a, const Operand& b);
// a op b, evaluated into a new tensor.
Result<TensorHandle> Binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha);
// out = a op b.
Status BinaryOut(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, const TensorHandle& out);
// self op= other.
Status BinaryInplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha);

}  // namespace eigen_adapter
}  // namespace tcts

#endif  // TCTS_CONFORMANCE_ADAPTERS_EIGEN_INTERNAL_H_
