/**
 * Resources and prompts, so an agent can look before it acts: each
 * capability's card (the one `rta explain` prints) as the template
 * `rta://capability/{name}`, the calling agent's own live grants as
 * `rta://grants`, and two prompts that ask for the relevant reads; the reads
 * themselves as templates are templates.ts's. Every list is paged and
 * deterministic; a cursor is bound to the list it came from.
 */
import { createHash } from "node:crypto";
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { cardOf } from "../core/card.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { type Config, EMPTY_CONFIG } from "../core/config.ts";
import type { RtaError } from "../core/errors.ts";
import { PROMPTS } from "../core/prompts.ts";
import type { StoreTables } from "../gate/gateStore.ts";
import { configValues } from "../gate/values.ts";

/** Items per page of a list. */
export const PAGE_SIZE = 50;

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** One page of `all`; the cursor carries the offset and a digest of the list, so a cursor from another list is refused. */
export function page<T>(all: T[], cursor: string | undefined, key: (t: T) => string): Page<T> {
  const revision = createHash("sha256").update(all.map(key).join("\n")).digest("hex").slice(0, 12);
  let offset = 0;
  if (cursor !== undefined) {
    try {
      const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o: number; r: string };
      if (parsed.r !== revision || !Number.isInteger(parsed.o) || parsed.o < 0 || parsed.o > all.length)
        throw new Error("stale");
      offset = parsed.o;
    } catch {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "the cursor is not one this list gave out, or the list has changed: list again from the start",
      );
    }
  }
  const items = all.slice(offset, offset + PAGE_SIZE);
  const next = offset + PAGE_SIZE;
  return next < all.length
    ? { items, nextCursor: Buffer.from(JSON.stringify({ o: next, r: revision })).toString("base64url") }
    : { items };
}

export const GRANTS_URI = "rta://grants";
export const CARD_TEMPLATE = "rta://capability/{name}";

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

export interface TemplateEntry {
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
}

/** resources/list: the agent's own grants, then `reads` (the reads whose inputs are all optional). */
export function resourceList(reads: readonly ResourceEntry[] = []): ResourceEntry[] {
  return [
    {
      uri: GRANTS_URI,
      name: "grants",
      title: "Your live grants",
      description:
        "What this agent may do now beyond free reads: each grant's capability, until when, and how many uses are left.",
      mimeType: "application/json",
    },
    ...reads,
  ];
}

/** resources/templates/list: a capability's card, then `reads` (the reads as templates). */
export function templateList(reads: readonly TemplateEntry[] = []): TemplateEntry[] {
  return [
    {
      uriTemplate: CARD_TEMPLATE,
      name: "capability",
      title: "A capability's card",
      description:
        "What a capability does, its inputs, its safety class and whether it needs a grant: the card rta explain prints.",
      mimeType: "application/json",
    },
    ...reads,
  ];
}

/**
 * The contents of a resource, read for `agent`; an unknown URI is
 * RESOURCE_NOT_FOUND. A card is the agent's card: the tool's view of its
 * inputs under the operator's `config` (what it fills, the profiles it sets up).
 */
export function readResource(
  uri: string,
  agent: string,
  catalogue: Catalogue,
  store: () => StoreTables,
  now: number,
  config: Config = EMPTY_CONFIG,
): { uri: string; mimeType: string; text: string } {
  if (uri === GRANTS_URI) {
    const grants = store()
      .liveGrants(agent, now)
      .map((g) => ({
        id: g.id,
        capability: g.target,
        ...(g.record !== null ? { record: g.record } : {}),
        ...(g.host !== null ? { host: g.host } : {}),
        ...(g.profile !== null ? { profile: g.profile } : {}),
        ...(g.connection !== null ? { connection: g.connection } : {}),
        ...(g.args_digest !== null ? { exact_call_only: true } : {}),
        until: new Date(g.expires_at).toISOString(),
        uses_left: g.max_uses === null ? "any" : g.max_uses - g.uses,
      }));
    return { uri, mimeType: "application/json", text: JSON.stringify({ agent, grants }) };
  }
  const m = uri.match(/^rta:\/\/capability\/([A-Za-z0-9._-]+)$/);
  const cap = m ? (catalogue.byName(m[1] as string) ?? catalogue.byTool(m[1] as string)) : undefined;
  // -32602 with the URI, as the 2026-07-28 revision requires of a miss on every era (SEP-2164).
  if (!cap) throw new ResourceNotFoundError(uri, `no resource at ${uri}`);
  return {
    uri,
    mimeType: "application/json",
    text: JSON.stringify(cardOf(cap, "agent", new Set(Object.keys(configValues(config, cap))), config)),
  };
}

/** The bucket a resource read spends from: the agent's grants, or any card (an unknown URI too: no bucket per guess). */
export function resourceKey(uri: string): string {
  return uri === GRANTS_URI ? GRANTS_URI : CARD_TEMPLATE;
}

/** A resource read refused by a rate limit, as a JSON-RPC error: rta's code, hint and the seconds to wait in its data. */
export function rateRefusal(e: RtaError): ProtocolError {
  return new ProtocolError(RATE_LIMITED, e.message, { code: e.code, hint: e.hint, retry_after_seconds: e.retryAfter });
}

/** A server error of JSON-RPC's own range (-32000 to -32099): the read was well formed and may be sent again later. */
const RATE_LIMITED = -32000;

/** prompts/list: each prompt, with its one required argument. */
export function promptList(): {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}[] {
  return PROMPTS.map((p) => ({
    name: p.name,
    title: p.title,
    description: p.description,
    arguments: [{ ...p.argument, required: true }],
  }));
}

/** prompts/get: the prompt's message for its argument. Refuses (InvalidParams) an unknown prompt or a blank argument. */
export function getPrompt(
  name: string,
  args: Record<string, string> | undefined,
): { description: string; messages: { role: "user"; content: { type: "text"; text: string } }[] } {
  const p = PROMPTS.find((x) => x.name === name);
  if (!p) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no prompt named ${name}`);
  const value = args?.[p.argument.name]?.trim();
  if (!value) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${name} needs ${p.argument.name}`);
  return { description: p.description, messages: [{ role: "user", content: { type: "text", text: p.text(value) } }] };
}
