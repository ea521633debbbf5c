// A GGUF file rewritten in the other byte order with its layout kept (gguf/byte_swap.h):
// the header, every key/value and tensor info swapped in place in a copy of the metadata,
// the tensor data swapped block by block through a bounded buffer.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "gguf/byte_swap.h"
#include "io/fd_source.h"

namespace gguf {
namespace {

// Swaps numbers inside the copied metadata `m` (file offsets).
struct meta_swapper {
  std::vector<std::byte>& m;
  uint64_t lw;  // width of counts and lengths: 4 in v1, else 8

  void at(uint64_t off, unsigned width) { std::reverse(m.begin() + off, m.begin() + off + width); }

  void value(value_type t, const value_ref& v) {
    const uint64_t off = v.offset();
    switch (t) {
      case value_type::string: at(off, lw); return;
      case value_type::array: {
        at(off, 4);
        at(off + 4, lw);
        auto a = *v.array();
        const auto elem = a.element_type();
        if (elem == value_type::string) {
          uint64_t pos = a.offset();
          (void)a.for_each_string([&](uint64_t, std::string_view s) {
            at(pos, lw);
            pos += lw + s.size();
          });
          return;
        }
        if (elem == value_type::array) {
          for (uint64_t i = 0; i < a.size(); ++i) value(value_type::array, *a.at(i));
          return;
        }
        const size_t w = value_type_size(elem);
        if (w > 1) {
          for (uint64_t i = 0; i < a.size(); ++i) at(a.offset() + i * w, static_cast<unsigned>(w));
        }
        return;
      }
      default: {
        const size_t w = value_type_size(t);
        if (w > 1) at(off, static_cast<unsigned>(w));
        return;
      }
    }
  }
};

}  // namespace

result<void> write_byte_swapped(const file& f, safe_output& out) {
  const uint64_t lw = f.version() == 1 ? 4 : 8;
  const uint64_t meta_size = std::min<uint64_t>(f.data_offset(), f.size());
  std::vector<std::byte> m(f.bytes().begin(), f.bytes().begin() + static_cast<std::ptrdiff_t>(meta_size));
  meta_swapper s{m, lw};
  s.at(4, 4);       // version
  s.at(8, lw);      // tensor_count
  s.at(8 + lw, lw);  // kv_count
  for (const auto& kv : f.kvs()) {
    s.at(kv.offset, lw);
    s.at(kv.value.offset() - 4, 4);
    s.value(kv.value.type(), kv.value);
  }
  for (const auto& t : f.tensors()) {
    uint64_t pos = t.info_offset;
    s.at(pos, lw);
    pos += lw + t.name.size();
    s.at(pos, 4);
    pos += 4;
    for (uint32_t d = 0; d < t.n_dims; ++d, pos += lw) s.at(pos, lw);
    s.at(pos, 4);
    s.at(pos + 4, 8);
  }
  if (auto r = out.write(m); !r) return r;

  // The data section: tensors in file order, the bytes between them copied as they are.
  io::fd_source src(f.path(), f.bytes());
  std::vector<const tensor_info*> order;
  for (const auto& t : f.tensors()) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  uint64_t pos = meta_size;
  std::vector<std::byte> buf;
  for (const auto* t : order) {
    const uint64_t start = f.data_offset() + t->offset;
    if (auto r = src.copy_to(out, pos, start - pos); !r) return r;
    const auto* tr = ggml_type_traits(t->type);
    if (ggml_swap_layout(t->type)->fields.empty()) {
      if (auto r = src.copy_to(out, start, t->nbytes); !r) return r;
    } else {
      const uint64_t chunk = std::max<uint64_t>(1, (uint64_t{1} << 22) / tr->type_size) * tr->type_size;
      buf.resize(static_cast<size_t>(std::min(chunk, t->nbytes)));
      for (uint64_t done = 0; done < t->nbytes;) {
        const uint64_t n = std::min(chunk, t->nbytes - done);
        std::span<std::byte> b(buf.data(), static_cast<size_t>(n));
        if (auto r = src.read(start + done, b); !r) return r;
        if (auto r = swap_blocks(t->type, b); !r) {
          auto e = r.error();
          e.subject = std::string(t->name);
          e.subject_is_tensor = true;
          return e;
        }
        if (auto r = out.write(b); !r) return r;
        done += n;
      }
    }
    pos = start + t->nbytes;
  }
  if (pos < f.size()) {
    if (auto r = src.copy_to(out, pos, f.size() - pos); !r) return r;
  }
  return {};
}

}  // namespace gguf
