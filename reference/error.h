// Errors the reference raises. Like PyTorch's c10 errors, each has a kind that maps to a
// Python exception class, and a message that names the inputs involved.
#ifndef TCTS_REFERENCE_ERROR_H_
#define TCTS_REFERENCE_ERROR_H_

#include <stdexcept>
#include <string>

namespace tcts::ref {

class Error : public std::runtime_error {
 public:
  enum class Kind { kRuntimeError, kTypeError, kValueError, kIndexError, kInternal };
  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A user-facing check failed (bad input): PyTorch's RuntimeError.
inline Error RuntimeError(const std::string& m) { return Error(Error::Kind::kRuntimeError, m); }
inline Error TypeError(const std::string& m) { return Error(Error::Kind::kTypeError, m); }
inline Error ValueError(const std::string& m) { return Error(Error::Kind::kValueError, m); }
inline Error IndexError(const std::string& m) { return Error(Error::Kind::kIndexError, m); }
// A bug in the reference itself, never the caller's fault.
inline Error InternalError(const std::string& m) { return Error(Error::Kind::kInternal, "internal error: " + m); }

// A message that echoes what the caller gave, shown whole: a control byte (a NUL would cut
// what() short) and a backslash become escapes (\x00, \n, \\), as Python's repr shows them.
inline std::string Printable(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) out += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    else out += c;
  }
  return out;
}

}  // namespace tcts::ref

#endif  // TCTS_REFERENCE_ERROR_H_
