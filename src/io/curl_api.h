// libcurl, loaded with dlopen on the first remote open instead of linked: a process that
// never reads a URL does not map libcurl and its ~28 dependencies (gnutls, krb5, ldap,
// ssh ...), which cost about 3 ms at every start of the command-line tool. GGUF_LIBCURL
// names another library to load (e.g. libcurl-gnutls.so.4); the API used is libcurl's
// stable ABI 4. Not installed.
#pragma once

#include <curl/curl.h>

#include <string>

namespace gguf::io {

/// The libcurl functions used, resolved from the loaded library.
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

/// The library, loaded (and curl_global_init run) on the first call; check `error`.
const curl_api& curl();

/// The options every request of ours sets on a handle: redirects (10 at most, http(s)
/// only), no signals, the connect and low-speed timeouts of `timeout_seconds` (at least 1),
/// and our user agent. Requires curl() loaded.
void set_common_options(CURL* h, long timeout_seconds);

}  // namespace gguf::io
