/** fs.stat: what a path is: type, size, mode, owner, times, links. */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { modeString, typeOf } from "./entryKind.ts";

export const fsStat = define({
  name: "fs.stat",
  summary: "Describe a file or directory: type, size, mode, owner and times",
  searchWords: ["file info", "metadata", "permissions", "modified time"],
  safety: "read",
  inputs: {
    path: { type: "string", description: "the file or directory", required: true, path: "read", positional: true },
  },
  result: { shape: "object", fields: [{ name: "size", doc: "size in bytes", unit: "bytes" }] },
  examples: [{ command: "rta fs stat README.md", note: "what README.md is" }],
  async run(_args, ctx) {
    const p = ctx.paths.path;
    const st = p.stat;
    return object({
      path: p.sent,
      type: typeOf(st),
      size: st.size,
      mode: modeString(st.mode),
      mode_octal: (st.mode & 0o7777).toString(8).padStart(4, "0"),
      uid: st.uid,
      gid: st.gid,
      links: st.nlink,
      mtime: st.mtime.toISOString(),
      ctime: st.ctime.toISOString(),
      atime: st.atime.toISOString(),
    });
  },
});
