// gguf/writer.h — building and writing GGUF files.
//
//   gguf::writer w;                                      // v3, little-endian
//   w.set("general.architecture", gguf::value::string("llama"));
//   w.set("llama.block_count", gguf::value::u32(2));
//   w.add_tensor("token_embd.weight", gguf::ggml_type::f32, {64, 512}, bytes);
//   if (auto r = w.write_file("out.gguf"); !r) report(r.error());
//
// Layout follows the GGUF specification (and gguf-py's writer, so that re-writing a
// canonically written file reproduces it byte for byte): header, key/values in
// insertion order, tensor infos in insertion order, zero padding to the alignment,
// then each tensor's bytes at the next multiple of the alignment, zero-padded.
// The alignment is general.alignment when set (uint32, a power of two), else 32.
// write_file writes through gguf::safe_output (gguf/output.h): a temporary file in the
// target's folder, fsynced and renamed into place, the target's mode/owner kept, memory
// bounded (tensor bytes of a source file are copied by the kernel, never buffered).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/format.h"
#include "gguf/output.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// An owned metadata value for writing: type, and its payload encoded little-endian
/// exactly as on the wire (without the leading type id).
class value {
 public:
  value() = default;
  static value u8(uint8_t v);
  static value i8(int8_t v);
  static value u16(uint16_t v);
  static value i16(int16_t v);
  static value u32(uint32_t v);
  static value i32(int32_t v);
  static value f32(float v);
  static value boolean(bool v);
  static value string(std::string_view s);
  static value u64(uint64_t v);
  static value i64(int64_t v);
  static value f64(double v);

  /// Array of fixed-size scalars; T one of the scalar C++ types above (bool included).
  template <class T>
  static value array(std::span<const T> elems);
  static value string_array(std::span<const std::string> elems);
  static value string_array(std::span<const std::string_view> elems);
  /// Array of arrays (each element must have type array). Errors: invalid_argument.
  static result<value> array_of_arrays(std::span<const value> elems);
  /// Array of `count` elements of type `elem` whose little-endian encoding is `payload`
  /// (advanced use: copying arrays between files).
  static value raw_array(value_type elem, uint64_t count, std::string payload);

  /// Deep copy of a value read from a file, re-encoded little-endian.
  static value copy_of(const value_ref& v);

  /// Parses text as a value of `type` (for `gguf set`): integers in decimal (range
  /// checked), floats, bool as true/false/1/0, strings verbatim. Arrays: a JSON-like
  /// list is not accepted here. Errors: invalid_argument, out_of_range.
  static result<value> parse(value_type type, std::string_view text);

  value_type type() const noexcept { return type_; }
  /// Element type of an array value.
  value_type element_type() const noexcept { return elem_; }
  /// Encoded payload (little-endian wire bytes after the type id).
  const std::string& payload() const noexcept { return payload_; }

 private:
  value_type type_ = value_type::uint8;
  value_type elem_ = value_type::uint8;
  std::string payload_;
  static value scalar(value_type t, const void* p, size_t n);
};

/// The GGUF type of a value given without one: a new key set from JSON (`gguf edit
/// --set-json KEY=JSON`) or from Python (`ggufkit.edit(set={...})`). Feed it every leaf of
/// the value (a scalar is one leaf, an array's elements are its leaves), then ask
/// element_type(). The rule follows gguf-py's GGUFWriter (str -> string, bool -> bool,
/// float -> float32, int -> int32), widened where an integer does not fit int32.
///
///   gguf::untyped_leaves k;
///   k.add_integer(int64_t{3}); k.add_integer(uint64_t{1} << 40);
///   k.element_type();                                      // value_type::int64
class untyped_leaves {
 public:
  void add_string() noexcept { strings_ = true; }
  void add_bool() noexcept { bools_ = true; }
  void add_float() noexcept { floats_ = true; }
  void add_integer(int64_t v) noexcept;
  void add_integer(uint64_t v) noexcept;
  /// No leaf was added (an empty array).
  bool empty() const noexcept { return !(strings_ || bools_ || floats_ || integers_); }

  /// The type of every leaf: string when all are strings; bool when all are bools; float32
  /// when any number is a float (integers among floats too); for integers only, int32 when
  /// every one fits, else int64 when every one fits, else uint64 (all >= 0).
  /// Errors: invalid_argument when strings, bools and numbers mix, when integers fit no one
  /// type (below INT64_MIN is not representable; negatives with values above INT64_MAX),
  /// and when there is no leaf (an empty array has no element type).
  result<value_type> element_type() const;

 private:
  bool strings_ = false, bools_ = false, floats_ = false, integers_ = false;
  bool negative_ = false;     // an integer < 0
  bool above_int64_ = false;  // an integer > INT64_MAX
  bool wide_ = false;         // an integer outside int32
};

struct writer_options {
  uint32_t version = 3;                         ///< 2 or 3 (same layout); 1 is not written
  gguf::byte_order order = byte_order::little;  ///< metadata byte order; see add_tensor
  /// A file without tensors: pad the metadata to the alignment (ggml's gguf_write does)
  /// or end right after it (gguf-py's writer does). Files with tensors are always padded.
  bool pad_without_tensors = true;
};

/// Builds a GGUF file in memory (metadata) plus tensor data by reference or by value.
class writer {
 public:
  explicit writer(writer_options opts = {}) : opts_(opts) {}

  /// Copies every key/value and tensor of `f` (tensor bytes by reference: `f` must
  /// outlive the writer), keeping the file's version and byte order.
  static writer from_file(const file& f);

  /// Sets `key` (keeps its position if present, else appends). Errors: invalid_key,
  /// key_too_long, invalid_alignment (general.alignment not a uint32 power of two).
  result<void> set(std::string_view key, value v);
  /// Removes `key`; false if absent.
  bool remove(std::string_view key);
  const value* find(std::string_view key) const;
  size_t kv_count() const noexcept { return kvs_.size(); }

  /// Adds a tensor of shape ne (ne[0] contiguous, 1..4 dims) whose bytes are `data`
  /// (borrowed: must stay alive until written), already in the output byte order.
  /// Errors: invalid_tensor_name, duplicate_tensor, too_many_dims, invalid_dimension,
  /// partial_block, size_overflow, invalid_argument (data size != ggml_nbytes).
  result<void> add_tensor(std::string_view name, ggml_type type, std::span<const uint64_t> ne,
                          std::span<const std::byte> data);
  /// Same, taking ownership of the bytes.
  result<void> add_tensor(std::string_view name, ggml_type type, std::span<const uint64_t> ne,
                          std::vector<std::byte> data);
  size_t tensor_count() const noexcept { return tensors_.size(); }

  /// Alignment the output will use.
  uint32_t alignment() const noexcept;

  /// The whole file as bytes.
  std::vector<std::byte> to_bytes() const;
  /// Size in bytes of the file to_bytes() / write_file() produce.
  uint64_t file_size() const noexcept;
  /// Bytes of the header, metadata and tensor infos (before the zero padding).
  uint64_t metadata_end() const noexcept;
  /// Byte offset of the data section in that file (end of metadata + padding).
  uint64_t data_offset() const noexcept;
  /// The header, metadata and tensor infos, padded to the data section (data_offset()
  /// bytes; without padding for a tensor-less file written unpadded).
  std::vector<std::byte> metadata_bytes() const;

  /// Writes atomically through safe_output (see gguf/output.h for every guarantee:
  /// symlinks followed, mode/owner kept, refusals, signals, bounded memory).
  /// `opts.expected_size` is filled in when 0. Errors: io_error (nothing at `path` changes).
  result<void> write_file(const std::filesystem::path& path, const output_options& opts = {}) const;
  /// Appends the whole file to `out` (the caller commits). Tensor bytes that lie in the
  /// source file of from_file() are copied from that file by the kernel
  /// (safe_output::copy_from_fd) when it is still the file that was opened.
  result<void> write_to(safe_output& out) const;

 private:
  struct kv_entry {
    std::string key;
    value val;
  };
  struct tensor_entry {
    std::string name;
    ggml_type type;
    std::vector<uint64_t> ne;
    std::span<const std::byte> data;
    std::shared_ptr<std::vector<std::byte>> owned;
  };
  writer_options opts_;
  std::vector<kv_entry> kvs_;
  std::vector<tensor_entry> tensors_;
  std::unordered_set<std::string> tensor_names_;  // of tensors_: the duplicate check in O(1)
  std::shared_ptr<const file> source_;  // the source file of from_file

  template <class Sink>
  void emit(Sink& sink) const;
};

}  // namespace gguf
#pragma GCC visibility pop
