// Adapter: Eigen's Tensor module (Eigen 3.4, unsupported/Eigen/CXX11/Tensor; Debian
// libeigen3-dev) as a candidate. Translation only: every answer is what an Eigen expression
// gives, written as a user of Eigen writes it — or, where that expression is ill-formed C++
// (mixed scalar types, eigen_binary.cc), the TypeError its compile error stands for, naming
// Eigen's own static assertion (eigen_internal.h IllFormed).
//
// How the suite's calls map onto Eigen:
//  * A tensor is an Eigen::Tensor<T, N, Eigen::RowMajor> (dense, owning its memory; RowMajor
//    because torch.tensor(values).reshape(sizes) lists values in row-major order). The rank N
//    is a template parameter in Eigen; the adapter instantiates ranks 0..kMaxRank.
//  * dtypes: float, double, std::complex<float>, std::complex<double>, Eigen::half,
//    Eigen::bfloat16, uint8_t, int8_t, int16_t, int32_t, int64_t, bool. complex32 has no Eigen
//    scalar type (Eigen has no std::complex<Eigen::half> support): NotImplementedError.
//  * A Python number is the C++ literal a user writes: true/false (bool), an integer literal
//    (int, or long when it does not fit an int: the C++ literal rule), a floating literal
//    (double), std::complex<double>.
//  * Eigen does no type promotion. An expression must be well-formed C++; where it is not,
//    the adapter answers TypeError naming Eigen's rule (the compiler rejects the program, so
//    there is no value to report). The rules, read from Eigen 3.4's headers and confirmed by
//    compiling each combination:
//      - tensor op tensor (TensorBase::operator+ etc., TensorBase.h): both operands' scalar
//        types must be the same (the functor is scalar_sum_op<Scalar>, Scalar the left's; a
//        mixed expression does not compile: "mixing different numeric types requires an
//        explicit cast()", XprHelper.h EIGEN_CHECK_BINARY_COMPATIBILIY). Operands of different
//        ranks or sizes compile; the binary evaluator rejects them at run time with
//        eigen_assert(dimensions_match(...)) (TensorEvaluator.h): no broadcasting without an
//        explicit .broadcast(). (For different ranks only that evaluator is constructed.)
//      - tensor op scalar (TensorBase::operator+(Scalar rhs)): the scalar must already be
//        the tensor's Scalar type; any other type selects the templated tensor overload and
//        does not compile. operator-(Scalar) also static-asserts a signed Scalar.
//      - scalar op tensor (the friend operator+(Scalar lhs, const Derived&)): the scalar
//        converts implicitly to the tensor's Scalar type (C++ copy-initialisation, so 2.5 +
//        an int tensor adds 2) or the expression does not compile.
//      - out=: out = expr assigns (and resizes, Tensor::operator=) only an expression of out's
//        Scalar type; from another rank it reads the expression's dimensions as out's rank
//        (undefined: not executed, Internal). In-place: self += other (TensorBase::operator+=,
//        self = self + other) takes a tensor expression of self's type, never a scalar.
//      - two Python numbers: no Eigen expression at all.
//  * add/sub's alpha (when not 1): a + alpha * b, alpha * b evaluated first (for a tensor b
//    Eigen's friend operator*(Scalar, const Derived&); for a scalar b, C++ arithmetic).
//  * eigen_assert is defined to throw (Eigen lets a program define it, Macros.h), so Eigen's
//    own run-time checks answer RuntimeError whatever NDEBUG the adapter is built with; the
//    adapter is built with -fwrapv (conformance/adapters/BUILD), so integer overflow wraps
//    whatever the optimisation or sanitizer flags. What C++ leaves undefined is not executed
//    (an Internal error says so): integer division by zero or INT_MIN / -1, which Eigen's /
//    performs as it is (SIGFPE on x86-64).
//  * Eigen's Tensor has no views that share storage (slicing, shuffling and striding are
//    expressions evaluated into new tensors), no memory formats or strided allocation, no
//    default dtype, no devices, no dtype names, no can_cast query, no asarray, no DLPack: those
//    features are declared unsupported.
//
// The adapter is three files: eigen_internal.h (Eigen with a throwing eigen_assert, dtypes,
// ranks, the tensor box, errors), eigen_binary.cc (the add/sub/mul/div expressions) and this
// one (values in and out, and the Candidate: metadata, dtype queries, tensors, storage).
#include "conformance/adapters/eigen_internal.h"

#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tcts {
namespace eigen_adapter {
namespace {

// ---------------------------------------------------------------- values in and out
using typed::ToScalar;
using typed::Wide;

// n elements of T at p, widened with Eigen's cast<W>().
template <class T>
std::vector<Scalar> Read(const T* p, Index n) {
  using W = Wide<T>;
  std::vector<Scalar> out;
  if (n == 0) return out;
  const ETensor<W, 1> w = Eigen::TensorMap<const ETensor<T, 1>>(p, n).template cast<W>();
  out.reserve(static_cast<std::size_t>(n));
  for (Index k = 0; k < n; ++k) out.push_back(ToScalar(w(k)));
  return out;
}

// Writes `values` (all of kind W) to p, converted with Eigen's cast<T>() (Eigen's
// internal::cast_impl: a static_cast, or the explicit constructors of half/bfloat16).
template <class T, class W>
Status WriteAs(T* p, const std::vector<Scalar>& values, std::size_t first, std::size_t count) {
  if constexpr (!std::is_constructible_v<T, W> && !(Eigen::NumTraits<T>::IsComplex && std::is_arithmetic_v<W>)) {
    return IllFormed("Tensor<" + TypeName<W>() + ">::cast<" + TypeName<T>() + ">()",
                     "internal::cast_impl is static_cast<" + TypeName<T>() + ">(" + TypeName<W>() + "), which does not exist");
  } else {
    ETensor<W, 1> w(static_cast<Index>(count));
    for (std::size_t k = 0; k < count; ++k) {
      const Scalar& s = values[first + k];
      if constexpr (std::is_same_v<W, bool>) w(static_cast<Index>(k)) = s.b;
      else if constexpr (std::is_same_v<W, std::int64_t>) w(static_cast<Index>(k)) = s.i;
      else if constexpr (std::is_same_v<W, double>) w(static_cast<Index>(k)) = s.f;
      else w(static_cast<Index>(k)) = s.c;
    }
    Eigen::TensorMap<ETensor<T, 1>>(p, static_cast<Index>(count)) = w.template cast<T>();
    return {};
  }
}

template <class T>
Status Write(T* p, const std::vector<Scalar>& values) {
  // Runs of one kind are cast together (one Eigen cast per run).
  for (std::size_t k = 0; k < values.size();) {
    std::size_t end = k;
    while (end < values.size() && values[end].kind == values[k].kind) ++end;
    Status s;
    switch (values[k].kind) {
      case Scalar::Kind::kBool: s = WriteAs<T, bool>(p + k, values, k, end - k); break;
      case Scalar::Kind::kInt: s = WriteAs<T, std::int64_t>(p + k, values, k, end - k); break;
      case Scalar::Kind::kFloat: s = WriteAs<T, double>(p + k, values, k, end - k); break;
      case Scalar::Kind::kComplex: s = WriteAs<T, std::complex<double>>(p + k, values, k, end - k); break;
    }
    if (!s.ok()) return s;
    k = end;
  }
  return {};
}

// ---------------------------------------------------------------- the candidate
class EigenCandidate final : public CandidateOf<EigenCandidate> {
 public:
  std::string name() const override { return "eigen"; }
  std::string version() const override {
    return std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION);
  }
  std::string build() const override {
    return std::string("Eigen Tensor module (header-only, /usr/include/eigen3); compiled by ") + __VERSION__ +
           "; RowMajor tensors of ranks 0.." + std::to_string(kMaxRank) + "; eigen_assert throws; SIMD: " +
           Eigen::SimdInstructionSetsInUse();
  }

  // complex32 has no Eigen scalar type (above): declared missing, so its cases are NOT_SUPPORTED
  // naming the dtype rather than each answering NotImplementedError. uint16/32/64, outside the
  // documents' twelve, are not translated yet (WithDType has no case for them; Eigen itself
  // takes std::uint16_t etc. as scalars): declared missing too.
  bool supports_dtype(DType d) const override { return DTypeDocumented(d); }

  // Its features are the ops it overrides (CandidateOf), and no feature of an answer.

  // -- dtypes: Eigen::NumTraits and std::numeric_limits (specialised by Eigen for half/bfloat16).
  Result<DTypeInfo> dtype_info(DType d) override {
    return WithDType<Result<DTypeInfo>>(d, [](auto tag) -> Result<DTypeInfo> {
      using T = typename decltype(tag)::type;
      using NT = Eigen::NumTraits<T>;
      DTypeInfo info;
      info.itemsize = static_cast<int>(sizeof(T));
      info.is_complex = NT::IsComplex;
      info.is_floating_point = !NT::IsComplex && !NT::IsInteger;
      info.is_signed = NT::IsSigned;
      return info;
    });
  }

  Result<FloatInfo> finfo(DType d) override {
    return WithDType<Result<FloatInfo>>(d, [&](auto tag) -> Result<FloatInfo> {
      using T = typename decltype(tag)::type;
      using NT = Eigen::NumTraits<T>;
      if constexpr (NT::IsComplex || NT::IsInteger) {
        return Error{ErrorKind::kTypeError, std::string("NumTraits<") + TypeName<T>() + "> is not a real floating type"};
      } else {
        FloatInfo fi;
        fi.bits = static_cast<int>(sizeof(T) * 8);
        fi.eps = static_cast<double>(NT::epsilon());
        fi.max = static_cast<double>(NT::highest());
        fi.min = static_cast<double>(NT::lowest());
        fi.tiny = static_cast<double>((std::numeric_limits<T>::min)());
        return fi;
      }
    });
  }

  // -- promotion: ScalarBinaryOpTraits<A, B>::ReturnType ("Determines whether the given binary
  // operation of two numeric types is allowed and what the scalar return type is",
  // XprHelper.h). Without a ReturnType the operation is not allowed.
  Result<DType> promote_types(DType a, DType b) override {
    return WithDType<Result<DType>>(a, [&](auto ta) -> Result<DType> {
      return WithDType<Result<DType>>(b, [&](auto tb) -> Result<DType> {
        using A = typename decltype(ta)::type;
        using B = typename decltype(tb)::type;
        if constexpr (HasReturnType<Eigen::ScalarBinaryOpTraits<A, B>>::value) {
          using RT = typename Eigen::ScalarBinaryOpTraits<A, B>::ReturnType;
          if constexpr (kIsDType<RT>) return DTypeOf<RT>();
          else return Error{ErrorKind::kInternal, "ScalarBinaryOpTraits gave a type outside the suite's dtypes"};
        } else {
          return IllFormed("ScalarBinaryOpTraits<" + TypeName<A>() + ", " + TypeName<B>() + ">::ReturnType",
                           std::string("the operation is not allowed: ") + kMixedTypes);
        }
      });
    });
  }

  // The Scalar type of the Eigen expression a + b (eigen_binary.cc).
  Result<DType> result_type(const Operand& a, const Operand& b) override { return ResultType(a, b); }

  // -- tensors
  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                   const std::vector<Scalar>& values) override {
    return Guard([&]() -> Result<TensorHandle> {
      if (std::optional<Error> e = typed::ValueCountError(sizes, values)) return *e;
      return WithDType<Result<TensorHandle>>(dtype, [&](auto tag) -> Result<TensorHandle> {
        using T = typename decltype(tag)::type;
        return WithRank<Result<TensorHandle>>(sizes.size(), [&](auto rank) -> Result<TensorHandle> {
          constexpr int N = decltype(rank)::value;
          Eigen::array<Index, N> dims;
          for (int k = 0; k < N; ++k) dims[k] = static_cast<Index>(sizes[k]);
          ETensor<T, N> t(dims);
          // RowMajor: the values, listed in row-major order, are t's memory in order.
          Status s = Write<T>(t.data(), values);
          if (!s.ok()) return s.error();
          return BoxOf<T, N>(std::move(t));
        });
      });
    });
  }

  Result<TensorMeta> meta(const TensorHandle& h) override {
    return Guard([&]() -> Result<TensorMeta> {
      return WithTensor<Result<TensorMeta>>(h, [&](auto& t) -> Result<TensorMeta> {
        using TT = std::decay_t<decltype(t)>;
        constexpr int N = TT::NumIndices;
        TensorMeta m;
        m.dtype = DTypeOf<typename TT::Scalar>();
        m.device = "cpu";  // Eigen's Tensor lives in host memory
        m.layout = Layout::kStrided;
        // Eigen addresses element i at data() + dimensions().IndexOfRowMajor(i)
        // (Tensor::linearizedIndex): the strides are that map's value at each unit index.
        if constexpr (N == 0) {
          m.storage_offset = static_cast<std::int64_t>(&t() - t.data());
        } else {
          const auto& dims = t.dimensions();
          Eigen::array<Index, N> index;
          for (int k = 0; k < N; ++k) index[k] = 0;
          m.storage_offset = static_cast<std::int64_t>(dims.IndexOfRowMajor(index));
          for (int k = 0; k < N; ++k) {
            m.sizes.push_back(static_cast<std::int64_t>(dims[k]));
            index[k] = 1;
            m.strides.push_back(static_cast<std::int64_t>(dims.IndexOfRowMajor(index)) - m.storage_offset);
            index[k] = 0;
          }
        }
        return m;
      });
    });
  }

  Result<std::vector<Scalar>> values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> {
      return WithTensor<Result<std::vector<Scalar>>>(h, [&](auto& t) -> Result<std::vector<Scalar>> {
        // RowMajor: row-major order is memory order.
        return Read(t.data(), t.size());
      });
    });
  }

  // -- add/sub/mul/div: Eigen expressions (eigen_binary.cc)
  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    return Binary(op, a, b, alpha);
  }
  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    return BinaryOut(op, a, b, alpha, out);
  }
  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) override {
    return BinaryInplace(op, self, other, alpha);
  }

  // -- storage: an Eigen::Tensor owns one block of memory, data() .. data() + size().
  Result<StorageInfo> storage(const TensorHandle& h) override {
    return Guard([&]() -> Result<StorageInfo> {
      return WithTensor<Result<StorageInfo>>(h, [&](auto& t) -> Result<StorageInfo> {
        return StorageInfo{reinterpret_cast<std::uintptr_t>(t.data()), static_cast<std::int64_t>(t.size())};
      });
    });
  }
  Result<std::vector<Scalar>> storage_values(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::vector<Scalar>> {
      return WithTensor<Result<std::vector<Scalar>>>(
          h, [&](auto& t) -> Result<std::vector<Scalar>> { return Read(t.data(), t.size()); });
    });
  }
  // t.data()[index] = value (a raw pointer: Eigen checks nothing).
  Status write_storage(const TensorHandle& h, std::int64_t index, const Scalar& value) override {
    return Guard([&]() -> Status {
      return WithTensor<Status>(h, [&](auto& t) -> Status {
        using T = typename std::decay_t<decltype(t)>::Scalar;
        return Write<T>(t.data() + index, {value});
      });
    });
  }
  // t(index...) = value (Tensor::operator()(array<Index, N>); bounds are eigen_internal_assert only).
  Status write_element(const TensorHandle& h, const std::vector<std::int64_t>& index, const Scalar& value) override {
    return Guard([&]() -> Status {
      return WithTensor<Status>(h, [&](auto& t) -> Status {
        using TT = std::decay_t<decltype(t)>;
        using T = typename TT::Scalar;
        constexpr int N = TT::NumIndices;
        if (index.size() != static_cast<std::size_t>(N)) {
          return IllFormed("Tensor<" + TypeName<T>() + ", " + std::to_string(N) + ">::operator() with " +
                               std::to_string(index.size()) + " indices",
                           "the number of indices must equal the rank (a static assertion)");
        }
        if constexpr (N == 0) {
          return Write<T>(&t(), {value});
        } else {
          Eigen::array<Index, N> i;
          for (int k = 0; k < N; ++k) i[k] = static_cast<Index>(index[k]);
          return Write<T>(&t(i), {value});
        }
      });
    });
  }
  Result<std::uintptr_t> data_ptr(const TensorHandle& h) override {
    return Guard([&]() -> Result<std::uintptr_t> {
      return WithTensor<Result<std::uintptr_t>>(
          h, [&](auto& t) -> Result<std::uintptr_t> { return reinterpret_cast<std::uintptr_t>(t.data()); });
    });
  }

 private:
  template <class Traits, class = void>
  struct HasReturnType : std::false_type {};
  template <class Traits>
  struct HasReturnType<Traits, std::void_t<typename Traits::ReturnType>> : std::true_type {};
};

}  // namespace
}  // namespace eigen_adapter

namespace {
TCTS_REGISTER_CANDIDATE("eigen", [](const CandidateConfig&) { return std::unique_ptr<Candidate>(new eigen_adapter::EigenCandidate()); });
}  // namespace
}  // namespace tcts
