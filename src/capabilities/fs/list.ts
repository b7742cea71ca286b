/** fs.list: a directory's entries: name, type, size, mtime and mode. */

import { lstatSync, readdirSync, readlinkSync, type Stats } from "node:fs";
import { define } from "../../core/capability.ts";
import type { ReadPath } from "../../gate/pathGate.ts";
import { inFd } from "../../gate/procFd.ts";
import { modeString, notDir, typeOf } from "./fdio.ts";

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
    const dir = ctx.paths.path as ReadPath;
    if (!dir.stat.isDirectory()) throw notDir(dir.sent);
    const out = ctx.rows(["name", "type", "size", "mtime", "mode"]);
    const real = readlinkSync(inFd(dir.fd));
    let total = 0;
    for (const name of readdirSync(inFd(dir.fd)).sort()) {
      if (!args.hidden && name.startsWith(".")) continue;
      total++;
      if (out.full()) continue; // past what the model is sent: counted, not looked at
      let stat: Stats;
      try {
        stat = lstatSync(inFd(dir.fd, name));
      } catch {
        total--; // gone while we looked
        continue;
      }
      if (stat.isDirectory() && ctx.gate.isWithheld(`${real === "/" ? "" : real}/${name}`)) {
        total--; // rta's own dirs are passed by, as a walk passes them
        continue;
      }
      out.add([name, typeOf(stat), stat.size, stat.mtime.toISOString(), modeString(stat.mode)]);
    }
    return out.finish(total);
  },
});
