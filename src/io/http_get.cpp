// A plain GET of a small document (http_get.h).
#include "io/http_get.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "io/curl_api.h"
#include "io/url.h"

namespace gguf::io {

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
  set_common_options(h, opt.timeout_seconds);
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
    if (x.too_big) return fail("the response is larger than " + human_size(max_body));
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

}  // namespace gguf::io
