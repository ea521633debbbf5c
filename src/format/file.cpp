// gguf::file and the value views: accessors over a parsed, validated file.
#include "gguf/file.h"

#include "format/file_impl.h"
#include "format/journal.h"
#include "io/http_source.h"
#include "io/mapped_file.h"

#include <algorithm>
#include <optional>
#include <thread>

namespace gguf {
namespace detail {

std::string_view read_validated_string(const file_impl* f, uint64_t& pos) noexcept {
  uint64_t len = f->load_len(pos);
  pos += f->len_width();
  std::string_view s(reinterpret_cast<const char*>(f->at(pos)), len);
  pos += len;
  return s;
}

const std::byte* host_order_strings(const file_impl* f) noexcept {
  return f->version != 1 && !f->swap ? f->at(0) : nullptr;
}

uint64_t file_impl::value_size(value_type t, uint64_t off) const noexcept {
  switch (t) {
    case value_type::string:
      return len_width() + load_len(off);
    case value_type::array: {
      auto elem = static_cast<value_type>(load<uint32_t>(off));
      uint64_t count = load_len(off + 4);
      uint64_t head = 4 + len_width();
      if (uint64_t sz = value_type_size(elem); sz != 0) return head + count * sz;
      uint64_t pos = off + head;
      for (uint64_t i = 0; i < count; ++i) pos += value_size(elem, pos);
      return pos - off;
    }
    default:
      return value_type_size(t);
  }
}

const std::vector<uint64_t>& file_impl::element_offsets(const array_ref&, uint64_t data, uint64_t count,
                                                        value_type elem) const {
  std::lock_guard lock(index_mutex);
  auto& slot = array_index[data];
  if (!slot) {
    auto offsets = std::make_unique<std::vector<uint64_t>>();
    offsets->reserve(count);
    uint64_t pos = data;
    for (uint64_t i = 0; i < count; ++i) {
      offsets->push_back(pos);
      pos += value_size(elem, pos);
    }
    slot = std::move(offsets);
  }
  return *slot;
}

}  // namespace detail

namespace {

gguf::error mismatch(uint64_t off, value_type want, value_type have) {
  return make_error(errc::type_mismatch, off,
                    "expected " + std::string(value_type_name(want)) + ", found " +
                        std::string(value_type_name(have)));
}

template <class T>
T load_scalar(const detail::file_impl* f, uint64_t off) {
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<uint8_t>(*f->at(off)) != 0;
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    return detail::read_validated_string(f, off);
  } else {
    return f->load<T>(off);
  }
}

/// The integer at `off` loaded as its own type (`t`, one of the eight integer types) and
/// passed to `convert`, which returns it as R or an error; type_mismatch for other types.
template <class R, class F>
result<R> load_integer(const detail::file_impl* f, uint64_t off, value_type t, F&& convert) {
  switch (t) {
    case value_type::uint8: return convert(f->load<uint8_t>(off));
    case value_type::uint16: return convert(f->load<uint16_t>(off));
    case value_type::uint32: return convert(f->load<uint32_t>(off));
    case value_type::uint64: return convert(f->load<uint64_t>(off));
    case value_type::int8: return convert(f->load<int8_t>(off));
    case value_type::int16: return convert(f->load<int16_t>(off));
    case value_type::int32: return convert(f->load<int32_t>(off));
    case value_type::int64: return convert(f->load<int64_t>(off));
    default: return make_error(errc::type_mismatch, off, "expected an integer, found " + std::string(value_type_name(t)));
  }
}

}  // namespace

// ---- value_ref ----

template <class T>
result<T> value_ref::get() const {
  if (type_ != value_type_of<T>()) return mismatch(offset_, value_type_of<T>(), type_);
  return load_scalar<T>(f_, offset_);
}

result<uint64_t> value_ref::to_uint64() const {
  return load_integer<uint64_t>(f_, offset_, type_, [&](auto v) -> result<uint64_t> {
    if constexpr (std::is_signed_v<decltype(v)>) {
      if (v < 0) return make_error(errc::out_of_range, offset_, "negative value where unsigned expected");
    }
    return static_cast<uint64_t>(v);
  });
}

result<int64_t> value_ref::to_int64() const {
  return load_integer<int64_t>(f_, offset_, type_, [&](auto v) -> result<int64_t> {
    if constexpr (std::is_same_v<decltype(v), uint64_t>) {
      if (v > static_cast<uint64_t>(INT64_MAX)) return make_error(errc::out_of_range, offset_, "value above INT64_MAX");
    }
    return static_cast<int64_t>(v);
  });
}

result<double> value_ref::to_double() const {
  switch (type_) {
    case value_type::float32: return double{f_->load<float>(offset_)};
    case value_type::float64: return f_->load<double>(offset_);
    case value_type::uint64: return static_cast<double>(f_->load<uint64_t>(offset_));
    default: {
      auto i = to_int64();
      if (!i) return make_error(errc::type_mismatch, offset_, "expected a number, found " + std::string(value_type_name(type_)));
      return static_cast<double>(*i);
    }
  }
}

result<array_ref> value_ref::array() const {
  if (type_ != value_type::array) return mismatch(offset_, value_type::array, type_);
  auto elem = static_cast<value_type>(f_->load<uint32_t>(offset_));
  uint64_t count = f_->load_len(offset_ + 4);
  return array_ref(f_, elem, count, offset_ + 4 + f_->len_width());
}

// ---- array_ref ----

uint64_t array_ref::element_offset(uint64_t i) const {
  if (uint64_t sz = value_type_size(elem_); sz != 0) return data_ + i * sz;
  return f_->element_offsets(*this, data_, count_, elem_)[i];
}

uint32_t array_ref::nesting() const {
  if (elem_ != value_type::array) return 1;
  if (count_ == 0) return 2;
  return 1 + at(0).value().array().value().nesting();
}

value_type array_ref::innermost_type() const {
  if (elem_ != value_type::array || count_ == 0) return elem_;
  return at(0).value().array().value().innermost_type();
}

template <class T>
result<T> array_ref::get(uint64_t i) const {
  if (elem_ != value_type_of<T>()) return mismatch(data_, value_type_of<T>(), elem_);
  if (i >= count_) {
    return make_error(errc::out_of_range, data_,
                      "index " + std::to_string(i) + " outside an array of " + std::to_string(count_));
  }
  return load_scalar<T>(f_, element_offset(i));
}

result<value_ref> array_ref::at(uint64_t i) const {
  if (i >= count_) {
    return make_error(errc::out_of_range, data_,
                      "index " + std::to_string(i) + " outside an array of " + std::to_string(count_));
  }
  return value_ref(f_, elem_, element_offset(i));
}

std::span<const std::byte> array_ref::raw() const {
  uint64_t sz = value_type_size(elem_);
  if (sz == 0) return {};
  return {f_->at(data_), count_ * sz};
}

template <class T>
result<void> array_ref::copy_to(std::span<T> out) const {
  if (elem_ != value_type_of<T>()) return mismatch(data_, value_type_of<T>(), elem_);
  if (out.size() != count_) {
    return make_error(errc::invalid_argument, data_,
                      "output of " + std::to_string(out.size()) + " elements for an array of " + std::to_string(count_));
  }
  if constexpr (std::is_same_v<T, bool>) {
    for (uint64_t i = 0; i < count_; ++i) out[i] = static_cast<uint8_t>(*f_->at(data_ + i)) != 0;
  } else {
    if (count_ != 0) std::memcpy(out.data(), f_->at(data_), count_ * sizeof(T));
    if (f_->swap && sizeof(T) > 1) {
      for (auto& v : out) v = detail::load_raw<T>(reinterpret_cast<const std::byte*>(&v), true);
    }
  }
  return {};
}

template <class T>
result<std::vector<T>> array_ref::to_vector() const {
  if (elem_ != value_type_of<T>()) return mismatch(data_, value_type_of<T>(), elem_);
  std::vector<T> out(count_);
  if constexpr (std::is_same_v<T, bool>) {
    for (uint64_t i = 0; i < count_; ++i) out[i] = static_cast<uint8_t>(*f_->at(data_ + i)) != 0;
  } else {
    auto r = copy_to(std::span<T>(out));
    if (!r) return r.error();
  }
  return out;
}

#define GGUF_INSTANTIATE(T)                                          \
  template result<T> value_ref::get<T>() const;                      \
  template result<T> array_ref::get<T>(uint64_t) const;
GGUF_INSTANTIATE(uint8_t)
GGUF_INSTANTIATE(int8_t)
GGUF_INSTANTIATE(uint16_t)
GGUF_INSTANTIATE(int16_t)
GGUF_INSTANTIATE(uint32_t)
GGUF_INSTANTIATE(int32_t)
GGUF_INSTANTIATE(float)
GGUF_INSTANTIATE(bool)
GGUF_INSTANTIATE(std::string_view)
GGUF_INSTANTIATE(uint64_t)
GGUF_INSTANTIATE(int64_t)
GGUF_INSTANTIATE(double)
#undef GGUF_INSTANTIATE
#define GGUF_INSTANTIATE_NUM(T)                                       \
  template result<void> array_ref::copy_to<T>(std::span<T>) const;    \
  template result<std::vector<T>> array_ref::to_vector<T>() const;
GGUF_INSTANTIATE_NUM(uint8_t)
GGUF_INSTANTIATE_NUM(int8_t)
GGUF_INSTANTIATE_NUM(uint16_t)
GGUF_INSTANTIATE_NUM(int16_t)
GGUF_INSTANTIATE_NUM(uint32_t)
GGUF_INSTANTIATE_NUM(int32_t)
GGUF_INSTANTIATE_NUM(float)
GGUF_INSTANTIATE_NUM(uint64_t)
GGUF_INSTANTIATE_NUM(int64_t)
GGUF_INSTANTIATE_NUM(double)
#undef GGUF_INSTANTIATE_NUM
template result<std::vector<bool>> array_ref::to_vector<bool>() const;

// ---- file ----

namespace {
result<file> parse_source(std::unique_ptr<io::byte_source> src, std::string name, const reader_limits& limits,
                          result<file> (*make)(std::shared_ptr<const detail::file_impl>),
                          pending_edit pending = pending_edit::none) {
  auto impl = std::make_shared<detail::file_impl>();
  impl->path = std::move(name);
  impl->pending = pending;
  impl->bytes = src->bytes();
  impl->source = std::move(src);
  auto r = detail::parse(std::move(impl), limits);
  if (!r) return r.error();
  // a remote file's parsed metadata goes to its cache
  if ((*r)->source) (*r)->source->metadata_parsed((*r)->metadata_end);
  return make(std::move(*r));
}
}  // namespace

result<file> file::make(std::shared_ptr<const detail::file_impl> impl) { return file(std::move(impl)); }

result<file> file::open(const std::filesystem::path& path, const reader_limits& limits) {
  auto m = io::mapped_file::open(path);
  if (!m) return m.error();
  // An interrupted in-place edit: read the state its journal makes consistent (issue 29,
  // item 3: readers never write; the next edit finishes the journal).
  auto probe = detail::probe_journal(path, m->stat_info(), m->bytes());
  if (!probe) return probe.error();
  if (probe->state == pending_edit::applied && !probe->journal.payload.empty())
    if (auto r = m->overlay(probe->journal.offset, probe->journal.payload); !r) return r.error();
  return parse_source(std::make_unique<io::mapped_file>(std::move(*m)), path.string(), limits, &file::make,
                      probe->state);
}

result<file> file::open_url(const std::string& url, const remote_options& options, const reader_limits& limits) {
  if (is_hub_name(url)) {
    auto resolved = resolve_hub_name(url, options);
    if (!resolved) return resolved.error();
    return open_url(*resolved, options, limits);
  }
  auto s = io::http_source::open(url, options);
  if (!s) return s.error();
  return parse_source(std::move(*s), url, limits, &file::make);
}

result<file> file::open_any(const std::string& path_or_url, const remote_options& options, const reader_limits& limits) {
  if (gguf::is_remote(path_or_url)) return open_url(path_or_url, options, limits);
  return open(path_or_url, limits);
}

std::vector<result<file>> file::open_all(std::span<const std::string> paths_or_urls, const remote_options& options,
                                         const reader_limits& limits) {
  std::vector<std::optional<result<file>>> slots(paths_or_urls.size());
  {
    std::vector<std::jthread> threads;
    threads.reserve(paths_or_urls.size());
    for (size_t i = 0; i < paths_or_urls.size(); ++i)
      threads.emplace_back([&, i] { slots[i].emplace(open_any(paths_or_urls[i], options, limits)); });
  }
  std::vector<result<file>> out;
  out.reserve(slots.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

result<file> file::from_bytes(std::span<const std::byte> bytes, const reader_limits& limits, std::string name) {
  return parse_source(std::make_unique<io::buffer_source>(bytes), std::move(name), limits, &file::make);
}

result<file> file::from_buffer(std::vector<std::byte> bytes, const reader_limits& limits, std::string name) {
  return parse_source(std::make_unique<io::buffer_source>(std::move(bytes)), std::move(name), limits, &file::make);
}

bool file::is_remote() const noexcept { return impl_->source && impl_->source->remote(); }


namespace {
// The source holding a view: this file's own, or, for a view built over other files (a
// split model's tensors), the source of the shard whose bytes hold it; null for local bytes.
io::byte_source* holder(const detail::file_impl& f, std::span<const std::byte> v) {
  const auto inside = [&](const io::byte_source* s) {
    const auto b = s->bytes();
    return v.data() >= b.data() && v.size() <= b.size() && v.data() - b.data() <= static_cast<ptrdiff_t>(b.size() - v.size());
  };
  if (f.source && inside(f.source.get())) return f.source.get();
  for (auto* s : f.part_sources)
    if (s && inside(s)) return s;
  return nullptr;
}
}  // namespace

result<void> file::fetch(uint64_t offset, uint64_t size) const {
  io::byte_range r{offset, offset + size};
  if (offset > impl_->bytes.size() || size > impl_->bytes.size() - offset) {
    return make_error(errc::out_of_range, offset, "bytes [" + std::to_string(offset) + ", +" + std::to_string(size) +
                                                      ") outside a file of " + std::to_string(impl_->bytes.size()));
  }
  if (!impl_->source) return {};
  return impl_->source->fetch({&r, 1});
}

result<void> file::fetch(std::span<const std::byte> view) const {
  std::span<const std::span<const std::byte>> one(&view, 1);
  return fetch(one);
}

result<void> file::fetch(std::span<const std::span<const std::byte>> views) const {
  // Grouped by the file that holds them, as ranges of that file.
  std::vector<std::pair<io::byte_source*, std::vector<io::byte_range>>> by_source;
  for (auto v : views) {
    if (v.empty()) continue;
    auto* src = holder(*impl_, v);
    if (!src) continue;  // local bytes
    const uint64_t off = static_cast<uint64_t>(v.data() - src->bytes().data());
    auto it = std::find_if(by_source.begin(), by_source.end(), [&](const auto& e) { return e.first == src; });
    if (it == by_source.end()) it = by_source.insert(by_source.end(), {src, {}});
    it->second.emplace_back(off, off + v.size());
  }
  for (auto& [src, ranges] : by_source)
    if (auto r = src->fetch(ranges); !r) return r;
  return {};
}

result<void> file::fetch(std::span<const std::pair<uint64_t, uint64_t>> ranges) const {
  if (!impl_->source) return {};
  return impl_->source->fetch(ranges);
}

bool file::resident(uint64_t offset, uint64_t size) const noexcept {
  if (!impl_->source) return offset <= impl_->bytes.size() && size <= impl_->bytes.size() - offset;
  return impl_->source->resident(offset, size);
}

void file::release(std::span<const std::byte> view) const noexcept {
  if (view.empty()) return;
  if (auto* src = holder(*impl_, view)) src->release(static_cast<uint64_t>(view.data() - src->bytes().data()), view.size());
}

transfer_stats file::transfer() const noexcept { return impl_->source ? impl_->source->stats() : transfer_stats{}; }
std::optional<file_identity> file::identity() const noexcept {
  // (the bytes of an applied journal are not the file's: no identity to key a cache on)
  if (!impl_->source || impl_->pending == pending_edit::applied) return std::nullopt;
  return impl_->source->identity();
}

pending_edit file::interrupted_edit() const noexcept {
  return impl_->pending;
}

const std::string& file::path() const noexcept { return impl_->path; }
uint32_t file::version() const noexcept { return impl_->version; }
gguf::byte_order file::byte_order() const noexcept { return impl_->order; }
uint32_t file::alignment() const noexcept { return impl_->alignment; }
uint64_t file::data_offset() const noexcept { return impl_->data_offset; }
uint64_t file::metadata_end() const noexcept { return impl_->metadata_end; }
uint64_t file::size() const noexcept { return impl_->bytes.size(); }
std::span<const std::byte> file::bytes() const noexcept { return impl_->bytes; }

size_t file::kv_count() const noexcept { return impl_->kvs.size(); }
const kv_ref& file::kv(size_t i) const { return impl_->kvs.at(i); }
std::span<const kv_ref> file::kvs() const noexcept { return impl_->kvs; }

std::optional<value_ref> file::find(std::string_view key) const {
  auto it = impl_->kv_index.find(key);
  if (it == impl_->kv_index.end()) return std::nullopt;
  return impl_->kvs[it->second].value;
}

result<value_ref> file::get(std::string_view key) const {
  auto v = find(key);
  if (!v) return make_error(errc::key_not_found, no_offset, "key not found", std::string(key));
  return *v;
}

namespace {
template <class R>
R with_key(R r, std::string_view key) {
  if (!r) {
    auto e = r.error();
    e.subject = std::string(key);
    return e;
  }
  return r;
}
}  // namespace

result<std::string_view> file::get_string(std::string_view key) const {
  auto v = get(key);
  if (!v) return v.error();
  return with_key(v->get<std::string_view>(), key);
}

result<uint64_t> file::get_uint(std::string_view key) const {
  auto v = get(key);
  if (!v) return v.error();
  return with_key(v->to_uint64(), key);
}

result<array_ref> file::get_array(std::string_view key) const {
  auto v = get(key);
  if (!v) return v.error();
  return with_key(v->array(), key);
}

size_t file::tensor_count() const noexcept { return impl_->tensors.size(); }
std::span<const tensor_info> file::tensors() const noexcept { return impl_->tensors; }

const tensor_info* file::find_tensor(std::string_view name) const {
  auto it = impl_->tensor_index.find(name);
  return it == impl_->tensor_index.end() ? nullptr : &impl_->tensors[it->second];
}

result<const tensor_info*> file::get_tensor(std::string_view name) const {
  if (const auto* t = find_tensor(name)) return t;
  return make_error(errc::tensor_not_found, no_offset, "tensor not found", std::string(name), true);
}

}  // namespace gguf
