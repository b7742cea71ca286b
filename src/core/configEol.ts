/**
 * Config's `[eol]` table: `watch = ["nodejs", "redis@7.2"]`, what eol.watch
 * compares with what is installed, kept as that read's operator-only list.
 */

/** The watch list as eol.watch's input takes it (comma-joined); undefined, with `problem` told why, when it does not read. */
export function eolWatchOf(value: unknown, problem: (where: string, why: string) => void): string | undefined {
  const table =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (table === undefined || Object.keys(table).some((k) => k !== "watch") || !Array.isArray(table.watch ?? [])) {
    problem("[eol]", 'takes only watch = ["product", "product@version", ...]');
    return undefined;
  }
  const watch = (table.watch ?? []) as unknown[];
  if (!watch.every((w) => typeof w === "string" && /^[^,\s]+$/.test(w))) {
    problem("[eol] watch", "must list product names, each with no comma or space");
    return undefined;
  }
  return table.watch === undefined ? undefined : (watch as string[]).join(",");
}
