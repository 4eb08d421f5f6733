#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace modelcalc {

namespace {

using nlohmann::json;

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a folder, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// "line L, column C" of byte offset `pos` (1-based, as nlohmann reports it).
std::string position_of(std::string_view text, size_t pos) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i + 1 < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// nlohmann's SAX events built into a json value, with the checks the DOM
// parser lacks: duplicate keys and a depth limit. Records the first error
// instead of throwing.
class StrictBuilder {
 public:
  json root;
  std::string error;  // why parsing stopped, empty if it did not
  size_t error_pos = 0;
  size_t position = 0;  // set by the caller for errors found here (approximate)

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return put(v); }
  bool number_float(json::number_float_t v, const std::string& /*text*/) { return put(v); }
  bool string(json::string_t& v) { return put(std::move(v)); }
  bool binary(json::binary_t& /*v*/) { return fail("binary values are not JSON"); }
  bool start_object(size_t /*n*/) { return open(json::object()); }
  bool start_array(size_t /*n*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    if (stack_.back()->contains(k)) {
      const std::string shown = k.size() > 40 ? k.substr(0, 40) + "..." : k;
      return fail("duplicate key \"" + shown + "\" (each key may appear once)");
    }
    key_ = std::move(k);
    return true;
  }
  bool parse_error(size_t pos, const std::string& /*token*/, const nlohmann::detail::exception& ex) {
    std::string why = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: <why>"
    if (auto p = why.find("] "); p != std::string::npos) why = why.substr(p + 2);
    if (why.starts_with("parse error")) {
      if (auto p = why.find(": "); p != std::string::npos) why = why.substr(p + 2);
    }
    error = why;
    error_pos = pos;
    return false;
  }

 private:
  bool fail(std::string why) {
    error = std::move(why);
    error_pos = 0;
    return false;
  }
  bool put(json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return true;
    }
    json* top = stack_.back();
    if (top->is_object()) {
      (*top)[key_] = std::move(v);
    } else {
      top->push_back(std::move(v));
    }
    return true;
  }
  bool open(json v) {
    if (static_cast<int>(stack_.size()) >= kMaxJsonDepth) {
      return fail("nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    }
    if (stack_.empty()) {
      root = std::move(v);
      stack_.push_back(&root);
      return true;
    }
    json* top = stack_.back();
    json* child = nullptr;
    if (top->is_object()) {
      child = &((*top)[key_] = std::move(v));
    } else {
      top->push_back(std::move(v));
      child = &top->back();
    }
    stack_.push_back(child);
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  std::vector<json*> stack_;
  std::string key_;
};

}  // namespace

namespace {

// Opens `path` for reading and requires a regular file (what it is otherwise
// is the error); *st is its stat. REQUIRES: fd, st not null.
Status open_regular(const std::string& path, Fd* fd, struct stat* st) {
  const auto fail = [&](const std::string& why) { return Status::InvalidArgument(path, why); };
  if (path.empty()) return Status::InvalidArgument("file", "needs a path");
  // O_NONBLOCK: opening a FIFO with no writer must not hang; it is refused below.
  fd->reset(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd->get() < 0) {
    if (errno == ENOENT) return fail("no such file");
    return fail(std::string("cannot open: ") + std::strerror(errno));
  }
  if (::fstat(fd->get(), st) != 0) return fail(std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st->st_mode)) return fail(kind_of(st->st_mode));
  return Status::Ok();
}

}  // namespace

Result<std::string> read_input_file(const std::string& path) {
  const auto fail = [&](const std::string& why) { return Status::InvalidArgument(path, why); };
  Fd fd(-1);
  struct stat st {};
  MC_RETURN_IF_ERROR(open_regular(path, &fd, &st));
  const auto limit_error = [&] {
    return fail("is larger than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB, the limit for input files");
  };
  if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > kMaxInputFileBytes) return limit_error();
  std::string text;
  text.resize(static_cast<size_t>(st.st_size) + 1);
  size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > kMaxInputFileBytes) return limit_error();  // it grew while we read
      text.resize(std::min(text.size() * 2 + 1, kMaxInputFileBytes + 1));
    }
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxInputFileBytes) return limit_error();
  text.resize(got);
  return text;
}

Result<std::string> read_input_prefix(const std::string& path, size_t max_bytes, int64_t* file_size) {
  const auto fail = [&](const std::string& why) { return Status::InvalidArgument(path, why); };
  Fd fd(-1);
  struct stat st {};
  MC_RETURN_IF_ERROR(open_regular(path, &fd, &st));
  *file_size = static_cast<int64_t>(st.st_size);
  std::string text(std::min<size_t>(max_bytes, static_cast<size_t>(std::max<off_t>(st.st_size, 0))), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

Result<json> parse_json_strict(std::string_view text, std::string_view source) {
  StrictBuilder b;
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &b, json::input_format_t::json, /*strict=*/true);
  } catch (const std::exception& e) {  // defensive: the builder does not throw, but allocation may
    return Status::InvalidArgument(source, std::string("cannot parse JSON: ") + e.what());
  }
  if (!ok) {
    std::string why = b.error.empty() ? "invalid JSON" : b.error;
    for (char& c : why) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    const std::string where = b.error_pos > 0 ? " at " + position_of(text, b.error_pos) : "";
    return Status::InvalidArgument(source, "malformed JSON" + where + ": " + why);
  }
  return std::move(b.root);
}

namespace {

// The Python constant starting at text[i] when one stands there as a value, else "".
std::string_view python_constant_at(std::string_view text, size_t i, char prev) {
  if (prev != ':' && prev != ',' && prev != '[') return {};
  for (std::string_view c : {std::string_view("NaN"), std::string_view("Infinity"), std::string_view("-Infinity")}) {
    if (text.substr(i, c.size()) != c) continue;
    const size_t end = i + c.size();
    if (end == text.size()) return c;
    const char next = text[end];
    if (next == ',' || next == ']' || next == '}' || next == ' ' || next == '\n' || next == '\r' || next == '\t') {
      return c;
    }
  }
  return {};
}

}  // namespace

Result<json> parse_python_json(std::string_view text, std::string_view source) {
  std::string out;
  bool in_string = false, escape = false, rewrote = false;
  char prev = '\0';  // the last character outside a string that is not white space
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == 'N' || c == 'I' || c == '-') {
      const std::string_view k = python_constant_at(text, i, prev);
      if (!k.empty()) {
        out += '"';
        out += k;
        out += '"';
        i += k.size() - 1;
        prev = '"';
        rewrote = true;
        continue;
      }
    }
    if (c == '"') in_string = true;
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') prev = c;
    out += c;
  }
  return parse_json_strict(rewrote ? std::string_view(out) : text, source);
}

}  // namespace modelcalc
