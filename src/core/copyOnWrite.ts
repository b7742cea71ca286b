/**
 * Walking a value to give back one like it with some strings changed: what is
 * left as it was is given back itself, so a result redaction does not change
 * is not copied, and one it changes is copied only along the path to each change.
 */

/** Whether a value is an array or an object literal (or one with no prototype), whose reuse JSON cannot tell. */
export function plain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === Array.prototype || proto === null;
}

/** An array's items walked; the array itself when every item came back as it was. */
export function sameOrCopied(items: unknown[], walk: (v: unknown) => unknown): unknown[] {
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    const y = walk(x);
    if (y === x) continue;
    const out = items.slice(0, i);
    out.push(y);
    for (let j = i + 1; j < items.length; j++) out.push(walk(items[j]));
    return out;
  }
  return items;
}

/** Sets a key as an own property, so `__proto__` stays a key. */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
