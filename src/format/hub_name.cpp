// Models by hub name (gguf/remote.h): hf://OWNER/REPO[@REV]/FILE.gguf and
// hf://OWNER/REPO[@REV][:QUANT], resolved to a file URL the way llama-server's -hf
// resolves them (llama.cpp common/download.cpp: find_best_model, get_split_files;
// common/hf-cache.cpp: the file listing), through the Hub's model API once per process.
// Belongs to the io floor (next to the HTTP client) once that floor exists.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "format/http_source.h"
#include "gguf/remote.h"

namespace gguf {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with_icase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && upper(s.substr(0, prefix.size())) == upper(prefix);
}

// Errors name the cause only: the caller prints the name the user gave before it.
gguf::error bad_name(std::string_view, const std::string& what) { return make_error(errc::io_error, no_offset, what); }

// OWNER and REPO as the Hub allows them: letters, digits, '-', '_', '.', not "." or "..".
bool valid_part(std::string_view s) {
  if (s.empty() || s == "." || s == ".." || s.size() > 96) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// A revision: a branch, tag or commit, '/' spelled %2F; no spaces or controls.
bool valid_revision(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '%';
  });
}

bool valid_quant(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

// A path in the repository: segments without "." / "..", no controls or backslashes.
bool valid_path(std::string_view s) {
  if (s.empty() || s.front() == '/' || s.back() == '/') return false;
  size_t start = 0;
  for (;;) {
    size_t end = s.find('/', start);
    std::string_view seg = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == '\\'; });
}

// Percent-encodes a repository path for a URL ('/' kept).
std::string encode_path(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// llama.cpp's get_gguf_split_info: the name without ".gguf" and "-NNNNN-of-NNNNN", its
// quant tag (the last [-.]-separated run of letters, digits and '_', upper case), and
// the shard's index and count (1 and 1 for a single file).
struct split_name {
  std::string prefix, tag;
  int index = 1, count = 1;
  bool gguf = false;
};

split_name split_of(std::string_view path) {
  split_name s;
  if (path.size() < 5 || path.substr(path.size() - 5) != ".gguf") return s;
  s.gguf = true;
  std::string_view p = path.substr(0, path.size() - 5);
  // "-NNNNN-of-NNNNN" at the end
  auto digits = [](std::string_view d) {
    return d.size() == 5 && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (p.size() > 15 && p[p.size() - 15] == '-' && upper(p.substr(p.size() - 9, 4)) == "-OF-" &&
      digits(p.substr(p.size() - 14, 5)) && digits(p.substr(p.size() - 5))) {
    s.index = std::stoi(std::string(p.substr(p.size() - 14, 5)));
    s.count = std::stoi(std::string(p.substr(p.size() - 5)));
    p = p.substr(0, p.size() - 15);
  }
  s.prefix = std::string(p);
  size_t i = p.size();
  while (i > 0 && (std::isalnum(static_cast<unsigned char>(p[i - 1])) || p[i - 1] == '_')) --i;
  if (i > 0 && i < p.size() && (p[i - 1] == '-' || p[i - 1] == '.')) s.tag = upper(p.substr(i));
  return s;
}

// llama.cpp's gguf_filename_is_model: a .gguf that is not a projector, an importance
// matrix or a draft / speculative head.
bool is_model_file(std::string_view path) {
  if (path.size() < 5 || path.substr(path.size() - 5) != ".gguf") return false;
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  for (std::string_view no : {"mmproj", "imatrix", "mtp-", "eagle3-", "dflash-", "dspark-"})
    if (name.find(no) != std::string_view::npos) return false;
  return true;
}

// `tag` followed by '.' or '-' anywhere in `path`, case-insensitive (llama.cpp: the regex
// TAG[.-] with icase).
bool has_tag(std::string_view path, std::string_view tag) {
  const std::string p = upper(path), t = upper(tag);
  for (size_t at = p.find(t); at != std::string::npos; at = p.find(t, at + 1)) {
    const size_t end = at + t.size();
    if (end < p.size() && (p[end] == '.' || p[end] == '-')) return true;
  }
  return false;
}

std::string endpoint_of_env() {
  for (const char* var : {"GGUF_HF_ENDPOINT", "HF_ENDPOINT"}) {
    const char* e = std::getenv(var);
    if (e && *e) {
      std::string s = e;
      while (!s.empty() && s.back() == '/') s.pop_back();
      return s;
    }
  }
  return "https://huggingface.co";
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// The listing of one repository at one revision: the commit and the file paths.
struct listing {
  std::string sha;
  std::vector<std::string> files;
};

result<listing> parse_listing(const std::string& body, const std::string& what) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("siblings") || !j["siblings"].is_array())
    return make_error(errc::io_error, no_offset, what + ": the model API's answer has no file list (\"siblings\")");
  listing l;
  if (j.contains("sha") && j["sha"].is_string()) l.sha = j["sha"].get<std::string>();
  if (!valid_revision(l.sha)) l.sha.clear();
  for (const auto& s : j["siblings"]) {
    if (!s.is_object() || !s.contains("rfilename") || !s["rfilename"].is_string()) continue;
    std::string p = s["rfilename"].get<std::string>();
    if (valid_path(p)) l.files.push_back(std::move(p));
  }
  return l;
}

// Process-wide memo: one API request per repository and revision per run.
std::mutex memo_mu;
std::map<std::string, listing>& memo() {
  static std::map<std::string, listing> m;
  return m;
}

// GET ENDPOINT/api/models/REPO/revision/REV (revalidated with If-None-Match when the
// options' cache folder holds an earlier answer).
result<listing> fetch_listing(const hub_name& n, const std::string& endpoint, const remote_options& o,
                              const std::string& shown) {
  const std::string key = endpoint + "\n" + n.repo + "\n" + n.revision;
  {
    std::lock_guard lock(memo_mu);
    if (auto it = memo().find(key); it != memo().end()) return it->second;
  }
  const std::string url = endpoint + "/api/models/" + n.repo + "/revision/" + n.revision;
  namespace fs = std::filesystem;
  fs::path cache_file;
  std::string cached_etag, cached_body;
  if (!o.cache_dir.empty()) {
    char name[40];
    std::snprintf(name, sizeof name, "hub-%016llx.json", static_cast<unsigned long long>(fnv1a(key)));
    cache_file = fs::path(o.cache_dir) / name;
    std::ifstream in(cache_file, std::ios::binary);
    std::string first;
    if (in && std::getline(in, first) && first == key.substr(0, key.find('\n')) + " " + n.repo + " " + n.revision &&
        std::getline(in, cached_etag)) {
      std::ostringstream rest;
      rest << in.rdbuf();
      cached_body = rest.str();
    }
  }
  std::vector<std::string> extra = {"Accept: application/json"};
  if (!cached_etag.empty() && !cached_body.empty()) extra.push_back("If-None-Match: " + cached_etag);
  auto r = detail::http_get_small(url, o, extra);
  if (!r) {
    auto e = r.error();
    e.detail = "the model API: " + e.detail;
    return e;
  }
  std::string body;
  if (r->status == 304 && !cached_body.empty()) {
    body = std::move(cached_body);
  } else if (r->status == 200) {
    body = std::move(r->body);
  } else if (r->status == 401 || r->status == 403) {
    return bad_name(shown, "access denied by the model API (HTTP " + std::to_string(r->status) + "): " + n.repo +
                               " is private or gated; give a token with --hf-token or the HF_TOKEN variable");
  } else if (r->status == 404) {
    return bad_name(shown, "no repository " + n.repo + " at revision " + n.revision + " (HTTP 404 from " + url + ")");
  } else {
    return bad_name(shown, "the model API answered HTTP " + std::to_string(r->status) + " (" + url + ")");
  }
  auto l = parse_listing(body, std::string(shown));
  if (!l) return l.error();
  if (!cache_file.empty() && r->status == 200 && !r->etag.empty()) {
    std::error_code ec;
    fs::create_directories(cache_file.parent_path(), ec);
    const fs::path tmp = cache_file.string() + ".tmp" + std::to_string(fnv1a(url) ^ uint64_t(std::rand()));
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << endpoint << " " << n.repo << " " << n.revision << "\n" << r->etag << "\n" << body;
    }
    fs::rename(tmp, cache_file, ec);
    if (ec) fs::remove(tmp, ec);
  }
  std::lock_guard lock(memo_mu);
  memo()[key] = *l;
  return *l;
}

}  // namespace

bool is_hub_name(std::string_view path) noexcept { return starts_with_icase(path, "hf://"); }

bool is_remote(std::string_view path) noexcept { return is_url(path) || is_hub_name(path); }

std::string hub_endpoint() { return endpoint_of_env(); }

result<hub_name> parse_hub_name(std::string_view name) {
  if (!is_hub_name(name)) return bad_name(name, "not a hub name (hf://OWNER/REPO...)");
  std::string_view rest = name.substr(5);
  const std::string forms = "expected hf://OWNER/REPO[@REV]/FILE.gguf or hf://OWNER/REPO[@REV][:QUANT]";
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return bad_name(name, forms);
  hub_name n;
  const std::string_view owner = rest.substr(0, slash);
  rest = rest.substr(slash + 1);
  const size_t end = rest.find('/');
  std::string_view repo = rest.substr(0, end);
  if (end != std::string_view::npos) n.file = std::string(rest.substr(end + 1));
  if (auto colon = repo.find(':'); colon != std::string_view::npos) {
    if (!n.file.empty()) return bad_name(name, "a quant tag and a file exclude each other; " + forms);
    n.quant = std::string(repo.substr(colon + 1));
    repo = repo.substr(0, colon);
    if (!valid_quant(n.quant)) return bad_name(name, "bad quant tag '" + n.quant + "'; " + forms);
  }
  n.revision = "main";
  if (auto at = repo.find('@'); at != std::string_view::npos) {
    n.revision = std::string(repo.substr(at + 1));
    repo = repo.substr(0, at);
    if (!valid_revision(n.revision)) return bad_name(name, "bad revision '" + n.revision + "'; " + forms);
  }
  if (!valid_part(owner) || !valid_part(repo)) return bad_name(name, forms);
  n.repo = std::string(owner) + "/" + std::string(repo);
  if (end != std::string_view::npos && (!valid_path(n.file) || !n.file.ends_with(".gguf")))
    return bad_name(name, "the file must be a path in the repository ending in .gguf; " + forms);
  return n;
}

result<std::vector<std::string>> select_hub_files(std::span<const std::string> files, std::string_view quant) {
  std::vector<std::string_view> tags;
  if (!quant.empty()) tags.push_back(quant);
  else tags = {"Q4_K_M", "Q8_0"};
  const auto first_shard = [](const std::string& f) {
    const auto s = split_of(f);
    return s.count <= 1 || s.index == 1;
  };
  const std::string* primary = nullptr;
  for (std::string_view t : tags) {
    for (const auto& f : files)
      if (is_model_file(f) && has_tag(f, t) && first_shard(f)) {
        primary = &f;
        break;
      }
    if (primary) break;
  }
  if (!primary && quant.empty())
    for (const auto& f : files)
      if (is_model_file(f) && first_shard(f)) {
        primary = &f;
        break;
      }
  if (!primary) {
    std::set<std::string> have;
    for (const auto& f : files)
      if (is_model_file(f)) {
        auto s = split_of(f);
        if (!s.tag.empty()) have.insert(s.tag);
      }
    std::string list;
    for (const auto& t : have) list += (list.empty() ? "" : ", ") + t;
    if (quant.empty()) return make_error(errc::io_error, no_offset, "no GGUF model file");
    return make_error(errc::io_error, no_offset,
                      "no file for quant " + std::string(quant) + "; " +
                          (list.empty() ? std::string("it has no quant-tagged GGUF files") : "its quants: " + list));
  }
  const auto s = split_of(*primary);
  std::vector<std::pair<int, std::string>> set;
  for (const auto& f : files) {
    const auto o = split_of(f);
    if (o.gguf && (s.count <= 1 ? f == *primary : o.count == s.count && o.prefix == s.prefix)) set.emplace_back(o.index, f);
  }
  std::sort(set.begin(), set.end());
  std::vector<std::string> out;
  for (auto& [i, f] : set) out.push_back(std::move(f));
  return out;
}

result<std::string> resolve_hub_name(std::string_view name, const remote_options& options) {
  auto n = parse_hub_name(name);
  if (!n) return n.error();
  const std::string endpoint = hub_endpoint();
  const auto file_url = [&](const std::string& rev, const std::string& path) {
    return endpoint + "/" + n->repo + "/resolve/" + rev + "/" + encode_path(path);
  };
  if (!n->file.empty()) return file_url(n->revision, n->file);
  auto l = fetch_listing(*n, endpoint, options, std::string(name));
  if (!l) return l.error();
  auto picked = select_hub_files(l->files, n->quant);
  if (!picked) {
    auto e = picked.error();
    const auto semi = e.detail.find(';');
    e.detail = semi == std::string::npos ? e.detail + " in " + n->repo
                                         : e.detail.substr(0, semi) + " in " + n->repo + e.detail.substr(semi);
    return e;
  }
  // the commit of the listing, so that every shard comes from the same one
  return file_url(l->sha.empty() ? n->revision : l->sha, picked->front());
}

}  // namespace gguf
