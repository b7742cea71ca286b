/** What the note plugin declares: its describe answer, the same declarations note had as a built-in. */
import type { PluginDecl, PluginInput } from "../../src/plugins/protocol.ts";

/** The folder every note capability works in: the operator's to set, never an agent's. */
const FOLDER: PluginInput = {
  type: "string",
  description: "the notes folder; the operator sets it (config, a connection or a profile), else rta's own",
  operatorOnly: true,
  profile: true,
};

/** The one note a call names. */
const ID: PluginInput = {
  type: "string",
  description: "the note's id, as note.list shows it",
  required: true,
  positional: true,
};

/** A capability that acts on the one note a call names: note.rm and note.show differ only in these. */
function oneNote(
  name: string,
  summary: string,
  searchWords: string[],
  safety: PluginDecl["safety"],
  verb: string,
  note: string,
): PluginDecl {
  return {
    name,
    summary,
    searchWords,
    safety,
    inputs: { folder: FOLDER, id: ID },
    record: "id",
    result: { shape: "object" },
    examples: [{ command: `rta note ${verb} deploy-checklist-3fa2c1`, note }],
    connection: "note",
  };
}

export const DECLS: PluginDecl[] = [
  {
    name: "note.add",
    summary: "Add a note with a title and a body",
    searchWords: ["write note", "jot", "memo", "remember"],
    safety: "write",
    inputs: {
      folder: FOLDER,
      title: { type: "string", description: "the note's title", required: true, positional: true },
      body: { type: "string", description: "the note's text", required: true, fromPipe: true },
    },
    result: { shape: "object" },
    examples: [{ command: 'rta note add "deploy checklist" --body "drain, deploy, undrain"', note: "add a note" }],
    connection: "note",
  },
  {
    name: "note.list",
    summary: "List notes, newest first",
    searchWords: ["notes", "memos"],
    safety: "read",
    inputs: {
      folder: FOLDER,
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
    connection: "note",
  },
  oneNote("note.rm", "Remove one note", ["delete note", "erase"], "destructive", "rm", "remove a note"),
  oneNote("note.show", "Show one note", ["read note", "open note"], "read", "show", "one note"),
];
