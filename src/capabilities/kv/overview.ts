/**
 * kv.overview: the store's names grouped by their prefix (what comes before
 * the first `/` or `.`), each with how long ago it was set (`db/prod (3 d ago)`);
 * never a value.
 * It names the store, as `<data dir>/kv.age` for an agent.
 */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { relativeWords } from "../../core/words.ts";
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
  result: { shape: "object" },
  examples: [{ command: "rta kv overview", note: "the keys by group, and their ages" }],
  async run(_args, ctx) {
    const p = storeAt(ctx);
    const store = await readStore(p);
    const now = ctx.clock.now() / 1000;
    const groups = new Map<string, string[]>();
    for (const name of [...store.keys()].sort()) {
      const e = store.get(name);
      if (!e) continue;
      const cut = name.search(/[/.]/);
      const group = cut <= 0 ? NO_PREFIX : name.slice(0, cut + 1);
      const list = groups.get(group) ?? [];
      list.push(`${name} (${relativeWords(Date.parse(e.modified) / 1000, now)})`);
      groups.set(group, list);
    }
    // the groups in name order, those with no prefix last
    const order = [...groups.keys()].sort((a, b) => (a === NO_PREFIX ? 1 : b === NO_PREFIX ? -1 : a < b ? -1 : 1));
    const byGroup: Record<string, string> = {};
    for (const prefix of order) {
      const names = groups.get(prefix) ?? [];
      byGroup[prefix] = `${names.length === 1 ? "1 key" : `${names.length} keys`}: ${names.join(", ")}`;
    }
    return object({ store: p.file, keys: store.size, groups: byGroup });
  },
});
