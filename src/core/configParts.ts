/**
 * Config's smaller settings, each read on its own: `[paths]`, `confirm` and
 * `[eol]` (`watch = ["nodejs", "redis@7.2"]`, what eol.watch compares with
 * what is installed, kept as that read's operator-only list).
 */

type Problem = (where: string, why: string) => void;

/** `[paths] hardlinks = true`; undefined, with `problem` told why, when it does not read. */
export function hardlinksOf(value: unknown, problem: Problem): boolean | undefined {
  const table =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (
    table === undefined ||
    Object.keys(table).some((k) => k !== "hardlinks") ||
    (table.hardlinks !== undefined && typeof table.hardlinks !== "boolean")
  ) {
    problem("[paths]", "takes only hardlinks = true or false");
    return undefined;
  }
  return table.hardlinks === true;
}

/** `confirm = ["fs.rm", "proc"]`: capabilities or areas this operator accepts live; undefined, with `problem` told why, when it does not read. */
export function confirmOf(value: unknown, problem: Problem): string[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && /^[a-z][a-z0-9.-]*$/.test(v))) {
    problem("confirm", "must be a list of capability or area names (fs.rm, proc)");
    return undefined;
  }
  return value as string[];
}

/** The watch list as eol.watch's input takes it (comma-joined); undefined, with `problem` told why, when it does not read. */
export function eolWatchOf(value: unknown, problem: Problem): string | undefined {
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

/**
 * `store = "postgres://user@host/db"`: the store a team's replicas share (grants, locks, tokens, rate buckets);
 * undefined, with `problem` told why, when it is not a postgres:// URL. Its password is never repeated in the why.
 */
export function storeOf(value: unknown, problem: Problem): string | undefined {
  if (typeof value !== "string" || !/^postgres(ql)?:\/\/[^\s]+$/i.test(value)) {
    problem("store", 'must be a PostgreSQL URL, "postgres://user@host:5432/db" (without it, the data dir\'s gate.db)');
    return undefined;
  }
  return value;
}

/** Why the OS would not read a config file, in words, not an errno or the path again. */
export function unreadableWhy(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === "EACCES" || code === "EPERM"
    ? "permission denied"
    : code === "EISDIR"
      ? "it is a directory"
      : code === "ENOTDIR"
        ? "its dir is not a directory"
        : "the system would not read it";
}
