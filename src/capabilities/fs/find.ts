/** fs.find: files under a directory by name glob, type and size. The glob is matched by RE2 (core/pattern). */
import { define } from "../../core/capability.ts";
import { Pacer } from "../../core/pacer.ts";
import { compileGlob, loadPatterns } from "../../core/pattern.ts";
import { notDir, typeOf } from "./entryKind.ts";
import { asWritten, WalkProgress, withSkipped } from "./walkNotes.ts";

export const fsFind = define({
  name: "fs.find",
  summary: "Find files under a directory by name, type and size",
  searchWords: ["search files", "locate", "glob", "find by name"],
  safety: "read",
  inputs: {
    path: { type: "string", description: "where to look", default: ".", path: "read", positional: true },
    name: { type: "string", description: "a glob the name must match, e.g. *.ts or *.{ts,js}", default: "*" },
    type: { type: "string", description: "what to find", options: ["file", "dir", "link", "any"], default: "any" },
    min_size: { type: "integer", description: "at least this many bytes", range: [0, Number.MAX_SAFE_INTEGER] },
    max_size: { type: "integer", description: "at most this many bytes", range: [0, Number.MAX_SAFE_INTEGER] },
    depth: { type: "integer", description: "how many levels down to look", range: [1, 64], default: 20 },
    limit: { type: "integer", description: "how many to return", range: [1, 10_000], default: 1000 },
  },
  result: {
    shape: "table",
    columns: [
      { name: "path", doc: "where it is, beginning with the path searched as it was sent" },
      { name: "type", doc: "file, dir, link or other" },
      { name: "size", doc: "size in bytes", unit: "bytes" },
      { name: "mtime", doc: "last modified (UTC)" },
    ],
  },
  examples: [{ command: 'rta fs find src --name "*.ts" --type file', note: "every TypeScript file under src" }],
  async run(args, ctx) {
    const p = ctx.paths.path;
    const dir = p.dir();
    if (!dir) throw notDir(p.sent);
    await loadPatterns();
    const glob = compileGlob("name", args.name);
    const out = ctx.rows();
    const { limit, min_size, max_size } = args;
    let found = 0;
    const pacer = new Pacer(ctx.signal, `finding under ${JSON.stringify(p.sent)}`);
    const seen = new WalkProgress(ctx.progress);
    const { skipped } = await dir.walk(args.depth, pacer, (e) => {
      seen.saw(e.stat.isFile() ? e.stat.size : 0);
      const type = typeOf(e.stat);
      if (args.type !== "any" && type !== args.type) return true;
      if (!glob.test(e.name)) return true;
      if (min_size !== undefined && e.stat.size < min_size) return true;
      if (max_size !== undefined && e.stat.size > max_size) return true;
      if (++found <= limit) out.add([asWritten(p.sent, e.rel), type, e.stat.size, e.stat.mtime.toISOString()]);
      return true;
    });
    return withSkipped(out.finish(found), skipped, p.sent);
  },
});
