#include "conformance/checks/py_literal.h"

#include <cmath>
#include <string>

namespace tcts {

namespace {

class LiteralParser {
 public:
  explicit LiteralParser(const std::string& text) : s_(text) {}

  std::optional<PyValue> Parse(std::string* error) {
    std::optional<PyValue> v = Value();
    Skip();
    if (v && k_ != s_.size()) Fail("unexpected '" + s_.substr(k_, 1) + "'");
    if (!error_.empty()) {
      *error = "cannot read the Python literal '" + s_ + "': " + error_ + " at character " + std::to_string(k_);
      return std::nullopt;
    }
    return v;
  }

 private:
  void Skip() {
    while (k_ < s_.size() && s_[k_] == ' ') ++k_;
  }
  void Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  bool Eat(const std::string& word) {
    Skip();
    if (s_.compare(k_, word.size(), word) != 0) return false;
    k_ += word.size();
    return true;
  }
  std::optional<PyValue> Value() {
    Skip();
    PyValue v;
    if (Eat("[")) {
      v.is_list = true;
      if (Eat("]")) return v;
      do {
        std::optional<PyValue> item = Value();
        if (!item) return std::nullopt;
        v.items.push_back(std::move(*item));
      } while (Eat(","));
      if (!Eat("]")) {
        Fail("expected ',' or ']'");
        return std::nullopt;
      }
      return v;
    }
    if (Eat("True")) return Leaf(Scalar::Bool(true));
    if (Eat("False")) return Leaf(Scalar::Bool(false));
    if (Eat("(")) {  // (re+imj)
      std::optional<double> re = Number(nullptr);
      std::optional<double> im = Number(nullptr);
      if (!re || !im || !Eat("j") || !Eat(")")) {
        Fail("expected (re+imj)");
        return std::nullopt;
      }
      return Leaf(Scalar::Complex({*re, *im}));
    }
    bool integral = false;
    std::optional<double> x = Number(&integral);
    if (!x) {
      Fail("expected a number, True, False or a list");
      return std::nullopt;
    }
    if (Eat("j")) return Leaf(Scalar::Complex({0, *x}));
    if (integral) return Leaf(Scalar::Int(static_cast<std::int64_t>(*x)));
    return Leaf(Scalar::Float(*x));
  }
  static PyValue Leaf(const Scalar& s) {
    PyValue v;
    v.scalar = s;
    return v;
  }
  std::optional<double> Number(bool* integral) {
    Skip();
    const char* begin = s_.c_str() + k_;
    char* end = nullptr;
    const double x = std::strtod(begin, &end);
    if (end == begin) return std::nullopt;
    const std::string token(begin, static_cast<const char*>(end));
    if (integral) *integral = token.find_first_of(".eEn") == std::string::npos;
    k_ += static_cast<std::size_t>(end - begin);
    return x;
  }

  std::string s_;
  std::size_t k_ = 0;
  std::string error_;
};

}  // namespace

std::optional<PyValue> ParsePyValue(const std::string& text, std::string* error) {
  return LiteralParser(text).Parse(error);
}

}  // namespace tcts
