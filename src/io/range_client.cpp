// HTTP range requests (range_client.h): the exchange of one request and its response,
// the checks of every response, retries.
#include "io/range_client.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "io/curl_api.h"
#include "io/url.h"

namespace gguf::io {

// One request and its response.
struct range_client::exchange {
  uint64_t from = 0, to = 0;  // asked [from, to); the first request asks [0, first_request)
  bool first = false;

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
  range_client* client = nullptr;
};

gguf::error range_client::fail(std::string what) const { return make_error(errc::io_error, no_offset, std::move(what)); }

size_t range_client::on_header(char* data, size_t size, size_t n, void* user) {
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

size_t range_client::on_body(char* data, size_t size, size_t n, void* user) {
  auto& x = *static_cast<exchange*>(user);
  return x.client->body(x, data, size * n);
}

// Decides on the first body byte whether the response answers the request.
bool range_client::check_first_byte(exchange& x) {
  x.started = true;
  if (x.status == 200 && x.first) {
    // The server ignores Range: the body is the whole file. Accept a small one.
    if (x.content_length != UINT64_MAX && x.content_length > opt_.max_unranged) {
      x.error = "the server ignores Range requests (HTTP 200 with the whole " + human_size(x.content_length) +
                " body); refusing to download more than " + human_size(opt_.max_unranged);
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
    if (auto r = buf_.reserve(cr.total); !r) {
      x.error = r.error().detail;
      return false;
    }
  } else if (cr.total != buf_.size()) {
    x.error = "the file size changed from " + std::to_string(buf_.size()) + " to " + std::to_string(cr.total) +
              " bytes between two requests";
    return false;
  }
  uint64_t want_last = std::min(x.to, buf_.size()) - 1;
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
  if (auto r = buf_.make_writable(x.at, x.at + x.expect); !r) {
    x.error = r.error().detail;
    return false;
  }
  return true;
}

size_t range_client::body(exchange& x, const char* data, size_t n) {
  if (!x.started && !check_first_byte(x)) return 0;  // stops the transfer
  if (x.whole_body) {
    if (x.whole.size() + n > opt_.max_unranged) {
      x.error = "the server ignores Range requests (HTTP 200 with the whole body) and the body exceeds " +
                human_size(opt_.max_unranged) + "; refusing to download more";
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
  std::memcpy(buf_.data() + x.at + x.got, data, n);
  x.got += n;
  return n;
}

range_client::~range_client() {
  if (curl_) curl().easy_cleanup(static_cast<CURL*>(curl_));
  if (header_list_) curl().slist_free_all(static_cast<curl_slist*>(header_list_));
}

// One attempt of one request. On success the body is in place (or in x.whole).
result<void> range_client::attempt(exchange& x, const validators* cached) {
  auto* c = static_cast<CURL*>(curl_);
  x.client = this;
  const std::string& url = x.first ? url_ : effective_;
  curl().easy_setopt(c, CURLOPT_URL, url.c_str());
  std::string range = std::to_string(x.from) + "-" + std::to_string(x.to - 1);
  curl().easy_setopt(c, CURLOPT_RANGE, range.c_str());
  curl_slist* list = static_cast<curl_slist*>(header_list_);
  curl_slist* extra = nullptr;
  if (cached) {
    // A copy of the list with the condition appended (the shared list stays clean).
    for (auto* h = list; h; h = h->next) extra = curl().slist_append(extra, h->data);
    std::string cond = !cached->etag.empty() ? "If-None-Match: " + cached->etag
                                             : "If-Modified-Since: " + cached->last_modified;
    extra = curl().slist_append(extra, cond.c_str());
  }
  curl().easy_setopt(c, CURLOPT_HTTPHEADER, extra ? extra : list);
  curl().easy_setopt(c, CURLOPT_HEADERFUNCTION, &range_client::on_header);
  curl().easy_setopt(c, CURLOPT_HEADERDATA, &x);
  curl().easy_setopt(c, CURLOPT_WRITEFUNCTION, &range_client::on_body);
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
  if (x.status == 304 && cached) return {};
  if (x.status == 416 && x.first) {
    auto cr = parse_content_range(x.content_range);
    if (cr.ok && cr.total == 0) return buf_.reserve(0);  // an empty file
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

// x's request, attempted until it succeeds, fails for good, or the retries are spent
// (backoff 0.25 s doubling, or the server's Retry-After up to the timeout).
result<void> range_client::send(exchange& x, const validators* cached) {
  const exchange request = x;
  for (int tries = 0;; ++tries) {
    x = request;
    auto r = attempt(x, cached);
    if (r) return r;
    if (x.first) buf_.unreserve();  // a failed first attempt may have reserved
    const auto& d = r.error().detail;
    const bool again = d.starts_with("HTTP request failed") || d.starts_with("short read: the connection closed") ||
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
}

result<void> range_client::get(uint64_t from, uint64_t to) {
  exchange x;
  x.from = from;
  x.to = to;
  if (auto r = send(x, nullptr); !r) return r;
  const auto& v = validators_;
  if ((!v.etag.empty() || !x.etag.empty()) && x.etag != v.etag) {
    return fail("the file changed on the server between two requests (ETag " + v.etag + ", then " + x.etag + ")");
  }
  if ((!v.last_modified.empty() || !x.last_modified.empty()) && x.last_modified != v.last_modified) {
    return fail("the file changed on the server between two requests (Last-Modified " + v.last_modified +
                ", then " + x.last_modified + ")");
  }
  buf_.mark(x.at, x.at + x.got);
  return {};
}

result<bool> range_client::first_request(const validators* cached) {
  exchange x;
  x.first = true;
  x.from = 0;
  x.to = std::max<uint64_t>(opt_.first_request, 1);
  if (auto r = send(x, cached); !r) return r.error();
  if (x.status == 304) {  // the cached metadata is current
    validators_ = *cached;
    return true;
  }
  validators_ = {x.etag, x.last_modified};
  if (x.whole_body) {
    if (auto r = buf_.reserve(x.whole.size()); !r) return r.error();
    if (auto r = buf_.make_writable(0, x.whole.size()); !r) return r.error();
    if (!x.whole.empty()) std::memcpy(buf_.data(), x.whole.data(), x.whole.size());
    buf_.mark(0, x.whole.size());
  } else {
    buf_.mark(x.at, x.at + x.got);
  }
  return false;
}

result<std::unique_ptr<range_client>> range_client::open(const std::string& url, const remote_options& opt,
                                                         sparse_buffer& buf) {
  std::unique_ptr<range_client> s(new range_client(buf));
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
  set_common_options(c, opt.timeout_seconds);
  curl().easy_setopt(c, CURLOPT_ACCEPT_ENCODING, nullptr);  // byte ranges of the file itself
  return s;
}

}  // namespace gguf::io
