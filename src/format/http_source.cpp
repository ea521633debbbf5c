// HTTP range requests with libcurl: one easy handle (one kept-alive connection) per file;
// every response is checked against its request before a byte of it is stored.
//
// libcurl is loaded with dlopen on the first remote open, not linked: a process that
// never reads a URL does not map libcurl and its ~28 dependencies (gnutls, krb5, ldap,
// ssh ...), which cost about 3 ms at every start of the command-line tool. GGUF_LIBCURL
// names another library to load (e.g. libcurl-gnutls.so.4); the API used is libcurl's
// stable ABI 4.
#include "format/http_source.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

namespace gguf::detail {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool parse_u64(std::string_view s, uint64_t& v) {
  s = trim(s);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

std::string human(uint64_t n) {
  char buf[48];
  if (n >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(n) / double(1ull << 30));
  else if (n >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / double(1ull << 20));
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

uint64_t page_size() {
  static const uint64_t p = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return p;
}

// "bytes A-B/T" (T may be "*"); "bytes */T" for 416.
struct content_range {
  bool ok = false;
  uint64_t first = 0, last = 0, total = UINT64_MAX;
};

content_range parse_content_range(std::string_view v) {
  content_range r;
  v = trim(v);
  if (!v.starts_with("bytes ")) return r;
  v.remove_prefix(6);
  auto slash = v.find('/');
  if (slash == std::string_view::npos) return r;
  auto span = v.substr(0, slash), total = v.substr(slash + 1);
  if (total != "*" && !parse_u64(total, r.total)) return r;
  if (span == "*") {
    r.ok = r.total != UINT64_MAX;
    r.first = 1;  // empty
    return r;
  }
  auto dash = span.find('-');
  if (dash == std::string_view::npos) return r;
  if (!parse_u64(span.substr(0, dash), r.first) || !parse_u64(span.substr(dash + 1), r.last)) return r;
  r.ok = r.first <= r.last && (r.total == UINT64_MAX || r.last < r.total);
  return r;
}

// The libcurl functions used here, resolved from the loaded library.
struct curl_api {
  CURLcode (*global_init)(long) = nullptr;
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
  std::string error;  ///< why it could not be loaded; empty when every function is there
};

template <class F>
bool resolve(void* lib, const char* name, F& fn, std::string& error) {
  void* p = dlsym(lib, name);
  if (!p) {
    if (error.empty()) error = std::string("libcurl has no ") + name;
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

const curl_api& curl() {
  static const curl_api api = [] {
    curl_api a;
    const char* env = std::getenv("GGUF_LIBCURL");
    const std::string name = env && *env ? env : "libcurl.so.4";
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      a.error = "cannot load libcurl (" + name + "), which reading over HTTP needs: " + (why ? why : "not found");
      return a;
    }
    bool ok = resolve(lib, "curl_global_init", a.global_init, a.error);
    ok = resolve(lib, "curl_easy_init", a.easy_init, a.error) && ok;
    ok = resolve(lib, "curl_easy_setopt", a.easy_setopt, a.error) && ok;
    ok = resolve(lib, "curl_easy_perform", a.easy_perform, a.error) && ok;
    ok = resolve(lib, "curl_easy_getinfo", a.easy_getinfo, a.error) && ok;
    ok = resolve(lib, "curl_easy_cleanup", a.easy_cleanup, a.error) && ok;
    ok = resolve(lib, "curl_easy_strerror", a.easy_strerror, a.error) && ok;
    ok = resolve(lib, "curl_slist_append", a.slist_append, a.error) && ok;
    ok = resolve(lib, "curl_slist_free_all", a.slist_free_all, a.error) && ok;
    if (!ok) {
      a.error = "cannot use " + name + ": " + a.error;
      return a;  // the library stays loaded: unloading a half-used one gains nothing
    }
    a.global_init(CURL_GLOBAL_DEFAULT);
    return a;
  }();
  return api;
}

// Reservations of the live remote files: start address -> (size, source).
std::mutex registry_mu;
std::map<const std::byte*, std::pair<uint64_t, http_source*>>& registry() {
  static std::map<const std::byte*, std::pair<uint64_t, http_source*>> r;
  return r;
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

// One request and its response.
struct http_source::exchange {
  uint64_t from = 0, to = 0;  // asked [from, to); the first request asks [0, first_request)
  bool first = false;
  bool revalidate = false;  // If-None-Match / If-Modified-Since of the cached metadata

  long status = 0;
  std::string content_range, etag, last_modified;
  uint64_t content_length = UINT64_MAX;
  long retry_after = -1;

  bool started = false;  // the first body byte arrived and the headers were checked
  uint64_t at = 0;       // file offset of the body's first byte
  uint64_t expect = 0;   // body bytes expected
  uint64_t got = 0;
  bool whole_body = false;  // a 200 to the first request: the body is the file
  std::vector<std::byte> whole;
  std::string error;  // why a callback stopped the transfer
  http_source* src = nullptr;
};

size_t http_source::on_header(char* data, size_t size, size_t n, void* user) {
  auto& x = *static_cast<exchange*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {  // a new response (after a redirect or a 1xx)
    x.status = 0;
    auto sp = line.find(' ');
    if (sp != std::string_view::npos && line.size() >= sp + 4) {
      auto code = line.substr(sp + 1, 3);
      std::from_chars(code.data(), code.data() + code.size(), x.status);
    }
    x.content_range.clear();
    x.etag.clear();
    x.last_modified.clear();
    x.content_length = UINT64_MAX;
    x.retry_after = -1;
    return size * n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  auto name = lower(trim(line.substr(0, colon)));
  auto value = trim(line.substr(colon + 1));
  uint64_t v = 0;
  if (name == "content-range") x.content_range = value;
  else if (name == "etag") x.etag = value;
  else if (name == "last-modified") x.last_modified = value;
  else if (name == "content-length" && parse_u64(value, v)) x.content_length = v;
  else if (name == "retry-after" && parse_u64(value, v)) x.retry_after = static_cast<long>(std::min<uint64_t>(v, 3600));
  return size * n;
}

size_t http_source::on_body(char* data, size_t size, size_t n, void* user) {
  auto& x = *static_cast<exchange*>(user);
  return x.src->body(x, data, size * n);
}

// Decides on the first body byte whether the response answers the request.
bool http_source::check_first_byte(exchange& x) {
  x.started = true;
  if (x.status == 200 && x.first) {
    // The server ignores Range: the body is the whole file. Accept a small one.
    if (x.content_length != UINT64_MAX && x.content_length > opt_.max_unranged) {
      x.error = "the server ignores Range requests (HTTP 200 with the whole " + human(x.content_length) +
                " body); refusing to download more than " + human(opt_.max_unranged);
      return false;
    }
    x.whole_body = true;
    return true;
  }
  if (x.status == 200) {
    x.error = "the server ignored the Range of a later request (HTTP 200 instead of 206)";
    return false;
  }
  if (x.status != 206) return false;  // an error page: reported from the status
  auto cr = parse_content_range(x.content_range);
  if (!cr.ok || cr.total == UINT64_MAX) {
    x.error = "HTTP 206 without a valid Content-Range (got '" + x.content_range.substr(0, 80) + "')";
    return false;
  }
  if (x.first) {
    if (auto r = reserve(cr.total); !r) {
      x.error = r.error().detail;
      return false;
    }
  } else if (cr.total != size_) {
    x.error = "the file size changed from " + std::to_string(size_) + " to " + std::to_string(cr.total) +
              " bytes between two requests";
    return false;
  }
  uint64_t want_last = std::min(x.to, size_) - 1;
  if (cr.first != x.from || cr.last != want_last) {
    x.error = "Content-Range 'bytes " + std::to_string(cr.first) + "-" + std::to_string(cr.last) +
              "' does not answer the request for bytes " + std::to_string(x.from) + "-" + std::to_string(want_last);
    return false;
  }
  x.at = cr.first;
  x.expect = cr.last - cr.first + 1;
  if (x.content_length != UINT64_MAX && x.content_length != x.expect) {
    x.error = "Content-Length " + std::to_string(x.content_length) + " does not match Content-Range (" +
              std::to_string(x.expect) + " bytes)";
    return false;
  }
  if (auto r = make_writable(x.at, x.at + x.expect); !r) {
    x.error = r.error().detail;
    return false;
  }
  return true;
}

size_t http_source::body(exchange& x, const char* data, size_t n) {
  if (!x.started && !check_first_byte(x)) return 0;  // stops the transfer
  if (x.whole_body) {
    if (x.whole.size() + n > opt_.max_unranged) {
      x.error = "the server ignores Range requests (HTTP 200 with the whole body) and the body exceeds " +
                human(opt_.max_unranged) + "; refusing to download more";
      return 0;
    }
    auto* p = reinterpret_cast<const std::byte*>(data);
    x.whole.insert(x.whole.end(), p, p + n);
    x.got += n;
    return n;
  }
  if (n > x.expect - x.got) {
    x.error = "the body is longer than the " + std::to_string(x.expect) + " bytes of its Content-Range";
    return 0;
  }
  std::memcpy(base_ + x.at + x.got, data, n);
  x.got += n;
  return n;
}

gguf::error http_source::fail(std::string what) const {
  return make_error(errc::io_error, no_offset, std::move(what));
}

result<void> http_source::reserve(uint64_t size) {
  if (base_) return fail("internal: reserved twice");
  size_ = size;
  if (size == 0) return {};
  if (size > (1ull << 46)) return fail("the server reports a file of " + human(size) + ", more than this reader addresses");
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return fail("cannot reserve " + human(size) + " of address space for the file");
  base_ = static_cast<std::byte*>(p);
  reserved_ = size;
  std::lock_guard lock(registry_mu);
  registry()[base_] = {size, this};
  return {};
}

result<void> http_source::make_writable(uint64_t from, uint64_t to) {
  if (from >= to) return {};
  uint64_t ps = page_size();
  uint64_t a = from / ps * ps, b = std::min<uint64_t>((to + ps - 1) / ps * ps, (reserved_ + ps - 1) / ps * ps);
  if (mprotect(base_ + a, b - a, PROT_READ | PROT_WRITE) != 0) {
    return fail("cannot commit " + human(b - a) + " of memory for fetched bytes");
  }
  return {};
}

void http_source::mark(uint64_t from, uint64_t to) {
  if (from >= to) return;
  auto it = have_.upper_bound(from);
  if (it != have_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= from) {
      from = prev->first;
      to = std::max(to, prev->second);
      it = have_.erase(prev);
    }
  }
  while (it != have_.end() && it->first <= to) {
    to = std::max(to, it->second);
    it = have_.erase(it);
  }
  have_.emplace(from, to);
}

bool http_source::resident_locked(uint64_t off, uint64_t n) const noexcept {
  if (n == 0) return off <= size_;
  if (off > size_ || n > size_ - off) return false;
  auto it = have_.upper_bound(off);
  if (it == have_.begin()) return false;
  --it;
  return it->first <= off && it->second >= off + n;
}

bool http_source::resident(uint64_t off, uint64_t n) const noexcept {
  std::lock_guard lock(mu_);
  return resident_locked(off, n);
}

uint64_t http_source::prefix() const noexcept {
  std::lock_guard lock(mu_);
  auto it = have_.find(0);
  return it == have_.end() ? 0 : it->second;
}

transfer_stats http_source::stats() const noexcept {
  std::lock_guard lock(mu_);
  return stats_;
}

byte_source* remote_source_of(const std::byte* p, size_t n) noexcept {
  std::lock_guard lock(registry_mu);
  auto& r = registry();
  auto it = r.upper_bound(p);
  if (it == r.begin()) return nullptr;
  --it;
  const uint64_t off = static_cast<uint64_t>(p - it->first);
  if (off > it->second.first || n > it->second.first - off) return nullptr;
  return it->second.second;
}

void http_source::unreserve() noexcept {
  if (!base_) return;
  {
    std::lock_guard lock(registry_mu);
    registry().erase(base_);
  }
  munmap(base_, reserved_);
  base_ = nullptr;
  reserved_ = size_ = 0;
}

http_source::~http_source() {
  if (curl_) curl().easy_cleanup(static_cast<CURL*>(curl_));
  if (header_list_) curl().slist_free_all(static_cast<curl_slist*>(header_list_));
  unreserve();
}

// One attempt of one request. On success the body is in place (or in x.whole).
result<void> http_source::attempt(exchange& x) {
  auto* c = static_cast<CURL*>(curl_);
  x.src = this;
  const std::string& url = x.first ? url_ : effective_;
  curl().easy_setopt(c, CURLOPT_URL, url.c_str());
  std::string range = std::to_string(x.from) + "-" + std::to_string(x.to - 1);
  curl().easy_setopt(c, CURLOPT_RANGE, range.c_str());
  curl_slist* list = static_cast<curl_slist*>(header_list_);
  curl_slist* extra = nullptr;
  if (x.revalidate) {
    // A copy of the list with the condition appended (the shared list stays clean).
    for (auto* h = list; h; h = h->next) extra = curl().slist_append(extra, h->data);
    std::string cond = !cached_etag_.empty() ? "If-None-Match: " + cached_etag_
                                             : "If-Modified-Since: " + cached_last_modified_;
    extra = curl().slist_append(extra, cond.c_str());
  }
  curl().easy_setopt(c, CURLOPT_HTTPHEADER, extra ? extra : list);
  curl().easy_setopt(c, CURLOPT_HEADERFUNCTION, &http_source::on_header);
  curl().easy_setopt(c, CURLOPT_HEADERDATA, &x);
  curl().easy_setopt(c, CURLOPT_WRITEFUNCTION, &http_source::on_body);
  curl().easy_setopt(c, CURLOPT_WRITEDATA, &x);
  char curl_error[CURL_ERROR_SIZE] = {};
  curl().easy_setopt(c, CURLOPT_ERRORBUFFER, curl_error);

  auto t0 = std::chrono::steady_clock::now();
  CURLcode rc = curl().easy_perform(c);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  if (extra) curl().slist_free_all(extra);
  const std::string curl_says = curl_error;
  curl().easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);  // the buffer ends with this call
  ++stats_.requests;
  stats_.bytes += x.got;
  if (x.first && rc == CURLE_OK) {
    char* eff = nullptr;
    if (curl().easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &eff) == CURLE_OK && eff) effective_ = eff;
  }
  if (opt_.log) {
    char line[160];
    std::snprintf(line, sizeof line, " bytes=%s -> %ld, %llu bytes, %lld ms", range.c_str(), x.status,
                  static_cast<unsigned long long>(x.got), static_cast<long long>(ms));
    opt_.log("GET " + shown_ + line);
  }

  if (!x.error.empty()) return fail(x.error);
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return fail(x.status == 0 && !x.started
                    ? "no response within " + std::to_string(opt_.timeout_seconds) + " s"
                    : "the transfer stalled (under 1 KiB/s for " + std::to_string(opt_.timeout_seconds) +
                          " s) after " + std::to_string(x.got) + " bytes");
  }
  if (rc == CURLE_PARTIAL_FILE) {
    return fail("short read: the connection closed " + std::to_string(x.got) + " bytes into a body of " +
                (x.content_length != UINT64_MAX ? std::to_string(x.content_length) : std::string("unknown length")) +
                " bytes (Content-Length)");
  }
  if (rc == CURLE_TOO_MANY_REDIRECTS) return fail("too many redirects");
  if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
    return fail(std::string("HTTP request failed: ") + (curl_says.empty() ? curl().easy_strerror(rc) : curl_says));
  }
  if (x.status == 304 && x.revalidate) return {};
  if (x.status == 416 && x.first) {
    auto cr = parse_content_range(x.content_range);
    if (cr.ok && cr.total == 0) return reserve(0);  // an empty file
  }
  if (x.status == 404 || x.status == 410) return fail("not found (HTTP " + std::to_string(x.status) + ")");
  if (x.status == 401 || x.status == 403) {
    return fail("access denied (HTTP " + std::to_string(x.status) +
                "): give a token with --hf-token, --header 'Authorization: Bearer …' or the HF_TOKEN variable");
  }
  if (x.status == 429) return fail("HTTP 429: too many requests");
  if (x.status >= 500) return fail("HTTP " + std::to_string(x.status) + ": server error");
  if (x.status != 200 && x.status != 206) return fail("HTTP " + std::to_string(x.status) + ": unexpected status");
  if (x.whole_body) return {};
  if (!x.started) {
    // An empty body: a 206 that promised bytes and sent none.
    if (x.status == 206 && !check_first_byte(x)) return fail(x.error.empty() ? "empty 206 response" : x.error);
  }
  if (x.got != x.expect) {
    return fail("short read: " + std::to_string(x.got) + " of the " + std::to_string(x.expect) + " bytes at byte " +
                std::to_string(x.at));
  }
  return {};
}

namespace {
bool retryable_status(long s) { return s == 429 || (s >= 500 && s <= 599); }
}  // namespace

// [from, to) into place, with retries; checks the validators against the first response.
result<void> http_source::get(uint64_t from, uint64_t to) {
  for (int tries = 0;; ++tries) {
    exchange x;
    x.from = from;
    x.to = to;
    auto r = attempt(x);
    bool again = false;
    if (!r) {
      const auto& d = r.error().detail;
      again = d.starts_with("HTTP request failed") || d.starts_with("short read: the connection closed") ||
              (d.starts_with("HTTP ") && retryable_status(x.status));
    }
    if (!r && again && tries < opt_.retries) {
      long wait_ms = 250L << std::min(tries, 6);
      if (x.retry_after >= 0) wait_ms = std::min<long>(x.retry_after * 1000L, opt_.timeout_seconds * 1000L);
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      continue;
    }
    if (!r) {
      if (again && tries) return fail(r.error().detail + " (after " + std::to_string(tries + 1) + " attempts)");
      return r;
    }
    if ((!etag_.empty() || !x.etag.empty()) && x.etag != etag_) {
      return fail("the file changed on the server between two requests (ETag " + etag_ + ", then " + x.etag + ")");
    }
    if ((!last_modified_.empty() || !x.last_modified.empty()) && x.last_modified != last_modified_) {
      return fail("the file changed on the server between two requests (Last-Modified " + last_modified_ +
                  ", then " + x.last_modified + ")");
    }
    mark(x.at, x.at + x.got);
    return {};
  }
}

result<void> http_source::first_request() {
  for (int tries = 0;; ++tries) {
    exchange x;
    x.first = true;
    x.from = 0;
    x.to = std::max<uint64_t>(opt_.first_request, 1);
    x.revalidate = !cached_.empty();
    auto r = attempt(x);
    if (!r) {
      unreserve();  // a failed attempt may have reserved
      const auto& d = r.error().detail;
      bool again = d.starts_with("HTTP request failed") || d.starts_with("short read: the connection closed") ||
                   (d.starts_with("HTTP ") && retryable_status(x.status));
      if (again && tries < opt_.retries) {
        long wait_ms = 250L << std::min(tries, 6);
        if (x.retry_after >= 0) wait_ms = std::min<long>(x.retry_after * 1000L, opt_.timeout_seconds * 1000L);
        std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
        continue;
      }
      if (again && tries) return fail(d + " (after " + std::to_string(tries + 1) + " attempts)");
      return r;
    }
    if (x.status == 304) {  // the cached metadata is current
      etag_ = cached_etag_;
      last_modified_ = cached_last_modified_;
      if (auto rr = reserve(cached_size_); !rr) return rr;
      if (auto rr = make_writable(0, cached_.size()); !rr) return rr;
      std::memcpy(base_, cached_.data(), cached_.size());
      mark(0, cached_.size());
      from_cache_ = true;
    } else if (x.whole_body) {
      etag_ = x.etag;
      last_modified_ = x.last_modified;
      if (auto rr = reserve(x.whole.size()); !rr) return rr;
      if (auto rr = make_writable(0, x.whole.size()); !rr) return rr;
      if (!x.whole.empty()) std::memcpy(base_, x.whole.data(), x.whole.size());
      mark(0, x.whole.size());
    } else {
      etag_ = x.etag;
      last_modified_ = x.last_modified;
      mark(x.at, x.at + x.got);
    }
    cached_.clear();
    cached_.shrink_to_fit();
    return {};
  }
}

result<std::unique_ptr<http_source>> http_source::open(const std::string& url, const remote_options& opt) {
  std::unique_ptr<http_source> s(new http_source());
  s->opt_ = opt;
  s->url_ = url;
  s->effective_ = url;
  s->shown_ = url.substr(0, url.find('?'));
  if (url.find_first_of("\r\n") != std::string::npos) return s->fail("a URL cannot contain a line break");
  if (!curl().error.empty()) return s->fail(curl().error);
  CURL* c = curl().easy_init();
  if (!c) return s->fail("cannot start libcurl");
  s->curl_ = c;
  curl_slist* list = nullptr;
  for (const auto& h : request_headers(url, opt.headers, opt.hf_token)) list = curl().slist_append(list, h.c_str());
  s->header_list_ = list;
  curl().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl().easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl().easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl().easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl().easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(c, CURLOPT_CONNECTTIMEOUT, std::max(1L, opt.timeout_seconds));
  curl().easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl().easy_setopt(c, CURLOPT_LOW_SPEED_TIME, std::max(1L, opt.timeout_seconds));
  curl().easy_setopt(c, CURLOPT_USERAGENT, "gguf/0.1 (libcurl)");
  curl().easy_setopt(c, CURLOPT_ACCEPT_ENCODING, nullptr);  // byte ranges of the file itself
  if (!opt.cache_dir.empty()) s->load_cache();
  if (auto r = s->first_request(); !r) return r.error();
  return s;
}

result<void> http_source::grow_prefix(uint64_t end, uint64_t hint) {
  std::lock_guard lock(mu_);
  end = std::min(end, size_);
  auto it = have_.find(0);
  uint64_t have = it == have_.end() ? 0 : it->second;
  if (end <= have) return {};
  if (end > opt_.max_metadata) {
    return fail("the metadata needs more than " + human(opt_.max_metadata) + " (the remote metadata limit)");
  }
  // The missing bytes, what the reader expects after them (+1/8 and 64 KiB of slack for
  // a short estimate), at least a quarter of what is there (geometric growth when
  // estimates fall short: a few requests even for a hostile file), within the file and
  // the metadata limit.
  uint64_t want = end + hint + hint / 8 + (64u << 10);
  want = std::max(want, have + std::max<uint64_t>(have / 4, 64u << 10));
  // Past half the file, the rest of it: a file that is mostly metadata (a vocabulary)
  // costs one request more than its bytes are worth when the estimate falls short.
  if (want > size_ / 2) want = size_;
  want = std::min({want, size_, std::max(end, opt_.max_metadata)});
  return get(have, want);
}

result<void> http_source::fetch(std::span<const byte_range> ranges) {
  std::lock_guard lock(mu_);
  // Missing pieces, sorted; pieces closer than 64 KiB are fetched as one.
  std::vector<byte_range> missing;
  for (auto [a, b] : ranges) {
    b = std::min(b, size_);
    if (a >= b) continue;
    uint64_t pos = a;
    auto it = have_.upper_bound(a);
    if (it != have_.begin()) --it;
    for (; pos < b; ) {
      while (it != have_.end() && it->second <= pos) ++it;
      if (it == have_.end() || it->first >= b) {
        missing.emplace_back(pos, b);
        break;
      }
      if (it->first > pos) missing.emplace_back(pos, it->first);
      pos = it->second;
    }
  }
  std::sort(missing.begin(), missing.end());
  std::vector<byte_range> merged;
  for (auto r : missing) {
    if (!merged.empty() && r.first <= merged.back().second + (64u << 10)) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  }
  for (auto [a, b] : merged)
    if (auto r = get(a, b); !r) return r;
  return {};
}

void http_source::release(uint64_t off, uint64_t n) noexcept {
  std::lock_guard lock(mu_);
  auto it0 = have_.find(0);
  uint64_t keep = it0 == have_.end() ? 0 : it0->second;
  uint64_t ps = page_size();
  uint64_t a = std::max(off, keep), b = std::min(off + n, size_);
  a = (a + ps - 1) / ps * ps;
  b = b / ps * ps;
  if (a >= b) return;
  madvise(base_ + a, b - a, MADV_DONTNEED);
  mprotect(base_ + a, b - a, PROT_NONE);
  std::map<uint64_t, uint64_t> kept;
  for (auto [s, e] : have_) {
    if (e <= a || s >= b) kept.emplace(s, e);
    else {
      if (s < a) kept.emplace(s, a);
      if (e > b) kept.emplace(b, e);
    }
  }
  have_ = std::move(kept);
}

// ---- the metadata cache: one file per URL, valid while the server's ETag (or
// Last-Modified) is unchanged ----

std::string http_source::cache_path() const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.gguf-meta", static_cast<unsigned long long>(fnv1a(url_)));
  return (std::filesystem::path(opt_.cache_dir) / name).string();
}

bool http_source::load_cache() {
  std::ifstream in(cache_path(), std::ios::binary);
  if (!in) return false;
  std::string magic, url, etag, lm, size_s, n_s;
  if (!std::getline(in, magic) || magic != "gguf-remote-cache 1") return false;
  if (!std::getline(in, url) || url != url_) return false;
  if (!std::getline(in, etag) || !std::getline(in, lm) || !std::getline(in, size_s) || !std::getline(in, n_s)) return false;
  uint64_t size = 0, n = 0;
  if (!parse_u64(size_s, size) || !parse_u64(n_s, n) || n > size || n > opt_.max_metadata) return false;
  if (etag.empty() && lm.empty()) return false;
  std::vector<std::byte> bytes(n);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(n))) return false;
  cached_ = std::move(bytes);
  cached_etag_ = etag;
  cached_last_modified_ = lm;
  cached_size_ = size;
  return true;
}

void http_source::parsed(uint64_t end) noexcept {
  std::lock_guard lock(mu_);
  if (opt_.cache_dir.empty() || from_cache_ || (etag_.empty() && last_modified_.empty())) return;
  if (!resident_locked(0, end)) return;
  std::error_code ec;
  std::filesystem::create_directories(opt_.cache_dir, ec);
  std::string path = cache_path(), tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << "gguf-remote-cache 1\n" << url_ << "\n" << etag_ << "\n" << last_modified_ << "\n" << size_ << "\n" << end << "\n";
    out.write(reinterpret_cast<const char*>(base_), static_cast<std::streamsize>(end));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

namespace {
struct small_exchange {
  small_reply reply;
  uint64_t max_body = 0;
  bool too_big = false;
};
size_t small_header(char* data, size_t size, size_t n, void* user) {
  auto& x = *static_cast<small_exchange*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {  // a new response (after a redirect)
    x.reply.etag.clear();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos && lower(trim(line.substr(0, colon))) == "etag")
    x.reply.etag = trim(line.substr(colon + 1));
  return size * n;
}
size_t small_body(char* data, size_t size, size_t n, void* user) {
  auto& x = *static_cast<small_exchange*>(user);
  if (x.reply.body.size() + size * n > x.max_body) {
    x.too_big = true;
    return 0;
  }
  x.reply.body.append(data, size * n);
  return size * n;
}
}  // namespace

result<small_reply> http_get_small(const std::string& url, const remote_options& opt,
                                   const std::vector<std::string>& extra_headers, uint64_t max_body) {
  const std::string shown = url.substr(0, url.find('?'));
  auto fail = [&](const std::string& what) { return make_error(errc::io_error, no_offset, shown + ": " + what); };
  if (url.find_first_of("\r\n") != std::string::npos) return fail("a URL cannot contain a line break");
  if (!curl().error.empty()) return fail(curl().error);
  std::unique_ptr<CURL, void (*)(CURL*)> c(curl().easy_init(), curl().easy_cleanup);
  if (!c) return fail("cannot start libcurl");
  curl_slist* list = nullptr;
  for (const auto& h : request_headers(url, opt.headers, opt.hf_token)) list = curl().slist_append(list, h.c_str());
  for (const auto& h : extra_headers) list = curl().slist_append(list, h.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(list, curl().slist_free_all);
  CURL* h = c.get();
  curl().easy_setopt(h, CURLOPT_URL, url.c_str());
  curl().easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl().easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl().easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
  curl().easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl().easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl().easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(h, CURLOPT_CONNECTTIMEOUT, std::max(1L, opt.timeout_seconds));
  curl().easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl().easy_setopt(h, CURLOPT_LOW_SPEED_TIME, std::max(1L, opt.timeout_seconds));
  curl().easy_setopt(h, CURLOPT_USERAGENT, "gguf/0.1 (libcurl)");
  curl().easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // JSON: any encoding libcurl decodes
  curl().easy_setopt(h, CURLOPT_HEADERFUNCTION, &small_header);
  curl().easy_setopt(h, CURLOPT_WRITEFUNCTION, &small_body);
  for (int tries = 0;; ++tries) {
    small_exchange x;
    x.max_body = max_body;
    curl().easy_setopt(h, CURLOPT_HEADERDATA, &x);
    curl().easy_setopt(h, CURLOPT_WRITEDATA, &x);
    char curl_error[CURL_ERROR_SIZE] = {};
    curl().easy_setopt(h, CURLOPT_ERRORBUFFER, curl_error);
    const auto t0 = std::chrono::steady_clock::now();
    const CURLcode rc = curl().easy_perform(h);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    curl().easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl().easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x.reply.status);
    if (opt.log) {
      opt.log("GET " + shown + " -> " + std::to_string(x.reply.status) + ", " + std::to_string(x.reply.body.size()) +
              " bytes, " + std::to_string(ms) + " ms");
    }
    if (x.too_big) return fail("the response is larger than " + human(max_body));
    const bool again = rc != CURLE_OK || x.reply.status == 429 || (x.reply.status >= 500 && x.reply.status <= 599);
    if (again && tries < opt.retries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250L << std::min(tries, 6)));
      continue;
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) return fail("no response within " + std::to_string(opt.timeout_seconds) + " s");
    if (rc != CURLE_OK)
      return fail(std::string("HTTP request failed: ") + (curl_error[0] ? curl_error : curl().easy_strerror(rc)));
    return std::move(x.reply);
  }
}

}  // namespace gguf::detail

// ---- public helpers (gguf/remote.h) ----

namespace gguf {

bool is_url(std::string_view path) noexcept {
  auto starts = [&](std::string_view p) {
    if (path.size() < p.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[i])) != p[i]) return false;
    return true;
  };
  return starts("http://") || starts("https://");
}

namespace {
// Host of a URL, lower case, without port or credentials.
std::string url_host(std::string_view url) {
  auto p = url.find("://");
  if (p == std::string_view::npos) return {};
  url.remove_prefix(p + 3);
  url = url.substr(0, url.find_first_of("/?#"));
  if (auto at = url.rfind('@'); at != std::string_view::npos) url.remove_prefix(at + 1);
  if (!url.empty() && url.front() == '[') url = url.substr(0, url.find(']') + 1);
  else url = url.substr(0, url.find(':'));
  return detail::lower(url);
}
bool host_in(const std::string& host, std::string_view domain) {
  return host == domain || (host.size() > domain.size() && host.ends_with(domain) &&
                            host[host.size() - domain.size() - 1] == '.');
}
}  // namespace

std::vector<std::string> request_headers(std::string_view url, std::vector<std::string> headers,
                                         std::string_view hf_token) {
  bool has_auth = std::any_of(headers.begin(), headers.end(),
                              [](const std::string& h) { return detail::lower(h).starts_with("authorization:"); });
  const char* env_token = std::getenv("HF_TOKEN");
  const std::string_view token = !hf_token.empty() ? hf_token : env_token ? std::string_view(env_token) : "";
  if (has_auth || token.empty()) return headers;
  std::string host = url_host(url);
  bool hf = host_in(host, "huggingface.co") || host_in(host, "hf.co");
  for (const char* var : {"GGUF_HF_ENDPOINT", "HF_ENDPOINT"}) {
    const char* endpoint = std::getenv(var);
    if (endpoint && *endpoint && host == url_host(endpoint)) hf = true;
  }
  if (hf) headers.push_back("Authorization: Bearer " + std::string(token));
  return headers;
}

}  // namespace gguf
