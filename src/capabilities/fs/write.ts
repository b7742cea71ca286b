/**
 * fs.write: writes a file whole or not at all: a temporary file in the same
 * directory, synced, then renamed over the name. `append` writes the old
 * content and the new into the temporary file, so it is atomic too.
 */
import type { WriteHandle } from "../../core/access.ts";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { notFile } from "./entryKind.ts";

/** What append will copy: a larger file is appended to by a tool made for it, not rewritten whole. */
const APPEND_MAX_BYTES = 64 * 1024 * 1024;

export const fsWrite = define({
  name: "fs.write",
  summary: "Write a file: create it, overwrite it, or append to it, atomically",
  searchWords: ["save file", "create file", "edit file", "append"],
  safety: "write",
  inputs: {
    path: { type: "string", description: "the file", required: true, path: "write", positional: true },
    content: { type: "string", description: "what to write", required: true, fromPipe: true },
    mode: {
      type: "string",
      description: "create (only if absent), overwrite, or append",
      options: ["create", "overwrite", "append"],
      default: "create",
    },
  },
  record: "path",
  result: { shape: "object", fields: [{ name: "bytes", doc: "the file's size now", unit: "bytes" }] },
  examples: [{ command: 'rta fs write notes/todo.md --content "- ship it" --mode append', note: "append a line" }],
  async run(args, ctx) {
    const p = ctx.paths.path;
    const content = Buffer.from(args.content);
    const mode = args.mode;
    if (p.existing && mode === "create") {
      throw new RtaError(
        "fs.exists",
        `${JSON.stringify(p.sent)} already exists`,
        "write it with mode overwrite or append",
      );
    }
    if (p.existing && !p.existing.isFile() && !(mode === "overwrite" && p.existing.isSymbolicLink()))
      throw notFile(p.sent);
    let data: Buffer = content;
    let fileMode = 0o644;
    if (p.existing?.isFile()) {
      // the permission bits carry over; setuid, setgid and sticky never do (the new file is the server's)
      fileMode = p.existing.mode & 0o777;
      if (mode === "append") data = Buffer.concat([readExisting(p), content]);
    }
    p.replace(data, fileMode);
    return object({ path: p.sent, mode, bytes: data.length, created: p.existing === null });
  },
});

/** The file there now, whole, for append: the same file the gate saw (core.path.symlink else), and not too large. */
function readExisting(p: WriteHandle): Buffer {
  const file = p.openExisting();
  try {
    if (file.size > APPEND_MAX_BYTES) {
      throw new RtaError(
        "fs.notfile",
        `${JSON.stringify(p.sent)} is too large to append to atomically (over 64 MiB)`,
        "write a new file instead",
      );
    }
    return file.read(0, file.size);
  } finally {
    file.close();
  }
}
