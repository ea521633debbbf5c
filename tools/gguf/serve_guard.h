// `gguf serve`'s guard against slow clients: cpp-httplib 0.11 times out each read of a
// request (5 s without a byte) but has no deadline for a whole request, so a client that
// trickles a byte every few seconds would hold a worker thread for ever (slowloris). The
// guard finds the server's connections (sockets whose local port is the server's and that
// have a peer) once a second and shuts down those that have been reading one request for
// longer than `deadline`: a connection is "reading" from when it is first seen or its last
// answer ended, until its next request reaches a handler (begin/end below).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

namespace gguf::cli {

class slow_client_guard {
 public:
  slow_client_guard(int port, std::chrono::seconds deadline);
  ~slow_client_guard();  ///< stops the watch thread
  slow_client_guard(const slow_client_guard&) = delete;
  slow_client_guard& operator=(const slow_client_guard&) = delete;

  /// A request of the client at ip:port has been read and is being answered.
  void begin(const std::string& ip, int port);
  /// Its answer is written (as far as the handler goes): the next request starts now.
  void end(const std::string& ip, int port);

 private:
  using key = std::tuple<int, std::string, int>;  // fd, peer ip, peer port
  using peer = std::pair<std::string, int>;         // ip, port
  struct peer_state {
    bool busy = false;
    std::chrono::steady_clock::time_point last_end{};
  };
  void watch();
  void scan();

  int port_;
  std::chrono::seconds deadline_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::map<key, std::chrono::steady_clock::time_point> conns_;  // first seen
  std::map<peer, peer_state> peers_;
  std::thread thread_;
};

}  // namespace gguf::cli
