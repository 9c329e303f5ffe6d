// The testee's process and its two pipes: a command started under /bin/sh in a directory,
// request lines written to its stdin, answer lines read from its stdout (each bounded), and
// how the process ended. Used by the process candidate (process_candidate.cc).
#ifndef TCTS_CONFORMANCE_PROTOCOL_TESTEE_PIPE_H_
#define TCTS_CONFORMANCE_PROTOCOL_TESTEE_PIPE_H_

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace tcts {

class TesteePipe {
 public:
  TesteePipe() = default;
  TesteePipe(const TesteePipe&) = delete;
  TesteePipe& operator=(const TesteePipe&) = delete;
  ~TesteePipe() { Close(); }

  // Runs `command` with /bin/sh -c in `cwd` ("" for the current directory); false with *error.
  bool Start(const std::string& command, const std::string& cwd, std::string* error);
  bool WriteLine(const std::string& line);
  // One line without its newline; false at end of file, or when no newline came within
  // kMaxLine bytes (*too_long set).
  static constexpr std::size_t kMaxLine = std::size_t{256} << 20;
  bool ReadLine(std::string* line, bool* too_long);
  // How the testee ended ("exit status 3", "killed by signal 11 (...)"), waiting for it.
  std::string Reap();
  // Closes both pipes (end of input: the testee's loop ends) and reaps the process.
  void Close();

 private:
  pid_t pid_ = -1;
  int out_ = -1, in_ = -1;
  std::string buffer_;
  std::size_t start_ = 0;
};

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_TESTEE_PIPE_H_
