// Tensor hashing for `gguf hash` (see tensor_hash.h): xxHash (libxxhash) and SHA-1 /
// SHA-256 (OpenSSL EVP, libcrypto loaded when first needed: crypto_api.h), jobs handed
// out to worker threads by one atomic counter.
#include "tensor_hash.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>

#include "crypto_api.h"

namespace gguf::cli {
namespace {

// llama.cpp's UUID namespace: uuid5(NAMESPACE_URL, 'en.wikipedia.org/wiki/Llama.cpp').
constexpr unsigned char uuid_namespace[16] = {0xef, 0x00, 0x12, 0x06, 0xda, 0xdc, 0x5f, 0x6d,
                                              0xa1, 0x5f, 0x33, 0x59, 0xe5, 0x77, 0xd4, 0xe5};

// Bytes fed to a hash per call: bounded so that a huge tensor streams through the cache.
constexpr size_t feed_bytes = size_t{1} << 22;

std::string hex(const unsigned char* p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = digits[p[i] >> 4];
    s[2 * i + 1] = digits[p[i] & 15];
  }
  return s;
}

std::string hex64(uint64_t h) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(h >> (8 * (7 - i)));  // big-endian, as printed
  return hex(b, 8);
}

// One streaming hash of any algorithm.
class stream_hash {
 public:
  explicit stream_hash(hash_algo a) : algo_(a) {
    switch (a) {
      case hash_algo::xxh64:
        xxh64_ = XXH64_createState();
        XXH64_reset(xxh64_, 0);
        break;
      case hash_algo::xxh3:
        xxh3_ = XXH3_createState();
        XXH3_64bits_reset(xxh3_);
        break;
      case hash_algo::sha1:
      case hash_algo::sha256:
        md_ = crypto().md_ctx_new();  // loaded: hash_tensors checks crypto() first
        crypto().digest_init_ex(md_, a == hash_algo::sha1 ? crypto().sha1() : crypto().sha256(), nullptr);
        break;
    }
  }
  stream_hash(const stream_hash&) = delete;
  stream_hash& operator=(const stream_hash&) = delete;
  ~stream_hash() {
    if (xxh64_) XXH64_freeState(xxh64_);
    if (xxh3_) XXH3_freeState(xxh3_);
    if (md_) crypto().md_ctx_free(md_);
  }
  void update(std::span<const std::byte> data) {
    for (size_t done = 0; done < data.size();) {
      const size_t n = std::min(feed_bytes, data.size() - done);
      const void* p = data.data() + done;
      switch (algo_) {
        case hash_algo::xxh64: XXH64_update(xxh64_, p, n); break;
        case hash_algo::xxh3: XXH3_64bits_update(xxh3_, p, n); break;
        default: crypto().digest_update(md_, p, n); break;
      }
      done += n;
    }
  }
  /// The raw digest (20 or 32 bytes for SHA; 8 bytes big-endian for xxHash).
  std::vector<unsigned char> digest() {
    if (algo_ == hash_algo::xxh64 || algo_ == hash_algo::xxh3) {
      const uint64_t h = algo_ == hash_algo::xxh64 ? XXH64_digest(xxh64_) : XXH3_64bits_digest(xxh3_);
      std::vector<unsigned char> b(8);
      for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(h >> (8 * (7 - i)));
      return b;
    }
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    crypto().digest_final_ex(md_, out, &n);
    return {out, out + n};
  }
  std::string hex_digest() {
    auto d = digest();
    return hex(d.data(), d.size());
  }

 private:
  hash_algo algo_;
  XXH64_state_t* xxh64_ = nullptr;
  XXH3_state_t* xxh3_ = nullptr;
  EVP_MD_CTX* md_ = nullptr;
};

std::string one_shot(hash_algo a, std::span<const std::byte> data) {
  if (a == hash_algo::xxh64) return hex64(XXH64(data.data(), data.size(), 0));
  if (a == hash_algo::xxh3) return hex64(XXH3_64bits(data.data(), data.size()));
  stream_hash h(a);
  h.update(data);
  return h.hex_digest();
}

std::string uuid_v5(std::vector<unsigned char> sha1) {
  // RFC 9562 section 5.5: the first 16 bytes of the SHA-1, version 5, variant 0b10.
  sha1[6] = static_cast<unsigned char>((sha1[6] & 0x0f) | 0x50);
  sha1[8] = static_cast<unsigned char>((sha1[8] & 0x3f) | 0x80);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", sha1[0],
                sha1[1], sha1[2], sha1[3], sha1[4], sha1[5], sha1[6], sha1[7], sha1[8], sha1[9], sha1[10], sha1[11],
                sha1[12], sha1[13], sha1[14], sha1[15]);
  return buf;
}

}  // namespace

const char* hash_algo_name(hash_algo a) noexcept {
  switch (a) {
    case hash_algo::xxh64: return "xxh64";
    case hash_algo::sha1: return "sha1";
    case hash_algo::sha256: return "sha256";
    case hash_algo::xxh3: return "xxh3";
  }
  return "?";
}

result<hash_result> hash_tensors(const gguf::file& f, const hash_request& req) {
  const bool sha = req.uuid || req.algo[static_cast<int>(hash_algo::sha1)] ||
                   req.algo[static_cast<int>(hash_algo::sha256)];
  if (sha && !crypto().error.empty()) return make_error(errc::io_error, no_offset, crypto().error);
  const auto tensors = f.tensors();
  hash_result res;
  res.model.assign(hash_algo_count, {});
  res.tensor.assign(tensors.size(), std::vector<std::string>(hash_algo_count));

  // Jobs: first one sequential stream per whole-model digest (the long ones), then one
  // job per tensor and algorithm, largest first.
  struct job {
    int algo;        // hash_algo, or -1 for the UUID's SHA-1 stream
    size_t tensor;   // SIZE_MAX for a whole-model stream
  };
  std::vector<job> jobs;
  for (int a = 0; a < hash_algo_count; ++a) {
    if (req.algo[a]) jobs.push_back({a, SIZE_MAX});
  }
  if (req.uuid) jobs.push_back({-1, SIZE_MAX});
  const size_t n_streams = jobs.size();
  if (req.per_tensor) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      for (int a = 0; a < hash_algo_count; ++a) {
        if (req.algo[a]) jobs.push_back({a, i});
      }
    }
    std::stable_sort(jobs.begin() + static_cast<std::ptrdiff_t>(n_streams), jobs.end(),
                     [&](const job& x, const job& y) { return tensors[x.tensor].nbytes > tensors[y.tensor].nbytes; });
  }

  auto run_job = [&](const job& j) {
    if (j.tensor != SIZE_MAX) {
      res.tensor[j.tensor][j.algo] = one_shot(static_cast<hash_algo>(j.algo), tensors[j.tensor].data);
      return;
    }
    stream_hash h(j.algo < 0 ? hash_algo::sha1 : static_cast<hash_algo>(j.algo));
    if (j.algo < 0) h.update(std::as_bytes(std::span(uuid_namespace)));
    for (const auto& t : tensors) h.update(t.data);
    if (j.algo < 0) res.uuid = uuid_v5(h.digest());
    else res.model[j.algo] = h.hex_digest();
  };

  // xxHash runs at memory speed: a second pass costs more than a second thread saves,
  // so without SHA per-tensor work the one-pass walk is used whatever --threads says.
  const bool cpu_bound = req.per_tensor && (req.algo[static_cast<int>(hash_algo::sha1)] ||
                                            req.algo[static_cast<int>(hash_algo::sha256)]);
  if (req.threads <= 1 || !cpu_bound || req.fetch) {
    // One pass over the data, each chunk fed to the whole-model streams and to the
    // tensor's own hashes while it is in the cache.
    std::vector<std::unique_ptr<stream_hash>> model;
    std::vector<int> model_algo;
    for (size_t k = 0; k < n_streams; ++k) {
      model_algo.push_back(jobs[k].algo);
      model.push_back(std::make_unique<stream_hash>(jobs[k].algo < 0 ? hash_algo::sha1
                                                                     : static_cast<hash_algo>(jobs[k].algo)));
      if (jobs[k].algo < 0) model.back()->update(std::as_bytes(std::span(uuid_namespace)));
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
      std::vector<std::pair<int, std::unique_ptr<stream_hash>>> own;
      if (req.per_tensor) {
        for (int a = 0; a < hash_algo_count; ++a) {
          if (req.algo[a]) own.emplace_back(a, std::make_unique<stream_hash>(static_cast<hash_algo>(a)));
        }
      }
      const auto data = tensors[i].data;
      constexpr size_t chunk = size_t{1} << 18;   // fits in L2
      constexpr size_t window = size_t{1} << 24;  // fetched at once from a remote file
      for (size_t w = 0; w < data.size(); w += window) {
        const auto win = data.subspan(w, std::min(window, data.size() - w));
        if (req.fetch) {
          if (auto r = f.fetch(win); !r) return r.error();
        }
        for (size_t off = 0; off < win.size(); off += chunk) {
          const auto piece = win.subspan(off, std::min(chunk, win.size() - off));
          for (auto& m : model) m->update(piece);
          for (auto& [a, h] : own) h->update(piece);
        }
        if (req.fetch) f.release(win);
      }
      for (auto& [a, h] : own) res.tensor[i][a] = h->hex_digest();
    }
    for (size_t k = 0; k < n_streams; ++k) {
      if (model_algo[k] < 0) res.uuid = uuid_v5(model[k]->digest());
      else res.model[model_algo[k]] = model[k]->hex_digest();
    }
    return res;
  }

  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < jobs.size();) run_job(jobs[k]);
  };
  const unsigned n_threads = std::max(1u, std::min<unsigned>(req.threads, static_cast<unsigned>(jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n_threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return res;
}

}  // namespace gguf::cli
