/**
 * A record line as `rta agent log` prints it: fields two spaces apart on a
 * terminal, tab-separated piped, one JSON object with --json; and the output
 * gathered into large writes.
 */
import type { RecordLine } from "../record/line.ts";
import type { Cli } from "./factory.ts";
import type { Form } from "./io.ts";
import { plainCell } from "./plain.ts";
import { jsonShown, shown } from "./render.ts";

/** A record line for the form: fields two spaces apart on a terminal, tab-separated piped, one object with --json. */
export function lineFor(form: Form, l: RecordLine): string {
  if (form === "json") return jsonShown(l);
  return form === "terminal" ? humanLine(l) : plainLine(l);
}

/** One record line as a pipe takes it: time (ISO), session, agent, capability, outcome, ms, grant, probe; tab-separated. */
function plainLine(l: RecordLine): string {
  const time = l.time.replace(/\.\d+Z$/, "Z");
  const cells = [
    time,
    l.session,
    l.agent,
    l.capability,
    l.outcome,
    l.duration_ms,
    l.grant ?? null,
    l.probe ? "probe" : null,
  ];
  return cells.map((c) => plainCell(c as string | number | null)).join("\t");
}

/** How much output is gathered before it is written: one write a line would cost a system call each. */
const OUTPUT_BATCH_CHARS = 64 * 1024;

/** Output gathered into writes of about OUTPUT_BATCH_CHARS. */
export class Batched {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly io: Cli["io"]) {}

  add(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= OUTPUT_BATCH_CHARS) this.flush();
  }

  flush(): void {
    if (this.parts.length > 0) this.io.out(this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }
}

/** One record line as a person reads it, every field escaped; refuses nothing. */
export function humanLine(l: RecordLine): string {
  const extras = [l.grant && `grant ${l.grant}`, l.probe && "probe", l.via === "resource" && "as resource read"]
    .filter(Boolean)
    .join("  ");
  // Every field is shown escaped: the record holds what an agent chose (its name, its tool names) and what
  // anyone who wrote the file put there.
  const fields = [l.time.replace(/\.\d+Z$/, "Z"), l.session, l.agent, l.capability, l.outcome].map((f) =>
    shown(String(f)),
  );
  return `${fields.join("  ")}  ${shown(String(l.duration_ms))} ms${extras ? `  ${shown(extras)}` : ""}`;
}
