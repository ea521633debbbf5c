// gguf hash FILE [--xxh64] [--sha1] [--sha256] [--xxh3] [--uuid] [--all] [--no-layer]
//                [--check MANIFEST] [--threads N] [--json]
// Output line for line as llama.cpp's gguf-hash (examples/gguf-hash, release v0.5.0):
// per tensor `TYPE  HEX  FILE:TENSOR` (xxh64, sha1, sha256), then the whole-model lines,
// then the UUIDv5; with --check each line ends in `  -  Ok|Mismatch|Not Found` and the
// exit code is gguf-hash's (0 success, 1 failure or mismatch, 3 manifest without an entry
// for this file, 4 manifest without a known hash type, 5 manifest unreadable).
// Beyond gguf-hash: --xxh3, --json, parallel hashing, a split model hashed as its merged
// file, and --check matching a manifest written for the same file in another folder.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "commands.h"
#include "gguf/remote.h"
#include "tensor_hash.h"

namespace gguf::cli::cmd_hash {
namespace {

// gguf-hash's exit codes in --check mode.
enum check_exit : int { check_ok = 0, check_failure = 1, check_missing_entry = 3, check_unknown_hash = 4,
                        check_file_error = 5 };

enum class verdict { not_found, mismatch, ok };
const char* verdict_name(verdict v) {
  return v == verdict::ok ? "Ok" : v == verdict::mismatch ? "Mismatch" : "Not Found";
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A manifest: lines `TYPE HASH NAME` (more words ignored), the first line for a
// (TYPE, NAME) wins, as in gguf-hash. NAME is `FILE:TENSOR` or `FILE`. Lookups first
// try the name as given, then the same name with FILE's folders dropped.
class manifest {
 public:
  bool load(const std::string& path) {
    std::ifstream in(path);
    if (!in) return false;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string type, hash, name;
      if (!(ls >> type)) continue;
      types_.insert(type);
      if (!(ls >> hash >> name)) continue;
      exact_.emplace(type + '\n' + name, hash);
      loose_.emplace(type + '\n' + base_name(name), hash);
    }
    return true;
  }
  bool has_type(const std::string& t) const { return types_.count(t) != 0; }
  verdict check(const std::string& type, const std::string& name, const std::string& hash) const {
    auto it = exact_.find(type + '\n' + name);
    if (it == exact_.end()) it = loose_.find(type + '\n' + base_name(name));
    if (it == loose_.end()) return verdict::not_found;
    return it->second == hash ? verdict::ok : verdict::mismatch;
  }

 private:
  std::set<std::string> types_;
  std::map<std::string, std::string> exact_, loose_;
};

struct check_state {
  const manifest* m = nullptr;
  bool tensor_in = false, tensor_bad = false, model_in = false, model_bad = false;
};

int run(int argc, char** argv) {
  CLI::App app{"Hash the tensor data of a GGUF model, as llama.cpp's gguf-hash does.", "hash"};
  std::string path, manifest_path;
  bool xxh64 = false, sha1 = false, sha256 = false, xxh3 = false, uuid = false, all = false, no_layer = false;
  read_flags rf;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("FILE", path, "GGUF file (any shard of a split model: hashed as the merged model)")->required();
  app.add_flag("--xxh64", xxh64, "xxHash64 (the default)");
  app.add_flag("--sha1", sha1, "SHA-1");
  app.add_flag("--sha256", sha256, "SHA-256");
  app.add_flag("--xxh3", xxh3, "XXH3 64-bit (not in gguf-hash)");
  app.add_flag("--all", all, "xxh64, sha1 and sha256");
  app.add_flag("--no-layer", no_layer, "only the whole-model hashes, no per-tensor lines");
  app.add_flag("--uuid", uuid, "the model's UUIDv5 (SHA-1 of llama.cpp's namespace and every tensor's bytes)");
  app.add_option("-c,--check", manifest_path,
                 "verify against a manifest (gguf-hash's output); exit codes as gguf-hash's: 0 every hash matches, "
                 "1 a mismatch, 2 the GGUF file cannot be read, 3 the manifest has no entry for this file, 4 the "
                 "manifest has no known hash type, 5 the manifest cannot be read");
  app.add_option("--threads", threads, "worker threads (0 = every core, the default)")->check(CLI::Range(0u, 4096u));
  add_read_options(app, rf, "one JSON document instead of gguf-hash's lines");
  const bool& json = rf.json;
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (all) xxh64 = sha1 = sha256 = true;
  // SHA-1 and SHA-256 (uuid is a SHA-1) need libcrypto: the static gguf hands over to
  // gguf-dynamic before it reads or writes anything.
  if ((sha1 || sha256 || uuid) && is_static_build()) return run_dynamic_build("computes SHA hashes");

  manifest man;
  check_state chk;
  const bool checking = !manifest_path.empty();
  if (checking) {
    if (!man.load(manifest_path)) {
      // gguf-hash's words, with the '\n' it leaves out (issue 29, item 17)
      std::printf("ERROR cannot open manifest %s\n", manifest_path.c_str());
      return check_file_error;
    }
    const bool m_sha256 = man.has_type("sha256"), m_sha1 = man.has_type("sha1"), m_xxh64 = man.has_type("xxh64"),
               m_uuid = man.has_type("uuid"), m_xxh3 = man.has_type("xxh3");
    // the manifest's choice below may pick a SHA: handed over before anything is written
    if ((m_sha256 || m_sha1 || m_uuid) && is_static_build()) return run_dynamic_build("computes SHA hashes");
    if (!m_sha256 && !m_sha1 && !m_xxh64 && !m_uuid && !m_xxh3) {
      std::printf("ERROR manifest does not have any known hash format in %s\n", manifest_path.c_str());
      return check_unknown_hash;
    }
    if (!json) {
      std::printf("manifest  %s", manifest_path.c_str());
      if (m_sha256) std::printf("  sha256");
      if (m_sha1) std::printf("  sha1");
      if (m_xxh64) std::printf("  xxh64");
      if (m_uuid) std::printf("  uuid");
      if (m_xxh3) std::printf("  xxh3");
      std::printf("\n");
    }
    // As gguf-hash: with no hash chosen, the strongest one the manifest has.
    if (!xxh64 && !sha1 && !sha256 && !uuid && !xxh3) {
      if (m_sha256) sha256 = true;
      else if (m_sha1) sha1 = true;
      else if (m_xxh64) xxh64 = true;
      else if (m_uuid) uuid = true;
      else xxh3 = true;
    }
    chk.m = &man;
  }
  if (!xxh64 && !sha1 && !sha256 && !uuid && !xxh3) xxh64 = true;

  auto f = open_model(path);
  if (!f) return report(path, f.error());

  hash_request req;
  req.algo[static_cast<int>(hash_algo::xxh64)] = xxh64;
  req.algo[static_cast<int>(hash_algo::sha1)] = sha1;
  req.algo[static_cast<int>(hash_algo::sha256)] = sha256;
  req.algo[static_cast<int>(hash_algo::xxh3)] = xxh3;
  req.per_tensor = !no_layer;
  req.uuid = uuid;
  req.threads = threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;
  req.fetch = is_remote(path);
  auto hashed = hash_tensors(*f, req);
  if (!hashed) return report(path, hashed.error());
  const hash_result& h = *hashed;

  nlohmann::ordered_json j;
  j["file"] = path;
  auto jt = nlohmann::ordered_json::array();
  // One output line (or JSON field); `is_tensor` tells which verdicts it counts for.
  auto emit = [&](const char* type, const std::string& hex, const std::string& name, bool is_tensor,
                  nlohmann::ordered_json& obj) {
    if (!checking) {
      if (json) obj[type] = hex;
      else std::printf("%-8s  %-s  %s\n", type, hex.c_str(), name.c_str());
      return;
    }
    const verdict v = man.check(type, name, hex);
    if (v != verdict::not_found) {
      (is_tensor ? chk.tensor_in : chk.model_in) = true;
      if (v == verdict::mismatch) (is_tensor ? chk.tensor_bad : chk.model_bad) = true;
    }
    if (json) obj[type] = {{"hash", hex}, {"check", verdict_name(v)}};
    else std::printf("%-8s  %-s  %s  -  %s\n", type, hex.c_str(), name.c_str(), verdict_name(v));
  };
  if (!no_layer) {
    const auto tensors = f->tensors();
    for (size_t i = 0; i < tensors.size(); ++i) {
      nlohmann::ordered_json o;
      o["name"] = std::string(tensors[i].name);
      const std::string name = path + ":" + std::string(tensors[i].name);
      for (int a = 0; a < hash_algo_count; ++a) {
        if (req.algo[a]) emit(hash_algo_name(static_cast<hash_algo>(a)), h.tensor[i][a], name, true, o);
      }
      if (json) jt.push_back(std::move(o));
    }
  }
  nlohmann::ordered_json jm = nlohmann::ordered_json::object();
  for (int a = 0; a < hash_algo_count; ++a) {
    if (req.algo[a]) emit(hash_algo_name(static_cast<hash_algo>(a)), h.model[a], path, false, jm);
  }
  if (uuid) emit("uuid", h.uuid, path, false, jm);
  if (json) {
    if (!no_layer) j["tensors"] = std::move(jt);
    j["model"] = std::move(jm);
  }

  int rc = exit_ok;
  if (checking) {
    // gguf-hash's verdict: the whole-model lines decide when the manifest has them,
    // else the per-tensor lines; a file the manifest does not know at all is code 3.
    if (!chk.model_in) {
      rc = !chk.tensor_in ? check_missing_entry : chk.tensor_bad ? check_failure : check_ok;
    } else {
      rc = (chk.tensor_in && chk.tensor_bad) || chk.model_bad ? check_failure : check_ok;
    }
    static const char* const names[] = {"Success", "Failure", "Mismatch", "Manifest Missing Entry",
                                        "Manifest Unknown Hash", "Manifest File Error"};
    if (json) j["verification"] = names[rc];
    else std::printf("\nVerification results for %s - %s\n", manifest_path.c_str(), names[rc]);
  }
  if (json) print_json(j);
  return rc;
}

const registrar reg{"hash", "hash tensor data (xxh64, sha1, sha256, uuid), as llama.cpp's gguf-hash", run};

}  // namespace
}  // namespace gguf::cli::cmd_hash
