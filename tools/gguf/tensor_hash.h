// Hashes of a model's tensor data for `gguf hash`: per tensor and over the whole model
// (every tensor's bytes in order, as llama.cpp's gguf-hash computes them), in parallel.
// The hash functions are libxxhash's and OpenSSL's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gguf/file.h"

namespace gguf::cli {

/// Hash algorithms, in gguf-hash's output order (xxh3 is ours, printed after sha256).
enum class hash_algo : uint8_t { xxh64, sha1, sha256, xxh3 };
inline constexpr int hash_algo_count = 4;
/// gguf-hash's name of an algorithm ("xxh64", "sha1", "sha256"; "xxh3").
const char* hash_algo_name(hash_algo a) noexcept;

struct hash_request {
  bool algo[hash_algo_count] = {};  ///< which algorithms, indexed by hash_algo
  bool per_tensor = true;           ///< per-tensor hashes (false: --no-layer)
  bool uuid = false;                ///< the UUIDv5 of the model's tensor data
  unsigned threads = 1;             ///< worker threads (>= 1)
  /// The tensor bytes must be fetched before they are read (a remote file, or a split
  /// model with remote shards): one pass, in windows fetched and released in turn.
  bool fetch = false;
};

struct hash_result {
  /// tensor[i][a]: hex digest of tensor i with algorithm a (empty when not asked for).
  std::vector<std::vector<std::string>> tensor;
  /// model[a]: hex digest of every tensor's bytes in order.
  std::vector<std::string> model;
  std::string uuid;  ///< 8-4-4-4-12 hex, when asked for
};

/// Hashes the tensors of `f` (straight from the mapping). One thread, or no SHA-1/SHA-256
/// per-tensor work (xxHash is memory-bound): a single pass, each chunk fed to every hash
/// that needs it. Otherwise each whole-model hash is one sequential stream and the
/// per-tensor hashes are jobs spread over the threads.
/// With `req.fetch`, the single pass fetches each tensor in windows of 16 MiB and
/// releases them once hashed (memory bounded whatever the tensor sizes).
/// Errors: those of file::fetch (io_error of a remote read); io_error when SHA-1, SHA-256 or
/// the UUID is asked for and libcrypto cannot be loaded (crypto_api.h).
result<hash_result> hash_tensors(const gguf::file& f, const hash_request& req);

}  // namespace gguf::cli
