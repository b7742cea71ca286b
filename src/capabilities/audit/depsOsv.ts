/**
 * audit.deps's questions to osv.dev: `/v1/querybatch` in chunks of 1,000
 * (each package@version once), `/v1/query` again for a result osv.dev paged,
 * then `/v1/vulns/{id}` once for each vulnerability found, a few at a time,
 * each of the last two up to a bound for the whole call.
 * Only names, versions and ecosystems leave the machine.
 */
import { RtaError } from "../../core/errors.ts";
import type { Dep } from "./lockfiles/types.ts";

/** What audit.deps needs of the offsite client (core/access.ts OffsiteClient). */
export interface OsvService {
  get(path: string): Promise<OsvAnswer>;
  post(path: string, body: unknown): Promise<OsvAnswer>;
}

/** One answer as the offsite client gives it: `stale` when it is an old one, given because osv.dev was down. */
export interface OsvAnswer {
  status: number;
  body: Buffer;
  stale?: boolean;
  ageMs?: number;
}

/** An OSV record, as far as audit.deps reads one. */
export interface OsvVuln {
  id: string;
  summary?: string;
  details?: string;
  aliases?: string[];
  severity?: { type: string; score: string }[];
  affected?: OsvAffected[];
  database_specific?: { severity?: string };
}

export interface OsvAffected {
  package?: { ecosystem?: string; name?: string };
  ranges?: { type?: string; events?: Record<string, string>[] }[];
  versions?: string[];
  severity?: { type: string; score: string }[];
  database_specific?: { severity?: string };
}

/** What osv.dev said: the ids for each package (by depKey), each id's record, and how many requests it took. */
export interface OsvAnswers {
  ids: Map<string, string[]>;
  vulns: Map<string, OsvVuln | undefined>;
  requests: number;
  /** the age of the oldest answer given from the cache because osv.dev could not be reached; 0 when none was */
  staleMs: number;
  /** the vulnerabilities found whose record was not asked for, past MAX_DETAILS; 0 when each was */
  unasked: number;
  /** the paged results whose next page was not asked for, past MAX_PAGES; 0 when each was */
  unpaged: number;
}

export const CHUNK = 1000;
const DETAIL_CONCURRENCY = 8;
/**
 * The pages one call follows, and the vulnerability records it asks for, all packages together: each is one more
 * request, and an answer that named no end of them (a broken or hostile mirror) would keep the call asking, and fill
 * the cache, for hours. Past them the ids found are still listed, and the caller says what was not asked.
 */
export const MAX_PAGES = 100;
export const MAX_DETAILS = 1000;

/** The key of one package@version in one ecosystem. */
export function depKey(d: Dep): string {
  return `${d.ecosystem}\u0000${d.name}\u0000${d.version}`;
}

function json(answer: { status: number; body: Buffer }, what: string): Record<string, unknown> {
  if (answer.status !== 200)
    throw new RtaError("offsite.answer.invalid", `osv.dev answered ${what} with HTTP ${answer.status}`);
  try {
    const v = JSON.parse(answer.body.toString("utf8"));
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v;
  } catch {}
  throw new RtaError("offsite.answer.invalid", `osv.dev's answer to ${what} is not the JSON it documents`);
}

function idsOf(result: unknown): { ids: string[]; next?: string } {
  const r = (result ?? {}) as { vulns?: { id?: unknown }[]; next_page_token?: unknown };
  const ids = (Array.isArray(r.vulns) ? r.vulns : []).map((v) => v?.id).filter((id) => typeof id === "string");
  const next = typeof r.next_page_token === "string" && r.next_page_token !== "" ? r.next_page_token : undefined;
  return { ids: ids as string[], next };
}

const query = (d: Dep) => ({ package: { name: d.name, ecosystem: d.ecosystem }, version: d.version });

/**
 * Asks osv.dev about each dependency once. Refuses what the client refuses
 * (offsite.unreachable when it cannot be reached, core.call.cancelled), and
 * offsite.answer.invalid for an answer of the wrong status or shape.
 */
export async function askOsv(service: OsvService, deps: readonly Dep[]): Promise<OsvAnswers> {
  const unique = [...new Map(deps.map((d) => [depKey(d), d])).values()];
  const out: OsvAnswers = { ids: new Map(), vulns: new Map(), requests: 0, staleMs: 0, unasked: 0, unpaged: 0 };
  let pages = 0;
  const ask = async (how: "get" | "post", path: string, body?: unknown) => {
    out.requests++;
    const answer = how === "get" ? await service.get(path) : await service.post(path, body);
    if (answer.stale) out.staleMs = Math.max(out.staleMs, answer.ageMs ?? 1);
    return answer;
  };
  for (let at = 0; at < unique.length; at += CHUNK) {
    const chunk = unique.slice(at, at + CHUNK);
    const batch = json(await ask("post", "/v1/querybatch", { queries: chunk.map(query) }), "/v1/querybatch");
    const results = Array.isArray(batch.results) ? batch.results : [];
    if (results.length !== chunk.length)
      throw new RtaError("offsite.answer.invalid", "osv.dev's /v1/querybatch answer has not one result per query");
    for (const [i, dep] of chunk.entries()) {
      let { ids, next } = idsOf(results[i]);
      for (; next !== undefined && pages < MAX_PAGES; pages++) {
        const more = idsOf(json(await ask("post", "/v1/query", { ...query(dep), page_token: next }), "/v1/query"));
        ids = [...ids, ...more.ids];
        next = more.next;
      }
      if (next !== undefined) out.unpaged++;
      if (ids.length > 0) out.ids.set(depKey(dep), [...new Set(ids)]);
    }
  }
  const found = [...new Set([...out.ids.values()].flat())];
  const wanted = found.slice(0, MAX_DETAILS);
  out.unasked = found.length - wanted.length;
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const id = wanted[next++] as string;
      const answer = await ask("get", `/v1/vulns/${encodeURIComponent(id)}`);
      out.vulns.set(id, answer.status === 404 ? undefined : (json(answer, `/v1/vulns/${id}`) as unknown as OsvVuln));
    }
  };
  await Promise.all(Array.from({ length: Math.min(DETAIL_CONCURRENCY, wanted.length) }, worker));
  return out;
}
