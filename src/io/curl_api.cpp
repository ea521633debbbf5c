// Loading libcurl on first use (curl_api.h).
#include "io/curl_api.h"

#include "gguf/shared_library.h"

#include <algorithm>
#include <cstdlib>

namespace gguf::io {

const curl_api& curl() {
  static const curl_api api = [] {
    curl_api a;
    shared_library lib("GGUF_LIBCURL", "libcurl.so.4");
    if (!lib.loaded()) {
      a.error = "cannot load libcurl (" + lib.name() + "), which reading over HTTP needs: " + lib.load_error();
      return a;
    }
    lib.resolve("curl_global_init", a.global_init);
    lib.resolve("curl_easy_init", a.easy_init);
    lib.resolve("curl_easy_setopt", a.easy_setopt);
    lib.resolve("curl_easy_perform", a.easy_perform);
    lib.resolve("curl_easy_getinfo", a.easy_getinfo);
    lib.resolve("curl_easy_cleanup", a.easy_cleanup);
    lib.resolve("curl_easy_strerror", a.easy_strerror);
    lib.resolve("curl_slist_append", a.slist_append);
    lib.resolve("curl_slist_free_all", a.slist_free_all);
    if (!lib.missing().empty()) {
      a.error = "cannot use " + lib.name() + ": libcurl has no " + lib.missing();
      return a;  // the library stays loaded: unloading a half-used one gains nothing
    }
    a.global_init(CURL_GLOBAL_DEFAULT);
    return a;
  }();
  return api;
}

void set_common_options(CURL* h, long timeout_seconds) {
  const curl_api& c = curl();
  c.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  c.easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
  c.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  c.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  c.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(h, CURLOPT_CONNECTTIMEOUT, std::max(1L, timeout_seconds));
  c.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  c.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, std::max(1L, timeout_seconds));
  c.easy_setopt(h, CURLOPT_USERAGENT, "gguf/0.1 (libcurl)");
}

}  // namespace gguf::io
