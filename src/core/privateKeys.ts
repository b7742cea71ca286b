/**
 * PEM private keys in a text: where each one's armour stands, and its body
 * masked. A key spans many lines, so a reader that goes line by line asks
 * whether a key is still open (secrets.ts LinesBefore).
 */

/** A PEM private key's armour (`-----BEGIN OPENSSH PRIVATE KEY-----`, its END): what stands between is the key. */
const KEY_ARMOUR = /-----(BEGIN|END) [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
/** How every armour ends: a text without it holds no private key, and a reader looks for it before the whole armour. */
export const ARMOUR_END = "PRIVATE KEY-----";
/** What a text's part is masked after when it stands inside a private key (see maskSecretsAfter). */
export const KEY_OPEN = "-----BEGIN PRIVATE KEY-----\n";

/**
 * The body of each PEM private key masked, its armour kept: a key with no END
 * (cut short, or a part of a text that ends inside one) is masked to the
 * text's end, each body replaced by `mask`. Linear: each armour is found once.
 */
export function maskPrivateKeys(text: string, mask: string): string {
  if (!text.includes(ARMOUR_END)) return text;
  let out = "";
  let at = 0;
  let body = -1; // where the open key's body starts
  const masked = (from: number, to: number) => {
    const b = text.slice(from, to);
    if (!/\S/.test(b)) return b;
    return `${b.startsWith("\n") ? "\n" : ""}${mask}${b.endsWith("\n") ? "\n" : ""}`;
  };
  for (const m of text.matchAll(KEY_ARMOUR)) {
    if (m[1] === "BEGIN") {
      if (body === -1) body = m.index + m[0].length;
      continue;
    }
    if (body === -1) continue;
    out += text.slice(at, body) + masked(body, m.index);
    at = m.index;
    body = -1;
  }
  if (body !== -1) return out + text.slice(at, body) + masked(body, text.length);
  return out + text.slice(at);
}

/** The first private-key armour in a line, BEGIN or END; undefined when it holds none. */
export function keyArmourIn(line: string): "BEGIN" | "END" | undefined {
  if (!line.includes(ARMOUR_END)) return undefined;
  for (const m of line.matchAll(KEY_ARMOUR)) return m[1] as "BEGIN" | "END";
  return undefined;
}

/** Whether a text ends inside a private key: its last armour is a BEGIN. */
export function insideKey(text: string): boolean {
  return keyOpenAfter(false, text);
}

/** Whether a key is open at the end of `text`, `open` saying whether one was at its start: its last armour says. */
export function keyOpenAfter(open: boolean, text: string): boolean {
  if (!text.includes(ARMOUR_END)) return open;
  let inside = open;
  for (const m of text.matchAll(KEY_ARMOUR)) inside = m[1] === "BEGIN";
  return inside;
}
