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

/** An object's keys and values. */
export type Entries = Record<string, unknown>;

/**
 * An object's entries walked, each key renamed by `name` and its value walked by `walk` (handed the key); the
 * object itself when every key and value came back as it was. Keys are set as own properties (setOwn).
 */
export function sameOrCopiedEntries(
  from: Entries,
  name: (key: string) => string,
  walk: (v: unknown, key: string) => unknown,
): Entries {
  const keys = Object.keys(from);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = from[k];
    const value = walk(x, k);
    const renamed = name(k);
    if (value === x && renamed === k) continue;
    // the first change: a copy of the keys before it, then every key after it
    const out: Entries = {};
    for (let j = 0; j < i; j++) setOwn(out, keys[j] as string, from[keys[j] as string]);
    setOwn(out, renamed, value);
    for (let j = i + 1; j < keys.length; j++) {
      const later = keys[j] as string;
      setOwn(out, name(later), walk(from[later], later));
    }
    return out;
  }
  return from;
}

/** A copy of an object's own enumerable entries, walked as sameOrCopiedEntries walks them, whether or not one changed. */
export function copiedEntries(
  from: Entries,
  name: (key: string) => string,
  walk: (v: unknown, key: string) => unknown,
): Entries {
  const out: Entries = {};
  for (const k of Object.keys(from)) setOwn(out, name(k), walk(from[k], k));
  return out;
}

/** Sets a key as an own property, so `__proto__` stays a key. */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
