// A hostile HTTP server (a small socket server in this test) answers range requests with
// truncated, oversized, mislabeled, mutated, endless or stalled responses: every read
// command ends with exit 1 or 2 (0 where a mutation left a valid file), within its
// timeout, with one line on stderr, and never with a signal.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "nginx_server.h"
#include "test_support.h"

using gguf::test::data_file;
using gguf::test::run_gguf;

namespace {

enum class mode {
  truncated,      // the connection closes halfway through the body
  oversized,      // no Content-Length, and more body than the Content-Range span
  length_mismatch,  // Content-Length differs from the Content-Range span
  wrong_range,    // Content-Range for other bytes than asked
  huge_total,     // Content-Range claims an exabyte file
  size_changes,   // the total in Content-Range changes between requests
  etag_changes,   // a new ETag on every response
  endless_200,    // ignores Range: 200 with a 40 GB Content-Length, streaming zeros
  stall,          // headers, then nothing
  drip,           // one byte every 200 ms
  always_503,     // 503 forever
  garbage,        // not HTTP
  redirect_loop,  // 302 to itself
  mutated,        // the right ranges with bytes flipped
  flaky,          // every other request: 503, 429 (Retry-After: 1) or a reset connection
};

class hostile_server {
 public:
  hostile_server(std::vector<std::byte> file, mode m, uint32_t seed) : file_(std::move(file)), mode_(m), rng_(seed) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 16);
    accept_ = std::thread([this] { serve(); });
  }
  ~hostile_server() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    accept_.join();
    for (auto& t : conns_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/model.gguf"; }

 private:
  std::vector<std::byte> file_;
  mode mode_;
  std::mt19937 rng_;
  std::mutex mu_;
  int fd_ = -1, port_ = 0, served_ = 0;
  std::atomic<bool> stop_{false};
  std::thread accept_;
  std::vector<std::thread> conns_;

  void serve() {
    for (;;) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::lock_guard lock(mu_);
      conns_.emplace_back([this, c] { handle(c); });
    }
  }

  static bool send_all(int c, const void* p, size_t n) {
    const char* s = static_cast<const char*>(p);
    while (n) {
      ssize_t w = ::send(c, s, n, MSG_NOSIGNAL);
      if (w <= 0) return false;
      s += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  static bool send_str(int c, const std::string& s) { return send_all(c, s.data(), s.size()); }

  void handle(int c) {
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) {
        ::close(c);
        return;
      }
      req.append(buf, static_cast<size_t>(n));
    }
    uint64_t a = 0, b = file_.size() - 1;
    if (auto p = req.find("Range: bytes="); p != std::string::npos) {
      std::sscanf(req.c_str() + p + 13, "%lu-%lu", &a, &b);
      b = std::min<uint64_t>(b, file_.size() - 1);
    }
    int n_served;
    {
      std::lock_guard lock(mu_);
      n_served = served_++;
    }
    respond(c, a, b, n_served);
    ::close(c);
  }

  std::string head(uint64_t a, uint64_t b, uint64_t total, uint64_t length, const std::string& etag = "\"v1\"") {
    return "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(a) + "-" + std::to_string(b) + "/" +
           std::to_string(total) + "\r\nContent-Length: " + std::to_string(length) + "\r\nETag: " + etag +
           "\r\nConnection: close\r\n\r\n";
  }

  void respond(int c, uint64_t a, uint64_t b, int n_served) {
    const uint64_t n = b - a + 1, size = file_.size();
    const auto* body = file_.data() + a;
    switch (mode_) {
      case mode::truncated:
        send_str(c, head(a, b, size, n));
        send_all(c, body, n / 2);
        return;
      case mode::oversized: {
        std::string h = head(a, b, size, n);
        h.erase(h.find("Content-Length"), h.find("\r\n", h.find("Content-Length")) + 2 - h.find("Content-Length"));
        send_str(c, h);
        send_all(c, body, n);
        std::vector<char> extra(1 << 16, 'x');
        send_all(c, extra.data(), extra.size());
        return;
      }
      case mode::length_mismatch:
        send_str(c, head(a, b, size, n + 100));
        send_all(c, body, n);
        send_all(c, std::string(100, '\0').data(), 100);
        return;
      case mode::wrong_range:
        send_str(c, head(a + 8, b + 8, size + 8, n));
        send_all(c, body, n);
        return;
      case mode::huge_total:
        send_str(c, head(a, b, 1ull << 60, n));
        send_all(c, body, n);
        return;
      case mode::size_changes:
        send_str(c, head(a, b, size + static_cast<uint64_t>(n_served), n));
        send_all(c, body, n);
        return;
      case mode::etag_changes:
        send_str(c, head(a, b, size, n, "\"v" + std::to_string(n_served) + "\""));
        send_all(c, body, n);
        return;
      case mode::endless_200: {
        send_str(c, "HTTP/1.1 200 OK\r\nContent-Length: 40000000000\r\nConnection: close\r\n\r\n");
        std::vector<char> zeros(1 << 16);
        while (!stop_ && send_all(c, zeros.data(), zeros.size())) {
        }
        return;
      }
      case mode::stall:
        send_str(c, head(a, b, size, n));
        while (!stop_) {
          char x;
          if (::recv(c, &x, 1, 0) <= 0) return;  // until the client gives up
        }
        return;
      case mode::drip:
        send_str(c, head(a, b, size, n));
        for (uint64_t i = 0; i < n && !stop_; ++i) {
          if (!send_all(c, body + i, 1)) return;
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        return;
      case mode::always_503:
        send_str(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      case mode::garbage:
        send_str(c, "SSH-2.0-OpenSSH_9.2\r\n\x01\x02\x03 not http at all\r\n\r\n");
        return;
      case mode::redirect_loop:
        send_str(c, "HTTP/1.1 302 Found\r\nLocation: /model.gguf\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      case mode::flaky:
        if (n_served % 2 == 0) {
          if (n_served % 6 == 0) send_str(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
          else if (n_served % 6 == 2) send_str(c, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
          else {
            send_str(c, head(a, b, size, n));  // then the connection drops
            send_all(c, body, std::min<uint64_t>(n, 100));
          }
          return;
        }
        send_str(c, head(a, b, size, n));
        send_all(c, body, n);
        return;
      case mode::mutated: {
        std::vector<std::byte> copy(body, body + n);
        std::lock_guard lock(mu_);
        uint32_t flips = 1 + rng_() % 16;
        for (uint32_t i = 0; i < flips; ++i) copy[rng_() % n] ^= std::byte(1 + rng_() % 255);
        send_str(c, head(a, b, size, n));
        send_all(c, copy.data(), n);
        return;
      }
    }
  }
};

const char* mode_name(mode m) {
  static const char* names[] = {"truncated", "oversized", "length_mismatch", "wrong_range", "huge_total",
                                "size_changes", "etag_changes", "endless_200", "stall", "drip",
                                "always_503", "garbage", "redirect_loop", "mutated", "flaky"};
  return names[static_cast<int>(m)];
}

// Every read command on `url`, each bounded by --timeout 1 (the test allows 10 s).
void run_all(const std::string& url, mode m, bool ok_allowed) {
  const std::vector<std::string> remote = {"--timeout", "1", "--retries", "1", "--first-request", "4096"};  // the metadata takes a second request
  const std::vector<std::vector<std::string>> cmds = {
      {"info", url},
      {"dump", "--json", "--full-arrays", url},
      {"validate", url},
      {"name", "--suggest", url},
      {"tokenize", "-m", url, "Hello world"},
      {"detokenize", "-m", url, "1", "2", "3"},
      {"embed", "-m", url, "Hello world"},
      {"dequantize", url, "blk.4.ffn_down.weight"},
  };
  for (auto args : cmds) {
    args.insert(args.end(), remote.begin(), remote.end());
    auto r = run_gguf(args, {}, {}, 10);
    std::string what = std::string(mode_name(m)) + ": gguf " + args[0];
    if (args[0] == "info") std::printf("%-16s exit %d, %.1f s: %s", mode_name(m), r.exit_code, r.seconds, r.err.c_str());
    EXPECT_LT(r.exit_code, 128) << what << " died with signal " << r.exit_code - 128;
    EXPECT_LT(r.seconds, 8.0) << what;
    if (ok_allowed && r.exit_code == 0) continue;
    EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << what << " exit " << r.exit_code << "\n" << r.err;
    // One line: "gguf: URL: what is wrong" (validate reports an invalid file on stdout).
    if (args[0] == "validate" && r.exit_code == 1 && r.err.empty()) continue;
    EXPECT_TRUE(r.err.starts_with("gguf: " + url + ": ")) << what << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  }
}

}  // namespace

TEST(HostileServer, EveryCommandFailsCleanly) {
  GGUF_REQUIRE_DATA();
  auto bytes = gguf::test::read_bytes(data_file("models/stories260K-Q8_0.gguf"));
  for (mode m : {mode::truncated, mode::oversized, mode::length_mismatch, mode::wrong_range, mode::huge_total,
                 mode::size_changes, mode::etag_changes, mode::endless_200, mode::always_503, mode::garbage,
                 mode::redirect_loop}) {
    hostile_server s(bytes, m, 1);
    run_all(s.url(), m, false);
  }
}

// A stalled or dripping server: each command gives up after its --timeout.
TEST(HostileServer, StalledAndDrippingServersTimeOut) {
  GGUF_REQUIRE_DATA();
  auto bytes = gguf::test::read_bytes(data_file("models/stories260K-Q8_0.gguf"));
  for (mode m : {mode::stall, mode::drip}) {
    hostile_server s(bytes, m, 1);
    for (const char* cmd : {"info", "dump"}) {
      auto r = run_gguf({cmd, s.url(), "--timeout", "1", "--retries", "0"}, {}, {}, 10);
      EXPECT_EQ(r.exit_code, 2) << mode_name(m) << " " << cmd << r.err;
      EXPECT_LT(r.seconds, 5.0) << mode_name(m) << " " << cmd;
      EXPECT_NE(r.err.find("stalled"), std::string::npos) << r.err;
    }
  }
}

// Mutated bodies (GGUF_HOSTILE_ROUNDS rounds, default 4): any exit code but a signal or a hang.
TEST(HostileServer, MutatedResponses) {
  GGUF_REQUIRE_DATA();
  auto bytes = gguf::test::read_bytes(data_file("models/stories260K-Q8_0.gguf"));
  int rounds = 4;
  if (const char* e = std::getenv("GGUF_HOSTILE_ROUNDS")) rounds = std::atoi(e);
  for (int i = 0; i < rounds; ++i) {
    hostile_server s(bytes, mode::mutated, static_cast<uint32_t>(i + 1));
    run_all(s.url(), mode::mutated, true);
  }
}

// 429 (with Retry-After), 503 and dropped connections are retried: with one retry each
// request succeeds, and the result equals the local file's.
TEST(HostileServer, RetriesAfter429And503AndResets) {
  GGUF_REQUIRE_DATA();
  auto path = data_file("models/stories260K-Q8_0.gguf");
  auto bytes = gguf::test::read_bytes(path);
  hostile_server s(bytes, mode::flaky, 1);
  auto r = run_gguf({"dump", "--json", s.url(), "--retries", "1", "--first-request", "4096", "--verbose"}, {}, {}, 30);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto l = run_gguf({"dump", "--json", path.string()});
  std::string out = r.out;
  for (size_t p = 0; (p = out.find(s.url(), p)) != std::string::npos;) out.replace(p, s.url().size(), path.string());
  EXPECT_EQ(out, l.out);
  EXPECT_NE(r.err.find("-> 503"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-> 429"), std::string::npos) << r.err;
  // Without retries the first failure is the answer.
  hostile_server s2(bytes, mode::flaky, 1);
  auto none = run_gguf({"info", s2.url(), "--retries", "0"}, {}, {}, 30);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err, "gguf: " + s2.url() + ": HTTP 503: server error\n");
}
