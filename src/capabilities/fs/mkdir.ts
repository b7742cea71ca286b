/** fs.mkdir: makes a directory, and with parents the missing ones above it, each made by the path gate inside the one before. */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";

export const fsMkdir = define({
  name: "fs.mkdir",
  summary: "Make a directory, and optionally the missing ones above it",
  searchWords: ["mkdir", "create folder", "new directory"],
  safety: "write",
  inputs: {
    path: {
      type: "string",
      description: "the directory to make",
      required: true,
      path: "write",
      parentsFrom: "parents",
      positional: true,
    },
    parents: {
      type: "boolean",
      description: "make missing directories above it too, and do not mind if it exists",
      default: false,
    },
  },
  record: "path",
  result: { shape: "object" },
  examples: [{ command: "rta fs mkdir build/out --parents", note: "make build and build/out" }],
  async run(args, ctx) {
    const p = ctx.paths.path;
    if (p.existing) {
      if (args.parents && p.existing.isDirectory()) return object({ path: p.sent, created: false });
      throw new RtaError("fs.exists", `${JSON.stringify(p.sent)} already exists`, "choose another name");
    }
    p.mkdir();
    return object({ path: p.sent, created: true });
  },
});
