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
#include <string>
#include <string_view>
#include <vector>

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
  /// Bytes of the first request: the whole metadata of most models (a 256k-token
  /// vocabulary with merges is about 11 MiB, a 128k one about 7 MiB, 32k under 1 MiB).
  uint64_t first_request = 8ull << 20;
  /// A server that ignores Range (200 with the whole body) is accepted only for files up
  /// to this size; beyond it the transfer is cut and the open fails.
  uint64_t max_unranged = 64ull << 20;
  /// Most bytes the metadata may take (a hostile server cannot make the reader fetch more).
  uint64_t max_metadata = 1ull << 30;
  /// Disk cache folder (io/disk_cache.h, the tokenizer tables' too) for the metadata, keyed by URL,
  /// revalidated by ETag ("" = none): a cached file costs one conditional request (304).
  std::string cache_dir;
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

/// The headers to send for `url`: `headers`, plus "Authorization: Bearer $HF_TOKEN" when
/// HF_TOKEN is set, no Authorization header is given and the URL's host is
/// huggingface.co, hf.co (or a subdomain), or the host of $HF_ENDPOINT (as huggingface_hub).
std::vector<std::string> request_headers(std::string_view url, std::vector<std::string> headers);

}  // namespace gguf
#pragma GCC visibility pop
