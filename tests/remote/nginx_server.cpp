#include "nginx_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "test_support.h"

namespace fs = std::filesystem;

namespace gguf::test {
namespace {

int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

bool accepts(int port) {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

std::string nginx_binary() {
  for (const char* p : {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"})
    if (::access(p, X_OK) == 0) return p;
  return {};
}

std::string config(const fs::path& dir, const fs::path& data, const fs::path& scratch, int port) {
  std::ostringstream c;
  std::string d = dir.string(), root = data.string(), mut = scratch.string();
  c << "daemon off;\nworker_processes 1;\npid " << d << "/nginx.pid;\nerror_log " << d << "/error.log;\n"
    << "events { worker_connections 128; }\n"
    << "http {\n"
    << "  log_format counts '$request_method $request_uri $status $body_bytes_sent \"$http_range\"';\n"
    << "  access_log " << d << "/access.log counts;\n";
  for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) c << "  " << t << "_temp_path " << d << "/tmp;\n";
  c << "  default_type application/octet-stream;\n"
    << "  keepalive_requests 10000;\n"
    << "  server {\n"
    << "    listen 127.0.0.1:" << port << ";\n"
    << "    location /data/ { alias " << root << "/; }\n"
    << "    location /redirect/ { rewrite ^/redirect/(.*)$ /data/$1 redirect; }\n"
    << "    location /auth/ {\n"
    << "      alias " << root << "/;\n"
    << "      if ($http_authorization != \"Bearer test-token\") { return 401; }\n"
    << "    }\n"
    << "    location /norange/ { alias " << root << "/; max_ranges 0; }\n"
    << "    location /slow/ { alias " << root << "/; limit_rate 64; }\n"
    << "    location /mutable/ { alias " << mut << "/; }\n"
    // a mimic of the Hugging Face hub (docs/remote.md) over SCRATCH/hub: the model API's
    // answers are static files, /resolve/ redirects to a CDN on another host name
    // (localhost instead of 127.0.0.1) that refuses any Authorization header, and the
    // repositories of the owner "gated" need "Authorization: Bearer test-token"
    << "    location /hub/api/ { alias " << mut << "/hub/api/; default_type application/json; }\n"
    << "    location ~ ^/hub/gated/([^/]+)/resolve/[^/]+/(.*)$ {\n"
    << "      if ($http_authorization != \"Bearer test-token\") { return 401; }\n"
    << "      return 302 http://localhost:" << port << "/cdn/gated/$1/$2;\n"
    << "    }\n"
    << "    location ~ ^/hub/([^/]+)/([^/]+)/resolve/[^/]+/(.*)$ { return 302 http://localhost:" << port
    << "/cdn/$1/$2/$3; }\n"
    << "    location /cdn/ {\n"
    << "      alias " << mut << "/hub/files/;\n"
    << "      if ($http_authorization) { return 403; }\n"
    << "    }\n"
    << "    location /authmutable/ {\n"
    << "      alias " << mut << "/;\n"
    << "      if ($http_authorization != \"Bearer test-token\") { return 401; }\n"
    << "    }\n"
    << "  }\n}\n";
  return c.str();
}

// The peak resident set of the gguf program `pid` runs (VmHWM of /proc/PID/status: its
// own memory since exec; getrusage's ru_maxrss would count the test process it was
// forked from), 0 before its exec and once it has exited.
uint64_t peak_rss_kib(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::error_code ec;  // before exec, the forked test process: not counted
  if (fs::read_symlink(proc + "/exe", ec) != fs::canonical(GGUF_CLI_PATH, ec)) return 0;
  std::ifstream in(proc + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  return 0;
}

}  // namespace

nginx_server::nginx_server(const fs::path& data) {
  std::string bin = nginx_binary();
  if (bin.empty()) {
    why_ = "nginx is not installed (scripts/bootstrap.sh installs it)";
    return;
  }
  char tmpl[] = "/tmp/gguf-nginx-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    why_ = "cannot create a temporary folder";
    return;
  }
  dir_ = tmpl;
  ::chmod(tmpl, 0755);  // the worker may run as another user
  scratch_ = dir_ / "mutable";
  fs::create_directories(scratch_);
  fs::create_directories(dir_ / "tmp");
  ::chmod(scratch_.c_str(), 0755);
  for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) {
    port_ = free_port();
    std::ofstream(dir_ / "nginx.conf") << config(dir_, fs::absolute(data), scratch_, port_);
    pid_t pid = ::fork();
    if (pid == 0) {
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      std::string prefix = dir_.string() + "/", conf = (dir_ / "nginx.conf").string(),
                  err = (dir_ / "error.log").string();
      ::execl(bin.c_str(), bin.c_str(), "-p", prefix.c_str(), "-c", conf.c_str(), "-e", err.c_str(), (char*)nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 100; ++i) {
      if (accepts(port_)) {
        pid_ = pid;
        break;
      }
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) break;  // exited: the port was taken, try another
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (pid_ <= 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  if (pid_ <= 0) {
    std::ifstream e(dir_ / "error.log");
    std::string line, all;
    while (std::getline(e, line)) all += line + "\n";
    why_ = "nginx did not start: " + all;
  }
}

nginx_server::~nginx_server() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  if (!dir_.empty() && !std::getenv("GGUF_KEEP_NGINX")) fs::remove_all(dir_, ec);
}

std::string nginx_server::base() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<access_entry> nginx_server::take_log() {
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // nginx logs when a request ends
  std::vector<access_entry> out;
  std::ifstream in(dir_ / "access.log");
  in.seekg(static_cast<std::streamoff>(log_pos_));
  std::string line;
  while (std::getline(in, line)) {
    log_pos_ += line.size() + 1;
    std::istringstream ls(line);
    access_entry e;
    ls >> e.method >> e.uri >> e.status >> e.bytes;
    std::getline(ls, e.range);
    auto q1 = e.range.find('"'), q2 = e.range.rfind('"');
    e.range = q1 != std::string::npos && q2 > q1 ? e.range.substr(q1 + 1, q2 - q1 - 1) : "-";
    out.push_back(e);
  }
  return out;
}

timed_result run_gguf(const std::vector<std::string>& args, const std::vector<std::string>& env,
                      const std::string& stdin_path, double limit_s) {
  static int counter = 0;
  fs::path dir = fs::temp_directory_path();
  std::string tag = std::to_string(::getpid()) + "_" + std::to_string(counter++);
  fs::path out_p = dir / ("gguf-remote-out-" + tag), err_p = dir / ("gguf-remote-err-" + tag);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int in = ::open(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY);
    int out = ::open(out_p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv;
    std::string bin = GGUF_CLI_PATH;
    argv.push_back(bin.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  timed_result r;
  int st = 0;
  for (;;) {
    r.max_rss_kib = std::max(r.max_rss_kib, peak_rss_kib(pid));
    if (::waitpid(pid, &st, WNOHANG) == pid) break;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > limit_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = gguf::test::read_text(out_p);
  r.err = gguf::test::read_text(err_p);
  std::error_code ec;
  fs::remove(out_p, ec);
  fs::remove(err_p, ec);
  return r;
}

}  // namespace gguf::test
