/**
 * Measuring a result without serialising it whole: the JSON length of a value
 * is summed piece by piece, and the walk stops as soon as it passes a limit.
 */

/** The length in bytes of JSON.stringify(value), or a number above `limit` as soon as it is passed. */
export function jsonSize(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || v === undefined) size += 4;
    else if (typeof v === "string") size += stringSize(v);
    else if (typeof v === "number") size += numberSize(v);
    else if (typeof v === "boolean") size += v ? 4 : 5;
    else if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (typeof v === "object") {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      size += 2 + Math.max(0, entries.length - 1);
      for (const [k, x] of entries) {
        size += stringSize(k) + 1;
        stack.push(x);
      }
    }
    if (size > limit) return size;
  }
  return size;
}

/**
 * A bound on the length in bytes of JSON.stringify(value) that is never
 * below it, found without looking inside a string: 6 bytes per UTF-16 unit
 * (`\u001f` is 6; no unit takes more, in any escape or UTF-8), 25 per number.
 * Returns as soon as it passes `limit`. Most results lie far within their
 * bound, and this tells so for a fraction of what jsonSize costs.
 */
export function jsonSizeAtMost(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") size += 6 * v.length + 2;
    else if (v === null || v === undefined || typeof v === "boolean") size += 5;
    else if (typeof v === "number") size += 25;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      if (size > limit) return size;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (typeof v === "object") {
      size += 2;
      for (const k in v as Record<string, unknown>) {
        if (!Object.hasOwn(v as object, k)) continue;
        size += 6 * k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else size += jsonSize(v);
    if (size > limit) return size;
  }
  return size;
}

/** The JSON length of a row of scalars, without allocating: the hot path of a table writer. */
export function rowSize(row: readonly unknown[]): number {
  let size = 2 + Math.max(0, row.length - 1);
  for (const cell of row) {
    if (typeof cell === "string") size += stringSize(cell);
    else if (typeof cell === "number") size += numberSize(cell);
    else if (typeof cell === "boolean") size += cell ? 4 : 5;
    else if (cell === null || cell === undefined) size += 4;
    else size += jsonSize(cell);
  }
  return size;
}

/** Digits of a safe integer are counted; anything else is measured as JSON writes it. */
function numberSize(n: number): number {
  if (!Number.isFinite(n)) return 4;
  if (Number.isSafeInteger(n)) {
    let digits = n < 0 ? 2 : 1;
    for (let m = Math.abs(n); m >= 10; m = Math.floor(m / 10)) digits++;
    return digits;
  }
  return String(n).length;
}

/** UTF-8 bytes of a string as JSON writes it, quotes and escapes included. */
export function stringSize(s: string): number {
  // Plain printable ASCII is by far the common case; only strings with something to escape pay for stringify.
  if (/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return s.length + 2;
  return Buffer.byteLength(JSON.stringify(s));
}
