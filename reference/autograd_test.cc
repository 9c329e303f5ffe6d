// The reference's autograd metadata (reference/tensor.h AutogradMeta): the requires_grad flag
// and which operation made a tensor, with the names torch 1.13 gives (type(t.grad_fn).__name__).
#include <gtest/gtest.h>

#include <string>

#include "reference/binary_ops.h"
#include "reference/error.h"
#include "reference/interop.h"
#include "reference/strided.h"
#include "reference/tensor.h"

namespace tcts::ref {
namespace {

Tensor Floats() { return Tensor::FromScalars({3}, ScalarType::kFloat32, {Scalar::Float(1), Scalar::Float(2), Scalar::Float(3)}); }

Tensor Leaf() {
  Tensor a = Floats();
  a.RequiresGrad_(true);
  return a;
}

std::string RuntimeErrorOf(const Tensor& t, bool requires_grad) {
  try {
    t.RequiresGrad_(requires_grad);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::kRuntimeError);
    return e.what();
  }
  return "(no error)";
}

TEST(Autograd, ANewTensorIsALeafThatDoesNotRequireGrad) {
  const Tensor t = Floats();
  EXPECT_FALSE(t.requires_grad());
  EXPECT_TRUE(t.is_leaf());
  EXPECT_EQ(t.grad_fn(), "");
}

TEST(Autograd, RequiresGradSetsALeafsFlagOnEveryCopyOfTheHandle) {
  const Tensor a = Floats();
  const Tensor same = a;
  a.RequiresGrad_(true);
  EXPECT_TRUE(same.requires_grad());
  EXPECT_TRUE(same.is_leaf());
  a.RequiresGrad_(false);
  EXPECT_FALSE(same.requires_grad());
}

TEST(Autograd, OnlyFloatingAndComplexTensorsCanRequireGrad) {
  const Tensor i = Tensor::FromScalars({2}, ScalarType::kInt64, {Scalar::Int(1), Scalar::Int(2)});
  EXPECT_EQ(RuntimeErrorOf(i, true), "Only Tensors of floating point and complex dtype can require gradients");
  EXPECT_FALSE(i.requires_grad());
  EXPECT_EQ(RuntimeErrorOf(i, false), "(no error)");
  const Tensor c = Tensor::FromScalars({1}, ScalarType::kComplex64, {Scalar::Complex({1, 2})});
  EXPECT_EQ(RuntimeErrorOf(c, true), "(no error)");
}

TEST(Autograd, EachBinaryOpRecordsItsBackwardNode) {
  const Tensor a = Leaf();
  const std::pair<BinaryOp, const char*> ops[] = {{BinaryOp::kAdd, "AddBackward0"}, {BinaryOp::kSub, "SubBackward0"},
                                                  {BinaryOp::kMul, "MulBackward0"}, {BinaryOp::kDiv, "DivBackward0"}};
  for (const auto& [op, name] : ops) {
    const Tensor b = Binary(op, a, Scalar::Int(2));
    EXPECT_TRUE(b.requires_grad());
    EXPECT_FALSE(b.is_leaf());
    EXPECT_EQ(b.grad_fn(), name);
    EXPECT_EQ(Binary(op, Floats(), a).grad_fn(), name);  // either operand
  }
  const Tensor plain = Binary(BinaryOp::kAdd, Floats(), Floats());
  EXPECT_FALSE(plain.requires_grad());
  EXPECT_TRUE(plain.is_leaf());
}

TEST(Autograd, ANonLeafCannotStopRequiringGrad) {
  const Tensor b = Binary(BinaryOp::kAdd, Leaf(), Scalar::Int(2));
  EXPECT_EQ(RuntimeErrorOf(b, true), "(no error)");
  EXPECT_NE(RuntimeErrorOf(b, false).find("you can only change requires_grad flags of leaf variables"), std::string::npos);
  EXPECT_FALSE(b.is_leaf());
}

TEST(Autograd, CopiesRecordCloneOrToCopy) {
  const Tensor a = Leaf();
  EXPECT_EQ(Clone(a, MemoryFormat::kPreserve).grad_fn(), "CloneBackward0");
  EXPECT_EQ(To(a, ScalarType::kFloat64, Device::Cpu()).grad_fn(), "ToCopyBackward0");
  EXPECT_TRUE(Clone(Floats(), MemoryFormat::kPreserve).is_leaf());
}

TEST(Autograd, DetachIsANewLeafOverTheSameMemory) {
  const Tensor b = Binary(BinaryOp::kAdd, Leaf(), Scalar::Int(2));
  const Tensor d = b.Detach();
  EXPECT_TRUE(d.is_leaf());
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.DataPtr(), b.DataPtr());
  EXPECT_EQ(b.grad_fn(), "AddBackward0");
}

TEST(Autograd, AsarrayKeepsOrDetachesHistoryAndSetsALeafsFlag) {
  const Tensor b = Binary(BinaryOp::kAdd, Leaf(), Scalar::Int(2));
  AsarrayOptions keep;
  keep.requires_grad = true;
  EXPECT_EQ(AsarrayTensor(b, keep).grad_fn(), "AddBackward0");
  const Tensor detached = AsarrayTensor(b, AsarrayOptions{});
  EXPECT_TRUE(detached.is_leaf());
  EXPECT_FALSE(detached.requires_grad());
  EXPECT_EQ(detached.DataPtr(), b.DataPtr());

  const Tensor plain = Floats();
  EXPECT_TRUE(AsarrayTensor(plain, keep).requires_grad());
  EXPECT_TRUE(plain.requires_grad());  // the result is the source itself

  AsarrayOptions copy = keep;
  copy.copy = true;
  EXPECT_EQ(AsarrayTensor(Leaf(), copy).grad_fn(), "CloneBackward0");
  copy.dtype = ScalarType::kFloat64;
  EXPECT_EQ(AsarrayTensor(Leaf(), copy).grad_fn(), "ToCopyBackward0");
}

}  // namespace
}  // namespace tcts::ref
