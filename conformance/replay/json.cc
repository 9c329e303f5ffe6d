#include "conformance/replay/json.h"

#include <cerrno>
#include <cstdlib>

namespace tcts::json {

const Value* Value::Find(const std::string& key) const {
  if (type != Type::kObject) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

const char* Value::TypeName(Type t) {
  switch (t) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kInt: return "an integer";
    case Type::kDouble: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "an array";
    case Type::kObject: return "an object";
  }
  return "?";
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : t_(text) {}

  bool Document(Value* out) {
    if (!Any(out, 0)) return false;
    Space();
    return pos_ == t_.size() || Fail("unexpected text after the value");
  }
  std::string error() const { return error_; }

 private:
  bool Fail(const std::string& what) {
    if (!error_.empty()) return false;
    int line = 1, col = 1;
    for (std::size_t k = 0; k < pos_ && k < t_.size(); ++k) {
      if (t_[k] == '\n') ++line, col = 1;
      else ++col;
    }
    error_ = "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what;
    return false;
  }
  void Space() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (t_.compare(pos_, w.size(), w) != 0) return Fail("expected a value");
    pos_ += w.size();
    return true;
  }
  bool Any(Value* v, int depth) {
    if (depth > 64) return Fail("nesting deeper than 64");
    Space();
    if (pos_ >= t_.size()) return Fail("unexpected end of input");
    const char c = t_[pos_];
    if (c == '{') return Object(v, depth);
    if (c == '[') return Array(v, depth);
    if (c == '"') {
      v->type = Value::Type::kString;
      return String(&v->s);
    }
    if (c == 't') return v->type = Value::Type::kBool, v->b = true, Literal("true");
    if (c == 'f') return v->type = Value::Type::kBool, v->b = false, Literal("false");
    if (c == 'n') return v->type = Value::Type::kNull, Literal("null");
    return Number(v);
  }
  bool Object(Value* v, int depth) {
    v->type = Value::Type::kObject;
    ++pos_;
    Space();
    if (pos_ < t_.size() && t_[pos_] == '}') return ++pos_, true;
    for (;;) {
      Space();
      std::string key;
      if (pos_ >= t_.size() || t_[pos_] != '"') return Fail("expected a string key");
      if (!String(&key)) return false;
      if (v->object.count(key)) return Fail("duplicate key \"" + key + "\"");
      Space();
      if (pos_ >= t_.size() || t_[pos_] != ':') return Fail("expected ':'");
      ++pos_;
      if (!Any(&v->object[key], depth + 1)) return false;
      Space();
      if (pos_ < t_.size() && t_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < t_.size() && t_[pos_] == '}') return ++pos_, true;
      return Fail("expected ',' or '}'");
    }
  }
  bool Array(Value* v, int depth) {
    v->type = Value::Type::kArray;
    ++pos_;
    Space();
    if (pos_ < t_.size() && t_[pos_] == ']') return ++pos_, true;
    for (;;) {
      v->array.emplace_back();
      if (!Any(&v->array.back(), depth + 1)) return false;
      Space();
      if (pos_ < t_.size() && t_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < t_.size() && t_[pos_] == ']') return ++pos_, true;
      return Fail("expected ',' or ']'");
    }
  }
  bool String(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < t_.size()) {
      const char c = t_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= t_.size()) break;
      const char e = t_[pos_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > t_.size()) return Fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::strtoul(t_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
          if (code >= 0xD800 && code < 0xE000) return Fail("surrogate \\u escapes are not supported");
          if (code < 0x80) {
            *out += static_cast<char>(code);
          } else if (code < 0x800) {
            *out += static_cast<char>(0xC0 | (code >> 6));
            *out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            *out += static_cast<char>(0xE0 | (code >> 12));
            *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            *out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default: return Fail(std::string("bad escape \\") + e);
      }
    }
    return Fail("unterminated string");
  }
  bool Number(Value* v) {
    const std::size_t start = pos_;
    if (pos_ < t_.size() && t_[pos_] == '-') ++pos_;
    bool integral = true, digits = false;
    while (pos_ < t_.size()) {
      const char c = t_[pos_];
      if (c >= '0' && c <= '9') {
        digits = true;
      } else if (c == '.' || c == 'e' || c == 'E' || ((c == '+' || c == '-') && (t_[pos_ - 1] == 'e' || t_[pos_ - 1] == 'E'))) {
        integral = false;
      } else {
        break;
      }
      ++pos_;
    }
    if (!digits) return pos_ = start, Fail("expected a value");
    const std::string text = t_.substr(start, pos_ - start);
    char* end = nullptr;
    errno = 0;
    if (integral) {
      v->type = Value::Type::kInt;
      v->i = std::strtoll(text.c_str(), &end, 10);
    } else {
      v->type = Value::Type::kDouble;
      v->d = std::strtod(text.c_str(), &end);
    }
    if (errno == ERANGE || end != text.c_str() + text.size()) return pos_ = start, Fail("bad number '" + text + "'");
    return true;
  }

  const std::string& t_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

bool Parse(const std::string& text, Value* out, std::string* error) {
  Parser p(text);
  *out = Value();
  if (p.Document(out)) return true;
  *error = p.error();
  return false;
}

}  // namespace tcts::json
