#include "serve_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <set>

namespace gguf::cli {
namespace {

// ip and port of a socket address (IPv4 or IPv6); false for another family.
bool address(const sockaddr_storage& sa, std::string& ip, int& port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (sa.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(sa);
    inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
    port = ntohs(a.sin_port);
  } else if (sa.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(sa);
    inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof buf);
    port = ntohs(a.sin6_port);
  } else {
    return false;
  }
  ip = buf;
  return true;
}

}  // namespace

slow_client_guard::slow_client_guard(int port, std::chrono::seconds deadline)
    : port_(port), deadline_(deadline), thread_([this] { watch(); }) {}

slow_client_guard::~slow_client_guard() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

void slow_client_guard::begin(const std::string& ip, int port) {
  std::lock_guard lock(mutex_);
  peers_[{ip, port}].busy = true;
}

void slow_client_guard::end(const std::string& ip, int port) {
  std::lock_guard lock(mutex_);
  auto& p = peers_[{ip, port}];
  p.busy = false;
  p.last_end = std::chrono::steady_clock::now();
}

void slow_client_guard::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
    lock.unlock();
    scan();
    lock.lock();
  }
}

void slow_client_guard::scan() {
  rlimit lim{};
  int max_fd = 4096;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < 65536) max_fd = static_cast<int>(lim.rlim_cur);
  const auto now = std::chrono::steady_clock::now();
  std::set<key> seen;
  for (int fd = 3; fd < max_fd; ++fd) {
    sockaddr_storage local{}, peer{};
    socklen_t n = sizeof local, m = sizeof peer;
    std::string ip;
    int lport = 0, pport = 0;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n) != 0 || !address(local, ip, lport) ||
        lport != port_)
      continue;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &m) != 0 || !address(peer, ip, pport)) continue;
    key k{fd, ip, pport};
    seen.insert(k);
    std::lock_guard lock(mutex_);
    auto first = conns_.try_emplace(k, now).first->second;
    const auto& p = peers_[{ip, pport}];
    const auto since = std::max(first, p.last_end);
    if (!p.busy && now - since > deadline_) {
      shutdown(fd, SHUT_RDWR);  // the server's read fails; it closes the socket itself
      conns_[k] = now;
    }
  }
  std::lock_guard lock(mutex_);
  std::set<peer> live;
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (seen.count(it->first)) {
      live.insert({std::get<1>(it->first), std::get<2>(it->first)});
      ++it;
    } else {
      it = conns_.erase(it);
    }
  }
  for (auto it = peers_.begin(); it != peers_.end();) it = live.count(it->first) || it->second.busy ? std::next(it) : peers_.erase(it);
}

}  // namespace gguf::cli
