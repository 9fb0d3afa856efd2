// Exceptions that cross into Python as the builtin types PyTorch raises.
//
// NOTE [Errors speak PyTorch]
// Every user-facing failure throws one of these with PyTorch 2.13's exact words.
// The binding layer (csrc/python/module.cpp) maps each class to one Python
// exception type, so C++ code never needs to know about Python.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace gradtrack {

/// RuntimeError in Python. `note` (if any) is attached as an exception note
/// (PEP 678): shown in tracebacks after PyTorch's message, never inside it.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  Error(const std::string& msg, std::string note_text)
      : std::runtime_error(msg), note(std::move(note_text)) {}
  std::string note;
};
/// IndexError in Python.
struct IndexError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// ValueError in Python.
struct ValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// TypeError in Python.
struct TypeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// NotImplementedError in Python.
struct NotImplementedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {
inline void cat_into(std::ostringstream&) {}
template <typename T, typename... Rest>
void cat_into(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  cat_into(os, rest...);
}
}  // namespace detail

/// A UserWarning in Python with PyTorch's words. The binding layer installs
/// the handler (it throws when warnings are errors, so warn before writing);
/// without one, warnings are dropped.
using WarningHandler = void (*)(const std::string& message);
extern WarningHandler g_warning_handler;
inline void warn(const std::string& message) {
  if (g_warning_handler) g_warning_handler(message);
}

/// Concatenates anything streamable into one string (for error messages).
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  detail::cat_into(os, args...);
  return os.str();
}

}  // namespace gradtrack

#define GT_CHECK(cond, ...)                                                   \
  do {                                                                        \
    if (!(cond)) throw ::gradtrack::Error(::gradtrack::str_cat(__VA_ARGS__)); \
  } while (0)
#define GT_CHECK_INDEX(cond, ...)                                                  \
  do {                                                                             \
    if (!(cond)) throw ::gradtrack::IndexError(::gradtrack::str_cat(__VA_ARGS__)); \
  } while (0)
#define GT_CHECK_VALUE(cond, ...)                                                  \
  do {                                                                             \
    if (!(cond)) throw ::gradtrack::ValueError(::gradtrack::str_cat(__VA_ARGS__)); \
  } while (0)
#define GT_CHECK_TYPE(cond, ...)                                                  \
  do {                                                                            \
    if (!(cond)) throw ::gradtrack::TypeError(::gradtrack::str_cat(__VA_ARGS__)); \
  } while (0)
#define GT_CHECK_IMPL(cond, ...)                                                            \
  do {                                                                                      \
    if (!(cond)) throw ::gradtrack::NotImplementedError(::gradtrack::str_cat(__VA_ARGS__)); \
  } while (0)
#define GT_INTERNAL_ASSERT(cond)                                                                 \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      throw ::gradtrack::Error(::gradtrack::str_cat("gradtrack internal error: ", #cond, " at ", \
                                                    __FILE__, ":", __LINE__));                   \
  } while (0)
