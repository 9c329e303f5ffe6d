// What the reference's fuzz targets share: reading a fuzz input, the values worth trying for
// sizes, strides and offsets, an independent 128-bit oracle for geometry arithmetic, and the
// check that turns a broken property into a crash libFuzzer reports.
//
// Each target defines LLVMFuzzerTestOneInput. Built with clang -fsanitize=fuzzer it is a
// libFuzzer binary (bazel/build_fuzzer.sh); built by Bazel with replay_main.cc it replays the
// checked-in corpus (seeds and every crash input found) as a regression test.
#ifndef TCTS_REFERENCE_FUZZ_FUZZ_SUPPORT_H_
#define TCTS_REFERENCE_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "reference/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// A property of the reference failed: print it and abort, which libFuzzer (and the replay
// test) report as a crash with the input that caused it. Only fuzz targets do this.
#define TCTS_FUZZ_CHECK(cond, what)                                                                       \
  do {                                                                                                    \
    if (!(cond)) {                                                                                        \
      std::fprintf(stderr, "fuzz property failed: %s: %s (%s:%d)\n", #cond, std::string(what).c_str(), \
                   __FILE__, __LINE__);                                                                   \
      std::abort();                                                                                       \
    }                                                                                                     \
  } while (0)

namespace tcts::ref::fuzz {

using Int128 = __int128;
constexpr Int128 kInt64Max = std::numeric_limits<std::int64_t>::max();

// Reads a fuzz input front to back; past its end every read gives 0, so any input is valid.
class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }

  std::uint8_t Byte() { return empty() ? 0 : data_[pos_++]; }
  bool Flag() { return Byte() & 1; }
  template <class T>
  T Raw() {
    T v{};
    const std::size_t n = std::min(sizeof(T), size_ - std::min(pos_, size_));
    if (n > 0) std::memcpy(&v, data_ + pos_, n);
    pos_ += n;
    return v;
  }
  // A value for a size, stride, offset or index: usually small, often an edge of int64
  // (where the arithmetic overflows), sometimes any 64 bits.
  std::int64_t Int64() {
    static constexpr std::int64_t kEdges[] = {
        std::numeric_limits<std::int64_t>::max(),     std::numeric_limits<std::int64_t>::min(),
        std::numeric_limits<std::int64_t>::max() - 1, std::numeric_limits<std::int64_t>::min() + 1,
        std::int64_t{1} << 31,                        (std::int64_t{1} << 31) - 1,
        std::int64_t{1} << 32,                        (std::int64_t{1} << 32) + 1,
        std::int64_t{1} << 60,                        std::int64_t{1} << 61,
        std::int64_t{1} << 62,                        (std::int64_t{1} << 62) + 1,
        (std::int64_t{1} << 62) - 1,                  3 * (std::int64_t{1} << 61),
        std::numeric_limits<std::int64_t>::max() / 2, std::numeric_limits<std::int64_t>::max() / 3,
        std::numeric_limits<std::int64_t>::max() / 4, std::numeric_limits<std::int64_t>::max() / 16,
    };
    constexpr int kSmall = 40;  // -8 .. 31
    const std::uint8_t b = Byte();
    if (b < kSmall) return static_cast<std::int64_t>(b) - 8;
    if (b < kSmall + sizeof kEdges / sizeof kEdges[0]) return kEdges[b - kSmall];
    return Raw<std::int64_t>();
  }
  // n values of Int64().
  std::vector<std::int64_t> Int64s(std::size_t n) {
    std::vector<std::int64_t> out(n);
    for (std::int64_t& v : out) v = Int64();
    return out;
  }
  std::string Rest() {
    const std::size_t from = std::min(pos_, size_);
    pos_ = size_;
    return std::string(reinterpret_cast<const char*>(data_) + from, size_ - from);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------- the 128-bit oracle
// Geometry arithmetic in 128 bits, exact up to 2^100 in magnitude and saturating there: far
// past int64, so "does it fit in int64" is always answered right, and never overflowing.
constexpr Int128 kSaturated = Int128{1} << 100;

inline Int128 Saturate(Int128 v) { return v > kSaturated ? kSaturated : v < -kSaturated ? -kSaturated : v; }

// a * b for |a|, |b| <= 2^100, saturated.
inline Int128 Mul128(Int128 a, Int128 b) {
  if (a == 0 || b == 0) return 0;
  const Int128 abs_a = a < 0 ? -a : a, abs_b = b < 0 ? -b : b;
  if (abs_a > kSaturated / abs_b) return (a < 0) != (b < 0) ? -kSaturated : kSaturated;
  return a * b;
}

inline Int128 Numel128(const std::vector<std::int64_t>& sizes) {
  Int128 n = 1;
  for (std::int64_t s : sizes) n = Mul128(n, s);
  return n;
}

// Elements reached from offset 0: 1 + sum((size-1)*stride), 0 when empty.
inline Int128 Extent128(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides) {
  Int128 extent = 1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 0) return 0;
    extent = Saturate(extent + Mul128(Int128{sizes[k]} - 1, strides[k]));
  }
  return extent;
}

// A reference error is a user error of a Python kind; an InternalError is a bug.
inline void CheckError(const Error& e) {
  TCTS_FUZZ_CHECK(e.kind() != Error::Kind::kInternal, e.what());
  TCTS_FUZZ_CHECK(std::strlen(e.what()) > 0, "an empty message");
}

// f(), or nothing when it raised an error (which must pass CheckError).
template <class F>
auto Attempt(F&& f) -> std::optional<decltype(f())> {
  try {
    return f();
  } catch (const Error& e) {
    CheckError(e);
    return std::nullopt;
  }
}

}  // namespace tcts::ref::fuzz

#endif  // TCTS_REFERENCE_FUZZ_FUZZ_SUPPORT_H_
