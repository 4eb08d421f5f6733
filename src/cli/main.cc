#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int status = modelcalc::run_cli(args, std::cout, std::cerr);
  // A write to stdout that failed (a full disk, a closed pipe, /dev/full) is
  // an error, not a silent success.
  std::cout.flush();
  errno = 0;
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int e = errno;
    std::cerr << "modelcalc: error: cannot write to standard output"
              << (e != 0 ? std::string(": ") + std::strerror(e) : std::string()) << "\n";
    if (status == 0) status = 1;
  }
  return status;
}
