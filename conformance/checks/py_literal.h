// The Python literals the devices and asarray rows carry (numbers, complex with j,
// True/False, nested lists), read into the candidate interface's PyValue.
#ifndef TCTS_CONFORMANCE_CHECKS_PY_LITERAL_H_
#define TCTS_CONFORMANCE_CHECKS_PY_LITERAL_H_

#include <optional>
#include <string>

#include "conformance/candidate/candidate.h"

namespace tcts {

// Parses a Python literal: numbers (ints, floats, complex with j), True/False, nested lists.
std::optional<PyValue> ParsePyValue(const std::string& text, std::string* error);

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_CHECKS_PY_LITERAL_H_
