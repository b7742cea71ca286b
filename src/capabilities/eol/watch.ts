/**
 * eol.watch: the products the operator watches (config's `[eol] watch`),
 * each as installed here (or at the version the entry pins, `redis@7.2`),
 * against endoflife.date: sorted by days left, the soonest first.
 */
import { define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import type { Scalar } from "../../core/result.ts";
import { apiUrlInput, type Freshness } from "./api.ts";
import { standing } from "./check.ts";
import { detect } from "./detect.ts";

/** One watched product's row, before it is sorted. */
type Row = Scalar[];

async function watchRow(entry: string, ctx: RunContext, apiUrl: string, fresh: Freshness): Promise<Row> {
  const [product = "", pinned] = entry.split("@", 2).map((s) => s.trim());
  let version = pinned;
  if (!version) {
    const found = await detect(product, ctx);
    if (typeof found === "string")
      return [
        product,
        null,
        null,
        null,
        null,
        "unknown",
        null,
        found === "unknown" ? `rta cannot detect ${product}: pin it as ${product}@VERSION` : "not installed here",
      ];
    version = found.version;
  }
  try {
    const s = await standing(ctx, apiUrl, product, version, fresh);
    const note = s.update ? `update to ${s.update}` : "";
    return [s.product, version, s.cycle, s.security_end, s.days_left, s.status, s.latest, note];
  } catch (err) {
    // one product endoflife.date does not know, or a version in no cycle, is that row's note; the service down is not
    if (!(err instanceof RtaError) || !err.code.startsWith("eol.")) throw err;
    return [product, version, null, null, null, "unknown", null, err.message];
  }
}

/** Days left, the soonest first; rows with none last, by name. */
function byDaysLeft(a: Row, b: Row): number {
  const [x, y] = [a[4], b[4]];
  if (typeof x === "number" && typeof y === "number" && x !== y) return x - y;
  if (typeof x === "number" && typeof y !== "number") return -1;
  if (typeof y === "number" && typeof x !== "number") return 1;
  return String(a[0]).localeCompare(String(b[0]));
}

export const eolWatch = define({
  name: "eol.watch",
  summary: "The watched products as installed here against endoflife.date, soonest end of life first",
  searchWords: ["end of life", "eol", "endoflife.date", "lifecycle", "outdated", "upgrade"],
  safety: "read",
  offsite: "endoflife.date",
  inputs: {
    watch: {
      type: "string",
      description:
        "the products watched, comma-separated, each optionally at a version (postgresql,redis@7.2): config's [eol] watch",
      operatorOnly: true,
    },
    api_url: apiUrlInput,
  },
  result: {
    shape: "table",
    columns: [
      { name: "product", doc: "endoflife.date's name for it" },
      { name: "installed", doc: "the version found here, or pinned in the watch list" },
      { name: "cycle", doc: "its release cycle" },
      { name: "security_end", doc: "end of security fixes, the end of life" },
      { name: "days_left", doc: "days until security_end; negative once passed" },
      { name: "status", doc: "supported, security fixes only, end of life, or unknown" },
      { name: "latest", doc: "the cycle's latest patch" },
      { name: "note", doc: "the update to take, or why the row has no dates" },
    ],
  },
  examples: [{ command: "rta eol watch", note: "what config's [eol] watch lists, soonest end of life first" }],
  async run(args, ctx) {
    const entries = [
      ...new Set(
        (args.watch ?? "")
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    if (entries.length === 0)
      throw new RtaError(
        "core.input.missing",
        "no product is watched",
        'the operator lists them in config.toml: [eol] watch = ["nodejs", "postgresql"]',
      );
    const fresh: Freshness = { ageMs: 0, stale: false };
    const rows: Row[] = [];
    for (const entry of entries.slice(0, 100)) rows.push(await watchRow(entry, ctx as RunContext, args.api_url, fresh));
    const out = ctx.rows();
    for (const row of rows.sort(byDaysLeft)) out.add(row);
    return out.finish();
  },
});
