#include "output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace modelcalc {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mc_output_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Names in dir_ other than `keep`: leftovers a writer must not leave.
  std::vector<std::string> others(const std::vector<std::string>& keep) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (std::find(keep.begin(), keep.end(), n) == keep.end()) out.push_back(n);
    }
    return out;
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, WritesAndReplacesAtomicallyLeavingNoTemporary) {
  const fs::path p = dir_ / "plot.svg";
  ASSERT_TRUE(write_output_file(p.string(), "first", "--plot").ok());
  EXPECT_EQ(slurp(p), "first");
  ASSERT_TRUE(write_output_file(p.string(), "second", "--plot").ok());
  EXPECT_EQ(slurp(p), "second");
  EXPECT_TRUE(others({"plot.svg"}).empty());
}

TEST_F(OutputFileTest, AUsersPathDotTmpIsNeverTouched) {
  const fs::path p = dir_ / "report.html";
  std::ofstream(dir_ / "report.html.tmp") << "mine";
  ASSERT_TRUE(write_output_file(p.string(), "page", "--report").ok());
  EXPECT_EQ(slurp(p), "page");
  EXPECT_EQ(slurp(dir_ / "report.html.tmp"), "mine");
  EXPECT_TRUE(others({"report.html", "report.html.tmp"}).empty());
}

TEST_F(OutputFileTest, ExistingFileKeepsItsPermissions) {
  const fs::path p = dir_ / "out.svg";
  std::ofstream(p) << "old";
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);  // 0640
  ASSERT_TRUE(write_output_file(p.string(), "new", "--plot").ok());
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(OutputFileTest, LongNamesWork) {
  const std::string name(250, 'n');  // NAME_MAX is 255: a fixed suffix would not fit
  const fs::path p = dir_ / (name + ".svg");
  ASSERT_TRUE(write_output_file(p.string(), "x", "--plot").ok());
  EXPECT_EQ(slurp(p), "x");
}

TEST_F(OutputFileTest, ASymlinkIsWrittenThroughAndStaysALink) {
  const fs::path target = dir_ / "real.svg";
  const fs::path link = dir_ / "link.svg";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  ASSERT_TRUE(write_output_file(link.string(), "new", "--plot").ok());
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(slurp(target), "new");
  const fs::path dangling = dir_ / "dangling.svg";
  fs::create_symlink(dir_ / "no" / "such" / "file", dangling);
  auto r = write_output_file(dangling.string(), "x", "--plot");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message().rfind("--plot: cannot write", 0), 0u) << r.message();
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dangling)));
}

TEST_F(OutputFileTest, DevicesAndFifosAreWrittenThroughNeverReplaced) {
  // /dev/null: written through; it stays a character device.
  ASSERT_TRUE(write_output_file("/dev/null", "x", "--plot").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // A FIFO nobody reads: refused at once (not waited on), and still a FIFO.
  const fs::path fifo = dir_ / "fifo.svg";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = write_output_file(fifo.string(), "x", "--plot");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("FIFO with no reader"), std::string::npos) << r.message();
  EXPECT_TRUE(fs::is_fifo(fifo));
  // A FIFO with a reader gets the bytes.
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  Status s;
  for (int i = 0; i < 2000; ++i) {  // until the reader has opened its end
    s = write_output_file(fifo.string(), "through the pipe", "--plot");
    if (s.ok()) break;
    ::usleep(1000);
  }
  if (!s.ok()) {  // unblock the reader before failing
    std::ofstream(fifo) << "";
  }
  reader.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  // A folder is refused.
  auto d = write_output_file(dir_.string(), "x", "--report");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("folder"), std::string::npos);
}

// Eight writers, one path, many rounds: whatever the interleaving, the path
// always holds one writer's complete content and no temporaries remain.
TEST_F(OutputFileTest, ConcurrentWritersLeaveOnlyCompleteFiles) {
  const fs::path p = dir_ / "shared.svg";
  constexpr int kWriters = 8, kRounds = 20;
  std::vector<std::string> contents;
  for (int w = 0; w < kWriters; ++w) {
    contents.push_back("<svg>" + std::string(64 * 1024, static_cast<char>('a' + w)) + "</svg>");
  }
  std::vector<std::thread> threads;
  std::vector<int> failures(kWriters, 0);
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kRounds; ++i) failures[w] += !write_output_file(p.string(), contents[w], "--plot").ok();
    });
  }
  // Meanwhile a reader never sees a torn file: the path is absent or complete.
  std::atomic<bool> done{false};
  int torn = 0, reads = 0;
  std::thread reader([&] {
    while (!done) {
      const std::string seen = slurp(p);
      ++reads;
      if (!seen.empty() && std::find(contents.begin(), contents.end(), seen) == contents.end()) ++torn;
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(torn, 0) << "of " << reads << " reads";
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], 0) << "writer " << w;
  const std::string final = slurp(p);
  EXPECT_NE(std::find(contents.begin(), contents.end(), final), contents.end()) << "a torn file of size "
                                                                                  << final.size();
  EXPECT_TRUE(others({"shared.svg"}).empty());
}

TEST_F(OutputFileTest, AnUnwritableFolderIsOneLineNamingTheFlag) {
  auto r = write_output_file((dir_ / "no" / "such" / "folder" / "x.svg").string(), "x", "--plot");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message().rfind("--plot: cannot write", 0), 0u) << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace modelcalc
