// gguf/file.h — the reader: a validated, zero-copy index over a GGUF file's bytes.
//
//   auto f = gguf::file::open("model.gguf");          // mmap + parse + validate
//   if (!f) { std::cerr << f.error().message(); }
//   auto arch = f->get_string("general.architecture"); // result<std::string_view>
//   for (const auto& t : f->tensors()) use(t.name, t.ne, t.data);
//
// Parsing follows the GGUF specification (ggml docs/gguf.md) for versions 1 (32-bit
// counts and lengths), 2 and 3, in either byte order. Every count, length and dimension
// is checked against the bytes that remain and against reader_limits before it is used,
// so a hostile file costs at most O(file size) memory and time. Nothing is copied:
// strings, arrays and tensor data are views into the mapping, which lives as long as
// any copy of the `file` object. String arrays are walked once on open (to find where
// the next key starts) but not materialized; random access builds an offset table
// lazily, once, on first use (thread-safe).
//
// Values of a big-endian file are byte-swapped by the accessors; raw views
// (array_ref::raw, tensor_info::data) stay in the file's byte order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/format.h"
#include "gguf/remote.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

namespace detail {
struct [[gnu::visibility("hidden")]] file_impl;  // internal (src/format/file_impl.h): not exported
}

/// Hard ceiling on max_array_nesting: the reader, the nested-array accessors and every
/// consumer (writer, validate, `gguf dump`) recurse once per level, so a depth set higher
/// than this is treated as this (64 levels; real files nest 1 or 2).
inline constexpr uint32_t max_array_nesting_ceiling = 64;

/// Bounds a reader enforces beyond "fits in the file". Defaults accept every real model.
struct reader_limits {
  uint64_t max_kv_count = 1u << 20;          ///< metadata key/value pairs
  uint64_t max_tensor_count = 1u << 22;      ///< tensor infos
  uint64_t max_string_length = 1ull << 30;   ///< bytes of one string value
  uint64_t max_array_length = 1ull << 32;    ///< elements of one array
  uint32_t max_array_nesting = 8;            ///< arrays of arrays, depth (at most max_array_nesting_ceiling)
  uint64_t max_metadata_bytes = 1ull << 34;  ///< header + metadata + tensor infos
};

class array_ref;

/// A view of one metadata value inside a file. Valid while the owning `file` lives.
class value_ref {
 public:
  value_ref() = default;
  /// Internal: made by the reader.
  value_ref(const detail::file_impl* f, value_type t, uint64_t offset) : f_(f), type_(t), offset_(offset) {}
  value_type type() const noexcept { return type_; }
  /// Byte offset of the value (after its type id) in the file.
  uint64_t offset() const noexcept { return offset_; }

  /// Exact-type accessors: errc::type_mismatch unless the stored type is exactly T's.
  /// T is one of uint8_t int8_t uint16_t int16_t uint32_t int32_t float uint64_t int64_t
  /// double bool std::string_view.
  template <class T>
  result<T> get() const;

  /// Any integer type widened to uint64 (negative values: out_of_range). For the keys
  /// the spec lets be uint32 or uint64 (context_length, …).
  result<uint64_t> to_uint64() const;
  /// Any integer type widened to int64 (uint64 above INT64_MAX: out_of_range).
  result<int64_t> to_int64() const;
  /// Any numeric type (integers, float32, float64) as double.
  result<double> to_double() const;
  /// The array, or type_mismatch.
  result<array_ref> array() const;

 private:
  const detail::file_impl* f_ = nullptr;
  value_type type_ = value_type::uint8;
  uint64_t offset_ = 0;
};

/// A view of an array value: element type, length, elements.
class array_ref {
 public:
  array_ref() = default;
  /// Internal: made by the reader.
  array_ref(const detail::file_impl* f, value_type elem, uint64_t count, uint64_t data)
      : f_(f), elem_(elem), count_(count), data_(data) {}
  value_type element_type() const noexcept { return elem_; }
  uint64_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  /// Byte offset of the first element in the file.
  uint64_t offset() const noexcept { return data_; }
  /// Depth of nesting: 1 for an array of scalars or strings, 2 for arrays of such, …
  uint32_t nesting() const;
  /// Innermost element type (element_type() unless nested).
  value_type innermost_type() const;

  /// Element i with exact type T (see value_ref::get). Errors: out_of_range, type_mismatch.
  /// String elements: O(1) after a one-time O(n) index build.
  template <class T>
  result<T> get(uint64_t i) const;
  /// Element i as a value (for generic code and nested arrays).
  result<value_ref> at(uint64_t i) const;

  /// Copies a fixed-size numeric array into `out` (host byte order). `out.size()` must
  /// equal size(); T must match the element type exactly. Errors: type_mismatch,
  /// invalid_argument.
  template <class T>
  result<void> copy_to(std::span<T> out) const;
  /// All elements of a fixed-size numeric array as a vector (host byte order).
  template <class T>
  result<std::vector<T>> to_vector() const;

  /// The raw bytes of a fixed-size element array, in the file's byte order (zero-copy).
  std::span<const std::byte> raw() const;

  /// Sequential walk over a string array without building the index: calls
  /// fn(index, string_view) for each element. type_mismatch if not a string array.
  template <class Fn>
  result<void> for_each_string(Fn&& fn) const;

 private:
  const detail::file_impl* f_ = nullptr;
  value_type elem_ = value_type::uint8;
  uint64_t count_ = 0;
  uint64_t data_ = 0;  // absolute offset of element 0
  uint64_t element_offset(uint64_t i) const;  // any element type
};

/// One metadata pair.
struct kv_ref {
  std::string_view key;
  value_ref value;
  uint64_t offset = 0;  ///< byte offset of the key's length field
};

/// One tensor info, validated: type known, shape within limits, data inside the file,
/// aligned and not overlapping another tensor.
struct tensor_info {
  std::string_view name;
  uint32_t n_dims = 0;
  std::array<uint64_t, 4> ne{1, 1, 1, 1};  ///< elements per dimension, ne[0] contiguous
  ggml_type type = ggml_type::f32;
  uint64_t offset = 0;       ///< relative to the data section (spec)
  uint64_t nbytes = 0;       ///< ggml_nbytes
  uint64_t info_offset = 0;  ///< byte offset of this tensor info in the file
  std::span<const std::byte> data;  ///< zero-copy view, file byte order

  uint64_t nelements() const noexcept { return ne[0] * ne[1] * ne[2] * ne[3]; }
};

/// Who a local file was when it was opened (fstat of the descriptor it was mapped from):
/// equal identities mean the same file, unchanged, for caches keyed by a file without
/// reading it. A write changes the modification and change times; the change time cannot
/// be set back by a user. Times in nanoseconds since the epoch.
struct file_identity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;  ///< last modification
  int64_t ctime_ns = 0;  ///< last status change
  bool operator==(const file_identity&) const = default;
};

/// What file::open found of an interrupted in-place edit (gguf/edit.h): a journal
/// `.NAME.gguf-journal` beside the file that a killed edit left. Readers never write:
/// they read the consistent state, and the next edit (a writer) finishes or removes
/// the journal (recover_edit).
enum class pending_edit : uint8_t {
  none,        ///< no journal
  applied,     ///< a complete journal: the file is read as the edit left it (the new
               ///< metadata laid over the mapping, copy-on-write; the file is not written)
  incomplete,  ///< a damaged or incomplete journal: the edit never reached the file,
               ///< which is read as it is (the old state)
  foreign,     ///< a journal made for another file (other inode or size): ignored
};

/// An opened, validated GGUF file. Cheap to copy (shared ownership of the mapping).
class file {
 public:
  /// Maps `path` read-only and parses it. An interrupted in-place edit beside it is read
  /// in its consistent state without writing (see pending_edit and interrupted_edit()).
  /// Errors: io_error (also: a journal beside it that cannot be read) and every format
  /// error of errc, with the byte offset and the key or tensor concerned.
  static result<file> open(const std::filesystem::path& path, const reader_limits& limits = {});
  /// Parses bytes the caller keeps alive for the lifetime of the result (no copy).
  static result<file> from_bytes(std::span<const std::byte> bytes, const reader_limits& limits = {},
                                 std::string name = "<memory>");
  /// Parses bytes it takes ownership of (e.g. standard input).
  static result<file> from_buffer(std::vector<std::byte> bytes, const reader_limits& limits = {},
                                  std::string name = "<stdin>");
  /// Reads an http:// or https:// URL with range requests (gguf/remote.h): the metadata
  /// in one request when it fits `options.first_request`, then only the missing bytes.
  /// Tensor data is not fetched: call fetch() before reading tensor_info::data.
  /// A hub name (hf://OWNER/REPO..., gguf/remote.h) is resolved first (resolve_hub_name);
  /// path() is then the URL read.
  /// Errors: io_error (one line: HTTP status, timeout, a response that does not answer
  /// the request, a file changed between requests, a hub name that resolves to nothing)
  /// and every format error.
  static result<file> open_url(const std::string& url, const remote_options& options = {},
                               const reader_limits& limits = {});
  /// open_url for "http(s)://…" and "hf://…", open otherwise.
  static result<file> open_any(const std::string& path_or_url, const remote_options& options = {},
                               const reader_limits& limits = {});

  /// open_any of every path or URL at once, each in its own thread (the shards of a split
  /// model over HTTP: one round trip for all of them). Results in the order given.
  static std::vector<result<file>> open_all(std::span<const std::string> paths_or_urls,
                                            const remote_options& options = {}, const reader_limits& limits = {});

  /// True for a file opened with open_url.
  bool is_remote() const noexcept;
  /// Makes bytes [offset, offset + size) readable: nothing to do for a local file or a
  /// buffer; for a remote file the missing bytes are fetched (ranges closer than 64 KiB
  /// merged into one request). Errors: out_of_range past the file end, io_error.
  result<void> fetch(uint64_t offset, uint64_t size) const;
  /// fetch() of a view into this file (tensor_info::data, or a part of it). A view built
  /// over other files (a split model's tensors) is fetched from the file holding it.
  result<void> fetch(std::span<const std::byte> view) const;
  /// fetch() of many views at once: per file, in as few requests as the gaps allow.
  result<void> fetch(std::span<const std::span<const std::byte>> views) const;
  /// fetch() of many [first, second) ranges at once, in as few requests as the gaps allow.
  result<void> fetch(std::span<const std::pair<uint64_t, uint64_t>> ranges) const;
  /// True when [offset, offset + size) is readable (always, for a local file).
  bool resident(uint64_t offset, uint64_t size) const noexcept;
  /// Drops fetched tensor bytes of a remote file (streaming); a no-op for local files.
  void release(std::span<const std::byte> view) const noexcept;
  /// Requests and bytes this file has cost (zero for a local file).
  transfer_stats transfer() const noexcept;
  /// The identity of a file opened with open() (file_identity); nullopt for a buffer or a
  /// remote file.
  std::optional<file_identity> identity() const noexcept;
  /// What open() found of an interrupted in-place edit (pending_edit::none for a buffer
  /// or a remote file). With pending_edit::applied the bytes are not the file's on disk:
  /// identity() is then nullopt (no cache may key them by the file).
  pending_edit interrupted_edit() const noexcept;

  const std::string& path() const noexcept;
  uint32_t version() const noexcept;
  gguf::byte_order byte_order() const noexcept;
  uint32_t alignment() const noexcept;
  /// Absolute byte offset of the data section (may exceed size() when there are no tensors).
  uint64_t data_offset() const noexcept;
  /// Bytes of the header, metadata and tensor infos (before the padding).
  uint64_t metadata_end() const noexcept;
  uint64_t size() const noexcept;
  std::span<const std::byte> bytes() const noexcept;

  size_t kv_count() const noexcept;
  const kv_ref& kv(size_t i) const;  ///< i < kv_count()
  std::span<const kv_ref> kvs() const noexcept;
  /// The value of `key`, or nullptr-like empty optional.
  std::optional<value_ref> find(std::string_view key) const;
  /// The value of `key`, or errc::key_not_found.
  result<value_ref> get(std::string_view key) const;
  /// Typed lookups: key_not_found or type_mismatch.
  result<std::string_view> get_string(std::string_view key) const;
  result<uint64_t> get_uint(std::string_view key) const;  ///< any unsigned/non-negative integer
  result<array_ref> get_array(std::string_view key) const;

  size_t tensor_count() const noexcept;
  std::span<const tensor_info> tensors() const noexcept;
  const tensor_info* find_tensor(std::string_view name) const;
  /// The tensor named `name`, or errc::tensor_not_found.
  result<const tensor_info*> get_tensor(std::string_view name) const;

 private:
  friend class model_files;  // builds the merged view of a split model
  std::shared_ptr<const detail::file_impl> impl_;
  static result<file> make(std::shared_ptr<const detail::file_impl> impl);
  explicit file(std::shared_ptr<const detail::file_impl> impl) : impl_(std::move(impl)) {}
};

}  // namespace gguf
#pragma GCC visibility pop

#include "gguf/detail/file_inl.h"
