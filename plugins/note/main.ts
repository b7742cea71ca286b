/**
 * rta-plugin-note: the note area as a plugin (docs/plugins.md, protocol 1).
 * It reads framed JSON-RPC requests on stdin, answers each on stdout, and
 * writes nothing else there. It shares with rta only what holds no rule of
 * the gate's: the secret masking a note id is made with, and the declaration
 * types (erased at build).
 */
import { version } from "../../package.json";
import { DECLS } from "./decls.ts";
import { FrameReader, frame } from "./frame.ts";
import { listNotes, NoteError, newNoteId, noteFolder, readNote, removeNote, writeNote } from "./store.ts";

interface Request {
  jsonrpc: "2.0";
  id?: number | string;
  method: string;
  params?: Record<string, unknown>;
}

type Args = Record<string, unknown>;

const RUNS: Record<string, (args: Args, dataDir: string) => unknown> = {
  "note.add": (args, dataDir) => {
    const now = new Date().toISOString();
    const title = String(args.title).trim();
    const body = String(args.body);
    const id = newNoteId(title);
    writeNote(noteFolder(args, dataDir), { id, title, body, created: now, updated: now });
    return { type: "object", value: { id, title, bytes: Buffer.byteLength(body) } };
  },
  "note.list": (args, dataDir) => {
    const notes = listNotes(noteFolder(args, dataDir));
    const limit = typeof args.limit === "number" ? args.limit : 100;
    const rows = notes.slice(0, limit).map((n) => [n.id, n.title, n.updated, Buffer.byteLength(n.body)]);
    return { type: "table", columns: ["id", "title", "updated", "bytes"], rows, total: notes.length };
  },
  "note.rm": (args, dataDir) => {
    const id = String(args.id);
    removeNote(noteFolder(args, dataDir), id);
    return { type: "object", value: { id, removed: true } };
  },
  "note.show": (args, dataDir) => {
    const n = readNote(noteFolder(args, dataDir), String(args.id));
    return {
      type: "object",
      value: { id: n.id, title: n.title, body: n.body, created: n.created, updated: n.updated },
    };
  },
};

function answer(req: Request): unknown {
  const p = req.params ?? {};
  if (req.method === "describe") return { name: "note", version, protocol: 1, capabilities: DECLS };
  if (req.method === "run") {
    const run = RUNS[String(p.capability)];
    if (!run) throw Object.assign(new Error(`no capability ${String(p.capability)}`), { rpc: -32602 });
    return { value: run((p.args ?? {}) as Args, String(p.data_dir ?? "")) };
  }
  throw Object.assign(new Error(`no method ${req.method}`), { rpc: -32601 });
}

function reply(req: Request): Buffer | undefined {
  if (req.id === undefined) return undefined; // a notification (cancel): every call here finishes at once
  try {
    return frame({ jsonrpc: "2.0", id: req.id, result: answer(req) });
  } catch (err) {
    const e = err as Error & { rpc?: number };
    const data = err instanceof NoteError ? { code: err.code, hint: err.hint } : undefined;
    return frame({ jsonrpc: "2.0", id: req.id, error: { code: e.rpc ?? -32000, message: e.message, data } });
  }
}

const reader = new FrameReader();
for await (const chunk of Bun.stdin.stream()) {
  for (const body of reader.push(chunk)) {
    const out = reply(JSON.parse(body) as Request);
    if (out) process.stdout.write(out);
  }
}
