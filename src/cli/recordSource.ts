/**
 * Where `rta agent log` and `agent overview` read the record: the data dir's
 * file, or, with a PostgreSQL store (--store, RTA_STORE or config's store),
 * the store, where its servers wrote it (gate/store/pgRecord.ts). Named to a
 * person without the store's password.
 */
import { join } from "node:path";
import { dirs, RECORD_FILE } from "../core/dirs.ts";
import { RtaError } from "../core/errors.ts";
import { PgRecordReader } from "../gate/store/pgRecordRead.ts";
import type { RecordLine } from "../record/line.ts";
import { eachRecordLine } from "../record/read.ts";
import type { Cli } from "./factory.ts";
import { reportError } from "./report.ts";
import { namedStore, postgresStore } from "./storeFlag.ts";

/** The record's lines in the order they were written, and its place; a file's or a store's. */
export interface RecordSource {
  /** where the record is, as a person is told: the file's path, or the store's URL without its password */
  where: string;
  /** the file's path; undefined for a store */
  file?: string;
  /** each line (undefined for one that is no record line) and its place from 1 */
  each(fn: (line: RecordLine | undefined, at: number) => void): void;
  /** a store's reader, for --follow and --verify */
  store?: PgRecordReader;
  close(): void;
}

/**
 * The record the environment names: the store's when it is a PostgreSQL one, else the data dir's file. Refuses
 * (core.store.unavailable) a store that is no postgres:// URL, without repeating it (it may carry a password), and
 * (core.config.invalid) a config that names a store but does not read, as a server does: the data dir's file is not
 * where that store's servers write.
 */
export function recordSource(cli: Cli): RecordSource {
  const env = cli.io.env;
  const d = dirs(env);
  const shared = namedStore(env);
  if (shared) {
    const store = new PgRecordReader(postgresStore(shared));
    return { where: store.label, each: (fn) => store.eachLine(fn), store, close: () => store.close() };
  }
  const file = join(d.data, RECORD_FILE);
  return { where: file, file, each: (fn) => eachRecordLine(file, fn), close: () => {} };
}

/**
 * Runs `read` on the record this command names (recordSource) and closes it after. A record that cannot be
 * opened or read (a file, or a store), is said as itself (`rta: error: … (code)` and its hint, and JSON with
 * --json), never with the store's password; anything else is thrown on.
 */
export async function withRecord(
  cli: Cli,
  json: boolean,
  read: (source: RecordSource) => number | Promise<number>,
): Promise<number> {
  let source: RecordSource;
  try {
    source = recordSource(cli);
  } catch (err) {
    if (err instanceof RtaError) return reportError(cli.io, err, json);
    throw err;
  }
  try {
    return await read(source);
  } catch (err) {
    if (err instanceof RtaError) return reportError(cli.io, err, json);
    throw err;
  } finally {
    source.close();
  }
}
