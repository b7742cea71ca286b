/**
 * The client a free read declared `offsite` is handed (core/access.ts
 * OffsiteClient). It asks only the base URL the operator set: the value of
 * one of the call's operator-only inputs, which an agent never sends (stage
 * 3 leaves them out of what it may send, and the schema refuses one sent).
 * Because no agent aims it, that URL may be loopback or private (a mirror, a
 * test's stand-in); a redirect off its origin is refused. Each exchange is
 * resolved once and pinned, held to a time and size, and to the call's
 * signal. Answers are kept a day (offsiteCache.ts), and an old one is given,
 * said to be stale, when the service cannot be reached.
 */
import type { Offsite, OffsiteAnswer, OffsiteClient, OffsiteOptions } from "../../core/access.ts";
import type { Args, Capability } from "../../core/capability.ts";
import type { Clock } from "../../core/deps.ts";
import { RtaError } from "../../core/errors.ts";
import { resolveDestination } from "./destination.ts";
import { exchange } from "./httpClient.ts";
import { cacheKey, OffsiteCache } from "./offsiteCache.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** how old an answer may be and still be given, said stale, while the service cannot be reached */
const STALE_MS = 30 * DAY_MS;
const DEFAULTS = { cacheMs: DAY_MS, timeoutMs: 10_000, maxBody: 8 * 1024 * 1024 };
const MAX_REDIRECTS = 5;

/** What the client of one call is made from, beside its capability and arguments. */
export interface OffsiteSetting {
  dataDir: string;
  clock: Clock;
  signal: AbortSignal;
}

/**
 * The offsite handle of one call: a client for a base that is one of the call's operator-only values. Refuses
 * offsite.url a base that is not, is no http(s) URL (or carries credentials), or any when the capability
 * declares no offsite service.
 */
export function offsiteFor(cap: Capability, args: Args, setting: OffsiteSetting): Offsite {
  return (base: string) => {
    const service = cap.offsite;
    if (service === undefined)
      throw new RtaError("offsite.url", `${cap.name} declares no offsite service`, "declare offsite to ask one");
    const input = Object.entries(cap.inputs).find(([name, spec]) => spec.operatorOnly === true && args[name] === base);
    if (input === undefined)
      throw new RtaError(
        "offsite.url",
        `${cap.name} may ask ${service} only at a base URL the operator set`,
        "the base URL is an operator-only input, set in config's [defaults] or on the command line",
      );
    return new Client(service, parseBase(base, input[0]), base, setting, mirrorHint(cap, input[0]));
  };
}

/**
 * Where the operator points the service at a mirror: the input, under the area's [defaults] table, which config
 * fills for each of the area's capabilities (fill.ts). A base no config set is named too, so the person who meets
 * offsite.unreachable offline knows which line to write.
 */
function mirrorHint(cap: Capability, input: string): string {
  return `rta may be offline: check the network, or set ${input} under [defaults.${cap.area}] in config.toml to a mirror that answers`;
}

/** An http(s) URL with no credentials, query or fragment; refuses offsite.url anything else. */
function parseBase(base: string, input: string): URL {
  const refusal = baseUrlRefusal(base, input);
  if (refusal) throw refusal;
  return new URL(base);
}

/**
 * Why `base`, the value of the operator's input `input`, cannot be a base URL (offsite.url), or undefined when it
 * can: an http(s) URL with no credentials, query or fragment. `rta config check` asks it of config's values.
 */
export function baseUrlRefusal(base: string, input: string): RtaError | undefined {
  let url: URL | undefined;
  try {
    url = new URL(base);
  } catch {}
  if (
    url &&
    (url.protocol === "http:" || url.protocol === "https:") &&
    !url.username &&
    !url.password &&
    !url.search &&
    !url.hash
  )
    return undefined;
  return new RtaError(
    "offsite.url",
    `${input} ${JSON.stringify(base)} is not an http(s) base URL`,
    `set ${input} to a URL like https://host or http://127.0.0.1:8080/prefix, with no user, query or fragment`,
  );
}

class Client implements OffsiteClient {
  readonly service: string;
  readonly base: string;
  readonly #url: URL;
  readonly #setting: OffsiteSetting;
  readonly #cache: OffsiteCache;
  readonly #offline: string;

  constructor(service: string, url: URL, base: string, setting: OffsiteSetting, offline: string) {
    this.service = service;
    this.#offline = offline;
    this.base = base;
    this.#url = url;
    this.#setting = setting;
    this.#cache = new OffsiteCache(setting.dataDir);
  }

  get(path: string, options?: OffsiteOptions): Promise<OffsiteAnswer> {
    return this.#ask("GET", path, undefined, options);
  }

  post(path: string, body: unknown, options?: OffsiteOptions): Promise<OffsiteAnswer> {
    return this.#ask("POST", path, Buffer.from(JSON.stringify(body)), options);
  }

  async #ask(
    method: "GET" | "POST",
    path: string,
    body: Buffer | undefined,
    options?: OffsiteOptions,
  ): Promise<OffsiteAnswer> {
    const { cacheMs, timeoutMs, maxBody } = { ...DEFAULTS, ...options };
    const url = this.#join(path);
    const key = cacheKey(method, url.href, body);
    const now = this.#setting.clock.now();
    const kept = cacheMs > 0 ? this.#cache.read(key, url.href) : undefined;
    if (kept && kept.fetchedAt <= now && now - kept.fetchedAt < cacheMs)
      return { ...kept, ageMs: now - kept.fetchedAt, cached: true, stale: false };
    try {
      const answer = await this.#follow(method, url, body, timeoutMs, maxBody);
      const fresh = { status: answer.status, body: answer.body, fetchedAt: now };
      if (cacheMs > 0 && answer.status >= 200 && answer.status < 300) this.#cache.write(key, url.href, fresh);
      return { ...fresh, ageMs: 0, cached: false, stale: false };
    } catch (err) {
      const age = kept ? now - kept.fetchedAt : Number.POSITIVE_INFINITY;
      if (kept && err instanceof RtaError && err.code === "offsite.unreachable" && age >= 0 && age < STALE_MS)
        return { ...kept, ageMs: age, cached: true, stale: true };
      throw err;
    }
  }

  /** `path` under the base; one that leaves its origin (`//host`, an absolute URL) is a fault of the capability. */
  #join(path: string): URL {
    const url = new URL(this.#url.href);
    const [pathname = "", search] = path.split("?", 2);
    url.pathname = `${this.#url.pathname.replace(/\/+$/, "")}/${pathname.replace(/^\/+/, "")}`;
    if (search !== undefined) url.search = search;
    if (url.origin !== this.#url.origin) throw new Error(`offsite path ${path} leaves ${this.#url.origin}`);
    return url;
  }

  /** Asks, following a redirect that stays on the base's origin; refuses offsite.redirect one that leaves it. */
  async #follow(method: "GET" | "POST", first: URL, body: Buffer | undefined, timeoutMs: number, maxBody: number) {
    let url = first;
    for (let hop = 0; ; hop++) {
      const answer = await this.#once(method, url, body, timeoutMs, maxBody);
      const location = answer.headers.location;
      if (answer.status < 300 || answer.status > 399 || answer.status === 304 || location === undefined) return answer;
      const next = new URL(location, url);
      if (next.origin !== this.#url.origin)
        throw new RtaError(
          "offsite.redirect",
          `${this.service} at ${this.#url.origin} redirected to ${next.origin}, off the base URL the operator set`,
          "set the base URL to where the service is now, if that is the service",
        );
      if (hop >= MAX_REDIRECTS)
        throw new RtaError(
          "offsite.redirect",
          `${this.service} redirected more than ${MAX_REDIRECTS} times`,
          "check the base URL",
        );
      if (answer.status !== 307 && answer.status !== 308) {
        method = "GET";
        body = undefined;
      }
      url = next;
    }
  }

  /** One exchange to the address the host resolves to now; the network's refusals said as offsite.unreachable. */
  async #once(method: "GET" | "POST", url: URL, body: Buffer | undefined, timeoutMs: number, maxBody: number) {
    const { signal } = this.#setting;
    if (signal.aborted)
      throw new RtaError("core.call.cancelled", `the request to ${url.host} was cancelled`, "call again to start over");
    try {
      // No agent aimed it: the address is held to no class (a loopback stand-in, a private mirror).
      const to = await resolveDestination(url.hostname, undefined, {
        agent: undefined,
        grantHost: undefined,
        capability: this.service,
      });
      const limits = { connectMs: timeoutMs, headersMs: timeoutMs, bodyMs: timeoutMs, maxBody: maxBody + 1 };
      const answer = await exchange(method, { url, address: to.address, ...(body ? { body } : {}) }, limits, signal);
      if (answer.cut || answer.body.length > maxBody)
        throw new RtaError(
          "offsite.answer.toolarge",
          `${this.service} answered with more than ${maxBody} bytes`,
          "ask for less",
        );
      return answer;
    } catch (err) {
      if (!(err instanceof RtaError) || !err.code.startsWith("net.")) throw err;
      const why = err.code.startsWith("net.dns.") ? `its name did not resolve (${err.code.slice(8)})` : err.message;
      throw new RtaError(
        "offsite.unreachable",
        `${this.service} could not be reached at ${this.#url.origin}: ${why}`,
        this.#offline,
      );
    }
  }
}
