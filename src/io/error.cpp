#include "gguf/error.h"

namespace gguf {
namespace {
struct code_row {
  errc code;
  std::string_view name;
  std::string_view message;
};
// One row per errc value, in enum order.
constexpr code_row code_table[] = {
    {errc::ok, "ok", "success"},
    {errc::io_error, "io_error", "input/output error"},
    {errc::bad_magic, "bad_magic", "not a GGUF file (bad magic)"},
    {errc::unsupported_version, "unsupported_version", "unsupported GGUF version"},
    {errc::truncated, "truncated", "file is truncated"},
    {errc::limit_exceeded, "limit_exceeded", "a reader limit is exceeded"},
    {errc::invalid_key, "invalid_key", "invalid key"},
    {errc::key_too_long, "key_too_long", "key is too long"},
    {errc::duplicate_key, "duplicate_key", "duplicate key"},
    {errc::invalid_value_type, "invalid_value_type", "invalid value type"},
    {errc::invalid_bool, "invalid_bool", "invalid bool value"},
    {errc::invalid_tensor_name, "invalid_tensor_name", "invalid tensor name"},
    {errc::duplicate_tensor, "duplicate_tensor", "duplicate tensor name"},
    {errc::too_many_dims, "too_many_dims", "too many dimensions"},
    {errc::invalid_dimension, "invalid_dimension", "invalid tensor dimension"},
    {errc::invalid_ggml_type, "invalid_ggml_type", "invalid ggml type"},
    {errc::size_overflow, "size_overflow", "size overflows 64 bits"},
    {errc::invalid_alignment, "invalid_alignment", "invalid alignment"},
    {errc::misaligned_tensor, "misaligned_tensor", "tensor data is not aligned"},
    {errc::tensor_out_of_bounds, "tensor_out_of_bounds", "tensor data lies outside the file"},
    {errc::tensor_overlap, "tensor_overlap", "tensor data overlaps another tensor"},
    {errc::partial_block, "partial_block", "row is not a whole number of blocks"},
    {errc::key_not_found, "key_not_found", "key not found"},
    {errc::type_mismatch, "type_mismatch", "value has another type"},
    {errc::tensor_not_found, "tensor_not_found", "tensor not found"},
    {errc::out_of_range, "out_of_range", "value out of range"},
    {errc::invalid_argument, "invalid_argument", "invalid argument"},
    {errc::unsupported, "unsupported", "not supported"},
    {errc::invalid_vocab, "invalid_vocab", "invalid vocabulary"},
    {errc::invalid_model, "invalid_model", "invalid model"},
    {errc::invalid_template, "invalid_template", "invalid chat template"},
    {errc::template_error, "template_error", "chat template error"},
};
static_assert(std::size(code_table) == static_cast<size_t>(errc::template_error) + 1);

const code_row* row(errc code) {
  auto i = static_cast<size_t>(code);
  return i < std::size(code_table) ? &code_table[i] : nullptr;
}
}  // namespace

std::string_view error_message(errc code) noexcept {
  const auto* r = row(code);
  return r ? r->message : "unknown error";
}

std::string_view error_name(errc code) noexcept {
  const auto* r = row(code);
  return r ? r->name : "unknown";
}

std::string printable_name(std::string_view name) {
  bool plain = true;
  for (unsigned char c : name) plain = plain && c >= 0x20 && c != 0x7f;
  if (plain) return std::string(name);
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : name) {
    if (c == '"' || c == '\\') out += {'\\', char(c)};
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    else out += char(c);
  }
  return out + "\"";
}

std::string error::message() const {
  std::string out = detail.empty() ? std::string(error_message(code)) : detail;
  std::string where;
  if (offset != no_offset) where = "at byte " + std::to_string(offset);
  if (!subject.empty()) {
    if (!where.empty()) where += ", ";
    where += subject_is_tensor ? "tensor " : "key ";
    where += printable_name(subject);
  }
  if (!where.empty()) out += " (" + where + ")";
  return out;
}

}  // namespace gguf
