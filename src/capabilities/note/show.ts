/** note.show: one note, title and body. */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { FOLDER_INPUT, ID_INPUT, noteFolder, readNote } from "./noteStore.ts";

export const noteShow = define({
  name: "note.show",
  summary: "Show one note",
  searchWords: ["read note", "open note"],
  safety: "read",
  inputs: {
    folder: FOLDER_INPUT,
    id: ID_INPUT,
  },
  record: "id",
  result: { shape: "object" },
  examples: [{ command: "rta note show deploy-checklist-3fa2c1", note: "one note" }],
  async run(args, ctx) {
    const n = readNote(noteFolder(args, ctx.dataDir), String(args.id));
    return object({ id: n.id, title: n.title, body: n.body, created: n.created, updated: n.updated });
  },
});
