/** fs.hash: the sha256 of a file, read through its descriptor in chunks. */
import { createHash } from "node:crypto";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { notFile } from "./entryKind.ts";

const CHUNK = 1024 * 1024;

export const fsHash = define({
  name: "fs.hash",
  summary: "Compute the sha256 digest of a file",
  searchWords: ["checksum", "sha256sum", "digest", "verify download"],
  safety: "read",
  inputs: { path: { type: "string", description: "the file", required: true, path: "read", positional: true } },
  result: { shape: "object", fields: [{ name: "size", doc: "bytes hashed", unit: "bytes" }] },
  examples: [{ command: "rta fs hash package-lock.json", note: "the lock file's digest" }],
  async run(_args, ctx) {
    const p = ctx.paths.path;
    if (!p.stat.isFile()) throw notFile(p.sent);
    const hash = createHash("sha256");
    let pos = 0;
    for (;;) {
      const chunk = p.read(pos, CHUNK);
      if (chunk.length === 0) break;
      hash.update(chunk);
      pos += chunk.length;
      // A file of many gigabytes takes a while: the server goes on answering, and a cancelled call stops here.
      await new Promise((r) => setImmediate(r));
      if (ctx.signal.aborted)
        throw new RtaError(
          "core.call.cancelled",
          `hashing ${JSON.stringify(p.sent)} was cancelled`,
          "call again to start over",
        );
    }
    return object({ path: p.sent, sha256: hash.digest("hex"), size: pos });
  },
});
