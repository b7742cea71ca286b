/**
 * Reads as resource templates, after seed 000's subset of RFC 6570. Every
 * read of rta's own or a plugin's whose inputs, as the agent sees them, are
 * all scalars is also the template `rta://<area>/<thing>[/<action>]`, its
 * required inputs one path segment each and its optional ones in the query,
 * each in name order: `rta://fs/read/{path}{?from_line,lines}`. A read whose
 * inputs are all optional is also that URI as a plain resource. An upstream's
 * reads are not: its own resources are its own to offer.
 *
 * A URI is read back strictly: at most 2 KiB, exactly the template's segment
 * count, no parameter the template does not name and none twice, each value
 * converted by its input's schema type. What is wrong is said per field, as
 * one -32602.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";
import type { Scalar } from "../core/result.ts";
import type { ToolListing } from "./describe.ts";

/** The longest URI read back, in bytes. */
export const MAX_URI_BYTES = 2048;

const SCHEME = "rta://";

export interface ReadTemplate {
  cap: Capability;
  /** the URI with no variable: `rta://fs/read` */
  base: string;
  /** the inputs in the path, in name order */
  required: string[];
  /** the inputs in the query, in name order */
  optional: string[];
  /** each input's schema, as the agent's tool listing publishes it */
  properties: Record<string, Property>;
  uriTemplate: string;
  listing: ToolListing;
  mimeType: "text/plain" | "application/json";
}

export interface Property {
  type?: unknown;
  enum?: unknown;
}

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

/** True for a schema a URI can carry: a string, integer, number or boolean, or an enum of strings. */
function isScalar(p: Property): boolean {
  if (p.enum !== undefined) return Array.isArray(p.enum) && p.enum.every((v) => typeof v === "string");
  return typeof p.type === "string" && SCALAR_TYPES.has(p.type);
}

/** Made once per tool list (which is made once per catalogue and config). */
const madeFor = new WeakMap<readonly ToolListing[], ReadTemplate[]>();

/**
 * The read templates of a catalogue, from the agent's tool list as it stands
 * (so a required input the config fills is in the query, and an operator-only
 * input is in neither). In tool-name order. Refuses nothing.
 */
export function readTemplates(catalogue: Catalogue, listings: readonly ToolListing[]): ReadTemplate[] {
  let made = madeFor.get(listings);
  if (made === undefined) {
    made = listings.flatMap((listing) => {
      const cap = catalogue.byTool(listing.name);
      if (cap === undefined || cap.safety !== "read" || cap.upstream !== undefined) return [];
      const properties = (listing.inputSchema.properties ?? {}) as Record<string, Property>;
      if (!Object.values(properties).every(isScalar)) return [];
      const names = Object.keys(properties).sort();
      const needed = new Set(listing.inputSchema.required ?? []);
      const required = names.filter((n) => needed.has(n));
      const optional = names.filter((n) => !needed.has(n));
      const base = SCHEME + cap.words.join("/");
      const uriTemplate =
        base + required.map((n) => `/{${n}}`).join("") + (optional.length > 0 ? `{?${optional.join(",")}}` : "");
      const mimeType = cap.result.shape === "text" ? "text/plain" : "application/json";
      return [{ cap, base, required, optional, properties, uriTemplate, listing, mimeType }];
    });
    madeFor.set(listings, made);
  }
  return made;
}

/**
 * What resources/templates/list says of the templates with a variable (one
 * with none is only its plain resource): name and description are
 * its tool's.
 */
export function templateEntries(templates: readonly ReadTemplate[]) {
  return templates
    .filter((t) => t.required.length + t.optional.length > 0)
    .map((t) => ({
      uriTemplate: t.uriTemplate,
      name: t.listing.name,
      title: t.cap.summary,
      description: t.listing.description,
      mimeType: t.mimeType,
    }));
}

/** The plain resources of the templates whose inputs are all optional: their URI with no variable. */
export function plainEntries(templates: readonly ReadTemplate[]) {
  return templates
    .filter((t) => t.required.length === 0)
    .map((t) => ({
      uri: t.base,
      name: t.listing.name,
      title: t.cap.summary,
      description: t.listing.description,
      mimeType: t.mimeType,
    }));
}

/** A -32602 naming what is wrong with a resource URI. */
function badUri(uri: string, problems: string[], fields?: Record<string, string>): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `${problems.join("; ")}`,
    fields === undefined ? { uri } : { uri, fields },
  );
}

/** A value as a message quotes it: JSON, cut short. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** One URI value converted by its input's schema; a message when it does not convert. */
function converted(p: Property, value: string): Scalar | { wrong: string } {
  if (Array.isArray(p.enum)) {
    return p.enum.includes(value)
      ? value
      : { wrong: `${quoted(value)} is not one of ${(p.enum as string[]).join(", ")}` };
  }
  switch (p.type) {
    case "integer": {
      const n = Number(value);
      return /^-?\d+$/.test(value) && Number.isSafeInteger(n) ? n : { wrong: `${quoted(value)} is not an integer` };
    }
    case "number": {
      const n = Number(value);
      return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value) && Number.isFinite(n)
        ? n
        : { wrong: `${quoted(value)} is not a number` };
    }
    case "boolean":
      return value === "true" ? true : value === "false" ? false : { wrong: `${quoted(value)} is not true or false` };
    default:
      return value;
  }
}

function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The template a URI's path names: the one whose words it starts with, the most words first. */
function templateOf(segments: readonly string[], templates: readonly ReadTemplate[]): ReadTemplate | undefined {
  let best: ReadTemplate | undefined;
  for (const t of templates) {
    const words = t.cap.words;
    if (words.length > segments.length || !words.every((w, i) => segments[i] === w)) continue;
    if (best === undefined || words.length > best.cap.words.length) best = t;
  }
  return best;
}

/**
 * The template a resource URI expands, and the arguments it spells, typed.
 * Undefined for a URI that names no read template (another resource, or none).
 * Throws a -32602 for one over 2 KiB, and for one that names a template but
 * has the wrong number of segments, a parameter it does not name or names
 * twice, or a value its input's type refuses (`data.fields` says which).
 */
export function parseReadUri(
  uri: string,
  templates: readonly ReadTemplate[],
): { template: ReadTemplate; args: Record<string, Scalar> } | undefined {
  const bytes = Buffer.byteLength(uri);
  if (bytes > MAX_URI_BYTES) throw badUri(uri.slice(0, 64), [`the URI is ${bytes} bytes, over ${MAX_URI_BYTES}`]);
  if (!uri.startsWith(SCHEME)) return undefined;
  const rest = uri.slice(SCHEME.length);
  if (rest.includes("#")) {
    const t = templateOf(rest.split(/[?#]/)[0]?.split("/") ?? [], templates);
    if (t) throw badUri(uri, [`a fragment (#) is not part of ${t.uriTemplate}: percent-encode it as %23`]);
    return undefined;
  }
  const q = rest.indexOf("?");
  const segments = (q < 0 ? rest : rest.slice(0, q)).split("/");
  const template = templateOf(segments, templates);
  if (template === undefined) return undefined;
  const values = segments.slice(template.cap.words.length);
  if (values.length !== template.required.length) {
    const n = template.required.length;
    throw badUri(uri, [
      `${template.uriTemplate} takes ${n} path segment${n === 1 ? "" : "s"} after ${template.base}, this URI has ${values.length}: percent-encode a / inside a value as %2F`,
    ]);
  }
  const problems: string[] = [];
  const fields: Record<string, string> = Object.create(null);
  const args: Record<string, Scalar> = {};
  const take = (name: string, raw: string) => {
    const text = decoded(raw);
    const out =
      text === undefined
        ? { wrong: "is not valid percent-encoding" }
        : converted(template.properties[name] as Property, text);
    if (out !== null && typeof out === "object") {
      fields[name] = out.wrong;
      problems.push(`${name}: ${out.wrong}`);
    } else args[name] = out;
  };
  template.required.forEach((name, i) => {
    take(name, values[i] as string);
  });
  if (q >= 0 && q < rest.length - 1) {
    const seen = new Set<string>();
    for (const pair of rest.slice(q + 1).split("&")) {
      const eq = pair.indexOf("=");
      const name = decoded(eq < 0 ? pair : pair.slice(0, eq)) ?? pair;
      if (!template.optional.includes(name)) {
        const wrong = template.required.includes(name)
          ? `is a path segment of ${template.uriTemplate}, not a query parameter`
          : `is not a parameter of ${template.uriTemplate}`;
        fields[name] = wrong;
        problems.push(`${quoted(name)} ${wrong}`);
      } else if (seen.has(name)) {
        fields[name] = "is given more than once";
        problems.push(`${name} is given more than once`);
      } else if (eq < 0) {
        seen.add(name);
        fields[name] = "has no value (name=value)";
        problems.push(`${name} has no value (name=value)`);
      } else {
        seen.add(name);
        take(name, pair.slice(eq + 1));
      }
    }
  }
  if (problems.length > 0) throw badUri(uri, [...new Set(problems)], fields);
  return { template, args };
}
