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
    else if (typeof v === "number") size += Number.isFinite(v) ? String(v).length : 4;
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

/** UTF-8 bytes of a string as JSON writes it, quotes and escapes included. */
export function stringSize(s: string): number {
  // Plain printable ASCII is by far the common case; only strings with something to escape pay for stringify.
  if (/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) return s.length + 2;
  return Buffer.byteLength(JSON.stringify(s));
}
