// atomic_file.cpp — whole-or-nothing file writes (io.hpp): a temporary file beside the target,
// synced and renamed over it.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "trawl/detail/sigbus.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {
namespace {

// The temporary file being written, for the signal handler of install_interrupt_cleanup:
// a fixed buffer and a lock-free flag, which a handler may read.
char pending_tmp[4096];
std::atomic<bool> pending_set{false};
static_assert(std::atomic<bool>::is_always_lock_free);

/// Names `tmp` as the file to remove if a signal ends the process before it is renamed.
void hold_tmp(const std::string& tmp) {
  if (tmp.size() >= sizeof pending_tmp) return;
  pending_set.store(false);
  std::memcpy(pending_tmp, tmp.c_str(), tmp.size() + 1);
  pending_set.store(true);
}
void drop_tmp() { pending_set.store(false); }

extern "C" void remove_pending_and_reraise(int sig) {
  if (pending_set.load()) ::unlink(pending_tmp);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw error(errc::io_error, path + ": cannot " + what + ": " + std::strerror(err));
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// Writes all of `bytes` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t w = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return false;
    }
    at += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::string& named, std::string_view bytes) {
  // through a symbolic link: the file it points to is replaced, the link kept
  std::string path = named;
  struct stat lst {};
  if (::lstat(named.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (char* real = ::realpath(named.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  }
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    // a device, a pipe, /dev/stdout: written in place (there is no file to keep)
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail(path, "write", errno);
    if (!write_all(fd, bytes)) {
      const int err = errno;
      ::close(fd);
      fail(path, "write", err);
    }
    if (::close(fd) != 0) fail(path, "write", errno);
    return;
  }
  const std::string folder = folder_of(path);
  const std::size_t slash = path.find_last_of('/');
  // ".NAME.trawl-XXXXXX" in the same folder (path's own prefix, so no separator is doubled)
  const std::size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  std::string tmp = path.substr(0, name_at) + "." + path.substr(name_at) + ".trawl-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) fail(path, "write (a temporary file beside it)", errno);
  hold_tmp(tmp);
  const auto give_up = [&](const char* what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    drop_tmp();
    fail(path, what, err);
  };
  // the old file's permission bits, else what open(0666) would give under the umask
  mode_t mode = 0;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0) give_up("write", errno);
  if (!write_all(fd, bytes)) give_up("write", errno);
  if (::fsync(fd) != 0) give_up("write (sync)", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    drop_tmp();
    fail(path, "write", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    drop_tmp();
    fail(path, "write (rename)", err);
  }
  drop_tmp();
  // the rename itself reaches the disk with the folder's entry
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void install_interrupt_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = remove_pending_and_reraise;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) ::sigaction(sig, &sa, nullptr);
}

bool same_file(const std::string& a, const std::string& b) noexcept {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace trawl::io
