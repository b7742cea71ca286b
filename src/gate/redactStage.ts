/**
 * Stage 13, redact: what an agent is told names rta's data dir, config dir
 * and identity file only as <data dir>, <config dir> and <identity file>, and
 * masks URL userinfo, token parameters and credential headers, in messages,
 * hints and results alike. The strings the agent sent are its own and are
 * left as they were. The record keeps the error as it was written (stage 14).
 */
import type { Call, Outcome } from "../core/call.ts";
import { plain, sameOrCopied, setOwn } from "../core/copyOnWrite.ts";
import { RtaError } from "../core/errors.ts";
import type { Redactor } from "../core/redact.ts";
import type { ResultValue, Scalar, TreeNode } from "../core/result.ts";
import { CREDENTIAL_KEY, MASK } from "../core/secrets.ts";

/** Stage 13: rta's places and secrets out of an agent's outcome, the strings the agent sent kept as sent. */
export function redactOutcome(outcome: Outcome, call: Call, redactor: Redactor): Outcome {
  // asked only when a text names a place: most outcomes name none
  let sent: string[] | undefined;
  const kept = () => {
    sent ??= sentStrings(call.args);
    return sent;
  };
  if (outcome.ok) return { ok: true, value: redactor.value(byName(outcome.value), kept) };
  const e = outcome.error;
  const hint = e.hint === undefined ? undefined : redactor.text(e.hint, kept);
  const shown = new RtaError(e.code, redactor.text(e.message, kept), hint);
  if (e.retryAfter !== undefined) shown.retryAfter = e.retryAfter;
  return { ok: false, error: shown };
}

/**
 * Every string the agent sent, at any depth of its arguments, the names of
 * its arguments included: a refusal echoes an unknown one, and one that
 * names rta's data dir came back renamed, so a right guess was confirmed.
 */
function sentStrings(args: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x);
      }
  };
  walk(args);
  return out;
}

/**
 * A value's texts named as credentials masked, as an object's are by their
 * key: a table's or log's cells under a column named so (`password`,
 * `token`, `authorization`), and a tree node's value when the node is named
 * so; and in a table of names and values, the value in a row that names a
 * credential. A plugin answers in any shape it declares, and a secret a table holds
 * is one an object holding the same would have masked. The rest is given
 * back as it was, not copied.
 */
function byName(value: ResultValue): ResultValue {
  if (value.type === "table" || value.type === "log") {
    const masked = value.columns.flatMap((c, i) => (CREDENTIAL_KEY.test(c) ? [i] : []));
    const names = value.columns.flatMap((c, i) => (NAME_COLUMN.test(c) ? [i] : []));
    const values = value.columns.flatMap((c, i) => (VALUE_COLUMN.test(c) ? [i] : []));
    const pairs = names.length > 0 && values.length > 0;
    if (masked.length === 0 && !pairs) return value;
    const rows = value.rows.map((row) => {
      const named = pairs && names.some((i) => typeof row[i] === "string" && CREDENTIAL_KEY.test(row[i] as string));
      return row.map((cell, i) => (masked.includes(i) || (named && values.includes(i)) ? maskedScalar(cell) : cell));
    });
    return { ...value, rows } as ResultValue;
  }
  if (value.type === "tree") {
    const root = maskedNode(value.root);
    return root === value.root ? value : { ...value, root };
  }
  if (value.type === "object") {
    const inner = maskedPairs(value.value);
    return inner === value.value ? value : ({ ...value, value: inner } as ResultValue);
  }
  return value;
}

/**
 * An object's pairs of a name and a value at any depth (`env: [{ name:
 * "password", value: … }]`) masked as a table's rows of names and values are;
 * the rest given back as it was, not copied.
 */
function maskedPairs(v: unknown): unknown {
  if (v === null || typeof v !== "object" || !plain(v)) return v;
  if (Array.isArray(v)) return sameOrCopied(v, maskedPairs);
  const from = v as Record<string, unknown>;
  const keys = Object.keys(from);
  const named = keys.some((k) => NAME_COLUMN.test(k) && typeof from[k] === "string" && CREDENTIAL_KEY.test(from[k]));
  let out: Record<string, unknown> | undefined;
  for (const k of keys) {
    const x = from[k];
    const y = named && VALUE_COLUMN.test(k) && typeof x === "string" && x !== "" ? MASK : maskedPairs(x);
    if (y === x) continue;
    if (out === undefined) {
      out = {};
      for (const j of keys) setOwn(out, j, from[j]);
    }
    setOwn(out, k, y);
  }
  return out ?? v;
}

/**
 * A table of names and values (`name`/`value`, `key`/`value`, `header`/`value`):
 * a row whose name is a credential's holds the credential in its value.
 */
const NAME_COLUMN = /^(?:name|key|field|header|variable|setting|param|parameter|property|option)$/i;
const VALUE_COLUMN = /^(?:value|val|data|content)$/i;

function maskedScalar(cell: Scalar): Scalar {
  return typeof cell === "string" && cell !== "" ? MASK : cell;
}

function maskedNode(node: TreeNode): TreeNode {
  const value = node.value !== undefined && CREDENTIAL_KEY.test(node.name) ? maskedScalar(node.value) : node.value;
  let children = node.children;
  if (children !== undefined) {
    const walked = children.map(maskedNode);
    if (walked.some((c, i) => c !== children?.[i])) children = walked;
  }
  if (value === node.value && children === node.children) return node;
  const out: TreeNode = { ...node, value: value as Scalar };
  if (children !== undefined) out.children = children;
  return out;
}
