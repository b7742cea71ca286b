/** note.show: one note, title and body. */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { notesDir, readNote } from "./noteStore.ts";

export const noteShow = define({
  name: "note.show",
  summary: "Show one note",
  searchWords: ["read note", "open note"],
  safety: "read",
  inputs: {
    id: { type: "string", description: "the note's id, as note.list shows it", required: true, positional: true },
  },
  record: "id",
  result: { shape: "object" },
  examples: [{ command: "rta note show deploy-checklist-3fa2c1", note: "one note" }],
  async run(args, ctx) {
    const n = readNote(notesDir(ctx.deps.dirs.data), String(args.id));
    return object({ id: n.id, title: n.title, body: n.body, created: n.created, updated: n.updated });
  },
});
