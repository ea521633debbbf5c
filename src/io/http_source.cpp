// A remote file as a byte source (http_source.h): the metadata prefix grown as the
// reader walks it, tensor ranges fetched on request, and the metadata cache.
#include "io/http_source.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "io/disk_cache.h"
#include "io/url.h"

namespace gguf::io {

result<std::unique_ptr<http_source>> http_source::open(const std::string& url, const remote_options& opt) {
  std::unique_ptr<http_source> s(new http_source());
  s->opt_ = opt;
  s->url_ = url;
  auto c = range_client::open(url, opt, s->buf_);
  if (!c) return c.error();
  s->client_ = std::move(*c);
  if (!opt.cache_dir.empty()) s->load_cache();
  auto not_modified = s->client_->first_request(s->cached_.empty() ? nullptr : &s->cached_validators_);
  if (!not_modified) return not_modified.error();
  if (*not_modified) {  // the cached metadata is current
    if (auto r = s->buf_.reserve(s->cached_size_); !r) return r.error();
    if (auto r = s->buf_.make_writable(0, s->cached_.size()); !r) return r.error();
    std::memcpy(s->buf_.data(), s->cached_.data(), s->cached_.size());
    s->buf_.mark(0, s->cached_.size());
    s->from_cache_ = true;
  }
  s->buf_.keep(s->buf_.prefix());  // the first request's bytes (or the cached metadata)
  s->cached_.clear();
  s->cached_.shrink_to_fit();
  return s;
}

uint64_t http_source::prefix() const noexcept {
  std::lock_guard lock(mu_);
  return buf_.kept();
}

bool http_source::resident(uint64_t off, uint64_t n) const noexcept {
  std::lock_guard lock(mu_);
  return buf_.resident(off, n);
}

transfer_stats http_source::stats() const noexcept {
  std::lock_guard lock(mu_);
  return client_->stats();
}

result<void> http_source::grow_prefix(uint64_t end, uint64_t hint) {
  std::lock_guard lock(mu_);
  end = std::min(end, buf_.size());
  // The kept prefix, not every present byte from 0: tensor windows fetched next to it
  // (the data section follows the metadata) stay releasable.
  const uint64_t have = buf_.kept();
  if (end <= have) return {};
  if (end > opt_.max_metadata) {
    return client_->fail("the metadata needs more than " + human_size(opt_.max_metadata) +
                         " (the remote metadata limit)");
  }
  // The missing bytes, what the reader expects after them (+1/8 and 64 KiB of slack for
  // a short estimate), at least a quarter of what is there (geometric growth when
  // estimates fall short: a few requests even for a hostile file), within the file and
  // the metadata limit.
  uint64_t want = end + hint + hint / 8 + (64u << 10);
  want = std::max(want, have + std::max<uint64_t>(have / 4, 64u << 10));
  // Past half the file, the rest of it: a file that is mostly metadata (a vocabulary)
  // costs one request more than its bytes are worth when the estimate falls short.
  if (want > buf_.size() / 2) want = buf_.size();
  want = std::min({want, buf_.size(), std::max(end, opt_.max_metadata)});
  const byte_range grow{have, want};
  for (auto [a, b] : buf_.missing(std::span(&grow, 1), 0))
    if (auto r = client_->get(a, b); !r) return r;
  buf_.keep(std::min(want, buf_.prefix()));
  return {};
}

result<void> http_source::fetch(std::span<const byte_range> ranges) {
  std::lock_guard lock(mu_);
  // Missing pieces, sorted; pieces closer than 64 KiB are fetched as one.
  for (auto [a, b] : buf_.missing(ranges, 64u << 10))
    if (auto r = client_->get(a, b); !r) return r;
  return {};
}

void http_source::release(uint64_t off, uint64_t n) noexcept {
  std::lock_guard lock(mu_);
  buf_.release(off, n);
}

// ---- the metadata cache: one entry per URL (io/disk_cache.h), valid while the server's
// ETag (or Last-Modified) is unchanged ----

std::string http_source::cache_path() const {
  const disk_cache cache(opt_.cache_dir);
  return cache.path("meta", disk_cache::key({std::as_bytes(std::span(url_.data(), url_.size()))}), ".gguf-meta");
}

bool http_source::load_cache() {
  const std::string path = cache_path();
  std::ifstream in(path, std::ios::binary);
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
  cached_validators_ = {etag, lm};
  cached_size_ = size;
  disk_cache::touch(path);  // recently used: pruned last
  return true;
}

void http_source::metadata_parsed(uint64_t end) noexcept {
  std::lock_guard lock(mu_);
  const validators& v = client_->current();
  if (opt_.cache_dir.empty() || from_cache_ || v.empty()) return;
  if (!buf_.resident(0, end)) return;
  const std::string head = "gguf-remote-cache 1\n" + url_ + "\n" + v.etag + "\n" + v.last_modified + "\n" +
                           std::to_string(buf_.size()) + "\n" + std::to_string(end) + "\n";
  const disk_cache cache(opt_.cache_dir);
  const std::string path = cache_path();
  if (cache.write(path, {std::as_bytes(std::span(head.data(), head.size())), {buf_.data(), static_cast<size_t>(end)}}))
    cache.prune(path);
}

}  // namespace gguf::io
