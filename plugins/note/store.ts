/**
 * Notes: one JSON file per note in a folder (`<data dir>/notes` unless the
 * operator set another). Every write is a temporary file in the same folder,
 * then a rename, so a killed process leaves the old note or the new one,
 * never half of either. A note id is a slug and a random suffix; nothing
 * else names a file, so no input can reach outside the folder.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { maskSecrets } from "../../src/core/secrets.ts";

export interface Note {
  id: string;
  title: string;
  body: string;
  created: string;
  updated: string;
}

/** A refusal under the plugin's own prefix, sent as a JSON-RPC error's data. */
export class NoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

const ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

/** The folder a call works in: the one the operator set (config, connection, profile), else the data dir's own. */
export function noteFolder(args: Record<string, unknown>, dataDir: string): string {
  return typeof args.folder === "string" && args.folder !== "" ? args.folder : join(dataDir, "notes");
}

/**
 * A new note's id: its title as a slug (at most 60 characters) and six random
 * hex digits. The slug is of the title as an agent is shown it, its secrets
 * masked: an id is shown as it is, so a title `Authorization: Bearer x` would
 * show the token in its id while the title is masked.
 */
export function newNoteId(title: string): string {
  const slug = maskSecrets(title)
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${slug || "note"}-${randomBytes(3).toString("hex")}`;
}

/** Writes a note whole or not at all (temp file and rename), mode 0600 in a folder of mode 0700. */
export function writeNote(dir: string, note: Note): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${note.id}.json`);
  const temp = join(dir, `.${note.id}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`);
  writeFileSync(temp, `${JSON.stringify(note, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** The note of that id; refuses an id that is not one (note.notfound) without touching the disk. */
export function readNote(dir: string, id: string): Note {
  if (!ID.test(id)) throw notFound(id);
  try {
    return JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8")) as Note;
  } catch {
    throw notFound(id);
  }
}

/** Removes the note of that id; refuses one that is not there (note.notfound). */
export function removeNote(dir: string, id: string): void {
  readNote(dir, id);
  rmSync(join(dir, `${id}.json`));
}

/** Every note, newest first; a file that does not read as a note is skipped. */
export function listNotes(dir: string): Note[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const notes: Note[] = [];
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    try {
      notes.push(readNote(dir, name.slice(0, -5)));
    } catch {
      // not a note: left alone
    }
  }
  return notes.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
}

function notFound(id: string): NoteError {
  return new NoteError(
    "note.notfound",
    `no note has the id ${JSON.stringify(id)}`,
    "note.list shows the notes there are",
  );
}
