// The Eigen adapter's add/sub/mul/div (see eigen.cc for the mapping): a Python number as the
// C++ literal a user writes, an operand as Eigen sees it, the expression `a op b` built as a user
// of Eigen writes it (or the TypeError naming the rule that makes it ill-formed, or the Internal
// error of a division C++ leaves undefined), alpha * b, and the Candidate's result_type, binary,
// binary_out and binary_inplace over them. Its own translation unit: these expressions,
// instantiated per scalar type, rank and op, are the bulk of the adapter's build.
#include "conformance/adapters/eigen_internal.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "conformance/adapters/literal.h"

namespace tcts {
namespace eigen_adapter {
namespace {

// ---------------------------------------------------------------- Python numbers as C++ literals
using adapters::Literal;  // conformance/adapters/literal.h
using adapters::ToLiteral;

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
// Calls sink(expr) with the Eigen expression `a op b`: the translation of each binary op. An op
// of the spec not translated here answers NotSupported (Translates).
template <class R, class A, class B, class Sink>
R ApplyTo(BinaryOp op, const A& a, const B& b, Sink&& sink) {
  switch (op) {
    case BinaryOp::kAdd: return sink(a + b);
    case BinaryOp::kSub: return sink(a - b);
    case BinaryOp::kMul: return sink(a * b);
    case BinaryOp::kDiv: return sink(a / b);
    default: break;
  }
  return Error{ErrorKind::kNotSupported, std::string("binary op '") + BinaryOpName(op) + "' is not translated to Eigen"};
}

// Whether ApplyTo translates op (asked on two ints, before any operand is looked at).
Status Translates(BinaryOp op) {
  return ApplyTo<Status>(op, 1, 1, [](const auto&) -> Status { return {}; });
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
  const std::string sym = BinaryOpSymbol(op);
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
                default: break;  // not translated: Translates answered first
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
  if (Status t = Translates(op); !t.ok()) return t.error();
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

}  // namespace

// The Scalar type of the Eigen expression a + b.
Result<DType> ResultType(const Operand& a, const Operand& b) {
  return Guard([&]() -> Result<DType> {
    return Expression<Result<DType>>(BinaryOp::kAdd, ToEOperand(a), ToEOperand(b), ScalarTypeOf{}, ScalarTypeOf{});
  });
}

// -- add/sub/mul/div
Result<TensorHandle> Binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha) {
  return Guard([&]() -> Result<TensorHandle> {
    auto ops = Operands(op, a, b, alpha);
    if (!ops.ok()) return ops.error();
    return Expression<Result<TensorHandle>>(op, ops.value().first, ops.value().second, Evaluate{}, DifferentRanks{});
  });
}

// out = a op b. The expression is evaluated, then assigned (Tensor::operator= resizes out to
// the expression's dimensions); the same observable effects as assigning the expression
// itself, with one assignment instantiated per scalar type and rank instead of per expression.
Status BinaryOut(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha,
                 const TensorHandle& out) {
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
Status BinaryInplace(BinaryOp op, const TensorHandle& self, const Operand& other, const Scalar& alpha) {
  return Guard([&]() -> Status {
    auto ops = Operands(op, self, other, alpha);
    if (!ops.ok()) return ops.error();
    const EOperand& y = ops.value().second;
    const std::string sym = BinaryOpSymbol(op);
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

}  // namespace eigen_adapter
}  // namespace tcts
