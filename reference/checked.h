// Checked int64 arithmetic for sizes, strides, offsets and byte counts.
//
// Rule: a size, stride, offset or byte count the reference derives from its inputs is exact
// or the operation is an error — never a wrapped value that then passes a bounds check
// (issue 19). CheckedInt makes a formula read as the formula: every +, - and * is checked
// (__builtin_*_overflow), and once a step overflows the value stays poisoned, so the caller
// tests once, at the end, and raises an error that names the inputs.
//
// Values already bounded by a tensor's checked geometry (an index below its size, a byte
// offset inside its storage) are computed with plain arithmetic where it runs per element;
// those places say so.
#ifndef TCTS_REFERENCE_CHECKED_H_
#define TCTS_REFERENCE_CHECKED_H_

#include <cstddef>
#include <cstdint>
#include <optional>

namespace tcts::ref {

class CheckedInt final {
 public:
  constexpr CheckedInt(std::int64_t v = 0) : value_(v) {}  // NOLINT: implicit, so formulas mix freely

  CheckedInt& operator+=(CheckedInt o) { return Step(o, __builtin_add_overflow(value_, o.value_, &value_)); }
  CheckedInt& operator-=(CheckedInt o) { return Step(o, __builtin_sub_overflow(value_, o.value_, &value_)); }
  CheckedInt& operator*=(CheckedInt o) { return Step(o, __builtin_mul_overflow(value_, o.value_, &value_)); }
  friend CheckedInt operator+(CheckedInt a, CheckedInt b) { return a += b; }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) { return a -= b; }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) { return a *= b; }

  bool overflowed() const { return overflowed_; }
  // The exact result, or nothing when some step overflowed int64.
  std::optional<std::int64_t> value() const {
    return overflowed_ ? std::nullopt : std::optional<std::int64_t>(value_);
  }

 private:
  CheckedInt& Step(CheckedInt operand, bool overflowed) {
    overflowed_ = overflowed_ || operand.overflowed_ || overflowed;
    return *this;
  }
  std::int64_t value_;
  bool overflowed_ = false;
};

// [offset, offset + n) lies within [0, size), written so that nothing can wrap.
constexpr bool RangeWithin(std::size_t offset, std::size_t n, std::size_t size) {
  return offset <= size && n <= size - offset;
}

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_CHECKED_H_
