// Freeing values one level at a time (Python's trashcan) and the recursion limit of the
// engine's walks over values (value.h: release_values, nesting_guard).
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja/runtime.h"
#include "chat/jinja/value.h"

namespace gguf::jinja {

namespace {
thread_local std::vector<value>* g_dying = nullptr;  // the release in progress on this thread
thread_local int g_nesting = 0;


// Moves `v` to the release in progress, or becomes the release: values are destroyed here
// one at a time, and what their destructors hand back is queued, not destroyed inside them.
template <class F>
void release(F&& each) noexcept {
  try {
    if (g_dying) {
      each(*g_dying);
      return;
    }
    std::vector<value> dying;
    g_dying = &dying;
    each(dying);
    while (!dying.empty()) {
      value v = std::move(dying.back());
      dying.pop_back();
    }  // v's destructor may queue more
    g_dying = nullptr;
  } catch (...) {  // out of memory for the queue: the rest is destroyed recursively, as before
    g_dying = nullptr;
  }
}
}  // namespace

bool holds_values(const value& v) noexcept {
  switch (v.type()) {
    case kind::list:
    case kind::tuple:
    case kind::dict:
    case kind::ns:
    case kind::object: return v.identity() != nullptr;
    default: return false;
  }
}

void release_values(std::vector<value>& held) noexcept {
  release([&](std::vector<value>& q) {
    for (auto& v : held)
      if (holds_values(v)) q.push_back(std::move(v));
  });
}
void release_values(std::vector<std::pair<value, value>>& held) noexcept {
  release([&](std::vector<value>& q) {
    for (auto& [k, v] : held) {
      if (holds_values(k)) q.push_back(std::move(k));
      if (holds_values(v)) q.push_back(std::move(v));
    }
  });
}
void release_values(value& held) noexcept {
  if (!holds_values(held)) return;
  release([&](std::vector<value>& q) { q.push_back(std::move(held)); });
}

namespace {
thread_local int g_shallow = 0;
}
bool detail::shallow_release_enter() noexcept {
  if (g_shallow >= 64) return false;
  ++g_shallow;
  return true;
}
void detail::shallow_release_leave() noexcept { --g_shallow; }

nesting_guard::nesting_guard(const char* what) {
  if (g_nesting >= 1000) throw raised(std::string("maximum recursion depth exceeded") + what);
  ++g_nesting;
}
nesting_guard::~nesting_guard() { --g_nesting; }

}  // namespace gguf::jinja
