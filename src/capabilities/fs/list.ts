/** fs.list: a directory's entries: name, type, size, mtime and mode. */
import { define } from "../../core/capability.ts";
import { modeString, notDir, typeOf } from "./entryKind.ts";

export const fsList = define({
  name: "fs.list",
  summary: "List a directory's entries with type, size, modification time and mode",
  searchWords: ["ls", "dir", "folder contents", "files in"],
  safety: "read",
  inputs: {
    path: {
      type: "string",
      description: "the directory, relative to the first root or absolute under a root",
      default: ".",
      path: "read",
      positional: true,
    },
    hidden: { type: "boolean", description: "include names that start with a dot", default: false },
  },
  result: {
    shape: "table",
    columns: [
      { name: "name", doc: "the entry's name" },
      { name: "type", doc: "file, dir, link or other" },
      { name: "size", doc: "size in bytes", unit: "bytes" },
      { name: "mtime", doc: "last modified (UTC)" },
      { name: "mode", doc: "permission bits, as ls shows them" },
    ],
  },
  examples: [{ command: "rta fs list . --hidden", note: "everything in the current directory" }],
  async run(args, ctx) {
    const p = ctx.paths.path;
    const dir = p.dir();
    if (!dir) throw notDir(p.sent);
    const out = ctx.rows();
    let total = 0;
    for (const name of dir.names()) {
      if (!args.hidden && name.startsWith(".")) continue;
      total++;
      if (out.full()) continue; // past what the model is sent: counted, not looked at
      const entry = dir.entry(name);
      if (entry === undefined) {
        total--; // gone while we looked, or withheld (passed by, as a walk passes it)
        continue;
      }
      const { stat } = entry;
      out.add([name, typeOf(stat), stat.size, stat.mtime.toISOString(), modeString(stat.mode)]);
    }
    return out.finish(total);
  },
});
