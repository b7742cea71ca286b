/**
 * Codex's config.toml with one `[mcp_servers.<name>]` table put in, as a
 * person would edit it: an earlier table of that name (and its sub-tables,
 * such as `[mcp_servers.<name>.env]`) is taken out where it stood and the new
 * one written in its place, or at the end when there was none. Comments,
 * other tables and their order stay. The caller checks the result with
 * Bun's TOML parser.
 */

/** A TOML basic string: quotes, backslashes and every control character escaped. */
export function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A TOML key: bare when it can be, else a basic string. */
export function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k);
}

/** The dotted parts of a table header's key: `mcp_servers . "rta"` is ["mcp_servers", "rta"]; undefined for a line that is no header. */
function headerPath(line: string): string[] | undefined {
  const m = /^\s*\[\[?(.*?)\]\]?\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  const key = m[1] as string;
  let at = 0;
  while (at < key.length) {
    re.lastIndex = at;
    const p = re.exec(key);
    if (!p) return undefined;
    const part = p[1] !== undefined ? basic(p[1]) : (p[2] ?? p[3]);
    if (part === undefined) return undefined;
    parts.push(part);
    at = re.lastIndex;
  }
  return parts;
}

function basic(escaped: string): string | undefined {
  try {
    return JSON.parse(`"${escaped}"`) as string;
  } catch {
    return undefined; // an escape JSON does not share (\U...): no header of ours
  }
}

/** Whether a line opens or closes a multi-line string (an odd count of `"""` or `'''`). */
function togglesMultiline(line: string): boolean {
  const count = (line.match(/"""|'''/g) ?? []).length;
  return count % 2 === 1;
}

/**
 * The text with `table` (already rendered) as the only `[<path>]` table:
 * an earlier one and its sub-tables replaced where the first stood, their
 * comments kept when they stand before the next table. Refuses nothing; a
 * form it does not take apart (an inline table, dotted keys) is left, and
 * the caller's parse says so.
 */
export function replaceTable(existing: string, path: string[], table: string): string {
  const lines = existing.split("\n");
  const kept: string[] = [];
  let inside = false;
  let multiline = false;
  let placed = -1;
  let pendingComments: string[] = [];
  for (const line of lines) {
    const header = multiline ? undefined : headerPath(line);
    if (togglesMultiline(line)) multiline = !multiline;
    if (header) {
      const ours = path.every((p, i) => header[i] === p);
      if (ours && !inside) {
        inside = true;
        if (placed < 0) placed = kept.length;
        pendingComments = [];
        continue;
      }
      if (!ours && inside) {
        inside = false;
        kept.push(...pendingComments);
        pendingComments = [];
      }
    }
    if (!inside) {
      kept.push(line);
      continue;
    }
    // inside the old table: a comment or blank line may be the next table's, so it waits
    if (/^\s*(#.*)?$/.test(line)) pendingComments.push(line);
    else pendingComments = [];
  }
  if (inside) kept.push(...pendingComments);
  const body = table.replace(/\n+$/, "");
  if (placed >= 0) {
    const before = kept.slice(0, placed);
    const after = kept.slice(placed);
    const gap = after.length > 0 && after[0]?.trim() !== "" ? [""] : [];
    return [...before, body, ...gap, ...after].join("\n");
  }
  const trimmed = existing.replace(/\s+$/, "");
  return `${trimmed}${trimmed ? "\n\n" : ""}${body}\n`;
}
