// Reads each URL's metadata and tensor infos with @huggingface/gguf (as a hub does) and
// prints one line per URL: "ok N_KV N_TENSORS" or "error MESSAGE".
import { gguf } from "@huggingface/gguf";

for (const url of process.argv.slice(2)) {
  try {
    const { metadata, tensorInfos } = await gguf(url);
    console.log(`ok ${Object.keys(metadata).length} ${tensorInfos.length} ${url}`);
  } catch (e) {
    console.log(`error ${String(e.message || e).split("\n")[0]} ${url}`);
  }
}
