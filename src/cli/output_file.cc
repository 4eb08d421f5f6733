#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "quantity.h"

namespace modelcalc {

namespace {

// Writes all of `content` to `fd`, retrying short writes and EINTR.
bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A name no other writer uses: pid, a per-process counter and random bits.
std::string temp_name(const std::string& folder) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return folder + "/.modelcalc-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(rng() % 1000000007u) + ".tmp";
}

}  // namespace

Status write_output_file(const std::string& path, std::string_view content, std::string_view flag) {
  const auto fail = [&](const std::string& why) {
    return Status::InvalidArgument(flag, "cannot write " + quote_input(path) + ": " + why);
  };
  const auto fail_errno = [&](const char* what) { return fail(std::string(what) + ": " + std::strerror(errno)); };
  if (path.empty()) return Status::InvalidArgument(flag, "needs a file path");

  std::string target = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char* real = ::realpath(path.c_str(), nullptr);  // the file the link leads to
    if (real == nullptr) return fail("it is a symbolic link whose target cannot be resolved");
    target = real;
    std::free(real);
  }
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return fail("it is a folder; give a file name");
  // Replacing a file goes through its folder, which would let a writable folder hand over a file the
  // user may not write -- read-only, or another user's (it would also change owner): refuse those.
  if (exists && S_ISREG(st.st_mode)) {
    if (st.st_uid != ::geteuid()) return fail("it belongs to another user; give a path of your own");
    if ((st.st_mode & S_IWUSR) == 0) return fail("it is read-only; make it writable or give another path");
  }
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or FIFO: write through it; replacing it would destroy it.
    const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENXIO) return fail("it is a FIFO with no reader");
      return fail_errno("cannot open it");
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    const bool ok = write_all(fd, content);
    const int saved = errno;
    ::close(fd);
    errno = saved;
    if (!ok) return fail_errno("write failed");
    return Status::Ok();
  }

  const std::string folder = folder_of(target);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = temp_name(folder);
    // 0666 less the umask, as for any new file; O_EXCL: never an existing file.
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return fail_errno("cannot create a temporary file in its folder");
  }
  if (fd < 0) return fail("cannot create a temporary file in its folder");
  const auto abandon = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    return fail_errno(what);
  };
  if (exists && ::fchmod(fd, st.st_mode & 07777) != 0) return abandon("cannot keep its permissions");
  if (!write_all(fd, content)) return abandon("write failed");
  if (::fsync(fd) != 0) return abandon("fsync failed");
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    return fail_errno("close failed");
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    return fail_errno("rename failed");
  }
  // Make the rename itself durable (best effort: some file systems refuse).
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

Status check_output_path(const std::string& out, std::string_view out_flag, const std::string& in,
                         std::string_view in_flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status o = fs::status(out, ec);
  if (ec || !fs::exists(o)) return Status::Ok();
  const fs::file_status i = fs::status(in, ec);
  if (ec || !fs::exists(i)) return Status::Ok();
  const std::string quoted = quote_input(out);
  if (fs::equivalent(out, in, ec) && !ec) {
    return Status::InvalidArgument(out_flag, "would overwrite " + quoted + ", the file " + std::string(in_flag) +
                                                 " reads; write to another path");
  }
  if (!fs::is_directory(i) || !fs::is_regular_file(o)) return Status::Ok();
  const fs::path p(out);
  const std::string ext = p.extension().string();
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if ((ext == ".json" || ext == ".safetensors") && fs::equivalent(folder, in, ec) && !ec) {
    return Status::InvalidArgument(out_flag, "would overwrite " + quoted + " in the folder " + std::string(in_flag) +
                                                 " reads; write to another path");
  }
  return Status::Ok();
}

}  // namespace modelcalc
