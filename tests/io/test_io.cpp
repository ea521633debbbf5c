// gguf/io.h: whole reads and writes. A pipe fed in pieces while signals interrupt the
// reader (EINTR without SA_RESTART) still gives read_all every byte; a short count only at
// the end of the input; pread_all / pwrite_all at offsets; errors as -1 / false with errno.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

#include "gguf/io.h"
#include "test_support.h"

namespace {

volatile sig_atomic_t alarms = 0;
void on_alarm(int) { alarms = alarms + 1; }

std::vector<char> pattern(size_t n) {
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = char(i * 131 + 7);
  return v;
}

}  // namespace

TEST(Io, ReadAllGetsEveryByteThroughInterruptedShortReads) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const auto want = pattern(256 * 1024);  // more than a pipe holds: the writer blocks too
  // SIGALRM every 2 ms, delivered to this thread only (the writer blocks it), no SA_RESTART:
  // every blocking read of read_all can fail with EINTR
  struct sigaction sa {}, old {};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(::sigaction(SIGALRM, &sa, &old), 0);
  sigset_t alrm;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &alrm, nullptr), 0);
  std::thread writer([&] {
    for (size_t off = 0; off < want.size(); off += 10000) {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      ASSERT_TRUE(gguf::io::write_all(fds[1], want.data() + off, std::min<size_t>(10000, want.size() - off)));
    }
    ::close(fds[1]);
  });
  ASSERT_EQ(::pthread_sigmask(SIG_UNBLOCK, &alrm, nullptr), 0);
  itimerval every{{0, 2000}, {0, 2000}}, off{};
  ASSERT_EQ(::setitimer(ITIMER_REAL, &every, nullptr), 0);
  std::vector<char> got(want.size() + 100);
  const ssize_t n = gguf::io::read_all(fds[0], got.data(), got.size());
  const int err = errno;
  ::setitimer(ITIMER_REAL, &off, nullptr);
  writer.join();
  ::sigaction(SIGALRM, &old, nullptr);
  ::close(fds[0]);
  ASSERT_EQ(n, ssize_t(want.size())) << "errno " << err;  // short only at the end of the input
  got.resize(size_t(n));
  EXPECT_EQ(got, want);
  EXPECT_GT(alarms, 0) << "no signal arrived while reading: the test proved nothing";
}

TEST(Io, PositionalReadsAndWritesAndErrors) {
  const auto path = gguf::test::fresh_dir("io") / "f.bin";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  const auto bytes = pattern(100000);
  ASSERT_TRUE(gguf::io::pwrite_all(fd, bytes.data(), bytes.size(), 5000));
  std::vector<char> back(bytes.size());
  ASSERT_EQ(gguf::io::pread_all(fd, back.data(), back.size(), 5000), ssize_t(bytes.size()));
  EXPECT_EQ(back, bytes);
  std::vector<char> head(5000, 1);
  ASSERT_EQ(gguf::io::pread_all(fd, head.data(), head.size(), 0), 5000);
  EXPECT_EQ(head, std::vector<char>(5000, 0));  // the hole before the write reads as zeros
  EXPECT_EQ(gguf::io::pread_all(fd, back.data(), 10, 105000), 0);  // at the end: nothing
  EXPECT_EQ(gguf::io::pread_all(fd, back.data(), 100, 104950), 50);  // short only at the end
  ::close(fd);

  const int rd = gguf::io::open_read(path.c_str());
  ASSERT_GE(rd, 0);
  std::vector<char> all(200000);
  EXPECT_EQ(gguf::io::read_all(rd, all.data(), all.size()), 105000);
  ::close(rd);
  EXPECT_EQ(gguf::io::open_read((path.string() + ".missing").c_str()), -1);
  EXPECT_EQ(errno, ENOENT);

  errno = 0;
  EXPECT_EQ(gguf::io::read_all(-1, all.data(), 1), -1);
  EXPECT_EQ(errno, EBADF);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  auto* old = std::signal(SIGPIPE, SIG_IGN);
  EXPECT_FALSE(gguf::io::write_all(fds[1], all.data(), all.size()));
  EXPECT_EQ(errno, EPIPE);
  std::signal(SIGPIPE, old);
  ::close(fds[1]);
}
