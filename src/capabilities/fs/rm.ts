/** fs.rm: removes a file, or a directory with recursive, never following a link out of it nor emptying what the gate keeps below it. */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { Pacer } from "../../core/pacer.ts";
import { object } from "../../core/result.ts";

export const fsRm = define({
  name: "fs.rm",
  summary: "Remove a file, or a directory with recursive",
  searchWords: ["delete file", "rm", "remove folder"],
  safety: "destructive",
  inputs: {
    path: { type: "string", description: "what to remove", required: true, path: "write", positional: true },
    recursive: { type: "boolean", description: "remove a directory and everything in it", default: false },
  },
  record: "path",
  result: { shape: "object" },
  examples: [{ command: "rta fs rm build --recursive", note: "remove build and all in it" }],
  async run(args, ctx) {
    const p = ctx.paths.path;
    if (!p.existing)
      throw new RtaError("fs.notfound", `${JSON.stringify(p.sent)} does not exist`, "fs.list shows what is there");
    if (!p.existing.isDirectory()) {
      p.remove();
      return object({ path: p.sent, removed: 1 });
    }
    if (!args.recursive) {
      try {
        p.remove();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOTEMPTY" || code === "EEXIST") {
          throw new RtaError(
            "fs.notempty",
            `${JSON.stringify(p.sent)} is a directory that is not empty`,
            "remove it with recursive to take everything in it",
          );
        }
        throw err;
      }
      return object({ path: p.sent, removed: 1 });
    }
    const pacer = new Pacer(ctx.signal, `removing ${JSON.stringify(p.sent)}`);
    return object({ path: p.sent, removed: await p.removeTree(pacer) });
  },
});
