/**
 * A control character (C0, DEL, C1), a line separator or an invisible format
 * character (a bidirectional override, a zero-width one, a Unicode tag): what
 * a terminal acts on (clearing it, setting its title, reordering what follows)
 * when `rta explain` or a command's help prints what code rta did not write
 * declared, what a tab-separated row breaks on, and words an agent reads in a
 * tool's description that the person shown it could not see.
 */
const CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
/** The same, but for tab and line feed, which an upstream tool's description may hold as plain layout. */
const CONTROL_BUT_LAYOUT = /(?![\t\n])[\p{Cc}\p{Cf}\u2028\u2029]/u;

/**
 * Where in a declaration (a JSON pointer, "/" for the whole) a string, or an
 * object's key, holds a control character; undefined when none does. Tab and
 * line feed pass when `layout` is true.
 */
export function controlAt(value: unknown, at = "", layout = false): string | undefined {
  const inText = layout ? CONTROL_BUT_LAYOUT : CONTROL;
  if (typeof value === "string") return inText.test(value) ? at || "/" : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, v] of Object.entries(value)) {
    const here = `${at}/${key}`;
    if (inText.test(key)) return JSON.stringify(here);
    const found = controlAt(v, here, layout);
    if (found !== undefined) return found;
  }
  return undefined;
}
