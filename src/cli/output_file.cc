#include "output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace modelcalc {

Status write_output_file(const std::string& path, std::string_view content, std::string_view flag) {
  const auto fail = [&](const std::string& why) {
    return Status::InvalidArgument(flag, "cannot write '" + path + "': " + why);
  };
  if (path.empty()) return Status::InvalidArgument(flag, "needs a file path");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("it is a folder; give a file name");
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return fail(std::strerror(errno));
    f.write(content.data(), static_cast<std::streamsize>(content.size()));
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      return fail("write failed");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return fail(ec.message());
  }
  return Status::Ok();
}

}  // namespace modelcalc
