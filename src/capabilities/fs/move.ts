/** fs.move: renames a file or directory; both ends must lie under roots. */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";

export const fsMove = define({
  name: "fs.move",
  summary: "Move or rename a file or directory",
  searchWords: ["mv", "rename"],
  safety: "write",
  inputs: {
    from: { type: "string", description: "what to move", required: true, path: "write", positional: true },
    to: { type: "string", description: "where to put it", required: true, path: "write", positional: true },
    overwrite: { type: "boolean", description: "replace a file already at the destination", default: false },
  },
  result: { shape: "object" },
  examples: [{ command: "rta fs move draft.md final.md", note: "rename a file" }],
  async run(args, ctx) {
    const { from, to } = ctx.paths;
    if (!from.existing)
      throw new RtaError("fs.notfound", `${JSON.stringify(from.sent)} does not exist`, "fs.list shows what is there");
    if (to.existing && !args.overwrite)
      throw new RtaError(
        "fs.exists",
        `${JSON.stringify(to.sent)} already exists`,
        "move it with overwrite, or choose another name",
      );
    if (to.existing?.isDirectory())
      throw new RtaError(
        "fs.exists",
        `${JSON.stringify(to.sent)} is a directory`,
        "name the new path in full, inside it",
      );
    try {
      from.moveTo(to);
    } catch (err) {
      const e = (err as NodeJS.ErrnoException).code;
      if (e === "EINVAL")
        throw new RtaError(
          "core.input.invalid",
          `${JSON.stringify(from.sent)} cannot be moved inside itself`,
          "choose a destination outside it",
        );
      if (e === "ENOTDIR")
        throw new RtaError(
          "fs.exists",
          `${JSON.stringify(to.sent)} is a file, which a directory cannot replace`,
          "remove it first, or choose another name",
        );
      if (e === "EXDEV") {
        throw new RtaError(
          "fs.exists",
          "the two paths are on different file systems, so it cannot be moved in one step",
          "copy it with fs.read and fs.write, then remove it",
        );
      }
      throw err;
    }
    return object({ from: from.sent, to: to.sent, moved: true });
  },
});
