#include "conformance/protocol/testee_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "conformance/protocol/wire.h"

namespace tcts {

namespace {
bool IsName(const std::string& w, std::size_t end) {
  if (end == 0 || !(std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_')) return false;
  for (std::size_t i = 1; i < end; ++i) {
    if (!(std::isalnum(static_cast<unsigned char>(w[i])) || w[i] == '_')) return false;
  }
  return true;
}
}  // namespace

// A simple command (words, quotes, redirections; no operator, list, pipeline, subshell or
// substitution) gets `exec` before its first word that is not an assignment, so that the testee
// replaces the shell: the shell then holds no copy of its stdout, and a testee that closes its
// stdout while it lives is an end of file at once (a CRASH, not a TIMEOUT). Anything else runs
// as written, under the shell.
std::string TesteePipe::ShellForm(const std::string& command) {
  std::vector<std::pair<std::size_t, std::string>> words;  // (start, the word as written)
  char quote = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote == '\'' ) {
      if (c == '\'') quote = 0;
    } else if (c == '\\') {
      if (i + 1 >= command.size() || command[i + 1] == '\n') return command;
      if (!in_word) words.emplace_back(i, "");
      in_word = true;
      words.back().second += command.substr(i, 2);
      ++i;
      continue;
    } else if (quote == '"') {
      if (c == '`' || (c == '$' && i + 1 < command.size() && command[i + 1] == '(')) return command;
      if (c == '"') quote = 0;
    } else if (c == ' ' || c == '\t') {
      in_word = false;
      continue;
    } else if (std::strchr(";&|()`\n{}!#", c) != nullptr || (c == '$' && i + 1 < command.size() && command[i + 1] == '(')) {
      return command;
    } else if (c == '\'' || c == '"') {
      quote = c;
    }
    if (!in_word) words.emplace_back(i, "");
    in_word = true;
    words.back().second += c;
  }
  if (quote != 0) return command;
  static const char* const kReserved[] = {"if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
                                          "while", "until", "for", "in", "[[", "function", "select", "time", "exec"};
  for (const auto& [start, word] : words) {
    const std::size_t eq = word.find('=');
    if (eq != std::string::npos && IsName(word, eq)) continue;  // NAME=value: an assignment
    if (word.find_first_of("<>") != std::string::npos) return command;  // a redirection first: as written
    for (const char* r : kReserved) {
      if (word == r) return command;
    }
    return command.substr(0, start) + "exec " + command.substr(start);
  }
  return command;  // assignments only
}

bool TesteePipe::Start(const std::string& command, const std::string& cwd, std::string* error) {
  int to_child[2], from_child[2], err_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0 || pipe2(err_child, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  const std::string shell_form = ShellForm(command);
  pid_ = fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    dup2(err_child[1], 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      std::fprintf(stderr, "tcts: cannot enter the testee's directory '%s': %s\n", cwd.c_str(), std::strerror(errno));
      _exit(127);
    }
    execl("/bin/sh", "sh", "-c", shell_form.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  close(err_child[1]);
  out_ = to_child[1];
  in_ = from_child[0];
  err_ = err_child[0];
  signal(SIGPIPE, SIG_IGN);  // a dead testee is an EPIPE on write, reported as such
  err_thread_ = std::thread([this] { DrainStderr(); });
  return true;
}

// The testee's stderr: passed on up to kStderrPassed bytes, then its tail kept. After
// StopStderr (the testee ended) only what is already there is read (a child of the testee
// that keeps writing does not hold this process).
void TesteePipe::DrainStderr() {
  char chunk[1 << 16];
  std::size_t after_stop = 0;
  for (;;) {
    pollfd p{err_, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      if (err_stop_) return;
      continue;
    }
    const ssize_t n = read(err_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    std::lock_guard<std::mutex> lock(err_mutex_);
    const std::size_t got = static_cast<std::size_t>(n);
    const std::size_t pass = std::min(got, kStderrPassed - err_passed_);
    if (pass > 0) wire::WriteAll(2, std::string(chunk, pass));
    err_passed_ += pass;
    if (got > pass) {
      err_dropped_ += got - pass;
      err_tail_.append(chunk + pass, got - pass);
      if (err_tail_.size() > 2 * kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
    }
    if (err_stop_ && (after_stop += got) > 2 * kStderrTail) return;
  }
}

void TesteePipe::StopStderr() {
  if (!err_thread_.joinable()) return;
  err_stop_ = true;
  err_thread_.join();
  close(err_);
  err_ = -1;
  if (err_dropped_ > 0) {
    const std::size_t keep = std::min(err_tail_.size(), kStderrTail);
    const std::string tail = err_tail_.substr(err_tail_.size() - keep);
    wire::WriteAll(2, "\ntcts: the testee's stderr ran past " + std::to_string(kStderrPassed >> 20) + " MiB: " +
                          std::to_string(err_dropped_ - keep) + " bytes left out; its last " +
                          std::to_string(keep) + " bytes:\n" + tail + "\n");
  }
}

bool TesteePipe::WriteLine(const std::string& line) { return wire::WriteAll(out_, line + "\n"); }

bool TesteePipe::ReadLine(std::string* line, bool* too_long, std::size_t max) {
  line->clear();
  cut_.Reset();
  // Bytes go from the pipe through the cut into the line as they come: only the line (its
  // error message cut) and what followed its newline (buffer_, at most one read) are held.
  auto take = [&](const char* p, std::size_t n) -> std::size_t {  // the bytes used, npos: no newline
    const void* nl = std::memchr(p, '\n', n);
    const std::size_t used = nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - p);
    cut_.Feed(p, used, line);
    return nl == nullptr ? std::string::npos : used + 1;
  };
  if (start_ < buffer_.size()) {
    const std::size_t used = take(buffer_.data() + start_, buffer_.size() - start_);
    if (used != std::string::npos) {
      start_ += used;
      return true;
    }
  }
  buffer_.clear();
  start_ = 0;
  for (;;) {
    if (line->size() > max) {
      *too_long = true;
      return false;
    }
    // Wait for bytes; while none come, see whether the testee is still there (a child of it
    // may hold the pipe open after it ended: no end of file would come).
    pollfd p{in_, POLLIN, 0};
    const int ready = poll(&p, 1, 200);
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) {
      if (!exited_ && pid_ > 0 && waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
      if (exited_) return false;
      continue;
    }
    char chunk[1 << 16];
    const ssize_t n = read(in_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    const std::size_t used = take(chunk, static_cast<std::size_t>(n));
    if (used != std::string::npos) {
      buffer_.assign(chunk + used, static_cast<std::size_t>(n) - used);
      return true;
    }
  }
}

std::string TesteePipe::Ended(int status) const {
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

std::string TesteePipe::Reap(double grace_s) {
  if (pid_ <= 0) return "not started";
  std::string how;
  if (exited_) {
    how = Ended(status_);
  } else {
    int status = 0;
    bool killed = false;
    if (grace_s >= 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
      while (waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= until) {
          kill(pid_, SIGKILL);
          killed = true;
          break;
        }
        usleep(10000);
      }
      if (!killed) exited_ = true;
    }
    if (!exited_) {
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    how = killed ? "still running " + std::to_string(static_cast<int>(grace_s)) + " s later; killed" : Ended(status);
  }
  pid_ = -1;
  StopStderr();
  return how;
}

void TesteePipe::Close() {
  if (out_ >= 0) close(out_);  // end of input: the testee's loop ends
  if (in_ >= 0) close(in_);
  out_ = in_ = -1;
  if (pid_ > 0) Reap(5.0);  // its input ended: a testee still there after 5 s is killed
  StopStderr();
}

}  // namespace tcts
