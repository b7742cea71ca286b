/**
 * `rta agent log --verify`: the record read back against its key and the grant
 * store's checkpoint, and the verdict rendered. Never a tool.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { GATE_STORE_FILE, GateStore } from "../gate/gateStore.ts";
import type { PgRecordReader } from "../gate/store/pgRecordRead.ts";
import { RECORD_KEY_FILE, readRecordKey } from "../record/key.ts";
import { type Verdict, type VerifyOptions, verifyFile } from "../record/verify.ts";
import type { Cli } from "./factory.ts";
import { jsonText } from "./io.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";

/**
 * `rta agent log --verify`: checks the record's chain against its key and the
 * grant store's checkpoint, and says each problem found. Exits 1 on any
 * problem; a key or store that cannot be read is core.record.unavailable.
 */
export function verifyRecord(cli: Cli, file: string, json: boolean): number {
  let verdict: Verdict;
  try {
    verdict = verifyFile(file, verifyOptions(cli));
  } catch (err) {
    return reportError(cli.io, err as RtaError, json);
  }
  return sayVerdict(cli, { file }, verdict, json);
}

/**
 * `rta agent log --verify --store postgres://…`: checks each session's chain in the store against the store's key,
 * its checkpoint and the chain of session starts, and says each problem found, as verifyRecord does. Exits 1 on
 * any problem; a store that cannot be read is core.store.unavailable, without its password.
 */
export function verifyStore(cli: Cli, store: PgRecordReader, json: boolean): number {
  let verdict: Verdict;
  try {
    verdict = store.verify();
  } catch (err) {
    return reportError(cli.io, err as RtaError, json);
  }
  return sayVerdict(cli, { store: store.label }, verdict, json);
}

function sayVerdict(cli: Cli, where: { file: string } | { store: string }, verdict: Verdict, json: boolean): number {
  // Piped, the verdict is the same sentence (a script reads the exit status); JSON only with --json.
  if (json) cli.io.out(jsonText(cli.io, { ...where, ...verdict }));
  else if (verdict.problems.length === 0) {
    const open = verdict.open.length > 0 ? `, ${verdict.open.length} still open` : "";
    const named = "file" in where ? where.file : where.store;
    cli.io.out(`record verified: ${verdict.lines} lines in ${verdict.sessions} sessions${open} (${shown(named)})\n`);
  } else {
    for (const p of verdict.problems) {
      // a problem of the whole record (line 0) is its own sentence: "the data dir holds no checkpoint …"
      const place = p.line === 0 ? "" : `line ${p.line}${p.session ? ` (session ${shown(p.session)})` : ""} `;
      // a store's problem can quote a session id a line claimed: escaped
      cli.io.out(`${p.kind}: ${place}${"file" in where ? p.what : shown(p.what)}\n`);
    }
  }
  return verdict.problems.length === 0 ? Exit.ok : Exit.failure;
}

/** The key and the store's checkpoint, read without making either: verifying changes nothing. */
function verifyOptions(cli: Cli): VerifyOptions {
  const data = dirs(cli.io.env).data;
  const unreadable = (what: string, err: unknown) =>
    new RtaError(
      "core.record.unavailable",
      // A store's own refusal is said in its words: its code in brackets read as a second code beside this one.
      err instanceof RtaError
        ? `the record cannot be verified: ${what} cannot be read: ${err.message}`
        : `the record cannot be verified: ${what} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      "run it as the user the servers run as (rta doctor will say more)",
    );
  let key: Buffer | undefined;
  try {
    key = readRecordKey(data);
  } catch (err) {
    throw unreadable(RECORD_KEY_FILE, err);
  }
  const store = join(data, GATE_STORE_FILE);
  if (!existsSync(store)) return { ...(key ? { key } : {}), checkpoint: { n: 0, mac: "", size: 0 } };
  let gate: GateStore | undefined;
  try {
    gate = new GateStore(store);
    return { ...(key ? { key } : {}), checkpoint: gate.recordCheckpoint() };
  } catch (err) {
    throw unreadable(GATE_STORE_FILE, err);
  } finally {
    gate?.close();
  }
}
