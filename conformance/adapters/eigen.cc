// Adapter: Eigen's Tensor module (Eigen 3.4, unsupported/Eigen/CXX11/Tensor; Debian
// libeigen3-dev) as a candidate. Translation only: every answer is what an Eigen expression
// gives, written as a user of Eigen writes it.
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
#include <complex>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <optional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
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

#include "conformance/candidate/candidate.h"

namespace tcts {
namespace {

// Tensors of ranks 0..kMaxRank; add/sub/mul/div expressions (instantiated per scalar type,
// rank and op, the bulk of the build) of ranks 0..kMaxOpRank, the ranks the suites' operands have.
constexpr int kMaxRank = 8;
constexpr int kMaxOpRank = 5;
using Index = Eigen::Index;
template <class T, int N>
using ETensor = Eigen::Tensor<T, N, Eigen::RowMajor>;

template <class T>
struct Tag {
  using type = T;
};

// ---------------------------------------------------------------- dtypes <-> Eigen scalar types
Error NoSuchType(DType d) {
  return Error{ErrorKind::kNotImplementedError,
               std::string("Eigen has no scalar type for ") + DTypeName(d) + " (no std::complex<Eigen::half>)"};
}

// Calls f(Tag<T>{}) with the Eigen scalar type of d.
template <class R, class F>
R WithDType(DType d, F&& f) {
  switch (d) {
    case DType::kFloat32: return f(Tag<float>{});
    case DType::kFloat64: return f(Tag<double>{});
    case DType::kComplex64: return f(Tag<std::complex<float>>{});
    case DType::kComplex128: return f(Tag<std::complex<double>>{});
    case DType::kFloat16: return f(Tag<Eigen::half>{});
    case DType::kBfloat16: return f(Tag<Eigen::bfloat16>{});
    case DType::kUint8: return f(Tag<std::uint8_t>{});
    case DType::kInt8: return f(Tag<std::int8_t>{});
    case DType::kInt16: return f(Tag<std::int16_t>{});
    case DType::kInt32: return f(Tag<std::int32_t>{});
    case DType::kInt64: return f(Tag<std::int64_t>{});
    case DType::kBool: return f(Tag<bool>{});
    default: return NoSuchType(d);
  }
}

template <class T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  else if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DType::kComplex64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return DType::kComplex128;
  else if constexpr (std::is_same_v<T, Eigen::half>) return DType::kFloat16;
  else if constexpr (std::is_same_v<T, Eigen::bfloat16>) return DType::kBfloat16;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DType::kUint8;
  else if constexpr (std::is_same_v<T, std::int8_t>) return DType::kInt8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DType::kInt16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::kInt32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::kInt64;
  else {
    static_assert(std::is_same_v<T, bool>, "a scalar type outside the suite's dtypes");
    return DType::kBool;
  }
}
template <class T>
constexpr bool kIsDType = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ||
                          std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16> ||
                          std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int8_t> ||
                          std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int32_t> ||
                          std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool>;

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

EigenBox& Unbox(const TensorHandle& h) {
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

Error IllFormed(const std::string& expression, const std::string& rule) {
  return Error{ErrorKind::kTypeError, "ill-formed Eigen expression " + expression + ": " + rule};
}
const char kMixedTypes[] =
    "Eigen does not mix scalar types; an explicit cast<T>() is required (YOU_MIXED_DIFFERENT_NUMERIC_TYPES__YOU_NEED_TO_"
    "USE_THE_CAST_METHOD_OF_MATRIXBASE_TO_CAST_NUMERIC_TYPES_EXPLICITLY)";

// ---------------------------------------------------------------- values in and out
// The exact widening the interface reads values in: bool, int64, double, complex<double>.
template <class T>
using Wide = std::conditional_t<
    std::is_same_v<T, bool>, bool,
    std::conditional_t<Eigen::NumTraits<T>::IsComplex, std::complex<double>,
                       std::conditional_t<Eigen::NumTraits<T>::IsInteger, std::int64_t, double>>>;

template <class W>
Scalar ToScalar(const W& w) {
  if constexpr (std::is_same_v<W, bool>) return Scalar::Bool(w);
  else if constexpr (std::is_same_v<W, std::int64_t>) return Scalar::Int(w);
  else if constexpr (std::is_same_v<W, double>) return Scalar::Float(w);
  else return Scalar::Complex(w);
}

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

// ---------------------------------------------------------------- Python numbers as C++ literals
using Literal = std::variant<bool, int, long, double, std::complex<double>>;

Literal ToLiteral(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::kBool: return s.b;
    case Scalar::Kind::kInt: {
      // An integer literal is an int when its magnitude fits, else a long (C++ [lex.icon]);
      // a negative number is the negation of the literal of its magnitude.
      const std::uint64_t magnitude = s.i < 0 ? 0 - static_cast<std::uint64_t>(s.i) : static_cast<std::uint64_t>(s.i);
      if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return static_cast<int>(s.i);
      return static_cast<long>(s.i);
    }
    case Scalar::Kind::kFloat: return s.f;
    case Scalar::Kind::kComplex: return s.c;
  }
  return 0;
}

// One operand as Eigen sees it: a tensor, or a C++ literal.
struct EOperand {
  TensorHandle tensor;  // or null
  Literal literal;
};
EOperand ToEOperand(const Operand& o) {
  if (const Scalar* s = std::get_if<Scalar>(&o)) return EOperand{nullptr, ToLiteral(*s)};
  return EOperand{std::get<TensorHandle>(o), 0};
}

// ---------------------------------------------------------------- expressions
const char* OpSymbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
  }
  return "?";
}

// Calls sink(expr) with the Eigen expression `a op b`.
template <class R, class A, class B, class Sink>
R ApplyTo(BinaryOp op, const A& a, const B& b, Sink&& sink) {
  switch (op) {
    case BinaryOp::kAdd: return sink(a + b);
    case BinaryOp::kSub: return sink(a - b);
    case BinaryOp::kMul: return sink(a * b);
    case BinaryOp::kDiv: return sink(a / b);
  }
  return Error{ErrorKind::kInternal, "unknown op"};
}

// Integer division is C++'s / on the Scalar type (scalar_quotient_op, after the usual
// promotions): a zero divisor, or the minimum of int/long divided by -1, is undefined
// behaviour ([expr.mul]; SIGFPE on x86-64). The adapter does not execute it: it answers an
// Internal error instead of taking the process down at random points of a property's shrinking.
// `a` and `b` are the operands element for element (a count of 1 repeats the element).
template <class T>
std::optional<Error> DivisionUB(const T* a, Index na, const T* b, Index nb) {
  if constexpr (!Eigen::NumTraits<T>::IsInteger) {
    return std::nullopt;
  } else {
    using P = decltype(a[0] / b[0]);  // the promoted type the division happens in
    const Index n = std::max(na, nb);
    for (Index k = 0; k < n; ++k) {
      const P x = a[na == 1 ? 0 : k], y = b[nb == 1 ? 0 : k];
      if (y == 0 || (std::is_signed_v<P> && y == static_cast<P>(-1) && x == std::numeric_limits<P>::min())) {
        return Error{ErrorKind::kInternal,
                     "not executed: the integer division " + std::to_string(x) + " / " + std::to_string(y) + " in " +
                         TypeName<T>() + " is undefined behaviour in C++ (Eigen's scalar_quotient_op divides with /)"};
      }
    }
    return std::nullopt;
  }
}

// What Eigen's assignment does first with an expression (Tensor::operator= constructs its
// evaluator): the evaluator's constructor checks the operands, eigen_assert(dimensions_match(
// lhs, rhs)) for a binary op (TensorEvaluator.h), false for operands of different ranks.
template <class E>
void ConstructEvaluator(const E& e) {
  Eigen::TensorEvaluator<const E, Eigen::DefaultDevice> evaluator(e, Eigen::DefaultDevice());
  (void)evaluator;
}
// Tensors of one Scalar type and different ranks: `x op y` compiles and its evaluator rejects
// it at run time (the eigen_assert throws). Only the evaluator is built, not the assignment.
struct DifferentRanks {
  template <class E>
  Error operator()(const E& e) const {
    ConstructEvaluator(e);
    return Error{ErrorKind::kInternal, "Eigen's evaluator accepted operands of different ranks"};
  }
};

// Builds `a op b` from Eigen operands and hands it to sink (to mismatch when the two tensors'
// ranks differ); an expression C++ rejects is a TypeError naming the rule.
template <class R, class Sink, class Mismatch>
R Expression(BinaryOp op, const EOperand& a, const EOperand& b, Sink&& sink, Mismatch&& mismatch) {
  const std::string sym = OpSymbol(op);
  if (a.tensor && b.tensor) {
    EigenBox& bb = Unbox(b.tensor);
    return WithTensor<R, kMaxOpRank>(a.tensor, [&](auto& x) -> R {
      using TX = std::decay_t<decltype(x)>;
      using T = typename TX::Scalar;
      constexpr int N = TX::NumIndices;
      if (bb.dtype() != DTypeOf<T>()) {
        return IllFormed("Tensor<" + TypeName<T>() + "> " + sym + " Tensor<" + DTypeName(bb.dtype()) + ">", kMixedTypes);
      }
      return WithRank<R, kMaxOpRank>(static_cast<std::size_t>(bb.rank()), [&](auto m) -> R {
        constexpr int M = decltype(m)::value;
        const ETensor<T, M>& y = static_cast<Box<T, M>&>(bb).t;
        if constexpr (M == N) {
          if (op == BinaryOp::kDiv && Eigen::dimensions_match(x.dimensions(), y.dimensions())) {
            if (auto ub = DivisionUB<T>(x.data(), x.size(), y.data(), y.size())) return *ub;
          }
          return ApplyTo<R>(op, x, y, sink);
        }
        else return ApplyTo<R>(op, x, y, mismatch);
      });
    });
  }
  if (a.tensor) {
    return WithTensor<R, kMaxOpRank>(a.tensor, [&](auto& x) -> R {
      using T = typename std::decay_t<decltype(x)>::Scalar;
      return std::visit(
          [&](const auto& s) -> R {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, S>) {
              switch (op) {
                case BinaryOp::kAdd: return sink(x + s);
                case BinaryOp::kMul: return sink(x * s);
                case BinaryOp::kDiv:
                  if (auto ub = DivisionUB<T>(x.data(), x.size(), &s, 1)) return *ub;
                  return sink(x / s);
                case BinaryOp::kSub:
                  if constexpr (Eigen::NumTraits<T>::IsSigned) return sink(x - s);
                  else return IllFormed("Tensor<" + TypeName<T>() + "> - " + TypeName<S>(),
                                        "TensorBase::operator-(Scalar) static-asserts NumTraits<Scalar>::IsSigned");
              }
              return Error{ErrorKind::kInternal, "unknown op"};
            } else {
              return IllFormed("Tensor<" + TypeName<T>() + "> " + sym + " " + TypeName<S>(),
                               "TensorBase::operator" + sym + "(Scalar) takes only the tensor's own Scalar type (" +
                                   TypeName<T>() + "); " + kMixedTypes);
            }
          },
          b.literal);
    });
  }
  if (b.tensor) {
    return WithTensor<R, kMaxOpRank>(b.tensor, [&](auto& y) -> R {
      using T = typename std::decay_t<decltype(y)>::Scalar;
      return std::visit(
          [&](const auto& s) -> R {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_convertible_v<S, T>) {
              if (op == BinaryOp::kDiv) {
                const T lhs = s;  // the friend operator/(Scalar lhs, ...) takes lhs as T
                if (auto ub = DivisionUB<T>(&lhs, 1, y.data(), y.size())) return *ub;
              }
              return ApplyTo<R>(op, s, y, sink);
            } else {
              return IllFormed(TypeName<S>() + " " + sym + " Tensor<" + TypeName<T>() + ">",
                               "the friend operator" + sym + "(Scalar, const Derived&) needs an implicit conversion from " +
                                   TypeName<S>() + " to " + TypeName<T>() + ", which does not exist");
            }
          },
          a.literal);
    });
  }
  return IllFormed("(two C++ numbers)", "no Eigen tensor takes part: Eigen has no expression of two scalars");
}

// alpha * b, evaluated: a tensor (friend operator*(Scalar, const Derived&)) or a C++ number.
template <class A, class S, class = void>
struct CanMultiply : std::false_type {};
template <class A, class S>
struct CanMultiply<A, S, std::void_t<decltype(std::declval<A>() * std::declval<S>())>> : std::true_type {};

Result<EOperand> Scaled(const Scalar& alpha, const EOperand& b) {
  const Literal al = ToLiteral(alpha);
  if (b.tensor) {
    return WithTensor<Result<EOperand>, kMaxOpRank>(b.tensor, [&](auto& y) -> Result<EOperand> {
      using TY = std::decay_t<decltype(y)>;
      using T = typename TY::Scalar;
      constexpr int N = TY::NumIndices;
      return std::visit(
          [&](const auto& s) -> Result<EOperand> {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_convertible_v<S, T>) {
              ETensor<T, N> r = s * y;
              return EOperand{BoxOf<T, N>(std::move(r)), 0};
            } else {
              return IllFormed("alpha * b: " + TypeName<S>() + " * Tensor<" + TypeName<T>() + ">",
                               "the friend operator*(Scalar, const Derived&) needs an implicit conversion from " +
                                   TypeName<S>() + " to " + TypeName<T>() + ", which does not exist");
            }
          },
          al);
    });
  }
  return std::visit(
      [&](const auto& x, const auto& s) -> Result<EOperand> {
        using X = std::decay_t<decltype(x)>;
        using S = std::decay_t<decltype(s)>;
        if constexpr (CanMultiply<X, S>::value) {
          using P = decltype(x * s);
          if constexpr (std::is_constructible_v<Literal, P>) return EOperand{nullptr, Literal(x * s)};
          else return IllFormed("alpha * b", "a C++ product outside the literal types");
        } else {
          return IllFormed("alpha * b: " + TypeName<X>() + " * " + TypeName<S>(), "no C++ operator* for these types");
        }
      },
      al, b.literal);
}

bool IsOne(const Scalar& alpha) { return alpha.kind == Scalar::Kind::kInt && alpha.i == 1; }

// The expression's operands after alpha: (a, alpha * b) for add/sub.
Result<std::pair<EOperand, EOperand>> Operands(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) {
  EOperand x = ToEOperand(a), y = ToEOperand(b);
  if ((op == BinaryOp::kAdd || op == BinaryOp::kSub) && !IsOne(alpha)) {
    Result<EOperand> s = Scaled(alpha, y);
    if (!s.ok()) return s.error();
    y = s.value();
  }
  return std::make_pair(x, y);
}

// Evaluates an expression into a new tensor.
struct Evaluate {
  template <class E>
  Result<TensorHandle> operator()(const E& e) const {
    using T = typename Eigen::internal::traits<E>::Scalar;
    constexpr int N = Eigen::internal::traits<E>::NumDimensions;
    ETensor<T, N> r = e;
    return BoxOf<T, N>(std::move(r));
  }
};

// The Scalar type of an expression.
struct ScalarTypeOf {
  template <class E>
  Result<DType> operator()(const E&) const {
    return DTypeOf<typename Eigen::internal::traits<E>::Scalar>();
  }
};

// ---------------------------------------------------------------- the candidate
class EigenCandidate final : public Candidate {
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

  bool supports(Feature f) const override {
    switch (f) {
      case Feature::kDTypeInfo:
      case Feature::kFloatInfo:
      case Feature::kPromoteTypes:
      case Feature::kResultType:
      case Feature::kTensors:
      case Feature::kBinaryOps:
      case Feature::kBinaryOut:
      case Feature::kBinaryInplace:
      case Feature::kStorage:
        return true;
      default:
        return false;
    }
  }

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

  // The Scalar type of the Eigen expression a + b.
  Result<DType> result_type(const Operand& a, const Operand& b) override {
    return Guard([&]() -> Result<DType> {
      return Expression<Result<DType>>(BinaryOp::kAdd, ToEOperand(a), ToEOperand(b), ScalarTypeOf{}, ScalarTypeOf{});
    });
  }

  // -- tensors
  Result<TensorHandle> make_tensor(const std::vector<std::int64_t>& sizes, DType dtype,
                                   const std::vector<Scalar>& values) override {
    return Guard([&]() -> Result<TensorHandle> {
      std::int64_t n = 1;
      for (std::int64_t s : sizes) n *= s;
      if (static_cast<std::int64_t>(values.size()) != n) {
        return Error{ErrorKind::kValueError, "tensor of " + std::to_string(n) + " elements given " +
                                                 std::to_string(values.size()) + " values"};
      }
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

  // -- add/sub/mul/div
  Result<TensorHandle> binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) override {
    return Guard([&]() -> Result<TensorHandle> {
      auto ops = Operands(op, a, b, alpha);
      if (!ops.ok()) return ops.error();
      return Expression<Result<TensorHandle>>(op, ops.value().first, ops.value().second, Evaluate{}, DifferentRanks{});
    });
  }

  // out = a op b. The expression is evaluated, then assigned (Tensor::operator= resizes out to
  // the expression's dimensions); the same observable effects as assigning the expression
  // itself, with one assignment instantiated per scalar type and rank instead of per expression.
  Status binary_out(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                    const TensorHandle& out) override {
    return Guard([&]() -> Status {
      auto ops = Operands(op, a, b, alpha);
      if (!ops.ok()) return ops.error();
      EigenBox& o = Unbox(out);
      Result<TensorHandle> r =
          Expression<Result<TensorHandle>>(op, ops.value().first, ops.value().second, Evaluate{}, DifferentRanks{});
      if (!r.ok()) return r.error();
      return WithTensor<Status, kMaxOpRank>(r.value(), [&](auto& e) -> Status {
        using TE = std::decay_t<decltype(e)>;
        using T = typename TE::Scalar;
        constexpr int N = TE::NumIndices;
        const std::string expr = "out = expr: Tensor<" + std::string(DTypeName(o.dtype())) + ", " +
                                 std::to_string(o.rank()) + "> = an expression of Tensor<" + TypeName<T>() + ", " +
                                 std::to_string(N) + ">";
        if (o.dtype() != DTypeOf<T>()) return IllFormed(expr, kMixedTypes);
        if (o.rank() != N) {
          // Tensor::operator= resizes out with the expression's dimensions read as out's rank
          // (customIndices2Array): past their end when out's rank is higher, and to a new,
          // uninitialised size before eigen_assert(dimensions_match) fails when it is lower.
          return Error{ErrorKind::kInternal, expr + ": not executed: Eigen resizes out from dimensions of another rank "
                                                    "(an out-of-bounds read, or indeterminate contents left behind)"};
        }
        static_cast<Box<T, N>&>(o).t = e;
        return {};
      });
    });
  }

  // self op= other (TensorBase::operator+= etc. are self = self op other). Evaluated, then
  // assigned, as binary_out.
  Status binary_inplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) override {
    return Guard([&]() -> Status {
      auto ops = Operands(op, self, other, alpha);
      if (!ops.ok()) return ops.error();
      const EOperand& y = ops.value().second;
      const std::string sym = OpSymbol(op);
      if (!y.tensor) {
        return std::visit(
            [&](const auto& s) -> Status {
              using S = std::decay_t<decltype(s)>;
              return IllFormed(std::string("Tensor<") + DTypeName(Unbox(self).dtype()) + "> " + sym + "= " + TypeName<S>(),
                               "TensorBase::operator" + sym +
                                   "= takes a tensor expression (template<typename OtherDerived>), not a scalar");
            },
            y.literal);
      }
      Result<TensorHandle> r = Expression<Result<TensorHandle>>(op, ops.value().first, y, Evaluate{}, DifferentRanks{});
      if (!r.ok()) return r.error();
      return WithTensor<Status, kMaxOpRank>(r.value(), [&](auto& e) -> Status {
        using TE = std::decay_t<decltype(e)>;
        // self op other has self's Scalar type and rank (the tensor-tensor rule above).
        static_cast<Box<typename TE::Scalar, TE::NumIndices>&>(Unbox(self)).t = e;
        return {};
      });
    });
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

TCTS_REGISTER_CANDIDATE("eigen", [] { return std::unique_ptr<Candidate>(new EigenCandidate()); });

}  // namespace
}  // namespace tcts
