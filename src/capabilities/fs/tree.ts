/** fs.tree: a directory as a tree, to a depth. */
import { define } from "../../core/capability.ts";
import { Pacer } from "../../core/pacer.ts";
import type { TreeNode } from "../../core/result.ts";
import { notDir } from "./entryKind.ts";
import { withSkipped } from "./walkNotes.ts";

/** A tree is sent whole or not at all; past this many nodes it says so instead of growing. */
const MAX_NODES = 5000;

export const fsTree = define({
  name: "fs.tree",
  summary: "Show a directory as a tree, to a depth",
  searchWords: ["tree", "directory structure", "layout"],
  safety: "read",
  inputs: {
    path: { type: "string", description: "the directory", default: ".", path: "read", positional: true },
    depth: { type: "integer", description: "how many levels below it", range: [1, 10], default: 3 },
    hidden: { type: "boolean", description: "include names that start with a dot", default: false },
  },
  result: { shape: "tree" },
  examples: [{ command: "rta fs tree src --depth 2", note: "two levels of src" }],
  async run(args, ctx) {
    const p = ctx.paths.path;
    const dir = p.dir();
    if (!dir) throw notDir(p.sent);
    const root: TreeNode = { name: p.sent || ".", children: [] };
    const byRel = new Map<string, TreeNode>([["", root]]);
    let nodes = 0;
    const { skipped } = await dir.walk(args.depth, new Pacer(ctx.signal, `listing ${JSON.stringify(p.sent)}`), (e) => {
      if (!args.hidden && e.name.startsWith(".")) return true;
      const parent = byRel.get(e.rel.includes("/") ? e.rel.slice(0, e.rel.lastIndexOf("/")) : "");
      if (!parent) return true; // under a hidden directory that was left out
      if (++nodes > MAX_NODES) {
        parent.children?.push({ name: `[more entries: past ${MAX_NODES} the tree stops; ask for less depth]` });
        return false;
      }
      const node: TreeNode = e.stat.isDirectory() ? { name: `${e.name}/`, children: [] } : { name: e.name };
      parent.children?.push(node);
      if (e.stat.isDirectory()) byRel.set(e.rel, node);
      return true;
    });
    // a directory it could not list is in the tree without children: the warning says it is not empty for that
    return withSkipped({ type: "tree", root }, skipped, p.sent);
  },
});
