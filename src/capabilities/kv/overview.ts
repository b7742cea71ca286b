/**
 * kv.overview: the store's names grouped by their prefix (what comes before
 * the first `/` or `.`), one row a key with its group and when it was set,
 * groups in name order and names without a prefix last; never a value. The
 * time is ISO 8601 in the result; the CLI shows it as an age on a terminal.
 */
import { define } from "../../core/capability.ts";
import { table } from "../../core/result.ts";
import { isoSecond } from "./format.ts";
import { storeAt } from "./places.ts";
import { readStore } from "./store.ts";

/** What names with no `/` or `.` after their first character are grouped under: no key name can be it. */
const NO_PREFIX = "(no prefix)";

export const kvOverview = define({
  name: "kv.overview",
  summary: "Show the secret store's key names grouped by prefix, with how long ago each was set",
  searchWords: ["secrets", "vault", "summary", "ages", "stale"],
  safety: "read",
  inputs: {},
  result: {
    shape: "table",
    columns: [
      { name: "group", doc: "the name's prefix up to its first `/` or `.`, or (no prefix)" },
      { name: "name", doc: "the key's name" },
      { name: "modified", doc: "when its value or comment was last set (UTC)", unit: "time" },
    ],
  },
  examples: [{ command: "rta kv overview", note: "the keys by group, and their ages" }],
  async run(_args, ctx) {
    const store = await readStore(storeAt(ctx));
    const rows: [string, string, string][] = [];
    for (const [name, e] of store) {
      const cut = name.search(/[/.]/);
      rows.push([cut <= 0 ? NO_PREFIX : name.slice(0, cut + 1), name, isoSecond(e.modified)]);
    }
    // by group, those with no prefix last, then by name
    const rank = (g: string) => (g === NO_PREFIX ? 1 : 0);
    rows.sort(
      ([ga, na], [gb, nb]) =>
        rank(ga) - rank(gb) || (ga < gb ? -1 : ga > gb ? 1 : 0) || (na < nb ? -1 : na > nb ? 1 : 0),
    );
    return table(["group", "name", "modified"], rows);
  },
});
