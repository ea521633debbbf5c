// The engine's entry points (jinja.h): parse a template into a program (the parser,
// then each name's global default), and render a program with a context under limits.
#include "chat/jinja/runtime.h"

namespace gguf::jinja {

using namespace detail;

result<program> parse(std::string_view source, const options& opts) {
  auto prog = std::make_shared<program_impl>();
  prog->source_size = source.size();
  auto b = parse_body_of(source, opts, *prog);
  if (!b) return b.error();
  prog->root = std::move(*b);
  prog->defaults.reserve(prog->symbols.size());
  for (const auto& n : prog->symbols) {
    const value* g = find_global(n);
    prog->defaults.push_back(g ? *g : value::undefined("'" + n + "' is undefined"));
  }
  return program(std::move(prog));
}

result<std::string> render(const program& prog, const value& context, const limits& lim) {
  return render(prog, context, lim, nullptr);
}

result<std::string> render(const program& prog, const value& context, const limits& lim, usage* track) {
  if (!prog.impl()) return make_error(errc::invalid_argument, no_offset, "render of an empty program");
  interp in(*prog.impl(), context, lim);
  in.set_usage(track);
  growth_scope scope(in);
  try {
    return in.run();
  } catch (const raised& r) {
    return make_error(r.code, no_offset, r.msg);
  } catch (const std::bad_alloc&) {
    return make_error(errc::limit_exceeded, no_offset, "out of memory");
  } catch (const std::exception& e) {
    // any other exception is the engine's own defect; the render fails, the process goes on
    return make_error(errc::template_error, no_offset, std::string("internal error: ") + e.what());
  }
}

}  // namespace gguf::jinja
