/** note.list: the notes there are, newest first. */
import { define } from "../../core/capability.ts";
import { FOLDER_INPUT, listNotes, noteFolder } from "./noteStore.ts";

export const noteList = define({
  name: "note.list",
  summary: "List notes, newest first",
  searchWords: ["notes", "memos"],
  safety: "read",
  inputs: {
    folder: FOLDER_INPUT,
    limit: { type: "integer", description: "how many notes to return", range: [1, 1000], default: 100 },
  },
  result: {
    shape: "table",
    columns: [
      { name: "id", doc: "the note's id, which note.show and note.rm take" },
      { name: "title", doc: "its title" },
      { name: "updated", doc: "when it last changed (UTC)" },
      { name: "bytes", doc: "the size of its body", unit: "bytes" },
    ],
  },
  examples: [{ command: "rta note list", note: "every note" }],
  async run(args, ctx) {
    const notes = listNotes(noteFolder(args, ctx.dataDir));
    const out = ctx.rows(["id", "title", "updated", "bytes"]);
    for (const n of notes.slice(0, args.limit)) out.add([n.id, n.title, n.updated, Buffer.byteLength(n.body)]);
    return out.finish(notes.length);
  },
});
