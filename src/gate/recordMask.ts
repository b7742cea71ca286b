/**
 * What the record never keeps: the values of a call's secret inputs (kv.set's
 * value), and each value a read that reveals (kv.get) handed an agent in this
 * process, from then on. Each is masked wherever a later line would hold it:
 * an argument's name, the tool or agent named, an error's message, hint or
 * detail. Errors a secret input's call ends with are masked for its caller too.
 */
import type { Args, Capability } from "../core/capability.ts";
import { RtaError } from "../core/errors.ts";
import { escapeRegExp } from "../core/redact.ts";
import type { ResultValue } from "../core/result.ts";
import { MASK } from "../core/secrets.ts";
import type { RecordEntry } from "../record/append.ts";
import { inputEntries } from "./values.ts";

/**
 * A value shorter than this is not masked: a value like `yes` or `80` would
 * turn every such word in the record into a mask, and says nothing by itself.
 */
export const HIDDEN_MIN_CHARS = 4;
/** The most revealed values a process keeps masking: past it, the oldest are let go. */
const REVEALED_MAX = 10_000;
/**
 * The most characters those values may hold together: past it, the oldest are let go too. Every record line is
 * searched for each of them, and an agent may store values of 1 MiB: ten thousand of them would be searched for in
 * every line and held in memory, 30 GiB with their variants.
 */
export const REVEALED_MAX_CHARS = 16 * 1024 * 1024;

/** Each process's revealed values, by the deps it runs with (a test's deps are a process of their own). */
const revealedBy = new WeakMap<object, Set<string>>();
/** How many characters each process's revealed values hold together. */
const charsBy = new WeakMap<object, number>();

/** The values of `cap`'s secret inputs in what the caller sent, those long enough to mask. */
export function secretValues(cap: Capability, args: unknown): string[] {
  if (args === null || typeof args !== "object") return [];
  const out: string[] = [];
  for (const [name, spec] of inputEntries(cap)) {
    const v = (args as Args)[name];
    if (spec.secret && typeof v === "string") out.push(...variants(v));
  }
  return out;
}

/** Notes the strings a revealing call handed its caller: masked in every record line written after. */
export function noteRevealed(process: object, value: ResultValue): void {
  const found: string[] = [];
  const add = (s: unknown) => {
    if (typeof s === "string") found.push(...variants(s));
  };
  if (value.type === "text") add(value.text);
  else if (value.type === "object") walk(value.value, add);
  else if (value.type === "table" || value.type === "log") for (const row of value.rows) row.forEach(add);
  keep(process, found);
}

/**
 * Notes the values of an agent's secret inputs (a value it stored with
 * kv.set): masked in every record line written after, as a revealed value is.
 * They are its own to know, but a value it stores is one a later line, a host
 * it names, must not keep.
 */
export function noteSecrets(process: object, secrets: readonly string[]): void {
  keep(process, secrets);
}

/** Adds `values` to the process's masked values as the newest, letting the oldest go past either bound. */
function keep(process: object, values: readonly string[]): void {
  const seen = revealedBy.get(process) ?? new Set<string>();
  revealedBy.set(process, seen);
  let chars = charsBy.get(process) ?? 0;
  for (const v of values) {
    if (seen.delete(v)) chars -= v.length;
    seen.add(v);
    chars += v.length;
  }
  while (seen.size > REVEALED_MAX || (chars > REVEALED_MAX_CHARS && seen.size > 1)) {
    const oldest = seen.values().next().value as string;
    seen.delete(oldest);
    chars -= oldest.length;
  }
  charsBy.set(process, chars);
}

/** The strings to mask in the record for one call: its secret inputs and what was revealed before it. */
export function hiddenFor(process: object, secrets: readonly string[] | undefined): readonly string[] {
  const seen = revealedBy.get(process);
  if (!seen || seen.size === 0) return secrets ?? [];
  return [...(secrets ?? []), ...seen];
}

/**
 * The entry with each hidden string masked wherever the caller or an error could have put it; changed in place. A
 * `known` tool's name is kept: every agent is told it, and a value stored as `fs_rm` must not hide which tool ran.
 */
export function maskEntry(entry: RecordEntry, hidden: readonly string[], known = false): void {
  if (hidden.length === 0) return;
  const sorted = longestFirst(hidden);
  entry.agent = masked(entry.agent, sorted);
  entry.client = masked(entry.client, sorted);
  if (!known) entry.capability = masked(entry.capability, sorted);
  entry.args = entry.args.map((a) => masked(a, sorted));
  if (entry.error) {
    entry.error = { ...entry.error, message: masked(entry.error.message, sorted) };
    if (entry.error.hint !== undefined) entry.error.hint = masked(entry.error.hint, sorted);
    if (entry.error.detail !== undefined) entry.error.detail = masked(entry.error.detail, sorted);
  }
}

/** The text with each hidden string masked (the text itself when none is there). Refuses nothing. */
export function maskHidden(text: string, hidden: readonly string[]): string {
  return hidden.length === 0 ? text : masked(text, longestFirst(hidden));
}

/** An error with each hidden string masked in its message and hint (the error itself when none is there). */
export function maskError(e: RtaError, hidden: readonly string[]): RtaError {
  if (hidden.length === 0) return e;
  const sorted = longestFirst(hidden);
  const message = masked(e.message, sorted);
  const hint = e.hint === undefined ? undefined : masked(e.hint, sorted);
  if (message === e.message && hint === e.hint) return e;
  const out = new RtaError(e.code, message, hint);
  if (e.detail !== undefined) out.detail = masked(e.detail, sorted);
  if (e.retryAfter !== undefined) out.retryAfter = e.retryAfter;
  return out;
}

/**
 * The text with each hidden string masked, in any case: a host name is said
 * lower-cased (`http://Zq9x…/` is refused naming `zq9x…`), and a value's
 * letters in another case still say most of it.
 */
function masked(text: string, hidden: readonly Hidden[]): string {
  let out = text;
  let lower = out.toLowerCase();
  for (const [h, l] of hidden) {
    if (!lower.includes(l)) continue;
    out = out.replace(new RegExp(escapeRegExp(h), "gi"), () => MASK);
    lower = out.toLowerCase();
  }
  return out;
}

/** A hidden string with its lower case, made once for every field of an entry. */
type Hidden = readonly [text: string, lower: string];

/** The hidden strings longest first, so one holding another is masked whole. */
function longestFirst(hidden: readonly string[]): Hidden[] {
  return [...hidden].sort((a, b) => b.length - a.length).map((h) => [h, h.toLowerCase()] as const);
}

/** A value as it may be written: itself, trimmed, and as JSON escapes it (a line's quotes and newlines), if long enough. */
function variants(v: string): string[] {
  const forms = new Set([v, v.trim(), JSON.stringify(v).slice(1, -1)]);
  // a value of several lines (a PEM key) is masked line by line too, where a line is long enough to say something
  if (v.includes("\n")) for (const line of v.split("\n")) if (line.trim().length >= 8) forms.add(line.trim());
  return [...forms].filter((f) => f.length >= HIDDEN_MIN_CHARS);
}

function walk(v: unknown, add: (s: unknown) => void): void {
  if (typeof v === "string") add(v);
  else if (Array.isArray(v)) for (const x of v) walk(x, add);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) walk(x, add);
}
