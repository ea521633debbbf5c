// gguf serve FILE_OR_URL... [--port N] [--host H] [--diff]: a local web page over the given
// files (overview, metadata, tensors, layers, tokenizer, memory, validation, diff) and the
// JSON API it uses. Safe by default: loopback only, GET only, no request path ever touches
// the filesystem, bounded requests and work, clean shutdown on SIGINT/SIGTERM.
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <thread>

#include <httplib.h>

#include "commands.h"
#include "serve_api.h"
#include "serve_guard.h"
#include "web_assets.h"

namespace gguf::cli::cmd_serve {
namespace {

const char* const help_footer = R"(The page (http://HOST:PORT/): an overview of each file (architecture, parameters,
file type, bits per weight, sizes, the naming-convention reading), the metadata table
(arrays collapsible, long strings such as the chat template in full on demand), the
tensor table (sortable, filterable: type, shape, bytes, bits per weight), a per-layer
strip of tensor types and sizes, a tokenizer box (as `gguf tokenize`), a chat box
(messages in, the template's prompt and its token count out, as `gguf chat`), a memory box (as
`gguf estimate`, with a bar chart), validation diagnostics, and with --diff the
differences between the first two files (as `gguf diff`). Every asset is inside the
binary: the page works offline and loads nothing from elsewhere.

The JSON API under /api/ (files, info, kv, value, tensors, validate, tokenize, chat,
estimate, diff) is documented in docs/serve.md.

Safe by default: listens on 127.0.0.1 only (another --host is warned about: the files
are then readable by anyone who can reach the address); serves only the files given (no
path from a request is used to open anything); GET and HEAD only (405 otherwise);
request line at most 8 KiB, each header line at most 8 KiB and 64 of them, no request
bodies (413), a tokenizer text at most 16 KiB, a client that sends nothing for 5 s or takes
more than 10 s over one request cut off; a Host header other than the address listened
on refused (421: DNS rebinding); stops cleanly on SIGINT or SIGTERM.
The line "gguf serve: listening on http://HOST:PORT/" goes to stdout once the port is
open (with --port 0, the port the system chose). See docs/serve.md.)";

bool is_loopback(const std::string& host) {
  if (host == "localhost") return true;
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  in6_addr a6{};
  if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
  return false;
}

void secure_headers(httplib::Response& res) {
  res.set_header("Content-Security-Policy",
                 "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                 "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-store");
}

int run(int argc, char** argv) {
  CLI::App app{"Serve a local web page that shows GGUF files: overview, metadata, tensors, layers, "
               "tokenizer, memory estimate, validation, and the differences between two files.",
               "serve"};
  app.footer(help_footer);
  std::vector<std::string> inputs;
  std::string host = "127.0.0.1";
  int port = 8090;
  bool diff = false;
  app.add_option("FILE_OR_URL", inputs, "GGUF files, http(s):// URLs or shards of split models (at most 16)")
      ->required();
  app.add_option("--port", port, "TCP port (default 8090; 0: any free port)")->check(CLI::Range(0, 65535));
  app.add_option("--host", host, "address to listen on (default 127.0.0.1, loopback only)");
  app.add_flag("--diff", diff, "also show the differences between the first two files (as gguf diff)");
  add_remote_options(app);
  add_vocab_cache_options(app);
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (inputs.size() > 16) {
    std::cerr << "gguf serve: at most 16 files\n";
    return exit_usage;
  }
  if (diff && inputs.size() < 2) {
    std::cerr << "gguf serve: --diff needs two files\n";
    return exit_usage;
  }
  const bool loopback = is_loopback(host);
  if (!loopback)
    std::cerr << "gguf serve: warning: listening on " << host
              << ", not loopback: anyone who can reach it can read these files\n";

  // SIGINT / SIGTERM are taken by one thread (sigwait), which stops the server: every
  // other thread, the server's pool included, starts with them blocked (also the threads
  // that read remote files).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::vector<std::unique_ptr<served_file>> files;
  for (const auto& in : inputs) {
    split_facts split;
    auto f = open_model(in, false, &split);
    if (!f) return report(in, f.error());
    files.push_back(std::make_unique<served_file>(in, std::move(*f), split));
  }
  serve_api api(std::move(files), diff);

  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(8); };
  server.set_payload_max_length(1024);  // GET requests carry no body
  server.set_read_timeout(5, 0);
  server.set_write_timeout(5, 0);
  server.set_keep_alive_timeout(5);
  server.set_keep_alive_max_count(100);

  int bound = 0;  // the port, once bound
  std::unique_ptr<slow_client_guard> guard;  // made once the port is known
  auto answer = [](httplib::Response& res, int status, const std::string& what) {
    res.status = status;
    res.set_content("{\"error\":" + nlohmann::json(what).dump() + "}", "application/json");
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    secure_headers(res);
    if (guard) guard->begin(req.remote_addr, req.remote_port);
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      return answer(res, 405, "only GET and HEAD");
    }
    // no request carries a body (its bytes are never read)
    if (req.get_header_value("Transfer-Encoding") != "" ||
        (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0"))
      return answer(res, 413, "requests carry no body");
    if (req.headers.size() > 64) return answer(res, 431, "more than 64 header fields");
    // A page on another origin must not read the files through the browser (DNS
    // rebinding): on loopback, only Host headers naming a loopback address are answered.
    if (loopback) {
      const std::string h = req.get_header_value("Host");
      const std::string p = ":" + std::to_string(bound);
      if (h != "127.0.0.1" + p && h != "localhost" + p && h != "[::1]" + p && h != host + p)
        return answer(res, 421, "this server answers only requests for " + host + p);
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // called once the answer is written: the connection's next request starts
  server.set_logger([&](const httplib::Request& req, const httplib::Response&) {
    if (guard) guard->end(req.remote_addr, req.remote_port);
  });
  server.Get(".*", [&](const httplib::Request& req, httplib::Response& res) {
    const std::string& path = req.path;
    if (path.rfind("/api/", 0) == 0) {
      std::multimap<std::string, std::string> params(req.params.begin(), req.params.end());
      auto a = api.get(path, params);
      res.status = a.status;
      res.set_content(a.body, "application/json");
      return;
    }
    const std::string want = path == "/" ? "/index.html" : path;
    for (const auto& asset : web_assets()) {
      if (asset.path == want) {
        res.set_content(asset.bytes.data(), asset.bytes.size(), std::string(asset.mime).c_str());
        return;
      }
    }
    res.status = 404;
    res.set_content("{\"error\":\"not found\"}", "application/json");
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("{\"error\":\"internal error\"}", "application/json");
  });

  bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    std::cerr << "gguf serve: cannot listen on " << host << ":" << port << "\n";
    return exit_usage;
  }
  guard = std::make_unique<slow_client_guard>(bound, std::chrono::seconds(10));
  std::atomic<bool> signalled{false}, listen_returned{false};
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    signalled = true;
    // a signal that comes before the accept loop runs must still stop it
    while (!server.is_running() && !listen_returned) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    server.stop();
  });
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::printf("gguf serve: listening on http://%s:%d/\n", shown.c_str(), bound);
  std::fflush(stdout);
  const bool ok = server.listen_after_bind();
  listen_returned = true;
  if (!signalled) pthread_kill(stopper.native_handle(), SIGTERM);  // listen failed: wake the stopper
  stopper.join();
  std::fprintf(stderr, "gguf serve: stopped\n");
  return ok ? exit_ok : exit_usage;
}

const registrar reg{"serve", "local web viewer of files: metadata, tensors, tokenizer, memory, diff", run};

}  // namespace
}  // namespace gguf::cli::cmd_serve
