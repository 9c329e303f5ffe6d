// The testee's process and its pipes: a program started with its arguments (an argv, no shell
// between) in a directory,
// request lines written to its stdin, answer lines read from its stdout (each bounded), its
// stderr passed on up to a cap (then only its tail is kept), and how the process ended. Used
// by the process candidate (process_candidate.cc).
#ifndef TCTS_CONFORMANCE_PROTOCOL_TESTEE_PIPE_H_
#define TCTS_CONFORMANCE_PROTOCOL_TESTEE_PIPE_H_

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "conformance/protocol/wire.h"

namespace tcts {

class TesteePipe {
 public:
  TesteePipe() = default;
  TesteePipe(const TesteePipe&) = delete;
  TesteePipe& operator=(const TesteePipe&) = delete;
  ~TesteePipe() { Close(); }

  // argv as messages show it: its words joined by spaces.
  static std::string Shown(const std::vector<std::string>& argv);
  // Runs argv[0] (found on PATH when it has no '/', as execvp does) with argv in `cwd` ("" for
  // the current directory); false with *error when it could not be started (the directory or
  // the program named, with the system's reason).
  bool Start(const std::vector<std::string>& argv, const std::string& cwd, std::string* error);
  bool WriteLine(const std::string& line);
  // One line without its newline; false at end of file, when the testee exited (even if a
  // child of it still holds its stdout), or when no newline came within `max` bytes kept
  // (*too_long set). Each byte is scanned once (linear in the line's length). The line's
  // top-level error.message is cut as it is read (wire::MessageCut, issue 42): a long message
  // never sits in memory whole; cut() says what was dropped. Its dropped bytes do not count
  // toward `max`, which bounds what is held.
  static constexpr std::size_t kMaxLine = std::size_t{256} << 20;
  bool ReadLine(std::string* line, bool* too_long, std::size_t max = kMaxLine);
  // The last line's error message cut (its length and digest in all, whether it was valid).
  const wire::MessageCut& cut() const { return cut_; }
  // How the testee ended ("exit status 3", "killed by signal 11 (...)"), waiting for it; with
  // grace_s >= 0, a testee still running after grace_s seconds is killed (SIGKILL) first.
  std::string Reap(double grace_s = -1);
  // Closes both pipes (end of input: the testee's loop ends) and reaps the process.
  void Close();

  // The testee's stderr reaches this process's stderr up to kStderrPassed bytes; past that
  // only its last kStderrTail bytes are kept, written (with the count dropped) when it ends.
  static constexpr std::size_t kStderrPassed = std::size_t{1} << 20;
  static constexpr std::size_t kStderrTail = std::size_t{64} << 10;

 private:
  void DrainStderr();
  void StopStderr();
  std::string Ended(int status) const;

  pid_t pid_ = -1;
  int out_ = -1, in_ = -1, err_ = -1;
  bool exited_ = false;  // ReadLine saw the testee end: status_ holds how
  int status_ = 0;
  std::string buffer_;  // bytes read past the last line's newline: buffer_[start_, end) not yet taken
  std::size_t start_ = 0;
  wire::MessageCut cut_;
  std::thread err_thread_;
  std::atomic<bool> err_stop_{false};
  std::mutex err_mutex_;
  std::string err_tail_;
  std::size_t err_passed_ = 0, err_dropped_ = 0;
};

}  // namespace tcts

#endif  // TCTS_CONFORMANCE_PROTOCOL_TESTEE_PIPE_H_
