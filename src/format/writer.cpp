// GGUF writer: values encoded little-endian on construction, byte-swapped on output
// for big-endian files; atomic file replacement by temp file + rename.
#include "gguf/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>

namespace gguf {
namespace {

static_assert(std::endian::native == std::endian::little, "the writer encodes on a little-endian host");

template <class T>
void put_le(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

void put_string(std::string& out, std::string_view s) {
  put_le<uint64_t>(out, s.size());
  out.append(s);
}

gguf::error key_error(std::string_view key) {
  if (key.empty()) return make_error(errc::invalid_key, no_offset, "empty key");
  if (key.size() > max_key_length) {
    return make_error(errc::key_too_long, no_offset, "key longer than 65535 bytes", std::string(key.substr(0, 64)));
  }
  for (char c : key) {
    auto ch = static_cast<unsigned char>(c);
    if (ch < 0x20 || ch > 0x7e) return make_error(errc::invalid_key, no_offset, "key is not printable ASCII", std::string(key));
  }
  return {};
}

// Output sinks for emit().
struct vector_sink {
  std::vector<std::byte>& out;
  void put(const void* p, size_t n) {
    auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  }
  void zeros(size_t n) { out.insert(out.end(), n, std::byte{0}); }
  void tensor(std::span<const std::byte> d) { put(d.data(), d.size()); }
};

// Counts bytes only (file_size, data_offset).
struct count_sink {
  uint64_t n = 0;
  void put(const void*, size_t k) { n += k; }
  void zeros(size_t k) { n += k; }
  void tensor(std::span<const std::byte> d) { n += d.size(); }
};

// Streams into a safe_output; tensor bytes inside the source file are copied from its
// descriptor by the kernel (bounded memory), others from memory.
struct output_sink {
  safe_output& out;
  int src_fd = -1;
  const std::byte* src_base = nullptr;
  uint64_t src_size = 0;
  bool metadata_only = false;
  void put(const void* p, size_t n) { (void)out.write(p, n); }
  void zeros(size_t n) { (void)out.write_zeros(n); }
  void tensor(std::span<const std::byte> d) {
    if (src_fd >= 0 && d.data() >= src_base && d.data() + d.size() <= src_base + src_size) {
      (void)out.copy_from_fd(src_fd, static_cast<uint64_t>(d.data() - src_base), d.size());
    } else {
      (void)out.write(d);
    }
  }
};

// Opens the file `f` was read from, if it still holds the same bytes where the metadata
// is (size equal, header/metadata/tensor infos equal): -1 otherwise.
int open_same_file(const file& f) {
  if (f.path().empty()) return -1;
  int fd = ::open(f.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  auto bytes = f.bytes();
  bool same = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == bytes.size();
  uint64_t end = std::min<uint64_t>(f.data_offset(), bytes.size());
  std::vector<std::byte> buf(same ? std::min<uint64_t>(end, 1u << 20) : 0);
  for (uint64_t at = 0; same && at < end;) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(end - at, buf.size()));
    ssize_t got = ::pread(fd, buf.data(), k, static_cast<off_t>(at));
    same = got == static_cast<ssize_t>(k) && std::memcmp(buf.data(), bytes.data() + at, k) == 0;
    at += k;
  }
  if (!same) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Writes a little-endian payload of type t, byte-swapping numbers when `swap`.
// Returns the number of payload bytes consumed.
template <class Sink>
size_t put_payload(Sink& sink, value_type t, const char* p, bool swap) {
  auto put_num = [&](const char* q, size_t n) {
    if (!swap || n == 1) {
      sink.put(q, n);
      return;
    }
    char tmp[8];
    for (size_t i = 0; i < n; ++i) tmp[i] = q[n - 1 - i];
    sink.put(tmp, n);
  };
  switch (t) {
    case value_type::string: {
      uint64_t len;
      std::memcpy(&len, p, 8);
      put_num(p, 8);
      sink.put(p + 8, len);
      return 8 + len;
    }
    case value_type::array: {
      uint32_t elem_id;
      uint64_t count;
      std::memcpy(&elem_id, p, 4);
      std::memcpy(&count, p + 4, 8);
      put_num(p, 4);
      put_num(p + 4, 8);
      auto elem = static_cast<value_type>(elem_id);
      size_t used = 12;
      size_t sz = value_type_size(elem);
      if (sz != 0 && (!swap || sz == 1)) {
        sink.put(p + used, count * sz);
        return used + count * sz;
      }
      for (uint64_t i = 0; i < count; ++i) used += put_payload(sink, elem, p + used, swap);
      return used;
    }
    default: {
      size_t sz = value_type_size(t);
      put_num(p, sz);
      return sz;
    }
  }
}

}  // namespace

// ---- value ----

value value::scalar(value_type t, const void* p, size_t n) {
  value v;
  v.type_ = t;
  v.payload_.assign(static_cast<const char*>(p), n);
  return v;
}

value value::u8(uint8_t x) { return scalar(value_type::uint8, &x, 1); }
value value::i8(int8_t x) { return scalar(value_type::int8, &x, 1); }
value value::u16(uint16_t x) { return scalar(value_type::uint16, &x, 2); }
value value::i16(int16_t x) { return scalar(value_type::int16, &x, 2); }
value value::u32(uint32_t x) { return scalar(value_type::uint32, &x, 4); }
value value::i32(int32_t x) { return scalar(value_type::int32, &x, 4); }
value value::f32(float x) { return scalar(value_type::float32, &x, 4); }
value value::boolean(bool x) {
  uint8_t b = x ? 1 : 0;
  return scalar(value_type::boolean, &b, 1);
}
value value::u64(uint64_t x) { return scalar(value_type::uint64, &x, 8); }
value value::i64(int64_t x) { return scalar(value_type::int64, &x, 8); }
value value::f64(double x) { return scalar(value_type::float64, &x, 8); }
value value::string(std::string_view s) {
  value v;
  v.type_ = value_type::string;
  put_string(v.payload_, s);
  return v;
}

template <class T>
value value::array(std::span<const T> elems) {
  value v;
  v.type_ = value_type::array;
  v.elem_ = value_type_of<T>();
  put_le<uint32_t>(v.payload_, static_cast<uint32_t>(v.elem_));
  put_le<uint64_t>(v.payload_, elems.size());
  for (const T& e : elems) {
    if constexpr (std::is_same_v<T, bool>) put_le<uint8_t>(v.payload_, e ? 1 : 0);
    else put_le<T>(v.payload_, e);
  }
  return v;
}
template value value::array<uint8_t>(std::span<const uint8_t>);
template value value::array<int8_t>(std::span<const int8_t>);
template value value::array<uint16_t>(std::span<const uint16_t>);
template value value::array<int16_t>(std::span<const int16_t>);
template value value::array<uint32_t>(std::span<const uint32_t>);
template value value::array<int32_t>(std::span<const int32_t>);
template value value::array<float>(std::span<const float>);
template value value::array<bool>(std::span<const bool>);
template value value::array<uint64_t>(std::span<const uint64_t>);
template value value::array<int64_t>(std::span<const int64_t>);
template value value::array<double>(std::span<const double>);

value value::string_array(std::span<const std::string> elems) {
  const std::vector<std::string_view> views(elems.begin(), elems.end());
  return string_array(views);
}

value value::string_array(std::span<const std::string_view> elems) {
  value v;
  v.type_ = value_type::array;
  v.elem_ = value_type::string;
  put_le<uint32_t>(v.payload_, static_cast<uint32_t>(value_type::string));
  put_le<uint64_t>(v.payload_, elems.size());
  for (const auto& e : elems) put_string(v.payload_, e);
  return v;
}

result<value> value::array_of_arrays(std::span<const value> elems) {
  value v;
  v.type_ = value_type::array;
  v.elem_ = value_type::array;
  put_le<uint32_t>(v.payload_, static_cast<uint32_t>(value_type::array));
  put_le<uint64_t>(v.payload_, elems.size());
  for (const auto& e : elems) {
    if (e.type() != value_type::array) {
      return make_error(errc::invalid_argument, no_offset, "array_of_arrays: element is not an array");
    }
    v.payload_ += e.payload_;
  }
  return v;
}

value value::raw_array(value_type elem, uint64_t count, std::string payload) {
  value v;
  v.type_ = value_type::array;
  v.elem_ = elem;
  put_le<uint32_t>(v.payload_, static_cast<uint32_t>(elem));
  put_le<uint64_t>(v.payload_, count);
  v.payload_ += payload;
  return v;
}

namespace {
// Appends a fixed-size numeric array in little-endian (copy_to swaps from big-endian).
template <class T>
void append_numbers(const array_ref& a, std::string& payload) {
  std::vector<T> v(a.size());
  a.copy_to(std::span<T>(v)).value();
  payload.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
}  // namespace

value value::copy_of(const value_ref& r) {
  switch (r.type()) {
    case value_type::uint8: return u8(*r.get<uint8_t>());
    case value_type::int8: return i8(*r.get<int8_t>());
    case value_type::uint16: return u16(*r.get<uint16_t>());
    case value_type::int16: return i16(*r.get<int16_t>());
    case value_type::uint32: return u32(*r.get<uint32_t>());
    case value_type::int32: return i32(*r.get<int32_t>());
    case value_type::float32: return f32(*r.get<float>());
    case value_type::boolean: return boolean(*r.get<bool>());
    case value_type::string: return string(*r.get<std::string_view>());
    case value_type::uint64: return u64(*r.get<uint64_t>());
    case value_type::int64: return i64(*r.get<int64_t>());
    case value_type::float64: return f64(*r.get<double>());
    case value_type::array: break;
  }
  auto a = *r.array();
  std::string payload;
  switch (a.element_type()) {
    case value_type::string:
      a.for_each_string([&](uint64_t, std::string_view s) { put_string(payload, s); }).value();
      break;
    case value_type::array:
      for (uint64_t i = 0; i < a.size(); ++i) payload += copy_of(*a.at(i)).payload_;
      break;
    case value_type::boolean:
      for (uint64_t i = 0; i < a.size(); ++i) put_le<uint8_t>(payload, *a.get<bool>(i) ? 1 : 0);
      break;
    case value_type::uint8: append_numbers<uint8_t>(a, payload); break;
    case value_type::int8: append_numbers<int8_t>(a, payload); break;
    case value_type::uint16: append_numbers<uint16_t>(a, payload); break;
    case value_type::int16: append_numbers<int16_t>(a, payload); break;
    case value_type::uint32: append_numbers<uint32_t>(a, payload); break;
    case value_type::int32: append_numbers<int32_t>(a, payload); break;
    case value_type::float32: append_numbers<float>(a, payload); break;
    case value_type::uint64: append_numbers<uint64_t>(a, payload); break;
    case value_type::int64: append_numbers<int64_t>(a, payload); break;
    case value_type::float64: append_numbers<double>(a, payload); break;
  }
  return raw_array(a.element_type(), a.size(), std::move(payload));
}

result<value> value::parse(value_type type, std::string_view text) {
  auto bad = [&](const char* what) {
    return make_error(errc::invalid_argument, no_offset,
                      "cannot parse '" + std::string(text) + "' as " + std::string(value_type_name(type)) + ": " + what);
  };
  auto parse_int = [&](auto& out) -> bool {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && p == text.data() + text.size();
  };
  switch (type) {
#define GGUF_PARSE_INT(VT, T, MAKE)          \
  case value_type::VT: {                     \
    T x{};                                   \
    if (!parse_int(x)) return bad("not an integer in range"); \
    return MAKE(x);                          \
  }
    GGUF_PARSE_INT(uint8, uint8_t, u8)
    GGUF_PARSE_INT(int8, int8_t, i8)
    GGUF_PARSE_INT(uint16, uint16_t, u16)
    GGUF_PARSE_INT(int16, int16_t, i16)
    GGUF_PARSE_INT(uint32, uint32_t, u32)
    GGUF_PARSE_INT(int32, int32_t, i32)
    GGUF_PARSE_INT(uint64, uint64_t, u64)
    GGUF_PARSE_INT(int64, int64_t, i64)
#undef GGUF_PARSE_INT
    case value_type::float32:
    case value_type::float64: {
      double x = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
      if (ec != std::errc() || p != text.data() + text.size()) return bad("not a number");
      if (type == value_type::float64) return f64(x);
      if (std::isfinite(x) && std::fabs(x) > 3.4028234663852886e38) return bad("out of float32 range");
      return f32(static_cast<float>(x));
    }
    case value_type::boolean:
      if (text == "true" || text == "1") return boolean(true);
      if (text == "false" || text == "0") return boolean(false);
      return bad("expected true, false, 1 or 0");
    case value_type::string:
      return string(text);
    case value_type::array:
      return bad("arrays cannot be given as text");
  }
  return bad("unknown type");
}

// ---- writer ----

writer writer::from_file(const file& f) {
  writer_options o;
  o.version = f.version() == 1 ? 3 : f.version();
  o.order = f.byte_order();
  // Keep the source's convention for a file without tensors (see writer_options).
  o.pad_without_tensors = f.tensor_count() > 0 || f.size() >= f.data_offset();
  writer w(o);
  w.source_ = std::make_shared<const file>(f);
  w.kvs_.reserve(f.kv_count());
  for (const auto& kv : f.kvs()) w.kvs_.push_back({std::string(kv.key), value::copy_of(kv.value)});
  for (const auto& t : f.tensors()) {
    tensor_entry e;
    e.name = std::string(t.name);
    e.type = t.type;
    e.ne.assign(t.ne.begin(), t.ne.begin() + t.n_dims);
    e.data = t.data;
    w.tensor_names_.insert(e.name);
    w.tensors_.push_back(std::move(e));
  }
  return w;
}

result<void> writer::set(std::string_view key, value v) {
  if (auto e = key_error(key); e.code != errc::ok) return e;
  if (key == "general.alignment") {
    uint32_t a = 0;
    if (v.type() == value_type::uint32) std::memcpy(&a, v.payload().data(), 4);
    if (v.type() != value_type::uint32 || a == 0 || (a & (a - 1)) != 0) {
      return make_error(errc::invalid_alignment, no_offset, "general.alignment must be a uint32 power of two",
                        std::string(key));
    }
  }
  for (auto& kv : kvs_) {
    if (kv.key == key) {
      kv.val = std::move(v);
      return {};
    }
  }
  kvs_.push_back({std::string(key), std::move(v)});
  return {};
}

bool writer::remove(std::string_view key) {
  auto it = std::find_if(kvs_.begin(), kvs_.end(), [&](const kv_entry& kv) { return kv.key == key; });
  if (it == kvs_.end()) return false;
  kvs_.erase(it);
  return true;
}

const value* writer::find(std::string_view key) const {
  for (const auto& kv : kvs_) {
    if (kv.key == key) return &kv.val;
  }
  return nullptr;
}

uint32_t writer::alignment() const noexcept {
  if (const auto* v = find("general.alignment")) {
    uint32_t a = 0;
    std::memcpy(&a, v->payload().data(), 4);
    return a;
  }
  return default_alignment;
}

result<void> writer::add_tensor(std::string_view name, ggml_type type, std::span<const uint64_t> ne,
                                std::span<const std::byte> data) {
  auto terr = [&](errc c, std::string d) { return make_error(c, no_offset, std::move(d), std::string(name), true); };
  if (name.empty() || name.size() > max_tensor_name) {
    return terr(errc::invalid_tensor_name, "tensor name must be 1..64 bytes");
  }
  if (tensor_names_.count(std::string(name))) return terr(errc::duplicate_tensor, "duplicate tensor name");
  if (ne.size() > max_dims) return terr(errc::too_many_dims, std::to_string(ne.size()) + " dimensions > 4");
  for (uint64_t d : ne) {
    if (d == 0 || d > static_cast<uint64_t>(INT64_MAX)) return terr(errc::invalid_dimension, "dimension out of range");
  }
  auto nbytes = ggml_nbytes(type, ne.data(), static_cast<uint32_t>(ne.size()));
  if (!nbytes) return terr(nbytes.error().code, nbytes.error().detail);
  if (*nbytes != data.size()) {
    return terr(errc::invalid_argument,
                "data has " + std::to_string(data.size()) + " bytes, the shape needs " + std::to_string(*nbytes));
  }
  tensor_entry e;
  e.name = std::string(name);
  e.type = type;
  e.ne.assign(ne.begin(), ne.end());
  e.data = data;
  tensor_names_.insert(e.name);
  tensors_.push_back(std::move(e));
  return {};
}

result<void> writer::add_tensor(std::string_view name, ggml_type type, std::span<const uint64_t> ne,
                                std::vector<std::byte> data) {
  auto owned = std::make_shared<std::vector<std::byte>>(std::move(data));
  auto r = add_tensor(name, type, ne, std::span<const std::byte>(*owned));
  if (r) tensors_.back().owned = std::move(owned);
  return r;
}

template <class Sink>
void writer::emit(Sink& sink) const {
  const bool swap = opts_.order == byte_order::big;
  auto num = [&](auto v) {
    if (swap) {
      if constexpr (sizeof(v) == 4) v = __builtin_bswap32(v);
      else v = __builtin_bswap64(v);
    }
    sink.put(&v, sizeof v);
  };
  auto str = [&](std::string_view s) {
    num(static_cast<uint64_t>(s.size()));
    sink.put(s.data(), s.size());
  };
  const uint64_t align = alignment();
  uint64_t pos = 0;
  sink.put("GGUF", 4);
  num(static_cast<uint32_t>(opts_.version));
  num(static_cast<uint64_t>(tensors_.size()));
  num(static_cast<uint64_t>(kvs_.size()));
  pos = 24;
  for (const auto& kv : kvs_) {
    str(kv.key);
    num(static_cast<uint32_t>(kv.val.type()));
    put_payload(sink, kv.val.type(), kv.val.payload().data(), swap);
    pos += 8 + kv.key.size() + 4 + kv.val.payload().size();
  }
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    str(t.name);
    num(static_cast<uint32_t>(t.ne.size()));
    for (uint64_t d : t.ne) num(d);
    num(static_cast<uint32_t>(t.type));
    num(offset);
    pos += 8 + t.name.size() + 4 + 8 * t.ne.size() + 4 + 8;
    offset += (t.data.size() + align - 1) / align * align;
  }
  if (!tensors_.empty() || opts_.pad_without_tensors) sink.zeros((align - pos % align) % align);
  for (const auto& t : tensors_) {
    sink.tensor(t.data);
    sink.zeros((align - t.data.size() % align) % align);
  }
}

std::vector<std::byte> writer::to_bytes() const {
  std::vector<std::byte> out;
  vector_sink sink{out};
  emit(sink);
  return out;
}

uint64_t writer::file_size() const noexcept {
  count_sink c;
  emit(c);
  return c.n;
}

uint64_t writer::metadata_end() const noexcept {
  // emit() uses zeros() only for padding: the first zeros() or tensor() ends the metadata.
  struct end_sink : count_sink {
    bool done = false;
    uint64_t at = 0;
    void mark() {
      if (!done) at = n;
      done = true;
    }
    void zeros(size_t k) {
      mark();
      n += k;
    }
    void tensor(std::span<const std::byte> d) {
      mark();
      n += d.size();
    }
  } c;
  emit(c);
  return c.done ? c.at : c.n;
}

uint64_t writer::data_offset() const noexcept {
  struct header_sink : count_sink {
    bool done = false;
    uint64_t at = 0;
    void tensor(std::span<const std::byte>) {
      if (!done) at = n;
      done = true;
    }
  } c;
  emit(c);
  return c.done ? c.at : c.n;
}

std::vector<std::byte> writer::metadata_bytes() const {
  std::vector<std::byte> out;
  struct meta_sink {
    std::vector<std::byte>& out;
    bool stop = false;
    void put(const void* p, size_t n) {
      if (stop) return;
      auto* b = static_cast<const std::byte*>(p);
      out.insert(out.end(), b, b + n);
    }
    void zeros(size_t n) {
      if (!stop) out.insert(out.end(), n, std::byte{0});
    }
    void tensor(std::span<const std::byte>) { stop = true; }
  } sink{out};
  emit(sink);
  return out;
}

result<void> writer::write_to(safe_output& out) const {
  output_sink sink{out};
  int fd = source_ ? open_same_file(*source_) : -1;
  if (fd >= 0) {
    sink.src_fd = fd;
    sink.src_base = source_->bytes().data();
    sink.src_size = source_->bytes().size();
  }
  emit(sink);
  if (fd >= 0) ::close(fd);
  // safe_output keeps the first error: an empty write reports it.
  return out.write(std::span<const std::byte>{});
}

result<void> writer::write_file(const std::filesystem::path& path, const output_options& opts) const {
  output_options o = opts;
  if (o.expected_size == 0) o.expected_size = file_size();
  auto out = safe_output::create(path, o);
  if (!out) return out.error();
  if (auto r = write_to(*out); !r) return r;
  return out->commit();
}

}  // namespace gguf
