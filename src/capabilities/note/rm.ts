/** note.rm: removes one note (destructive: an agent needs a grant, which can name the note). */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { FOLDER_INPUT, ID_INPUT, noteFolder, removeNote } from "./noteStore.ts";

export const noteRm = define({
  name: "note.rm",
  summary: "Remove one note",
  searchWords: ["delete note", "erase"],
  safety: "destructive",
  inputs: {
    folder: FOLDER_INPUT,
    id: ID_INPUT,
  },
  record: "id",
  result: { shape: "object" },
  examples: [{ command: "rta note rm deploy-checklist-3fa2c1", note: "remove a note" }],
  async run(args, ctx) {
    const id = String(args.id);
    removeNote(noteFolder(args, ctx.dataDir), id);
    return object({ id, removed: true });
  },
});
