#include "conformance/protocol/testee_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "conformance/protocol/wire.h"

namespace tcts {

std::string TesteePipe::Shown(const std::vector<std::string>& argv) {
  std::string shown;
  for (const std::string& word : argv) shown += (shown.empty() ? "" : " ") + word;
  return shown;
}

bool TesteePipe::Start(const std::vector<std::string>& argv, const std::string& cwd, std::string* error) {
  if (argv.empty() || argv[0].empty()) {
    *error = "no program to run (the testee's argv is empty)";
    return false;
  }
  std::vector<char*> args;
  for (const std::string& word : argv) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  // The child reports a failed chdir or exec on exec_error (closed by a successful exec).
  int to_child[2], from_child[2], err_child[2], exec_error[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0 || pipe2(err_child, O_CLOEXEC) != 0 ||
      pipe2(exec_error, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  // Made before the fork: the child only writes them (another thread may hold the allocator).
  const std::string cannot_enter = "cannot enter the testee's directory '" + cwd + "': ";
  const std::string cannot_run = "cannot run the testee's program '" + argv[0] + "': ";
  pid_ = fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    dup2(err_child[1], 2);
    const bool entered = cwd.empty() || chdir(cwd.c_str()) == 0;
    if (entered) execvp(args[0], args.data());
    const char* reason = std::strerror(errno);
    auto say = [&](const char* p, std::size_t n) {
      for (ssize_t k; n > 0 && (k = write(exec_error[1], p, n)) > 0; p += k, n -= static_cast<std::size_t>(k)) {
      }
    };
    const std::string& what = entered ? cannot_run : cannot_enter;
    say(what.data(), what.size());
    say(reason, std::strlen(reason));
    _exit(127);
  }
  close(exec_error[1]);
  std::string failed;
  char chunk[512];
  for (ssize_t n; (n = read(exec_error[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    failed.append(chunk, static_cast<std::size_t>(n));
  }
  close(exec_error[0]);
  if (!failed.empty()) {
    close(to_child[0]);
    close(to_child[1]);
    close(from_child[0]);
    close(from_child[1]);
    close(err_child[0]);
    close(err_child[1]);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    *error = failed;
    return false;
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
