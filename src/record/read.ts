/**
 * Reads the record back. A line that does not parse (a write cut short by a
 * killed process, or an edit) is counted, not fatal: the rest stays readable.
 */
import { readFileSync } from "node:fs";
import type { RecordLine } from "./append.ts";

export interface RecordRead {
  lines: RecordLine[];
  /** 1-based line numbers that did not parse as a record line */
  malformed: number[];
}

export function readRecord(path: string): RecordRead {
  let body: string;
  try {
    body = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { lines: [], malformed: [] };
    throw err;
  }
  return parseRecord(body);
}

export function parseRecord(body: string): RecordRead {
  const out: RecordRead = { lines: [], malformed: [] };
  const raw = body.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const text = raw[i] as string;
    if (text === "") continue;
    const line = parseLine(text);
    if (line) out.lines.push(line);
    else out.malformed.push(i + 1);
  }
  return out;
}

function parseLine(text: string): RecordLine | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (isRecordLine(value)) return value;
  } catch {
    // falls through: counted as malformed by the caller
  }
  return undefined;
}

function isRecordLine(value: unknown): value is RecordLine {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.time === "string" &&
    typeof v.session === "string" &&
    typeof v.seq === "number" &&
    typeof v.agent === "string" &&
    typeof v.capability === "string" &&
    typeof v.outcome === "string" &&
    typeof v.duration_ms === "number" &&
    Array.isArray(v.args)
  );
}
