// Loading libcurl on first use (curl_api.h).
#include "io/curl_api.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

namespace gguf::io {

namespace {
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
}  // namespace

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
