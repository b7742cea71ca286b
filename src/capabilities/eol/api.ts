/**
 * endoflife.date's API v1 as the eol reads ask it, through the offsite client
 * (the operator's base URL, a day's cache): `/api/v1/products` and
 * `/api/v1/products/{product}`, read into the few fields the reads show, and
 * a version matched to its release cycle.
 */
import type { OffsiteAnswer, OffsiteClient } from "../../core/access.ts";
import type { RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import type { Warning } from "../../core/result.ts";
import { closest } from "../../core/suggest.ts";

export const DAY_MS = 86_400_000;

/** The base URL input every eol read takes: the operator's, never an agent's. */
export const apiUrlInput = {
  type: "string",
  description: "endoflife.date's base URL: the operator's, set in config ([defaults.eol] api_url) for a mirror",
  operatorOnly: true,
  baseUrl: true,
  default: "https://endoflife.date",
} as const;

/** One product in the list. */
export interface ProductEntry {
  name: string;
  label: string;
  category: string;
  aliases: string[];
}

/** One release cycle of a product, its dates as YYYY-MM-DD or null when none is known. */
export interface Cycle {
  name: string;
  label: string;
  releaseDate: string | null;
  lts: boolean;
  /** end of active support (eoasFrom) */
  supportEnd: string | null;
  /** end of security support, the end of life (eolFrom) */
  securityEnd: string | null;
  /** end of extended, often paid, support (eoesFrom) */
  extendedEnd: string | null;
  isEol: boolean;
  latest: string | null;
  latestDate: string | null;
}

export interface Product {
  name: string;
  label: string;
  cycles: Cycle[];
}

/** How old the answers a read used are: the oldest, and whether any was given stale (the service unreachable). */
export interface Freshness {
  ageMs: number;
  stale: boolean;
}

/** A table's warning when an answer it used was given stale (the service could not be reached); none else. */
export function staleWarnings(fresh: Freshness): { warnings?: Warning[] } {
  if (!fresh.stale) return {};
  const days = Math.floor(fresh.ageMs / DAY_MS);
  return {
    warnings: [
      {
        code: "offsite.stale",
        message: `endoflife.date could not be reached, so this is from its answers of ${days} day${days === 1 ? "" : "s"} ago`,
      },
    ],
  };
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const date = (v: unknown): string | null => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null);

function invalid(what: string): RtaError {
  return new RtaError(
    "offsite.answer.invalid",
    `endoflife.date's answer for ${what} is not the shape its API v1 documents`,
    "check api_url: it must be endoflife.date or a mirror of its API v1",
  );
}

/** The client for the call's api_url (the gate refuses any other base). */
export function client(ctx: Pick<RunContext, "offsite">, apiUrl: string): OffsiteClient {
  return ctx.offsite(apiUrl);
}

function parse(answer: OffsiteAnswer, what: string): Record<string, unknown> {
  if (answer.status !== 200)
    throw new RtaError(
      "offsite.answer.invalid",
      `endoflife.date answered ${answer.status} for ${what}`,
      "try again later, or check api_url",
    );
  try {
    const value = JSON.parse(answer.body.toString("utf8")) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw invalid(what);
}

function note(fresh: Freshness, answer: OffsiteAnswer): void {
  fresh.ageMs = Math.max(fresh.ageMs, answer.ageMs);
  fresh.stale ||= answer.stale;
}

/** Every product endoflife.date lists. Refuses what the client refuses, and offsite.answer.invalid. */
export async function listProducts(api: OffsiteClient, fresh: Freshness): Promise<ProductEntry[]> {
  const answer = await api.get("/api/v1/products");
  note(fresh, answer);
  const result = parse(answer, "the product list").result;
  if (!Array.isArray(result)) throw invalid("the product list");
  return result.flatMap((p: Record<string, unknown>) => {
    const name = str(p?.name);
    if (!name) return [];
    const aliases = Array.isArray(p.aliases) ? p.aliases.filter((a): a is string => typeof a === "string") : [];
    return [{ name, label: str(p.label) ?? name, category: str(p.category) ?? "", aliases }];
  });
}

/**
 * A product's cycles, by its name or one of its aliases (node is nodejs). Refuses eol.product.unknown a name
 * endoflife.date has not, with the nearest names, and what the client refuses.
 */
export async function productCycles(api: OffsiteClient, wanted: string, fresh: Freshness): Promise<Product> {
  const name = wanted.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9._+-]{0,63}$/.test(name)) throw unknown(wanted, []);
  let answer = await api.get(`/api/v1/products/${encodeURIComponent(name)}`);
  if (answer.status === 404) {
    const list = await listProducts(api, fresh);
    const found = list.find((p) => p.aliases.includes(name) || p.name === name);
    if (!found)
      throw unknown(
        wanted,
        closest(
          name,
          list.map((p) => p.name),
        ),
      );
    answer = await api.get(`/api/v1/products/${encodeURIComponent(found.name)}`);
  }
  note(fresh, answer);
  const result = parse(answer, name).result as Record<string, unknown> | undefined;
  if (typeof result !== "object" || result === null || !Array.isArray(result.releases)) throw invalid(name);
  const cycles = result.releases.flatMap((r: Record<string, unknown>): Cycle[] => {
    const cycle = str(r?.name);
    if (!cycle) return [];
    const latest = typeof r.latest === "object" && r.latest !== null ? (r.latest as Record<string, unknown>) : {};
    return [
      {
        name: cycle,
        label: str(r.label) ?? cycle,
        releaseDate: date(r.releaseDate),
        lts: r.isLts === true,
        supportEnd: date(r.eoasFrom),
        securityEnd: date(r.eolFrom),
        extendedEnd: date(r.eoesFrom),
        isEol: r.isEol === true,
        latest: str(latest.name),
        latestDate: date(latest.date),
      },
    ];
  });
  return { name: str(result.name) ?? name, label: str(result.label) ?? name, cycles };
}

function unknown(wanted: string, near: string[]): RtaError {
  return new RtaError(
    "eol.product.unknown",
    `endoflife.date has no product ${JSON.stringify(wanted)}`,
    near.length > 0
      ? `did you mean ${near.join(", ")}? \`rta eol products\` lists them`
      : "`rta eol products` lists them",
  );
}

/**
 * The cycle a version belongs to: the one named as the version, else the longest name that is the version's
 * leading dotted parts (20.11.1 is in 20, 3.11.2 in 3.11, 6.1.0-18-amd64 in 6.1). Undefined when none is.
 */
export function cycleOf(cycles: Cycle[], version: string): Cycle | undefined {
  const v = version.trim().replace(/^v/i, "");
  let best: Cycle | undefined;
  for (const c of cycles) {
    const n = c.name.toLowerCase();
    if (v.toLowerCase() === n) return c;
    const rest = v.slice(n.length);
    if (v.toLowerCase().startsWith(n) && /^[.\-+~]/.test(rest) && (!best || n.length > best.name.length)) best = c;
  }
  return best;
}

/** Calendar days (UTC) from the day of `now` to `day`: 0 on the day itself, negative once it has passed; null for no date. */
export function daysUntil(day: string | null, now: number): number | null {
  if (day === null) return null;
  return Math.round((Date.parse(`${day}T00:00:00Z`) - Math.floor(now / DAY_MS) * DAY_MS) / DAY_MS);
}

/** Where a cycle stands on `now`: supported, security fixes only, or end of life. */
export function status(c: Cycle, now: number): "supported" | "security fixes only" | "end of life" {
  const eol = daysUntil(c.securityEnd, now);
  if (eol !== null ? eol <= 0 : c.isEol) return "end of life";
  const active = daysUntil(c.supportEnd, now);
  return active !== null && active <= 0 ? "security fixes only" : "supported";
}

/** A version's parts as numbers where they are, to say whether one is older than another. */
export function older(a: string, b: string): boolean {
  const parts = (s: string) => s.replace(/^v/i, "").split(/[.\-+~]/);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const [p, q] = [x[i] ?? "0", y[i] ?? "0"];
    const [m, n] = [Number(p), Number(q)];
    if (Number.isFinite(m) && Number.isFinite(n)) {
      if (m !== n) return m < n;
    } else if (p !== q) return p < q;
  }
  return false;
}
