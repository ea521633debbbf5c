// gguf/remote.h — reading a GGUF file over HTTP(S) with range requests (libcurl).
//
//   gguf::remote_options o;
//   o.headers.push_back("Authorization: Bearer " + token);
//   auto f = gguf::file::open_url("https://host/model.gguf", o);   // one request, usually
//   auto arch = f->get_string("general.architecture");
//   auto t = f->get_tensor("token_embd.weight");
//   f->fetch((*t)->data);                // tensor data only when asked for
//
// The file is fetched into a reservation of the file's size: the metadata (header,
// key/values, tensor infos) is fetched when the reader walks it, first with one request
// of `first_request` bytes, then only the missing bytes, in as few requests as possible
// (each at least a quarter of everything fetched so far, sized from what the reader
// knows is left: the elements of the array it is in, the key/values and tensor infos
// still to come). Tensor data is fetched only through file::fetch. Views into the file
// (strings, arrays, tensor_info::data) keep their addresses; reading bytes that were
// never fetched is a programming error (the pages are not readable).
//
// Every response is checked: status 206 with the Content-Range asked for and the file
// size of the first response, a body of exactly that length, and the same ETag and
// Last-Modified as the first response (a file changed between two requests is an
// io_error, not a mix of two files). Redirects are followed (later requests go to the
// final URL). 429, 5xx and broken connections are retried with exponential backoff.
// Every failure is an io_error with a one-line message naming the cause.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// How a remote file is fetched. The defaults suit model hubs.
struct remote_options {
  /// Extra request headers, "Name: value" (e.g. "Authorization: Bearer …"). Sent to the
  /// URL's host; libcurl drops Authorization on a redirect to another host.
  std::vector<std::string> headers;
  /// Seconds to connect, and seconds a transfer may stall (below 1 KiB/s) before it fails.
  long timeout_seconds = 30;
  /// Retries of a request after 429, 5xx or a broken connection (backoff 0.25 s, doubling).
  int retries = 3;
  /// Bytes of the first request. 64 KiB: the whole metadata of a model without a
  /// vocabulary, and enough of any other for the reader to estimate the rest (the header's
  /// counts, the vocabulary's size), which the second request then fetches in one go.
  /// Modelled as requests x round trip + bytes / bandwidth (bench/remote/plan_table.py),
  /// this keeps every test file and a 4 GB model header within 2x of one exact request at
  /// 10 Mbit/s 100 ms, 100 Mbit/s 50 ms and 1 Gbit/s 20 ms (docs/remote.md).
  uint64_t first_request = 64ull << 10;
  /// A server that ignores Range (200 with the whole body) is accepted only for files up
  /// to this size; beyond it the transfer is cut and the open fails.
  uint64_t max_unranged = 64ull << 20;
  /// Most bytes the metadata may take (a hostile server cannot make the reader fetch more).
  uint64_t max_metadata = 1ull << 30;
  /// Disk cache folder (io/disk_cache.h, the tokenizer tables' too) for the metadata, keyed by URL,
  /// revalidated by ETag ("" = none): a cached file costs one conditional request (304).
  std::string cache_dir;
  /// Token of the Hugging Face hub, sent as "Authorization: Bearer TOKEN" to the hub's
  /// hosts (request_headers) when no Authorization header is given. Empty: $HF_TOKEN.
  std::string hf_token;
  /// Called with one line per request (method, range, status, bytes, milliseconds), and
  /// never with header values. Empty: silent.
  std::function<void(std::string_view)> log;
};

/// Requests and bytes a remote file has cost so far (0 for a local file).
struct transfer_stats {
  uint64_t requests = 0;  ///< HTTP requests sent, retries and 304s included
  uint64_t bytes = 0;     ///< body bytes received
};

/// True for "http://…" and "https://…" (case-insensitive scheme).
bool is_url(std::string_view path) noexcept;

/// The headers to send for `url`: `headers`, plus "Authorization: Bearer TOKEN" when a
/// token is given (`hf_token`, else $HF_TOKEN), no Authorization header is given and the
/// URL's host is huggingface.co, hf.co (or a subdomain), or the host of $GGUF_HF_ENDPOINT
/// or $HF_ENDPOINT (as huggingface_hub).
std::vector<std::string> request_headers(std::string_view url, std::vector<std::string> headers,
                                         std::string_view hf_token = {});

// ---- models by hub name (docs/remote.md, "Models by hub name") ----
//
//   hf://OWNER/REPO[@REV]/PATH.gguf   that file (no API request)
//   hf://OWNER/REPO[@REV]:QUANT       the model file whose name carries QUANT (Q4_K_M,
//                                     UD-Q4_K_XL, ...; case-insensitive), its first shard
//                                     when the quant is split
//   hf://OWNER/REPO[@REV]             the default llama-server -hf picks: Q4_K_M, else
//                                     Q8_0, else the first model file
// REV is a branch, tag or commit (default main; '/' spelled %2F). The repository's files
// come from the Hub's model API (GET ENDPOINT/api/models/OWNER/REPO/revision/REV, its
// "siblings" and "sha"), once per process; with remote_options::cache_dir the answer is
// kept there and revalidated with If-None-Match. ENDPOINT is $GGUF_HF_ENDPOINT, else
// $HF_ENDPOINT, else https://huggingface.co. The file is read from
// ENDPOINT/OWNER/REPO/resolve/COMMIT/PATH (the commit of the listing, so that every shard
// of a set comes from one commit). Selection follows llama.cpp common/download.cpp
// (find_best_model, gguf_filename_is_model, get_split_files): projector (mmproj),
// imatrix and draft-head files are never picked.

/// A parsed hub name.
struct hub_name {
  std::string repo;      ///< "OWNER/REPO"
  std::string revision;  ///< after '@'; "main" when absent
  std::string file;      ///< the path of hf://OWNER/REPO/PATH.gguf, else empty
  std::string quant;     ///< the tag after ':', as given, else empty
};

/// True for "hf://…" (case-insensitive scheme).
bool is_hub_name(std::string_view path) noexcept;
/// True for a URL (is_url) or a hub name (is_hub_name): what file::open_any reads remotely.
bool is_remote(std::string_view path) noexcept;
/// Parses a hub name. Errors: io_error naming the forms accepted.
result<hub_name> parse_hub_name(std::string_view name);
/// The hub's base URL: $GGUF_HF_ENDPOINT, else $HF_ENDPOINT, else https://huggingface.co
/// (no trailing '/').
std::string hub_endpoint();
/// The files `quant` picks from a repository's file paths (empty quant: the default pick),
/// as llama-server -hf picks them: the model file first, then the rest of its shard set in
/// order (a single file: just it). Errors: io_error "no file for quant Q; its quants: A,
/// B" (the tags of the repository's model files), or "no GGUF model file".
result<std::vector<std::string>> select_hub_files(std::span<const std::string> files, std::string_view quant);
/// The URL a hub name reads (the first shard of a split model; file::open_model-style
/// readers find the others by name). Errors: io_error with one line: a bad name, the
/// model API's failure (401/403: private or gated, give a token), no such quant.
result<std::string> resolve_hub_name(std::string_view name, const remote_options& options);

}  // namespace gguf
#pragma GCC visibility pop
