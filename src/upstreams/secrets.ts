/**
 * The operator's secrets an upstream is handed (its env and header values):
 * masked out of every text that comes from the upstream (its tools'
 * descriptions and schemas, its answers, its errors) before rta passes it on.
 */

/** Said in place of an operator's secret an upstream echoed. */
export const MASKED = "<upstream secret>";

/** A text with each of `secrets` (longest first) masked, as itself and as JSON escapes it; refuses nothing. */
export function masked(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    out = out.split(s).join(MASKED);
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s) out = out.split(escaped).join(MASKED);
  }
  return out;
}
