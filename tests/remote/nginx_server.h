// A real nginx for the remote-file tests: started on a free loopback port, serving the
// test data under /data/, with the locations the tests need (configured here), and its
// access log parsed to count requests and bytes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gguf::test {

/// One line of the access log.
struct access_entry {
  std::string method, uri;
  int status = 0;
  uint64_t bytes = 0;  ///< body bytes sent
  std::string range;   ///< the request's Range header, "-" if none
};

class nginx_server {
 public:
  /// Starts nginx serving `data` (retries another port if one is taken meanwhile).
  /// Locations: /data/ (the files), /redirect/X (302 to /data/X), /auth/ (401 unless
  /// "Authorization: Bearer test-token"), /norange/ (ignores Range: 200 with the whole
  /// file), /slow/ (64 bytes/s), /mutable/ (a scratch folder the test may change), and a
  /// mimic of the Hugging Face hub at /hub (its files in scratch()/hub: api/... the model
  /// API's answers, files/OWNER/REPO/... the files; /hub/OWNER/REPO/resolve/REV/PATH
  /// redirects to the CDN http://localhost:PORT/cdn/OWNER/REPO/PATH, which refuses an
  /// Authorization header; the owner "gated" needs "Bearer test-token" to resolve).
  /// started() is false (with a reason) when nginx is not installed or cannot start.
  explicit nginx_server(const std::filesystem::path& data);
  ~nginx_server();
  nginx_server(const nginx_server&) = delete;
  nginx_server& operator=(const nginx_server&) = delete;

  bool started() const { return pid_ > 0; }
  const std::string& why_not() const { return why_; }
  /// "http://127.0.0.1:PORT"
  std::string base() const;
  /// The scratch folder served under /mutable/.
  const std::filesystem::path& scratch() const { return scratch_; }
  /// Log entries since the last call (nginx writes a line when a request ends).
  std::vector<access_entry> take_log();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path dir_, scratch_;
  std::string why_;
  uint64_t log_pos_ = 0;
};

/// Process result with a wall-clock limit (the process is killed past it).
struct timed_result {
  int exit_code = -1;  ///< 128 + signal if killed
  std::string out, err;
  double seconds = 0;
  uint64_t max_rss_kib = 0;  ///< the program's peak resident set (VmHWM, sampled every 5 ms)
};
/// Runs the gguf CLI with `args`, environment additions `env` ("NAME=value"), standard
/// input from `stdin_path` (or /dev/null) and a limit of `limit_s` seconds.
timed_result run_gguf(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                      const std::string& stdin_path = {}, double limit_s = 120);

}  // namespace gguf::test
