// packcheck certify adapter (CONTRACT 5, container-only mode): @huggingface/gguf, the parser the
// Hugging Face Hub uses to show a GGUF file's metadata and tensor list.
//
//     node hf_gguf_reader.mjs INPUT OUTPUT
//
// INPUT is a .gguf file, parsed with the package's public `gguf(path, {allowLocalFile: true,
// computeParametersCount: true})` (header, metadata, tensor infos; it reads no tensor data and
// dequantizes nothing). Resolved = accepted (exit 0), rejected = refused (exit 1, its error
// printed). Certify runs it with --container-only: verdicts compared, no logical view asked for;
// OUTPUT is unused. Non-GGUF inputs are out of scope (exit 1). The package is resolved from
// HF_GGUF_DIR (default /work/cache/npm/hf-gguf, where certify_upstream.sh installs it from npm).
import { createRequire } from "node:module";
import path from "node:path";

const [input] = process.argv.slice(2);
if (process.argv.length !== 4) {
  console.error("usage: node hf_gguf_reader.mjs INPUT OUTPUT");
  process.exit(2);
}
if (!input.endsWith(".gguf")) {
  console.error("refused: not a GGUF file: out of scope");
  process.exit(1);
}
const dir = process.env.HF_GGUF_DIR || "/work/cache/npm/hf-gguf";
const require = createRequire(path.join(dir, "package.json"));
const { gguf } = await import(require.resolve("@huggingface/gguf"));
try {
  const out = await gguf(path.resolve(input), { allowLocalFile: true, computeParametersCount: true });
  console.error(`@huggingface/gguf: ${out.tensorInfos.length} tensors, ${Object.keys(out.metadata).length} metadata keys, ${out.parameterCount} parameters`);
  process.exit(0);
} catch (e) {
  console.error(`refused: ${e && e.message ? e.message : e}`);
  process.exit(1);
}
