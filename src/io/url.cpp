// Text helpers of the HTTP client (url.h) and the public URL helpers of gguf/remote.h.
#include "io/url.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gguf/remote.h"

namespace gguf::io {

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

std::string human_size(uint64_t n) {
  char buf[48];
  if (n >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(n) / double(1ull << 30));
  else if (n >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / double(1ull << 20));
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

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

std::string url_host(std::string_view url) {
  auto p = url.find("://");
  if (p == std::string_view::npos) return {};
  url.remove_prefix(p + 3);
  url = url.substr(0, url.find_first_of("/?#"));
  if (auto at = url.rfind('@'); at != std::string_view::npos) url.remove_prefix(at + 1);
  if (!url.empty() && url.front() == '[') url = url.substr(0, url.find(']') + 1);
  else url = url.substr(0, url.find(':'));
  return lower(url);
}

}  // namespace gguf::io

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
bool host_in(const std::string& host, std::string_view domain) {
  return host == domain || (host.size() > domain.size() && host.ends_with(domain) &&
                            host[host.size() - domain.size() - 1] == '.');
}
}  // namespace

std::vector<std::string> request_headers(std::string_view url, std::vector<std::string> headers,
                                         std::string_view hf_token) {
  bool has_auth = std::any_of(headers.begin(), headers.end(),
                              [](const std::string& h) { return io::lower(h).starts_with("authorization:"); });
  const char* env_token = std::getenv("HF_TOKEN");
  const std::string_view token = !hf_token.empty() ? hf_token : env_token ? std::string_view(env_token) : "";
  if (has_auth || token.empty()) return headers;
  std::string host = io::url_host(url);
  bool hf = host_in(host, "huggingface.co") || host_in(host, "hf.co");
  for (const char* var : {"GGUF_HF_ENDPOINT", "HF_ENDPOINT"}) {
    const char* endpoint = std::getenv(var);
    if (endpoint && *endpoint && host == io::url_host(endpoint)) hf = true;
  }
  if (hf) headers.push_back("Authorization: Bearer " + std::string(token));
  return headers;
}

}  // namespace gguf
