// A small strict JSON reader (RFC 8259) for replay files. Numbers keep their integer value
// when written without a fraction or exponent. Errors name the line and column.
#ifndef TCTS_CONFORMANCE_JSON_H_
#define TCTS_CONFORMANCE_JSON_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tcts::json {

class Value {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  Type type = Type::kNull;
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  bool is_number() const { return type == Type::kInt || type == Type::kDouble; }
  double number() const { return type == Type::kInt ? static_cast<double>(i) : d; }
  // The member `key` of an object, or nullptr.
  const Value* Find(const std::string& key) const;
  static const char* TypeName(Type t);
};

// Parses `text`; on error returns false with `error` = "line L, column C: what".
bool Parse(const std::string& text, Value* out, std::string* error);

}  // namespace tcts::json

#endif  // TCTS_CONFORMANCE_JSON_H_
