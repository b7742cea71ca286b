/** note.add: a new note in rta's notes folder (a write: an agent needs a grant). */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { FOLDER_INPUT, newNoteId, noteFolder, writeNote } from "./noteStore.ts";

export const noteAdd = define({
  name: "note.add",
  summary: "Add a note with a title and a body",
  searchWords: ["write note", "jot", "memo", "remember"],
  safety: "write",
  inputs: {
    folder: FOLDER_INPUT,
    title: { type: "string", description: "the note's title", required: true, positional: true },
    body: { type: "string", description: "the note's text", required: true, fromPipe: true },
  },
  result: { shape: "object" },
  examples: [{ command: 'rta note add "deploy checklist" --body "drain, deploy, undrain"', note: "add a note" }],
  async run(args, ctx) {
    const now = new Date(ctx.clock.now()).toISOString();
    const title = String(args.title).trim();
    const body = String(args.body);
    const id = newNoteId(title);
    writeNote(noteFolder(args, ctx.dataDir), { id, title, body, created: now, updated: now });
    return object({ id, title, bytes: Buffer.byteLength(body) });
  },
});
