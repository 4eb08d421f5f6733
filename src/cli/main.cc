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
  if ((!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) && status == 0) {
    // (A command that already failed said so on its one line: exit 1 for a streamed write, 2 for bad input.)
    const int e = errno;
    std::cerr << "modelcalc: error: cannot write to standard output"
              << (e != 0 ? std::string(": ") + std::strerror(e) : std::string()) << "\n";
    status = 1;
  }
  return status;
}
