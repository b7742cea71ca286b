/** note.show: one note, title and body. */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { noteFolder, readNote } from "./noteStore.ts";

export const noteShow = define({
  name: "note.show",
  summary: "Show one note",
  searchWords: ["read note", "open note"],
  safety: "read",
  inputs: {
    folder: {
      type: "string",
      description: "the notes folder; the operator sets it (config, a connection or a profile), else rta's own",
      operatorOnly: true,
      profile: true,
    },
    id: { type: "string", description: "the note's id, as note.list shows it", required: true, positional: true },
  },
  record: "id",
  result: { shape: "object" },
  examples: [{ command: "rta note show deploy-checklist-3fa2c1", note: "one note" }],
  async run(args, ctx) {
    const n = readNote(noteFolder(args, ctx.deps.dirs.data), String(args.id));
    return object({ id: n.id, title: n.title, body: n.body, created: n.created, updated: n.updated });
  },
});
